/**
 * Tool-argument validation against a tool's `parameters` JSON Schema (TypeBox 0.34, `typebox`
 * 1.x and plain JSON Schema alike), with ajv. ajv is loaded on first use, so importing Settle
 * stays cheap; each schema object is compiled once (cached in a WeakMap).
 */
import { createRequire } from "node:module";
import type { Options as AjvOptions, ErrorObject, ValidateFunction } from "ajv";
import { errorMessage, SettleError } from "../errors.js";
import { normalizeArgumentShapes } from "./argument-shapes.js";
import type { JsonSchema, Tool, ToolCall } from "./types.js";

interface AjvInstance {
	compile(schema: object): ValidateFunction;
	removeSchema(schema: object): unknown;
}

let ajv: AjvInstance | undefined;
const validators = new WeakMap<object, ValidateFunction>();

function getAjv(): AjvInstance {
	if (ajv) return ajv;
	const require = createRequire(import.meta.url);
	const module = require("ajv") as { default: new (options: AjvOptions) => AjvInstance };
	ajv = new module.default({
		allErrors: true,
		// Models send "5" for 5 and 1 for true; coerce primitives like pi-ai does.
		coerceTypes: true,
		strict: false,
		validateFormats: false,
		addUsedSchema: false,
		logger: false,
	});
	return ajv;
}

function getValidator(schema: JsonSchema): ValidateFunction {
	const cached = validators.get(schema);
	if (cached) return cached;
	const instance = getAjv();
	const validate = instance.compile(schema);
	// ajv keeps its own strong cache keyed by the schema object; ours is weak.
	instance.removeSchema(schema);
	validators.set(schema, validate);
	return validate;
}

const NOT_PLAIN = Symbol("not plain data");

/**
 * A deep copy of the arguments, as `structuredClone` makes it: plain objects and arrays (what a
 * model sends) are copied by hand, ~10× faster for the small objects tool calls carry; anything
 * else (class instances, Dates, Maps, sparse arrays, `__proto__` keys, cycles, very deep data) is
 * left to `structuredClone`, which also throws its own error for functions and symbols.
 */
function copyArguments<T>(value: T): T {
	try {
		return copyPlain(value, 0) as T;
	} catch (error) {
		if (error === NOT_PLAIN) return structuredClone(value);
		throw error;
	}
}

function copyPlain(value: unknown, depth: number): unknown {
	if (typeof value !== "object" || value === null) {
		if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
		return value;
	}
	if (depth > 64) throw NOT_PLAIN;
	if (Array.isArray(value)) {
		if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
		const copy: unknown[] = new Array(value.length);
		for (let index = 0; index < value.length; index++) {
			if (!(index in value)) throw NOT_PLAIN;
			copy[index] = copyPlain(value[index], depth + 1);
		}
		return copy;
	}
	const prototype = Object.getPrototypeOf(value);
	if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
	const copy: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		if (key === "__proto__") throw NOT_PLAIN;
		copy[key] = copyPlain((value as Record<string, unknown>)[key], depth + 1);
	}
	return copy;
}

