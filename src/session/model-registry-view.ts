/**
 * `ctx.modelRegistry` for extensions: pi's `ModelRegistry` shape over the session's
 * {@link ModelRuntime}. `pi.registerProvider` works as pi 0.73.1's when the runtime accepts
 * registrations ({@link InMemoryModelRuntime}) and the config passes pi's checks: `models` (with a
 * `streamSimple` function, which Settle needs) replace the provider's models; else a `baseUrl`
 * and/or `headers` re-point them; a `streamSimple` serves its `api` for every model; an `apiKey` is
 * the provider's key when no other exists; `authHeader: true` sends the key as `Authorization: Bearer`.
 * Repeats merge; unregistering puts back what the runtime had and applies the remaining configs
 * again (pi's `refresh()`); keys given with `setApiKey` stay, as pi's runtime keys.
 */
import { errorMessage, SettleError } from "../errors.js";
import type { ExtensionModelRegistry, ProviderConfig } from "../extensions/types.js";
import { streamFromMessage } from "../llm/event-stream.js";
import { InMemoryModelRuntime, type ModelRuntime, type ProviderSnapshot } from "../llm/model-runtime.js";
import { BUILT_IN_PROVIDER_DISPLAY_NAMES, OAUTH_PROVIDER_DISPLAY_NAMES } from "../llm/provider-display-names.js";
import { environmentName, resolveConfiguredValue, unsetVariableOf } from "../llm/provider-env.js";
import { withRequestSignal } from "../llm/request-signal.js";
import { streamWatchingResponses } from "../llm/response-activity.js";
import { emptyAssistantMessage, type Model, type StreamFn } from "../llm/types.js";
import type { VirtualModelDefinition } from "../llm/virtual-models.js";

/**
 * A provider an extension overrode with only `baseUrl`/`headers` (pi's override-only config): its
 * models before the first override, so each override applies to them.
 */
interface ProviderOverride {
	original: readonly Model[];
	baseUrl?: string;
}

/**
 * What extensions registered with one runtime (several views may share it), mirroring pi's
 * `ModelRegistry`: its `registeredProviders` (configs merged per name), what they changed, and the
 * runtime's own providers before the change — so unregistering one provider can, as pi's
 * `refresh()`, put every changed provider back and apply the remaining configs again.
 */
interface ExtensionProviders {
	/** Each name's configs merged (a later defined value wins), in first-registration order. */
	registered: Map<string, ProviderConfig>;
	/**
	 * `<agentDir>/models.json`'s providers (pi's models file), kept apart from what extensions
	 * registered: a `refresh()` replaces these and applies them first, then the extensions' again,
	 * so an extension's registration under a file provider's name survives it (as in pi).
	 */
	fileConfigs: Map<string, ProviderConfig>;
	/**
	 * The models.json entry of each provider that is not built in, also one that could not apply
	 * alone (no `baseUrl`, key or `api`): an extension registering that provider gets its models too (pi#2956).
	 */
	fileModels: Map<string, ProviderConfig>;
	/**
	 * For a built-in provider in models.json with `models` or `modelOverrides`: what is merged into
	 * its models (pi's merge by id, not `registerProvider`'s replacement); its config is in `fileConfigs`.
	 */
	fileChanges: Map<string, BuiltInModelChanges>;
	/** The runtime's provider before an extension first changed its models (undefined: none). */
	baselines: Map<string, ProviderSnapshot | undefined>;
	overrides: Map<string, ProviderOverride>;
	/** pi's `providerRequestConfigs`: the last config with `apiKey`/`headers`/`authHeader` per name. */
	requestConfigs: Map<string, Pick<ProviderConfig, "apiKey" | "headers" | "authHeader">>;
	/**
	 * pi's `modelRequestHeaders`: each fully registered model's own `headers` (raw), per provider.
	 * pi resolves them per request over the provider's (request config's) headers.
	 */
	modelHeaders: Map<string, Map<string, Record<string, string> | undefined>>;
	/** Wire APIs given a `streamSimple`. */
	apis: Set<string>;
}
const extensionProviders = new WeakMap<ModelRuntime, ExtensionProviders>();

