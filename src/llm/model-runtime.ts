/**
 * ModelRuntime: what an AgentSession needs to know about models — which exist,
 * which have credentials, the API key for a request, and the stream function serving a model's
 * wire API. {@link InMemoryModelRuntime} is the built-in implementation: providers (the faux
 * provider first) register themselves with their models and stream function. Real providers
 * (pi-ai), `auth.json` and environment keys plug in behind the same interface.
 */

import { errorMessage, SettleError } from "../errors.js";
import { streamFromMessage } from "./event-stream.js";
import type { FauxProvider } from "./faux.js";
import { apiKeyEnvVars, GENERIC_API_KEY_ENV_HINT, PI_AI_INSTALL_COMMAND } from "./provider-env.js";
import {
	type AssistantMessage,
	emptyAssistantMessage,
	type Message,
	type Model,
	type StreamFn,
	type StreamOptions,
	type ThinkingLevel,
} from "./types.js";
import {
	createVirtualModel,
	findLatestResponse,
	isVirtualModel,
	type ResolvedModelRoute,
	type ResolveModelOptions,
	type VirtualModelDefinition,
} from "./virtual-models.js";

/** Everything the session asks of a model runtime. Methods must not throw unless documented. */
export interface ModelRuntime {
	/** The model with this provider and id, or undefined. */
	getModel(provider: string, modelId: string): Model | undefined;
	/** Every registered model, in registration order. */
	getAll(): Model[];
	/** Models whose provider has configured auth. */
	getAvailable(): Model[];
	/** Whether requests to `provider` can carry credentials right now (a key, or a provider that needs none). */
	hasConfiguredAuth(provider: string): boolean;
	/**
	 * Slow path of the auth check, consulted only when {@link hasConfiguredAuth} says
	 * no: e.g. refresh an OAuth token. Resolves true when requests can be made. Optional.
	 */
	checkAuth?(provider: string): Promise<boolean>;
	/** Whether `provider` authenticates with OAuth (changes the rejection text). */
	isUsingOAuth(provider: string): boolean;
	/** The API key for one request to `provider` (undefined when it needs none or has none). */
	getApiKey(provider: string): Promise<string | undefined>;
	/** The stream function serving a wire API, or undefined. */
	getStreamFn(api: string): StreamFn | undefined;
	/**
	 * The model a provider suggests when nothing else chose one (pi's per-provider defaults), or
	 * undefined. Optional: without it the first available model is the fallback.
	 */
	getDefaultModelId?(provider: string): string | undefined;
	/**
	 * Where `provider`'s credentials come from, without exposing or refreshing them (pi's
	 * `getProviderAuthStatus`). Optional: without it `ctx.modelRegistry` derives it from
	 * {@link hasConfiguredAuth}. Must not throw.
	 */
	getAuthStatus?(provider: string): ProviderAuthStatus;
	/**
	 * Streams `model` through the stream function registered for `model.api`. An unknown api
	 * answers with an error message (never throws), so a run ends with a readable failure.
	 */
	readonly stream: StreamFn;
	/**
	 * Routes one request of a virtual model (see {@link InMemoryModelRuntime.resolveModel}). Optional:
	 * a runtime without it has no virtual models, and routing one fails with pi's "is not registered".
	 */
	resolveModel?(model: Model, messages: readonly Message[], options: ResolveModelOptions): Promise<ResolvedModelRoute>;
	/** The catalog model with this provider and id when it is physical (not virtual), else undefined. Optional. */
	getPhysicalModel?(provider: string, modelId: string): Model | undefined;
	/**
	 * Why a request to `model` cannot go out now (its provider was unregistered), or undefined.
	 * Optional: without it a selected model is taken as available. See {@link InMemoryModelRuntime.unavailableReason}.
	 */
	unavailableReason?(model: Model): string | undefined;
}

/**
 * Where a provider's credentials come from (pi's `AuthStatus`): `configured` is true only for a key
 * stored in `auth.json`; a key from the environment or given at runtime has `configured: false`
 * and a `source`; no `source` means no credentials.
 */
export interface ProviderAuthStatus {
	configured: boolean;
	/**
	 * `models_json_key` / `models_json_command`: the `apiKey` of a `pi.registerProvider` config (pi
	 * keeps it with models.json's), `configured: true` as in pi.
	 */
	source?: "stored" | "runtime" | "environment" | "models_json_key" | "models_json_command";
	/** The environment variable the key comes from (`source: "environment"`). */
	label?: string;
}

