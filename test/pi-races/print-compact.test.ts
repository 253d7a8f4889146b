/**
 * claude-code#43685: `/compact [instructions]` did not compact when given instructions: it
 * returned at once, the context usage unchanged, the words taken as a prompt for the model.
 * (claude-code#89797 runs it headless: `claude -p --resume <id> "/compact <block>"`.)
 * Settle's `settle -c -p "/compact keep …"` did the same: the text went to the model as a question,
 * a paid answer came back, nothing was compacted. What the user expects: the session compacts with
 * those instructions, the output says so, and the next run goes on from the summary. Replayed with
 * real `settle` processes on one session folder and a local OpenAI-compatible server.
 *
 * pi#7492, openclaw#41100: a compaction an extension's `session_before_compact` cancelled said only
 * "Compaction cancelled" (or "aborted" in the chat): the user could not tell who cancelled or why.
 * What the user should see: the extension named, in `-p` and in the chat.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { fileEntries, isChatSummaryRequest, sessionFilesUnder, writeExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-print-compact-");

const answer = (text: string, prompt: number) =>
	chatReply([{ type: "text", text }], { usage: { prompt, completion: 20 } });

/** Two answered questions in one session file; `keepRecentTokens` lets the first exchange be summarized. */
async function sessionWithTwoAnswers(keepRecentTokens: number | undefined): Promise<WireServer> {
	// Summary requests (a split turn asks two) get a summary; the others take the next reply.
	const server = await startWireServer((request, next) =>
		isChatSummaryRequest(request) ? answer("## Goal\nthe summary", 900) : next(),
	);
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
	if (keepRecentTokens !== undefined) {
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens } }));
	}
	server.reply(answer("first answer", 400), answer("second answer", 800));
	for (const [index, question] of ["first question", "second question"].entries()) {
		const run = await settle(index === 0 ? ["-p", question] : ["-c", "-p", question]);
		expect(run.code).toBe(0);
	}
	return server;
}

const settle = (args: string[]) =>
	runSettleAsync(["--model", "local/coder", ...args], { cwd: cli.project, agentDir: cli.agentDir });

const sentText = (server: WireServer, index: number) => JSON.stringify(server.requests[index]?.body?.messages);

function entryTypes(): string[] {
	const [file] = sessionFilesUnder(cli.agentDir);
	return fileEntries(file!).map((entry) => entry.type);
}

