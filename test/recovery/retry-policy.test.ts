import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import {
	backoffDelayMs,
	DEFAULT_RETRY_SETTINGS,
	planRetry,
	proportionalJitter,
	type RetrySettings,
} from "../../src/session/retry-policy.js";

const settings: RetrySettings = { ...DEFAULT_RETRY_SETTINGS };

describe("planRetry", () => {
	it("uses pi's defaults: 3 retries after 2s, 4s, 8s", () => {
		expect(DEFAULT_RETRY_SETTINGS).toEqual({
			enabled: true,
			maxRetries: 3,
			baseDelayMs: 2000,
			maxAgentDelayMs: 60_000,
		});
		expect([1, 2, 3].map((attempt) => planRetry(settings, attempt))).toEqual([
			{ kind: "retry", attempt: 1, delayMs: 2000, backoffDelayMs: 2000 },
			{ kind: "retry", attempt: 2, delayMs: 4000, backoffDelayMs: 4000 },
			{ kind: "retry", attempt: 3, delayMs: 8000, backoffDelayMs: 8000 },
		]);
	});

	it("gives up once the attempt exceeds maxRetries", () => {
		expect(planRetry(settings, 4)).toEqual({
			kind: "give_up",
			reason: "exhausted",
			attempt: 4,
			maxRetries: 3,
			maxAgentDelayMs: 60_000,
		});
		expect(planRetry({ ...settings, maxRetries: 0 }, 1)).toMatchObject({ kind: "give_up", reason: "exhausted" });
	});

	it("gives up immediately when disabled", () => {
		expect(planRetry({ ...settings, enabled: false }, 1)).toMatchObject({ kind: "give_up", reason: "disabled" });
	});

	it("caps the backoff at maxAgentDelayMs", () => {
		const many = { ...settings, maxRetries: 10 };
		expect(planRetry(many, 6)).toMatchObject({ kind: "retry", delayMs: 60_000 });
		expect(planRetry(many, 10)).toMatchObject({ kind: "retry", delayMs: 60_000 });
		expect(backoffDelayMs({ ...many, maxAgentDelayMs: 0 }, 10)).toBe(2000 * 2 ** 9);
	});

	it("waits at least as long as the provider asked", () => {
		expect(planRetry(settings, 1, { requestedDelayMs: 23_399 })).toEqual({
			kind: "retry",
			attempt: 1,
			delayMs: 23_399,
			backoffDelayMs: 2000,
			requestedDelayMs: 23_399,
		});
		expect(planRetry(settings, 3, { requestedDelayMs: 500 })).toMatchObject({ delayMs: 8000 });
		expect(planRetry(settings, 1, { requestedDelayMs: 60_000 })).toMatchObject({ kind: "retry", delayMs: 60_000 });
	});

	it("gives up with the error when the provider asks for more than the cap", () => {
		expect(planRetry(settings, 1, { requestedDelayMs: 3_600_000 })).toEqual({
			kind: "give_up",
			reason: "requested_delay_exceeds_cap",
			attempt: 1,
			maxRetries: 3,
			requestedDelayMs: 3_600_000,
			maxAgentDelayMs: 60_000,
		});
		// Without a cap any requested delay is honoured.
		expect(planRetry({ ...settings, maxAgentDelayMs: 0 }, 1, { requestedDelayMs: 3_600_000 })).toMatchObject({
			kind: "retry",
			delayMs: 3_600_000,
		});
	});

	it("regression: a floor from before maxAgentDelayMs was lowered passed the new cap; now the cap wins", () => {
		// The sequence waited 40 s, then the cap went down to 10 s (a settings reload mid-sequence).
		expect(planRetry({ ...settings, maxAgentDelayMs: 10_000 }, 2, { floorMs: 40_000 })).toMatchObject({
			kind: "retry",
			delayMs: 10_000,
		});
		expect(planRetry({ ...settings, maxAgentDelayMs: 0 }, 2, { floorMs: 40_000 })).toMatchObject({ delayMs: 40_000 });
	});

	it("applies injected jitter before the cap", () => {
		const up = proportionalJitter(0.1, () => 0.999_999);
		const down = proportionalJitter(0.1, () => 0);
		expect(planRetry(settings, 1, { jitter: down })).toMatchObject({ delayMs: 1800 });
		expect(planRetry(settings, 1, { jitter: up })).toMatchObject({ delayMs: 2200 });
		expect(planRetry({ ...settings, maxRetries: 10 }, 8, { jitter: up })).toMatchObject({ delayMs: 60_000 });
	});

	it.each([0, -1, 1.5, Number.NaN])("rejects attempt %s with a typed error", (attempt) => {
		expect(() => planRetry(settings, attempt)).toThrow(SettleError);
		try {
			planRetry(settings, attempt);
		} catch (error) {
			expect((error as SettleError).code).toBe("INVALID_ARGUMENT");
			expect((error as SettleError).message).toMatch(/integer >= 1/);
		}
	});
});
