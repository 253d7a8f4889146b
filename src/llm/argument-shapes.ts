/**
 * Two shapes models give a tool's arguments that the schema's own coercion misreads, put back as
 * the schema means them before validation: `null` for an optional argument that takes no null
 * (models that fill every declared argument, mastra#17655) and an array or object sent as JSON
 * text (oh-my-pi#3241). Internal to `validateToolArguments`.
 */
import type { JsonSchema } from "./types.js";

type JsonType = "null" | "string" | "array" | "object";

const MAX_DEPTH = 32;

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

function jsonTypeOf(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "array";
	return typeof value;
}

/** Whether `schema` may take a value of JSON type `type`; true when it does not say (keeps the value). */
function accepts(schema: unknown, type: JsonType, depth = 0): boolean {
	if (!isObject(schema) || depth > MAX_DEPTH) return true;
	if (type === "null" && schema.nullable === true) return true;
	const declared = schema.type;
	if (typeof declared === "string") return declared === type;
	if (Array.isArray(declared)) return declared.includes(type);
	if (Array.isArray(schema.enum)) return schema.enum.some((value) => jsonTypeOf(value) === type);
	if ("const" in schema) return jsonTypeOf(schema.const) === type;
	const members = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
	if (members) return members.some((member) => accepts(member, type, depth + 1));
	if (Array.isArray(schema.allOf)) return schema.allOf.every((member) => accepts(member, type, depth + 1));
	return true;
}

/** The array or object `text` encodes, when `schema` takes that and no string; else undefined. */
function decoded(text: string, schema: unknown): unknown {
	if (accepts(schema, "string")) return undefined;
	const trimmed = text.trim();
	const wanted = trimmed.startsWith("[") ? "array" : trimmed.startsWith("{") ? "object" : undefined;
	if (!wanted || !accepts(schema, wanted)) return undefined;
	try {
		const value: unknown = JSON.parse(trimmed);
		return jsonTypeOf(value) === wanted ? value : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Changes `args` (the validator's copy) in place, walking nested objects: an optional argument
 * given as `null` whose schema takes no null is left out, as if not sent (coerced, it became 0,
 * "" or false: a `read` with `limit: null` asked for 0 lines, an enum failed); a string holding
 * JSON for an argument whose schema takes an array or object and no string is parsed. Anything
 * else is left to the validator.
 */
export function normalizeArgumentShapes(args: unknown, schema: JsonSchema, depth = 0): void {
	const properties = schema.properties;
	if (!isObject(args) || !isObject(properties) || depth > MAX_DEPTH) return;
	const required = Array.isArray(schema.required) ? schema.required : [];
	for (const key of Object.keys(args)) {
		const propertySchema = Object.hasOwn(properties, key) ? properties[key] : undefined;
		if (!isObject(propertySchema)) continue;
		const value = args[key];
		if (value === null) {
			if (!required.includes(key) && !accepts(propertySchema, "null")) delete args[key];
			continue;
		}
		if (typeof value === "string") {
			const parsed = decoded(value, propertySchema);
			if (parsed === undefined) continue;
			args[key] = parsed;
		}
		normalizeArgumentShapes(args[key], propertySchema, depth + 1);
	}
}
