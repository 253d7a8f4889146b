/**
 * TypeBox 0.34's `Value.Check` (default policies: NaN/Infinity are not numbers, arrays are not
 * objects, optional properties may hold `undefined`) for the kinds src/schema/typebox.ts builds:
 * Object, Array, String, Number, Integer, Boolean, Literal, Union. Checking a settings file this
 * way does not load TypeBox's value module (~200 modules, ~60 ms). A schema using anything else
 * (other kinds, `$id`/`$ref`, string `pattern`/`format`, `uniqueItems`, `contains`, …) is handed to
 * TypeBox's own checker, loaded on first such use.
 */
import { createRequire } from "node:module";
import type { TSchema } from "@sinclair/typebox";

const Kind = Symbol.for("TypeBox.Kind");
const KINDS = new Set(["Object", "Array", "String", "Number", "Integer", "Boolean", "Literal", "Union"]);
/** Keywords this checker leaves to TypeBox. */
const DEFERRED_KEYWORDS = [
	"$id",
	"$ref",
	"pattern",
	"format",
	"uniqueItems",
	"contains",
	"minContains",
	"maxContains",
	"patternProperties",
	"unevaluatedProperties",
];

type Schema = Record<string | symbol, unknown>;

const supported = new WeakMap<object, boolean>();
let valueModule: typeof import("@sinclair/typebox/value") | undefined;

/**
 * Whether `value` matches `schema`, exactly as TypeBox's `Value.Check(schema, value)` answers.
 * Must not throw for JSON-like values.
 *
 * @example
 * ```ts
 * import { Type } from "@sinclair/typebox";
 *
 * checkValue(Type.Integer({ minimum: 0 }), 3); // true
 * checkValue(Type.Integer({ minimum: 0 }), 1.5); // false
 * ```
 */
export function checkValue(schema: TSchema, value: unknown): boolean {
	if (isSupported(schema as unknown as Schema)) return visit(schema as unknown as Schema, value);
	valueModule ??= createRequire(import.meta.url)("@sinclair/typebox/value") as typeof import("@sinclair/typebox/value");
	return valueModule.Value.Check(schema, value);
}

function isSupported(schema: Schema): boolean {
	if (typeof schema !== "object" || schema === null) return false;
	const known = supported.get(schema);
	if (known !== undefined) return known;
	supported.set(schema, true); // provisional, for self-referencing objects
	const result = computeSupported(schema);
	supported.set(schema, result);
	return result;
}

function computeSupported(schema: Schema): boolean {
	if (!KINDS.has(schema[Kind] as string)) return false;
	if (DEFERRED_KEYWORDS.some((keyword) => schema[keyword] !== undefined)) return false;
	switch (schema[Kind]) {
		case "Union":
			return Array.isArray(schema.anyOf) && (schema.anyOf as Schema[]).every(isSupported);
		case "Array":
			return isSupported(schema.items as Schema);
		case "Object": {
			const properties = schema.properties as Record<string, Schema> | undefined;
			if (typeof properties !== "object" || properties === null) return false;
			if (!Object.getOwnPropertyNames(properties).every((key) => isSupported(properties[key]!))) return false;
			const additional = schema.additionalProperties;
			return typeof additional !== "object" || isSupported(additional as Schema);
		}
		default:
			return true;
	}
}

const defined = (value: unknown) => value !== undefined;

function withinBounds(schema: Schema, value: number): boolean {
	if (defined(schema.exclusiveMaximum) && !(value < (schema.exclusiveMaximum as number))) return false;
	if (defined(schema.exclusiveMinimum) && !(value > (schema.exclusiveMinimum as number))) return false;
	if (defined(schema.maximum) && !(value <= (schema.maximum as number))) return false;
	if (defined(schema.minimum) && !(value >= (schema.minimum as number))) return false;
	if (defined(schema.multipleOf) && !(value % (schema.multipleOf as number) === 0)) return false;
	return true;
}

function visit(schema: Schema, value: unknown): boolean {
	switch (schema[Kind]) {
		case "Literal":
			return value === schema.const;
		case "Union":
			return (schema.anyOf as Schema[]).some((member) => visit(member, value));
		case "Boolean":
			return typeof value === "boolean";
		case "String":
			if (typeof value !== "string") return false;
			if (defined(schema.minLength) && !(value.length >= (schema.minLength as number))) return false;
			if (defined(schema.maxLength) && !(value.length <= (schema.maxLength as number))) return false;
			return true;
		case "Number":
			return Number.isFinite(value) && withinBounds(schema, value as number);
		case "Integer":
			return Number.isInteger(value) && withinBounds(schema, value as number);
		case "Array": {
			if (!Array.isArray(value)) return false;
			if (defined(schema.minItems) && !(value.length >= (schema.minItems as number))) return false;
			if (defined(schema.maxItems) && !(value.length <= (schema.maxItems as number))) return false;
			return value.every((element) => visit(schema.items as Schema, element));
		}
		case "Object":
			return visitObject(schema, value);
		default:
			return false;
	}
}

function visitObject(schema: Schema, value: unknown): boolean {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const record = value as Record<string, unknown>;
	if (defined(schema.minProperties) || defined(schema.maxProperties)) {
		const count = Object.getOwnPropertyNames(record).length;
		if (defined(schema.minProperties) && !(count >= (schema.minProperties as number))) return false;
		if (defined(schema.maxProperties) && !(count <= (schema.maxProperties as number))) return false;
	}
	const properties = schema.properties as Record<string, Schema>;
	const required = schema.required as string[] | undefined;
	const knownKeys = Object.getOwnPropertyNames(properties);
	for (const key of knownKeys) {
		const property = properties[key]!;
		if (required?.includes(key)) {
			if (!visit(property, record[key])) return false;
		} else if (record[key] !== undefined && !visit(property, record[key])) {
			return false;
		}
	}
	const additional = schema.additionalProperties;
	if (additional === false) {
		const valueKeys = Object.getOwnPropertyNames(record);
		// TypeBox's shortcut, kept so that answers match even for inherited property values.
		if (required && required.length === knownKeys.length && valueKeys.length === knownKeys.length) return true;
		return valueKeys.every((key) => knownKeys.includes(key));
	}
	if (typeof additional === "object" && additional !== null) {
		return Object.getOwnPropertyNames(record).every(
			(key) => knownKeys.includes(key) || visit(additional as Schema, record[key]),
		);
	}
	return true;
}
