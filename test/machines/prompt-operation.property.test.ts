/**
 * Property tests of the prompt-operation machine (DESIGN §8 invariants 1, 5, 8 at the machine level)
 * over random scripts: run outcomes, abort timing (including an abort in the same tick as a
 * completion), busy and deferred prompts, compaction / boundary results and SimulatedClock advances.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	isStreaming,
	type PromptOperationEmitted,
	type PromptOperationSnapshot,
	type RetrySettings,
	type RunInput,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { fatal, flush, lengthOverflow, outcome, overflowError, promptHarness, retryable } from "./harness.js";

interface Choice {
	pick: number;
	/** Index into the script's outcome pool. */
	which: number;
	fraction: number;
	sameTick: boolean;
}

/** A random script: a small pool of run outcomes (so failures can repeat) and a list of choices. */
interface Script {
	settings: RetrySettings;
	outcomes: RunOutcome[];
	choices: Choice[];
}

const outcomeArb: fc.Arbitrary<RunOutcome> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant(outcome()) },
	{ weight: 1, arbitrary: fc.constant(outcome({ stopReason: "toolUse" })) },
	{
		weight: 6,
		arbitrary: fc
			.option(fc.integer({ min: 0, max: 90_000 }), { freq: 3 })
			.map((requestedDelayMs) => retryable("503", requestedDelayMs === null ? {} : { requestedDelayMs })),
	},
	{ weight: 3, arbitrary: fc.constant(overflowError()) },
	{ weight: 1, arbitrary: fc.constant(lengthOverflow()) },
	{ weight: 1, arbitrary: fc.constant(outcome({ stopReason: "stop", errorClass: "overflow" })) },
	{ weight: 1, arbitrary: fc.constant(outcome({ overThreshold: true })) },
	{ weight: 1, arbitrary: fc.constant(outcome({ hasQueuedMessages: true })) },
	{ weight: 1, arbitrary: fc.constant(fatal()) },
	// Runs that added nothing (a skipped continuation), with or without messages left queued.
	{
		weight: 1,
		arbitrary: fc
			.boolean()
			.map((hasQueuedMessages) => outcome({ stopReason: undefined, madeProgress: false, hasQueuedMessages })),
	},
);

const choiceArb: fc.Arbitrary<Choice> = fc.record({
	pick: fc.nat({ max: 99 }),
	which: fc.nat(),
	// Uniform (an fc.double is spread over float representations: almost every draw would be ~0).
	fraction: fc.integer({ min: 0, max: 998 }).map((n) => n / 1000),
	sameTick: fc.boolean(),
});

const settingsArb: fc.Arbitrary<RetrySettings> = fc.record({
	enabled: fc.constantFrom(true, true, true, false),
	maxRetries: fc.integer({ min: 0, max: 4 }),
	baseDelayMs: fc.integer({ min: 1, max: 3000 }),
	maxAgentDelayMs: fc.constantFrom(0, 5000, 60_000),
});

const scriptArb: fc.Arbitrary<Script> = fc.record({
	settings: settingsArb,
	outcomes: fc.array(outcomeArb, { minLength: 1, maxLength: 2 }),
	choices: fc.array(choiceArb, { minLength: 5, maxLength: 60 }),
});

type Timeline =
	| { kind: "emit"; event: PromptOperationEmitted }
	| { kind: "abort"; operationId: number | undefined }
	| { kind: "userStart" }
	| { kind: "assistantEnd"; stopReason: string }
	| { kind: "compact"; reason: string; willRetry: boolean; operationId?: number }
	| { kind: "run"; operationId: number };

