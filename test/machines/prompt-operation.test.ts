import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import {
	DEFAULT_RETRY_SETTINGS,
	isCompacting,
	isOperationActive,
	isRetrying,
	isStreaming,
	LENGTH_RECOVERY_FAILED_MESSAGE,
	lifecycleState,
	OVERFLOW_RECOVERY_FAILED_MESSAGE,
	type PromptOperationEmitted,
	type PromptOperationSnapshot,
	planRetry,
	promptOperationMachine,
	RETRY_CANCELLED_MESSAGE,
	type RunInput,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { planRetry as sessionPlanRetry } from "../../src/session/retry-policy.js";
import {
	fatal,
	flush,
	lengthOverflow,
	outcome,
	overflowError,
	promptHarness,
	retryable,
	startOperation,
} from "./harness.js";

const snap = (h: ReturnType<typeof promptHarness>) => h.actor.getSnapshot() as PromptOperationSnapshot;

/** Runs the rest of an operation after the last run succeeded: boundary says stop, settle resolves. */
async function finishOperation(h: ReturnType<typeof promptHarness>) {
	await h.resolve("beforeSettle", { continue: false });
	await h.resolve("settle");
}

describe("planRetry (the machine's retry policy)", () => {
	it("doubles from the base delay and caps at maxAgentDelayMs", () => {
		const settings = { ...DEFAULT_RETRY_SETTINGS, baseDelayMs: 2000, maxAgentDelayMs: 10_000, maxRetries: 5 };
		expect([1, 2, 3, 4, 5].map((attempt) => delayOf(planRetry(settings, attempt)))).toEqual([
			2000, 4000, 8000, 10_000, 10_000,
		]);
	});

	it("honours a provider-requested delay as a lower bound and gives up when it exceeds the cap", () => {
		expect(delayOf(planRetry(DEFAULT_RETRY_SETTINGS, 1, { requestedDelayMs: 30_000 }))).toBe(30_000);
		expect(delayOf(planRetry(DEFAULT_RETRY_SETTINGS, 3, { requestedDelayMs: 1000 }))).toBe(8000);
		expect(planRetry(DEFAULT_RETRY_SETTINGS, 1, { requestedDelayMs: 60_001 })).toMatchObject({
			kind: "give_up",
			reason: "requested_delay_exceeds_cap",
		});
	});

	it("never goes below the previous delay of the sequence, and treats a cap ≤ 0 as no cap", () => {
		expect(delayOf(planRetry(DEFAULT_RETRY_SETTINGS, 2, { floorMs: 30_000 }))).toBe(30_000);
		expect(delayOf(planRetry({ ...DEFAULT_RETRY_SETTINGS, maxAgentDelayMs: 0, maxRetries: 8 }, 8))).toBe(256_000);
	});

	it("is the policy the session re-exports (one source of truth)", () => {
		expect(sessionPlanRetry(DEFAULT_RETRY_SETTINGS, 2)).toEqual(planRetry(DEFAULT_RETRY_SETTINGS, 2));
		expect(planRetry(DEFAULT_RETRY_SETTINGS, 4)).toMatchObject({ kind: "give_up", reason: "exhausted" });
		expect(planRetry({ ...DEFAULT_RETRY_SETTINGS, enabled: false }, 1)).toMatchObject({ reason: "disabled" });
	});
});

function delayOf(plan: ReturnType<typeof planRetry>): number | string {
	return plan.kind === "retry" ? plan.delayMs : plan.reason;
}

describe("prompt-operation machine: one operation", () => {
	it("runs preflight → running → beforeSettle → settling → idle with exactly one settle", async () => {
		const h = promptHarness();
		expect(h.state()).toBe("idle");
		await h.send({ type: "PROMPT", request: { requestId: "r1", payload: { text: "hi" } } });
		expect(h.state()).toBe("preflight");
		expect(h.fakes.inputs("preflight")).toEqual([{ request: { requestId: "r1", payload: { text: "hi" } } }]);
		await h.resolve("preflight", { disposition: "started", runPayload: ["user message"] });
		expect(h.state()).toBe("running.working");
		expect(isStreaming(snap(h))).toBe(true);
		expect(h.fakes.inputs("run")).toEqual([
			{
				operationId: 1,
				requestId: "r1",
				mode: "prompt",
				cause: "prompt",
				runIndex: 1,
				retryAttempt: 0,
				payload: ["user message"],
			},
		]);
		await h.resolve("run", outcome());
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.fakes.inputs("beforeSettle")).toEqual([{ operationId: 1, requestId: "r1", outcome: "completed" }]);
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("settling");
		expect(isStreaming(snap(h))).toBe(false);
		expect(isOperationActive(snap(h))).toBe(true);
		expect(h.fakes.inputs("settle")).toEqual([{ operationId: 1, requestId: "r1", aborted: false }]);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
		expect(h.emitted.map((e) => e.type)).toEqual(["preflight_result", "operation_started", "operation_settled"]);
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: false },
		]);
		expect(snap(h).context.operation).toBeUndefined();
		expect(snap(h).context.operationCount).toBe(1);
	});

	it.each(["handled", "queued"] as const)("a %s preflight goes back to idle without settling", async (disposition) => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.resolve("preflight", { disposition });
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("run")).toBe(0);
		expect(h.fakes.count("settle")).toBe(0);
		expect(h.emitted).toEqual([{ type: "preflight_result", requestId: "r1", disposition }]);
	});

	it("a rejected or failing preflight reports the error and settles nothing", async () => {
		const h = promptHarness();
		const error = new Error("No model selected.");
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.resolve("preflight", { disposition: "rejected", error });
		await h.send({ type: "PROMPT", request: { requestId: "r2" } });
		await h.reject("preflight", new Error("input hook crashed"));
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("settle")).toBe(0);
		expect(h.emitted).toEqual([
			{ type: "preflight_result", requestId: "r1", disposition: "rejected", error },
			{ type: "preflight_result", requestId: "r2", disposition: "rejected", error: new Error("input hook crashed") },
		]);
	});

	it("an unprovided actor rejects with a message that names it and how to provide it", async () => {
		const actor = createActor(promptOperationMachine, { input: {} });
		const results: PromptOperationEmitted[] = [];
		actor.on("manual_compaction_done", (e) => results.push(e));
		actor.start();
		actor.send({ type: "COMPACT", requestId: "c1" });
		await flush();
		expect(actor.getSnapshot().value).toBe("idle");
		const error = (results[0] as { error?: Error }).error;
		expect(error?.message).toContain('actor "compact" is not provided');
		expect(error?.message).toContain("promptOperationMachine.provide");
	});

	it("requests each step with its input and waits for the answer (an unanswered request keeps the state)", async () => {
		const actor = createActor(promptOperationMachine, { input: {} });
		const requests: PromptOperationEmitted[] = [];
		actor.on("preflight_requested", (e) => requests.push(e));
		actor.on("run_requested", (e) => requests.push(e));
		actor.start();
		actor.send({ type: "PROMPT", request: { requestId: "r1", payload: "hi" } });
		await flush();
		expect(actor.getSnapshot().value).toBe("preflight");
		expect(requests).toEqual([{ type: "preflight_requested", input: { request: { requestId: "r1", payload: "hi" } } }]);
		actor.send({ type: "PREFLIGHT_DONE", output: { disposition: "started", runPayload: ["m"] } });
		expect(requests[1]).toMatchObject({
			type: "run_requested",
			input: { mode: "prompt", payload: ["m"], runIndex: 1 },
		});
		expect(actor.getSnapshot().value).toEqual({ running: "working" });
		actor.stop();
	});

	it("continues with agent.continue() when messages were queued after agent_end", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ hasQueuedMessages: true }));
		expect(h.state()).toBe("running.working");
		expect((h.fakes.inputs("run")[1] as RunInput).mode).toBe("continue");
		expect((h.fakes.inputs("run")[1] as RunInput).cause).toBe("queued");
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("settle")).toBe(1);
	});

	it("continues when the agent_before_settle boundary asks for it, and settles once at the end", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: true });
		expect(h.state()).toBe("running.working");
		expect((h.fakes.inputs("run")[1] as RunInput).cause).toBe("boundary");
		await h.resolve("run", outcome());
		await h.reject("beforeSettle", new Error("boundary handler threw"));
		expect(h.state()).toBe("settling");
		await h.resolve("settle");
		expect(h.fakes.count("settle")).toBe(1);
		expect(h.emittedOf("operation_settled")).toHaveLength(1);
	});

	it("a throwing run actor ends in settling with the error as finalError", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.reject("run", new Error("agent exploded"));
		expect(h.state()).toBe("settling");
		expect(h.fakes.inputs("settle")).toEqual([
			{ operationId: 1, requestId: "r1", aborted: false, finalError: "agent exploded" },
		]);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
	});

	it("a throwing settle actor still returns to idle and reports the operation settled", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		await h.reject("settle", new Error("agent_settled handler threw"));
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("operation_settled")).toHaveLength(1);
	});

	it("reports a fatal error to the boundary as outcome error", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", fatal());
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.fakes.inputs("beforeSettle")).toEqual([{ operationId: 1, requestId: "r1", outcome: "error" }]);
	});
});

