/**
 * The standard runtime factory: for every target, services for the target's cwd
 * (`createAgentSessionServices`) and a session on them (`createAgentSessionFromServices`) — what
 * pi's CLI builds in its `createRuntime`.
 */

import { SettleError } from "../errors.js";
import type { ExtensionFlagInput } from "../extensions/flags.js";
import type { EventBus, ScopedModel } from "../extensions/types.js";
import { InMemoryModelRuntime, type ModelRuntime } from "../llm/model-runtime.js";
import type { Model, ThinkingLevel } from "../llm/types.js";
import { recordedSelection, type SessionClock } from "../session/agent-session.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import type { SessionManager } from "../store/session-manager.js";
import type { AuthStorage } from "./auth-storage.js";
import { resolveModelScope, scopeStartModel } from "./model-scope.js";
import type { AgentSessionRuntimeFactory } from "./runtime.js";
import { createAgentSessionFromServices, findModel, findModelOrCustomId, type SessionToolOptions } from "./sdk.js";
import { type CreateAgentSessionServicesOptions, createAgentSessionServices } from "./services.js";

/** Options of {@link createAgentSessionRuntimeFactory}; they apply to every session it builds. */
export interface AgentSessionRuntimeFactoryOptions extends SessionToolOptions {
	/**
	 * A model runtime per services (a function, called with the target's cwd), or one shared by all
	 * (then providers registered by one project's extensions stay registered for the next).
	 * Default: pi-ai's providers with `<agentDir>/auth.json` and environment keys.
	 */
	modelRuntime?: ModelRuntime | ((cwd: string) => ModelRuntime | Promise<ModelRuntime>);
	authStorage?: AuthStorage;
	extensionFlagValues?: ExtensionFlagInput;
	resourceLoaderOptions?: CreateAgentSessionServicesOptions["resourceLoaderOptions"];
	/**
	 * An explicit model (wins over every session's recorded model, as pi's `--model`): a model, or
	 * `provider/id` looked up in each target's model runtime (an unknown one fails the build).
	 */
	model?: Model | string;
	/**
	 * An API key for `model`'s provider (pi's `--api-key`), over `auth.json` and the environment, in
	 * each target's model runtime; kept in memory, never written. Needs `model`, and a model runtime
	 * that takes keys ({@link InMemoryModelRuntime}, the default one included); else the build fails
	 * with `INVALID_ARGUMENT`.
	 *
	 * @example
	 * ```ts
	 * const factory = createAgentSessionRuntimeFactory({ model: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-…" });
	 * ```
	 */
	apiKey?: string;
	thinkingLevel?: ThinkingLevel;
	scopedModels?: ScopedModel[];
	/**
	 * pi's `--models`: model patterns (`provider/id`, an id or part of one, a glob like `faux/*`, each
	 * with an optional `:<thinking>`) resolved in each target's model runtime into the models
	 * `cycleModel` goes through (over `scopedModels`). Without `model`, a session with no messages
	 * starts on the settings' default model when it is in the scope, else on the first scoped one.
	 * Patterns that match nothing are warnings in the runtime's diagnostics (pi's text).
	 *
	 * @example
	 * ```ts
	 * const factory = createAgentSessionRuntimeFactory({ models: ["anthropic/*sonnet*:high", "gpt-4o"] });
	 * ```
	 */
	models?: readonly string[];
	/**
	 * Without `models`, each target's `enabledModels` setting is the scope (pi's CLI does this; pi's
	 * SDK does not). Default false.
	 */
	enabledModelsSetting?: boolean;
	/**
	 * A string `model` whose provider is known but serves no such id runs that id on a copy of the
	 * provider's default model, with a warning in the runtime's diagnostics, as pi's CLI `--model`
	 * does ({@link findModelOrCustomId}); else it fails the build (`NOT_FOUND`). Default false.
	 */
	customModelIds?: boolean;
	eventBus?: EventBus;
	clock?: SessionClock;
	/**
	 * How long (ms) `reload()` and a runtime's new / switch / fork / import / dispose wait for the
	 * extensions' `session_shutdown` handlers before reporting the ones still running (as extension
	 * errors) and going on. Default 10 000; `Infinity` waits as long as they take (pi).
	 */
	shutdownTimeoutMs?: number;
}

/**
 * A factory for {@link createAgentSessionRuntime} that rebuilds services and session for each
 * target's cwd.
 *
 * @example
 * ```ts
 * const factory = createAgentSessionRuntimeFactory({ resourceLoaderOptions: { trustProject: true } });
 * const runtime = await createAgentSessionRuntime(factory, { cwd, agentDir, sessionManager });
 * ```
 */
