/**
 * Settle's internal schema builders (src/schema/typebox.ts) must produce exactly what TypeBox 0.34's
 * `Type.*` produces: same keys in the same order, same symbol markers, same values. Then every
 * consumer of the built-in tool and settings schemas (TypeBox's Value and compiler, ajv, users
 * reading `tool.parameters`) sees no difference from the schemas built with TypeBox itself.
 */
import { type TSchema, Type as TypeBox } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Type } from "../../src/schema/typebox.js";
import { SettingsSchema } from "../../src/settings/schema.js";
import { checkSettingValue } from "../../src/settings/validate.js";
import { createAllToolDefinitions } from "../../src/tools/index.js";

/** A schema as a tree of builder calls, replayable against either implementation. */
type Recipe =
	| { kind: "String" | "Number" | "Integer" | "Boolean"; options?: Record<string, unknown> }
	| { kind: "Literal"; value: string | number | boolean; options?: Record<string, unknown> }
	| { kind: "Optional"; of: Recipe }
	| { kind: "Array"; items: Recipe; options?: Record<string, unknown> }
	| { kind: "Union"; members: Recipe[]; options?: Record<string, unknown> }
	| { kind: "Object"; properties: Record<string, Recipe>; options?: Record<string, unknown> };

type Builders = Pick<
	typeof TypeBox,
	"String" | "Number" | "Integer" | "Boolean" | "Literal" | "Optional" | "Array" | "Union" | "Object"
>;

function build(T: Builders, recipe: Recipe): TSchema {
	switch (recipe.kind) {
		case "String":
		case "Number":
		case "Integer":
		case "Boolean":
			return T[recipe.kind](recipe.options);
		case "Literal":
			return T.Literal(recipe.value, recipe.options);
		case "Optional":
			return T.Optional(build(T, recipe.of));
		case "Array":
			return T.Array(build(T, recipe.items), recipe.options);
		case "Union":
			return T.Union(
				recipe.members.map((member) => build(T, member)),
				recipe.options,
			);
		case "Object": {
			const properties: Record<string, TSchema> = {};
			for (const [key, value] of Object.entries(recipe.properties)) properties[key] = build(T, value);
			return T.Object(properties, recipe.options);
		}
	}
}

/** Every own key (strings and symbols, in order) with its value, recursively: key order counts. */
function shape(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(shape);
	if (typeof value !== "object" || value === null) return value;
	return Reflect.ownKeys(value).map((key) => [String(key), shape((value as Record<string | symbol, unknown>)[key])]);
}

const options = fc.option(
	fc.record(
		{
			description: fc.string({ maxLength: 8 }),
			minimum: fc.integer({ min: -5, max: 5 }),
			additionalProperties: fc.boolean(),
			title: fc.constantFrom("a", "b"),
		},
		{ requiredKeys: [] },
	),
	{ nil: undefined },
);

const recipe: fc.Arbitrary<Recipe> = fc.letrec<{ node: Recipe }>((tie) => ({
	node: fc.oneof(
		{ depthSize: "small", withCrossShrink: true },
		fc.record({ kind: fc.constantFrom("String", "Number", "Integer", "Boolean"), options }),
		fc.record({
			kind: fc.constant("Literal"),
			value: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean()),
			options,
		}),
		fc.record({ kind: fc.constant("Optional"), of: tie("node") }),
		fc.record({ kind: fc.constant("Array"), items: tie("node"), options }),
		fc.record({ kind: fc.constant("Union"), members: fc.array(tie("node"), { minLength: 2, maxLength: 3 }), options }),
		fc.record({
			kind: fc.constant("Object"),
			properties: fc.dictionary(fc.constantFrom("path", "limit", "edits", "x", "0"), tie("node"), { maxKeys: 4 }),
			options,
		}),
	) as fc.Arbitrary<Recipe>,
})).node;

describe("schema builders", () => {
	it("build the same objects as TypeBox 0.34 (keys, key order, symbols, values)", () => {
		fc.assert(
			fc.property(recipe, (r) => {
				expect(shape(build(Type as unknown as Builders, r))).toEqual(shape(build(TypeBox, r)));
			}),
			{ numRuns: 300 },
		);
	});

	it("TypeBox's Value checks the built-in tool schemas like its own", () => {
		const tools = createAllToolDefinitions("/tmp");
		expect(Value.Check(tools.read.parameters as TSchema, { path: "a.txt", limit: 3 })).toBe(true);
		expect(Value.Check(tools.read.parameters as TSchema, { limit: 3 })).toBe(false);
		expect(Value.Check(tools.edit.parameters as TSchema, { path: "a", edits: [{ oldText: "x", newText: "y" }] })).toBe(
			true,
		);
		expect(Value.Check(tools.edit.parameters as TSchema, { path: "a", edits: [{ oldText: "x" }] })).toBe(false);
		expect(Value.Check(SettingsSchema, { retry: { maxRetries: 2 }, defaultThinkingLevel: "high" })).toBe(true);
		expect(Value.Check(SettingsSchema, { retry: { maxRetries: -1 } })).toBe(false);
		expect(checkSettingValue("retry.maxRetries", 1.5)).toEqual({
			key: "retry.maxRetries",
			expected: "an integer >= 0",
			received: "1.5",
		});
	});
});