describe("prompt-operation machine: no livelock (a run that adds nothing is not repeated)", () => {
	/** A run that added nothing to the transcript (a skipped continuation or one without effect). */
	const noProgress = (extra: Partial<RunOutcome> = {}) =>
		outcome({ stopReason: undefined, madeProgress: false, ...extra });

	it("messages still queued after a run that added nothing: settles with a stall instead of running again", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ hasQueuedMessages: true }));
		expect((h.fakes.inputs("run")[1] as RunInput).cause).toBe("queued");
		await h.resolve("run", noProgress({ hasQueuedMessages: true }));
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("run")).toBe(2);
		expect(h.fakes.count("beforeSettle")).toBe(0);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("operation_settled")).toEqual([
			{
				type: "operation_settled",
				operationId: 1,
				requestId: "r1",
				aborted: false,
				stall: { reason: "queued_messages", runCause: "queued", runIndex: 2 },
			},
		]);
		// The next operation starts clean.
		await startOperation(h, "r2");
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.emittedOf("operation_settled")[1]).toEqual({
			type: "operation_settled",
			operationId: 2,
			requestId: "r2",
			aborted: false,
		});
	});

	it("the first run of an operation is judged the same way, and a retry sequence in flight is closed", async () => {
		const h = promptHarness({ retry: { baseDelayMs: 10 } });
		await startOperation(h);
		await h.resolve("run", retryable());
		await h.advance(10);
		await h.resolve("run", noProgress({ hasQueuedMessages: true }));
		expect(h.state()).toBe("settling");
		expect(h.emittedOf("auto_retry_end")).toHaveLength(1);
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled")[0]?.stall).toEqual({
			reason: "queued_messages",
			runCause: "retry",
			runIndex: 2,
		});
	});

	it("a run that added nothing with nothing queued goes on as before, and the boundary may still continue once", async () => {
		// pi issues 5463/5056: the queue emptied between the decision and the run, so the continuation was skipped.
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ hasQueuedMessages: true }));
		await h.resolve("run", noProgress());
		expect(h.state()).toBe("beforeSettle.working");
		await h.resolve("beforeSettle", { continue: true });
		expect(h.state()).toBe("running.working");
		expect((h.fakes.inputs("run")[2] as RunInput).cause).toBe("boundary");
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: false },
		]);
	});

	it("the boundary asking to continue again after its continuation added nothing settles with a stall", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: true });
		await h.resolve("run", noProgress());
		expect(h.state()).toBe("beforeSettle.working");
		await h.resolve("beforeSettle", { continue: true });
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("run")).toBe(2);
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled")[0]?.stall).toEqual({
			reason: "boundary_continuation",
			runCause: "boundary",
			runIndex: 2,
		});
	});

	it("regression: a follow-up queued while a stalled boundary asks to continue again runs instead of being settled past", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: true });
		await h.send({ type: "QUEUE_INPUT_STARTED" });
		await h.resolve("run", noProgress());
		expect(h.state()).toBe("beforeSettle.working");
		// Queued while the boundary runs, which asks to continue again after a continuation that added nothing.
		await h.send({ type: "QUEUE_INPUT_FINISHED", queued: true });
		await h.resolve("beforeSettle", { continue: true });
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run").at(-1)).toMatchObject({ mode: "continue", cause: "queued" });
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: false },
		]);
	});

	it("a boundary continuation that made progress may be followed by another (only no-progress repeats stop)", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: true });
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: true });
		expect(h.state()).toBe("running.working");
		await h.resolve("run", outcome({ madeProgress: true }));
		await finishOperation(h);
		expect(h.fakes.count("run")).toBe(3);
		expect(h.emittedOf("operation_settled")[0]?.stall).toBeUndefined();
	});

	it("an abort still wins over a stall", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ hasQueuedMessages: true }));
		await h.send({ type: "ABORT" });
		await h.resolve("run", noProgress({ hasQueuedMessages: true }));
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: true },
		]);
	});
});

