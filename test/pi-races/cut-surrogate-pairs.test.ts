/**
 * A line cut for length between the two halves of an emoji, replayed against a real `settle --mode
 * json` process over a real file. claude-code#56064: a tool error cut mid-emoji left a lone `\ud83d`
 * in the session file; every request after it was refused ("no low surrogate in string") and the
 * session could not be resumed. DeepSeek-Reasonix PR 1976: a tool result trimmed inside a surrogate
 * pair made DeepSeek's JSON parser refuse the turn. Settle's grep tool (as pi 0.73.1's) cut a long
 * matching line at 500 UTF-16 units: an emoji on the boundary left its high half, and every
 * `--mode json` line carrying the result held a lone surrogate that a strict reader (serde_json) or
 * a UTF-8 writer (Python's) refuses. What a consumer should see: the cut before the emoji, no lone
 * surrogate in the stream or the session file.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compactArgs } from "../../src/cli/interactive-render.js";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { TOOL_RESULT_MAX_CHARS, TOOL_RESULT_TAIL_CHARS } from "../../src/compaction/serialize.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { RpcClient, runSettle, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-cut-surrogates-");

/** `JSON.stringify` escapes a surrogate only when it is lone: any such escape is one. */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

describe("claude-code#56064: a line cut mid-emoji leaves a lone surrogate in the stream and the session file", () => {
	it("claude-code#56064: settle --mode json: grep's 500-character cut of a line whose emoji straddles it keeps 499 characters and drops the emoji; no stdout line and no session entry holds a lone surrogate", () => {
		// 499 ASCII characters, then 😀 (two UTF-16 units: the 500th and 501st), then the match.
		writeFileSync(join(cli.project, "notes.txt"), `${"a".repeat(499)}😀 needle\n`);
		const script = join(cli.dir, "grep-script.json");
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "grep", arguments: { pattern: "needle" } }] }, "done"]),
		);
		const sessionFile = join(cli.dir, "cut.jsonl");
		const run = runSettle(
			["--faux-script", script, "--tools", "grep", "--session", sessionFile, "--mode", "json", "-p", "find it"],
			{ cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 60_000 },
		);
		expect(run.code).toBe(0);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; result?: { content: { text: string }[] } });
		const end = events.find((event) => event.type === "tool_execution_end");
		expect(end!.result!.content[0]!.text).toContain(`notes.txt:1: ${"a".repeat(499)}... [truncated]`);
		expect(run.stdout).not.toMatch(LONE_SURROGATE_ESCAPE);
		expect(readFileSync(sessionFile, "utf8")).not.toMatch(LONE_SURROGATE_ESCAPE);
	});
});

/** A high half not followed by a low one, or a low half not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The same cut elsewhere: 😀 straddling the limit of a tool result in a summary request, a tree row, a tool call line. */
const EMOJI = "😀";

let wire: WireServer | undefined;
afterEach(async () => {
	await wire?.close();
	wire = undefined;
});

/** A session on disk (in `cli.dir`) whose one turn ran a tool whose result is `result`, then a second turn. */
function sessionWithToolResult(firstQuestion: string, result: string): string {
	const sessions = join(cli.dir, "sessions");
	const sm = SessionManager.create(cli.project, sessions);
	const usage = {
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
	const answer = { api: "openai-completions", provider: "local", model: "coder", usage, timestamp: 2 } as const;
	sm.appendMessage({ role: "user", content: firstQuestion, timestamp: 1 });
	sm.appendMessage({
		...answer,
		role: "assistant",
		content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } }],
		stopReason: "toolUse",
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: "call_1",
		toolName: "read",
		content: [{ type: "text", text: result }],
		isError: false,
		timestamp: 3,
	});
	sm.appendMessage({ ...answer, role: "assistant", content: [{ type: "text", text: "read it" }], stopReason: "stop" });
	sm.appendMessage({ role: "user", content: "second question", timestamp: 4 });
	sm.appendMessage({
		...answer,
		role: "assistant",
		content: [{ type: "text", text: "second answer" }],
		stopReason: "stop",
	});
	sm.close();
	const [name] = readdirSync(sessions).filter((file) => file.endsWith(".jsonl"));
	return join(sessions, name!);
}

describe("claude-code#56064 at the other cuts: summary requests, the exported page, the terminal", () => {
	it("claude-code#56064: settle --rpc compact: a tool result whose emojis straddle the summary request's cuts (after its first 1500 characters, before its last 500) is cut around both emojis; the request holds no lone surrogate", async () => {
		const head = "a".repeat(TOOL_RESULT_MAX_CHARS - TOOL_RESULT_TAIL_CHARS - 1);
		const tail = "c".repeat(TOOL_RESULT_TAIL_CHARS - 1);
		const file = sessionWithToolResult("first question", `${head}${EMOJI}${"b".repeat(1000)}${EMOJI}${tail}`);
		const summaries: RecordedRequest[] = [];
		wire = await startWireServer((request, next) => {
			if (!JSON.stringify(request.body?.messages ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40)))
				return next();
			summaries.push(request);
			return chatReply([{ type: "text", text: "## Goal\nthe summary" }]);
		});
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { compat: { supportsDeveloperRole: false } });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		const client = new RpcClient(["--model", "local/coder", "--session", file], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(await client.request({ id: "c1", type: "compact" })).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);
		const asked = summaries.map((request) => JSON.stringify(request.body));
		expect(asked.length).toBeGreaterThan(0);
		const texts = summaries.flatMap((request) =>
			(request.body.messages as { content: unknown }[]).map((message) =>
				typeof message.content === "string"
					? message.content
					: (message.content as { text?: string }[]).map((block) => block.text ?? "").join(""),
			),
		);
		// Each emoji (two UTF-16 units) is dropped whole with the 1000 characters between them.
		expect(texts.join("")).toContain(`${head}\n\n[... 1004 more characters truncated]\n\n${tail}`);
		for (const body of asked) expect(body).not.toMatch(LONE_SURROGATE_ESCAPE);
	});

	it("claude-code#56064: settle --export: a question whose emoji straddles the tree row's 70-character cut shows in the page's tree cut before the emoji, no lone half", async () => {
		const file = sessionWithToolResult(`${"a".repeat(68)}${EMOJI} and more`, "ok");
		const page = join(cli.dir, "page.html");
		expect(cli.settle(["--export", file, page])).toMatchObject({ code: 0, stderr: "" });
		const rows = await onExportedPage(page, (tab) =>
			tab.$$eval(".node", (nodes) => nodes.map((node) => node.textContent ?? "")),
		);
		expect(rows.find((row) => row.includes("user: a"))).toContain(`user: ${"a".repeat(68)}…`);
		// A lone half comes out of the page as itself or as "�": neither may be there.
		for (const row of rows) expect(row).not.toMatch(/[\ud800-\udfff\ufffd]/);
	});

	it("claude-code#56064: the chat's tool call line: a command whose emoji straddles the 160-character cut is shown cut before the emoji, no lone half", () => {
		const shown = compactArgs({ command: `${"a".repeat(158)}${EMOJI} tail` });
		expect(shown).toBe(`${"a".repeat(158)}…`);
		expect(shown).not.toMatch(LONE_SURROGATE);
	});
});
