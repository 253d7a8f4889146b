/**
 * pi's `<agentDir>/models.json` (custom providers: Ollama, vLLM, LM Studio, proxies), read by the
 * default model runtime so a pi user's `SETTLE_AGENT_DIR=~/.pi/agent` finds their local models.
 * Each provider is applied as `pi.registerProvider` applies a config (same validation, same key
 * rules: an `apiKey` names an environment variable, else it is the key). What Settle cannot apply
 * (`!command` keys, a broken file) is reported, never silent. Custom models of a built-in
 * provider are merged into its models and `modelOverrides` change them, as pi 0.73.1 loads them. Comments and trailing commas are read as pi reads them.
 * `ctx.modelRegistry.refresh()` reads the file again, as pi's does (see {@link applyModelsJson}).
 */
import { join } from "node:path";
import { errorMessage } from "../errors.js";
import type { ProviderConfig } from "../extensions/types.js";
import type { ModelRuntime } from "../llm/model-runtime.js";
import { unsetVariableOf } from "../llm/provider-env.js";
import {
	clearModelsFileProviders,
	type ModelOverride,
	mergeCompat,
	reapplyModelsFileOrder,
	registerModelsFileBuiltIn,
	registerModelsFileProvider,
	setModelsFileError,
	setModelsFileReloader,
} from "../session/model-registry-view.js";
import { type JsonObjectRead, readJsonObjectFile } from "../settings/json-file.js";
import type { AgentSessionRuntimeDiagnostic } from "./services.js";

/** File name of pi's custom-model configuration in the agent folder. */
export const MODELS_FILE_NAME = "models.json";

type ModelEntry = NonNullable<ProviderConfig["models"]>[number];

/**
 * Registers the providers of `<agentDir>/models.json` with `modelRuntime` and returns the names
 * applied. A missing file is nothing to do; every problem becomes a warning in `diagnostics`
 * naming the file and the provider. Must not throw.
 *
 * From then on `ctx.modelRegistry.refresh()` reads the file again, as pi's does: the providers it
 * applied are taken back, the file's current ones applied, and `getError()` says why it was not read
 * (undefined once it reads again). Providers extensions registered stay, also one registered under a
 * file provider's name: it applies on top of the file's again, as at startup (and as in pi).
 *
 * @example
 * ```ts
 * const diagnostics: AgentSessionRuntimeDiagnostic[] = [];
 * applyModelsJson(modelRuntime, "/home/me/.pi/agent", diagnostics); // ["ollama"] for pi's docs' example
 * ```
 */
export function applyModelsJson(
	modelRuntime: ModelRuntime,
	agentDir: string,
	diagnostics: AgentSessionRuntimeDiagnostic[],
): string[] {
	let applied = applyModelsFile(modelRuntime, agentDir, diagnostics);
	setModelsFileReloader(modelRuntime, () => {
		// A file that does not read now is most often being saved by another program (or mid-edit):
		// its last good read stays in use, so the running session keeps its provider and key.
		const path = join(agentDir, MODELS_FILE_NAME);
		const read = readModelsFile(path);
		if (read.status === "malformed" || read.status === "unreadable") {
			setModelsFileError(
				modelRuntime,
				`${path} was not read (${read.reason}): the models of its last good read stay until it is fixed.`,
			);
			return;
		}
		// The file's providers only: what extensions registered stays, also under a file provider's name.
		clearModelsFileProviders(modelRuntime);
		setModelsFileError(modelRuntime, undefined);
		// As at startup, an unreadable file is told by getError(); pi's refresh reports nothing else.
		applied = applyModelsFile(modelRuntime, agentDir, []);
		// As at startup: the file's providers first, the extensions' registrations on top.
		reapplyModelsFileOrder(modelRuntime);
	});
	return applied;
}

