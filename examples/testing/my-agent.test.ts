/**
 * Testing your own agent with `settle/testing`: a scripted model, the session's real lifecycle,
 * retry backoff on a simulated clock (no real waiting), and a property test over random model
 * scripts for the run/settle invariants.
 *
 *   npx vitest run --config examples/testing/vitest.config.ts
 */
import fc from "fast-check";
import {
	createHarness,
	fauxAssistantMessage,
	fauxScriptArbitrary,
	fauxToolCall,
	type HarnessWithClock,
	harnessViolations,
} from "settle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { myAgent } from "./my-agent.js";

const overloaded = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded_error" });

const harnesses: HarnessWithClock[] = [];
async function agentHarness(): Promise<HarnessWithClock> {
	const h = await createHarness({ ...myAgent, simulatedClock: true });
	harnesses.push(h);
	return h;
}
afterEach(() => {
	for (const h of harnesses.splice(0)) h.cleanup();
});

describe("my agent", () => {
	it("retries an overloaded provider after 2 s, then deploys to staging", async () => {
		const h = await agentHarness();
		h.setResponses([
			overloaded(),
			fauxAssistantMessage([fauxToolCall("deploy", { service: "api", env: "staging" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("Deployed."),
		]);
		const done = h.session.prompt("deploy api to staging");

		// Stop in the backoff: the timer is set on the simulated clock and nothing has run yet.
		const retry = await h.nextEvent("auto_retry_start");
		expect(retry).toMatchObject({ attempt: 1, maxAttempts: 3, delayMs: 2000 });
		h.clock.increment(1999);
		expect(h.session.isRetrying).toBe(true);
		h.clock.increment(1);
		await done;

		expect(h.eventsOfType("auto_retry_end")).toMatchObject([{ success: true, attempt: 1 }]);
		expect(h.eventsOfType("tool_execution_end")).toMatchObject([{ toolName: "deploy", isError: false }]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("gives up after three retries with the provider's error, and settles once", async () => {
		const h = await agentHarness();
		h.setResponses([overloaded(), overloaded(), overloaded(), overloaded()]);
		await h.settle(h.session.prompt("deploy")); // moves the clock over the 2 s, 4 s and 8 s backoffs
		expect(h.eventsOfType("auto_retry_start").map((event) => event.delayMs)).toEqual([2000, 4000, 8000]);
		expect(h.eventsOfType("auto_retry_end")).toMatchObject([
			{ success: false, attempt: 3, finalError: "529 overloaded_error" },
		]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.isIdle).toBe(true);
	});

	it("never deploys to prod, whatever the model asks", async () => {
		const h = await agentHarness();
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("deploy", { service: "api", env: "prod" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("OK, I won't."),
		]);
		await h.settle(h.session.prompt("deploy api to prod"));
		const [end] = h.eventsOfType("tool_execution_end");
		expect(end).toMatchObject({
			isError: true,
			result: { content: [{ text: "Blocked: prod deploys need a human." }] },
		});
	});

	it("any model script: one agent_settled per prompt, idle after, and a well-formed event stream", async () => {
		await fc.assert(
			fc.asyncProperty(
				fauxScriptArbitrary({
					toolNames: ["deploy"],
					toolArguments: fc.record({ service: fc.constant("api"), env: fc.constantFrom("staging", "prod") }),
					kinds: ["text", "toolCalls", "retryableError", "fatalError"],
				}),
				async (script) => {
					const h = await agentHarness();
					h.setResponses(script.map((step) => step.message));
					await h.settle(h.session.prompt("go"));
					expect(h.eventsOfType("agent_settled")).toHaveLength(1);
					// Runs well nested, retries counted, one agent_settled per prompt, idle after, no handler
					// threw, the log in message order. On failure the message shows the run, one line an event.
					expect(harnessViolations(h), h.transcript()).toEqual([]);
					// No deploy to prod ever ran.
					const prodRuns = h
						.eventsOfType("tool_execution_end")
						.filter((event) => !event.isError && JSON.stringify(event.result.content).includes("to prod"));
					expect(prodRuns).toEqual([]);
					h.cleanup();
				},
			),
			{ numRuns: 25 },
		);
	});
});
