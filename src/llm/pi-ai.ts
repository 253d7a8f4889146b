/**
 * Real model providers through pi-ai (`@mariozechner/pi-ai`): its model catalogue (static, no
 * network), its `streamSimple` (which dispatches on the model's wire API to the provider clients)
 * and its environment-key helper, behind Settle's {@link ModelRuntime} interface.
 *
 * pi-ai is imported lazily, on the first {@link createPiAiModelRuntime} call: it is never on the
 * import path of `settle`, so sessions on the faux provider (tests, `--faux`) never load it; and
 * only the parts Settle calls are loaded (see `importPiAiParts`).
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { errorMessage, SettleError } from "../errors.js";
import { withDefaultProfileRegion } from "./bedrock-region.js";
import { converseMessagesOptions } from "./converse-messages.js";
import { streamFromMessage } from "./event-stream.js";
import { alternatingGeminiTurnsOptions, withoutBlankGeminiText } from "./gemini-empty-text.js";
import { signUnsignedGeminiCalls } from "./gemini-unsigned-calls.js";
import { joinedUserTurns } from "./joined-user-turns.js";
import { kimiReasoningContent } from "./kimi-reasoning-content.js";
import { withLongCacheWritePrice } from "./long-cache-write-price.js";
import { mistralToolTurnsOptions } from "./mistral-tool-turns.js";
import { InMemoryModelRuntime, type ModelProviderRegistration, type ProviderAuthStatus } from "./model-runtime.js";
import { PI_AI_PEER_VERSION } from "./provider-env.js";
import { withRequestSignal } from "./request-signal.js";
import { streamWatchingResponses } from "./response-activity.js";
import { keepSignedEmptyThinking } from "./signed-empty-thinking.js";
import { requestReplayableReasoning } from "./stateless-reasoning.js";
import { withoutThinkingOnlyAnswers } from "./thinking-only-answers.js";
import { replayableToolCallIds, withoutMissingItemIds } from "./tool-call-ids.js";
import { toolHistoryAsText } from "./tool-history-as-text.js";
import {
	type AssistantMessageEventStream,
	type Context,
	emptyAssistantMessage,
	type Model,
	type ModelCost,
	type StreamFn,
	type StreamOptions,
} from "./types.js";

/** A request on its way to pi-ai: the messages it builds the payload from and its options. */
type WireRequest = { context: Context; options: StreamOptions | undefined };
type RequestTransform = (model: Model, request: WireRequest) => WireRequest;

const onContext =
	(change: (model: Model, context: Context) => Context): RequestTransform =>
	(model, request) => ({ ...request, context: change(model, request.context) });
const onOptions =
	(change: (model: Model, options: StreamOptions | undefined) => StreamOptions | undefined): RequestTransform =>
	(model, request) => ({ ...request, options: change(model, request.options) });

/**
 * What Settle changes in each request before pi-ai builds it, in order: each sees the one before's
 * result. An options change wraps the `onPayload` before it, so the later one's hook runs first.
 */
const REQUEST_TRANSFORMS: readonly RequestTransform[] = [
	onContext(withoutBlankGeminiText),
	onContext(withoutThinkingOnlyAnswers),
	onContext(joinedUserTurns),
	onContext(toolHistoryAsText),
	onContext(withoutMissingItemIds),
	onContext(replayableToolCallIds),
	onOptions(requestReplayableReasoning),
	onOptions(kimiReasoningContent),
	onOptions(converseMessagesOptions),
	onOptions(mistralToolTurnsOptions),
	onOptions(signUnsignedGeminiCalls),
	onOptions(alternatingGeminiTurnsOptions),
	(model, { context, options }) => keepSignedEmptyThinking(model, context, options),
];

/** The npm package the adapter loads. */
export const PI_AI_PACKAGE = "@mariozechner/pi-ai";