function providersOf(runtime: ModelRuntime): ExtensionProviders {
	let state = extensionProviders.get(runtime);
	if (!state) {
		state = {
			registered: new Map(),
			fileConfigs: new Map(),
			fileModels: new Map(),
			fileChanges: new Map(),
			baselines: new Map(),
			overrides: new Map(),
			requestConfigs: new Map(),
			modelHeaders: new Map(),
			apis: new Set(),
		};
		extensionProviders.set(runtime, state);
	}
	return state;
}

/** Why `<agentDir>/models.json` was not read, per model runtime made from it (pi's `getError()`). */
const modelsFileErrors = new WeakMap<ModelRuntime, string>();

/**
 * Records why the models file of `runtime` could not be read, for `ctx.modelRegistry.getError()`
 * (`undefined`: it was read).
 *
 * @example
 * ```ts
 * setModelsFileError(modelRuntime, "~/.settle/agent/models.json was not read (…): …");
 * ```
 */
export function setModelsFileError(runtime: ModelRuntime, message: string | undefined): void {
	if (message === undefined) modelsFileErrors.delete(runtime);
	else modelsFileErrors.set(runtime, message);
}

/**
 * Why the models file of `runtime` could not be read (undefined: it was, or there is none): said
 * where a model it would have provided is not found (pi#5418).
 *
 * @example
 * ```ts
 * modelsFileError(modelRuntime); // "~/.settle/agent/models.json was not read (invalid JSON at line 2, column 1: …): …"
 * ```
 */
export function modelsFileError(runtime: ModelRuntime): string | undefined {
	return modelsFileErrors.get(runtime);
}

/** How to read the models file of a runtime made from one again (pi's `refresh()`), per runtime. */
const modelsFileReloaders = new WeakMap<ModelRuntime, () => void>();

/**
 * Sets what `ctx.modelRegistry.refresh()` runs for `runtime`: read its models file again and
 * apply it (src/runtime/models-json.ts). A runtime without one has nothing to reload.
 *
 * @example
 * ```ts
 * setModelsFileReloader(modelRuntime, () => console.log("read models.json again"));
 * ```
 */
export function setModelsFileReloader(runtime: ModelRuntime, reload: () => void): void {
	modelsFileReloaders.set(runtime, reload);
}

/**
 * Adapts a model runtime to the registry extensions see.
 *
 * @example
 * ```ts
 * const registry = modelRegistryView(modelRuntime);
 * registry.find("faux", "faux-1");
 * ```
 */