/** API key source: a fixed key, or a function asked per request (short-lived tokens). */
export type ApiKeySource = string | (() => string | undefined | Promise<string | undefined>);

/** One provider as it registers with an {@link InMemoryModelRuntime}. */
export interface ModelProviderRegistration {
	/** Provider id (`faux`, `anthropic`, …). */
	provider: string;
	/** The models it serves; each model's `api` selects the stream function. */
	models: readonly Model[];
	/** Serves every `api` of `models` (pi-ai's `streamSimple` shape). */
	streamFn: StreamFn;
	/**
	 * Credentials. Absent: the provider has no auth configured (prompts are rejected with pi's
	 * "No API key found" text) unless `requiresAuth` is false.
	 */
	apiKey?: ApiKeySource;
	/** False for providers that need no credentials (a local server); default true. */
	requiresAuth?: boolean;
	/** The provider authenticates with OAuth (pi's "Authentication failed" text when it has none). */
	oauth?: boolean;
	/**
	 * Whether credentials are available right now, for an `apiKey` function that may find none
	 * (a key file, environment variables). Default: `apiKey` is set. Must not throw.
	 */
	hasAuth?: () => boolean;
	/** The model to pick when nothing else chose one (see {@link ModelRuntime.getDefaultModelId}). */
	defaultModelId?: string;
}

interface ProviderRecord {
	registration: ModelProviderRegistration;
	apiKey: ApiKeySource | undefined;
}

/**
 * A provider as it stood, to put back with {@link InMemoryModelRuntime.restoreProvider} (opaque).
 */
export interface ProviderSnapshot {
	readonly provider: string;
	readonly record: object;
	readonly registration: ModelProviderRegistration;
	readonly apiKey: ApiKeySource | undefined;
	readonly index: number;
}

interface VirtualModelRecord {
	model: Model;
	route: VirtualModelDefinition["route"];
}

/**
 * A model runtime whose providers register in memory. Later registrations of a provider id
 * replace earlier ones.
 *
 * @example
 * ```ts
 * const faux = createFauxProvider();
 * const runtime = new InMemoryModelRuntime();
 * runtime.registerFauxProvider(faux); // with a placeholder key, so auth checks pass
 * runtime.hasConfiguredAuth("faux"); // true
 * ```
 */
export class InMemoryModelRuntime implements ModelRuntime {
	private readonly providers = new Map<string, ProviderRecord>();
	private readonly streamFns = new Map<string, StreamFn>();
	/** Providers unregistered at some point (a request to one of their models says so when it is still gone). */
	private readonly unregistered = new Set<string>();
	/** Stream functions set per wire API ({@link setApiStream}); they serve every model of that api. */
	private readonly apiStreams = new Map<string, StreamFn>();
	/** Keys used when a provider's own source has none ({@link setFallbackApiKey}). */
	private readonly fallbackKeys = new Map<string, ApiKeySource>();
	/** Providers whose requests carry `Authorization: Bearer <key>` ({@link setAuthHeader}). */
	private readonly authHeaders = new Set<string>();
	/** Virtual models by provider id, then model id (pi's `virtualModels`). */
	private readonly virtualModels = new Map<string, Map<string, VirtualModelRecord>>();
	readonly stream: StreamFn;

	constructor(registrations: readonly ModelProviderRegistration[] = []) {
		for (const registration of registrations) this.registerProvider(registration);
		this.stream = (model, context, options) => {
			// A virtual model streamed directly (a compaction summary, an extension's call) is routed here.
			if (isVirtualModel(model)) return this.streamDirect(model, context, options);
			if (this.authHeaders.size > 0 && this.authHeaders.has(model.provider)) options = withBearer(options);
			// A stream function set for the wire API serves it for every provider (pi-ai's api registry).
			const apiStream = this.apiStreams.get(model.api);
			if (apiStream) return apiStream(model, context, options);
			// The model's own provider first: several providers may share a wire API with different clients.
			const own = this.providers.get(model.provider)?.registration;
			// Its provider was unregistered (an extension's logout): another provider's client would send
			// the request keyless and fail "No API key" (tau#694).
			const unavailable = this.unavailableReason(model);
			if (unavailable !== undefined) return streamFromMessage(emptyAssistantMessage(model, "error", unavailable));
			const streamFn =
				own?.models.some((candidate) => candidate.api === model.api) === true
					? own.streamFn
					: this.streamFns.get(model.api);
			if (streamFn) return streamFn(model, context, options);
			return streamFromMessage(unknownApiMessage(model));
		};
	}