/** The parts of pi-ai the adapter uses (kept structural, so pi-ai's types stay off our import path). */
export interface PiAiModule {
	getProviders(): string[];
	getModels(provider: string): Model[];
	streamSimple(model: Model, context: Context, options?: StreamOptions): AssistantMessageEventStream;
	getEnvApiKey(provider: string): string | undefined;
	/** The environment variables that may hold `provider`'s key (pi-ai 0.73+); names the source. */
	findEnvKeys?(provider: string): string[] | undefined;
}

/**
 * A model's prices with the catalogue's placeholders taken out: pi-ai 0.73.1 marks a price that
 * varies per request (`openrouter/auto` routes to whichever model it picks) as `-1000000` a
 * million, and pi-ai prices an answer with it as it is, so every answer on that model cost minus
 * a dollar per token and the session's total went negative (pi#7688). A rate that is negative or
 * not a finite number is unknown and counts 0, as a model without prices does; the tokens are still
 * counted. Applied to the catalogue (pi-ai's models); `modelOverrides` prices are checked where read (≥ 0).
 *
 * @example
 * ```ts
 * knownPrices({ input: -1_000_000, output: -1_000_000, cacheRead: 0, cacheWrite: 0 }); // all 0
 * knownPrices({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }); // unchanged
 * ```
 */
export function knownPrices(cost: ModelCost | undefined): ModelCost {
	const rate = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);
	return {
		input: rate(cost?.input),
		output: rate(cost?.output),
		cacheRead: rate(cost?.cacheRead),
		cacheWrite: rate(cost?.cacheWrite),
	};
}

/** Where stored API keys come from (an `auth.json`, a secrets manager…). */
export interface CredentialSource {
	/** The stored API key of `provider`, or undefined. Called per request and per auth check; must not throw. */
	getApiKey(provider: string): string | undefined;
}

/** Options of {@link createPiAiModelRuntime}. */
export interface PiAiModelRuntimeOptions {
	/** Stored keys, consulted before environment variables (e.g. the agent dir's `auth.json`). */
	credentials?: CredentialSource;
	/** Read keys from pi-ai's environment variables (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, …); default true. */
	useEnvironment?: boolean;
	/** Register only these providers of the catalogue (default: all of them). */
	providers?: readonly string[];
	/** Loads pi-ai (default: its catalogue, `streamSimple` and key modules alone, see `importPiAiParts`); a test seam for "not installed". */
	importPiAi?: () => Promise<unknown>;
}

/**
 * pi's per-provider default models (pi-coding-agent 0.73.1 `defaultModelPerProvider`), in pi's
 * order: when nothing else chose a model, the first provider in this order with credentials wins.
 */
export const PI_DEFAULT_MODEL_PER_PROVIDER: Readonly<Record<string, string>> = {
	"amazon-bedrock": "us.anthropic.claude-opus-4-6-v1",
	anthropic: "claude-opus-4-7",
	openai: "gpt-5.4",
	"azure-openai-responses": "gpt-5.4",
	"openai-codex": "gpt-5.5",
	deepseek: "deepseek-v4-pro",
	google: "gemini-3.1-pro-preview",
	"google-vertex": "gemini-3.1-pro-preview",
	"github-copilot": "gpt-5.4",
	openrouter: "moonshotai/kimi-k2.6",
	"vercel-ai-gateway": "zai/glm-5.1",
	xai: "grok-4.20-0309-reasoning",
	groq: "openai/gpt-oss-120b",
	cerebras: "zai-glm-4.7",
	zai: "glm-5.1",
	mistral: "devstral-medium-latest",
	minimax: "MiniMax-M2.7",
	"minimax-cn": "MiniMax-M2.7",
	moonshotai: "kimi-k2.6",
	"moonshotai-cn": "kimi-k2.6",
	huggingface: "moonshotai/Kimi-K2.6",
	fireworks: "accounts/fireworks/models/kimi-k2p6",
	opencode: "kimi-k2.6",
	"opencode-go": "kimi-k2.6",
	"kimi-coding": "kimi-for-coding",
	"cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.6",
	"cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.6",
	xiaomi: "mimo-v2.5-pro",
	"xiaomi-token-plan-cn": "mimo-v2.5-pro",
	"xiaomi-token-plan-ams": "mimo-v2.5-pro",
	"xiaomi-token-plan-sgp": "mimo-v2.5-pro",
};

