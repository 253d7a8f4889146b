/**
 * `createHarness({ simulatedClock: true })` from a user's side: `settle()` carries a retried prompt
 * through its backoffs on the simulated clock, `nextEvent()` stops at a point of the lifecycle.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { fauxScriptArbitrary } from "../../src/testing/arbitraries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

const overloaded = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" });

const harnesses: Harness[] = [];
async function track(created: Promise<Harness>): Promise<Harness> {
	const h = await created;
	harnesses.push(h);
	return h;
}
afterEach(() => {
	for (const h of harnesses.splice(0)) h.cleanup();
});

describe("Harness.settle", () => {
	it("moves the simulated clock over each backoff, by exactly the backoff", async () => {
		const h = await track(createHarness({ simulatedClock: true }));
		h.setResponses([overloaded(), overloaded(), fauxAssistantMessage("ok")]);
		const startedAt = h.clock!.now();
		await h.settle(h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start").map((event) => event.delayMs)).toEqual([2000, 4000]);
		expect(h.eventsOfType("auto_retry_end")).toMatchObject([{ success: true, attempt: 2 }]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.clock!.now() - startedAt).toBe(6000);
		expect(h.session.isIdle).toBe(true);
	});

	it("also finishes a backoff that began before it was called", async () => {
		const h = await track(createHarness({ simulatedClock: true }));
		h.setResponses([overloaded(), fauxAssistantMessage("ok")]);
		const done = h.session.prompt("hi");
		await h.nextEvent("auto_retry_start");
		expect(h.session.isRetrying).toBe(true);
		await h.settle(done);
		expect(h.eventsOfType("auto_retry_end")).toMatchObject([{ success: true, attempt: 1 }]);
	});

	it("rejects as the prompt does", async () => {
		const h = await track(createHarness({ simulatedClock: true, withConfiguredAuth: false }));
		h.setResponses([fauxAssistantMessage("never sent")]);
		const error = await h.settle(h.session.prompt("hi")).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("NO_AUTH");
	});

	it("with the real clock it only awaits", async () => {
		const h = await track(createHarness());
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.settle(h.session.prompt("hi"));
		expect(h.clock).toBeUndefined();
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("any model script settles exactly once, whatever retries it takes", async () => {
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({ kinds: ["text", "toolCalls", "retryableError", "fatalError"], toolNames: ["missing"] }),
				async (script) => {
					const h = await createHarness({ simulatedClock: true });
					try {
						h.setResponses(script.map((step) => step.message));
						await h.settle(h.session.prompt("go"));
						expect(h.eventsOfType("agent_settled")).toHaveLength(1);
						expect(h.session.isIdle).toBe(true);
					} finally {
						h.cleanup();
					}
				},
			),
			{ numRuns: 30 },
		);
	});
});

describe("Harness.nextEvent", () => {
	it("stops at auto_retry_start with the backoff timer set and not yet run", async () => {
		const h = await track(createHarness({ simulatedClock: true }));
		h.setResponses([overloaded(), fauxAssistantMessage("ok")]);
		const done = h.session.prompt("hi");
		const start = await h.nextEvent("auto_retry_start");
		expect(start).toMatchObject({ attempt: 1, maxAttempts: 3, delayMs: 2000 });
		h.clock!.increment(start.delayMs - 1);
		expect(h.session.isRetrying).toBe(true);
		h.clock!.increment(1);
		await done;
		expect(h.eventsOfType("auto_retry_end")).toMatchObject([{ success: true, attempt: 1 }]);
	});

	it("resolves with the next event only, not an earlier one", async () => {
		const h = await track(createHarness());
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("first");
		const next = h.nextEvent("message_end");
		await h.session.prompt("second");
		expect((await next).message).toMatchObject({ role: "user", content: [{ type: "text", text: "second" }] });
	});
});
