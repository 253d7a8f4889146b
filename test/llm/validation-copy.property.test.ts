import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Tool, ToolCall } from "../../src/llm/types.js";
import { validateToolArguments } from "../../src/llm/validation.js";

const noSchema = { name: "t", description: "test", parameters: undefined } as unknown as Tool;
const call = (args: unknown): ToolCall => ({
	type: "toolCall",
	id: "1",
	name: "t",
	arguments: args as ToolCall["arguments"],
});

/** Every object reachable from `value` (to check the copy shares none of them). */
function objectsOf(value: unknown, seen = new Set<object>()): Set<object> {
	if (typeof value !== "object" || value === null || seen.has(value)) return seen;
	seen.add(value);
	if (value instanceof Map) for (const [k, v] of value) objectsOf(v, objectsOf(k, seen));
	else if (value instanceof Set) for (const v of value) objectsOf(v, seen);
	else for (const key of Object.keys(value)) objectsOf((value as Record<string, unknown>)[key], seen);
	return seen;
}

describe("the arguments copy of validateToolArguments", () => {
	it("equals structuredClone's copy and shares no object with the input, for JSON and for richer values", () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.jsonValue(),
					fc.anything({
						withDate: true,
						withMap: true,
						withSet: true,
						withNullPrototype: true,
						withSparseArray: true,
						withTypedArray: true,
						withBigInt: true,
						withBoxedValues: true,
					}),
				),
				(value) => {
					const copy = validateToolArguments(noSchema, call(value));
					expect(copy).toStrictEqual(structuredClone(value));
					const original = objectsOf(value);
					for (const object of objectsOf(copy)) expect(original.has(object)).toBe(false);
				},
			),
			{ numRuns: 300 },
		);
	});

	it("copies a `__proto__` key as data and keeps cycles, as structuredClone does", () => {
		const withProtoKey = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
		const copy = validateToolArguments(noSchema, call(withProtoKey));
		expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		const cyclic: Record<string, unknown> = { a: 1 };
		cyclic.self = cyclic;
		const cyclicCopy = validateToolArguments(noSchema, call(cyclic));
		expect(cyclicCopy.self).toBe(cyclicCopy);
		expect(cyclicCopy).not.toBe(cyclic);
	});

	it("rejects functions like structuredClone does", () => {
		expect(() => validateToolArguments(noSchema, call({ f: () => 1 }))).toThrow();
	});
});