describe("prompt-operation machine: auto-retry", () => {
	it("regression: an aborted answer to the retried request ended the sequence as a success (pi 0.73.1); now as cancelled, once", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable("529 overloaded"));
		await h.advance(2000);
		expect(h.state()).toBe("running.working");
		await h.send({ type: "ABORT" });
		await h.send({ type: "ASSISTANT_MESSAGE_END", stopReason: "aborted" });
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
		]);
		expect(snap(h).context.retryAttempt).toBe(0);
		await h.resolve("run", outcome({ stopReason: "aborted", aborted: true }));
		await h.resolve("settle");
		expect(h.emittedOf("auto_retry_end")).toHaveLength(1);
	});

	it("backs off on the actor clock, then continues; a successful message_end ends the sequence", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable("529 overloaded"));
		expect(h.state()).toBe("retrying");
		expect(isRetrying(snap(h))).toBe(true);
		expect(h.emittedOf("auto_retry_start")).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "529 overloaded" },
		]);
		await h.advance(1999);
		expect(h.state()).toBe("retrying");
		expect(h.fakes.count("run")).toBe(1);
		await h.advance(1);
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run")[1]).toMatchObject({ mode: "continue", cause: "retry", runIndex: 2, retryAttempt: 1 });
		await h.send({ type: "ASSISTANT_MESSAGE_END", stopReason: "toolUse" });
		expect(h.emittedOf("auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
		expect(snap(h).context.retryAttempt).toBe(0);
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.emittedOf("auto_retry_end")).toHaveLength(1);
	});

	it("doubles the delay per attempt, then gives up with auto_retry_end{success:false} and settles", async () => {
		const h = promptHarness({ retry: { maxRetries: 3, baseDelayMs: 1000 } });
		await startOperation(h);
		for (const delay of [1000, 2000, 4000]) {
			await h.resolve("run", retryable());
			expect(h.state()).toBe("retrying");
			await h.advance(delay);
		}
		await h.resolve("run", retryable("503 again"));
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.emittedOf("auto_retry_start").map((e) => [e.attempt, e.delayMs])).toEqual([
			[1, 1000],
			[2, 2000],
			[3, 4000],
		]);
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 3, finalError: "503 again" },
		]);
		await finishOperation(h);
		expect(h.state()).toBe("idle");
	});

	it("caps the delay at maxAgentDelayMs", async () => {
		const h = promptHarness({ retry: { maxRetries: 4, baseDelayMs: 2000, maxAgentDelayMs: 5000 } });
		await startOperation(h);
		const delays: number[] = [];
		for (let i = 0; i < 4; i++) {
			await h.resolve("run", retryable());
			delays.push(snap(h).context.retryDelayMs);
			await h.advance(snap(h).context.retryDelayMs);
		}
		expect(delays).toEqual([2000, 4000, 5000, 5000]);
	});

	it("waits at least the provider-requested delay, and gives up at once when it exceeds the cap", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable("429 rate limit", { requestedDelayMs: 12_000 }));
		expect(h.emittedOf("auto_retry_start")[0]?.delayMs).toBe(12_000);
		await h.advance(12_000);
		await h.resolve("run", retryable("429 rate limit", { requestedDelayMs: 120_000 }));
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "429 rate limit" },
		]);
	});

	it("does not retry when retries are disabled, and emits no retry events", async () => {
		const h = promptHarness({ retry: { enabled: false } });
		await startOperation(h);
		await h.resolve("run", retryable());
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.emitted.filter((e) => e.type.startsWith("auto_retry"))).toEqual([]);
	});

	it.each(["ABORT", "ABORT_RETRY"] as const)("%s during backoff cancels the retry and settles once", async (type) => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable());
		await h.send({ type });
		expect(h.state()).toBe("settling");
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED_MESSAGE },
		]);
		await h.advance(60_000);
		expect(h.fakes.count("run")).toBe(1);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("settle")).toBe(1);
		expect(h.fakes.inputs("settle")[0]).toMatchObject({ aborted: type === "ABORT" });
	});

	it("ABORT_RETRY after RETRY_ANNOUNCED (agent_end{willRetry}) cancels the retry as the backoff begins", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "ABORT_RETRY" }); // no retry announced yet: ignored
		expect(snap(h).context.retryAnnouncement).toBe("none");
		await h.send({ type: "RETRY_ANNOUNCED" });
		await h.send({ type: "ABORT_RETRY" });
		expect(h.state()).toBe("running.working");
		expect(snap(h).context.retryAnnouncement).toBe("cancelled");
		await h.resolve("run", retryable());
		expect(h.state()).toBe("settling");
		// Exactly what ABORT_RETRY during the backoff emits: the backoff is announced, then cancelled.
		expect(h.emitted.filter((e) => e.type.startsWith("auto_retry"))).toEqual([
			expect.objectContaining({ type: "auto_retry_start", attempt: 1 }),
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED_MESSAGE },
		]);
		await h.advance(60_000);
		expect(h.fakes.count("run")).toBe(1);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
		expect(h.fakes.inputs("settle")[0]).toMatchObject({ aborted: false });
		expect(snap(h).context.retryAnnouncement).toBe("none");
	});

	it("a retry announced and not cancelled is forgotten when the retried run starts", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "RETRY_ANNOUNCED" });
		await h.resolve("run", retryable());
		expect(h.state()).toBe("retrying");
		await h.advance(60_000);
		expect(h.fakes.count("run")).toBe(2);
		expect(snap(h).context.retryAnnouncement).toBe("none");
		await h.send({ type: "ABORT_RETRY" }); // the retried request is running: nothing to cancel
		expect(h.state()).toBe("running.working");
		expect(snap(h).context.retryAnnouncement).toBe("none");
	});

	it("keeps the context at 19 keys through prompts, an announced retry and its retried run", async () => {
		// XState copies the context with Object.assign({}, context, update) on every assign; from 20
		// keys on V8 makes that copy a dictionary-mode object, and every transition of the session pays.
		const h = promptHarness();
		const keys = () => Object.keys(snap(h).context).length;
		const seen = [keys()];
		await startOperation(h);
		seen.push(keys());
		await h.send({ type: "RETRY_ANNOUNCED" });
		seen.push(keys());
		await h.resolve("run", retryable());
		seen.push(keys());
		await h.advance(60_000);
		expect(h.fakes.count("run")).toBe(2);
		seen.push(keys());
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.state()).toBe("idle");
		seen.push(keys());
		expect(Math.max(...seen)).toBeLessThanOrEqual(19);
	});

	it("UPDATE_RETRY_SETTINGS applies to the next decision", async () => {
		const h = promptHarness();
		await h.send({ type: "UPDATE_RETRY_SETTINGS", retry: { maxRetries: 0 } });
		await startOperation(h);
		await h.resolve("run", retryable());
		expect(h.state()).toBe("beforeSettle.working");
		expect(snap(h).context.retry).toEqual({ ...DEFAULT_RETRY_SETTINGS, maxRetries: 0 });
	});

	it("a different error after retries ends the sequence as failed (C.3 step 5)", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable());
		await h.advance(2000);
		await h.resolve("run", fatal("invalid_api_key"));
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "invalid_api_key" },
		]);
		expect(h.state()).toBe("beforeSettle.working");
	});
});

