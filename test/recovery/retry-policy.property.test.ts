import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planRetry, type RetrySettings } from "../../src/session/retry-policy.js";

const settingsArb: fc.Arbitrary<RetrySettings> = fc.record({
	enabled: fc.constant(true),
	maxRetries: fc.integer({ min: 0, max: 12 }),
	baseDelayMs: fc.integer({ min: 0, max: 120_000 }),
	maxAgentDelayMs: fc.integer({ min: 1, max: 600_000 }),
});
const requestedArb = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined });

describe("retry policy invariants (DESIGN §8.5)", () => {
	it("delays are non-decreasing in the attempt and never above the cap", () => {
		fc.assert(
			fc.property(settingsArb, requestedArb, (settings, requestedDelayMs) => {
				let previous = 0;
				for (let attempt = 1; attempt <= settings.maxRetries; attempt++) {
					const plan = planRetry(settings, attempt, { requestedDelayMs });
					if (plan.kind === "give_up") {
						// Only an over-cap request may stop a retry within the budget, and then on every attempt.
						expect(plan.reason).toBe("requested_delay_exceeds_cap");
						expect(requestedDelayMs).toBeGreaterThan(settings.maxAgentDelayMs);
						continue;
					}
					expect(plan.delayMs).toBeGreaterThanOrEqual(previous);
					expect(plan.delayMs).toBeLessThanOrEqual(settings.maxAgentDelayMs);
					expect(plan.delayMs).toBeGreaterThanOrEqual(requestedDelayMs ?? 0);
					previous = plan.delayMs;
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("attempts beyond maxRetries always give up", () => {
		fc.assert(
			fc.property(settingsArb, fc.integer({ min: 1, max: 50 }), requestedArb, (settings, extra, requestedDelayMs) => {
				const plan = planRetry(settings, settings.maxRetries + extra, { requestedDelayMs });
				expect(plan).toMatchObject({ kind: "give_up", reason: "exhausted" });
			}),
			{ numRuns: 300 },
		);
	});

	it("a disabled policy never retries", () => {
		fc.assert(
			fc.property(settingsArb, fc.integer({ min: 1, max: 50 }), (settings, attempt) => {
				expect(planRetry({ ...settings, enabled: false }, attempt)).toMatchObject({
					kind: "give_up",
					reason: "disabled",
				});
			}),
			{ numRuns: 100 },
		);
	});

	it("jitter never pushes a delay above the cap", () => {
		fc.assert(
			fc.property(
				settingsArb,
				fc.integer({ min: 1, max: 12 }),
				// Uniform in [0, 3] (an fc.double draw is almost always ~0 or 3).
				fc.integer({ min: 0, max: 3000 }).map((n) => n / 1000),
				(settings, attempt, factor) => {
					const plan = planRetry({ ...settings, maxRetries: 12 }, attempt, { jitter: (delay) => delay * factor });
					expect(plan.kind).toBe("retry");
					if (plan.kind === "retry") {
						expect(plan.delayMs).toBeLessThanOrEqual(settings.maxAgentDelayMs);
						expect(plan.delayMs).toBeGreaterThanOrEqual(0);
					}
				},
			),
			{ numRuns: 300 },
		);
	});
});