function applyModelsFile(
	modelRuntime: ModelRuntime,
	agentDir: string,
	diagnostics: AgentSessionRuntimeDiagnostic[],
): string[] {
	const path = join(agentDir, MODELS_FILE_NAME);
	const warn = (message: string) => diagnostics.push({ type: "warning", message, path, source: "models" });
	const read = readModelsFile(path);
	if (read.status === "missing") return [];
	if (read.status !== "ok") {
		const message = `${path} was not read (${read.reason}): its providers are unavailable until it is fixed.`;
		warn(message);
		setModelsFileError(modelRuntime, message);
		return [];
	}
	const providers = read.value.providers;
	if (typeof providers !== "object" || providers === null || Array.isArray(providers)) {
		if (providers !== undefined) {
			const message = `${path}: "providers" must be an object of provider configs; nothing applied.`;
			warn(message);
			setModelsFileError(modelRuntime, message);
		}
		return [];
	}
	const builtIn = new Set(modelRuntime.getAll().map((model) => model.provider));
	const applied: string[] = [];
	for (const [name, raw] of Object.entries(providers as Record<string, unknown>)) {
		if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
			warn(`${path}: provider "${name}" must be an object; it was skipped.`);
			continue;
		}
		const entry = raw as Record<string, unknown>;
		const listed = Array.isArray(entry.models) ? (entry.models as Record<string, unknown>[]) : [];
		const modelOverrides = isRecord(entry.modelOverrides) ? entry.modelOverrides : undefined;
		if (listed.some((model) => typeof model?.id !== "string" || model.id === "")) {
			warn(`${path}: provider "${name}" has a model without an "id"; the provider was skipped.`);
			continue;
		}
		const catalogIds = new Set(
			modelRuntime
				.getAll()
				.filter((model) => model.provider === name)
				.map((model) => model.id),
		);
		const models = listed.map((model) =>
			checkedModel(model, builtIn.has(name) && catalogIds.has(String(model.id)), (message) =>
				warn(`${path}: provider "${name}": ${message}`),
			),
		);
		try {
			// pi applies every entry of a built-in provider to its built-in models (baseUrl, compat,
			// modelOverrides) and merges its custom models into their list: one route for all of them.
			if (builtIn.has(name)) {
				const { models: custom = [], ...config } = providerConfig(entry, models);
				registerModelsFileBuiltIn(modelRuntime, name, config, {
					models: custom,
					modelOverrides: checkedOverrides(modelOverrides ?? {}, (message) =>
						warn(`${path}: provider "${name}": ${message}`),
					),
				});
			} else registerModelsFileProvider(modelRuntime, name, providerConfig(entry, models));
			applied.push(name);
		} catch (error) {
			// Its models still join the provider if an extension registers it (pi#2956).
			const joins = !builtIn.has(name) && models.length > 0;
			warn(
				`${path}: provider "${name}" was skipped: ${errorMessage(error)}${joins ? ` Its models are added to "${name}" if an extension registers that provider.` : ""}`,
			);
			const warning = diagnostics.at(-1);
			if (joins && warning) waitingForExtension(modelRuntime).set(name, warning);
			continue;
		}
		// pi runs a `!command` key (a password manager); Settle runs none, so requests would carry no key.
		if (typeof entry.apiKey === "string" && entry.apiKey.startsWith("!")) {
			warn(
				`${path}: provider "${name}": Settle does not run the "apiKey" command (${entry.apiKey.slice(0, 40)}); put the key in auth.json ({"${name}": {"type": "api_key", "key": "…"}}) or in an environment variable named by "apiKey".`,
			);
		}
		// A `$NAME` key with NAME unset is not sent (opencode#34388): said here, or only "No API key" would show.
		const unset = typeof entry.apiKey === "string" ? unsetVariableOf(entry.apiKey) : undefined;
		if (unset) {
			warn(
				`${path}: provider "${name}": "apiKey" names the environment variable ${unset}, which is not set, so no key is sent from it. Set ${unset}, or put the key in auth.json ({"${name}": {"type": "api_key", "key": "…"}}).`,
			);
		}
		// Nor a `!command` header value (pi#909): the header is left out, so a gateway's key would be missing unsaid.
		const headerModels = [...listed, ...Object.values(modelOverrides ?? {})];
		for (const header of headersWhere(entry, headerModels, (value) => value.startsWith("!")).keys()) {
			warn(
				`${path}: provider "${name}": Settle does not run the command of header "${header}"; the header is not sent. Put its value in an environment variable and name that variable in "headers" ({"${header}": "MY_HEADER_VALUE"}).`,
			);
		}
		// Nor a `$NAME` header value whose variable is unset: the header is left out, said here as for apiKey.
		for (const [header, unset] of headersWhere(entry, headerModels, unsetVariableOf)) {
			warn(
				`${path}: provider "${name}": header "${header}" names the environment variable ${unset}, which is not set, so the header is not sent. Set ${unset}, or write the header's value in "headers".`,
			);
		}
		// pi applies modelOverrides to built-in models only; said rather than ignored silently.
		if (modelOverrides !== undefined && !builtIn.has(name)) {
			warn(
				`${path}: provider "${name}": "modelOverrides" change built-in models only and "${name}" is not a built-in provider; they were ignored (put the values in its "models" entries).`,
			);
		}
	}
	return applied;
}

/**
 * The headers, the provider's and its models' (`models` entries and `modelOverrides`), whose value
 * `matches` (a truthy answer), each once with the first answer: a `!command`, or the unset variable
 * a `$NAME` value names.
 */