describe("prompt-operation machine: compaction", () => {
	it("recovers from an overflow once: omit, compact, re-run; a second overflow ends with pi's text", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", overflowError());
		expect(h.state()).toBe("compacting.working");
		expect(isCompacting(snap(h))).toBe(true);
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "overflow", willRetry: true, operationId: 1 }]);
		await h.resolve("compact", { compacted: true, continue: false });
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run")[1]).toMatchObject({ mode: "continue", cause: "compaction" });
		await h.resolve("run", overflowError());
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.emittedOf("overflow_recovery_failed")).toEqual([
			{ type: "overflow_recovery_failed", kind: "overflow", errorMessage: OVERFLOW_RECOVERY_FAILED_MESSAGE },
		]);
		expect(h.fakes.count("compact")).toBe(1);
	});

	it("uses the truncated-response text when a length overflow repeats", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", lengthOverflow());
		await h.resolve("compact", { compacted: true, continue: false });
		await h.resolve("run", lengthOverflow());
		expect(h.emittedOf("overflow_recovery_failed")).toEqual([
			{ type: "overflow_recovery_failed", kind: "length", errorMessage: LENGTH_RECOVERY_FAILED_MESSAGE },
		]);
	});

	it("a successful answer ends the failing request: a later overflow is recovered again", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", overflowError());
		await h.resolve("compact", { compacted: true, continue: false });
		await h.send({ type: "ASSISTANT_MESSAGE_END", stopReason: "error" });
		expect(snap(h).context.overflowRecoveryAttempted).toBe(true);
		await h.send({ type: "ASSISTANT_MESSAGE_END", stopReason: "length" });
		expect(snap(h).context.overflowRecoveryAttempted).toBe(true);
		await h.send({ type: "ASSISTANT_MESSAGE_END", stopReason: "toolUse" });
		expect(snap(h).context.overflowRecoveryAttempted).toBe(false);
		await h.resolve("run", overflowError());
		expect(h.state()).toBe("compacting.working");
		expect(h.fakes.count("compact")).toBe(2);
	});

	it("a new user message starts a new request (flag reset)", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", overflowError());
		await h.resolve("compact", { compacted: true, continue: false });
		await h.send({ type: "USER_MESSAGE_START" });
		await h.resolve("run", overflowError());
		expect(h.state()).toBe("compacting.working");
	});

	it("compacts a successful answer that exceeded the window without re-running it", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ stopReason: "stop", errorClass: "overflow" }));
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "overflow", willRetry: false, operationId: 1 }]);
		await h.resolve("compact", { compacted: true, continue: false });
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.fakes.count("run")).toBe(1);
	});

	it("threshold compaction settles, or continues when messages are queued", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "threshold", willRetry: false, operationId: 1 }]);
		await h.resolve("compact", { compacted: true, continue: true });
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run")[1]).toMatchObject({ cause: "queued" });
		await h.resolve("run", outcome({ overThreshold: true }));
		await h.resolve("compact", { compacted: true, continue: false });
		expect(h.state()).toBe("beforeSettle.working");
	});

	it("an extension cancelling overflow compaction never re-runs and never hangs", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", overflowError());
		await h.resolve("compact", { compacted: false, continue: false, cancelled: true });
		expect(h.state()).toBe("beforeSettle.working");
		await finishOperation(h);
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("run")).toBe(1);
	});

	it("a failing compaction goes on to the boundary; queued messages still continue", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		await h.reject("compact", new Error("summarizer failed"));
		expect(h.state()).toBe("beforeSettle.working");
		await h.resolve("beforeSettle", { continue: false });
		await h.resolve("settle");

		await startOperation(h, "r2");
		await h.resolve("run", overflowError());
		await h.resolve("compact", {
			compacted: false,
			continue: true,
			errorMessage: "Context overflow recovery failed: x",
		});
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run").at(-1)).toMatchObject({ cause: "queued" });
	});

	it("ABORT_COMPACTION stops only the compaction: the operation goes on to the boundary", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		await h.send({ type: "ABORT_COMPACTION" });
		expect(h.state()).toBe("compacting.aborting");
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "compaction" }]);
		await h.resolve("compact", { compacted: false, continue: false });
		expect(h.state()).toBe("beforeSettle.working");
	});

	it("regression: an ABORT after ABORT_COMPACTION was dropped, so queued messages still continued the run", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		await h.send({ type: "ABORT_COMPACTION" });
		await h.send({ type: "ABORT" });
		expect(snap(h).context.abortRequested).toBe(true);
		// The compaction found a follow-up queued meanwhile: without the abort it would run it.
		await h.resolve("compact", { compacted: false, continue: true, cancelled: true });
		expect(h.state()).toBe("settling");
		expect(h.fakes.inputs("run")).toHaveLength(1);
	});

	it("manual compaction runs from idle, reports its result and never settles", async () => {
		const h = promptHarness();
		await h.send({ type: "COMPACT", requestId: "c1", payload: { customInstructions: "keep the API notes" } });
		expect(h.state()).toBe("compacting.working");
		expect(isCompacting(snap(h))).toBe(true);
		expect(isOperationActive(snap(h))).toBe(false);
		expect(h.fakes.inputs("compact")).toEqual([
			{ reason: "manual", willRetry: false, requestId: "c1", payload: { customInstructions: "keep the API notes" } },
		]);
		await h.send({ type: "PROMPT", request: { requestId: "p1" } });
		expect(h.fakes.inputs("busyPreflight")).toEqual([
			{ request: { requestId: "p1" }, phase: "compacting", compactionReason: "manual" },
		]);
		await h.resolve("busyPreflight.p1", {
			disposition: "rejected",
			error: "Cannot submit a prompt while compaction is in progress.",
		});
		await h.resolve("compact", { compacted: true, continue: false, result: { summary: "s" } });
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("settle")).toBe(0);
		expect(h.emittedOf("manual_compaction_done")).toEqual([
			{
				type: "manual_compaction_done",
				requestId: "c1",
				output: { compacted: true, continue: false, result: { summary: "s" } },
			},
		]);
		expect(h.emittedOf("preflight_result")).toEqual([
			{
				type: "preflight_result",
				requestId: "p1",
				disposition: "rejected",
				error: "Cannot submit a prompt while compaction is in progress.",
			},
		]);
	});

	it("a failing or aborted manual compaction returns to idle with the error", async () => {
		const h = promptHarness();
		await h.send({ type: "COMPACT", requestId: "c1" });
		await h.reject("compact", new Error("Nothing to compact (session too small)"));
		expect(h.state()).toBe("idle");
		await h.send({ type: "COMPACT", requestId: "c2" });
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("compacting.aborting");
		await h.resolve("compact", { compacted: false, continue: false });
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("manual_compaction_done").map((e) => e.requestId)).toEqual(["c1", "c2"]);
		expect(h.fakes.count("settle")).toBe(0);
	});

	it("COMPACT while an operation runs aborts it and compacts once it has settled, before a prompt sent meanwhile", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "COMPACT", requestId: "c1", payload: { customInstructions: "keep it" } });
		// One decision: the run is being aborted and the compaction is held by the machine from now on.
		expect(h.state()).toBe("running.aborting");
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "run" }]);
		expect(snap(h).context.deferredCompaction).toEqual({
			requestId: "c1",
			payload: { customInstructions: "keep it" },
			cancelOnAbort: true,
		});
		await h.resolve("run", outcome({ stopReason: "aborted", aborted: true, hasQueuedMessages: true }));
		expect(h.state()).toBe("settling");
		// A prompt landing between the abort and the compaction (here: from an agent_settled handler).
		await h.send({ type: "PROMPT", request: { requestId: "p2" } });
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: true },
		]);
		expect(h.state()).toBe("compacting.working");
		expect(h.fakes.inputs("compact")).toEqual([
			{ reason: "manual", willRetry: false, requestId: "c1", payload: { customInstructions: "keep it" } },
		]);
		await h.resolve("compact", { compacted: true, continue: true, result: { summary: "s" } });
		// The queued messages stay queued (a manual compaction never continues); the deferred prompt runs.
		expect(h.emittedOf("manual_compaction_done").map((e) => e.requestId)).toEqual(["c1"]);
		expect(h.state()).toBe("preflight");
		expect(h.fakes.inputs("run")).toHaveLength(1);
	});

	it("COMPACT in each busy state aborts what runs there and is answered once: retry backoff, boundary; a COMPACT during a manual compaction joins it", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable());
		expect(h.state()).toBe("retrying");
		await h.send({ type: "COMPACT", requestId: "c1" });
		expect(h.state()).toBe("settling");
		expect(h.emittedOf("auto_retry_end")).toMatchObject([{ success: false, finalError: RETRY_CANCELLED_MESSAGE }]);
		// A second compact() before the first started: it joins it; one with other instructions is refused.
		await h.send({ type: "COMPACT", requestId: "c2" });
		await h.send({ type: "COMPACT", requestId: "c4", payload: { customInstructions: "other" } });
		expect(h.emittedOf("manual_compaction_done")).toEqual([
			{ type: "manual_compaction_done", requestId: "c4", refused: "other_instructions" },
		]);
		await h.resolve("settle");
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "manual", willRetry: false, requestId: "c1" }]);
		// A COMPACT during a manual compaction joins it (pi#4203): nothing aborted, one compaction answers all.
		await h.send({ type: "COMPACT", requestId: "c3" });
		expect(h.state()).toBe("compacting.working");
		await h.resolve("compact", { compacted: true, continue: false, result: { summary: "s" } });
		const answered = h.emittedOf("manual_compaction_done").map((e) => [e.requestId, e.output?.result]);
		expect(answered.sort()).toEqual([
			["c1", { summary: "s" }],
			["c2", { summary: "s" }],
			["c3", { summary: "s" }],
			["c4", undefined],
		]);
		expect(h.fakes.count("compact")).toBe(1);
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("settle")).toBe(1);
	});

	it("abort() and abortCompaction() cancel a COMPACT waiting for its abort; abort() in settling keeps one asked for there", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "COMPACT", requestId: "c1" });
		await h.send({ type: "ABORT" });
		expect(h.emittedOf("manual_compaction_done")).toEqual([
			{ type: "manual_compaction_done", requestId: "c1", cancelled: true },
		]);
		await h.resolve("run", outcome({ stopReason: "aborted", aborted: true }));
		await h.send({ type: "COMPACT", requestId: "c2" });
		await h.send({ type: "ABORT" });
		// Asked for in settling: the operation it could wait on is over, abort() leaves it.
		expect(snap(h).context.deferredCompaction).toEqual({ requestId: "c2" });
		await h.send({ type: "ABORT_COMPACTION" });
		expect(h.emittedOf("manual_compaction_done").map((e) => [e.requestId, e.cancelled])).toEqual([
			["c1", true],
			["c2", true],
		]);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("compact")).toBe(0);
	});

	it("NAVIGATE_TREE while an operation runs is answered, refused as streaming", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1", fromCommand: true });
		expect(h.state()).toBe("running.working");
		expect(h.emittedOf("tree_navigation_done")).toEqual([
			{ type: "tree_navigation_done", requestId: "t1", refused: "streaming" },
		]);
	});

	it("the machine decides every NAVIGATE_TREE: a preflight takes a command's, refuses a plain call as streaming, and a second one as compacting", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1" });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t2", fromCommand: true });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t3", fromCommand: true });
		expect(h.fakes.inputs("navigateTree")).toEqual([{ requestId: "t2" }]);
		await h.resolve("navigateTree", { cancelled: false });
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("idle");
		await h.send({ type: "COMPACT", requestId: "c1" });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t4" });
		expect(h.emittedOf("tree_navigation_done")).toEqual([
			{ type: "tree_navigation_done", requestId: "t1", refused: "streaming" },
			{ type: "tree_navigation_done", requestId: "t3", refused: "compacting" },
			{ type: "tree_navigation_done", requestId: "t2", output: { cancelled: false } },
			{ type: "tree_navigation_done", requestId: "t4", refused: "compacting" },
		]);
	});
});

