/**
 * The example traces behind `visualizations/trace-example.html` and
 * `visualizations/runtime-trace-example.html`: Settle's real machines driven by scripted actors on
 * a `SimulatedClock`, so a recording is byte-for-byte the same on every run and every computer (no
 * wall-clock times, no random ids, no paths of the computer that made it).
 */
import { type Actor, createActor, fromPromise, SimulatedClock } from "xstate";
import {
	backoffDelayMs,
	type CompactionInput,
	type CompactionOutput,
	DEFAULT_RETRY_SETTINGS,
	promptOperationMachine,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import {
	type BeforeSwitchOutput,
	type CreatedSession,
	type CreateSessionInput,
	type FinishInput,
	type OpenedTarget,
	type ReplacementInput,
	type RuntimeEvent,
	runtimeMachine,
	type TeardownInput,
} from "../../machines/runtime.machine.js";
import { inspectActor, type LifecycleObserver } from "./lifecycle-inspector.js";
import { createTraceRecorder, type LifecycleTrace } from "./trace.js";

const ANSWERED: RunOutcome = {
	stopReason: "stop",
	errorClass: "none",
	overThreshold: false,
	hasQueuedMessages: false,
	aborted: false,
};

/** A 503 (retried after the backoff), then a context overflow (compacted and re-run), then an answer. */
function retriedThenCompacted(): RunOutcome[] {
	return [
		{
			stopReason: "error",
			errorClass: "retryable",
			errorMessage: "503 Service Unavailable",
			overThreshold: false,
			hasQueuedMessages: false,
			aborted: false,
		},
		{
			stopReason: "error",
			errorClass: "overflow",
			errorMessage: "prompt is too long: 213462 tokens > 200000 maximum",
			overThreshold: false,
			hasQueuedMessages: false,
			aborted: false,
		},
		ANSWERED,
	];
}

/** The compaction's first summary request fails with this (then the retry after the backoff succeeds). */
const SUMMARY_FAILURE = "529 overloaded_error: Overloaded";

/** What the user types during the first retry's backoff (delivered when the retried run starts). */
const EXAMPLE_STEER = "Use the staging endpoint";

/** Ends the drive loops below: a script that never settles is a bug in the script, not a hang. */
const MAX_TURNS = 100;

/**
 * Lets the scripted actors answer (each answers a microtask or a promise later) until `done()`,
 * then returns. Calls `tick` after each turn (e.g. to advance the clock over a retry backoff).
 */
async function drive(done: () => boolean, tick: () => void = () => {}): Promise<void> {
	for (let turn = 0; turn < MAX_TURNS; turn++) {
		if (done()) return;
		await new Promise((resolve) => setImmediate(resolve));
		tick();
	}
	if (!done()) throw new Error(`example trace: the script did not finish within ${MAX_TURNS} turns`);
}

type PromptOperationActor = Actor<typeof promptOperationMachine>;

/** A started prompt-operation actor whose requests a script answers, as an AgentSession would. */
interface ScriptedSession {
	readonly actor: PromptOperationActor;
	/** Sends `PROMPT` and answers until the operation settles, moving `clock` over each retry backoff. */
	prompt(requestId: string, payload?: unknown): Promise<void>;
}

/**
 * Starts a prompt-operation actor on `clock` whose runs end with `answers`, in order. A compaction
 * succeeds after one failed summary attempt: it reports the retry to the machine as the session's
 * summarizer does, and waits out the backoff on `clock`. A steer is queued during the first retry
 * backoff and delivered by the retried run, reported as the session's queues report them.
 */
function startScriptedSession(clock: SimulatedClock, answers: RunOutcome[]): ScriptedSession {
	/** The example steer: not yet typed, queued (waiting for the retried run), delivered. */
	let steer: "none" | "queued" | "delivered" = "none";
	/** The summary backoff being waited out, for the drive loop to move the clock over. */
	let summaryBackoffMs: number | undefined;
	const machine = promptOperationMachine.provide({
		actors: {
			compact: fromPromise<CompactionOutput, CompactionInput>(async ({ input }) => {
				const delayMs = backoffDelayMs(DEFAULT_RETRY_SETTINGS, 1);
				const maxAttempts = DEFAULT_RETRY_SETTINGS.maxRetries;
				actor.send({
					type: "SUMMARIZATION_RETRY_SCHEDULED",
					attempt: 1,
					maxAttempts,
					delayMs,
					errorMessage: SUMMARY_FAILURE,
				});
				summaryBackoffMs = delayMs;
				await new Promise((resolve) => clock.setTimeout(resolve, delayMs));
				actor.send({ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "compaction", reason: input.reason });
				actor.send({ type: "SUMMARIZATION_RETRY_FINISHED", success: true, attempt: 1 });
				return { compacted: true, continue: false };
			}),
		},
	});
	const actor: PromptOperationActor = createActor(machine, { input: {}, clock });
	// The machine's requests, answered a microtask later as the session would.
	const later = (answer: () => void) => queueMicrotask(answer);
	actor.on("preflight_requested", () =>
		later(() => actor.send({ type: "PREFLIGHT_DONE", output: { disposition: "started" } })),
	);
	actor.on("run_requested", ({ input }) => {
		if (steer === "queued" && input.cause === "retry") {
			steer = "delivered";
			later(() =>
				actor.send({
					type: "QUEUE_CHANGED",
					steering: 0,
					followUp: 0,
					change: "delivered",
					queue: "steering",
					text: EXAMPLE_STEER,
				}),
			);
		}
		const output = answers.shift();
		later(() =>
			actor.send(
				output
					? { type: "RUN_DONE", output }
					: { type: "RUN_FAILED", error: new Error("example trace: no scripted answer left") },
			),
		);
	});
	actor.on("before_settle_requested", () =>
		later(() => actor.send({ type: "BEFORE_SETTLE_DONE", output: { continue: false } })),
	);
	actor.on("settle_requested", () => later(() => actor.send({ type: "SETTLE_DONE" })));
	let settled = 0;
	actor.on("operation_settled", () => {
		settled++;
	});
	actor.start();
	return {
		actor,
		prompt: async (requestId, payload) => {
			const before = settled;
			actor.send({ type: "PROMPT", request: payload === undefined ? { requestId } : { requestId, payload } });
			await drive(
				() => settled > before,
				() => {
					const snapshot = actor.getSnapshot();
					if (snapshot.matches("retrying")) {
						if (steer === "none") {
							steer = "queued";
							const queued = { steering: 1, followUp: 0, change: "queued", queue: "steering" } as const;
							actor.send({ type: "QUEUE_CHANGED", ...queued, text: EXAMPLE_STEER });
						}
						clock.increment(snapshot.context.retryDelayMs);
					} else if (summaryBackoffMs !== undefined) {
						const ms = summaryBackoffMs;
						summaryBackoffMs = undefined;
						clock.increment(ms);
					}
				},
			);
		},
	};
}

/**
 * Runs the prompt-operation machine through one request with scripted actors: a 503 (retried
 * after 2 s; a steer queued during the backoff is delivered by the retried run), then a context overflow (compacted — its summary request retried once after 2 s —
 * and re-run), then an answer. Returns its trace.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * const trace = await recordExampleTrace();
 * writeFileSync("example.html", renderTraceHtml(trace, promptOperationMachine));
 * ```
 */
export async function recordExampleTrace(): Promise<LifecycleTrace> {
	const clock = new SimulatedClock();
	const session = startScriptedSession(clock, retriedThenCompacted());
	const recorder = createTraceRecorder();
	const subscription = inspectActor(session.actor, recorder.observer, { now: () => clock.now() });
	await session.prompt("example");
	subscription.unsubscribe();
	session.actor.stop();
	return recorder.toJSON();
}

/** The prompt the second session answers, and the fork takes back (its `selectedText`). */
const FORKED_PROMPT = "Add a docs build step.";

/**
 * Runs the runtime machine and each session's prompt-operation machine with scripted actors, recorded
 * into one trace as `runtime.trace()` records them: the first session's prompt is retried once and
 * recovers from a context overflow by compaction (whose summary request is retried once); the host starts a new session (`/new`, `n1`),
 * which answers a prompt; forks that prompt (`f2`); asks to switch back to the first session
 * (`s3`), which a `session_before_switch` handler cancels; and switches back (`s4`). Each
 * replacement goes `beforeSwitch → opening → creating → settlingCurrent → shuttingDown → invalidating → disposing →
 * rebinding → active`, and each new session's events start (`∅ → idle`) while the runtime rebinds.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * const trace = await recordRuntimeExampleTrace();
 * writeFileSync("runtime-example.html", renderTraceHtml(trace)); // a tab per machine
 * ```
 */
export async function recordRuntimeExampleTrace(): Promise<LifecycleTrace> {
	const clock = new SimulatedClock();
	const recorder = createTraceRecorder();
	const host = startScriptedRuntime(clock, recorder.observer, startScriptedSession(clock, retriedThenCompacted()));

	await host.session().prompt("p1", { text: "Why does npm run build fail?" });
	await host.replace(
		{ type: "NEW", requestId: "n1" },
		{ target: { sessionFile: "sessions/second.jsonl", cwd: "project", handle: "second" }, answers: [ANSWERED] },
	);
	await host.session().prompt("p1", { text: FORKED_PROMPT });
	await host.replace(
		{ type: "FORK", requestId: "f2", entryId: "e3", position: "before" },
		{ target: { sessionFile: "sessions/fork.jsonl", cwd: "project", selectedText: FORKED_PROMPT, handle: "fork" } },
	);
	const first: OpenedTarget = { sessionFile: "sessions/first.jsonl", cwd: "project", handle: "first" };
	await host.replace({ type: "SWITCH", requestId: "s3", sessionFile: "sessions/first.jsonl" }, { cancelled: true });
	await host.replace({ type: "SWITCH", requestId: "s4", sessionFile: "sessions/first.jsonl" }, { target: first });
	host.stop();
	return recorder.toJSON();
}

/** What the scripted runtime does for one replacement request. */
interface ScriptedReplacement {
	/** `session_before_switch` / `session_before_fork` cancels it. */
	cancelled?: boolean;
	/** What `openTarget` opens (required unless cancelled). */
	target?: OpenedTarget;
	/** The new session's runs. */
	answers?: RunOutcome[];
}

/** The runtime machine with scripted steps, recording itself and the current session into `observer`. */
function startScriptedRuntime(clock: SimulatedClock, observer: LifecycleObserver, initial: ScriptedSession) {
	const now = () => clock.now();
	let step: ScriptedReplacement = {};
	let current = initial;
	let prepared: ScriptedSession | undefined;
	const machine = runtimeMachine.provide({
		actors: {
			checkBeforeSwitch: fromPromise<BeforeSwitchOutput, ReplacementInput>(async () => ({
				cancelled: step.cancelled === true,
			})),
			openTarget: fromPromise<OpenedTarget, ReplacementInput>(async ({ input }) => {
				if (!step.target) throw new Error(`example trace: no target scripted for ${input.request.requestId}`);
				return step.target;
			}),
			// Created, not bound: a session nobody inspects yet (as the runtime's unbound new session).
			createSession: fromPromise<CreatedSession, CreateSessionInput>(async ({ input }) => {
				prepared = startScriptedSession(clock, step.answers ?? []);
				return { handle: `session ${String(input.target.handle)}` };
			}),
			shutdownCurrent: fromPromise<void, TeardownInput>(async () => {}),
			invalidateCurrent: fromPromise<void, TeardownInput>(async () => {}),
			disposeCurrent: fromPromise<void, TeardownInput>(async () => {
				current.actor.stop();
			}),
			// The host binds the new session; the trace goes on with it (as runtime.trace() does).
			rebindSession: fromPromise<void, FinishInput>(async () => {
				if (!prepared) throw new Error("example trace: rebinding without a created session");
				sessionSubscription.unsubscribe();
				current = prepared;
				prepared = undefined;
				sessionSubscription = inspectActor(current.actor, observer, { now });
			}),
		},
	});
	const runtime = createActor(machine, { clock, input: {} });
	runtime.start();
	// The runtime first, then its session: the order runtime.trace() subscribes them in.
	const runtimeSubscription = inspectActor(runtime, observer, { now });
	let sessionSubscription = inspectActor(current.actor, observer, { now });
	return {
		session: () => current,
		/** Sends a replacement request and answers the machine's steps until it completes or is cancelled. */
		replace: async (event: Exclude<RuntimeEvent, { type: "DISPOSE" }>, script: ScriptedReplacement) => {
			step = script;
			let finished: string | undefined;
			const subscriptions = (["replacement_completed", "replacement_cancelled", "replacement_failed"] as const).map(
				(type) =>
					runtime.on(type, (emitted) => {
						if (emitted.requestId === event.requestId) finished = type;
					}),
			);
			runtime.send(event);
			await drive(() => finished !== undefined);
			for (const subscription of subscriptions) subscription.unsubscribe();
			const expected = script.cancelled ? "replacement_cancelled" : "replacement_completed";
			if (finished !== expected) throw new Error(`example trace: ${event.requestId} ended with ${finished}`);
		},
		stop: () => {
			sessionSubscription.unsubscribe();
			runtimeSubscription.unsubscribe();
			current.actor.stop();
			runtime.stop();
		},
	};
}