export function modelRegistryView(runtime: ModelRuntime): ExtensionModelRegistry {
	return {
		// As pi's: models.json is read again and applied; what extensions registered stays.
		refresh: () => modelsFileReloaders.get(runtime)?.(),
		getError: () => modelsFileErrors.get(runtime),
		getProviderAuthStatus(provider) {
			const own =
				runtime.getAuthStatus?.(provider) ??
				(runtime.hasConfiguredAuth(provider) ? { configured: false, source: "runtime" } : { configured: false });
			return own.source ? own : (configKeyStatus(extensionProviders.get(runtime)?.requestConfigs.get(provider)) ?? own);
		},
		getProviderDisplayName: (provider) =>
			registeredName(extensionProviders.get(runtime)?.registered.get(provider)) ??
			registeredName(extensionProviders.get(runtime)?.fileConfigs.get(provider)) ??
			OAUTH_PROVIDER_DISPLAY_NAMES[provider] ??
			BUILT_IN_PROVIDER_DISPLAY_NAMES[provider] ??
			provider,
		find: (provider, modelId) => runtime.getModel(provider, modelId),
		getAll: () => runtime.getAll(),
		getAvailable: () => runtime.getAvailable(),
		hasConfiguredAuth: (model) => runtime.hasConfiguredAuth(model.provider),
		// As pi 0.73.1: a provider without a key is not an error here (the request decides) unless its
		// config has `authHeader`, and the model's own headers come along; a failing key source answers `ok: false`.
		async getApiKeyAndHeaders(model) {
			try {
				const apiKey = await runtime.getApiKey(model.provider);
				const authHeader = extensionProviders.get(runtime)?.requestConfigs.get(model.provider)?.authHeader;
				if (authHeader && !apiKey) return { ok: false, error: `No API key found for "${model.provider}"` };
				const result: { ok: true; apiKey?: string; headers?: Record<string, string> } = { ok: true };
				if (apiKey !== undefined) result.apiKey = apiKey;
				const headers = authHeader ? { ...model.headers, Authorization: `Bearer ${apiKey}` } : model.headers;
				if (headers && Object.keys(headers).length > 0) result.headers = { ...headers };
				return result;
			} catch (error) {
				return { ok: false, error: errorMessage(error) };
			}
		},
		getApiKeyForProvider: (provider) => runtime.getApiKey(provider),
		isUsingOAuth: (model) => runtime.isUsingOAuth(model.provider),
		registerProvider(name: string, config: ProviderConfig) {
			const state = checkAndApply(runtime, name, config);
			// pi's upsertRegisteredProvider: defined values of the new config win, the rest are kept.
			const existing = state.registered.get(name);
			if (!existing) state.registered.set(name, { ...config });
			else
				for (const [key, value] of Object.entries(config))
					if (value !== undefined) Object.assign(existing, { [key]: value });
		},
		registerVirtualModel(definition: VirtualModelDefinition) {
			if (!(runtime instanceof InMemoryModelRuntime)) {
				throw new SettleError(
					"EXTENSION",
					`Virtual model ${definition.provider}/${definition.id} cannot be registered: this model runtime is fixed.`,
				);
			}
			runtime.registerVirtualModel(definition);
		},
		unregisterVirtualModel(provider: string, id: string) {
			if (runtime instanceof InMemoryModelRuntime) runtime.unregisterVirtualModel(provider, id);
		},
		unregisterProvider(name: string) {
			const state = extensionProviders.get(runtime);
			// As pi: a name no extension registered is left alone (a host's own provider stays).
			if (!state?.registered.delete(name)) return;
			if (runtime instanceof InMemoryModelRuntime) reapplyProviders(runtime, state);
		},
	};
}

/** pi's checks of a provider config, then the config applied to the runtime (a registration's effect). */
function checkAndApply(
	runtime: ModelRuntime,
	name: string,
	config: ProviderConfig,
	fromExtension = true,
): ExtensionProviders {
	validateProviderConfig(name, config);
	const changesRuntime = Boolean(
		config.models?.length || config.baseUrl || config.headers || config.apiKey || config.streamSimple,
	);
	if (changesRuntime && !(runtime instanceof InMemoryModelRuntime)) {
		throw new SettleError("EXTENSION", `Provider "${name}" cannot be registered: this model runtime is fixed.`);
	}
	// As pi: models without a streamSimple stream through what serves their api (e.g. pi-ai's clients).
	const unserved =
		typeof config.streamSimple === "function"
			? undefined
			: modelApis(config).find((api) => !runtime.getStreamFn?.(api));
	if (unserved !== undefined) {
		throw new SettleError(
			"EXTENSION",
			`Provider "${name}" needs a \`streamSimple\` function to be registered with Settle's model runtime: nothing serves api "${unserved}".`,
		);
	}
	const state = providersOf(runtime);
	if (runtime instanceof InMemoryModelRuntime) applyProviderConfig(runtime, state, name, config, fromExtension);
	return state;
}

/**
 * Registers a provider of `<agentDir>/models.json` (src/runtime/models-json.ts): checked and applied
 * as `registerProvider` does, but kept apart from what extensions registered.
 *
 * @example
 * ```ts
 * registerModelsFileProvider(modelRuntime, "ollama", { baseUrl: "http://localhost:11434/v1", apiKey: "ollama", api: "openai-completions", models: [{ id: "llama3", name: "Llama 3" }] });
 * ```
 */
export function registerModelsFileProvider(runtime: ModelRuntime, name: string, config: ProviderConfig): void {
	// Kept first: an entry that cannot apply alone still lends its models to an extension's provider.
	providersOf(runtime).fileModels.set(name, { ...config });
	checkAndApply(runtime, name, config, false).fileConfigs.set(name, { ...config });
}