/**
 * The `SettleError` MISSING_DEPENDENCY thrown when pi-ai cannot be imported (says how to install it).
 *
 * @example
 * ```ts
 * const error = piAiNotInstalledError(new Error("Cannot find module '@mariozechner/pi-ai'"));
 * error.code; // "MISSING_DEPENDENCY"
 * ```
 */
export function piAiNotInstalledError(cause: unknown): SettleError {
	return new SettleError(
		"MISSING_DEPENDENCY",
		`Real model providers need ${PI_AI_PACKAGE}, which could not be loaded (${errorMessage(cause)}). ` +
			`Install it next to settle with \`npm install ${PI_AI_PACKAGE}@${PI_AI_PEER_VERSION}\`, or run offline with the faux provider (\`settle --faux\`).`,
		{ cause, details: { package: PI_AI_PACKAGE } },
	);
}

/**
 * Imports pi-ai and checks that it has what the adapter needs. Throws `MISSING_DEPENDENCY` (saying
 * to `npm install @mariozechner/pi-ai@<the peer version>`) when it is not installed or too different.
 *
 * @example
 * ```ts
 * const piAi = await loadPiAi();
 * piAi.getProviders(); // ["amazon-bedrock", "anthropic", …]
 * ```
 */
export async function loadPiAi(importPiAi: () => Promise<unknown> = importPiAiParts): Promise<PiAiModule> {
	let loaded: Partial<PiAiModule>;
	try {
		loaded = (await importPiAi()) as Partial<PiAiModule>;
	} catch (error) {
		throw piAiNotInstalledError(error);
	}
	const missing = PI_AI_FUNCTIONS.filter((name) => typeof loaded[name] !== "function");
	if (missing.length > 0) {
		throw piAiNotInstalledError(new Error(`the installed package has no ${missing.join(", ")}`));
	}
	return loaded as PiAiModule;
}

const PI_AI_FUNCTIONS = ["getProviders", "getModels", "streamSimple", "getEnvApiKey"] as const;

/**
 * pi-ai's catalogue, `streamSimple` and key helpers, imported from the files beside its index: the
 * index also loads typebox's compiler (~680 modules, ~0.2 s of CPU on every `settle` start on a real
 * provider) for validators Settle does not use. Same files as the index imports, so one api-registry
 * is shared with code importing the package. The whole package when the layout is not the known one.
 */
async function importPiAiParts(): Promise<unknown> {
	const dist = piAiDist();
	if (dist === undefined) return import(PI_AI_PACKAGE);
	try {
		const part = (file: string) => import(pathToFileURL(join(dist, file)).href) as Promise<Record<string, unknown>>;
		const parts = await Promise.all([part("models.js"), part("env-api-keys.js"), part("stream.js")]);
		const module: Record<string, unknown> = Object.assign({}, ...parts);
		if (PI_AI_FUNCTIONS.every((name) => typeof module[name] === "function")) return module;
	} catch {
		// Not the known layout: the package's own entry decides (and its error is the one reported).
	}
	return import(PI_AI_PACKAGE);
}

/** The folder of pi-ai's index module as `import()` finds it from here (its package.json `exports`), real path. */
function piAiDist(): string | undefined {
	try {
		for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
			const root = join(dir, "node_modules", PI_AI_PACKAGE);
			if (existsSync(join(root, "package.json"))) {
				const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
					exports?: { "."?: { import?: unknown } };
				};
				const index = manifest.exports?.["."]?.import;
				return typeof index === "string" ? dirname(realpathSync(join(root, index))) : undefined;
			}
			if (dirname(dir) === dir) return undefined;
		}
	} catch {
		return undefined;
	}
}