describe("prompt-operation machine: a ctx.compact() handed over at settle (UniPi#30)", () => {
	const handedOver = (requestId: string) => ({ type: "COMPACT_WHEN_SETTLED", requestId }) as const;

	it("settling takes it: it starts once idle, before the prompt deferred meanwhile", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("settling");
		await h.send(handedOver("c1"));
		await h.send({ type: "PROMPT", request: { requestId: "p2" } });
		expect(snap(h).context.deferredCompaction).toEqual({ requestId: "c1" });
		await h.resolve("settle");
		expect(h.state()).toBe("compacting.working");
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "manual", willRetry: false, requestId: "c1" }]);
		expect(h.emittedOf("manual_compaction_done")).toEqual([]);
	});

	it("while the operation runs the machine holds it without aborting; later ones join it; idle, it compacts at once", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send(handedOver("c1"));
		expect(h.state()).toBe("running.working");
		expect(h.emittedOf("abort_requested")).toEqual([]);
		expect(snap(h).context.deferredCompaction).toEqual({ requestId: "c1", cancelOnAbort: true });
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		await h.send(handedOver("c2"));
		expect(snap(h).context.deferredCompaction).toEqual({ requestId: "c1", sharedWith: ["c2"], cancelOnAbort: true });
		await h.resolve("settle");
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "manual", willRetry: false, requestId: "c1" }]);
		await h.resolve("compact", { compacted: true, continue: false, result: { summary: "s" } });
		expect(h.emittedOf("manual_compaction_done").map((e) => e.requestId)).toEqual(["c2", "c1"]);
		expect(h.emittedOf("operation_settled")).toMatchObject([{ aborted: false }]);
		await h.send(handedOver("c3"));
		expect(h.state()).toBe("compacting.working");
		// abort() while one waits for the operation cancels it, as it cancels compact().
		await h.resolve("compact", { compacted: true, continue: false, result: { summary: "s" } });
		await startOperation(h, "r2");
		await h.send(handedOver("c4"));
		await h.send({ type: "ABORT" });
		expect(h.emittedOf("manual_compaction_done").at(-1)).toEqual({
			type: "manual_compaction_done",
			requestId: "c4",
			cancelled: true,
		});
	});
});

describe("prompt-operation machine: a ctx.compact() from the preflight's own dispatch (pi#7154)", () => {
	const fromDispatch = (requestId: string, payload?: unknown) =>
		({ type: "COMPACT_WHEN_SETTLED", requestId, fromDispatch: true, ...(payload ? { payload } : {}) }) as const;
	const released = (h: ReturnType<typeof promptHarness>) => h.emittedOf("preflight_dispatch_released").length;

	it("runs at once beside the command (isCompacting), later calls join it, and the preflight goes on past its dispatch only once it has ended", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.send(fromDispatch("c1", { customInstructions: "keep the names" }));
		await h.send(fromDispatch("c2"));
		expect(h.state()).toBe("preflight");
		expect(isCompacting(snap(h))).toBe(true);
		expect(h.fakes.inputs("compact")).toEqual([
			{ reason: "manual", willRetry: false, requestId: "c1", payload: { customInstructions: "keep the names" } },
		]);
		// The command returned without awaiting it: the machine holds the preflight.
		await h.send({ type: "PREFLIGHT_DISPATCH_END" });
		expect(released(h)).toBe(0);
		await h.resolve("compact", { compacted: true, continue: false, result: { summary: "s" } });
		expect(h.emittedOf("manual_compaction_done").map((e) => e.requestId)).toEqual(["c2", "c1"]);
		expect(released(h)).toBe(1);
		expect(isCompacting(snap(h))).toBe(false);
		// Nothing compacting: the next dispatch's end is answered at once.
		await h.send({ type: "PREFLIGHT_DISPATCH_END" });
		expect(released(h)).toBe(2);
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("abort_requested")).toEqual([]);
		expect(h.fakes.count("compact")).toBe(1);
	});

	it("pi#4203: a later call from the dispatch with other instructions is refused at once (refused: other_instructions), not joined; the running one goes on and answers its callers", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.send(fromDispatch("c1", { customInstructions: "keep the names" }));
		await h.send(fromDispatch("c2", { customInstructions: "only the failures" }));
		expect(h.emittedOf("manual_compaction_done")).toEqual([
			{ type: "manual_compaction_done", requestId: "c2", refused: "other_instructions" },
		]);
		await h.send(fromDispatch("c3", { customInstructions: "keep the names" }));
		await h.send({ type: "PREFLIGHT_DISPATCH_END" });
		await h.resolve("compact", { compacted: true, continue: false, result: { summary: "s" } });
		expect(h.emittedOf("manual_compaction_done").map((e) => e.requestId)).toEqual(["c2", "c3", "c1"]);
		expect(released(h)).toBe(1);
		expect(h.fakes.count("compact")).toBe(1);
	});

	it("abort() cancels it through the preflight's abort, and a later one from the aborted dispatch is cancelled at once", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.send(fromDispatch("c1"));
		await h.send({ type: "ABORT" });
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "preflight" }]);
		await h.reject("compact", new Error("Compaction cancelled"));
		expect(h.emittedOf("manual_compaction_done")).toMatchObject([{ requestId: "c1", error: expect.any(Error) }]);
		await h.send(fromDispatch("c2"));
		expect(h.emittedOf("manual_compaction_done").at(-1)).toEqual({
			type: "manual_compaction_done",
			requestId: "c2",
			cancelled: true,
		});
		expect(h.fakes.count("compact")).toBe(1);
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("idle");
	});

	it("not from the dispatch (fromDispatch unset), it aborts the prompt and waits for idle, as before", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "p1" } });
		await h.send({ type: "COMPACT_WHEN_SETTLED", requestId: "c1" });
		expect(h.fakes.count("compact")).toBe(0);
		expect(snap(h).context.deferredCompaction).toEqual({ requestId: "c1", cancelOnAbort: true });
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("compacting.working");
	});
});

