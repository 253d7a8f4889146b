/**
 * pi#4570 (and its repeat pi#6832): after two compactions in sequence a `toolResult` outlives its
 * `toolCall` — the latest compaction keeps a result whose call it summarized away — and every later
 * request fails with "400 No tool call found for function call output". Replayed against Settle:
 * the user's file continues (the orphan stays in the file and the context, never in a request), and compactions
 * Settle itself runs while a tool works never write that shape. pi#8667: a compaction written
 * between a call and its result, kept by a later compaction, was sent as a summary inside the pair
 * ("400 unexpected tool_use_id"); the request should hold the call followed at once by its result.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { comparable, reopenedContext, script } from "./helpers.js";
import {
	ORPHAN_RESULT_TEXT,
	STALE_SUMMARY_TEXT,
	writeOrphanSessionFile,
	writeStaleCompactionSessionFile,
} from "./orphan-file.js";

let h: Harness | undefined;
const dirs: string[] = [];
afterEach(() => {
	h?.cleanup();
	h = undefined;
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Tool results of a request whose call is not in an assistant message before them (what a provider rejects). */
function resultsWithoutCall(request: Context): string[] {
	const calls = new Set<string>();
	const orphans: string[] = [];
	for (const message of request.messages) {
		if (message.role === "assistant") {
			for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
		} else if (message.role === "toolResult" && !calls.has(message.toolCallId)) orphans.push(message.toolCallId);
	}
	return orphans;
}

describe("pi#4570: an orphaned tool result across chained compactions", () => {
	it("pi#4570: a session file whose latest compaction keeps a tool result without its call continues: no request carries the orphan, the file keeps its bytes", async () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-pi4570-"));
		dirs.push(dir);
		const file = join(dir, "pi-4570.jsonl");
		const written = writeOrphanSessionFile(file, dir);
		h = await createHarness({ sessionManager: SessionManager.open(file) });
		const { answerRequests } = script(h, [fauxAssistantMessage("Continuing from the summary.")]);
		// The context is built from the file as pi builds it (the orphan included)…
		expect(JSON.stringify(h.session.messages)).toContain(ORPHAN_RESULT_TEXT);
		await h.session.prompt("continue");
		expect(answerRequests).toHaveLength(1);
		// …and the request leaves it out.
		expect(resultsWithoutCall(answerRequests[0]!)).toEqual([]);
		expect(JSON.stringify(answerRequests[0]!.messages)).not.toContain(ORPHAN_RESULT_TEXT);
		// The rest of the kept window is there: the write call and its result, the later edit and its result.
		const sent = JSON.stringify(answerRequests[0]!.messages);
		expect(sent).toContain("Successfully wrote a.ts");
		expect(sent).toContain("Successfully replaced text in b.ts");
		expect(sent).toContain("latest summary");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		// Nothing rewritten: the old lines stay as they were (the orphan too), new ones follow.
		expect(readFileSync(file, "utf8").startsWith(written)).toBe(true);
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("pi#4570: compactions requested while a tool runs, then again later, keep every tool result with its call in the file and in every request", async () => {
		const slow: AgentTool = {
			name: "build",
			label: "Build",
			description: "runs the build",
			parameters: { type: "object" },
			execute: (_id, _params, signal) =>
				new Promise((resolve) => {
					const stopped = () => resolve({ content: [{ type: "text", text: "build stopped" }], details: {} });
					if (signal?.aborted) stopped();
					else signal?.addEventListener("abort", stopped);
				}),
		};
		let compactFromTool = true;
		h = await createHarness({
			persistence: "disk",
			tools: [slow],
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		const harness = h;
		// The host compacting while the tool runs (RPC `compact`, `/compact`): it aborts the run first.
		// (An extension's ctx.compact() there waits for the run to settle instead: UniPi#30.)
		harness.session.subscribe((event) => {
			if (event.type === "tool_execution_start" && compactFromTool) void harness.session.compact();
		});
		const { answerRequests } = script(harness, [
			fauxAssistantMessage("earlier answer"),
			fauxAssistantMessage([fauxToolCall("build", {}, { id: "call-build" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("after the first compaction"),
			fauxAssistantMessage("after the second compaction"),
		]);
		await harness.session.prompt("earlier");
		await harness.session.prompt("build it");
		await harness.session.waitForIdle();
		compactFromTool = false;
		await harness.session.prompt("go on");
		await harness.session.compact();
		await harness.session.prompt("and now?");
		const file = harness.session.sessionFile!;
		const compactions = harness.eventsOfType("compaction_end").filter((event) => event.result !== undefined);
		expect(compactions).toHaveLength(2);
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		for (const request of answerRequests) expect(resultsWithoutCall(request)).toEqual([]);
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});

describe("pi#8667: a compaction entry written mid-pair, kept by a later compaction", () => {
	it("pi#8667: the file of a compaction that fired while a tool ran, then a later compaction keeping from before it, continues: the request holds the call followed at once by its result and only the latest summary; the file keeps its bytes", async () => {
		const dir = mkdtempSync(join(tmpdir(), "settle-pi8667-"));
		dirs.push(dir);
		const file = join(dir, "pi-8667.jsonl");
		const written = writeStaleCompactionSessionFile(file, dir);
		h = await createHarness({ sessionManager: SessionManager.open(file) });
		const { answerRequests } = script(h, [fauxAssistantMessage("Continuing.")]);
		await h.session.prompt("what next?");
		expect(answerRequests).toHaveLength(1);
		const messages = answerRequests[0]!.messages;
		// The call, then its result at once: no summary (a user message to the provider) between them.
		const callAt = messages.findIndex(
			(message) => message.role === "assistant" && message.content.some((block) => block.type === "toolCall"),
		);
		expect(callAt).toBeGreaterThan(0);
		expect(messages[callAt + 1]).toMatchObject({ role: "toolResult", toolCallId: "toolu_011" });
		expect(resultsWithoutCall(answerRequests[0]!)).toEqual([]);
		const sent = JSON.stringify(messages);
		expect(sent).not.toContain(STALE_SUMMARY_TEXT);
		expect(sent.split("Latest summary: the first task is done")).toHaveLength(2);
		// Nothing rewritten: the new exchange is appended after the file's bytes.
		expect(readFileSync(file, "utf8").startsWith(written)).toBe(true);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});
