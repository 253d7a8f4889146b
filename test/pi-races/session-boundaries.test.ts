/**
 * Reports about where a session begins and ends on disk, replayed with real `settle` processes
 * and real session files.
 *
 * claude-code#85907, oh-my-pi#11303, gemini-cli#28767: a session that never got a message left a
 * file behind — a bare start followed by `/resume` into another session, `/drop` (a fresh session)
 * then `/exit`, and every `--resume` (a second file holding only metadata, which a later cleanup
 * then mistook for the real one). They piled up as "(No messages)" sessions in the resume list.
 * What the user should see: no file for a session with no message, and the resumed file unchanged
 * until something is said in it.
 *
 * oh-my-pi#5730: `/new`, then the process ended before the new session's first answer; the next
 * start that continues the latest session reopened the transcript from before `/new`, and the next
 * instruction ran on that stale context. What the user should see: the prompt typed after `/new`
 * is the session continued.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { persistedUserTexts, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-session-boundaries-");

function chat(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

/** Starts a session with one answered prompt (the faux model) and returns its file. */
async function savedSession(prompt: string): Promise<string> {
	const run = await runSettleAsync(["--faux", "-p", prompt], { cwd: cli.project, agentDir: cli.agentDir });
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	const files = sessionFilesUnder(cli.agentDir);
	expect(files).toHaveLength(1);
	return files[0]!;
}

describe("claude-code#85907, oh-my-pi#11303: a session with no message leaves no file", () => {
	it("claude-code#85907: settle -i, then /resume into a saved session (a message sent there, or none): no file for the session the chat started with, and the resumed file changes only by what was said in it", async () => {
		const saved = await savedSession("remember the word PLUM");
		const bytes = readFileSync(saved, "utf8");

		const idle = chat(["--faux"]);
		await idle.idle(0);
		expect(await idle.say(`/resume ${saved}`)).toContain("Resumed ");
		expect(await idle.end()).toBe(0);
		expect(idle.stderr).toBe("");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([saved]);
		expect(readFileSync(saved, "utf8")).toBe(bytes);

		const talking = chat(["--faux"]);
		await talking.idle(0);
		expect(await talking.say(`/resume ${saved}`)).toContain("Resumed ");
		await talking.say("which word?", "which word?\n>");
		expect(await talking.end()).toBe(0);
		expect(talking.stderr).toBe("");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([saved]);
		expect(readFileSync(saved, "utf8").startsWith(bytes)).toBe(true);
		expect(persistedUserTexts(saved)).toEqual(["remember the word PLUM", "which word?"]);
	}, 60_000);

	it("oh-my-pi#11303: settle -i, a conversation, /new, then quitting: the fresh session leaves no file and the first file keeps its bytes", async () => {
		const session = chat(["--faux"]);
		await session.idle(0);
		await session.say("first conversation", "first conversation\n>");
		const [first] = sessionFilesUnder(cli.agentDir);
		const bytes = readFileSync(first!, "utf8");
		expect(await session.say("/new")).toContain("New session");
		expect(await session.end()).toBe(0);
		expect(session.stderr).toBe("");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([first]);
		expect(readFileSync(first!, "utf8")).toBe(bytes);
	}, 60_000);
});

describe("on a local endpoint: resumes quit at once (gemini-cli#28767), and /new then a kill before the first answer (oh-my-pi#5730)", () => {
	const server = useWireServer();
	const settle = (args: string[]) =>
		runSettleAsync(["--model", "local/coder", ...args], { cwd: cli.project, agentDir: cli.agentDir });

	it("gemini-cli#28767: settle -i -c --thinking high, quitting at once, twice, then once more with a prompt: one session file, unchanged until the prompt, which lands in it with the level the runs asked for", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", reasoning: true }] });
		server.reply(chatReply([{ type: "text", text: "noted FIG" }]));
		expect((await settle(["--thinking", "low", "-p", "remember the word FIG"])).code).toBe(0);
		const [saved] = sessionFilesUnder(cli.agentDir);
		const bytes = readFileSync(saved!, "utf8");
		for (let run = 0; run < 2; run++) {
			const resumed = chat(["--model", "local/coder", "-c", "--thinking", "high"]);
			await resumed.idle(0);
			expect(await resumed.end()).toBe(0);
			expect(resumed.stderr).toBe("");
		}
		expect(sessionFilesUnder(cli.agentDir)).toEqual([saved]);
		expect(readFileSync(saved!, "utf8")).toBe(bytes);

		server.reply(chatReply([{ type: "text", text: "FIG" }]));
		const talking = chat(["--model", "local/coder", "-c", "--thinking", "high"]);
		await talking.idle(0);
		await talking.say("which word?", "FIG");
		expect(await talking.end()).toBe(0);
		expect(sessionFilesUnder(cli.agentDir)).toEqual([saved]);
		expect(persistedUserTexts(saved!)).toEqual(["remember the word FIG", "which word?"]);
		const levels = readFileSync(saved!, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; thinkingLevel?: string })
			.filter((entry) => entry.type === "thinking_level_change")
			.map((entry) => entry.thinkingLevel);
		expect(levels).toEqual(["low", "high"]);
	}, 60_000);

	it("oh-my-pi#5730: settle -i -c, /new, a prompt whose answer never comes, the process killed (SIGKILL, nothing saved on the way out): settle -c continues the new session — its request holds the prompt typed after /new and nothing from before", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(chatReply([{ type: "text", text: "noted ALPHA" }]));
		expect((await settle(["-p", "the task is ALPHA"])).code).toBe(0);
		const [before] = sessionFilesUnder(cli.agentDir);

		const session = chat(["--model", "local/coder", "-c"]);
		await session.idle(0);
		expect(await session.say("/new")).toContain("New session");
		// The answer is never sent: the process dies while the request waits (a clean exit would
		// save the stopped answer, and the file with it).
		server.reply(() => {});
		session.send("the task is BETA");
		await server.waitForRequests(2);
		session.child.kill("SIGKILL");
		await session.exited;

		const files = sessionFilesUnder(cli.agentDir);
		expect(files).toHaveLength(2);
		const after = files.find((file) => file !== before)!;
		expect(persistedUserTexts(after)).toEqual(["the task is BETA"]);

		server.reply(chatReply([{ type: "text", text: "BETA" }]));
		const continued = await settle(["-c", "-p", "which task?"]);
		expect(continued.code).toBe(0);
		const sent = JSON.stringify(server.requests[2]!.body?.messages);
		expect(sent).toContain("the task is BETA");
		expect(sent).toContain("which task?");
		expect(sent).not.toContain("ALPHA");
		expect(persistedUserTexts(after)).toEqual(["the task is BETA", "which task?"]);
		expect(persistedUserTexts(before!)).toEqual(["the task is ALPHA"]);
	}, 60_000);
});
