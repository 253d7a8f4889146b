/**
 * `scheduledFauxResponses`: model replies become fast-check scheduler tasks, so a property orders
 * them among the test's own actions, and a seed replays the same run (seeded faux chunking).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "../../src/llm/faux.js";
import { type FauxScriptStep, fauxScriptArbitrary, scheduledFauxResponses } from "../../src/testing/arbitraries.js";
import { createHarness, getMessageText, getUserTexts } from "../../src/testing/harness.js";
import { harnessViolations } from "../../src/testing/harness-invariants.js";

const echo = {
	name: "echo",
	label: "Echo",
	description: "echo",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text" as const, text: "ok" }], details: {} }),
};

describe("scheduledFauxResponses", () => {
	it("a reply streams only when the scheduler releases it, labelled with its step", async () => {
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), async (s) => {
				const h = await createHarness({ simulatedClock: true });
				try {
					h.setResponses(scheduledFauxResponses(s, [{ kind: "text", message: fauxAssistantMessage("hi") }]));
					const done = h.settle(h.session.prompt("go"));
					await h.nextEvent("message_end"); // the user message; the request is out
					for (let i = 0; i < 20; i++) await Promise.resolve();
					expect(h.faux.callCount).toBe(1);
					expect(h.eventsOfType("message_end").map((event) => event.message.role)).not.toContain("assistant");
					expect(s.count()).toBe(1);
					await s.waitFor(done);
					expect(s.report().map((task) => task.label)).toEqual(['reply 0 text("hi")']);
					expect(harnessViolations(h)).toEqual([]);
				} finally {
					h.cleanup();
				}
			}),
			{ numRuns: 1 },
		);
	});

	it("a steer lands before or after a reply as the scheduler decides; each run is clean", async () => {
		const script: FauxScriptStep[] = [
			{
				kind: "toolCalls",
				message: fauxAssistantMessage([fauxToolCall("echo", {}, { id: "c1" })], { stopReason: "toolUse" }),
			},
			{ kind: "text", message: fauxAssistantMessage("done") },
			{ kind: "text", message: fauxAssistantMessage("after steer") },
		];
		const positions = new Set<number>();
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), async (s) => {
				const h = await createHarness({ simulatedClock: true, customTools: [echo] });
				try {
					h.setResponses(scheduledFauxResponses(s, script));
					const done = h.settle(h.session.prompt("go"));
					void s.schedule(Promise.resolve(), "steer").then(() => h.session.steer("use tabs"));
					await s.waitFor(done);
					await s.waitAll();
					await h.settle(h.session.waitForIdle());
					const texts = getUserTexts(h);
					// the steer is delivered once, or still queued
					const listed = h.session.getSteeringMessages().filter((text) => text === "use tabs").length;
					expect(texts.filter((text) => text === "use tabs").length + listed).toBe(1);
					positions.add(h.session.messages.findIndex((m) => m.role === "user" && getMessageText(m) === "use tabs"));
					expect(harnessViolations(h)).toEqual([]);
				} finally {
					h.cleanup();
				}
			}),
			{ numRuns: 20, seed: 11 },
		);
		expect(positions.size).toBeGreaterThan(1);
	});

	it("the same seed replays the same run, chunk for chunk", async () => {
		const runOnce = async () => {
			const runs: string[] = [];
			await fc.assert(
				fc.asyncProperty(
					fauxScriptArbitrary({ toolNames: ["echo"], kinds: ["text", "thinking", "toolCalls", "retryableError"] }),
					fc.scheduler(),
					async (script, s) => {
						const h = await createHarness({ simulatedClock: true, customTools: [echo] });
						try {
							// a long first reply: ~30 chunks whose sizes must repeat too
							const long = fauxAssistantMessage([fauxText("x".repeat(400)), fauxToolCall("echo", {}, { id: "c0" })], {
								stopReason: "toolUse",
							});
							h.setResponses(scheduledFauxResponses(s, [{ kind: "toolCalls", message: long }, ...script]));
							const done = h.settle(h.session.prompt("go"));
							void s.schedule(Promise.resolve(), "steer").then(() => h.session.steer("use tabs"));
							await s.waitFor(done);
							runs.push(h.events.map((event) => event.type).join(" "));
						} finally {
							h.cleanup();
						}
					},
				),
				{ numRuns: 10, seed: 5 },
			);
			return runs;
		};
		const first = await runOnce();
		expect(first.join("\n")).toContain("message_update");
		expect(await runOnce()).toEqual(first);
	});
});
