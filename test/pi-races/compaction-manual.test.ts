/**
 * Manual `/compact` replays: what the summarizer is asked, and what a compaction writes, when the
 * cut falls inside a turn or there is nothing to summarize.
 *
 * - pi#9348: `/compact <instructions>` on a session that is one long tool-using turn. The cut splits
 *   that turn, there is no history before it, and pi sends only the turn-prefix request — without
 *   the instructions (pi adds them to the history request alone). The user's focus reached no
 *   summarizer; the tripwire they planted was missing from the summary.
 * - pi#4046: `/compact` right after "hi" (below `keepRecentTokens`). pi sent a summary request with
 *   an empty `<conversation>`, wrote a compaction whose summary said the conversation was empty, and
 *   kept every message (the session grew).
 * - openclaw#120663: a repeated compaction with no whole turn to summarize (the cut splits the one
 *   turn after the previous compaction) replaced the previous summary with an empty skeleton ("No
 *   prior history."): everything the earlier compactions had kept vanished from the context.
 * - pi#9945: every compaction sent the previous summary, its `<read-files>` / `<modified-files>`
 *   lists included, to the summarizer and appended the merged lists again; a split turn with no
 *   history took the previous summary whole and appended them twice. One summary was 528K
 *   characters, 510K of them file paths, and the session compacted 13 times in 15 minutes.
 * - gsd-2#4665, prime-agent#2217: a long tool result reached the summarizer cut to its first 2000
 *   characters; a test run's failures and a build's error, printed last, never reached the summary.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { TOOL_RESULT_MAX_CHARS } from "../../src/compaction/serialize.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, dumpLog, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The text of a request's one user message (a summary request has just that). */
function requestText(context: Context): string {
	return JSON.stringify(context.messages);
}

/** One prompt answered by three tool calls in a row (each result ~3000 tokens), then a final answer. */
const LONG_TURN = [
	fauxAssistantMessage([fauxToolCall("dump_log", { name: "a" }, { id: "call-a" })], { stopReason: "toolUse" }),
	fauxAssistantMessage([fauxToolCall("dump_log", { name: "b" }, { id: "call-b" })], { stopReason: "toolUse" }),
	fauxAssistantMessage([fauxToolCall("dump_log", { name: "c" }, { id: "call-c" })], { stopReason: "toolUse" }),
	fauxAssistantMessage("All three logs show the linker failure."),
];

describe("pi#9348: /compact instructions left out of a split turn's prefix summary", () => {
	it("pi#9348: /compact <focus> on one long tool-using turn: the turn-prefix request carries the focus, and the summary written is that request's answer", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [dumpLog],
			settings: { compaction: { keepRecentTokens: 4000 } },
		});
		const { summaryRequests } = script(h, LONG_TURN, {
			summary: (n) => fauxAssistantMessage(`## Original Request\nprefix summary ${n}`),
		});
		await h.session.prompt("read the three build logs");
		const result = await h.session.compact("TRIPWIRE-7731: keep the linker flags verbatim");

		// The cut split the one turn and nothing came before it: a single request, the prefix's.
		expect(summaryRequests).toHaveLength(1);
		const prefixRequest = requestText(summaryRequests[0]!);
		expect(prefixRequest).toContain("read the three build logs");
		expect(prefixRequest).toContain("Original Request");
		// The user's focus is in it.
		expect(prefixRequest).toContain("Additional focus: TRIPWIRE-7731: keep the linker flags verbatim");
		expect(result.summary).toContain("**Turn Context (split turn):**\n\n## Original Request\nprefix summary 1");
		// The compaction is on disk and the file reopens to the live context.
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("pi#9348: /compact without instructions: the turn-prefix request adds no focus line", async () => {
		h = await createHarness({ tools: [dumpLog], settings: { compaction: { keepRecentTokens: 4000 } } });
		const { summaryRequests } = script(h, LONG_TURN);
		await h.session.prompt("read the three build logs");
		await h.session.compact();
		expect(summaryRequests).toHaveLength(1);
		expect(requestText(summaryRequests[0]!)).not.toContain("Additional focus");
	});
});

describe("pi#4046: /compact on a session below keepRecentTokens summarizes an empty conversation", () => {
	it("pi#4046: /compact after one short exchange: refused naming why, no summary request, nothing written, the next prompt answered with the whole history", async () => {
		h = await createHarness({ persistence: "disk" });
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage("Hello! What shall we work on?"),
			fauxAssistantMessage("Sure, the parser."),
		]);
		await h.session.prompt("hi");
		const file = h.session.sessionFile!;
		const before = readFileSync(file, "utf8");

		await expect(h.session.compact()).rejects.toMatchObject({
			code: "INVALID_ARGUMENT",
			message: "Nothing to compact (session too small)",
		});
		// No model call with an empty <conversation>, no compaction entry, the file unchanged.
		expect(summaryRequests).toEqual([]);
		expect(readFileSync(file, "utf8")).toBe(before);
		expect(h.session.messages.map((message) => message.role)).not.toContain("compactionSummary");
		expect(h.session.isIdle).toBe(true);

		await h.session.prompt("let us look at the parser");
		expect(JSON.stringify(answerRequests.at(-1)!.messages)).toContain("Hello! What shall we work on?");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});

