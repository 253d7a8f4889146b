/**
 * `ctx.modelRegistry` for extensions: pi's `ModelRegistry` shape over the session's
 * {@link ModelRuntime}. `pi.registerProvider` works when the runtime accepts registrations
 * ({@link InMemoryModelRuntime}) and the config passes pi's checks and brings models with a
 * `streamSimple` function — or, as in pi, only a `baseUrl` and/or `headers` for a registered
 * provider's models. As in pi, a config with none of these changes no model.
 */
import { errorMessage, SettleError } from "../errors.js";
import type { ExtensionModelRegistry, ProviderConfig } from "../extensions/types.js";
import { InMemoryModelRuntime, type ModelRuntime } from "../llm/model-runtime.js";
import { BUILT_IN_PROVIDER_DISPLAY_NAMES, OAUTH_PROVIDER_DISPLAY_NAMES } from "../llm/provider-display-names.js";
import { withRequestSignal } from "../llm/request-signal.js";
import type { Model, StreamFn } from "../llm/types.js";
import type { VirtualModelDefinition } from "../llm/virtual-models.js";

/** `name` of providers extensions registered, per runtime (several views may share one runtime). */
const registeredDisplayNames = new WeakMap<ModelRuntime, Map<string, string>>();

/**
 * A provider an extension overrode with only `baseUrl`/`headers` (pi's override-only config): its
 * models before the first override, so each override applies to them and unregistering restores them.
 */
interface ProviderOverride {
	original: readonly Model[];
	baseUrl?: string;
	headers?: Record<string, string>;
}
const providerOverrides = new WeakMap<ModelRuntime, Map<string, ProviderOverride>>();

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
		// Settle reads no models.json: nothing to reload, no load error to report.
		refresh: () => {},
		getError: () => undefined,
		getProviderAuthStatus: (provider) =>
			runtime.getAuthStatus?.(provider) ??
			(runtime.hasConfiguredAuth(provider) ? { configured: false, source: "runtime" } : { configured: false }),
		getProviderDisplayName: (provider) =>
			registeredDisplayNames.get(runtime)?.get(provider) ??
			OAUTH_PROVIDER_DISPLAY_NAMES[provider] ??
			BUILT_IN_PROVIDER_DISPLAY_NAMES[provider] ??
			provider,
		find: (provider, modelId) => runtime.getModel(provider, modelId),
		getAll: () => runtime.getAll(),
		getAvailable: () => runtime.getAvailable(),
		hasConfiguredAuth: (model) => runtime.hasConfiguredAuth(model.provider),
		// As pi 0.73.1: a provider without a key is not an error here (the request decides), and the
		// model's own headers come along; only a failing key source answers `ok: false`.
		async getApiKeyAndHeaders(model) {
			try {
				const apiKey = await runtime.getApiKey(model.provider);
				const result: { ok: true; apiKey?: string; headers?: Record<string, string> } = { ok: true };
				if (apiKey !== undefined) result.apiKey = apiKey;
				if (model.headers && Object.keys(model.headers).length > 0) result.headers = { ...model.headers };
				return result;
			} catch (error) {
				return { ok: false, error: errorMessage(error) };
			}
		},
		getApiKeyForProvider: (provider) => runtime.getApiKey(provider),
		isUsingOAuth: (model) => runtime.isUsingOAuth(model.provider),
		registerProvider(name: string, config: ProviderConfig) {
			validateProviderConfig(name, config);
			// As pi: a config without models, baseUrl or headers changes no model (only the display name).
			if (!config.models?.length && !config.baseUrl && !config.headers) {
				const displayName = config.name ?? (typeof config.oauth?.name === "string" ? config.oauth.name : undefined);
				if (displayName !== undefined) setDisplayName(runtime, name, displayName);
				return;
			}
			if (!(runtime instanceof InMemoryModelRuntime)) {
				throw new SettleError("EXTENSION", `Provider "${name}" cannot be registered: this model runtime is fixed.`);
			}
			if (!config.models?.length) {
				overrideProvider(runtime, name, config);
				return;
			}
			if (typeof config.streamSimple !== "function") {
				throw new SettleError(
					"EXTENSION",
					`Provider "${name}" needs a \`streamSimple\` function to be registered with Settle's model runtime.`,
				);
			}
			const models: Model[] = config.models.map((model) => ({
				name: model.name,
				id: model.id,
				// Never empty: validateProviderConfig refused a model without one.
				api: model.api ?? config.api ?? "",
				provider: name,
				baseUrl: model.baseUrl ?? config.baseUrl ?? "",
				reasoning: model.reasoning ?? false,
				input: model.input ?? ["text"],
				cost: model.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
				contextWindow: model.contextWindow ?? 128_000,
				maxTokens: model.maxTokens ?? 16_384,
				// pi 1.6: a model's cache lifetimes make it eligible for cache warming.
				...(model.promptCache ? { promptCache: model.promptCache } : {}),
				...(model.headers || config.headers
					? { headers: resolveHeaders({ ...config.headers, ...model.headers }) }
					: {}),
			}));
			const apiKey = config.apiKey;
			const displayName = config.name ?? (typeof config.oauth?.name === "string" ? config.oauth.name : undefined);
			const names = registeredDisplayNames.get(runtime) ?? new Map<string, string>();
			registeredDisplayNames.set(runtime, names);
			if (displayName !== undefined) names.set(name, displayName);
			else names.delete(name);
			// A full registration replaces the provider: an earlier override no longer applies.
			providerOverrides.get(runtime)?.delete(name);
			runtime.registerProvider({
				provider: name,
				models,
				// A signal per request: provider SDKs an extension wraps may never remove their listener from it.
				streamFn: withRequestSignal(config.streamSimple as unknown as StreamFn),
				// pi's config values: the named environment variable when it is set, else the literal key.
				...(apiKey !== undefined
					? { apiKey: () => resolveConfigValue(apiKey), hasAuth: () => resolveConfigValue(apiKey) !== undefined }
					: { requiresAuth: false }),
				...(config.oauth ? { oauth: true } : {}),
			});
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
			if (!(runtime instanceof InMemoryModelRuntime)) return;
			const override = providerOverrides.get(runtime)?.get(name);
			// As pi: unregistering an override restores the provider's own models; it stays registered.
			if (override) {
				providerOverrides.get(runtime)?.delete(name);
				runtime.replaceModels(name, override.original);
			} else runtime.unregisterProvider(name);
			registeredDisplayNames.get(runtime)?.delete(name);
		},
	};
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

