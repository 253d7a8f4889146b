/**
 * opencode#43731: a context-compression plugin rewrote the text of existing messages in the
 * `context` hook, in place, for the request only; the host wrote those mutations back into the
 * stored session (matched by part id), so every rewrite became permanent history and the next
 * request rewrote the rewritten text again. pi's `context` event is the same hook. Replayed with a
 * real `.ts` extension in the real `settle` CLI: the handler tags every user text in place
 * (`[ref] …`); `-p` with two prompts in one process, then `-c -p` in a second; the faux model
 * echoes the last user text it received. What the author should see: each request carries the
 * rewrite once (the answers echo `[ref] …`); each handler call sees the untouched texts, never a
 * rewrite from an earlier request; the session file keeps what the user typed.
 *
 * pi-lens#13: pi-lens's `context` handler returned only its own guidance (`{ messages }`, as role
 * "system") instead of adding it to `event.messages`: the whole conversation was replaced, the
 * user's first prompt never reached the model and OpenAI refused the request ("One of input …
 * must be provided"). What the user should see: the prompt answered, the handler's list ignored,
 * and stderr naming the extension and what to return. Real `settle -p` against a local OpenAI chat
 * server that refuses a request without a user message, as OpenAI does.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, useWireServer } from "../llm/wire/server.js";
import { fileEntries, textOf } from "./helpers.js";

const cli = useCliProject("settle-pi-races-context-rewrites-");
// OpenAI refuses a request that carries no user message; this one does too.
const server = useWireServer((request, next) =>
	(request.body?.messages ?? []).some((message: { role?: string }) => message.role === "user")
		? next()
		: json(400, { error: { message: "One of input or previous_response_id must be provided." } }),
);

const TAGGER = `import { appendFileSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("context", (event) => {
		const seen: string[] = [];
		for (const message of event.messages) {
			if (message.role !== "user") continue;
			if (typeof message.content === "string") {
				seen.push(message.content);
				message.content = \`[ref] \${message.content}\`;
				continue;
			}
			for (const part of message.content) {
				if (part.type !== "text") continue;
				seen.push(part.text);
				part.text = \`[ref] \${part.text}\`;
			}
		}
		appendFileSync(process.env.CTX_LOG as string, \`\${JSON.stringify(seen)}\\n\`);
	});
}
`;

describe("opencode#43731: context rewrites stay in the request", () => {
	it("opencode#43731: a context handler mutating messages in place: each request tagged once, the next handler call sees the originals, the file keeps the typed texts", () => {
		const extension = join(cli.dir, "tagger.ts");
		writeFileSync(extension, TAGGER);
		const log = join(cli.dir, "context.log");
		const settle = (args: string[]) =>
			runSettle(["--faux", "-e", extension, ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				timeoutMs: 60_000,
				env: { CTX_LOG: log },
			});
		const first = settle(["-p", "hello there", "and again"]);
		expect([first.code, first.stdout.trim()]).toEqual([0, "[ref] and again"]);
		const second = settle(["-c", "-p", "third"]);
		expect([second.code, second.stdout.trim()]).toEqual([0, "[ref] third"]);

		expect(
			readFileSync(log, "utf8")
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line)),
		).toEqual([["hello there"], ["hello there", "and again"], ["hello there", "and again", "third"]]);
		const files = readdirSync(cli.agentDir, { recursive: true, encoding: "utf8" }).filter((name) =>
			name.endsWith(".jsonl"),
		);
		expect(files).toHaveLength(1);
		const messages = fileEntries(join(cli.agentDir, files[0] as string)).flatMap((entry) =>
			entry.type === "message" && entry.message ? [entry.message] : [],
		);
		expect(messages.flatMap((message) => textOf(message) ?? [])).toEqual(["hello there", "and again", "third"]);
		const answers = messages.flatMap((message) =>
			message.role === "assistant" ? message.content.flatMap((part) => (part.type === "text" ? part.text : [])) : [],
		);
		expect(answers).toEqual(["[ref] hello there", "[ref] and again", "[ref] third"]);
	});
});

/** pi-lens's `context` handler before its fix: its guidance alone, as the whole list. */
const GUIDANCE_ONLY = `export default function (pi) {
	pi.on("context", () => ({
		messages: [{ role: "system", content: "pi-lens: run the linter after each edit.", timestamp: Date.now() }],
	}));
}
`;

describe("pi-lens#13: a context handler returning only its own messages", () => {
	it("pi-lens#13: a context result the model reads none of is ignored: the prompt reaches the model and is answered, stderr names the extension and what to return", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(chatReply([{ type: "text", text: "Audited." }]));
		const extension = join(cli.dir, "pi-lens.mjs");
		writeFileSync(extension, GUIDANCE_ONLY);
		const run = await runSettleAsync(
			["--model", "local/coder", "--no-session", "-e", extension, "-p", "audit the repo"],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
			},
		);

		expect(run.stdout).toBe("Audited.\n");
		expect(run.code).toBe(0);
		const sent = server.requests.map((request) =>
			(request.body.messages as { role: string; content: unknown }[]).filter((message) => message.role !== "system"),
		);
		expect(sent).toEqual([[{ role: "user", content: [{ type: "text", text: "audit the repo" }] }]]);
		expect(run.stderr.trim().split("\n")).toEqual([
			expect.stringContaining(
				'A context handler returned 1 message(s) of role "system": the request would carry none of the conversation, so they were ignored. Return event.messages with yours added ([...event.messages, ...yours])',
			),
		]);
		expect(run.stderr).toContain(extension);
	});
});