describe("openclaw#120663: a repeated compaction with nothing whole to summarize drops the previous summary", () => {
	it("openclaw#120663: the first compaction keeps a long tool-using turn whole, the second splits it (no history before it): the new summary starts with the previous one and the next request carries it", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [dumpLog],
			settings: { compaction: { keepRecentTokens: 12_000 } },
		});
		const { summaryRequests, answerRequests } = script(
			h,
			[
				fauxAssistantMessage("The build is configured."),
				...LONG_TURN,
				fauxAssistantMessage("Next I will fix the linker flags."),
				fauxAssistantMessage("Fixing them now."),
			],
			{
				summary: (n) =>
					fauxAssistantMessage(n === 1 ? "## Goal\nFIRST-SUMMARY-4410: build configured" : `prefix summary ${n}`),
			},
		);
		await h.session.prompt("configure the build");
		// ~5000 tokens of prompt before ~9400 of tool output: the first cut lands on this prompt.
		await h.session.prompt(`read the three build logs ${"detail ".repeat(2900)}`);
		await h.session.compact();
		expect(JSON.stringify(h.session.messages)).toContain("FIRST-SUMMARY-4410");
		expect(JSON.stringify(h.session.messages)).toContain("read the three build logs");

		await h.session.prompt("what next?");
		h.session.settingsManager.applyOverrides({ compaction: { keepRecentTokens: 4000 } });
		const second = await h.session.compact();
		// The cut split the long turn, which starts where the first compaction's kept span starts:
		// the only request is the turn prefix's.
		expect(summaryRequests).toHaveLength(2);
		expect(JSON.stringify(summaryRequests[1]!.messages)).toContain("Original Request");
		// The previous summary is carried forward, not replaced by an empty skeleton.
		expect(second.summary).toMatch(/^## Goal\nFIRST-SUMMARY-4410: build configured\n\n---\n\n\*\*Turn Context/);
		expect(second.summary).not.toContain("No prior history");

		await h.session.prompt("go on");
		expect(JSON.stringify(answerRequests.at(-1)!.messages)).toContain("FIRST-SUMMARY-4410");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

/**
 * openclaw#110695: every split-turn compaction wrote an empty "Turn Context (split turn)" section
 * (534 of 534): the prefix summary never reached the entry, and the start of the long turn (the
 * user's request) was lost. What the user should see: the prefix request's answer is in the
 * summary under that heading, and the next request carries it.
 */
describe("openclaw#110695: a split turn's prefix summary is empty", () => {
	it("openclaw#110695: history and a long tool-using turn, compacted inside that turn: the summary holds both answers, the next request carries the prefix summary", async () => {
		h = await createHarness({
			persistence: "disk",
			tools: [dumpLog],
			settings: { compaction: { keepRecentTokens: 4000 } },
		});
		const { summaryRequests, answerRequests } = script(
			h,
			[fauxAssistantMessage("The build is configured."), ...LONG_TURN, fauxAssistantMessage("On it.")],
			{
				summary: (n) => fauxAssistantMessage(`summary answer ${n}`),
			},
		);
		await h.session.prompt("configure the build");
		await h.session.prompt("read the three build logs");
		const result = await h.session.compact();
		expect(summaryRequests).toHaveLength(2);
		const prefixIndex = summaryRequests.findIndex((request) => requestText(request).includes("Original Request"));
		const prefixAnswer = `summary answer ${prefixIndex + 1}`;
		const historyAnswer = `summary answer ${2 - prefixIndex}`;
		expect(result.summary).toMatch(
			new RegExp(`^${historyAnswer}\\n\\n---\\n\\n\\*\\*Turn Context \\(split turn\\):\\*\\*\\n\\n${prefixAnswer}`),
		);

		await h.session.prompt("fix the linker flags");
		expect(JSON.stringify(answerRequests.at(-1)!.messages)).toContain(prefixAnswer);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

/** `read` of `path` (a real file in the harness cwd), then nothing else in that answer. */
const readCall = (path: string) =>
	fauxAssistantMessage([fauxToolCall("read", { path }, { id: `call-${path}` })], { stopReason: "toolUse" });

/** How many times `block` (`<read-files>` …) opens in `text`. */
const blockCount = (text: string, block: string) => text.split(block).length - 1;

describe("pi#9945: the file lists copied into every later summary", () => {
	it("pi#9945: three compactions (the last splitting a turn with no history before it): each summary has one list, every file read so far in it, and no summary request carries the previous list", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1000 } } });
		for (const name of ["a.ts", "b.ts", "c.ts", "d.ts"]) {
			writeFileSync(join(h.tempDir, name), `// ${name}\n${"const value = 1;\n".repeat(50)}`);
		}
		const { summaryRequests } = script(h, [
			readCall("a.ts"),
			fauxAssistantMessage([fauxToolCall("write", { path: "notes.md", content: "a.ts read" }, { id: "call-notes" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("a.ts read, notes written."),
			readCall("b.ts"),
			fauxAssistantMessage("b.ts read."),
			readCall("c.ts"),
			readCall("d.ts"),
			fauxAssistantMessage("c.ts and d.ts read."),
			fauxAssistantMessage("Nothing else."),
		]);
		// Prompts of ~1000 tokens: each cut lands on the newest prompt.
		const detail = "detail ".repeat(600);
		await h.session.prompt(`read a.ts ${detail}`);
		await h.session.prompt(`read b.ts ${detail}`);
		const first = await h.session.compact();
		const modified = "<modified-files>\nnotes.md\n</modified-files>";
		expect(first.summary).toBe(`## Goal\nsummary 1\n\n<read-files>\na.ts\n</read-files>\n\n${modified}`);

		await h.session.prompt(`read c.ts and d.ts ${detail}`);
		const second = await h.session.compact();
		expect(summaryRequests).toHaveLength(2);
		// The summarizer merges the previous prose; Settle appends the lists, once.
		const secondRequest = requestText(summaryRequests[1]!);
		expect(secondRequest).toContain("<previous-summary>\\n## Goal\\nsummary 1\\n</previous-summary>");
		expect(secondRequest).not.toContain("<read-files>");
		expect(secondRequest).not.toContain("<modified-files>");
		expect(second.summary).toBe(`## Goal\nsummary 2\n\n<read-files>\na.ts\nb.ts\n</read-files>\n\n${modified}`);

		// The cut splits the c/d turn, the first in the span: the previous summary is the history text.
		await h.session.prompt("anything else?");
		h.session.settingsManager.applyOverrides({ compaction: { keepRecentTokens: 200 } });
		const third = await h.session.compact();
		expect(summaryRequests).toHaveLength(3);
		expect(requestText(summaryRequests[2]!)).toContain("Original Request");
		expect(third.summary).toMatch(/^## Goal\nsummary 2\n\n---\n\n\*\*Turn Context/);
		expect(blockCount(third.summary, "<read-files>")).toBe(1);
		expect(blockCount(third.summary, "<modified-files>")).toBe(1);
		expect(third.summary.endsWith(`<read-files>\na.ts\nb.ts\nc.ts\n</read-files>\n\n${modified}`)).toBe(true);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

/** A test run printing ~12000 characters of passing tests, then its verdict. */
const runTests: AgentTool = {
	name: "run_tests",
	label: "run_tests",
	description: "runs the test suite",
	parameters: { type: "object", properties: {} } as never,
	execute: async () => ({
		content: [
			{
				type: "text",
				text: `${"ok tokenizer case passed\n".repeat(480)}FAILED parser_unicode: expected 3 tokens, got 2\nexit code 1`,
			},
		],
		details: {},
	}),
};

describe("gsd-2#4665, prime-agent#2217: a long tool result's end cut from the summary request", () => {
	it("gsd-2#4665: a test run's ~12000-character output, failure last, summarized: the request carries its start, the failure and the exit code, within the cut's budget, and says how much was cut", async () => {
		h = await createHarness({ tools: [runTests], settings: { compaction: { keepRecentTokens: 100 } } });
		const { summaryRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("run_tests", {}, { id: "call-tests" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("One test fails."),
			fauxAssistantMessage("Looking at the parser."),
		]);
		await h.session.prompt("run the tests");
		// A ~200-token prompt: the cut lands on it, the test run's turn is summarized whole.
		await h.session.prompt(`fix it ${"detail ".repeat(100)}`);
		await h.session.compact();
		expect(summaryRequests).toHaveLength(1);
		const conversation = /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(
			(summaryRequests[0]!.messages[0]!.content as { text: string }[])[0]!.text,
		)![1]!;
		const result = /\[Tool result\]: ([\s\S]*?)\n\n\[Assistant\]/.exec(conversation)![1]!;
		expect(result.startsWith("ok tokenizer case passed\n")).toBe(true);
		expect(result.endsWith("FAILED parser_unicode: expected 3 tokens, got 2\nexit code 1")).toBe(true);
		expect(result).toMatch(/\n\n\[\.\.\. \d+ more characters truncated\]\n\n/);
		expect(result.length).toBeLessThan(TOOL_RESULT_MAX_CHARS + 100);
	});
});
