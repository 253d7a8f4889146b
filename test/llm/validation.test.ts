import { validateToolArguments as piValidateToolArguments } from "@mariozechner/pi-ai";
import { Type as Type034 } from "@sinclair/typebox";
import { Type as Type1 } from "typebox";
import { describe, expect, it } from "vitest";
import type { Tool, ToolCall } from "../../src/llm/types.js";
import { rewrittenArgumentsProblem, validateToolArguments, validateToolCall } from "../../src/llm/validation.js";

function call(args: Record<string, unknown>, name = "t"): ToolCall {
	return { type: "toolCall", id: "1", name, arguments: args };
}

function tool(parameters: object, name = "t"): Tool {
	return { name, description: "test", parameters: parameters as Tool["parameters"] };
}

const plainSchema = {
	type: "object",
	properties: {
		path: { type: "string" },
		n: { type: "integer", minimum: 1 },
		nested: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
		flag: { type: "boolean" },
	},
	required: ["path"],
};
const typebox034 = Type034.Object({
	path: Type034.String(),
	n: Type034.Optional(Type034.Integer({ minimum: 1 })),
	nested: Type034.Optional(Type034.Object({ a: Type034.Number() })),
	flag: Type034.Optional(Type034.Boolean()),
});
const typebox1 = Type1.Object({
	path: Type1.String(),
	n: Type1.Optional(Type1.Integer({ minimum: 1 })),
	nested: Type1.Optional(Type1.Object({ a: Type1.Number() })),
	flag: Type1.Optional(Type1.Boolean()),
});

const schemas = { "plain JSON Schema": plainSchema, "TypeBox 0.34": typebox034, "typebox 1.x": typebox1 };

describe.each(Object.entries(schemas))("validateToolArguments with %s", (_label, schema) => {
	it("returns valid arguments as a copy", () => {
		const args = { path: "a.txt", n: 2 };
		const result = validateToolArguments(tool(schema), call(args));
		expect(result).toEqual(args);
		expect(result).not.toBe(args);
	});

	it("names a missing required field", () => {
		expect(() => validateToolArguments(tool(schema), call({}))).toThrow(
			'Validation failed for tool "t":\n  - path: must have required properties path\n\nReceived arguments:\n{}',
		);
	});

	it("names a nested failing field with a dotted path", () => {
		expect(() => validateToolArguments(tool(schema), call({ path: "x", nested: { a: "zz" } }))).toThrow(
			"  - nested.a: must be number",
		);
		expect(() => validateToolArguments(tool(schema), call({ path: "x", nested: {} }))).toThrow(
			"  - nested.a: must have required properties a",
		);
	});

	it("reports range violations", () => {
		expect(() => validateToolArguments(tool(schema), call({ path: "x", n: 0 }))).toThrow("  - n: must be >= 1");
	});

	it("coerces primitives that convert cleanly and leaves the tool call untouched", () => {
		const args = { path: 3, n: "5", flag: "true" };
		const result = validateToolArguments(tool(schema), call(args));
		expect(result).toEqual({ path: "3", n: 5, flag: true });
		expect(args).toEqual({ path: 3, n: "5", flag: "true" });
	});

	it("rejects values that don't convert", () => {
		expect(() => validateToolArguments(tool(schema), call({ path: "x", n: "abc" }))).toThrow("  - n: must be integer");
	});
});

describe("pi-ai compatibility", () => {
	const cases: Record<string, unknown>[] = [
		{},
		{ path: 3 },
		{ path: "x", n: "5" },
		{ path: "x", n: 0 },
		{ path: "x", nested: {} },
		{ path: "x", nested: { a: "zz" } },
		{ path: null },
		{ path: "x", extra: 1 },
		{ path: true, n: "abc" },
	];
	it.each(cases)("matches pi-ai's result and error text for plain JSON Schema: %j", (args) => {
		const outcome = (validate: typeof validateToolArguments) => {
			try {
				return { ok: validate(tool(plainSchema), call(args)) };
			} catch (error) {
				return { error: (error as Error).message };
			}
		};
		expect(outcome(validateToolArguments)).toEqual(
			outcome(piValidateToolArguments as unknown as typeof validateToolArguments),
		);
	});
});

