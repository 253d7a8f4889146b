/**
 * pi (and pi-fork) race reports about messages queued around an automatic retry, replayed against
 * Settle through its public API on a SimulatedClock (the backoff passes without real waiting) and
 * a real session file: a queued message is delivered exactly once (never replayed by a retry,
 * never parked after the retries give up), or stays listed and reaches the next prompt once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type HarnessWithClock } from "../../src/testing/harness.js";
import { comparable, errorReply, OVERLOADED, reopenedContext, script, timesPersisted, userTexts } from "./helpers.js";

let h: HarnessWithClock;
afterEach(() => h?.cleanup());

async function retrySession(maxRetries: number) {
	h = await createHarness({
		persistence: "disk",
		simulatedClock: true,
		settings: { retry: { maxRetries, baseDelayMs: 1000 } },
	});
	return h;
}

/** How many user messages with `text` a request carried. */
function timesIn(request: Parameters<typeof userTexts>[0], text: string): number {
	return userTexts(request).filter((sent) => sent === text).length;
}

describe("trace example / pi retry: a steer typed during the backoff", () => {
	it("pi retry: a steer typed during the backoff is delivered by the retried run once, and stays once when that run fails too", async () => {
		await retrySession(3);
		const { answerRequests } = script(h, [
			errorReply(OVERLOADED),
			errorReply(OVERLOADED),
			fauxAssistantMessage("answered both"),
		]);
		const done = h.session.prompt("task");
		await h.nextEvent("auto_retry_start");
		expect(h.session.isRetrying).toBe(true);
		await h.session.steer("use the new API");
		await h.settle(done);
		expect(h.eventsOfType("auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 2 })]);
		// Every request after the steer carries it exactly once (a retry's context_edit removes only the failed answer).
		expect(answerRequests.map((request) => timesIn(request, "use the new API"))).toEqual([0, 1, 1]);
		expect(timesPersisted(h.session.sessionFile!, "use the new API")).toBe(1);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("senpi#917: queued input not resumed after the retry budget is exhausted", () => {
	it("senpi#917: a follow-up queued during the backoff is answered in the same operation after the retries give up", async () => {
		await retrySession(1);
		const { answerRequests } = script(h, [
			errorReply(OVERLOADED),
			errorReply(OVERLOADED),
			fauxAssistantMessage("answer to the follow-up"),
		]);
		let settled = 0;
		h.session.subscribe((event) => {
			if (event.type === "agent_settled") settled++;
		});
		const done = h.session.prompt("task");
		await h.nextEvent("auto_retry_start");
		await h.session.followUp("then summarize");
		await h.settle(done);
		expect(h.eventsOfType("auto_retry_end")).toEqual([
			expect.objectContaining({ success: false, attempt: 1, finalError: expect.stringContaining("529") }),
		]);
		// No second prompt needed: the operation delivered it after giving up, and settled once.
		expect(answerRequests).toHaveLength(3);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("then summarize");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "answer to the follow-up" }] });
		expect(settled).toBe(1);
		expect(h.session.getFollowUpMessages()).toEqual([]);
		expect(timesPersisted(h.session.sessionFile!, "then summarize")).toBe(1);
		expect(h.session.isIdle).toBe(true);
	});
});

describe("bobbit#360 / pi abortRetry: a steer typed during the backoff, then the retry cancelled", () => {
	for (const how of ["abortRetry", "abort"] as const) {
		it(`bobbit#360: after ${how}() during the backoff the steer stays listed and the next prompt delivers it once`, async () => {
			await retrySession(3);
			const { answerRequests } = script(h, [errorReply(OVERLOADED), fauxAssistantMessage("next answer")]);
			const done = h.session.prompt("task");
			await h.nextEvent("auto_retry_start");
			await h.session.steer("steer typed in the backoff");
			if (how === "abortRetry") h.session.abortRetry();
			else await h.session.abort();
			await h.settle(done);
			expect(h.eventsOfType("auto_retry_end")).toEqual([
				expect.objectContaining({ success: false, finalError: "Retry cancelled" }),
			]);
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			expect(answerRequests).toHaveLength(1);
			// Not lost and not a ghost: listed, and it reached no request yet.
			expect(h.session.getSteeringMessages()).toEqual(["steer typed in the backoff"]);
			expect(timesPersisted(h.session.sessionFile!, "steer typed in the backoff")).toBe(0);

			await h.settle(h.session.prompt("next"));
			expect(h.session.getSteeringMessages()).toEqual([]);
			expect(timesIn(answerRequests[1]!, "steer typed in the backoff")).toBe(1);
			expect(timesPersisted(h.session.sessionFile!, "steer typed in the backoff")).toBe(1);
			expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		});
	}
});

describe("pi#9677: compaction queue rollback replays accepted messages", () => {
	it("pi#9677: a queued message delivered to a run that then fails for good is never queued or sent again", async () => {
		await retrySession(0);
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			errorReply("401 invalid x-api-key"),
			fauxAssistantMessage("fresh answer"),
		]);
		const done = h.session.prompt("task");
		await h.nextEvent("message_start");
		await h.session.followUp("accepted follow-up");
		await h.settle(done);
		expect(answerRequests).toHaveLength(2);
		expect(timesIn(answerRequests[1]!, "accepted follow-up")).toBe(1);
		expect(h.session.pendingMessageCount).toBe(0);
		await h.settle(h.session.prompt("later"));
		// The later prompt's request has it once (its history), not replayed as a new message.
		expect(timesIn(answerRequests[2]!, "accepted follow-up")).toBe(1);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("later");
		expect(timesPersisted(h.session.sessionFile!, "accepted follow-up")).toBe(1);
	});
});