describe("claude-code#43685: /compact [instructions] sent headless is taken as a prompt", () => {
	it('claude-code#43685: settle -c -p "/compact keep the API decisions": the session compacts with that focus (no question asked of the model), the output says so, exit 0; the next run goes on from the summary', async () => {
		const server = await sessionWithTwoAnswers(1);
		try {
			server.reply(answer("third answer", 120));
			const compact = await settle(["-c", "-p", "/compact keep the API decisions"]);
			expect({ code: compact.code, stderr: compact.stderr }).toEqual({ code: 0, stderr: "" });
			expect(compact.stdout).toMatch(/^Compacted \(manual\): \d+ tokens before, about \d+ after\.\n$/);
			// Only summary requests, each with the focus; no answer asked for.
			const asked = server.requests.slice(2);
			expect(asked.length).toBeGreaterThan(0);
			expect(asked.every(isChatSummaryRequest)).toBe(true);
			for (const request of asked) expect(JSON.stringify(request.body?.messages)).toContain("keep the API decisions");
			expect(JSON.stringify(asked.map((request) => request.body?.messages))).toContain("first question");
			expect(entryTypes()).toContain("compaction");

			const next = await settle(["-c", "-p", "third question"]);
			expect({ code: next.code, stdout: next.stdout }).toEqual({ code: 0, stdout: "third answer\n" });
			const sent = sentText(server, server.requests.length - 1);
			expect(sent).toContain("the summary");
			expect(sent).not.toContain("first question");
			expect(sent).not.toContain("/compact");
		} finally {
			await server.close();
		}
	});

	it('claude-code#43685: settle -c --json -p "/compact" "third question": compaction events (reason manual), then the question answered on the compacted context', async () => {
		const server = await sessionWithTwoAnswers(1);
		try {
			server.reply(answer("third answer", 120));
			const run = await settle(["-c", "--json", "-p", "/compact", "third question"]);
			expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
			const types = run.stdout
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as { type: string; reason?: string; aborted?: boolean })
				.filter((event) => ["compaction_start", "compaction_end", "agent_start", "agent_settled"].includes(event.type))
				.map((event) => (event.reason ? `${event.type}(${event.reason})` : event.type));
			expect(types).toEqual(["compaction_start(manual)", "compaction_end(manual)", "agent_start", "agent_settled"]);
			const last = server.requests.length - 1;
			expect(server.requests.slice(2, last).every(isChatSummaryRequest)).toBe(true);
			expect(sentText(server, last)).toContain("the summary");
			expect(sentText(server, last)).toContain("third question");
			expect(sentText(server, last)).not.toContain("/compact");
		} finally {
			await server.close();
		}
	});

	it('claude-code#43685: settle -c -p "/compact" on a session below keepRecentTokens: the refusal on stderr, exit 1, no request, nothing written', async () => {
		const server = await sessionWithTwoAnswers(undefined);
		try {
			const before = entryTypes();
			const run = await settle(["-c", "-p", "/compact"]);
			expect(run).toMatchObject({ code: 1, stdout: "" });
			expect(run.stderr).toContain("Nothing to compact (session too small)");
			expect(server.requests).toHaveLength(2);
			expect(entryTypes()).toEqual(before);
		} finally {
			await server.close();
		}
	});

	it("an extension command named /compact still runs as itself in settle -p (as the start-up warning says): its handler gets the words, nothing is compacted or asked", async () => {
		const server = await sessionWithTwoAnswers(1);
		try {
			const heard = join(cli.dir, "heard.txt");
			const extension = writeExtension(
				cli.dir,
				"own-compact.js",
				`pi.registerCommand("compact", { description: "mine", handler: async (args) => { (await import("node:fs")).writeFileSync(${JSON.stringify(heard)}, args); } });`,
			);
			const run = await settle(["-c", "-e", extension, "-p", "/compact keep it"]);
			expect(run.code).toBe(0);
			expect(readFileSync(heard, "utf8")).toBe("keep it");
			expect(server.requests).toHaveLength(2);
			expect(entryTypes()).not.toContain("compaction");
		} finally {
			await server.close();
		}
	});

	it('pi#7492, openclaw#41100: settle -c -p "/compact" that an extension\'s session_before_compact cancels: stderr names that extension and what to do, exit 1, no request, nothing written', async () => {
		const server = await sessionWithTwoAnswers(1);
		try {
			const extension = writeExtension(
				cli.dir,
				"guard.js",
				`pi.on("session_before_compact", () => ({ cancel: true }));`,
			);
			const before = entryTypes();
			const run = await settle(["-c", "-e", extension, "-p", "/compact"]);
			expect(run).toMatchObject({ code: 1, stdout: "" });
			expect(run.stderr).toContain(
				`Compaction cancelled by the extension ${extension}: its session_before_compact handler returned { cancel: true }.`,
			);
			expect(server.requests).toHaveLength(2);
			expect(entryTypes()).toEqual(before);
		} finally {
			await server.close();
		}
	});

	it("pi#7492: settle -i, /compact that an extension cancels: the chat names the extension instead of 'aborted'", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		const extension = writeExtension(cli.dir, "guard.js", `pi.on("session_before_compact", () => ({ cancel: true }));`);
		const chat = new Repl(["--faux", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("first step", "first step\n>");
		await chat.say("second step", "second step\n>");
		const shown = await chat.say("/compact", "(its session_before_compact handler).");
		expect(shown).toContain(
			`Compaction (manual) cancelled by the extension ${extension} (its session_before_compact handler).`,
		);
		expect(shown).not.toContain("aborted");
		expect(await chat.end()).toBe(0);
	});
});