describe("validateToolArguments edge cases", () => {
	it("lists every failing field", () => {
		const schema = {
			type: "object",
			properties: { a: { type: "string" }, b: { type: "number" } },
			required: ["a", "b"],
		};
		let message = "";
		try {
			validateToolArguments(tool(schema), call({}));
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toContain("  - a: must have required properties a");
		expect(message).toContain("  - b: must have required properties b");
	});

	it("uses pi's wording for enums, unions and additional properties (each one named, which pi's is not)", () => {
		const schema = {
			type: "object",
			properties: { mode: { enum: ["a", "b"] }, id: { type: ["string", "number"] } },
			additionalProperties: false,
		};
		expect(() => validateToolArguments(tool(schema), call({ mode: "c" }))).toThrow(
			"  - mode: must be equal to one of the allowed values",
		);
		expect(() => validateToolArguments(tool(schema), call({ extra: 1 }))).toThrow(
			"  - root: must not have additional properties (extra)",
		);
		expect(() => validateToolArguments(tool(schema), call({ id: {} }))).toThrow(
			"  - id: must be either string or number",
		);
	});

	it("compiles schemas with the same $id independently", () => {
		const a = { $id: "same", type: "object", properties: { x: { type: "string" } }, required: ["x"] };
		const b = { $id: "same", type: "object", properties: { y: { type: "string" } }, required: ["y"] };
		expect(validateToolArguments(tool(a), call({ x: "1" }))).toEqual({ x: "1" });
		expect(validateToolArguments(tool(b), call({ y: "1" }))).toEqual({ y: "1" });
	});

	it("reports an invalid schema as a typed error naming the tool", () => {
		expect(() => validateToolArguments(tool({ type: "no-such-type" }, "broken"), call({}, "broken"))).toThrow(
			'Tool "broken" has an invalid parameters schema',
		);
	});

	it("validateToolCall finds the tool by name", () => {
		expect(validateToolCall([tool(plainSchema, "read")], call({ path: "a" }, "read"))).toEqual({ path: "a" });
		expect(() => validateToolCall([tool(plainSchema, "read")], call({}, "write"))).toThrow('Tool "write" not found');
	});
});

describe("argument shapes models send (mastra#17655, oh-my-pi#3241)", () => {
	const shapes = Type1.Object({
		path: Type1.String(),
		mode: Type1.Optional(Type1.Union([Type1.Literal("fast"), Type1.Literal("deep")])),
		count: Type1.Optional(Type1.Integer()),
		nested: Type1.Optional(Type1.Object({ a: Type1.Number(), b: Type1.Optional(Type1.Number()) })),
		tags: Type1.Optional(Type1.Array(Type1.String())),
	});

	it("leaves out an optional null argument at any depth (a TypeBox union of literals, an integer), keeps a required one's coercion", () => {
		const given = { path: "x", mode: null, count: null, nested: { a: 1, b: null } };
		expect(validateToolArguments(tool(shapes), call(given))).toEqual({ path: "x", nested: { a: 1 } });
		// The call's own arguments are not changed.
		expect(given).toEqual({ path: "x", mode: null, count: null, nested: { a: 1, b: null } });
		expect(validateToolArguments(tool(shapes), call({ path: null }))).toEqual({ path: "" });
	});

	it("parses an array or object sent as JSON text, inside too; text that is no JSON, or of the other kind, is refused as before", () => {
		expect(validateToolArguments(tool(shapes), call({ path: "x", tags: '["a","b"]', nested: '{"a":"2"}' }))).toEqual({
			path: "x",
			tags: ["a", "b"],
			nested: { a: 2 },
		});
		expect(() => validateToolArguments(tool(shapes), call({ path: "x", tags: "[a, b" }))).toThrow(
			"  - tags: must be array",
		);
		expect(() => validateToolArguments(tool(shapes), call({ path: "x", tags: '{"a":1}' }))).toThrow(
			"  - tags: must be array",
		);
	});

	it("leaves JSON text alone where the schema takes a string too (a string-or-array type, an unconstrained argument)", () => {
		const loose = { type: "object", properties: { either: { type: ["array", "string"] }, anything: {} } };
		const given = { either: '["a"]', anything: '{"b":1}' };
		expect(validateToolArguments(tool(loose), call(given))).toEqual(given);
	});

	it("a tool_call handler that sets an optional argument to null: the tool gets it left out", () => {
		const input: Record<string, unknown> = { path: "x", count: null };
		expect(rewrittenArgumentsProblem(tool(shapes), call({ path: "x" }), input)).toBeUndefined();
		expect(input).toEqual({ path: "x" });
	});
});