/**
 * Takes back every models.json provider and applies what extensions registered again, so the file can
 * be read again (pi's `refresh()`); call {@link reapplyModelsFileOrder} after registering the file's
 * providers again.
 *
 * @example
 * ```ts
 * clearModelsFileProviders(modelRuntime);
 * ```
 */
export function clearModelsFileProviders(runtime: ModelRuntime): void {
	const state = extensionProviders.get(runtime);
	if (!state || (state.fileConfigs.size === 0 && state.fileModels.size === 0)) return;
	state.fileConfigs.clear();
	state.fileModels.clear();
	state.fileChanges.clear();
	if (runtime instanceof InMemoryModelRuntime) reapplyProviders(runtime, state);
}

/**
 * Applies the models file's providers first and the extensions' on top (the order of a fresh start),
 * after a refresh registered the file's providers again.
 *
 * @example
 * ```ts
 * reapplyModelsFileOrder(modelRuntime);
 * ```
 */
export function reapplyModelsFileOrder(runtime: ModelRuntime): void {
	const state = extensionProviders.get(runtime);
	if (state && state.registered.size > 0 && runtime instanceof InMemoryModelRuntime) reapplyProviders(runtime, state);
}

/**
 * pi 0.73.1's `ModelRegistry.validateProviderConfig`, in its order and with its texts: `streamSimple`
 * needs an `api`; a config with models needs a `baseUrl`, then an `apiKey` or `oauth`, then an `api`
 * for every model (its own or the config's).
 */
function validateProviderConfig(name: string, config: ProviderConfig): void {
	if (config.streamSimple && !config.api) {
		throw new SettleError("EXTENSION", `Provider ${name}: "api" is required when registering streamSimple.`);
	}
	if (!config.models?.length) return;
	if (!config.baseUrl) {
		throw new SettleError("EXTENSION", `Provider ${name}: "baseUrl" is required when defining models.`);
	}
	if (!config.apiKey && !config.oauth) {
		throw new SettleError("EXTENSION", `Provider ${name}: "apiKey" or "oauth" is required when defining models.`);
	}
	for (const model of config.models) {
		if (!model.api && !config.api) {
			throw new SettleError("EXTENSION", `Provider ${name}, model ${model.id}: no "api" specified.`);
		}
	}
}

/** pi's `getProviderDisplayName` for a registered config: its `name`, else its `oauth.name`. */
function registeredName(config: ProviderConfig | undefined): string | undefined {
	if (config?.name !== undefined) return config.name;
	const oauthName = config?.oauth?.name;
	return typeof oauthName === "string" ? oauthName : undefined;
}

/**
 * pi's `getProviderAuthStatus` for a provider with no stored, runtime or environment key but a
 * registered `apiKey`: `configured: true`, from a command, the environment variable it names, or the literal.
 */
function configKeyStatus(
	requestConfig: Pick<ProviderConfig, "apiKey"> | undefined,
): ReturnType<NonNullable<ExtensionModelRegistry["getProviderAuthStatus"]>> | undefined {
	const apiKey = requestConfig?.apiKey;
	if (!apiKey) return undefined;
	if (apiKey.startsWith("!")) return { configured: true, source: "models_json_command" };
	if (unsetVariableOf(apiKey)) return undefined;
	const name = environmentName(apiKey);
	if (process.env[name]) return { configured: true, source: "environment", label: name };
	return { configured: true, source: "models_json_key" };
}

/**
 * pi's `applyProviderConfig`, on a Settle runtime: a `streamSimple` serves its `api` for every
 * model; a config with `apiKey`, `headers` or `authHeader` replaces the provider's request config
 * (its `apiKey` is the key used when no stored, runtime or environment key exists; `authHeader`
 * adds `Authorization: Bearer <key>` to each request); `models`
 * replace the provider's models, else a `baseUrl` and/or `headers` re-point them.
 */
