/**
 * Validation of a parsed settings object against {@link SettingsSchema}, key by key: a bad key is
 * dropped (with a message naming it and what is expected) and every other key still applies.
 * Nested objects are checked per nested key, so a bad `compaction.reserveTokens` does not cost
 * `compaction.enabled`. Unknown keys are kept untouched.
 */
import type { TSchema } from "@sinclair/typebox";
import { checkValue } from "../schema/check.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import { type Settings, SettingsSchema } from "./schema.js";

/** One key that failed validation. */
export interface InvalidSetting {
	/** Dotted key, e.g. `retry.maxRetries`. */
	key: string;
	expected: string;
	received: string;
}

/**
 * Keeps the valid keys of `raw`; reports the others. `unknown` lists the keys no schema names
 * (dotted; kept, as an extension may read its own). Must not throw.
 */
export function sanitizeSettings(raw: Record<string, unknown>): {
	settings: Settings;
	invalid: InvalidSetting[];
	unknown: string[];
} {
	const invalid: InvalidSetting[] = [];
	const unknown: string[] = [];
	const settings = sanitizeObject(SettingsSchema, raw, "", invalid, unknown) as Settings;
	return { settings, invalid, unknown };
}

/**
 * The known key an unknown dotted `key` was probably meant as: the same name one level off
 * (`retry.timeoutMs` for `retry.provider.timeoutMs`), else a sibling differing in case or by at
 * most two letters (`compaction.enable`, `defaultModle`); undefined when none is close. Must not throw.
 *
 * @example
 * ```ts
 * suggestSettingKey("compaction.enable"); // "compaction.enabled"
 * ```
 */
export function suggestSettingKey(key: string): string | undefined {
	const path = key.split(".");
	const name = path.at(-1)!;
	const known = knownKeys(SettingsSchema, "");
	const parent = path.slice(0, -1).join(".");
	const moved = known.filter(
		(candidate) => candidate.split(".").at(-1) === name && (parent === "" || candidate.startsWith(`${parent}.`)),
	);
	if (moved.length === 1) return moved[0];
	const siblings = known.filter((candidate) => candidate.split(".").slice(0, -1).join(".") === parent);
	const close = (candidate: string) => {
		const other = candidate.split(".").at(-1)!;
		return other.toLowerCase() === name.toLowerCase() || (name.length >= 4 && editDistance(other, name) <= 2);
	};
	return siblings.find(close);
}

function knownKeys(schema: TSchema, prefix: string): string[] {
	const properties = (schema.properties ?? {}) as Record<string, TSchema>;
	return Object.entries(properties).flatMap(([key, child]) => {
		const dotted = prefix ? `${prefix}.${key}` : key;
		return [dotted, ...(isObjectSchema(child) ? knownKeys(child, dotted) : [])];
	});
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
		previous = current;
	}
	return previous[b.length]!;
}

/** Checks one value for a dotted key; returns the problem or undefined. Unknown keys pass. */
export function checkSettingValue(key: string, value: unknown): InvalidSetting | undefined {
	const schema = schemaAt(key.split("."));
	if (!schema || value === undefined) return undefined;
	return checkValue(schema, value)
		? undefined
		: { key, expected: describeExpected(schema), received: describeValue(value) };
}

function sanitizeObject(
	schema: TSchema,
	raw: Record<string, unknown>,
	prefix: string,
	invalid: InvalidSetting[],
	unknown: string[],
): Record<string, unknown> {
	const properties = (schema.properties ?? {}) as Record<string, TSchema>;
	const result: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(raw)) {
		// A map such as `modelThinkingLevels` checks each entry against `additionalProperties`.
		const keySchema = ownValue(properties, key) ?? additionalSchema(schema);
		const dotted = prefix ? `${prefix}.${key}` : key;
		if (!keySchema) unknown.push(dotted);
		if (!keySchema || value === undefined) {
			setOwn(result, key, value);
			continue;
		}
		if (isObjectSchema(keySchema) && isPlainObject(value)) {
			setOwn(result, key, sanitizeObject(keySchema, value, dotted, invalid, unknown));
			continue;
		}
		if (checkValue(keySchema, value)) setOwn(result, key, value);
		else invalid.push({ key: dotted, expected: describeExpected(keySchema), received: describeValue(value) });
	}
	return result;
}

function schemaAt(path: string[]): TSchema | undefined {
	let schema: TSchema | undefined = SettingsSchema;
	for (const part of path) {
		if (!schema || !isObjectSchema(schema)) return undefined;
		schema = ownValue(schema.properties as Record<string, TSchema>, part);
	}
	return schema;
}

/** The schema every key of a map object must match (`additionalProperties`), else undefined. */
function additionalSchema(schema: TSchema): TSchema | undefined {
	const additional = schema.additionalProperties;
	return typeof additional === "object" && additional !== null ? (additional as TSchema) : undefined;
}

function isObjectSchema(schema: TSchema): boolean {
	return schema.type === "object" && typeof schema.properties === "object";
}

/**
 * `record[key]` only when `key` is the record's own property: settings files are user input, and
 * keys such as `valueOf` or `constructor` must not resolve to Object.prototype members.
 */
export function ownValue<T>(record: Record<string, T>, key: string): T | undefined {
	return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets an own, enumerable property (a `__proto__` key stays data instead of changing the prototype). */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeExpected(schema: TSchema): string {
	if (Array.isArray(schema.anyOf)) {
		const options = schema.anyOf as TSchema[];
		if (options.every((option) => option.const !== undefined)) {
			return `one of ${options.map((option) => JSON.stringify(option.const)).join(", ")}`;
		}
		return options.map(describeExpected).join(" or ");
	}
	const bound = typeof schema.minimum === "number" ? ` >= ${schema.minimum}` : "";
	switch (schema.type) {
		case "integer":
			return `an integer${bound}`;
		case "number":
			return `a number${bound}`;
		case "boolean":
			return "true or false";
		case "string":
			return "a string";
		case "array": {
			const items = schema.items as TSchema | undefined;
			return items?.type === "string" ? "a list of strings" : "a list";
		}
		case "object":
			return "an object";
		default:
			return "a valid value";
	}
}

function describeValue(value: unknown): string {
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = String(value);
	}
	return text.length > 60 ? `${sliceWholeCharacters(text, 57)}...` : text;
}