describe("opencode#40645: after an interrupt during retries, the queued messages keep firing", () => {
	it("opencode#40645: several steers and follow-ups queued during the backoff, then abort(): no request fires afterwards, no timer is left, all stay listed, and the next prompt delivers each once, in order", async () => {
		await retrySession(3);
		const { answerRequests } = script(h, [
			errorReply(OVERLOADED),
			fauxAssistantMessage("answer one"),
			fauxAssistantMessage("answer two"),
			fauxAssistantMessage("answer three"),
			fauxAssistantMessage("answer four"),
			fauxAssistantMessage("answer five"),
		]);
		const done = h.session.prompt("long task");
		await h.nextEvent("auto_retry_start");
		await h.session.steer("steer one");
		await h.session.followUp("follow-up one");
		await h.session.steer("steer two");
		await h.session.followUp("follow-up two");
		await h.session.abort();
		await h.settle(done);

		// Stopped means stopped: time passes, nothing is sent on its own.
		h.clock.increment(60_000);
		await new Promise((resolve) => setImmediate(resolve));
		expect(h.pendingTimerCount()).toBe(0);
		expect(answerRequests).toHaveLength(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.isIdle).toBe(true);
		expect(h.session.getSteeringMessages()).toEqual(["steer one", "steer two"]);
		expect(h.session.getFollowUpMessages()).toEqual(["follow-up one", "follow-up two"]);
		const file = h.session.sessionFile!;
		for (const text of ["steer one", "steer two", "follow-up one", "follow-up two"]) {
			expect(timesPersisted(file, text)).toBe(0);
		}

		await h.settle(h.session.prompt("go on"));
		expect(h.session.pendingMessageCount).toBe(0);
		// One message per request (one-at-a-time), steers first; the first steer joins the prompt's
		// request, as a steer queued before a run starts does.
		expect(answerRequests.slice(1).map((request) => userTexts(request).at(-1))).toEqual([
			"steer one",
			"steer two",
			"follow-up one",
			"follow-up two",
		]);
		expect(userTexts(answerRequests.at(-1)!)).toEqual([
			"long task",
			"go on",
			"steer one",
			"steer two",
			"follow-up one",
			"follow-up two",
		]);
		for (const text of ["steer one", "steer two", "follow-up one", "follow-up two"]) {
			expect(timesPersisted(file, text)).toBe(1);
		}
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