	/**
	 * Why a request to `model` cannot go out now, or undefined when it can: its provider was
	 * unregistered (an extension's `pi.unregisterProvider`, a logout) and not registered again. The
	 * text is the error such a request ends with; a session keeps the model selected meanwhile.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(faux);
	 * const [selected] = models.getAll();
	 * models.unregisterProvider(selected!.provider);
	 * models.unavailableReason(selected!); // 'Model faux/… is no longer available: its provider "faux" was unregistered …'
	 * ```
	 */
	unavailableReason(model: Model): string | undefined {
		if (isVirtualModel(model) || this.apiStreams.has(model.api)) return undefined;
		if (this.providers.has(model.provider) || !this.unregistered.has(model.provider)) return undefined;
		return `Model ${model.provider}/${model.id} is no longer available: its provider "${model.provider}" was unregistered (pi.unregisterProvider). Pick another model (/model, --model) or register the provider again.`;
	}

	/** Registers (or replaces) a provider; returns a function that unregisters it. */
	registerProvider(registration: ModelProviderRegistration): () => void {
		this.unregisterProvider(registration.provider);
		const record: ProviderRecord = { registration, apiKey: registration.apiKey };
		this.providers.set(registration.provider, record);
		for (const model of registration.models) this.streamFns.set(model.api, registration.streamFn);
		return () => {
			if (this.providers.get(registration.provider) === record) this.unregisterProvider(registration.provider);
		};
	}

	/**
	 * Registers a faux provider. `apiKey` defaults to a placeholder (`faux-key`, as pi's test
	 * harness does) so prompts pass the auth check; pass `null` to register it without auth.
	 */
	registerFauxProvider(faux: FauxProvider, options: { apiKey?: string | null } = {}): () => void {
		const registration: ModelProviderRegistration = {
			provider: faux.provider,
			models: faux.models,
			streamFn: faux.streamFn,
		};
		if (options.apiKey !== null) registration.apiKey = options.apiKey ?? "faux-key";
		return this.registerProvider(registration);
	}

	unregisterProvider(provider: string): void {
		const record = this.providers.get(provider);
		if (!record) return;
		this.providers.delete(provider);
		this.unregistered.add(provider);
		for (const api of new Set(record.registration.models.map((model) => model.api))) {
			if (this.streamFns.get(api) !== record.registration.streamFn) continue;
			// Another provider serving the same wire API takes it over (the latest registered one).
			let next: StreamFn | undefined;
			for (const other of this.providers.values()) {
				if (other.registration.models.some((model) => model.api === api)) next = other.registration.streamFn;
			}
			if (next) this.streamFns.set(api, next);
			else this.streamFns.delete(api);
		}
	}

	/**
	 * Replaces the models of a registered provider, keeping its stream function, credentials and
	 * place in the order (pi's override-only `registerProvider`: a new `baseUrl` or headers for a
	 * provider's existing models). Returns false, changing nothing, when `provider` is not registered.
	 * The models' wire APIs must be ones the provider already serves.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * const faux = models.getAll().filter((model) => model.provider === "faux");
	 * models.replaceModels("faux", faux.map((model) => ({ ...model, baseUrl: "http://proxy" }))); // true
	 * ```
	 */
	replaceModels(provider: string, models: readonly Model[]): boolean {
		const record = this.providers.get(provider);
		if (!record) return false;
		record.registration = { ...record.registration, models };
		return true;
	}

	/**
	 * Sets (or with undefined removes) the stream function of a wire API: every model with that `api`,
	 * whichever provider it belongs to, streams through it (pi-ai's `registerApiProvider`, which
	 * pi's `registerProvider` calls for a `streamSimple`). It wins over the providers' own functions.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * const fauxStream = models.getStreamFn("faux")!; // taken before: afterwards it is loggingStream
	 * const loggingStream: StreamFn = (model, context, options) => {
	 *   console.error(`request to ${model.provider}/${model.id}`);
	 *   return fauxStream(model, context, options);
	 * };
	 * models.setApiStream("faux", loggingStream); // faux-1 now streams through loggingStream
	 * models.setApiStream("faux", undefined); // back to the faux provider's own
	 * ```
	 */
	setApiStream(api: string, streamFn: StreamFn | undefined): void {
		if (streamFn) this.apiStreams.set(api, streamFn);
		else this.apiStreams.delete(api);
	}

