import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { truncateHead, truncateTail } from "../../src/tools/truncate.js";

const byteLength = (s: string) => Buffer.byteLength(s, "utf-8");
const content = fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { maxLength: 40 }).map((ls) => ls.join("\n"));
const limits = fc.record({ maxLines: fc.integer({ min: 1, max: 30 }), maxBytes: fc.integer({ min: 1, max: 200 }) });

describe("truncation invariants", () => {
	it("head: output is a whole-line prefix within both limits, and untruncated output is the input", () => {
		fc.assert(
			fc.property(content, limits, (text, options) => {
				const result = truncateHead(text, options);
				expect(result.outputLines).toBeLessThanOrEqual(options.maxLines);
				expect(byteLength(result.content)).toBeLessThanOrEqual(options.maxBytes);
				expect(result.outputBytes).toBe(byteLength(result.content));
				if (!result.truncated) expect(result.content).toBe(text);
				else if (result.outputLines > 0) {
					const kept = text.split("\n").slice(0, result.outputLines).join("\n");
					expect(result.content).toBe(kept);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("tail: output is a suffix of the input within both limits", () => {
		fc.assert(
			fc.property(content, limits, (text, options) => {
				const result = truncateTail(text, options);
				expect(result.outputLines).toBeLessThanOrEqual(options.maxLines);
				expect(byteLength(result.content)).toBeLessThanOrEqual(options.maxBytes);
				expect(text.endsWith(result.content)).toBe(true);
				if (!result.truncated) expect(result.content).toBe(text);
				if (result.truncated && !result.lastLinePartial) {
					const kept = text.split("\n").slice(-result.outputLines).join("\n");
					expect(result.content).toBe(result.outputLines === 0 ? "" : kept);
				}
			}),
			{ numRuns: 300 },
		);
	});
});