/** Drives a live actor through a random script; returns what happened. */
async function drive(
	{ settings, outcomes, choices: script }: Script,
	/** Called before each step (in whatever state the machine is): a test's extra event. */
	probe?: (h: ReturnType<typeof promptHarness>, step: number) => Promise<void>,
) {
	const h = promptHarness({ retry: settings });
	const timeline: Timeline[] = [];
	h.actor.on("*", (event) => timeline.push({ kind: "emit", event: event as PromptOperationEmitted }));
	const snap = () => h.actor.getSnapshot() as PromptOperationSnapshot;
	const operationId = () => snap().context.operation?.id;
	const seen = new Set<unknown>();
	let index = 0;
	let prompts = 0;
	const abort = async (type: "ABORT" | "ABORT_RETRY" | "ABORT_COMPACTION" = "ABORT") => {
		if (type === "ABORT" && snap().context.operation) timeline.push({ kind: "abort", operationId: operationId() });
		await h.send({ type });
	};

	for (let step = 0; ; step++) {
		if (step > 2000) throw new Error(`did not settle; stuck in ${h.state()}`);
		await probe?.(h, step);
		const state = h.state();
		const c = script[index++];
		const pick = c?.pick ?? 99;
		if (state === "idle") {
			if (!c) break;
			await h.send({ type: "PROMPT", request: { requestId: `p${++prompts}` } });
			continue;
		}
		const [top, sub] = state.split(".");
		if (c && pick >= 90 && ["running", "retrying", "compacting", "beforeSettle"].includes(top ?? "")) {
			// A prompt while busy: the busy preflight queues or rejects it, never starts a run.
			const requestId = `p${++prompts}`;
			await h.send({ type: "PROMPT", request: { requestId } });
			await h.resolve(
				`busyPreflight.${requestId}`,
				pick % 2 ? { disposition: "queued" } : { disposition: "rejected", error: "busy" },
			);
			continue;
		}
		switch (top) {
			case "preflight":
				if (pick < 8) await abort();
				else
					await h.resolve(
						"preflight",
						pick < 70 || !c
							? { disposition: "started" }
							: pick < 78
								? { disposition: "handled" }
								: pick < 86
									? { disposition: "queued" }
									: { disposition: "rejected", error: "x" },
					);
				break;
			case "running": {
				const run = h.fakes.pending("run");
				if (!run) throw new Error("running without a pending run");
				if (!seen.has(run)) {
					seen.add(run);
					timeline.push({ kind: "run", operationId: (run.input as RunInput).operationId });
					if ((run.input as RunInput).mode === "prompt") {
						timeline.push({ kind: "userStart" });
						await h.send({ type: "USER_MESSAGE_START" });
					}
				}
				if (sub === "working" && pick < 6) {
					await abort();
					break;
				}
				let result = c ? (outcomes[c.which % outcomes.length] ?? outcome()) : outcome();
				if (sub === "aborting") result = outcome({ stopReason: "aborted", aborted: true });
				if (result.stopReason !== undefined) {
					timeline.push({ kind: "assistantEnd", stopReason: result.stopReason });
					await h.send({ type: "ASSISTANT_MESSAGE_END", stopReason: result.stopReason });
				}
				run.resolve(result);
				// Abort timing: sometimes the abort lands in the same tick as the run's completion.
				if (c?.sameTick && pick < 30 && sub === "working") await abort();
				await flush();
				break;
			}
			case "retrying": {
				const delay = snap().context.retryDelayMs;
				if (pick < 5) await abort();
				else if (pick < 9) await abort("ABORT_RETRY");
				else if (pick < 35 && delay > 0) await h.advance(Math.floor((c?.fraction ?? 0) * delay));
				else await h.advance(delay);
				break;
			}
			case "compacting": {
				const compaction = h.fakes.pending("compaction");
				if (!compaction) throw new Error("compacting without a pending compaction");
				if (!seen.has(compaction)) {
					seen.add(compaction);
					const input = compaction.input as { reason: string; willRetry: boolean; operationId?: number };
					timeline.push({ kind: "compact", ...input });
				}
				if (sub === "working" && pick < 8) await abort();
				else if (sub === "working" && pick < 14) await abort("ABORT_COMPACTION");
				else if (pick < 20) await h.reject("compaction", new Error("summarizer failed"));
				else {
					const compacted = !c || pick % 3 !== 0;
					await h.resolve("compaction", {
						compacted,
						continue: pick % 5 === 0,
						cancelled: !compacted && pick % 2 === 0,
					});
				}
				break;
			}
			case "beforeSettle":
				if (sub === "working" && pick < 8) await abort();
				else if (pick < 14) await h.reject("beforeSettle", new Error("boundary failed"));
				else await h.resolve("beforeSettle", { continue: c !== undefined && pick % 4 === 0 });
				break;
			case "settling":
				if (c && pick < 10) await h.send({ type: "PROMPT", request: { requestId: `p${++prompts}` } });
				else if (pick < 15) await h.reject("settle", new Error("agent_settled handler failed"));
				else await h.resolve("settle");
				break;
			default:
				throw new Error(`unexpected state ${state}`);
		}
	}
	return { h, timeline, snap };
}

function emitted(timeline: Timeline[]): PromptOperationEmitted[] {
	return timeline.flatMap((t) => (t.kind === "emit" ? [t.event] : []));
}