function applyProviderConfig(
	runtime: InMemoryModelRuntime,
	state: ExtensionProviders,
	name: string,
	config: ProviderConfig,
	fromExtension: boolean,
): void {
	// A signal per request: provider SDKs an extension wraps may never remove their listener from it.
	const streamFn =
		typeof config.streamSimple === "function"
			? withRequestSignal(streamWatchingResponses(config.streamSimple as unknown as StreamFn))
			: undefined;
	if (streamFn && config.api) {
		runtime.setApiStream(config.api, streamFn);
		state.apis.add(config.api);
	}
	applyRequestConfig(runtime, state, name, config);
	if (config.models?.length) {
		if (!state.baselines.has(name)) state.baselines.set(name, runtime.snapshotProvider(name));
		state.overrides.delete(name);
		const models = config.models.map((model) => toModel(name, config, model));
		const headers = new Map(config.models.map((model) => [model.id, model.headers]));
		// pi#2956: models.json's models under this provider join the extension's (the file's win by id),
		// with the file entry's own values over the extension's provider settings.
		const file = fromExtension ? state.fileModels.get(name) : undefined;
		if (file?.models?.length) {
			const composed = { ...config, ...definedOnly({ ...file, models: undefined }) };
			const fileIds = new Set(file.models.map((model) => model.id));
			models.splice(0, models.length, ...models.filter((model) => !fileIds.has(model.id)));
			for (const model of file.models) {
				models.push(toModel(name, composed, model));
				headers.set(model.id, model.headers);
			}
		}
		state.modelHeaders.set(name, headers);
		const before = runtime.snapshotProvider(name);
		runtime.registerProvider({
			provider: name,
			models,
			streamFn: streamFn ?? servedStream(runtime, [...new Set(models.map((model) => model.api))]),
			// A provider without a key (oauth only) is usable without credentials: Settle has no /login.
			// Not marked `oauth` either: pi's isUsingOAuth needs OAuth credentials stored by /login.
			...(config.apiKey ? {} : { requiresAuth: false }),
		});
		// pi's runtime keys live in AuthStorage, apart from providers: one given to the replaced provider stays.
		if (before?.apiKey !== undefined && before.apiKey !== before.registration.apiKey)
			runtime.setApiKey(name, before.apiKey);
	} else if (config.baseUrl || config.headers) {
		overrideProvider(runtime, state, name, config);
	}
}

/** pi's `storeProviderRequestConfig`: a config with `apiKey`, `headers` or `authHeader` is the provider's request config. */
function applyRequestConfig(
	runtime: InMemoryModelRuntime,
	state: ExtensionProviders,
	name: string,
	config: ProviderConfig,
): void {
	if (!config.apiKey && !config.headers && !config.authHeader) return;
	const { apiKey, headers, authHeader } = config;
	state.requestConfigs.set(name, { apiKey, headers, authHeader });
	// pi's config values: the named environment variable when it is set, else the literal key. A
	// `$NAME` whose NAME is unset is no key, so the provider has none ("No API key", opencode#34388).
	const usable = apiKey && !unsetVariableOf(apiKey) ? apiKey : undefined;
	runtime.setFallbackApiKey(name, usable ? () => resolveConfigValue(usable) : undefined);
	runtime.setAuthHeader(name, authHeader === true);
}

/**
 * pi's `modelOverrides` entry for one built-in model: the fields given replace the model's,
 * `cost`, `thinkingLevelMap` and `compat` are merged into its own, `headers` go on its requests.
 */
export interface ModelOverride {
	name?: string;
	reasoning?: boolean;
	thinkingLevelMap?: Model["thinkingLevelMap"];
	input?: Model["input"];
	cost?: Partial<Model["cost"]>;
	contextWindow?: number;
	maxTokens?: number;
	headers?: Record<string, string>;
	compat?: Record<string, unknown>;
}

/** What a models.json entry of a built-in provider changes in its models (see {@link registerModelsFileBuiltIn}). */
export interface BuiltInModelChanges {
	/** Custom models: one with a built-in model's id replaces it in place (keeping its prices when it gives no `cost`), the others are added. */
	models: NonNullable<ProviderConfig["models"]>;
	/** pi's `modelOverrides`, by built-in model id. */
	modelOverrides: Record<string, ModelOverride>;
}

