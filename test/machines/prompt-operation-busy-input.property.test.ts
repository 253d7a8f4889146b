/**
 * Input that is still in its hooks while an operation runs (a prompt sent busy, a `steer()` /
 * `followUp()` with `input` handlers), answered at random later moments, across every state of
 * the operation (DESIGN §8 invariants 1 and 4 at the machine level). The driver plays the agent:
 * a message queued before an operation decides to settle is delivered by one of its runs (a run
 * takes what is queued, or ends before its last poll saw it and reports it queued; a compaction
 * and the boundary answer `continue` when something is queued). The existing properties answer
 * a busy prompt in the step that sent it; here answers overtake each other and the states.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
	PromptOperationEmitted,
	PromptOperationSnapshot,
	RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { outcome, promptHarness, retryable } from "./harness.js";

interface Step {
	pick: number;
	/** Which in-flight input an answer goes to, and how a run / outcome is drawn. */
	which: number;
	queued: boolean;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
	pick: fc.nat({ max: 99 }),
	which: fc.nat({ max: 7 }),
	queued: fc.boolean(),
});

const ACTIVE = ["running", "retrying", "compacting", "beforeSettle"];

async function drive(steps: Step[]) {
	const h = promptHarness({ retry: { enabled: true, maxRetries: 2, baseDelayMs: 100, maxAgentDelayMs: 1000 } });
	const snap = () => h.actor.getSnapshot() as PromptOperationSnapshot;
	const events: PromptOperationEmitted[] = [];
	h.actor.on("*", (event) => events.push(event as PromptOperationEmitted));
	/** Messages queued in the agent and not yet taken by a run. */
	let queued = 0;
	/** Inputs in their hooks: busy prompts (their child id) and queue inputs ("queueInput"). */
	const inFlight: string[] = [];
	const prompts: string[] = [];
	let exempt = false;
	const problems: string[] = [];
	let previous = h.state();
	h.actor.subscribe((snapshot) => {
		const state = h.state();
		// The moment the operation decides to settle: nothing queued before it may be left behind,
		// unless abort() or abortRetry() ended it (what was queued then stays queued, as in pi).
		if (state === "settling" && previous !== "settling") {
			const context = (snapshot as PromptOperationSnapshot).context;
			// Input still in its hooks may yet be queued for this operation: it must wait for it.
			if (!exempt && !context.abortRequested && (queued > 0 || inFlight.length > 0)) {
				problems.push(`settled from ${previous} with ${queued} queued, ${inFlight.length} in flight`);
			}
		}
		if (state === "idle") exempt = false;
		previous = state;
	});
	events.length = 0;

	const answerInput = async (index: number, disposition: "queued" | "rejected") => {
		const [id] = inFlight.splice(index % inFlight.length, 1);
		if (disposition === "queued") queued++;
		if (id === "queueInput") await h.send({ type: "QUEUE_INPUT_FINISHED", queued: disposition === "queued" });
		else
			await h.resolve(
				id!,
				disposition === "queued" ? { disposition: "queued" } : { disposition: "rejected", error: "busy" },
			);
	};

	const prompt = async () => {
		const requestId = `p${prompts.length + 1}`;
		prompts.push(requestId);
		await h.send({ type: "PROMPT", request: { requestId } });
		if (h.fakes.pending(`busyPreflight.${requestId}`)) inFlight.push(`busyPreflight.${requestId}`);
	};

	for (let index = 0; ; index++) {
		if (index > 3000) throw new Error(`stuck in ${h.state()}`);
		const step = steps[index];
		const state = h.state();
		const [top, sub] = state.split(".");
		if (!step) {
			// Drain: answer what is in flight, then let the operation finish.
			if (inFlight.length > 0) {
				await answerInput(0, "rejected");
				continue;
			}
			if (state === "idle") break;
		} else if (state === "idle") {
			await prompt();
			continue;
		} else if (step.pick < 12) {
			await prompt();
			continue;
		} else if (step.pick < 26 && inFlight.length > 0) {
			await answerInput(step.which, step.queued || step.pick % 3 !== 0 ? "queued" : "rejected");
			continue;
		} else if (step.pick < 32 && ACTIVE.includes(top!)) {
			inFlight.push("queueInput");
			await h.send({ type: "QUEUE_INPUT_STARTED" });
			continue;
		} else if (step.pick < 35 && ACTIVE.includes(top!)) {
			exempt = true;
			await h.send({ type: "ABORT" });
			continue;
		} else if (step.pick < 37 && top === "retrying") {
			exempt = true;
			await h.send({ type: "ABORT_RETRY" });
			continue;
		}
		// Advance the operation's own step.
		const draw = step?.which ?? 0;
		switch (top) {
			case "preflight":
				await h.resolve("preflight", { disposition: draw === 7 ? "handled" : "started" });
				break;
			case "running": {
				if (sub === "aborting") {
					await h.resolve("run", outcome({ stopReason: "aborted", aborted: true, madeProgress: true }));
					break;
				}
				// The run takes what is queued, or its last poll came before it was queued.
				const missed = step?.queued === true && draw % 2 === 0;
				if (!missed) queued = 0;
				const base: RunOutcome = draw === 1 ? retryable() : draw === 2 ? outcome({ overThreshold: true }) : outcome();
				await h.resolve("run", {
					...base,
					hasQueuedMessages: queued > 0,
					madeProgress: true,
					beforeSettleBoundary: (step?.pick ?? 0) % 3 !== 0,
				});
				break;
			}
			case "retrying":
				await h.advance(snap().context.retryDelayMs);
				break;
			case "compacting":
				await h.resolve("compaction", { compacted: true, continue: queued > 0 });
				break;
			case "beforeSettle":
				if (sub === "awaitingInput") {
					// Only an answer to what is in flight moves it on.
					await answerInput(draw, step?.queued ? "queued" : "rejected");
					break;
				}
				await h.resolve("beforeSettle", { continue: sub !== "aborting" && queued > 0 });
				break;
			case "settling":
				await h.resolve("settle");
				break;
			default:
				throw new Error(`unexpected state ${state}`);
		}
	}
	return { h, events, prompts, problems, snap };
}

describe("prompt-operation machine: input answered while the operation moves on", () => {
	it("every prompt is answered once; what was queued before the operation settles is run by it (unless aborted); nothing is left in flight (invariants 1, 4)", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 80 }), async (steps) => {
				const { h, events, prompts, problems, snap } = await drive(steps);
				expect(problems).toEqual([]);
				expect(h.state()).toBe("idle");
				expect(snap().context.busyPreflightsInFlight).toBe(0);
				// Each prompt: exactly one preflight_result (a deferred one is re-issued, then answered).
				for (const requestId of prompts) {
					const results = events.filter((e) => e.type === "preflight_result" && e.requestId === requestId);
					expect(results, requestId).toHaveLength(1);
				}
				const started = events.filter((e) => e.type === "operation_started").map((e) => e.operationId);
				const settled = events.filter((e) => e.type === "operation_settled").map((e) => e.operationId);
				expect(settled).toEqual(started);
				expect(h.fakes.invocations.filter((invocation) => !invocation.settled)).toEqual([]);
			}),
			{ numRuns: 300 },
		);
	});
});