function headersWhere<T>(
	entry: Record<string, unknown>,
	models: readonly unknown[],
	matches: (value: string) => T | undefined,
): Map<string, T> {
	const found = new Map<string, T>();
	for (const headers of [entry.headers, ...models.map((model) => (isRecord(model) ? model.headers : undefined))]) {
		if (!isRecord(headers)) continue;
		for (const [header, value] of Object.entries(headers)) {
			const answer = typeof value === "string" && !found.has(header) ? matches(value) : undefined;
			if (answer) found.set(header, answer);
		}
	}
	return found;
}

/** Per model runtime: the startup warning of each file provider whose models wait for an extension's registration. */
const joinWarnings = new WeakMap<ModelRuntime, Map<string, AgentSessionRuntimeDiagnostic>>();

function waitingForExtension(modelRuntime: ModelRuntime): Map<string, AgentSessionRuntimeDiagnostic> {
	const warnings = joinWarnings.get(modelRuntime) ?? new Map<string, AgentSessionRuntimeDiagnostic>();
	joinWarnings.set(modelRuntime, warnings);
	return warnings;
}

/**
 * Takes out of `diagnostics` the models.json warning of each provider in `registered`: read before
 * extensions ran, an entry with models but no `baseUrl` could not apply alone, but once an extension
 * registers its provider the models join it and there is nothing left to warn about.
 *
 * @example
 * ```ts
 * const diagnostics: AgentSessionRuntimeDiagnostic[] = [];
 * applyModelsJson(modelRuntime, agentDir, diagnostics); // models.json: { "hub": { "models": [{ "id": "qwen" }] } }
 * withdrawJoinedProviderWarnings(modelRuntime, ["hub"], diagnostics); // an extension registered "hub"
 * ```
 */
export function withdrawJoinedProviderWarnings(
	modelRuntime: ModelRuntime,
	registered: Iterable<string>,
	diagnostics: AgentSessionRuntimeDiagnostic[],
): void {
	const waiting = joinWarnings.get(modelRuntime);
	if (!waiting) return;
	for (const name of registered) {
		const warning = waiting.get(name);
		const at = warning ? diagnostics.indexOf(warning) : -1;
		if (at >= 0) diagnostics.splice(at, 1);
		waiting.delete(name);
	}
}

/**
 * The models.json warnings still waiting for an extension to register their provider, by provider:
 * one registered later (in `session_start`) withdraws its own, so a caller may hold these until
 * then and keep only those whose provider still has no models.
 *
 * @example
 * ```ts
 * const held = joinedProviderWarnings(modelRuntime); // models.json: { "hub": { "models": [{ "id": "qwen" }] } }
 * // … session_start ran: an extension registered "hub" …
 * const still = [...held].filter(([name]) => !modelRuntime.getAll().some((model) => model.provider === name));
 * ```
 */
export function joinedProviderWarnings(modelRuntime: ModelRuntime): ReadonlyMap<string, AgentSessionRuntimeDiagnostic> {
	return new Map(joinWarnings.get(modelRuntime));
}

/** What each `modelOverrides` field must be: a test and what to write instead. */
const OVERRIDE_FIELDS: Record<keyof ModelOverride, [(value: unknown) => boolean, string]> = {
	name: [(v) => typeof v === "string" && v !== "", 'a non-empty string, e.g. "GPT-4o mini (team)"'],
	reasoning: [(v) => typeof v === "boolean", "true or false"],
	thinkingLevelMap: [isRecord, 'an object of thinking levels, e.g. {"high": "high"}'],
	input: [
		(v) => Array.isArray(v) && v.every((item) => item === "text" || item === "image"),
		'a list of "text" and "image", e.g. ["text", "image"]',
	],
	cost: [
		(v) => isRecord(v) && Object.values(v).every((price) => typeof price === "number" && price >= 0),
		'an object of prices per million tokens (numbers ≥ 0), e.g. {"input": 0.15, "output": 0.6}',
	],
	contextWindow: [isPositiveInteger, "a positive whole number of tokens without quotes, e.g. 128000"],
	maxTokens: [isPositiveInteger, "a positive whole number of tokens without quotes, e.g. 16384"],
	headers: [
		(v) => isRecord(v) && Object.values(v).every((header) => typeof header === "string"),
		'an object of header names to string values, e.g. {"x-team": "TEAM_HEADER"}',
	],
	compat: [isRecord, 'an object, e.g. {"supportsStore": false}'],
};

/**
 * The `modelOverrides` of a built-in provider with only the fields of the right type: each field
 * pi's schema would reject (a quoted `contextWindow`, `input: "text"`) or that no model can have (a
 * `maxTokens` or `contextWindow` ≤ 0) is left out with a warning naming the model and the field and
 * saying what to write; the model's other fields and the file's other entries still apply. pi 0.73.1
 * rejects the whole file on a type error and takes a negative number as it is.
 */