describe("prompt-operation machine properties", () => {
	it("exactly one settle per started operation; none for handled/queued/rejected; back to idle (invariant 1)", async () => {
		await fc.assert(
			fc.asyncProperty(scriptArb, async (script) => {
				const { h, timeline, snap } = await drive(script);
				const events = emitted(timeline);
				const started = events.filter((e) => e.type === "operation_started").map((e) => e.operationId);
				const settled = events.filter((e) => e.type === "operation_settled").map((e) => e.operationId);
				const settleCalls = h.fakes.inputs("settle").map((input) => (input as { operationId: number }).operationId);
				expect(settled).toEqual(started);
				expect(settleCalls).toEqual(started);
				expect(events.filter((e) => e.type === "preflight_result" && e.disposition === "started").length).toBe(
					started.length,
				);
				// Operations never overlap: started and settled strictly alternate.
				const lifecycle = events.filter((e) => e.type === "operation_started" || e.type === "operation_settled");
				lifecycle.forEach((e, i) => {
					expect(e.type).toBe(i % 2 === 0 ? "operation_started" : "operation_settled");
				});
				expect(h.state()).toBe("idle");
				expect(isStreaming(snap())).toBe(false);
				expect(snap().context.operation).toBeUndefined();
				expect(snap().context.retryAttempt).toBe(0);
				expect(h.fakes.invocations.filter((i) => !i.settled)).toEqual([]);
				// No timer is left behind.
				const before = h.actor.getSnapshot();
				await h.advance(10 * 60_000);
				expect(h.actor.getSnapshot()).toBe(before);
			}),
			{ numRuns: 300 },
		);
	});

	it("runs that add nothing never repeat: an operation settles after at most 2 of them, whatever the queue and boundary say (invariants 1, 9)", async () => {
		// The same answers forever would spin in microtasks without the guard; here each answer is random.
		const answersArb = fc.record({
			queued: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
			boundary: fc.array(fc.constantFrom("continue", "stop", "fail"), { minLength: 1, maxLength: 8 }),
			beforeSettleBoundary: fc.constantFrom(true, false, undefined),
			progressFirst: fc.boolean(),
		});
		await fc.assert(
			fc.asyncProperty(answersArb, async ({ queued, boundary, beforeSettleBoundary, progressFirst }) => {
				const h = promptHarness();
				await h.send({ type: "PROMPT", request: { requestId: "p1" } });
				await h.resolve("preflight", { disposition: "started" });
				let runs = 0;
				let boundaries = 0;
				for (let step = 0; h.state() !== "idle"; step++) {
					if (step > 50) throw new Error(`did not settle; stuck in ${h.state()}`);
					const top = h.state().split(".")[0];
					if (top === "running") {
						const progress = progressFirst && runs === 0;
						const answer = outcome({
							stopReason: progress ? "stop" : undefined,
							madeProgress: progress,
							hasQueuedMessages: queued[runs % queued.length] ?? false,
						});
						if (beforeSettleBoundary !== undefined) answer.beforeSettleBoundary = beforeSettleBoundary;
						runs++;
						await h.resolve("run", answer);
					} else if (top === "beforeSettle") {
						const choice = boundary[boundaries++ % boundary.length];
						if (choice === "fail") await h.reject("beforeSettle", new Error("handler threw"));
						else await h.resolve("beforeSettle", { continue: choice === "continue" });
					} else if (top === "settling") {
						await h.resolve("settle");
					} else {
						throw new Error(`unexpected state ${h.state()}`);
					}
				}
				const settled = h.emittedOf("operation_settled");
				expect(settled).toHaveLength(1);
				// Runs that added nothing: at most two in a row (a skipped one, then one the boundary asked for).
				expect(runs - (progressFirst ? 1 : 0)).toBeLessThanOrEqual(2);
				// A stall is reported exactly when a run that added nothing would have been repeated.
				const lastQueued = queued[(runs - 1) % queued.length] ?? false;
				if (settled[0]?.stall?.reason === "queued_messages") expect(lastQueued).toBe(true);
				if (lastQueued && !(progressFirst && runs === 1)) expect(settled[0]?.stall?.reason).toBe("queued_messages");
			}),
			{ numRuns: 200 },
		);
	});

	it("retry attempts ≤ maxRetries, consecutive, with non-decreasing capped delays, each sequence closed once (invariant 5)", async () => {
		await fc.assert(
			fc.asyncProperty(scriptArb, async (script) => {
				const { settings } = script;
				const { timeline } = await drive(script);
				let open: { attempt: number; delayMs: number } | undefined;
				for (const e of emitted(timeline)) {
					if (e.type === "auto_retry_start") {
						expect(e.attempt).toBeLessThanOrEqual(settings.maxRetries);
						expect(e.maxAttempts).toBe(settings.maxRetries);
						expect(e.attempt).toBe((open?.attempt ?? 0) + 1);
						if (open) expect(e.delayMs).toBeGreaterThanOrEqual(open.delayMs);
						if (settings.maxAgentDelayMs > 0) expect(e.delayMs).toBeLessThanOrEqual(settings.maxAgentDelayMs);
						open = { attempt: e.attempt, delayMs: e.delayMs };
					} else if (e.type === "auto_retry_end") {
						expect(open, "auto_retry_end without a retry in flight").toBeDefined();
						expect(e.attempt).toBe(open?.attempt);
						open = undefined;
					} else if (e.type === "operation_settled") {
						expect(open, "operation settled with a retry sequence left open").toBeUndefined();
					}
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("overflow recovery happens at most once per failing request (invariant 5)", async () => {
		await fc.assert(
			fc.asyncProperty(scriptArb, async (script) => {
				const { timeline } = await drive(script);
				let recoveries = 0;
				for (const t of timeline) {
					const requestEnds =
						t.kind === "userStart" ||
						(t.kind === "assistantEnd" && t.stopReason !== "error" && t.stopReason !== "length") ||
						(t.kind === "emit" && t.event.type === "operation_started");
					if (requestEnds) recoveries = 0;
					if (t.kind === "compact" && t.reason === "overflow" && t.willRetry) {
						recoveries++;
						expect(recoveries).toBe(1);
					}
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("an abort at any moment ends the operation: no new run after it, settled as aborted (invariant 8)", async () => {
		await fc.assert(
			fc.asyncProperty(scriptArb, async (script) => {
				const { timeline } = await drive(script);
				const aborted = new Set<number>();
				for (const t of timeline) {
					if (t.kind === "abort" && t.operationId !== undefined) aborted.add(t.operationId);
					if (t.kind === "run") expect(aborted.has(t.operationId), `run after abort of ${t.operationId}`).toBe(false);
					if (t.kind === "emit" && t.event.type === "operation_settled" && aborted.has(t.event.operationId)) {
						expect(t.event.aborted).toBe(true);
					}
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("compact() or ctx.compact() at any moment is answered exactly once — by its own compaction, shared or cancelled — never refused nor left waiting; only compact() aborts the operation (UniPi#30)", async () => {
		const kindArb = fc.constantFrom("COMPACT" as const, "COMPACT_WHEN_SETTLED" as const);
		await fc.assert(
			fc.asyncProperty(
				scriptArb,
				fc.array(fc.tuple(fc.nat({ max: 60 }), kindArb), { maxLength: 4 }),
				async (script, requests) => {
					const asked: string[] = [];
					/** Operations a request landed in while they ran (not yet settling), by kind. */
					const landedIn = { COMPACT: new Set<number>(), COMPACT_WHEN_SETTLED: new Set<number>() };
					const { h, timeline, snap } = await drive(script, async (live, step) => {
						for (const [at, type] of requests) {
							if (at !== step) continue;
							const requestId = `${type === "COMPACT" ? "c" : "w"}${step}`;
							const before = live.actor.getSnapshot() as PromptOperationSnapshot;
							const aborts = live.emittedOf("abort_requested").length;
							asked.push(requestId);
							await live.send({ type, requestId });
							const operation = before.context.operation?.id;
							if (operation !== undefined && !before.matches("settling")) landedIn[type].add(operation);
							// ctx.compact() while an operation runs aborts nothing (UniPi#30).
							if (type === "COMPACT_WHEN_SETTLED" && operation !== undefined) {
								expect(live.emittedOf("abort_requested").length, `${requestId} in ${before.value}`).toBe(aborts);
							}
							// The machine holds (or runs) it from this step on: no window for a prompt to take.
							const now = live.actor.getSnapshot() as PromptOperationSnapshot;
							const held = now.context.deferredCompaction;
							const holds =
								held?.requestId === requestId ||
								held?.sharedWith?.includes(requestId) ||
								now.context.compaction?.requestId === requestId ||
								now.context.compaction?.sharedWith?.includes(requestId);
							expect(holds, `${requestId} held in ${JSON.stringify(now.value)}`).toBe(true);
						}
					});
					const answers = emitted(timeline).filter((e) => e.type === "manual_compaction_done");
					// Exactly one answer each, never a refusal.
					expect(answers.map((e) => e.requestId).sort()).toEqual([...asked].sort());
					for (const answer of answers) expect(answer).not.toHaveProperty("refused");
					// A compaction ran for every answer that is not a cancellation, once per request it answered.
					const ran = h.fakes.inputs("compact").filter((input) => (input as { reason: string }).reason === "manual");
					const answeredByRun = answers.filter((e) => !e.cancelled).length;
					expect(ran.length).toBeLessThanOrEqual(answeredByRun);
					if (answeredByRun > 0) expect(ran.length).toBeGreaterThan(0);
					// compact() aborted the operation it landed in; each operation settled once.
					const settled = emitted(timeline).filter((e) => e.type === "operation_settled");
					for (const operationId of landedIn.COMPACT) {
						expect(settled.find((e) => e.operationId === operationId)?.aborted, `operation ${operationId}`).toBe(true);
					}
					expect(h.state()).toBe("idle");
					expect(snap().context.deferredCompaction).toBeUndefined();
				},
			),
			{ numRuns: 200 },
		);
	});
});
