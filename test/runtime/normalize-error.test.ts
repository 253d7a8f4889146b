/**
 * `normalizeError` on values that carry SettleError's brand (`Symbol.for("settle.SettleError")`),
 * through the package's public exports: a real SettleError passes unchanged, one from another copy
 * too; a branded value without a string `code` or `message` becomes an INTERNAL SettleError that says
 * what was wrong, instead of passing on as one whose `code` and `message` are undefined.
 */
import { describe, expect, it } from "vitest";
import { errorMessage, normalizeError, SettleError } from "../../src/index.js";

const BRAND = Symbol.for("settle.SettleError");

describe("normalizeError and SettleError's brand", () => {
	it("passes a SettleError, and one branded by another copy, through unchanged", () => {
		const own = new SettleError("IO", "disk full");
		expect(normalizeError(own, "PROVIDER")).toBe(own);
		class OtherCopy extends Error {
			readonly code = "ABORTED";
		}
		Object.defineProperty(OtherCopy.prototype, BRAND, { value: true });
		const other = new OtherCopy("stopped by the plugin");
		expect(normalizeError(other)).toBe(other);
	});

	it("regression: a branded value without code or message came back as it was (code and message undefined); now it is an INTERNAL SettleError saying so", () => {
		const bare = { [BRAND]: true };
		expect(bare instanceof SettleError).toBe(true);
		const normalized = normalizeError(bare, "PROVIDER");
		expect(normalized).not.toBe(bare);
		expect(normalized).toBeInstanceOf(Error);
		expect(normalized.code).toBe("INTERNAL");
		expect(normalized.cause).toBe(bare);
		expect(normalized.message).toBe(
			"A value marked as a SettleError has no code or message (code: undefined, message: undefined). Whatever threw it copied the settle.SettleError brand without making a SettleError: throw new SettleError(code, message) instead.",
		);
		expect(errorMessage(normalized)).toBe(normalized.message);
	});

	it("regression: a SettleError prototype object with no code (Object.create) passed through; now only its missing code is named", () => {
		const hollow = Object.create(SettleError.prototype) as SettleError;
		const normalized = normalizeError(hollow);
		expect(normalized.code).toBe("INTERNAL");
		expect(normalized.message).toMatch(/^A value marked as a SettleError has no code \(code: undefined, message: ""\)/);
		expect(normalized.cause).toBe(hollow);
	});
});