/**
 * Applies a models.json entry of a built-in provider that has `models` or `modelOverrides`, as pi
 * 0.73.1's `ModelRegistry` loads it (not as `registerProvider`, which would replace the built-in
 * list): the entry's `baseUrl` and `compat` apply to the built-in models, then each model's
 * override; custom models are merged by id, taking the entry's `api`/`baseUrl` else the first
 * built-in model's. The provider keeps its stream function and its key (environment, auth.json);
 * the entry's `apiKey`, `headers` and `authHeader` apply as a request config. Kept apart from what
 * extensions registered, and applied again by a refresh, as {@link registerModelsFileProvider}'s.
 *
 * @example
 * ```ts
 * registerModelsFileBuiltIn(modelRuntime, "openrouter", {}, {
 *   models: [{ id: "some/new-model", name: "Some new model" }],
 *   modelOverrides: { "openai/gpt-4o-mini": { contextWindow: 64000 } },
 * });
 * ```
 */
export function registerModelsFileBuiltIn(
	runtime: ModelRuntime,
	name: string,
	config: ProviderConfig,
	changes: BuiltInModelChanges,
): void {
	if (!(runtime instanceof InMemoryModelRuntime)) {
		throw new SettleError("EXTENSION", `Provider "${name}" cannot be changed: this model runtime is fixed.`);
	}
	const state = providersOf(runtime);
	applyBuiltInChanges(runtime, state, name, config, changes);
	state.fileConfigs.set(name, { ...config });
	state.fileChanges.set(name, changes);
}

function applyBuiltInChanges(
	runtime: InMemoryModelRuntime,
	state: ExtensionProviders,
	name: string,
	config: ProviderConfig,
	changes: BuiltInModelChanges,
): void {
	const snapshot = runtime.snapshotProvider(name);
	if (!snapshot) return;
	if (!state.baselines.has(name)) state.baselines.set(name, snapshot);
	applyRequestConfig(runtime, state, name, config);
	const providerHeaders = config.headers ? resolveHeaders(config.headers) : undefined;
	const builtIn = snapshot.registration.models;
	const models = builtIn.map((model) => {
		const moved: Model = { ...model, baseUrl: config.baseUrl ?? model.baseUrl };
		if (config.compat) moved.compat = mergeCompat(model.compat, config.compat);
		const override = changes.modelOverrides[model.id];
		const changed = override ? applyModelOverride(moved, override) : moved;
		// pi's request headers: the model's own, the provider's, then the override's.
		const headers = {
			...model.headers,
			...providerHeaders,
			...(override?.headers ? resolveHeaders(override.headers) : {}),
		};
		return Object.keys(headers).length > 0 ? { ...changed, headers } : changed;
	});
	// pi: a custom model without an api or baseUrl takes the provider's first built-in model's.
	const defaults = { api: config.api ?? builtIn[0]?.api, baseUrl: config.baseUrl ?? builtIn[0]?.baseUrl };
	for (const entry of changes.models) {
		const custom = toModel(name, { ...config, ...defaults }, entry);
		const index = models.findIndex((model) => model.id === custom.id);
		// A built-in model declared again keeps the catalog's prices the entry does not give: pi 0.73.1
		// prices it at 0 without a cost, so every answer looked free (pi#5544, pi#5734).
		if (index >= 0) custom.cost = { ...models[index]!.cost, ...definedOnly(entry.cost ?? {}) };
		if (index >= 0) models[index] = custom;
		else models.push(custom);
	}
	runtime.replaceModels(name, models);
}

/** pi's `applyModelOverride`: given fields replace the model's; cost, thinkingLevelMap and compat merge. */
function applyModelOverride(model: Model, override: ModelOverride): Model {
	const result: Model = { ...model };
	if (override.name !== undefined) result.name = override.name;
	if (override.reasoning !== undefined) result.reasoning = override.reasoning;
	if (override.thinkingLevelMap !== undefined)
		result.thinkingLevelMap = { ...model.thinkingLevelMap, ...override.thinkingLevelMap };
	if (override.input !== undefined) result.input = override.input;
	if (override.contextWindow !== undefined) result.contextWindow = override.contextWindow;
	if (override.maxTokens !== undefined) result.maxTokens = override.maxTokens;
	if (override.cost) result.cost = { ...model.cost, ...definedOnly(override.cost) };
	if (override.compat) result.compat = mergeCompat(model.compat, override.compat);
	return result;
}