function setDisplayName(runtime: ModelRuntime, provider: string, displayName: string): void {
	const names = registeredDisplayNames.get(runtime) ?? new Map<string, string>();
	registeredDisplayNames.set(runtime, names);
	names.set(provider, displayName);
}

/**
 * pi's override-only `registerProvider` (no `models`): the provider's registered models get the new
 * `baseUrl`, and requests to them the new headers (over the model's own), keeping their stream
 * function and credentials. A later override replaces the headers only when it brings some, as pi's
 * stored request config does. A provider the runtime does not have is left alone, as pi leaves it.
 */
function overrideProvider(runtime: InMemoryModelRuntime, name: string, config: ProviderConfig): void {
	const overrides = providerOverrides.get(runtime) ?? new Map<string, ProviderOverride>();
	providerOverrides.set(runtime, overrides);
	const override = overrides.get(name) ?? {
		original: runtime.getAll().filter((model) => model.provider === name),
	};
	if (override.original.length === 0) return;
	if (config.baseUrl) override.baseUrl = config.baseUrl;
	if (config.headers) override.headers = config.headers;
	overrides.set(name, override);
	const headers = override.headers ? resolveHeaders(override.headers) : undefined;
	runtime.replaceModels(
		name,
		override.original.map((model) => ({
			...model,
			baseUrl: override.baseUrl ?? model.baseUrl,
			...(headers ? { headers: { ...model.headers, ...headers } } : {}),
		})),
	);
	if (config.name !== undefined) setDisplayName(runtime, name, config.name);
}

/**
 * pi's `resolveConfigValue` for a provider's `apiKey` or header value: the environment variable of
 * that name when it is set and non-empty, else the value itself. A `!command` value is not run
 * (as for `auth.json` keys): it resolves to nothing, so requests fail the auth check.
 */
function resolveConfigValue(value: string): string | undefined {
	if (value.startsWith("!")) return undefined;
	return process.env[value] || value;
}

function resolveHeaders(headers: Record<string, string>): Record<string, string> {
	const resolved: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		const header = resolveConfigValue(value);
		if (header !== undefined) resolved[name] = header;
	}
	return resolved;
}