	/**
	 * Sets (or with undefined removes) a key used when `provider`'s own key source finds none (pi's
	 * `apiKey` of a `registerProvider` config, consulted after stored, runtime and environment keys).
	 * With one set, the provider counts as having credentials. Kept when the provider is replaced.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider(), { apiKey: null });
	 * models.setFallbackApiKey("faux", "proxy-key");
	 * await models.getApiKey("faux"); // "proxy-key"
	 * ```
	 */
	setFallbackApiKey(provider: string, apiKey: ApiKeySource | undefined): void {
		if (apiKey === undefined) this.fallbackKeys.delete(provider);
		else this.fallbackKeys.set(provider, apiKey);
	}

	/**
	 * Whether requests to `provider`'s models carry `Authorization: Bearer <key>` with the request's
	 * key, over the request's headers (pi's `authHeader: true` of a `registerProvider` config).
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * models.setAuthHeader("faux", true); // a request with apiKey "k" gets `Authorization: Bearer k`
	 * ```
	 */
	setAuthHeader(provider: string, on: boolean): void {
		if (on) this.authHeaders.add(provider);
		else this.authHeaders.delete(provider);
	}

	/**
	 * A copy of `provider` as it stands (models, stream function, key, place in the order), or
	 * undefined when it is not registered; {@link restoreProvider} puts it back.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * const before = models.snapshotProvider("faux");
	 * models.replaceModels("faux", []);
	 * if (before) models.restoreProvider(before); // faux-1 is back, in its place
	 * ```
	 */
	snapshotProvider(provider: string): ProviderSnapshot | undefined {
		const record = this.providers.get(provider);
		if (!record) return undefined;
		const index = [...this.providers.keys()].indexOf(provider);
		return { provider, record, registration: record.registration, apiKey: record.apiKey, index };
	}

	/**
	 * Puts a provider back as {@link snapshotProvider} saw it. When it was only given other models
	 * since, its current key stays (a key set meanwhile is kept); when another registration replaced
	 * it, that one is removed and the snapshot's key comes back, unless {@link setApiKey} gave the
	 * replacing one a key: that key stays (as pi's runtime keys, which live apart from providers).
	 */
	restoreProvider(snapshot: ProviderSnapshot): void {
		const { provider } = snapshot;
		const record = snapshot.record as ProviderRecord;
		record.registration = snapshot.registration;
		if (this.providers.get(provider) === record) return;
		const runtimeKey = this.hasRuntimeKey(provider) ? this.providers.get(provider)?.apiKey : undefined;
		this.unregisterProvider(provider);
		record.apiKey = runtimeKey ?? snapshot.apiKey;
		const entries = [...this.providers];
		entries.splice(Math.min(snapshot.index, entries.length), 0, [provider, record]);
		this.providers.clear();
		for (const [id, entry] of entries) this.providers.set(id, entry);
		for (const model of record.registration.models) this.streamFns.set(model.api, record.registration.streamFn);
	}

	/**
	 * Whether {@link setApiKey} (`--api-key`, `createAgentSession({ apiKey })`) gave `provider` a key
	 * of its own: that key goes on its requests, before the registration's source.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * models.setApiKey("faux", "given-key");
	 * models.hasRuntimeKey("faux"); // true
	 * ```
	 */
	hasRuntimeKey(provider: string): boolean {
		const record = this.providers.get(provider);
		return record !== undefined && record.apiKey !== undefined && record.apiKey !== record.registration.apiKey;
	}

	/** Sets (or with undefined removes) the credentials of a registered provider. */
	setApiKey(provider: string, apiKey: ApiKeySource | undefined): void {
		const record = this.providers.get(provider);
		if (record) record.apiKey = apiKey;
	}

	getModel(provider: string, modelId: string): Model | undefined {
		// A virtual model hides a physical one with the same id (one registered later, too).
		const virtual = this.virtualModels.get(provider)?.get(modelId);
		if (virtual) return virtual.model;
		return this.providers.get(provider)?.registration.models.find((model) => model.id === modelId);
	}