function definedOnly<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

/** The wire APIs of a config's models (each model's own, else the config's). */
function modelApis(config: ProviderConfig): string[] {
	return [...new Set((config.models ?? []).map((model) => model.api ?? config.api ?? ""))];
}

/**
 * For models registered without a `streamSimple`: the stream function serving each api when they
 * were registered (taken before, so it is never the provider's own). An api nothing served any more
 * after a re-apply answers with an error message, as a stream function never throws.
 */
function servedStream(runtime: InMemoryModelRuntime, apis: readonly string[]): StreamFn {
	const served = new Map(apis.map((api) => [api, runtime.getStreamFn(api)]));
	return (model, context, options) => {
		const streamFn = served.get(model.api);
		if (streamFn) return streamFn(model, context, options);
		return streamFromMessage(emptyAssistantMessage(model, "error", `Nothing serves api "${model.api}".`));
	};
}

/**
 * A declared model's prices with each missing one filled: pi-ai prices an answer from all four, and
 * one left out made every answer's cost NaN, so a model given only `input` and `output` showed
 * $0 for all its tokens. A missing cache price takes the `input` price (the tokens are input a
 * provider without a cache discount bills as such), a missing `input` or `output` is 0. No prices: all 0.
 *
 * @example
 * ```ts
 * completePrices({ input: 2, output: 8 }); // { input: 2, output: 8, cacheRead: 2, cacheWrite: 2 }
 * ```
 */
export function completePrices(cost: Partial<Model["cost"]> | undefined): Model["cost"] {
	const price = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
	const input = price(cost?.input) ?? 0;
	return {
		input,
		output: price(cost?.output) ?? 0,
		cacheRead: price(cost?.cacheRead) ?? input,
		cacheWrite: price(cost?.cacheWrite) ?? input,
	};
}

function toModel(
	provider: string,
	config: ProviderConfig,
	model: NonNullable<ProviderConfig["models"]>[number],
): Model {
	return {
		name: model.name,
		id: model.id,
		// Never empty: validateProviderConfig refused a model without one.
		api: model.api ?? config.api ?? "",
		provider,
		baseUrl: model.baseUrl ?? config.baseUrl ?? "",
		reasoning: model.reasoning ?? false,
		input: model.input ?? ["text"],
		cost: completePrices(model.cost),
		contextWindow: model.contextWindow ?? 128_000,
		maxTokens: model.maxTokens ?? 16_384,
		// pi 1.6: a model's cache lifetimes make it eligible for cache warming.
		...(model.promptCache ? { promptCache: model.promptCache } : {}),
		// The model's OpenAI/Anthropic compatibility flags (e.g. supportsDeveloperRole) reach pi-ai, over
		// the provider's (pi#5349: pi 0.73.1 dropped a registered provider's own `compat`).
		...(model.compat || config.compat ? { compat: mergeCompat(config.compat, model.compat) } : {}),
		...(model.thinkingLevelMap ? { thinkingLevelMap: model.thinkingLevelMap } : {}),
		...(model.headers || config.headers ? { headers: resolveHeaders({ ...config.headers, ...model.headers }) } : {}),
	};
}

/**
 * pi's `mergeCompat`: a model's compat over its provider's, the routing objects merged key by key.
 *
 * @example
 * ```ts
 * mergeCompat({ supportsDeveloperRole: false, maxTokensField: "max_tokens" }, { supportsDeveloperRole: true });
 * // { supportsDeveloperRole: true, maxTokensField: "max_tokens" }
 * ```
 */
