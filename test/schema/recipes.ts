/**
 * Random schemas as trees of TypeBox builder calls (`Type.Object`, `Type.Union`, …, with random
 * options), replayable against TypeBox itself or against Settle's builders in src/schema/typebox.ts.
 */
import type { TSchema, Type as TypeBox } from "@sinclair/typebox";
import fc from "fast-check";

/** A schema as a tree of builder calls, replayable against either implementation. */
export type Recipe =
	| { kind: "String" | "Number" | "Integer" | "Boolean"; options?: Record<string, unknown> }
	| { kind: "Literal"; value: string | number | boolean; options?: Record<string, unknown> }
	| { kind: "Optional"; of: Recipe }
	| { kind: "Array"; items: Recipe; options?: Record<string, unknown> }
	| { kind: "Union"; members: Recipe[]; options?: Record<string, unknown> }
	| { kind: "Object"; properties: Record<string, Recipe>; options?: Record<string, unknown> };

export type Builders = Pick<
	typeof TypeBox,
	"String" | "Number" | "Integer" | "Boolean" | "Literal" | "Optional" | "Array" | "Union" | "Object"
>;

export function build(T: Builders, recipe: Recipe): TSchema {
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
export function shape(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(shape);
	if (typeof value !== "object" || value === null) return value;
	return Reflect.ownKeys(value).map((key) => [String(key), shape((value as Record<string | symbol, unknown>)[key])]);
}

const options = fc.option(
	fc.record(
		{
			description: fc.string({ maxLength: 8 }),
			title: fc.constantFrom("a", "b"),
			minimum: fc.integer({ min: -5, max: 5 }),
			maximum: fc.integer({ min: -5, max: 5 }),
			exclusiveMinimum: fc.double({ min: -3, max: 3, noNaN: true }),
			exclusiveMaximum: fc.integer({ min: -3, max: 3 }),
			multipleOf: fc.constantFrom(1, 2, 0.5),
			minLength: fc.nat(3),
			maxLength: fc.nat(3),
			minItems: fc.nat(2),
			maxItems: fc.nat(2),
			minProperties: fc.nat(2),
			maxProperties: fc.nat(3),
			additionalProperties: fc.boolean(),
		},
		{ requiredKeys: [] },
	),
	{ nil: undefined },
);

export const recipe: fc.Arbitrary<Recipe> = fc.letrec<{ node: Recipe }>((tie) => ({
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
