/**
 * `checkValue` (src/schema/check.ts) answers exactly as TypeBox's `Value.Check`: over every node of
 * the settings schema and over random schemas, for random JSON-like values (and NaN, Infinity,
 * -0, undefined), so checking a settings file without loading TypeBox changes no verdict.
 */
import { type TSchema, Type as TypeBox } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkValue } from "../../src/schema/check.js";
import { SettingsSchema } from "../../src/settings/schema.js";
import { build, recipe } from "./recipes.js";

/** Every schema node under `schema` (properties, items, union members), `schema` first. */
function nodes(schema: TSchema): TSchema[] {
	const out: TSchema[] = [schema];
	const children: TSchema[] = [
		...Object.values((schema.properties ?? {}) as Record<string, TSchema>),
		...((schema.anyOf ?? []) as TSchema[]),
		...(schema.items ? [schema.items as TSchema] : []),
	];
	for (const child of children) out.push(...nodes(child));
	return out;
}

const settingsNodes = nodes(SettingsSchema);
const keyPool = [
	...new Set([
		...settingsNodes.flatMap((node) => Object.keys((node.properties ?? {}) as object)),
		"path",
		"limit",
		"edits",
		"x",
		"0",
	]),
];
const literalPool = [
	...new Set(settingsNodes.filter((node) => node.const !== undefined).map((node) => node.const as string)),
];

const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ depthSize: "small", withCrossShrink: true },
		fc.constantFrom(...literalPool, "", "x"),
		fc.string({ maxLength: 4 }),
		fc.integer({ min: -3, max: 70_000 }),
		fc.constantFrom(0, -0, -1, 0.5, 1.5, 2, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
		fc.double(),
		fc.boolean(),
		fc.constantFrom(null, undefined),
		fc.array(tie("value"), { maxLength: 3 }),
		fc.dictionary(fc.constantFrom(...keyPool), tie("value"), { maxKeys: 4 }),
	),
})).value;

/**
 * Values shaped by `schema` (its keys, literals, item and member shapes), each part replaced by an
 * arbitrary value now and then, so that near-misses — one bad nested field, an optional key holding
 * `undefined`, an extra key — are common.
 */
function candidate(schema: TSchema, depth = 0): fc.Arbitrary<unknown> {
	if (depth > 3) return value;
	let shaped: fc.Arbitrary<unknown>;
	if (Array.isArray(schema.anyOf)) {
		shaped = fc.oneof(...(schema.anyOf as TSchema[]).map((member) => candidate(member, depth + 1)));
	} else if (schema.const !== undefined) {
		shaped = fc.constant(schema.const);
	} else if (schema.type === "array") {
		shaped = fc.array(candidate(schema.items as TSchema, depth + 1), { maxLength: 3 });
	} else if (schema.type === "object") {
		const properties = (schema.properties ?? {}) as Record<string, TSchema>;
		const fields = Object.fromEntries(
			Object.entries(properties).map(([key, property]) => [
				key,
				fc.oneof(candidate(property, depth + 1), fc.constant(undefined)),
			]),
		);
		shaped = fc
			.tuple(
				fc.record(fields, { requiredKeys: [] }),
				fc.dictionary(fc.constantFrom("extra", "0"), value, { maxKeys: 1 }),
			)
			.map(([known, extra]) => ({ ...known, ...extra }));
	} else {
		shaped = value;
	}
	return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: value });
}

describe("checkValue", () => {
	it("agrees with TypeBox's Value.Check on every node of the settings schema", () => {
		fc.assert(
			fc.property(
				fc.constantFrom(...settingsNodes).chain((schema) => fc.tuple(fc.constant(schema), candidate(schema))),
				([schema, sample]) => {
					expect(checkValue(schema, sample)).toBe(Value.Check(schema, sample));
				},
			),
			{ numRuns: 2000 },
		);
	});

	it("agrees with TypeBox's Value.Check on random schemas", () => {
		fc.assert(
			fc.property(
				recipe.chain((r) => {
					const schema = build(TypeBox, r);
					return fc.tuple(fc.constant(schema), fc.array(candidate(schema), { minLength: 1, maxLength: 8 }));
				}),
				([schema, samples]) => {
					for (const sample of samples) expect(checkValue(schema, sample)).toBe(Value.Check(schema, sample));
				},
			),
			{ numRuns: 400 },
		);
	});

	it("hands schemas it does not cover to TypeBox", () => {
		const pattern = TypeBox.String({ pattern: "^a+$" });
		expect([checkValue(pattern, "aaa"), checkValue(pattern, "ab")]).toEqual([true, false]);
		const record = TypeBox.Record(TypeBox.String(), TypeBox.Integer());
		expect([checkValue(record, { a: 1 }), checkValue(record, { a: "1" })]).toEqual([true, false]);
		const nested = TypeBox.Object({ tags: TypeBox.Array(TypeBox.String(), { uniqueItems: true }) });
		expect([checkValue(nested, { tags: ["a", "b"] }), checkValue(nested, { tags: ["a", "a"] })]).toEqual([true, false]);
	});
});
