/**
 * Why a session compacted, from its trace alone (the debugging user's questions): a threshold
 * compaction's `RUN_DONE` carries the check's numbers (context tokens against `contextWindow −
 * reserveTokens`), and every compaction's `done` line says the tokens before and the estimate
 * after, and which `compaction` entry of the session file it wrote. Before, the trace said only
 * `over threshold` and `compacted 4792 tokens`: the threshold, the result and the entry had to be
 * looked up elsewhere.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatLifecycleEvent, formatTrace, parseTrace } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { fileEntries, tracedOverflow } from "./trace-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const runDone = (events: readonly LifecycleInspectionEvent[]) =>
	events.filter((e) => e.kind === "event" && e.type === "RUN_DONE");
const compactionDone = (events: readonly LifecycleInspectionEvent[]) =>
	events.filter((e) => e.kind === "actor" && e.id === "compaction" && e.phase === "done");

describe("a trace says why and how a session compacted", () => {
	it("threshold: RUN_DONE shows the context tokens against the threshold; the compaction its entry and tokens after", async () => {
		// Window 8000 − reserve 4000: a 12,000-character answer (~3000 tokens) crosses 4000.
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			faux: { models: [{ id: "small", contextWindow: 8000 }] },
			settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 1 } },
		});
		h.setResponses([fauxAssistantMessage("one")]);
		await h.session.prompt("a");
		const quiet = h.session.trace();
		h.setResponses([fauxAssistantMessage("two")]);
		await h.settle(h.session.prompt("b"));
		quiet.stop();
		// Under the threshold: the numbers are there (how near it came), the line adds nothing.
		const [under] = runDone(quiet.toJSON().events);
		expect(under).toMatchObject({ payload: { output: { overThreshold: false, thresholdTokens: 4000 } } });
		expect(formatLifecycleEvent(under!)).toBe("+0ms     event   RUN_DONE stop");

		h.setResponses([
			fauxAssistantMessage("y".repeat(12_000)),
			fauxAssistantMessage("## Goal\nsummary"),
			fauxAssistantMessage("## Turn prefix"),
		]);
		const trace = h.session.trace();
		await h.settle(h.session.prompt("c"));
		trace.stop();
		const events = trace.toJSON().events;

		const [over] = runDone(events);
		const output = (over as unknown as { payload: { output: { contextTokens: number; thresholdTokens: number } } })
			.payload.output;
		expect(output.thresholdTokens).toBe(4000);
		expect(output.contextTokens).toBeGreaterThan(4000);
		expect(formatLifecycleEvent(over!)).toBe(
			`+0ms     event   RUN_DONE stop · over threshold (${output.contextTokens} > 4000 tokens)`,
		);

		const compaction = fileEntries(h).filter((e) => e.type === "compaction");
		expect(compaction).toHaveLength(1);
		const end = h.eventsOfType("compaction_end")[0]!;
		expect(end.reason).toBe("threshold");
		const [done] = compactionDone(events);
		expect(formatLifecycleEvent(done!)).toBe(
			`+0ms     actor   compaction done: compacted ${end.result!.tokensBefore} tokens to ~${end.result!.estimatedTokensAfter} (entry ${compaction[0]!.id}), first kept entry ${end.result!.firstKeptEntryId}`,
		);
		expect(formatTrace(events)).toContain("postRun → compacting.working (always (6) [overThreshold]) reason threshold");
	});

	it("overflow: the compaction's line names the entry written and the tokens after; the request re-runs", async () => {
		const overflow = await tracedOverflow();
		h = overflow.h;
		const events = overflow.events;
		const [failed] = runDone(events);
		// An overflow is recovered by compaction, never by the threshold: no threshold numbers.
		expect(formatLifecycleEvent(failed!)).toBe(
			"+0ms     event   RUN_DONE error (overflow): prompt is too long: 213462 tokens > 200000 maximum",
		);
		const compaction = fileEntries(h).find((e) => e.type === "compaction")!;
		const end = h.eventsOfType("compaction_end")[0]!;
		expect(end).toMatchObject({ reason: "overflow", willRetry: true });
		const [done] = compactionDone(events);
		expect(done).toMatchObject({ output: { compacted: true, entryId: compaction.id } });
		expect(formatLifecycleEvent(done!)).toBe(
			`+0ms     actor   compaction done: compacted ${end.result!.tokensBefore} tokens to ~${end.result!.estimatedTokensAfter} (entry ${compaction.id}), first kept entry ${end.result!.firstKeptEntryId} · the operation continues`,
		);
		expect(end.result!.estimatedTokensAfter).toBeLessThan(end.result!.tokensBefore);
	});

	it("before a prompt is sent: the preflight's compaction says its reason with the numbers, and what it did", async () => {
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			faux: { models: [{ id: "small", contextWindow: 8000 }] },
			settings: { compaction: { enabled: false, reserveTokens: 4000, keepRecentTokens: 1 } },
		});
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("y".repeat(12_000))]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		// Over the threshold while compaction was off: the next prompt compacts before it is sent.
		h.session.setAutoCompactionEnabled(true);
		h.setResponses([
			fauxAssistantMessage("## Goal\nsummary"),
			fauxAssistantMessage("## Turn prefix"),
			fauxAssistantMessage("three"),
		]);
		const trace = h.session.trace();
		await h.settle(h.session.prompt("c"));
		trace.stop();
		const lines = formatTrace(trace.toJSON())
			.split("\n")
			.map((line) => line.slice(9));
		const compaction = fileEntries(h).find((e) => e.type === "compaction")!;
		const end = h.eventsOfType("compaction_end")[0]!;
		const start = lines.findIndex((line) => line.startsWith("event   PRE_SEND_COMPACTION_START"));
		expect(lines[start]).toMatch(/^event {3}PRE_SEND_COMPACTION_START reason threshold \((\d+) > 4000 tokens\)$/);
		expect(Number(/\((\d+) >/.exec(lines[start]!)![1])).toBeGreaterThan(4000);
		expect(lines).toContain(
			`event   PRE_SEND_COMPACTION_END compacted ${end.result!.tokensBefore} tokens to ~${end.result!.estimatedTokensAfter} (entry ${compaction.id}), first kept entry ${end.result!.firstKeptEntryId}`,
		);
		expect(lines.findIndex((line) => line.startsWith("event   PRE_SEND_COMPACTION_END"))).toBeLessThan(
			lines.findIndex((line) => line.startsWith("state   preflight → running.working")),
		);
	});

	it("traces saved before these fields still read as before", () => {
		const old = parseTrace({
			format: "settle.lifecycle-trace",
			version: 1,
			dropped: 0,
			events: [
				{
					seq: 1,
					at: 0,
					machine: "promptOperation",
					kind: "event",
					type: "RUN_DONE",
					payload: { output: { stopReason: "stop", errorClass: "none", overThreshold: true } },
				},
				{
					seq: 2,
					at: 0,
					machine: "promptOperation",
					kind: "event",
					type: "PRE_SEND_COMPACTION_START",
					payload: { reason: "threshold" },
				},
				{ seq: 3, at: 0, machine: "promptOperation", kind: "event", type: "PRE_SEND_COMPACTION_END" },
				{
					seq: 4,
					at: 0,
					machine: "promptOperation",
					kind: "actor",
					phase: "done",
					id: "compaction",
					src: "compact",
					output: { compacted: true, continue: false, result: { tokensBefore: 2171, firstKeptEntryId: "274f44db" } },
				},
			],
		});
		expect(formatTrace(old)).toBe(
			[
				"+0ms     event   RUN_DONE stop · over threshold",
				"+0ms     event   PRE_SEND_COMPACTION_START reason threshold",
				"+0ms     event   PRE_SEND_COMPACTION_END",
				"+0ms     actor   compaction done: compacted 2171 tokens, first kept entry 274f44db",
			].join("\n"),
		);
	});
});