	/** Physical models per provider in registration order, each followed by its virtual models; then providers of only virtual models. */
	getAll(): Model[] {
		const models: Model[] = [];
		for (const [provider, record] of this.providers) {
			const virtual = this.virtualModels.get(provider);
			if (!virtual) {
				models.push(...record.registration.models);
				continue;
			}
			for (const model of record.registration.models) if (!virtual.has(model.id)) models.push(model);
			for (const entry of virtual.values()) models.push(entry.model);
		}
		for (const [provider, virtual] of this.virtualModels) {
			if (this.providers.has(provider)) continue;
			for (const entry of virtual.values()) models.push(entry.model);
		}
		return models;
	}

	/**
	 * Registers a virtual model under `definition.provider` (pi's `registerVirtualModel`): listed with
	 * the provider's models, available when that provider has credentials, always available under a
	 * provider id no physical provider uses. Registering the same provider and id again replaces it;
	 * {@link unregisterProvider} leaves it. Returns a function that unregisters it.
	 *
	 * Throws SettleError `INVALID_ARGUMENT` for an empty provider or id, or an id of one of the
	 * provider's physical models (pi's texts).
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * models.registerVirtualModel({
	 *   provider: "router",
	 *   id: "auto",
	 *   name: "Auto",
	 *   route: (request) => ({ model: models.getModel("faux", "faux-1")!, thinkingLevel: request.thinkingLevel }),
	 * });
	 * models.getModel("router", "auto")?.api; // "pi-virtual"
	 * ```
	 */
	registerVirtualModel<TState = unknown>(definition: VirtualModelDefinition<TState>): () => void {
		const { provider, id } = definition;
		if (!provider.trim() || !id.trim()) {
			throw new SettleError("INVALID_ARGUMENT", "Virtual model provider and id must not be empty.");
		}
		const existing = this.getModel(provider, id);
		if (existing && !isVirtualModel(existing)) {
			throw new SettleError("INVALID_ARGUMENT", `Virtual model ${provider}/${id} conflicts with a physical model.`);
		}
		const models = this.virtualModels.get(provider) ?? new Map<string, VirtualModelRecord>();
		const record: VirtualModelRecord = {
			model: createVirtualModel(definition),
			route: definition.route as VirtualModelDefinition["route"],
		};
		models.set(id, record);
		this.virtualModels.set(provider, models);
		return () => {
			if (this.virtualModels.get(provider)?.get(id) === record) this.unregisterVirtualModel(provider, id);
		};
	}

	/** Removes a virtual model; unknown ones are ignored. A physical model it hid is listed again. */
	unregisterVirtualModel(provider: string, id: string): void {
		const models = this.virtualModels.get(provider);
		if (!models?.delete(id)) return;
		if (models.size === 0) this.virtualModels.delete(provider);
	}

	/**
	 * Asks a virtual model's router for the model and thinking level of one request (pi's
	 * `resolveModel`). The router must return a physical catalog model whose provider has
	 * credentials; the thinking level is clamped to that model. Rejects with pi's texts when the
	 * virtual model is not registered, the router throws, or its answer is virtual or without credentials.
	 *
	 * @example
	 * ```ts
	 * const models = new InMemoryModelRuntime();
	 * models.registerFauxProvider(createFauxProvider());
	 * const faux1 = models.getModel("faux", "faux-1")!;
	 * models.registerVirtualModel({ provider: "router", id: "auto", name: "Auto", route: () => ({ model: faux1, thinkingLevel: "high" }) });
	 * const route = await models.resolveModel(models.getModel("router", "auto")!, [], { reason: "direct", thinkingLevel: "low" });
	 * route.model.id; // "faux-1"
	 * route.thinkingLevel; // "off"
	 * ```
	 */
	async resolveModel(
		model: Model,
		messages: readonly Message[],
		options: ResolveModelOptions,
	): Promise<ResolvedModelRoute> {
		const name = `Virtual model ${model.provider}/${model.id}`;
		const virtual = this.virtualModels.get(model.provider)?.get(model.id);
		if (!virtual) throw new SettleError("PROVIDER", `${name} is not registered.`);
		const { failed, ...request } = options;
		const latest = findLatestResponse(messages);
		const previousModel = latest && this.getPhysicalModel(latest.provider, latest.model);
		// A failed routing attempt names the virtual model: there is no physical request to report.
		const failedModel = failed && this.getPhysicalModel(failed.provider, failed.model);
		const route = await virtual.route({
			...request,
			model,
			...(previousModel ? { previous: withLevel({ model: previousModel }, latest?.thinkingLevel) } : {}),
			...(failedModel && failed
				? { failed: withLevel({ model: failedModel, message: failed }, failed.thinkingLevel) }
				: {}),
			messages,
		});
		const target = route?.model ? this.getPhysicalModel(route.model.provider, route.model.id) : undefined;
		const routed = `${name} routed to ${route?.model?.provider}/${route?.model?.id}`;
		if (!target) throw new SettleError("PROVIDER", `${routed}, which is not a physical model.`);
		if (!this.hasConfiguredAuth(target.provider))
			throw new SettleError("PROVIDER", `${routed}, which has no credentials.`);
		const resolved: ResolvedModelRoute = {
			model: target,
			thinkingLevel: clampThinkingLevel(target, route.thinkingLevel),
		};
		if (route.state !== undefined) resolved.state = route.state;
		return resolved;
	}