/**
 * A model runtime over pi-ai's providers. Each catalogue provider is registered with its models, pi's
 * default model, and a key looked up per request: the {@link CredentialSource} first, then pi-ai's
 * environment variables. Extensions can still register their own providers (it is an
 * {@link InMemoryModelRuntime}).
 *
 * @example
 * ```ts
 * const runtime = new PiAiModelRuntime(await loadPiAi(), { providers: ["anthropic"], useEnvironment: false });
 * runtime.getModel("anthropic", "claude-opus-4-7"); // the catalogue model
 * // usually: const runtime = await createPiAiModelRuntime({ credentials });
 * ```
 */
export class PiAiModelRuntime extends InMemoryModelRuntime {
	readonly piAi: PiAiModule;
	private readonly credentials: CredentialSource | undefined;
	private readonly useEnvironment: boolean;
	/** pi-ai's `streamSimple`, answering with an error message instead of throwing (unknown wire API). */
	readonly piAiStream: StreamFn;

	constructor(piAi: PiAiModule, options: Omit<PiAiModelRuntimeOptions, "importPiAi"> = {}) {
		super();
		this.piAi = piAi;
		this.credentials = options.credentials;
		this.useEnvironment = options.useEnvironment !== false;
		// A signal per request: pi-ai's provider SDKs never remove the listener they add to it.
		// The session's refusal details read the responses' status, headers and body (provider-stream.ts).
		this.piAiStream = withRequestSignal(
			streamWatchingResponses((model, given, streamOptions) => {
				try {
					let sent: WireRequest = { context: given, options: streamOptions };
					for (const transform of REQUEST_TRANSFORMS) sent = transform(model, sent);
					// pi-ai's streamSimple passes no region option on: the default profile's goes in the endpoint.
					return piAi.streamSimple(
						withLongCacheWritePrice(withDefaultProfileRegion(model), sent.options),
						sent.context,
						sent.options,
					);
				} catch (error) {
					return streamFromMessage(emptyAssistantMessage(model, "error", errorMessage(error)));
				}
			}),
		);
		const wanted = options.providers ? new Set(options.providers) : undefined;
		const catalogue = piAi.getProviders().filter((provider) => !wanted || wanted.has(provider));
		const ordered = [
			...Object.keys(PI_DEFAULT_MODEL_PER_PROVIDER).filter((provider) => catalogue.includes(provider)),
			...catalogue.filter((provider) => !(provider in PI_DEFAULT_MODEL_PER_PROVIDER)),
		];
		for (const provider of ordered) {
			const models = piAi.getModels(provider);
			if (models.length > 0) this.registerPiAiProvider(provider, models);
		}
	}

	/**
	 * Registers (or replaces) a provider whose models pi-ai serves through `streamSimple` — a
	 * catalogue provider, or one registered in pi-ai's own registry (pi-ai's `registerFauxProvider`,
	 * a custom endpoint). Keys come from the credential source, then the environment.
	 *
	 * @example
	 * ```ts
	 * import { registerFauxProvider } from "@mariozechner/pi-ai";
	 *
	 * const runtime = await createPiAiModelRuntime();
	 * const faux = registerFauxProvider({ provider: "pi-faux" });
	 * runtime.registerPiAiProvider("pi-faux", faux.models, { requiresAuth: false });
	 * ```
	 */
	registerPiAiProvider(
		provider: string,
		models: readonly Model[],
		options: { requiresAuth?: boolean; defaultModelId?: string } = {},
	): () => void {
		const registration: ModelProviderRegistration = {
			provider,
			models: models.map((model) => ({ ...model, provider, cost: knownPrices(model.cost) })),
			streamFn: this.piAiStream,
			apiKey: () => this.lookUpKey(provider),
			hasAuth: () => this.lookUpKey(provider) !== undefined,
		};
		if (options.requiresAuth === false) registration.requiresAuth = false;
		const defaultModelId = options.defaultModelId ?? PI_DEFAULT_MODEL_PER_PROVIDER[provider];
		if (defaultModelId !== undefined) registration.defaultModelId = defaultModelId;
		return this.registerProvider(registration);
	}

