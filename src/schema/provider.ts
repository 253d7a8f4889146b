/**
 * Tool schemas as providers read them. Some providers refuse schemas that JSON Schema accepts:
 * OpenAI answers 400 "object schema missing properties" for a tool whose parameters are a bare
 * `{ type: "object" }`; Kimi/Moonshot refuses an `enum` without a `type` ("type is not defined"),
 * which is what TypeBox's `Type.Enum` builds; Gemini refuses a field it does not know, such as the
 * `~optional` TypeBox 1.3 left on a plain object. Each refusal fails every request of the session.
 * The gaps are filled with what the schema already implies, so every value it accepted is still
 * accepted, and the tool's own schema object is never changed.
 */

type Schema = Record<string | symbol, unknown>;

/** Keywords whose value is one subschema. */
const SUBSCHEMA = ["items", "additionalProperties", "not", "contains", "if", "then", "else"];
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];

/**
 * `parameters` as sent to a provider: a top-level object schema without `properties` gets
 * `properties: {}`, and an `enum` without `type` whose values are all strings, all integers, all
 * numbers or all booleans gets that type, and TypeBox's `~` markers are left out. Returns
 * `parameters` itself when nothing is missing.
 */
export function providerToolSchema<T>(parameters: T): T {
	if (!isSchema(parameters)) return parameters;
	// Once per schema object, not per request: the walk costs more than the rest of a turn's
	// orchestration (~17 µs for the four coding tools). A schema object edited in place after its
	// first request keeps what that request was sent: give the tool a new schema object instead.
	const cached = sent.get(parameters);
	if (cached !== undefined) return cached as T;
	let result = fill(parameters);
	if (result.type === "object" && result.properties === undefined) result = { ...result, properties: {} };
	sent.set(parameters, result);
	return result as T;
}

/** What {@link providerToolSchema} made of each schema object (itself when nothing was missing). */
const sent = new WeakMap<Schema, Schema>();

function isSchema(value: unknown): value is Schema {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `schema` with every enum below it typed; the same object when none needed it. */
function fill(schema: Schema): Schema {
	let copy: Schema | undefined;
	const set = (key: string, value: unknown) => {
		copy ??= { ...schema };
		copy[key] = value;
	};
	if (schema.type === undefined && Array.isArray(schema.enum)) {
		const type = enumType(schema.enum);
		if (type) set("type", type);
	}
	// TypeBox's own markers (`~optional` that 1.3 stamped on a plain object given to
	// `Type.Optional`): no JSON Schema keyword, and Gemini refuses the unknown field.
	for (const key of Object.keys(schema)) {
		if (!key.startsWith("~")) continue;
		copy ??= { ...schema };
		delete copy[key];
	}
	for (const key of SUBSCHEMA) {
		const value = schema[key];
		if (isSchema(value)) {
			const filled = fill(value);
			if (filled !== value) set(key, filled);
		}
	}
	for (const key of SUBSCHEMA_LISTS) {
		const value = schema[key];
		if (!Array.isArray(value)) continue;
		const filled = value.map((item) => (isSchema(item) ? fill(item) : item));
		if (filled.some((item, index) => item !== value[index])) set(key, filled);
	}
	for (const key of SUBSCHEMA_MAPS) {
		const value = schema[key];
		if (!isSchema(value)) continue;
		let map: Schema | undefined;
		for (const [name, item] of Object.entries(value)) {
			if (!isSchema(item)) continue;
			const filled = fill(item);
			if (filled === item) continue;
			map ??= { ...value };
			map[name] = filled;
		}
		if (map) set(key, map);
	}
	return copy ?? schema;
}

/** The one JSON type all `values` share, or undefined (mixed, null, objects, empty). */
function enumType(values: unknown[]): string | undefined {
	if (values.length === 0) return undefined;
	if (values.every((value) => typeof value === "string")) return "string";
	if (values.every((value) => typeof value === "boolean")) return "boolean";
	if (values.every((value) => Number.isInteger(value))) return "integer";
	if (values.every((value) => typeof value === "number" && Number.isFinite(value))) return "number";
	return undefined;
}
