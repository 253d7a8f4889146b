/**
 * Counterexamples read as scripts: fast-check prints a generated step in one line, without usage
 * blocks or timestamps, and the printing is invisible to equality and spreads.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fauxScriptArbitrary, fauxStepArbitrary } from "../../src/testing/arbitraries.js";

describe("fauxScriptArbitrary counterexamples", () => {
	it("a failing property reports its script in one line per reply", () => {
		const details = fc.check(
			fc.property(
				fauxScriptArbitrary({
					toolNames: ["write"],
					toolArguments: fc.constant({ path: "danger.txt" }),
					kinds: ["toolCalls", "retryableError"],
				}),
				(script) => !script.some((step) => step.kind === "toolCalls"),
			),
			{ seed: 7 },
		);
		const report = fc.defaultReportMessage(details) ?? "";
		expect(report).toContain('Counterexample: [[toolCalls(write {"path":"danger.txt"})]]');
		expect(report).not.toContain("usage");
		expect(report).not.toContain("timestamp");
	});

	it("each kind prints what it is", () => {
		const print = (kind: Parameters<typeof fauxStepArbitrary>[0]) =>
			fc.stringify(fc.sample(fauxStepArbitrary(kind), { numRuns: 1, seed: 3 })[0]);
		expect(print({ kinds: ["retryableError"] })).toMatch(/^retryableError\("[^"]+"\)$/);
		expect(print({ kinds: ["overflowError"] })).toMatch(/^overflowError\("[^"]+"\)$/);
		expect(print({ kinds: ["text"] })).toMatch(/^text\(".*"\)$/);
		expect(print({ kinds: ["thinking"] })).toMatch(/^thinking\(thinking ".*", ".*"\)$/);
		expect(print({ kinds: ["length"] })).toMatch(/^length\(".*"\)$/);
	});

	it("the printer is invisible to equality and spreads", () => {
		const [script] = fc.sample(fauxScriptArbitrary({ kinds: ["text"], minLength: 1, maxLength: 1 }), {
			numRuns: 1,
			seed: 1,
		});
		const step = script![0]!;
		expect(step).toEqual({ kind: "text", message: step.message });
		expect(Object.keys({ ...step })).toEqual(["kind", "message"]);
	});
});