function checkedOverrides(
	raw: Record<string, unknown>,
	warn: (message: string) => void,
): Record<string, ModelOverride> {
	const result: Record<string, ModelOverride> = {};
	for (const [id, override] of Object.entries(raw)) {
		if (!isRecord(override)) {
			warn(
				`"modelOverrides" entry "${id}" must be an object of fields (e.g. {"contextWindow": 64000}); it was ignored.`,
			);
			continue;
		}
		result[id] = validFields(override, (field, value, expected) =>
			warn(
				`model "${id}": "modelOverrides" field "${field}" is ${JSON.stringify(value)}; it must be ${expected}. The field was ignored; the model keeps its own value.`,
			),
		) as ModelOverride;
	}
	return result;
}

/**
 * A `models` entry with only the fields of the right type, by the same rules as `modelOverrides`:
 * a negative price or a quoted `contextWindow` is left out with a warning, so the model takes pi's
 * default for it (no price, 128000 tokens…) instead of a negative cost on every answer.
 */
function checkedModel(
	model: Record<string, unknown>,
	inCatalog: boolean,
	warn: (message: string) => void,
): Record<string, unknown> {
	const kept = validFields(model, (field, value, expected) =>
		warn(
			`model "${String(model.id)}": "models" field "${field}" is ${JSON.stringify(value)}; it must be ${expected}. The field was ignored; the default applies.`,
		),
	);
	// pi 0.73.1 refuses the whole file; the model stays, its missing prices filled (the catalog's, else completePrices).
	if (isRecord(kept.cost)) {
		const missing = PRICE_FIELDS.filter((field) => (kept.cost as Record<string, unknown>)[field] === undefined);
		if (missing.length > 0) {
			const filled = inCatalog
				? "the built-in model's prices are kept for them"
				: 'a missing cache price is its "input" price, a missing "input" or "output" price is 0';
			warn(
				`model "${String(model.id)}": "models" field "cost" has no ${missing.map((field) => `"${field}"`).join(", ")}: ${filled}. Write all four prices per million tokens, e.g. {"input": 2, "output": 8, "cacheRead": 0.2, "cacheWrite": 0}.`,
			);
		}
	}
	return kept;
}

const PRICE_FIELDS = ["input", "output", "cacheRead", "cacheWrite"] as const;

function validFields(
	fields: Record<string, unknown>,
	reject: (field: string, value: unknown, expected: string) => void,
): Record<string, unknown> {
	const kept: Record<string, unknown> = {};
	for (const [field, value] of Object.entries(fields)) {
		const rule = OVERRIDE_FIELDS[field as keyof ModelOverride];
		if (rule && value !== undefined && !rule[0](value)) {
			reject(field, value, rule[1]);
			continue;
		}
		kept[field] = value;
	}
	return kept;
}

function isPositiveInteger(value: unknown): boolean {
	return typeof value === "number" && Number.isInteger(value) && value > 0;
}

/** A models.json provider as a `registerProvider` config: names default to ids, compat merged as in pi. */
function providerConfig(entry: Record<string, unknown>, models: Record<string, unknown>[]): ProviderConfig {
	const config: ProviderConfig = {};
	for (const key of ["name", "baseUrl", "apiKey", "api"] as const) {
		if (typeof entry[key] === "string") config[key] = entry[key] as string;
	}
	if (isRecord(entry.headers)) config.headers = entry.headers as Record<string, string>;
	if (entry.authHeader === true) config.authHeader = true;
	const providerCompat = isRecord(entry.compat) ? entry.compat : undefined;
	// A built-in provider's compat goes on its built-in models too (pi's `loadBuiltInModels`).
	if (providerCompat) config.compat = providerCompat;
	if (models.length > 0) {
		config.models = models.map((model) => {
			const id = String(model.id ?? "");
			const compat = isRecord(model.compat) ? mergeCompat(providerCompat, model.compat) : providerCompat;
			return {
				...(model as Partial<ModelEntry>),
				id,
				name: typeof model.name === "string" ? model.name : id,
				...(compat ? { compat } : {}),
			};
		});
	}
	return config;
}

/**
 * Reads models.json as pi does: `//` line comments and trailing commas are allowed (pi's
 * `stripJsonComments`, same expressions), string literals left untouched. Must not throw.
 */
function readModelsFile(path: string): JsonObjectRead {
	return readJsonObjectFile(path, (text) =>
		text
			.replace(/"(?:\\.|[^"\\])*"|\/\/[^\n]*/g, (match) => (match[0] === '"' ? match : ""))
			.replace(/"(?:\\.|[^"\\])*"|,(\s*[}\]])/g, (match, tail: string | undefined) =>
				tail !== undefined ? tail : match[0] === '"' ? match : "",
			),
	);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