	/**
	 * Registers (or replaces) a provider. One registered without a key source of its own (pi's
	 * `models.json`, `pi.registerProvider`) still takes a key stored for it in `auth.json`, then the
	 * environment's, as in pi, where those come before the config's `apiKey`.
	 */
	override registerProvider(registration: ModelProviderRegistration): () => void {
		if (registration.apiKey !== undefined || registration.requiresAuth === false) {
			return super.registerProvider(registration);
		}
		const { provider } = registration;
		return super.registerProvider({
			...registration,
			apiKey: () => this.lookUpKey(provider),
			hasAuth: () => this.lookUpKey(provider) !== undefined,
		});
	}

	/** Where a provider's key comes from right now: `stored`, `environment`, or undefined. Must not throw. */
	getAuthSource(provider: string): "stored" | "environment" | undefined {
		if (this.storedKey(provider) !== undefined) return "stored";
		if (this.environmentKey(provider) !== undefined) return "environment";
		return undefined;
	}

	/** pi's order: a key stored in `auth.json`, a key given in code, then the environment (named by its variable). */
	override getAuthStatus(provider: string): ProviderAuthStatus {
		const source = this.getAuthSource(provider);
		if (source === "stored") return { configured: true, source: "stored" };
		if (this.hasRuntimeKey(provider)) return { configured: false, source: "runtime" };
		if (source === "environment") {
			const label = this.environmentKeyName(provider);
			return label ? { configured: false, source: "environment", label } : { configured: false, source: "environment" };
		}
		return super.getAuthStatus(provider);
	}

	private lookUpKey(provider: string): string | undefined {
		return this.storedKey(provider) ?? this.environmentKey(provider);
	}

	private storedKey(provider: string): string | undefined {
		try {
			return this.credentials?.getApiKey(provider) || undefined;
		} catch {
			return undefined;
		}
	}

	/**
	 * The provider's key from the environment. A variable set to blanks (`OPENAI_API_KEY=" "` from a
	 * `.env` template, a CI default) is no key: pi-ai sends it as an empty bearer and it shadows the
	 * next variable (`ANTHROPIC_OAUTH_TOKEN` before `ANTHROPIC_API_KEY`) and models.json's `apiKey`.
	 */
	private environmentKey(provider: string): string | undefined {
		if (!this.useEnvironment) return undefined;
		try {
			const name = this.environmentKeyName(provider);
			if (name !== undefined) return process.env[name];
			const key = this.piAi.getEnvApiKey(provider);
			return key?.trim() ? key : undefined;
		} catch {
			return undefined;
		}
	}

	/** The first of the provider's key variables that holds more than blanks, or undefined. */
	private environmentKeyName(provider: string): string | undefined {
		try {
			return this.piAi.findEnvKeys?.(provider)?.find((name) => process.env[name]?.trim());
		} catch {
			return undefined;
		}
	}
}

/**
 * Loads pi-ai and builds a {@link PiAiModelRuntime} over its whole catalogue (no network). Throws
 * `MISSING_DEPENDENCY` when pi-ai is not installed.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 *
 * const modelRuntime = await createPiAiModelRuntime({ credentials: AuthStorage.create(join(agentDir, "auth.json")) });
 * modelRuntime.getAvailable(); // the models whose provider has a key (auth.json or e.g. ANTHROPIC_API_KEY)
 * ```
 */
export async function createPiAiModelRuntime(options: PiAiModelRuntimeOptions = {}): Promise<PiAiModelRuntime> {
	const { importPiAi, ...rest } = options;
	return new PiAiModelRuntime(await loadPiAi(importPiAi), rest);
}
