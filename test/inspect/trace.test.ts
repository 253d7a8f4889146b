import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { JsonValue, LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import {
	createTraceRecorder,
	formatLifecycleEvent,
	formatTrace,
	parseTrace,
	TRACE_FORMAT,
	TRACE_VERSION,
	type TraceSession,
} from "../../src/inspect/trace.js";
import { loadTrace, saveTrace } from "../../src/inspect/trace-file.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { createHarness } from "../../src/testing/harness.js";
import { fauxAssistantMessage } from "../../src/testing/index.js";

const event = (seq: number, at = seq * 10): LifecycleInspectionEvent => ({
	seq,
	at,
	machine: "promptOperation",
	kind: "event",
	type: `E${seq}`,
});

describe("createTraceRecorder", () => {
	it("records events in order into a JSON-serialisable trace", () => {
		const recorder = createTraceRecorder();
		recorder.observer(event(1));
		recorder.observer(event(2));
		const trace = recorder.toJSON();
		expect(trace).toEqual({
			format: TRACE_FORMAT,
			version: TRACE_VERSION,
			machine: "promptOperation",
			machines: ["promptOperation"],
			dropped: 0,
			events: [event(1), event(2)],
		});
		expect(parseTrace(JSON.parse(JSON.stringify(recorder)))).toEqual(trace);
	});

	it("lists the machines of a trace of several actors, in order of first appearance; parseTrace checks them", () => {
		const recorder = createTraceRecorder();
		recorder.observer({ ...event(1), machine: "runtime" });
		recorder.observer(event(2));
		recorder.observer({ ...event(3), machine: "runtime" });
		const trace = recorder.toJSON();
		expect(trace.machine).toBe("runtime");
		expect(trace.machines).toEqual(["runtime", "promptOperation"]);
		expect(parseTrace(JSON.parse(JSON.stringify(trace)))).toEqual(trace);
		// Saved before traces held several machines: no `machines`, still read.
		const { machines: _machines, ...old } = trace;
		expect(parseTrace(old).machines).toBeUndefined();
		expect(() => parseTrace({ ...trace, machines: "runtime" })).toThrow(/"machines" must be an array of machine ids/);
	});

	it("keeps the newest maxEvents events and counts the dropped ones", () => {
		const recorder = createTraceRecorder({ maxEvents: 3 });
		for (let i = 1; i <= 8; i++) recorder.observer(event(i));
		expect(recorder.events.map((e) => e.seq)).toEqual([6, 7, 8]);
		expect(recorder.dropped).toBe(5);
		expect(recorder.toJSON().dropped).toBe(5);
		expect(formatTrace(recorder.toJSON()).split("\n")[0]).toBe("(5 earlier events dropped)");
		recorder.clear();
		expect(recorder.events).toEqual([]);
		expect(recorder.toJSON()).toEqual({ format: TRACE_FORMAT, version: TRACE_VERSION, dropped: 0, events: [] });
	});

	it("returns copies: changing them does not change the recording", () => {
		const recorder = createTraceRecorder();
		recorder.observer(event(1));
		recorder.events.push(event(99));
		expect(recorder.events).toHaveLength(1);
	});
});

describe("parseTrace", () => {
	it.each([
		[null, "expected a JSON object"],
		[{ format: "other", version: 1, events: [] }, '"format" must be "settle.lifecycle-trace"'],
		[{ format: TRACE_FORMAT, version: 2, events: [] }, "unsupported version 2"],
		[{ format: TRACE_FORMAT, version: 1, events: {} }, '"events" must be an array'],
		[{ format: TRACE_FORMAT, version: 1, events: [{ kind: "nope", seq: 1, at: 1 }] }, "event 0 has an unknown kind"],
		[
			{ format: TRACE_FORMAT, version: 1, events: [{ kind: "state", seq: "1", at: 1 }] },
			'event 0 needs numeric "seq" and "at"',
		],
		[
			{ format: TRACE_FORMAT, version: 1, events: [], sessions: [{ sessionId: "a" }] },
			'"sessions" must be an array of {sessionId, firstEvent}',
		],
	])("rejects %j with a typed error saying why", (value, why) => {
		try {
			parseTrace(value);
			expect.unreachable();
		} catch (error) {
			expect(error).toBeInstanceOf(SettleError);
			expect((error as SettleError).code).toBe("INVALID_ARGUMENT");
			expect((error as SettleError).message).toContain(why);
		}
	});

	it("defaults a missing dropped count to 0", () => {
		expect(parseTrace({ format: TRACE_FORMAT, version: 1, events: [] }).dropped).toBe(0);
	});

	it("keeps a settle --trace file's sessions, typed", () => {
		const sessions: TraceSession[] = [
			{ sessionId: "s1", sessionFile: "/tmp/s1.jsonl", firstEvent: 0 },
			{ sessionId: "s2", firstEvent: 42 },
		];
		const trace = parseTrace({ format: TRACE_FORMAT, version: 1, events: [], sessions });
		expect(trace.sessions?.map((session) => session.firstEvent)).toEqual([0, 42]);
		expect(parseTrace({ format: TRACE_FORMAT, version: 1, events: [] }).sessions).toBeUndefined();
	});
});

describe("formatLifecycleEvent", () => {
	it("prints one line per kind, relative to an origin", () => {
		const base = { seq: 1, at: 2500, machine: "promptOperation" };
		expect(
			formatLifecycleEvent(
				{
					...base,
					kind: "state",
					from: "postRun",
					to: "retrying",
					value: "retrying",
					entered: ["retrying"],
					exited: ["postRun"],
					trigger: "always",
					details: { retryAttempt: 2, maxRetries: 3, retryDelayMs: 4000 },
				},
				500,
			),
		).toBe("+2000ms  state   postRun → retrying (always) attempt 2/3, delay 4000ms");
		expect(formatLifecycleEvent({ ...base, kind: "event", type: "ABORT" })).toBe("+2500ms  event   ABORT");
		expect(formatLifecycleEvent({ ...base, kind: "actor", phase: "error", id: "run", src: "run", error: "boom" })).toBe(
			"+2500ms  actor   run error: boom",
		);
		expect(
			formatLifecycleEvent({
				...base,
				kind: "delay",
				phase: "scheduled",
				delay: "retryDelay",
				ms: 4000,
				state: "retrying",
			}),
		).toBe("+2500ms  delay   retryDelay 4000ms scheduled in retrying");
		expect(
			formatLifecycleEvent({ ...base, kind: "emitted", type: "operation_settled", payload: { aborted: false } }),
		).toBe('+2500ms  emit    operation_settled {"aborted":false}');
	});

	it('cuts a long payload before an emoji, never between its halves (a lone half prints as "\ufffd")', () => {
		const base = { seq: 1, at: 0, machine: "promptOperation", kind: "emitted" as const, type: "note" };
		// `{"text":"` is 9 characters: the emoji's halves are the 157th and 158th.
		const line = formatLifecycleEvent({ ...base, payload: { text: `${"a".repeat(147)}😀 and more` } });
		expect(line).toBe(`+0ms     emit    note {"text":"${"a".repeat(147)}...`);
		expect(line).not.toMatch(/\p{Cs}/u); // no lone half of a surrogate pair
	});

	// A host watching a live session with the TSDoc's one-liner got `+1796217792016msstate   idle → …`:
	// a time of 9 or more characters (100 s into a trace, or no origin on the default clock) ran
	// into the kind. The shorter ones keep their column.
	it("always leaves a space after the time: 100 s into a trace, or an epoch time without an origin", () => {
		const event = { seq: 1, machine: "promptOperation", kind: "event" as const, type: "ABORT" };
		expect(formatLifecycleEvent({ ...event, at: 99_999 })).toBe("+99999ms event   ABORT");
		expect(formatLifecycleEvent({ ...event, at: 100_000 })).toBe("+100000ms event   ABORT");
		expect(formatLifecycleEvent({ ...event, at: 1_796_217_792_016 })).toBe("+1796217792016ms event   ABORT");
		expect(formatLifecycleEvent({ ...event, at: 1_796_217_792_016 }, 1_796_217_792_000)).toBe("+16ms    event   ABORT");
		const late = { ...event, seq: 2, at: 125_000 };
		expect(formatTrace([{ ...event, at: 0 }, late]).split("\n")).toEqual([
			"+0ms     event   ABORT",
			"+125000ms event   ABORT",
		]);
	});

	it("names the transition taken as the diagram labels it, and a run's outcome in words", () => {
		const base = { seq: 1, at: 0, machine: "promptOperation" };
		const state = {
			...base,
			kind: "state" as const,
			from: "postRun",
			to: "compacting.working",
			value: { compacting: "working" },
			entered: ["compacting", "compacting.working"],
			exited: ["postRun"],
			trigger: "always",
			details: { compactionReason: "overflow", willRetry: true },
		};
		expect(
			formatLifecycleEvent({ ...state, transition: { source: "postRun", priority: 3, guard: "canRecoverOverflow" } }),
		).toBe(
			"+0ms     state   postRun → compacting.working (always (3) [canRecoverOverflow]) reason overflow, willRetry",
		);
		expect(
			formatLifecycleEvent({
				...state,
				to: "beforeSettle.working",
				details: {},
				transition: { source: "postRun", priority: 9 },
			}),
		).toBe("+0ms     state   postRun → beforeSettle.working (always (9))");
		// A trace saved before transitions were recorded reads as it did.
		expect(formatLifecycleEvent({ ...state, details: {} })).toBe(
			"+0ms     state   postRun → compacting.working (always)",
		);
		const runDone = (output: Record<string, JsonValue>) =>
			formatLifecycleEvent({ ...base, kind: "event", type: "RUN_DONE", payload: { output } });
		const outcome = { stopReason: "error", overThreshold: false, hasQueuedMessages: false, aborted: false };
		expect(
			runDone({
				...outcome,
				errorClass: "overflow",
				hasQueuedMessages: true,
				madeProgress: true,
				errorMessage: `prompt is too long: ${"9".repeat(200)} tokens`,
			}),
		).toBe(
			`+0ms     event   RUN_DONE error (overflow): prompt is too long: ${"9".repeat(200)} tokens · messages queued`,
		);
		expect(runDone({ ...outcome, errorClass: "retryable", errorMessage: "429", requestedDelayMs: 5000 })).toBe(
			"+0ms     event   RUN_DONE error (retryable): 429 · Retry-After 5000ms",
		);
		expect(
			runDone({ ...outcome, stopReason: "stop", errorClass: "none", overThreshold: true, madeProgress: false }),
		).toBe("+0ms     event   RUN_DONE stop · over threshold · added nothing");
	});

	it("says a turn retry in words, like a summary retry, and a stopped actor as the actor itself", () => {
		const base = { seq: 1, at: 2500, machine: "promptOperation", kind: "emitted" as const };
		const events: { type: string; payload?: JsonValue }[] = [
			{
				type: "auto_retry_start",
				payload: { attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "529 overloaded" },
			},
			{ type: "auto_retry_end", payload: { success: true, attempt: 1 } },
			{ type: "auto_retry_end", payload: { success: false, attempt: 1, finalError: "Retry cancelled" } },
			{ type: "auto_retry_end", payload: { success: true } },
			// Not a retry's payload (a hand-edited trace): the JSON, as for any event.
			{ type: "auto_retry_start", payload: { delayMs: 2000 } },
		];
		expect(events.map((event) => formatLifecycleEvent({ ...base, ...event }))).toEqual([
			"+2500ms  emit    auto_retry_start attempt 1/3, delay 2000ms: 529 overloaded",
			"+2500ms  emit    auto_retry_end succeeded on attempt 1",
			"+2500ms  emit    auto_retry_end failed on attempt 1: Retry cancelled",
			"+2500ms  emit    auto_retry_end succeeded",
			'+2500ms  emit    auto_retry_start {"delayMs":2000}',
		]);
		const stopped = { seq: 2, at: 2500, machine: "promptOperation", kind: "actor", phase: "stopped" } as const;
		expect(
			formatLifecycleEvent({
				...stopped,
				id: "promptOperation",
				src: "promptOperation",
				root: true,
				state: "retrying",
			}),
		).toBe("+2500ms  actor   promptOperation stopped in retrying (the actor itself)");
		expect(formatLifecycleEvent({ ...stopped, id: "compaction", src: "compact" })).toBe(
			"+2500ms  actor   compaction stopped",
		);
	});

	it("says a summary retry in words: attempt and backoff, what is retried, how it ended", () => {
		const base = { seq: 1, at: 2500, machine: "promptOperation", kind: "emitted" as const };
		const events: { type: string; payload?: JsonValue }[] = [
			{
				type: "summarization_retry_scheduled",
				payload: { attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "503" },
			},
			{ type: "summarization_retry_attempt_start", payload: { source: "compaction", reason: "threshold" } },
			{ type: "summarization_retry_attempt_start", payload: { source: "branchSummary" } },
			{ type: "summarization_retry_finished", payload: { success: true, attempt: 1 } },
			{ type: "summarization_retry_finished", payload: { success: false, attempt: 2, finalError: "529 overloaded" } },
			// Not a summary retry's payload (a hand-edited trace): the JSON, as for any event.
			{ type: "summarization_retry_finished" },
		];
		const lines = events.map((event) => formatLifecycleEvent({ ...base, ...event }));
		expect(lines).toEqual([
			"+2500ms  emit    summarization_retry_scheduled attempt 1/3, delay 2000ms: 503",
			"+2500ms  emit    summarization_retry_attempt_start compaction (threshold)",
			"+2500ms  emit    summarization_retry_attempt_start branch summary",
			"+2500ms  emit    summarization_retry_finished succeeded after 1 retry",
			"+2500ms  emit    summarization_retry_finished failed after 2 retries: 529 overloaded",
			"+2500ms  emit    summarization_retry_finished",
		]);
	});
});

describe("saveTrace / loadTrace", () => {
	let dir: string;
	beforeEach(async () => {
		dir = await mkdtemp(join(tmpdir(), "settle-trace-"));
	});
	afterEach(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	it("round-trips a recorder through a real file, leaving no temp file behind", async () => {
		const recorder = createTraceRecorder();
		recorder.observer(event(1));
		recorder.observer(event(2));
		const path = join(dir, "run.trace.json");
		await saveTrace(path, recorder);
		expect(await readdir(dir)).toEqual(["run.trace.json"]);
		expect(await loadTrace(path)).toEqual(recorder.toJSON());
		expect((await readFile(path, "utf8")).endsWith("\n")).toBe(true);
		await saveTrace(path, { ...recorder.toJSON(), events: [event(3)] });
		expect((await loadTrace(path)).events).toEqual([event(3)]);
	});

	it("reports unreadable, non-JSON and non-trace files with typed errors", async () => {
		await expect(loadTrace(join(dir, "missing.json"))).rejects.toMatchObject({ code: "IO" });
		await writeFile(join(dir, "bad.json"), "{ not json");
		await expect(loadTrace(join(dir, "bad.json"))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
		await writeFile(join(dir, "other.json"), JSON.stringify({ hello: "world" }));
		await expect(loadTrace(join(dir, "other.json"))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
	});

	it("regression: a file that is not a trace was reported without its path, and an array as a wrong format", async () => {
		const foreign = join(dir, "foreign.json");
		await writeFile(foreign, JSON.stringify({ events: [] }));
		await expect(loadTrace(foreign)).rejects.toMatchObject({
			code: "INVALID_ARGUMENT",
			message: `${foreign}: Not a Settle lifecycle trace: "format" must be "settle.lifecycle-trace" (found no "format" field). Save traces with saveTrace() or JSON.stringify(recorder.toJSON()).`,
		});
		const array = join(dir, "array.json");
		await writeFile(array, "[1, 2]");
		await expect(loadTrace(array)).rejects.toThrow(
			`${array}: Not a Settle lifecycle trace: expected a JSON object, got an array.`,
		);
		const other = join(dir, "other-format.json");
		await writeFile(other, JSON.stringify({ format: "chrome-trace", events: [] }));
		await expect(loadTrace(other)).rejects.toThrow('(found "format" "chrome-trace")');
	});

	it("a trace saved by a newer Settle says so (a typed error, not a crash on unknown fields)", async () => {
		const newer = join(dir, "newer.json");
		await writeFile(newer, JSON.stringify({ format: TRACE_FORMAT, version: TRACE_VERSION + 1, events: [] }));
		await expect(loadTrace(newer)).rejects.toMatchObject({
			code: "INVALID_ARGUMENT",
			message: expect.stringContaining(
				`${newer}: Not a Settle lifecycle trace: unsupported version ${TRACE_VERSION + 1} (this Settle reads version ${TRACE_VERSION}; the trace was saved by a newer Settle: open it with that version)`,
			),
		});
	});

	it("fails with an IO error naming the path when the directory does not exist", async () => {
		const path = join(dir, "no", "such", "dir", "t.json");
		await expect(saveTrace(path, createTraceRecorder())).rejects.toThrow(`Could not save the trace to ${path}`);
		expect(await readdir(dir)).toEqual([]);
	});

	it("regression: a failed save named its own temp file (t.json.<pid>.<time>.tmp) instead of the caller's path", async () => {
		const path = join(dir, "missing", "t.json");
		const error = (await saveTrace(path, createTraceRecorder()).catch((caught: unknown) => caught)) as Error;
		expect(error.message).toBe(
			`Could not save the trace to ${path}: ENOENT: no such file or directory, open '${path}'`,
		);
	});

	it("regression: a failed rename left its temp file (<path>.<pid>.<time>.tmp) behind", async () => {
		const path = join(dir, "taken");
		await mkdir(join(path, "inside"), { recursive: true });
		await expect(saveTrace(path, createTraceRecorder())).rejects.toMatchObject({ code: "IO" });
		expect(await readdir(dir)).toEqual(["taken"]);
	});
});

describe("the recording itself, as session.trace() returns it", () => {
	// Found dogfooding the package: saveTrace(path, trace) took the recording but renderTraceHtml(trace)
	// and formatTrace(trace) did not type-check; a host had to know to call trace.toJSON() first.
	it("renderTraceHtml and formatTrace take it as saveTrace does, with the same result as its toJSON()", async () => {
		const h = await createHarness();
		try {
			h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
			const trace = h.session.trace({ maxEvents: 12 });
			await h.session.prompt("first");
			await h.session.prompt("second");
			trace.stop();
			const saved = trace.toJSON();
			expect(saved.dropped).toBeGreaterThan(0);
			expect(renderTraceHtml(trace)).toBe(renderTraceHtml(saved));
			expect(formatTrace(trace)).toBe(formatTrace(saved));
			expect(formatTrace(trace).split("\n")[0]).toBe(`(${saved.dropped} earlier events dropped)`);
			expect(formatTrace(trace.events)).toBe(formatTrace(saved.events));
		} finally {
			h.cleanup();
		}
	});
});