	/** The catalog model when it is physical, else undefined (pi's `getPhysicalModel`). */
	getPhysicalModel(provider: string, modelId: string): Model | undefined {
		const model = this.getModel(provider, modelId);
		return model && !isVirtualModel(model) ? model : undefined;
	}

	/**
	 * A request outside the agent loop with a virtual model (pi's `streamSimple` for one): routed
	 * with reason `direct`, the output budget capped to the routed model, and the caller's key kept
	 * only when the routed model has the same provider. A failed routing answers with an error
	 * message naming the virtual model (a stream function never throws).
	 */
	private async streamDirect(model: Model, context: Parameters<StreamFn>[1], options: StreamOptions | undefined) {
		let route: ResolvedModelRoute;
		try {
			const routeOptions: ResolveModelOptions = { reason: "direct", thinkingLevel: options?.reasoning ?? "off" };
			if (options?.signal) routeOptions.signal = options.signal;
			route = await this.resolveModel(model, context.messages, routeOptions);
		} catch (error) {
			return streamFromMessage(emptyAssistantMessage(model, "error", errorMessage(error)));
		}
		const { apiKey, headers, reasoning: _, ...rest } = options ?? {};
		const request: StreamOptions = rest;
		const limit = route.model.maxTokens;
		if (options?.maxTokens && limit > 0) request.maxTokens = Math.min(options.maxTokens, limit);
		if (route.thinkingLevel !== "off") request.reasoning = route.thinkingLevel;
		if (route.model.provider === model.provider) {
			if (apiKey !== undefined) request.apiKey = apiKey;
			if (headers !== undefined) request.headers = headers;
		} else {
			const key = await this.getApiKey(route.model.provider);
			if (key !== undefined) request.apiKey = key;
		}
		return this.stream(route.model, context, request);
	}

	getAvailable(): Model[] {
		return this.getAll().filter((model) => this.hasConfiguredAuth(model.provider));
	}

	hasConfiguredAuth(provider: string): boolean {
		const record = this.providers.get(provider);
		// A provider of only virtual models needs no credentials (pi marks it configured).
		if (!record) return this.virtualModels.has(provider);
		if (record.registration.requiresAuth === false || this.fallbackKeys.has(provider)) return true;
		if (record.apiKey === undefined) return false;
		// A key set with setApiKey() counts as configured; the registration's own source may find none.
		if (record.apiKey !== record.registration.apiKey || !record.registration.hasAuth) return true;
		try {
			return record.registration.hasAuth();
		} catch {
			return false;
		}
	}

	/** A key given to the runtime (the registration's, or {@link setApiKey}) is a `runtime` source. */
	getAuthStatus(provider: string): ProviderAuthStatus {
		const record = this.providers.get(provider);
		// A provider of only virtual models needs no key: like a key given at runtime, not a stored one.
		if (!record && this.virtualModels.has(provider)) return { source: "runtime", configured: false };
		if (!record || record.apiKey === undefined) return { configured: false };
		if (record.apiKey === record.registration.apiKey && record.registration.hasAuth) {
			try {
				if (!record.registration.hasAuth()) return { configured: false };
			} catch {
				return { configured: false };
			}
		}
		return { configured: false, source: "runtime" };
	}

	/** Provider ids in registration order. */
	getProviders(): string[] {
		return [...this.providers.keys()];
	}

	getDefaultModelId(provider: string): string | undefined {
		return this.providers.get(provider)?.registration.defaultModelId;
	}

	isUsingOAuth(provider: string): boolean {
		return this.providers.get(provider)?.registration.oauth === true;
	}

