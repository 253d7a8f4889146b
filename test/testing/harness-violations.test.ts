/**
 * `harnessViolations`: one call that names what a property test of an agent must hold after its
 * prompts settle — including what the event protocol alone cannot see (a throwing extension
 * handler, a timer left on the simulated clock, a log or file that disagrees with the session).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { fauxScriptArbitrary } from "../../src/testing/arbitraries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { harnessViolations } from "../../src/testing/harness-invariants.js";

const overloaded = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" });
const echo = {
	name: "echo",
	label: "Echo",
	description: "echo",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text" as const, text: "ok" }], details: {} }),
};

const open: Harness[] = [];
afterEach(() => {
	for (const h of open.splice(0)) h.cleanup();
});
async function harness(options: Parameters<typeof createHarness>[0] = {}) {
	const h = await createHarness({ simulatedClock: true, persistence: "disk", customTools: [echo], ...options });
	open.push(h);
	return h;
}

describe("harnessViolations", () => {
	it("a retried tool turn on disk is clean, and the backoff's timer is counted while it waits", async () => {
		const h = await harness();
		h.setResponses([
			overloaded(),
			fauxAssistantMessage([fauxToolCall("echo", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		const done = h.session.prompt("go");
		await h.nextEvent("auto_retry_start");
		expect(h.pendingTimerCount()).toBe(1);
		const waiting = harnessViolations(h);
		expect(waiting).toContain("1 timer(s) still set on the simulated clock after settling");
		expect(waiting.some((line) => line.startsWith("session not idle (lifecycle retrying"))).toBe(true);
		await h.settle(done);
		expect(h.pendingTimerCount()).toBe(0);
		expect(harnessViolations(h)).toEqual([]);
	});

	it("names an extension handler that threw, which the event protocol does not show", async () => {
		const h = await harness({
			extensionFactories: [
				(pi) =>
					pi.on("message_end", async () => {
						throw new Error("audit log unavailable");
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.settle(h.session.prompt("go"));
		const violations = harnessViolations(h);
		expect(violations).toContainEqual(
			expect.stringMatching(
				/^extension <inline:1>: its message_end handler threw: audit log unavailable \(thrown at .*harness-violations\.test\.ts:\d+:\d+\)$/,
			),
		);
	});

	it("names a log that disagrees with the events and a file that reopens to another context", async () => {
		const h = await harness();
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.settle(h.session.prompt("go"));
		expect(harnessViolations(h)).toEqual([]);
		// Events out of log order: the assistant's message_end before the user's.
		const ends = h.events.filter((event) => event.type === "message_end");
		const swapped = h.events.map(
			(event): AgentSessionEvent => (event === ends[1] ? ends[2]! : event === ends[2] ? ends[1]! : event),
		);
		const reordered = harnessViolations({ ...h, events: swapped, pendingTimerCount: h.pendingTimerCount });
		expect(reordered).toContain(
			"log order: logged message 1 is user, but message_end 1 was assistant (3 logged, 3 message_end)",
		);
		// Something wrote the log behind the session's back.
		h.sessionManager.appendMessage({ role: "user", content: "injected", timestamp: 1 });
		const violations = harnessViolations(h);
		expect(violations[0]).toBe(
			"log order: logged message 3 is user, but message_end 3 was never emitted (4 logged, 3 message_end)",
		);
		// no temp path in it: a replayed failure reads the same (testkit2)
		expect(violations[1]).toBe(
			"reopened session file: context message 3 is user, the live session has nothing there (4 vs 3 messages)",
		);
	});

	it("random scripts with tools and retries leave no violation", async () => {
		await fc.assert(
			fc.asyncProperty(fauxScriptArbitrary({ toolNames: ["echo", "missing"] }), async (script) => {
				const h = await harness();
				h.setResponses(script.map((step) => step.message));
				await h.settle(h.session.prompt("go"));
				expect(harnessViolations(h)).toEqual([]);
				h.cleanup();
			}),
			{ numRuns: 15 },
		);
	});
});
