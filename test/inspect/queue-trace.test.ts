/**
 * Steering and follow-up queues in the lifecycle: a real session tells its machine when its queues
 * change (`QUEUE_CHANGED`), which echoes `queue_changed` without changing state, so
 * `session.trace()`, `formatTrace` and `renderTraceHtml` show a steer queued during a retry's
 * backoff inside `retrying`, and its delivery in the run after. A turn that changes no queue adds
 * no queue event.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type {
	EmittedEvent,
	EventReceivedEvent,
	LifecycleInspectionEvent,
} from "../../src/inspect/lifecycle-inspector.js";
import { queueHistory } from "../../src/inspect/queue-history.js";
import { formatTrace } from "../../src/inspect/trace.js";
import { loadTrace, saveTrace } from "../../src/inspect/trace-file.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { shortQueueText } from "../../src/session/queues.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";

let h: Harness;
afterEach(() => h?.cleanup());

const UNAVAILABLE = "503 Service Unavailable";
const failure = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: UNAVAILABLE });

/** `state:<to>` and `queue:<change> <queue> <steering>/<followUp>`; everything else left out. */
function steps(events: readonly LifecycleInspectionEvent[]): string[] {
	return events.flatMap((event) => {
		if (event.kind === "state") return [`state:${event.to}`];
		if (event.kind === "emitted" && event.type === "queue_changed") {
			const p = event.payload as { change: string; queue?: string; steering: number; followUp: number };
			return [`queue:${p.change}${p.queue ? ` ${p.queue}` : ""} ${p.steering}/${p.followUp}`];
		}
		return [];
	});
}

const queueEvents = (events: readonly LifecycleInspectionEvent[]) =>
	events.filter(
		(event): event is EventReceivedEvent | EmittedEvent =>
			(event.kind === "event" && event.type === "QUEUE_CHANGED") ||
			(event.kind === "emitted" && event.type === "queue_changed"),
	);

async function session(): Promise<Harness> {
	h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 50 } } });
	return h;
}