	getApiKey(provider: string): Promise<string | undefined> {
		const own = this.providers.get(provider)?.apiKey;
		// Asked before every request: a key held as a value (or none) answers with a settled promise,
		// without the two async frames and extra microtasks that resolving a key function needs.
		if (typeof own === "string") return Promise.resolve(own);
		if (own === undefined) {
			const fallback = this.fallbackKeys.get(provider);
			if (typeof fallback !== "function") return Promise.resolve(fallback);
		}
		return this.resolveApiKey(provider, own);
	}

	private async resolveApiKey(provider: string, own: ApiKeySource | undefined): Promise<string | undefined> {
		return (await resolveKey(own)) ?? (await resolveKey(this.fallbackKeys.get(provider)));
	}

	getStreamFn(api: string): StreamFn | undefined {
		return this.apiStreams.get(api) ?? this.streamFns.get(api);
	}
}

/** The request with `Authorization: Bearer <its key>` over its headers; unchanged without a key. */
function withBearer(options: StreamOptions | undefined): StreamOptions | undefined {
	if (!options?.apiKey) return options;
	return { ...options, headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` } };
}

async function resolveKey(source: ApiKeySource | undefined): Promise<string | undefined> {
	return typeof source === "function" ? await source() : source;
}

function withLevel<T extends object>(
	value: T,
	thinkingLevel: ThinkingLevel | undefined,
): T & { thinkingLevel?: ThinkingLevel } {
	return thinkingLevel === undefined ? value : { ...value, thinkingLevel };
}

function unknownApiMessage(model: Model): AssistantMessage {
	return emptyAssistantMessage(
		model,
		"error",
		`No stream function is registered for api "${model.api}" (model ${model.provider}/${model.id}). Register its provider with the model runtime.`,
	);
}

/**
 * Whether two models are the same (provider and id); false when either is undefined.
 *
 * @example
 * ```ts
 * sameModel(session.model, { provider: "anthropic", id: "claude-opus-4-7" }); // true when that model is selected
 * sameModel(undefined, undefined); // false
 * ```
 */
export function sameModel(
	a: Pick<Model, "provider" | "id"> | undefined,
	b: Pick<Model, "provider" | "id"> | undefined,
) {
	return a !== undefined && b !== undefined && a.provider === b.provider && a.id === b.id;
}

// ---------------------------------------------------------------------------------------------
// pi's user-visible texts (C.1 steps 7–8, C.12). The first sentence of each is pi's exact text;
// the guidance after it names Settle's way of configuring models instead of pi's `/login` docs.

// What fixes a missing key on a model runtime the caller made ("it" is that runtime).
const PROVIDER_HELP_IN_CODE =
	"register the provider with it (`modelRuntime.registerProvider(...)`; " +
	"a faux provider: `modelRuntime.registerFauxProvider(faux)`), or give it an API key (`modelRuntime.setApiKey(provider, key)`).";
const PROVIDER_HELP = `With a model runtime of your own, ${PROVIDER_HELP_IN_CODE}`;

/**
 * Rejection when the session has no model (tests match `No model selected.`). It names both ways
 * to get one: the default model runtime (pi-ai's, which `createAgentSession` builds when it is
 * given no `modelRuntime`) needs a provider key, a runtime of your own a registered provider.
 *
 * @example
 * ```ts
 * noModelSelectedMessage(); // "No model selected.\n\nWith the default model runtime (pi-ai's, …), set a provider's API key … With a model runtime of your own, register the provider … \n\nThen use setModel() to select a model."
 * ```
 */
export function noModelSelectedMessage(): string {
	return (
		"No model selected.\n\n" +
		`With the default model runtime (pi-ai's, \`${PI_AI_INSTALL_COMMAND}\`), set a provider's API key in the environment ` +
		`(${GENERIC_API_KEY_ENV_HINT}) or in <agentDir>/auth.json. With a model runtime of your own, register the provider with it ` +
		"(`modelRuntime.registerProvider(...)`; a faux provider: `modelRuntime.registerFauxProvider(faux)`) or give it an API key (`modelRuntime.setApiKey(provider, key)`)." +
		"\n\nThen use setModel() to select a model."
	);
}

/**
 * Rejection when the provider has no credentials (tests match `No API key found for <provider>.`).
 * For a provider pi-ai reads a key variable for, it names the three places the default model
 * runtime (pi-ai's) takes the key from: that variable, the `auth.json` entry to write, and
 * `createAgentSession`'s `authStorage`; then what fixes a model runtime of the caller's own.
 *
 * @example
 * ```ts
 * noApiKeyFoundMessage("groq"); // "No API key found for groq.\n\nSet GROQ_API_KEY in the environment, or write {\"groq\":{…}} in <agentDir>/auth.json … With a model runtime of your own, register the provider …"
 * noApiKeyFoundMessage("my-proxy"); // "No API key found for my-proxy.\n\nWith a model runtime of your own, register the provider with it …"
 * ```
 */
export function noApiKeyFoundMessage(provider: string): string {
	const display = provider === "unknown" ? "the selected model" : provider;
	const vars = apiKeyEnvVars(provider);
	const entry = JSON.stringify({ [provider]: { type: "api_key", key: "…" } });
	const help = vars
		? `Set ${vars.join(" or ")} in the environment, or write ${entry} in <agentDir>/auth.json ` +
			`(the default model runtime, pi-ai's, reads both; in code: createAgentSession({ authStorage: AuthStorage.inMemory({ ${JSON.stringify(provider)}: key }) })). ` +
			PROVIDER_HELP
		: PROVIDER_HELP;
	return `No API key found for ${display}.\n\n${help}`;
}

/**
 * Rejection for an OAuth provider without usable credentials (pi's exact text).
 *
 * @example
 * ```ts
 * authenticationFailedMessage("anthropic"); // 'Authentication failed for "anthropic". Credentials may have expired … Run \'/login anthropic\' to re-authenticate.'
 * ```
 */
export function authenticationFailedMessage(provider: string): string {
	return `Authentication failed for "${provider}". Credentials may have expired or network is unavailable. Run '/login ${provider}' to re-authenticate.`;
}

/**
 * `setModel()` to a model without auth (pi's exact text).
 *
 * @example
 * ```ts
 * noApiKeyForModelMessage({ provider: "anthropic", id: "claude-opus-4-7" }); // "No API key for anthropic/claude-opus-4-7"
 * ```
 */
export function noApiKeyForModelMessage(model: Pick<Model, "provider" | "id">): string {
	return `No API key for ${model.provider}/${model.id}`;
}

// ---------------------------------------------------------------------------------------------
// Thinking levels (pi-ai's `getSupportedThinkingLevels` / `clampThinkingLevel` semantics)

/** Every thinking level, lowest first. */
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/**
 * The thinking levels a model supports: `["off"]` for non-reasoning models; otherwise every level
 * its `thinkingLevelMap` does not mark `null`, with `xhigh` only when the map names it.
 *
 * @example
 * ```ts
 * supportedThinkingLevels({ ...model, reasoning: true }); // ["off", "minimal", "low", "medium", "high"]
 * ```
 */
export function supportedThinkingLevels(model: Pick<Model, "reasoning" | "thinkingLevelMap">): ThinkingLevel[] {
	if (!model.reasoning) return ["off"];
	return THINKING_LEVELS.filter((level) => {
		const mapped = model.thinkingLevelMap?.[level];
		if (mapped === null) return false;
		return level === "xhigh" ? mapped !== undefined : true;
	});
}

/**
 * The nearest supported level: `level` itself when supported, else the next higher supported
 * level, else the next lower one. Newer pi's `max` (above `xhigh`) is the model's highest level.
 *
 * @example
 * ```ts
 * clampThinkingLevel({ reasoning: false }, "high"); // "off"
 * clampThinkingLevel({ reasoning: true }, "max" as ThinkingLevel); // "high"
 * ```
 */
export function clampThinkingLevel(
	model: Pick<Model, "reasoning" | "thinkingLevelMap">,
	level: ThinkingLevel,
): ThinkingLevel {
	const available = supportedThinkingLevels(model);
	if (available.includes(level)) return level;
	// Newer pi's `max` (a session or settings it wrote) is above `xhigh`: the model's highest level.
	const index = (level as string) === "max" ? THINKING_LEVELS.length : THINKING_LEVELS.indexOf(level);
	if (index === -1) return available[0] ?? "off";
	for (let i = index; i < THINKING_LEVELS.length; i++)
		if (available.includes(THINKING_LEVELS[i]!)) return THINKING_LEVELS[i]!;
	for (let i = index - 1; i >= 0; i--) if (available.includes(THINKING_LEVELS[i]!)) return THINKING_LEVELS[i]!;
	return available[0] ?? "off";
}