describe("prompt-operation machine: abort", () => {
	it("an abort while running waits for the run to finish (partial message persisted) and settles once", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("running.aborting");
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "run" }]);
		expect(h.fakes.count("settle")).toBe(0);
		await h.send({ type: "ABORT" });
		expect(h.emittedOf("abort_requested")).toHaveLength(1);
		await h.resolve("run", outcome({ stopReason: "aborted", aborted: true }));
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("beforeSettle")).toBe(0);
		await h.resolve("settle");
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: true },
		]);
	});

	it("an abort during a retried run ends the retry sequence as cancelled", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable());
		await h.advance(2000);
		await h.send({ type: "ABORT" });
		await h.resolve("run", retryable());
		expect(h.state()).toBe("settling");
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED_MESSAGE },
		]);
		expect(h.emittedOf("auto_retry_start")).toHaveLength(1);
	});

	it("an abort during automatic compaction waits for it, then settles", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", overflowError());
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("compacting.aborting");
		await h.resolve("compact", { compacted: true, continue: true });
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("run")).toBe(1);
	});

	it("an abort during the boundary overrides its continue request", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("beforeSettle.aborting");
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "boundary" }]);
		await h.resolve("beforeSettle", { continue: true });
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("run")).toBe(1);
	});

	it("an abort during preflight settles a started operation without running it", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.send({ type: "ABORT" });
		await h.resolve("preflight", { disposition: "started" });
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("run")).toBe(0);
		await h.resolve("settle");
		expect(h.emitted.map((e) => e.type)).toEqual([
			"abort_requested",
			"preflight_result",
			"operation_started",
			"operation_settled",
		]);
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "preflight" }]);
	});

	it("an abort during preflight of a handled prompt changes nothing", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.send({ type: "ABORT" });
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("idle");
		expect(snap(h).context.abortRequested).toBe(false);
		await startOperation(h, "r2");
		expect(h.state()).toBe("running.working");
	});

	it("an abort while idle does nothing; while settling it only tells the agent_settled dispatch (pi-agents#139)", async () => {
		const h = promptHarness();
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("idle");
		expect(snap(h).can({ type: "ABORT" })).toBe(false);
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("settling");
		const before = h.emittedOf("abort_requested").length;
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("settling");
		expect(h.emittedOf("abort_requested").slice(before)).toEqual([{ type: "abort_requested", target: "settled" }]);
		expect(snap(h).context.abortRequested).toBe(false);
	});
});

describe("prompt-operation machine: prompts while busy", () => {
	it("spawns a busy preflight for a PROMPT while running and never starts a second run", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "PROMPT", request: { requestId: "r2", payload: { streamingBehavior: "followUp" } } });
		expect(h.fakes.inputs("busyPreflight")).toEqual([
			{ request: { requestId: "r2", payload: { streamingBehavior: "followUp" } }, phase: "running" },
		]);
		await h.resolve("busyPreflight.r2", { disposition: "queued" });
		expect(h.state()).toBe("running.working");
		expect(h.fakes.count("run")).toBe(1);
		expect(h.emittedOf("preflight_result").at(-1)).toEqual({
			type: "preflight_result",
			requestId: "r2",
			disposition: "queued",
		});
		expect(Object.keys(h.actor.getSnapshot().children)).toEqual([]);
		await h.send({ type: "PROMPT", request: { requestId: "r3" } });
		await h.reject("busyPreflight.r3", new Error("Agent is already processing."));
		expect(h.emittedOf("preflight_result").at(-1)).toEqual({
			type: "preflight_result",
			requestId: "r3",
			disposition: "rejected",
			error: new Error("Agent is already processing."),
		});
	});

	it.each([
		["retrying", async (h: ReturnType<typeof promptHarness>) => h.resolve("run", retryable())],
		["compacting", async (h: ReturnType<typeof promptHarness>) => h.resolve("run", outcome({ overThreshold: true }))],
		["beforeSettle", async (h: ReturnType<typeof promptHarness>) => h.resolve("run", outcome())],
	] as const)("uses the busy preflight in %s", async (phase, reach) => {
		const h = promptHarness();
		await startOperation(h);
		await reach(h);
		await h.send({ type: "PROMPT", request: { requestId: "r2" } });
		expect(h.fakes.inputs("busyPreflight")[0]).toMatchObject({ phase });
	});

	it("defers prompts that arrive during settling and re-issues them in order, one operation each", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		await h.send({ type: "PROMPT", request: { requestId: "d1" } });
		await h.send({ type: "PROMPT", request: { requestId: "d2" } });
		expect(h.emittedOf("prompt_deferred").map((e) => e.requestId)).toEqual(["d1", "d2"]);
		expect(h.fakes.count("preflight")).toBe(1);
		await h.resolve("settle");
		expect(h.state()).toBe("preflight");
		expect(h.fakes.inputs("preflight")[1]).toEqual({ request: { requestId: "d1" } });
		const settledBeforeD1 = h.emitted.findIndex((e) => e.type === "operation_settled");
		expect(settledBeforeD1).toBeGreaterThan(-1);
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("preflight");
		expect(h.fakes.inputs("preflight")[2]).toEqual({ request: { requestId: "d2" } });
		await h.resolve("preflight", { disposition: "started" });
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("operation_settled").map((e) => e.requestId)).toEqual(["r1", "d2"]);
	});

	it("defers a prompt that arrives during another prompt's preflight", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "r1" } });
		await h.send({ type: "PROMPT", request: { requestId: "r2" } });
		expect(h.fakes.count("preflight")).toBe(1);
		await h.resolve("preflight", { disposition: "queued" });
		expect(h.fakes.inputs("preflight")[1]).toEqual({ request: { requestId: "r2" } });
	});
});

describe("prompt-operation machine: tree navigation", () => {
	it("counts as compacting, can be aborted, and reports its result without settling", async () => {
		const h = promptHarness();
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1", payload: { targetId: "e5", summarize: true } });
		expect(h.state()).toBe("branchSummary.working");
		expect(isCompacting(snap(h))).toBe(true);
		expect(isStreaming(snap(h))).toBe(false);
		expect(h.fakes.inputs("navigateTree")).toEqual([{ requestId: "t1", payload: { targetId: "e5", summarize: true } }]);
		await h.send({ type: "ABORT_BRANCH_SUMMARY" });
		expect(h.state()).toBe("branchSummary.aborting");
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "branch_summary" }]);
		await h.resolve("navigateTree", { cancelled: true, aborted: true });
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("tree_navigation_done")).toEqual([
			{ type: "tree_navigation_done", requestId: "t1", output: { cancelled: true, aborted: true } },
		]);
		await h.send({ type: "NAVIGATE_TREE", requestId: "t2" });
		await h.reject("navigateTree", new Error("Entry x not found"));
		expect(h.emittedOf("tree_navigation_done")[1]).toEqual({
			type: "tree_navigation_done",
			requestId: "t2",
			error: new Error("Entry x not found"),
		});
		expect(h.fakes.count("settle")).toBe(0);
	});
});