export function mergeCompat(
	provider: Record<string, unknown> | undefined,
	model: Record<string, unknown> | undefined,
): Record<string, unknown> {
	const merged: Record<string, unknown> = { ...provider, ...model };
	for (const key of ["openRouterRouting", "vercelGatewayRouting"]) {
		const [base, over] = [provider?.[key], model?.[key]];
		if (isObject(base) || isObject(over))
			merged[key] = { ...(isObject(base) ? base : {}), ...(isObject(over) ? over : {}) };
	}
	return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * pi's `unregisterProvider` → `refresh()`: every provider an extension changed is put back as the
 * runtime had it (an extension-only provider is removed; virtual models stay), wire APIs and keys
 * extensions set are dropped, then the remaining registered (merged) configs apply again, in order.
 */
function reapplyProviders(runtime: InMemoryModelRuntime, state: ExtensionProviders): void {
	for (const api of state.apis) runtime.setApiStream(api, undefined);
	for (const name of state.requestConfigs.keys()) {
		runtime.setFallbackApiKey(name, undefined);
		runtime.setAuthHeader(name, false);
	}
	for (const [name, snapshot] of state.baselines) {
		if (snapshot) runtime.restoreProvider(snapshot);
		else runtime.unregisterProvider(name);
	}
	state.apis.clear();
	state.requestConfigs.clear();
	state.modelHeaders.clear();
	state.baselines.clear();
	state.overrides.clear();
	for (const [name, config] of state.fileConfigs) {
		const changes = state.fileChanges.get(name);
		if (changes) applyBuiltInChanges(runtime, state, name, config, changes);
		else applyProviderConfig(runtime, state, name, config, false);
	}
	for (const [name, config] of state.registered) applyProviderConfig(runtime, state, name, config, true);
}

/**
 * pi's override-only `registerProvider` (no `models`): the provider's registered models get the new
 * `baseUrl`, and requests to them the request config's headers, keeping their stream function and
 * credentials. As pi resolves them per request: over a built-in model's headers, under the `headers`
 * of a model an extension registered. A provider the runtime does not have is left alone, as pi leaves it.
 */
function overrideProvider(
	runtime: InMemoryModelRuntime,
	state: ExtensionProviders,
	name: string,
	config: ProviderConfig,
): void {
	const override = state.overrides.get(name) ?? {
		original: runtime.getAll().filter((model) => model.provider === name),
	};
	if (override.original.length === 0) return;
	if (!state.baselines.has(name)) state.baselines.set(name, runtime.snapshotProvider(name));
	if (config.baseUrl) override.baseUrl = config.baseUrl;
	state.overrides.set(name, override);
	const requestHeaders = state.requestConfigs.get(name)?.headers;
	const headers = requestHeaders ? resolveHeaders(requestHeaders) : undefined;
	const registered = state.modelHeaders.get(name);
	runtime.replaceModels(
		name,
		override.original.map((model) => {
			const moved = { ...model, baseUrl: override.baseUrl ?? model.baseUrl };
			if (!registered) return headers ? { ...moved, headers: { ...model.headers, ...headers } } : moved;
			// An extension's model: its registration folded the old provider headers in; pi's are the request config's now.
			const own = registered.get(model.id);
			const merged = { ...headers, ...(own ? resolveHeaders(own) : {}) };
			const { headers: _, ...rest } = moved;
			return Object.keys(merged).length > 0 ? { ...rest, headers: merged } : rest;
		}),
	);
}

/**
 * pi's `resolveConfigValue` for a provider's `apiKey` or header value: the environment variable of
 * that name when it is set and non-empty, else the value itself. A whole value written `$NAME` or
 * `${NAME}` (the form later pi's docs give, pi#9258) names the variable too: sent as it stands it
 * is never a key, only a 401. A `!command` value is not run (as for `auth.json` keys): it resolves
 * to nothing, so requests fail the auth check.
 */
function resolveConfigValue(value: string): string | undefined {
	if (value.startsWith("!")) return undefined;
	return resolveConfiguredValue(value);
}

function resolveHeaders(headers: Record<string, string>): Record<string, string> {
	const resolved: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		// A `$NAME` whose variable is unset is left out, as such a key is: its literal text is never the value.
		const header = unsetVariableOf(value) ? undefined : resolveConfigValue(value);
		if (header !== undefined) resolved[name] = header;
	}
	return resolved;
}