describe("steering and follow-up queues in session.trace()", () => {
	it("a steer and a follow-up queued during a retry's backoff show inside retrying, then their delivery, in the trace, its text and its viewer", async () => {
		await session();
		h.setResponses([failure(), fauxAssistantMessage("after steer"), fauxAssistantMessage("after follow-up")]);
		h.session.subscribe((event) => {
			if (event.type !== "auto_retry_start") return;
			void h.session.steer("use the new API");
			void h.session.followUp("then run\nthe tests");
		});
		const trace = h.session.trace();
		await h.settle(h.session.prompt("fix the build"));
		trace.stop();
		const saved = trace.toJSON();

		const shown = steps(saved.events);
		const from = shown.indexOf("state:retrying");
		expect(shown.slice(from)).toEqual([
			"state:retrying",
			"queue:queued steering 1/0",
			"queue:queued followUp 1/1",
			"state:running.working",
			"queue:delivered steering 0/1",
			"queue:delivered followUp 0/0",
			"state:postRun",
			"state:beforeSettle.working",
			"state:settling",
			"state:idle",
		]);
		// Each QUEUE_CHANGED echoed once (the two sent from one listener are both received before
		// the actor, busy entering `retrying`, processes the first).
		const kinds = queueEvents(saved.events).map((event) => event.kind);
		expect(kinds.filter((kind) => kind === "event")).toHaveLength(4);
		expect(kinds.filter((kind) => kind === "emitted")).toHaveLength(4);
		expect(queueEvents(saved.events).at(-1)).toMatchObject({
			machine: "promptOperation",
			payload: { steering: 0, followUp: 0, change: "delivered", queue: "followUp", text: "then run the tests" },
		});

		const text = formatTrace(saved);
		const lines = text.split("\n").filter((line) => /emit {4}queue_changed/.test(line));
		expect(lines.map((line) => line.replace(/^\+\d+ms\s+emit {4}queue_changed /, ""))).toEqual([
			'queue: 1 steering, 0 follow-up (steer "use the new API")',
			'queue: 1 steering, 1 follow-up (follow-up "then run the tests")',
			'queue: 0 steering, 1 follow-up (delivered steer "use the new API")',
			'queue: 0 steering, 0 follow-up (delivered follow-up "then run the tests")',
		]);
		const html = renderTraceHtml(saved);
		expect(html).toContain("queue: 1 steering, 0 follow-up (steer &quot;use the new API&quot;)");
		expect(html).toContain("queue: 0 steering, 0 follow-up (delivered follow-up &quot;then run the tests&quot;)");

		// Regression: each queue change was listed twice (the received QUEUE_CHANGED and the emitted
		// queue_changed). The views list it once; the trace file still holds both, and loads as before.
		expect(text).not.toContain("QUEUE_CHANGED");
		expect(text.split("\n").filter((line) => line.includes("queue:"))).toHaveLength(4);
		expect(html.match(/<li data-i="\d+"[^>]*>[^<]*(QUEUE_CHANGED|queue_changed)/g)).toHaveLength(4);
		expect(html).not.toMatch(/<li data-i="\d+"[^>]*>[^<]*QUEUE_CHANGED/);
		const dir = mkdtempSync(join(tmpdir(), "settle-queue-trace-"));
		try {
			await saveTrace(join(dir, "run.trace.json"), saved);
			const loaded = await loadTrace(join(dir, "run.trace.json"));
			expect(queueEvents(loaded.events).map((event) => event.kind)).toEqual(
				queueEvents(saved.events).map((e) => e.kind),
			);
			expect(queueHistory(loaded)).toEqual(queueHistory(saved));
			expect(renderTraceHtml(loaded)).toBe(html);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}

		// The public events are as before (queue_update from the queues), one agent_settled.
		expect(h.eventsOfType("queue_update").map((event) => [event.steering, event.followUp])).toEqual([
			[["use the new API"], []],
			[["use the new API"], ["then run\nthe tests"]],
			[[], ["then run\nthe tests"]],
			[[], []],
		]);
		expect(h.events.some((event) => (event.type as string) === "queue_changed")).toBe(false);
		expect(sessionEventViolations(h.events)).toEqual([]);
	});

	it("a turn that changes no queue adds no queue event; clearing empty queues neither; clearing queued ones does", async () => {
		await session();
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		const trace = h.session.trace();
		await h.settle(h.session.prompt("one"));
		h.session.clearQueue();
		expect(queueEvents(trace.events)).toEqual([]);

		await h.session.steer("later");
		h.session.clearQueue();
		await h.settle(h.session.prompt("two"));
		trace.stop();
		expect(steps(trace.events).filter((step) => step.startsWith("queue:"))).toEqual([
			"queue:queued steering 1/0",
			"queue:cleared 0/0",
		]);
		expect(formatTrace(trace)).toMatch(/emit {4}queue_changed queue: 0 steering, 0 follow-up \(cleared\)$/m);
	});

	it("a dispose during a queued steer's delivery ends the trace with the steer restored, before the actor stops", async () => {
		await session();
		h.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("never")]);
		let steered = false;
		h.session.subscribe((event) => {
			if (event.type === "turn_end" && !steered) {
				steered = true;
				void h.session.steer("stop here");
			}
			// The steer's message started (it left the list) and has not reached the log.
			if (steered && event.type === "message_start" && event.message.role === "user") h.session.dispose();
		});
		const trace = h.session.trace();
		await h.settle(h.session.prompt("go")).catch(() => undefined);
		const tail = trace.events.slice(-2).map((event) => formatTrace([event]).replace(/^\+0ms\s+/, ""));
		expect(tail[0]).toBe('emit    queue_changed queue: 1 steering, 0 follow-up (restored steer "stop here")');
		expect(tail[1]).toMatch(/^actor {3}promptOperation stopped in running\.working \(the actor itself\)$/);
		expect(h.session.getSteeringMessages()).toEqual(["stop here"]);
	});

	it("a queued text cut at an emoji keeps the emoji whole or leaves it out, in the trace text and the trace file", async () => {
		await session();
		const trace = h.session.trace();
		// Character 59 (the cut) is the first half of the emoji.
		await h.session.steer(`${"x".repeat(58)}\u{1F600} and more`);
		trace.stop();
		const shown = `${"x".repeat(58)}…`;
		expect(formatTrace(trace)).toContain(`queue: 1 steering, 0 follow-up (steer "${shown}")`);
		const dir = mkdtempSync(join(tmpdir(), "settle-queue-trace-"));
		try {
			const file = join(dir, "run.trace.json");
			await saveTrace(file, trace.toJSON());
			const written = readFileSync(file, "utf8");
			expect(written).not.toMatch(/\\ud83d/i);
			expect(queueEvents((await loadTrace(file)).events).at(-1)).toMatchObject({ payload: { text: shown } });
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("a long or multi-line queued text is one shortened line", () => {
		expect(shortQueueText("  a\n\tb  ")).toBe("a b");
		const long = shortQueueText(`${"x".repeat(100)}`);
		expect(long).toHaveLength(60);
		expect(long.endsWith("…")).toBe(true);
		expect(shortQueueText("x".repeat(60))).toBe("x".repeat(60));
		// Cut before the whitespace collapse: a huge text costs the same, and still says it was cut.
		expect(shortQueueText(`${" ".repeat(1_000_000)}y`)).toBe("…");
	});
});