describe("prompt-operation machine: summarization retries", () => {
	const scheduled = {
		type: "SUMMARIZATION_RETRY_SCHEDULED",
		attempt: 1,
		maxAttempts: 3,
		delayMs: 2000,
		errorMessage: "503",
	} as const;
	const summaryEmits = (h: ReturnType<typeof promptHarness>) =>
		h.emitted.filter((event) => event.type.startsWith("summarization_retry"));

	it("inside compacting: each report is announced, the state and the operation stay as they are", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		const before = snap(h).context;
		await h.send(scheduled);
		expect(h.state()).toBe("compacting.working");
		await h.send({ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "compaction", reason: "threshold" });
		await h.send({ type: "SUMMARIZATION_RETRY_FINISHED", success: true, attempt: 1 });
		expect(h.state()).toBe("compacting.working");
		expect(snap(h).context).toEqual(before);
		expect(summaryEmits(h)).toEqual([
			{ type: "summarization_retry_scheduled", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "503" },
			{ type: "summarization_retry_attempt_start", source: "compaction", reason: "threshold" },
			{ type: "summarization_retry_finished", success: true, attempt: 1 },
		]);
		// No turn-retry bookkeeping: a summary retry is not an auto retry.
		expect(h.emittedOf("auto_retry_start")).toEqual([]);
		await h.resolve("compact", { compacted: true, continue: false });
		await finishOperation(h);
		expect(h.emittedOf("operation_settled")).toHaveLength(1);
	});

	it("an abort during the backoff still ends the compaction as aborted; the finished report is announced on the way", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		await h.send(scheduled);
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("compacting.aborting");
		await h.send({ type: "SUMMARIZATION_RETRY_FINISHED", success: false, attempt: 1, finalError: "503" });
		expect(h.state()).toBe("compacting.aborting");
		expect(summaryEmits(h).at(-1)).toEqual({
			type: "summarization_retry_finished",
			success: false,
			attempt: 1,
			finalError: "503",
		});
		await h.resolve("compact", { compacted: false, continue: false, cancelled: true });
		expect(h.state()).toBe("settling");
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled")).toEqual([
			{ type: "operation_settled", operationId: 1, requestId: "r1", aborted: true },
		]);
	});

	it("inside branchSummary and preflight (a pre-send compaction) too", async () => {
		const h = promptHarness();
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1", payload: { targetId: "e5", summarize: true } });
		await h.send({ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "branchSummary" });
		expect(h.state()).toBe("branchSummary.working");
		await h.resolve("navigateTree", { cancelled: false });
		await h.send({ type: "PROMPT", request: { requestId: "r2" } });
		await h.send(scheduled);
		expect(h.state()).toBe("preflight");
		expect(summaryEmits(h).map((event) => event.type)).toEqual([
			"summarization_retry_attempt_start",
			"summarization_retry_scheduled",
		]);
		expect(summaryEmits(h)[0]).toEqual({ type: "summarization_retry_attempt_start", source: "branchSummary" });
	});
});

describe("prompt-operation machine: queue changes", () => {
	it("QUEUE_CHANGED is echoed as queue_changed in retrying; the state, the context and the backoff stay as they are", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", retryable("529 overloaded"));
		const before = snap(h).context;
		await h.advance(1000);
		await h.send({
			type: "QUEUE_CHANGED",
			steering: 1,
			followUp: 0,
			change: "queued",
			queue: "steering",
			text: "steer",
		});
		await h.send({ type: "QUEUE_CHANGED", steering: 0, followUp: 0, change: "cleared" });
		expect(h.state()).toBe("retrying");
		expect(snap(h).context).toEqual(before);
		expect(h.emittedOf("queue_changed")).toEqual([
			{ type: "queue_changed", steering: 1, followUp: 0, change: "queued", queue: "steering", text: "steer" },
			{ type: "queue_changed", steering: 0, followUp: 0, change: "cleared" },
		]);
		// The backoff was not restarted: it ends 2000 ms after it began.
		await h.advance(1000);
		expect(h.state()).toBe("running.working");
	});

	it("idle too, without starting anything", async () => {
		const h = promptHarness();
		await h.send({
			type: "QUEUE_CHANGED",
			steering: 0,
			followUp: 1,
			change: "queued",
			queue: "followUp",
			text: "later",
		});
		expect(h.state()).toBe("idle");
		expect(h.emitted.map((event) => event.type)).toEqual(["queue_changed"]);
	});
});

describe("prompt-operation selectors", () => {
	it("derive the session flags from the state", async () => {
		const h = promptHarness();
		expect([isStreaming(snap(h)), isRetrying(snap(h)), isCompacting(snap(h)), lifecycleState(snap(h))]).toEqual([
			false,
			false,
			false,
			"idle",
		]);
		await startOperation(h);
		await h.send({ type: "ABORT" });
		expect(lifecycleState(snap(h))).toBe("running.aborting");
		expect(isStreaming(snap(h))).toBe(true);
	});
});

describe("prompt-operation machine: recovery paths (issue 5)", () => {
	it("a retryable error that is not retried still gets the threshold check (C.3 steps 5–6)", async () => {
		const h = promptHarness({ retry: { maxRetries: 1, baseDelayMs: 10 } });
		await startOperation(h);
		await h.resolve("run", retryable());
		await h.advance(10);
		await h.resolve("run", retryable("503 again", { overThreshold: true }));
		expect(h.state()).toBe("compacting.working");
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "threshold", willRetry: false, operationId: 1 }]);
		expect(h.emittedOf("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "503 again" },
		]);
		await h.resolve("compact", { compacted: true, continue: false });
		expect(h.state()).toBe("beforeSettle.working");
		expect(h.fakes.count("run")).toBe(2);
	});

	it("does not settle while a busy prompt is still in its input hooks; queued → the operation continues", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.resolve("run", outcome({ overThreshold: true }));
		expect(h.state()).toBe("compacting.working");
		await h.send({ type: "PROMPT", request: { requestId: "late", payload: { streamingBehavior: "steer" } } });
		await h.resolve("compact", { compacted: true, continue: false });
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("beforeSettle.awaitingInput");
		expect(isStreaming(snap(h))).toBe(true);
		expect(h.fakes.count("settle")).toBe(0);
		await h.resolve("busyPreflight.late", { disposition: "queued" });
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run").at(-1)).toMatchObject({ mode: "continue", cause: "queued" });
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("operation_settled")).toHaveLength(1);
	});

	it("regression: a follow-up queued while the agent_before_settle boundary runs (after its look at the queues) continues the operation instead of being stranded", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "QUEUE_INPUT_STARTED" });
		await h.resolve("run", outcome());
		expect(h.state()).toBe("beforeSettle.working");
		// Its input hook returns while the boundary's handlers run: the boundary's answer predates it.
		await h.send({ type: "QUEUE_INPUT_FINISHED", queued: true });
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("running.working");
		expect(h.fakes.inputs("run").at(-1)).toMatchObject({ mode: "continue", cause: "queued" });
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("operation_settled")).toHaveLength(1);

		// Queued before the boundary began: its answer saw it already; nothing is noted twice.
		await startOperation(h, "r2");
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("settling");
		await h.resolve("settle");

		// An abort still wins: the boundary's handlers fail on it and the operation settles.
		await startOperation(h, "r3");
		await h.send({ type: "QUEUE_INPUT_STARTED" });
		await h.resolve("run", outcome());
		await h.send({ type: "QUEUE_INPUT_FINISHED", queued: true });
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("beforeSettle.aborting");
		await h.reject("beforeSettle", new Error("aborted"));
		expect(h.state()).toBe("settling");
	});

	it("a busy prompt that ends handled or rejected lets the operation settle; ABORT settles at once", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.resolve("run", outcome({ beforeSettleBoundary: false }));
		expect(h.state()).toBe("beforeSettle.awaitingInput");
		await h.resolve("busyPreflight.cmd", { disposition: "handled" });
		expect(h.state()).toBe("settling");
		await h.resolve("settle");

		await startOperation(h, "r2");
		await h.send({ type: "PROMPT", request: { requestId: "slow" } });
		await h.resolve("run", outcome());
		await h.resolve("beforeSettle", { continue: false });
		expect(h.state()).toBe("beforeSettle.awaitingInput");
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("settling");
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled").map((e) => [e.requestId, e.aborted])).toEqual([
			["r1", false],
			["r2", true],
		]);
		// The abandoned busy preflight still reports its caller's result.
		await h.resolve("busyPreflight.slow", { disposition: "queued" });
		expect(h.state()).toBe("idle");
		expect(h.emittedOf("preflight_result").at(-1)).toMatchObject({ requestId: "slow", disposition: "queued" });
	});

	it("an extension command's NAVIGATE_TREE runs beside the preflight; prompts wait for it", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd", payload: { text: "/tree" } } });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1", payload: { targetId: "e2" }, fromCommand: true });
		expect(h.state()).toBe("preflight");
		expect(isCompacting(snap(h))).toBe(true);
		// One at a time: a second one is refused at once (compacting), the first goes on.
		await h.send({ type: "NAVIGATE_TREE", requestId: "t2", fromCommand: true });
		expect(h.emittedOf("tree_navigation_done")).toEqual([
			{ type: "tree_navigation_done", requestId: "t2", refused: "compacting" },
		]);
		expect(h.fakes.inputs("navigateTree")).toEqual([{ requestId: "t1", payload: { targetId: "e2" } }]);
		await h.send({ type: "ABORT_BRANCH_SUMMARY" });
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "branch_summary" }]);
		// The command did not await it: the prompt is handled, the navigation goes on.
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("idle");
		expect(isCompacting(snap(h))).toBe(true);
		await h.send({ type: "PROMPT", request: { requestId: "during" } });
		expect(h.fakes.inputs("busyPreflight")).toEqual([{ request: { requestId: "during" }, phase: "branchSummary" }]);
		await h.send({ type: "ABORT" });
		expect(h.emittedOf("abort_requested")).toEqual([
			{ type: "abort_requested", target: "branch_summary" },
			{ type: "abort_requested", target: "branch_summary" },
		]);
		await h.resolve("navigateTree", { cancelled: true, aborted: true });
		expect(h.emittedOf("tree_navigation_done")).toEqual([
			{ type: "tree_navigation_done", requestId: "t2", refused: "compacting" },
			{ type: "tree_navigation_done", requestId: "t1", output: { cancelled: true, aborted: true } },
		]);
		expect(isCompacting(snap(h))).toBe(false);
		expect(snap(h).can({ type: "ABORT" })).toBe(false);
		expect(h.fakes.count("settle")).toBe(0);
	});

	it("deferred prompts wait for a spawned navigation to end", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1", fromCommand: true });
		await h.send({ type: "PROMPT", request: { requestId: "next" } });
		expect(h.emittedOf("prompt_deferred").map((e) => e.requestId)).toEqual(["next"]);
		await h.resolve("preflight", { disposition: "handled" });
		expect(h.state()).toBe("idle");
		expect(h.fakes.count("preflight")).toBe(1);
		await h.reject("navigateTree", new Error("Entry e9 not found"));
		expect(h.emittedOf("tree_navigation_done")[0]).toMatchObject({
			requestId: "t1",
			error: new Error("Entry e9 not found"),
		});
		expect(h.state()).toBe("preflight");
		expect(h.fakes.inputs("preflight")[1]).toEqual({ request: { requestId: "next" } });
	});

	it("ABORT during a preflight also aborts a navigation its command started", async () => {
		const h = promptHarness();
		await h.send({ type: "PROMPT", request: { requestId: "cmd" } });
		await h.send({ type: "NAVIGATE_TREE", requestId: "t1", fromCommand: true });
		await h.send({ type: "ABORT" });
		expect(h.emittedOf("abort_requested")).toEqual([
			{ type: "abort_requested", target: "preflight" },
			{ type: "abort_requested", target: "branch_summary" },
		]);
		await h.resolve("navigateTree", { cancelled: true, aborted: true });
		// The abort flag survives the navigation's end: a started prompt still settles without running.
		await h.resolve("preflight", { disposition: "started" });
		expect(h.state()).toBe("settling");
		expect(h.fakes.count("run")).toBe(0);
	});
});

