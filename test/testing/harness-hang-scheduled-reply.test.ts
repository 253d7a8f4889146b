/**
 * testkit2 audit: a property that awaits `h.settle(h.session.prompt(…), { hangAfterMs })` with
 * `scheduledFauxResponses` but never lets the `fc.scheduler` run (no `s.waitFor`) hangs on the
 * model's reply. The stall error said "Tools still executing: none … A tool must return", which
 * points nowhere; it now says the model request waits for its reply and how to release it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createHarness, fauxAssistantMessage, scheduledFauxResponses } from "../../src/testing/index.js";

describe("h.settle hangAfterMs with a scheduled reply nobody releases (testkit2)", () => {
	it("names the model request still waiting for its reply and the scheduler", async () => {
		const errors: unknown[] = [];
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), async (s) => {
				const h = await createHarness({ simulatedClock: true });
				try {
					h.setResponses(scheduledFauxResponses(s, [{ kind: "text", message: fauxAssistantMessage("hi") }]));
					// the mistake: h.settle alone, not s.waitFor(h.settle(…))
					await h.settle(h.session.prompt("go"), { hangAfterMs: 200 }).catch((error: unknown) => errors.push(error));
					await s.waitAll();
				} finally {
					h.cleanup();
				}
			}),
			{ numRuns: 1, seed: 1 },
		);
		expect(errors).toHaveLength(1);
		const [error] = errors;
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "OPERATION_STALLED" });
		expect((error as Error).message).toContain("Model request 1 still waits for its reply");
		expect((error as Error).message).toContain("await s.waitFor(h.settle(…))");
	});

	it("does not blame the model when its reply came and a tool is stuck", async () => {
		const h = await createHarness({ simulatedClock: true });
		try {
			h.setResponses([fauxAssistantMessage("hi")]);
			await h.settle(h.session.prompt("go"), { hangAfterMs: 1000 });
			const stuck = new Promise<void>(() => {});
			const error = await h.settle(stuck, { hangAfterMs: 50 }).catch((reason: unknown) => reason);
			expect(error).toMatchObject({ code: "OPERATION_STALLED" });
			expect((error as Error).message).not.toContain("still waits for its reply");
		} finally {
			h.cleanup();
		}
	});
});