export function createAgentSessionRuntimeFactory(
	options: AgentSessionRuntimeFactoryOptions = {},
): AgentSessionRuntimeFactory {
	return async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
		const modelRuntime =
			typeof options.modelRuntime === "function" ? await options.modelRuntime(cwd) : options.modelRuntime;
		const services = await createAgentSessionServices({
			cwd,
			agentDir,
			...(modelRuntime ? { modelRuntime } : {}),
			...(options.authStorage ? { authStorage: options.authStorage } : {}),
			...(options.extensionFlagValues ? { extensionFlagValues: options.extensionFlagValues } : {}),
			...(options.resourceLoaderOptions ? { resourceLoaderOptions: options.resourceLoaderOptions } : {}),
			...(options.eventBus ? { eventBus: options.eventBus } : {}),
		});
		// A bare id several providers serve is the settings' default provider's (pi#1419).
		const preferredProvider = services.settingsManager.getDefaultProvider();
		const explicit: { model: Model | undefined; warning?: string } =
			typeof options.model !== "string"
				? { model: options.model }
				: options.customModelIds
					? findModelOrCustomId(services.modelRuntime, options.model, preferredProvider, options.thinkingLevel)
					: { model: findModel(services.modelRuntime, options.model, preferredProvider) };
		const explicitModel = explicit.model;
		const patterns =
			options.models ?? (options.enabledModelsSetting ? services.settingsManager.getEnabledModels() : undefined);
		const scope =
			patterns && patterns.length > 0
				? resolveModelScope(patterns, services.modelRuntime.getAvailable(), preferredProvider)
				: undefined;
		// pi's CLI rule: without --model, a session with no messages yet starts on the scope's model.
		const startsOnScope =
			scope !== undefined && !explicitModel && sessionManager.buildSessionContext().messages.length === 0;
		const start = startsOnScope
			? scopeStartModel(scope.scopedModels, savedDefault(services.settingsManager))
			: undefined;
		const scopedModels = scope?.scopedModels ?? options.scopedModels ?? [];
		const model = explicitModel ?? start?.model;
		const thinkingLevel = options.thinkingLevel ?? start?.thinkingLevel;
		if (options.apiKey !== undefined) {
			// No model chosen (a resumed session keeps its own, also with `models`): the key is for the
			// model it resumes on, given before the session restores it (a model with no key is not restored).
			setRuntimeApiKey(
				services.modelRuntime,
				model ?? resumedModel(services.modelRuntime, sessionManager),
				options.apiKey,
			);
		}
		const created = await createAgentSessionFromServices({
			services,
			sessionManager,
			...(sessionStartEvent ? { sessionStartEvent } : {}),
			...(model ? { model } : {}),
			...(thinkingLevel ? { thinkingLevel } : {}),
			...(scopedModels.length > 0 ? { scopedModels } : {}),
			...(options.tools ? { tools: options.tools } : {}),
			...(options.excludeTools ? { excludeTools: options.excludeTools } : {}),
			...(options.noTools !== undefined ? { noTools: options.noTools } : {}),
			...(options.customTools ? { customTools: options.customTools } : {}),
			...(options.eventBus ? { eventBus: options.eventBus } : {}),
			...(options.clock ? { clock: options.clock } : {}),
			...(options.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: options.shutdownTimeoutMs } : {}),
		});
		const warnings = [...(explicit.warning ? [explicit.warning] : []), ...(scope?.warnings ?? [])].map((message) => ({
			type: "warning" as const,
			message,
		}));
		return { ...created, services, diagnostics: [...services.diagnostics, ...warnings] };
	};
}

function savedDefault(settings: SettingsManager): { provider: string; id: string } | undefined {
	const provider = settings.getDefaultProvider();
	const id = settings.getDefaultModel();
	return provider && id ? { provider, id } : undefined;
}

/** The model `sessionManager`'s branch records (what a resumed session restores), if the runtime knows it. */
function resumedModel(modelRuntime: ModelRuntime, sessionManager: SessionManager): Model | undefined {
	const context = sessionManager.buildSessionContext();
	const recordsModel = sessionManager.getBranch().some((entry) => entry.type === "model_change");
	if (context.messages.length === 0 && !recordsModel) return undefined;
	const selection = recordedSelection(sessionManager, modelRuntime) ?? context.model;
	return selection ? modelRuntime.getModel(selection.provider, selection.modelId) : undefined;
}

/** Gives `model`'s provider `apiKey` for this runtime only (pi's `authStorage.setRuntimeApiKey`). */
function setRuntimeApiKey(modelRuntime: ModelRuntime, model: Model | undefined, apiKey: string): void {
	if (!model) {
		throw new SettleError("INVALID_ARGUMENT", "apiKey needs a model: give `model` (provider/id) with it.");
	}
	if (!(modelRuntime instanceof InMemoryModelRuntime)) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			"apiKey needs a model runtime that takes keys (an InMemoryModelRuntime); give the key to your model runtime instead.",
		);
	}
	modelRuntime.setApiKey(model.provider, apiKey);
}