describe("prompt-operation machine: compaction before a routed request (pi 1.6)", () => {
	const needs = { type: "REQUEST_NEEDS_COMPACTION" } as const;

	it("compacts inside the run: running.compacting, isCompacting, then the same run goes on and settles once", async () => {
		const h = promptHarness();
		await startOperation(h);
		expect(snap(h).can(needs)).toBe(true);
		await h.send(needs);
		expect(h.state()).toBe("running.compacting.working");
		expect(isCompacting(snap(h))).toBe(true);
		expect(isStreaming(snap(h))).toBe(true);
		expect(h.fakes.inputs("compact")).toEqual([{ reason: "threshold", willRetry: false, operationId: 1 }]);
		// A summary retry inside it is announced without leaving the state.
		await h.send({ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "compaction", reason: "threshold" });
		expect(h.state()).toBe("running.compacting.working");
		await h.resolve("compact", { compacted: true, continue: false });
		expect(h.state()).toBe("running.working");
		expect(isCompacting(snap(h))).toBe(false);
		expect(snap(h).context.compaction).toBeUndefined();
		expect(h.emittedOf("request_compaction_done")).toEqual([
			{ type: "request_compaction_done", output: { compacted: true, continue: false } },
		]);
		// No new run: the run that asked is still the one in flight.
		expect(h.fakes.count("run")).toBe(1);
		await h.resolve("run", outcome());
		await finishOperation(h);
		expect(h.emittedOf("operation_settled")).toHaveLength(1);
		expect(h.state()).toBe("idle");
	});

	it("a failed compaction still answers, and the request goes on", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send(needs);
		await h.reject("compact", new Error("boom"));
		expect(h.state()).toBe("running.working");
		expect(h.emittedOf("request_compaction_done")).toEqual([
			{ type: "request_compaction_done", error: new Error("boom") },
		]);
	});

	it("is accepted only while the run works: not while it is being aborted, nor outside a run", async () => {
		const h = promptHarness();
		expect(snap(h).can(needs)).toBe(false);
		await startOperation(h);
		await h.send({ type: "ABORT" });
		expect(snap(h).can(needs)).toBe(false);
		await h.send(needs);
		expect(h.state()).toBe("running.aborting");
		expect(h.fakes.count("compact")).toBe(0);
	});

	it("ABORT waits for the compaction, then aborts the run; the operation settles once", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send(needs);
		await h.send({ type: "ABORT" });
		expect(h.state()).toBe("running.compacting.aborting");
		expect(h.emittedOf("abort_requested")).toEqual([{ type: "abort_requested", target: "compaction" }]);
		await h.resolve("compact", { compacted: false, continue: false, cancelled: true });
		expect(h.state()).toBe("running.aborting");
		// The answer comes before the run's abort signal, so the request preparation sees the abort.
		expect(h.emitted.map((event) => event.type).slice(-2)).toEqual(["request_compaction_done", "abort_requested"]);
		expect(h.emittedOf("abort_requested").at(-1)).toEqual({ type: "abort_requested", target: "run" });
		await h.resolve("run", outcome({ stopReason: "aborted", aborted: true }));
		await h.resolve("settle");
		expect(h.emittedOf("operation_settled")).toEqual([expect.objectContaining({ aborted: true })]);
		expect(h.state()).toBe("idle");
	});

	it("ABORT_COMPACTION cancels only the compaction; an ABORT after it still ends the run", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send(needs);
		await h.send({ type: "ABORT_COMPACTION" });
		expect(h.state()).toBe("running.compacting.aborting");
		await h.resolve("compact", { compacted: false, continue: false, cancelled: true });
		expect(h.state()).toBe("running.working");

		await h.send(needs);
		await h.send({ type: "ABORT_COMPACTION" });
		await h.send({ type: "ABORT" });
		expect(snap(h).context.abortRequested).toBe(true);
		await h.resolve("compact", { compacted: false, continue: false, cancelled: true });
		expect(h.state()).toBe("running.aborting");
	});

	it("a prompt during it is a busy prompt of a threshold compaction (queued, not refused)", async () => {
		const h = promptHarness();
		await startOperation(h);
		await h.send(needs);
		await h.send({ type: "PROMPT", request: { requestId: "p2" } });
		expect(h.fakes.inputs("busyPreflight").at(-1)).toMatchObject({
			phase: "compacting",
			compactionReason: "threshold",
		});
		expect(h.state()).toBe("running.compacting.working");
	});
});