function formatPath(error: ErrorObject): string {
	const base = error.instancePath.replace(/^\//, "").replace(/\//g, ".").replace(/~1/g, "/").replace(/~0/g, "~");
	if (error.keyword === "required") {
		const missing = (error.params as { missingProperty?: string }).missingProperty;
		if (missing) return base ? `${base}.${missing}` : missing;
	}
	return base || "root";
}

// Wording follows TypeBox's English messages, which pi-ai's validation prints.
function formatMessage(error: ErrorObject): string {
	const params = error.params as Record<string, unknown>;
	switch (error.keyword) {
		case "required":
			return `must have required properties ${String(params.missingProperty)}`;
		case "type": {
			const types = String(params.type).split(",");
			return types.length === 1 ? `must be ${types[0]}` : `must be either ${types.join(" or ")}`;
		}
		case "uniqueItems":
			return "must not have duplicate items";
		// pi's wording names no argument; a model that guessed one then guessed again (chrome-devtools-mcp#1940).
		case "additionalProperties":
			return `must not have additional properties (${String(params.additionalProperty)})`;
		default:
			return (error.message ?? "is invalid").replace(/must NOT/g, "must not");
	}
}

/**
 * Validates a tool call's arguments against `tool.parameters` and returns them, coerced where a
 * primitive has the wrong type but converts cleanly (`"5"` → 5 for an integer, `1` → true,
 * `3` → `"3"`, `null` → `""`/0/false for a required argument). An optional argument sent as
 * `null` whose schema takes no null is left out, and an array or object sent as JSON text is
 * parsed (see `normalizeArgumentShapes`). The returned object is a copy: the tool call's own
 * arguments are never changed. A tool without a schema object gets a copy of its arguments.
 *
 * Throws a `SettleError` (`INVALID_ARGUMENT`) whose message names every failing field, in pi-ai's format:
 * ```
 * Validation failed for tool "read":
 *   - path: must have required properties path
 *
 * Received arguments:
 * {}
 * ```
 *
 * @example
 * ```ts
 * const readTool = createReadTool(cwd);
 * const args = validateToolArguments(readTool, { type: "toolCall", id: "1", name: "read", arguments: { path: "a" } });
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: arguments are arbitrary JSON chosen by the model
export function validateToolArguments(tool: Pick<Tool, "parameters">, toolCall: ToolCall): Record<string, any> {
	const args = copyArguments(toolCall.arguments);
	const schema = tool.parameters;
	if (typeof schema !== "object" || schema === null) return args;
	let validate: ValidateFunction;
	try {
		validate = getValidator(schema);
	} catch (error) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Tool "${toolCall.name}" has an invalid parameters schema: ${error instanceof Error ? error.message : String(error)}`,
			{ cause: error },
		);
	}
	// Both change `args` in place; it is our copy.
	normalizeArgumentShapes(args, schema);
	if (validate(args)) return args;
	const lines = (validate.errors ?? []).map((error) => `  - ${formatPath(error)}: ${formatMessage(error)}`);
	const details = lines.length > 0 ? lines.join("\n") : "Unknown validation error";
	throw new SettleError(
		"INVALID_ARGUMENT",
		`Validation failed for tool "${toolCall.name}":\n${details}\n\nReceived arguments:\n${JSON.stringify(toolCall.arguments, null, 2)}`,
		{ details: { tool: toolCall.name } },
	);
}

/**
 * Why arguments a `tool_call` handler rewrote in place no longer fit `tool`'s schema (the
 * validation message), or undefined when they do: then they are coerced in place as the model's
 * were ("10" for an integer), so the tool gets what its schema promises. Internal: the check a
 * session, and the extension test harness, run after each handler.
 */
export function rewrittenArgumentsProblem(
	tool: Pick<Tool, "parameters">,
	toolCall: ToolCall,
	input: Record<string, unknown>,
): string | undefined {
	try {
		const valid = validateToolArguments(tool, { ...toolCall, arguments: input });
		// An optional argument set to null was left out of `valid`: leave it out here too.
		for (const key of Object.keys(input)) if (!Object.hasOwn(valid, key)) delete input[key];
		Object.assign(input, valid);
		return undefined;
	} catch (error) {
		return errorMessage(error);
	}
}

/**
 * Finds the tool a call names and validates its arguments (pi-ai `validateToolCall`).
 * Throws `SettleError` NOT_FOUND `Tool "<name>" not found` when no tool has that name, and
 * INVALID_ARGUMENT as {@link validateToolArguments} when the arguments do not match its schema.
 *
 * @example
 * ```ts
 * const args = validateToolCall(createCodingTools(cwd), { type: "toolCall", id: "1", name: "read", arguments: { path: "a.txt" } });
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: arguments are arbitrary JSON chosen by the model
export function validateToolCall(tools: readonly Tool[], toolCall: ToolCall): Record<string, any> {
	const tool = tools.find((candidate) => candidate.name === toolCall.name);
	if (!tool) {
		throw new SettleError("NOT_FOUND", `Tool "${toolCall.name}" not found`, { details: { tool: toolCall.name } });
	}
	return validateToolArguments(tool, toolCall);
}
