/**
 * `createAgentSession` and `createAgentSessionFromServices`: pick the model and
 * thinking level (explicit > the session's > settings > provider default), compute the initial
 * tools, and build the AgentSession on cwd-bound services.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { SettleError } from "../errors.js";
import type { InstantiatedExtensions } from "../extensions/loader.js";
import type { EventBus, ScopedModel, SessionStartEvent } from "../extensions/types.js";
import { clampThinkingLevel, type ModelRuntime, THINKING_LEVELS } from "../llm/model-runtime.js";
import { PI_DEFAULT_MODEL_PER_PROVIDER } from "../llm/pi-ai.js";
import { apiKeyEnvHint, PI_AI_INSTALL_COMMAND } from "../llm/provider-env.js";
import type { Model, ThinkingLevel } from "../llm/types.js";
import { DefaultResourceLoader } from "../resources/resource-loader.js";
import type { ResourceLoader } from "../resources/types.js";
import {
	AgentSession,
	type AgentSessionConfig,
	recordedSelection,
	type SessionClock,
} from "../session/agent-session.js";
import {
	customToolsError,
	modelArgumentError,
	stringArgumentError,
	thinkingLevelError,
} from "../session/input-check.js";
import { modelsFileError } from "../session/model-registry-view.js";
import { AGENT_DIR_ENV, getDefaultAgentDir, getPiAgentDir } from "../settings/paths.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { getDefaultSessionDirPath } from "../store/paths.js";
import { SessionManager } from "../store/session-manager.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { AUTH_FILE_NAME, type AuthStorage } from "./auth-storage.js";
import { assertProjectDirectory, assertSessionCwdExists } from "./errors.js";
import { matchModel, partialModelMatches, preferredAmong } from "./model-scope.js";
import { MODELS_FILE_NAME } from "./models-json.js";
import {
	type AgentSessionRuntimeDiagnostic,
	type AgentSessionServices,
	collectProjectDiagnostics,
	createDefaultModelRuntime,
	loadServiceExtensions,
} from "./services.js";

/** pi's `DEFAULT_THINKING_LEVEL`. */
export const DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium";
/** pi's default active tools. */
export const DEFAULT_ACTIVE_TOOL_NAMES: readonly string[] = ["read", "bash", "edit", "write"];

/** Tool choices shared by {@link createAgentSession} and {@link createAgentSessionFromServices}. */
export interface SessionToolOptions {
	/** Allowlist of tool names (built-in, extension and custom); also the initial active set. */
	tools?: string[];
	/** Names removed from the initial active set (and from every tool source). */
	excludeTools?: string[];
	/** `all`: no tools at all; `builtin` (or true): built-ins start inactive, extension and custom tools stay. */
	noTools?: "all" | "builtin" | boolean;
	/** SDK tools; they replace extension and built-in tools of the same name. */
	customTools?: AnyToolDefinition[];
}

/** Options of {@link createAgentSession}. Everything is optional. */
export interface CreateAgentSessionOptions extends SessionToolOptions {
	/**
	 * Default: the session manager's cwd, else `process.cwd()`. Used as given, as pi does: a path
	 * through a symlink is not resolved, so its sessions' folder and headers name the link's path
	 * (`process.cwd()` is always the real one). The `settle` command resolves `--cwd` through symlinks
	 * (oh-my-pi#941); to key a project as it does, pass `realpathSync(dir)`. Resolving here would move
	 * the sessions of every SDK caller that passes a link path to another folder.
	 */
	cwd?: string;
	/** Default `$SETTLE_AGENT_DIR` or `~/.settle/agent`. */
	agentDir?: string;
	/** Default: pi-ai's providers with `<agentDir>/auth.json` and environment keys. */
	modelRuntime?: ModelRuntime;
	/**
	 * The credentials of the default model runtime (pi's option of the same name), e.g.
	 * `AuthStorage.inMemory({ anthropic: key })`; default `<agentDir>/auth.json`. Refused with a
	 * `modelRuntime`, which holds its own keys (`modelRuntime.setApiKey`).
	 */
	authStorage?: AuthStorage;
	settingsManager?: SettingsManager;
	/** Default: a `DefaultResourceLoader` for the cwd, reloaded. A `DefaultResourceLoader` not yet reloaded is reloaded here. */
	resourceLoader?: ResourceLoader;
	/** Default: a new session file for the cwd in the default session dir (written on the first message). */
	sessionManager?: SessionManager;
	/**
	 * Wins over the session's recorded model and the settings: a model, or `provider/id` (or a bare
	 * id one provider serves) looked up in the model runtime after extensions registered their
	 * providers, as {@link findModel} does; an unknown one throws `NOT_FOUND` before any session
	 * file is created.
	 */
	model?: Model | string;
	/** Wins over the session's and the settings' level; clamped to the model. */
	thinkingLevel?: ThinkingLevel;
	/** `ctx.scopedModels` for extensions. */
	scopedModels?: ScopedModel[];
	/** What `session_start` says when the host binds extensions (default `startup`). */
	sessionStartEvent?: SessionStartEvent;
	/** Extensions whose factories already ran (services pass theirs); default: run the loader's. */
	extensionsResult?: InstantiatedExtensions;
	/** Shared `pi.events` bus. */
	eventBus?: EventBus;
	/** The session actor's clock (XState's `SimulatedClock` in tests). */
	clock?: SessionClock;
	/**
	 * How long (ms) `reload()` and a runtime's new / switch / fork / import / dispose wait for the
	 * extensions' `session_shutdown` handlers before reporting the ones still running (as extension
	 * errors) and going on. Default 10 000; `Infinity` waits as long as they take (pi).
	 */
	shutdownTimeoutMs?: number;
}

/** What {@link createAgentSession} returns (pi's `CreateAgentSessionResult`). */
export interface CreateAgentSessionResult {
	session: AgentSession;
	/** The session's extensions (factories run, flags applied). */
	extensionsResult: InstantiatedExtensions;
	/**
	 * Why the model is not the one asked for: `Could not restore model <p>/<id>. Using <p>/<id>`,
	 * or `No models available. …` when there is none.
	 */
	modelFallbackMessage?: string;
	/**
	 * What did not stop the session but should be heard: an unreadable `auth.json`, settings errors,
	 * skipped skills / templates / context files, extension load errors (`[]` when all is well).
	 */
	diagnostics: AgentSessionRuntimeDiagnostic[];
}

/** The model and thinking level a session starts with, and why. */
export interface InitialModelChoice {
	model: Model | undefined;
	thinkingLevel: ThinkingLevel;
	modelFallbackMessage?: string;
}

/**
 * Finds a model by `provider/id`, or by a bare id when exactly one provider (preferably one with
 * auth) serves it (the id as typed, else in any case, as pi). As pi's `--provider` / `--model`, the provider of `provider/id` is matched in any
 * case and the id among its models as pi matches it (exact in any case, else the ids and names
 * containing it). An id that holds a slash itself (`xiaomi/mimo-v2.5-pro` on a models.json provider)
 * is that model when its provider has a key and the provider the prefix names has none. A bare id
 * several providers serve is `preferredProvider`'s (the settings' `defaultProvider`) when it is
 * one of them (pi#1419), else `INVALID_ARGUMENT`. Throws `NOT_FOUND` saying what exists.
 *
 * @example
 * ```ts
 * findModel(modelRuntime, "anthropic/claude-sonnet-4-5");
 * findModel(modelRuntime, "Anthropic/sonnet"); // anthropic's newest sonnet alias, as pi
 * findModel(modelRuntime, "faux-1");
 * ```
 */
export function findModel(modelRuntime: ModelRuntime, spec: string, preferredProvider?: string): Model {
	const slash = spec.indexOf("/");
	if (slash > 0) {
		const found = modelRuntime.getModel(spec.slice(0, slash), spec.slice(slash + 1));
		// pi#5643: `xiaomi/mimo-v2.5-pro` is also the whole id of a custom provider's model; when only
		// that reading has a key, it is the one meant (the built-in `xiaomi` would fail for want of one).
		const wholeId = modelRuntime
			.getAll()
			.filter((model) => model.id === spec && modelRuntime.hasConfiguredAuth(model.provider));
		if (wholeId.length === 1 && !(found && modelRuntime.hasConfiguredAuth(found.provider))) return wholeId[0]!;
		if (found) return found;
		// As pi's resolveCliModel: the provider in any case, then the id matched among its models (exact
		// in any case, else the ids and names containing it).
		const provider = spec.slice(0, slash).toLowerCase();
		const ofProvider = modelRuntime.getAll().filter((model) => model.provider.toLowerCase() === provider);
		const matched = ofProvider.length > 0 ? matchModel(spec.slice(slash + 1), ofProvider) : undefined;
		if (matched) return matched;
	}
	// As pi, a bare id in another case names the model too; an id in the very case typed comes
	// first (pi takes the first in any case: the catalog's `MiniMax-M2.7` over a custom `minimax-m2.7`).
	const all = modelRuntime.getAll();
	const sameCase = all.filter((model) => model.id === spec);
	const byId = sameCase.length > 0 ? sameCase : all.filter((model) => model.id.toLowerCase() === spec.toLowerCase());
	const withAuth = byId.filter((model) => modelRuntime.hasConfiguredAuth(model.provider));
	const candidates = withAuth.length > 0 ? withAuth : byId;
	if (candidates.length === 1) return candidates[0]!;
	const preferred = preferredAmong(candidates, preferredProvider);
	if (preferred) return preferred;
	if (candidates.length > 1) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Model "${spec}" is served by several providers (${candidates.map((m) => `${m.provider}/${m.id}`).join(", ")}); name one as provider/id.`,
			{ details: { spec } },
		);
	}
	const suffix = thinkingSuffixHint(modelRuntime, spec);
	if (suffix) throw new SettleError("NOT_FOUND", `Model not found: ${spec}. ${suffix}`, { details: { spec } });
	const providers = [...new Set(all.map((model) => model.provider))];
	// pi#5418: the model may be one of an unreadable models.json's; say so, not only what else exists.
	const unread = modelsFileError(modelRuntime);
	throw new SettleError(
		"NOT_FOUND",
		`Model not found: ${spec}.${unread ? ` ${unread}` : ""}${modelHint(modelRuntime, spec, slash)} Use provider/id; known providers: ${providers.length ? providers.join(", ") : NO_PROVIDERS_HINT}.`,
		{ details: { spec } },
	);
}

/**
 * pi's CLI `--model` (`resolveCliModel`): {@link findModel}, and when the provider is known but
 * serves no such model, that id run on a copy of the provider's default model (pi's
 * `defaultModelPerProvider`, else its first model), with pi's warning, so a model newer than the
 * catalogue can be used; asked to think (`thinkingLevel` other than `off`), that copy reasons, as
 * pi's does (pi#5552: the copy of a model that cannot reason dropped the level without a word). An
 * unknown provider, a bare id, or pi's `:<level>` suffix (on a known model, or on a custom id
 * without `thinkingLevel`: pi#5552's id sent with its suffix) still throw as {@link findModel} does.
 * A part of an id that several of the provider's models hold is the one pi picks, with a warning
 * naming it and the others (hermes-agent#101975).
 *
 * @example
 * ```ts
 * const { model, warning } = findModelOrCustomId(modelRuntime, "openai/gpt-9");
 * if (warning) console.error(`Warning: ${warning}`); // Model "gpt-9" not found for provider "openai". Using custom model id.
 * ```
 */
export function findModelOrCustomId(
	modelRuntime: ModelRuntime,
	spec: string,
	preferredProvider?: string,
	thinkingLevel?: ThinkingLevel,
): { model: Model; warning?: string } {
	try {
		const model = findModel(modelRuntime, spec, preferredProvider);
		const guessed = guessedModelWarning(modelRuntime, spec, model);
		return guessed ? { model, warning: guessed } : { model };
	} catch (error) {
		const slash = spec.indexOf("/");
		const notFound = error instanceof SettleError && error.code === "NOT_FOUND";
		if (!notFound || slash <= 0 || thinkingSuffixHint(modelRuntime, spec)) throw error;
		const asked = spec.slice(0, slash).toLowerCase();
		const ofProvider = modelRuntime.getAll().filter((model) => model.provider.toLowerCase() === asked);
		const id = spec.slice(slash + 1);
		if (ofProvider.length === 0 || id === "") throw error;
		const provider = ofProvider[0]!.provider;
		// pi#5552: `newid:high` sent as the id fails upstream (404); said here, before any request.
		const suffix = thinkingLevel === undefined ? THINKING_SUFFIX.exec(id) : null;
		if (suffix) {
			const hint = thinkingApartHint(`${provider}/${suffix[1]}`, suffix[2]!);
			throw new SettleError("NOT_FOUND", `Model not found: ${spec}. ${hint}`, { details: { spec } });
		}
		const defaultId = PI_DEFAULT_MODEL_PER_PROVIDER[provider];
		const base = ofProvider.find((model) => model.id === defaultId) ?? ofProvider[0]!;
		const reasons = base.reasoning || (thinkingLevel !== undefined && thinkingLevel !== "off");
		return {
			model: { ...base, id, name: id, reasoning: reasons },
			warning: `Model "${id}" not found for provider "${provider}". Using custom model id.`,
		};
	}
}

/** How many of the other partial matches {@link guessedModelWarning} names. */
const OTHER_MATCHES_NAMED = 3;

/**
 * pi picks one of the several models a partial `provider/part` matches without a word (a wrong guess:
 * hermes-agent#101975): the warning names the one taken and the others, so the exact id can be
 * written. Undefined when `spec` named the model exactly or only that model matched.
 */
function guessedModelWarning(modelRuntime: ModelRuntime, spec: string, model: Model): string | undefined {
	const slash = spec.indexOf("/");
	const part = spec.slice(slash + 1);
	if (slash <= 0 || model.id === spec || model.id.toLowerCase() === part.toLowerCase()) return undefined;
	const provider = spec.slice(0, slash).toLowerCase();
	const others = partialModelMatches(
		part,
		modelRuntime.getAll().filter((m) => m.provider.toLowerCase() === provider && m.id !== model.id),
	).sort((a, b) => b.id.localeCompare(a.id));
	if (others.length === 0) return undefined;
	const named = others.slice(0, OTHER_MATCHES_NAMED).map((m) => m.id);
	const more = others.length - named.length;
	return `Model "${part}" matches ${others.length + 1} models of provider "${model.provider}"; using "${model.id}" (also: ${named.join(", ")}${more > 0 ? `, and ${more} more` : ""}). Write the exact id to choose another.`;
}

/**
 * Why a model runtime knows no provider at all, usually: the default one (pi-ai's) could not load
 * pi-ai, so neither pi-ai's catalogue nor `models.json` was applied. Said as the command that fixes
 * it (the SDK's `diagnostics` say it too, but `createAgentSession` throws before returning them).
 */
const NO_PROVIDERS_HINT = `none (real providers and models.json need @mariozechner/pi-ai: \`${PI_AI_INSTALL_COMMAND}\`)`;

/**
 * pi's `--model <pattern>:<thinking level>` shorthand, which Settle does not take: when `spec`
 * without the suffix is a model, how to say the same. Undefined otherwise.
 */
function thinkingSuffixHint(modelRuntime: ModelRuntime, spec: string): string | undefined {
	const match = THINKING_SUFFIX.exec(spec);
	if (!match) return undefined;
	const [, prefix, level] = match;
	try {
		const model = findModel(modelRuntime, prefix!);
		return thinkingApartHint(`${model.provider}/${model.id}`, level!);
	} catch {
		return undefined;
	}
}

/** pi's `:<level>` suffix at the end of a model reference: the reference before it, and the level. */
const THINKING_SUFFIX = /^(.+):(off|minimal|low|medium|high|xhigh)$/;

/** How to ask for `name` at `level` in Settle, which does not read pi's suffix. */
function thinkingApartHint(name: string, level: string): string {
	return `Settle takes the thinking level apart, not as pi's ":${level}" suffix: settle --model ${name} --thinking ${level} (in code: model: "${name}", thinkingLevel: "${level}").`;
}

/**
 * What there is instead of `spec`: the named provider's models, else models whose id contains the
 * asked id (3+ characters); "" when neither. The models there is a key for are named first.
 * Internal (the CLI's RPC `set_model` says it too).
 */
export function modelHint(modelRuntime: ModelRuntime, spec: string, slash: number): string {
	// pi#3777, pi#8117: the models there is a key for are named first, not cut off behind the catalogue's.
	const catalogue = modelRuntime.getAll();
	const keyed = catalogue.filter((model) => modelRuntime.hasConfiguredAuth(model.provider));
	const all = [...keyed, ...catalogue.filter((model) => !keyed.includes(model))];
	const provider = slash > 0 ? spec.slice(0, slash) : undefined;
	const id = (slash > 0 ? spec.slice(slash + 1) : spec).toLowerCase();
	const list = (names: string[]) =>
		names.length > 8 ? `${names.slice(0, 8).join(", ")}, … (${names.length - 8} more)` : names.join(", ");
	const ofProvider = all.filter((model) => model.provider === provider);
	if (ofProvider.length > 0) return ` ${provider} serves: ${list(ofProvider.map((model) => model.id))}.`;
	const similar = id.length >= 3 ? all.filter((model) => model.id.toLowerCase().includes(id)) : [];
	if (similar.length > 0) return ` Did you mean: ${list(similar.map((model) => `${model.provider}/${model.id}`))}?`;
	return "";
}

/**
 * pi's "no models" text; the guidance names Settle's ways to get a model.
 *
 * @example
 * ```ts
 * noModelsAvailableMessage("/home/me/.settle/agent"); // "No models available. Set a provider's API key (…) or store one in /home/me/.settle/agent/auth.json, …"
 * ```
 */
export function noModelsAvailableMessage(agentDir?: string): string {
	const authFile = agentDir ? `${agentDir}/auth.json` : "<agentDir>/auth.json";
	return (
		"No models available. Set a provider's API key (for example ANTHROPIC_API_KEY or OPENAI_API_KEY) or store one in " +
		`${authFile}, with @mariozechner/pi-ai installed; or register a provider with the model runtime (the faux provider works offline: settle --faux).`
	);
}

/**
 * For a pi user without models: pi's keys or models.json are in pi's folder, which Settle reads
 * only when asked. Empty when that is not the case. Must not throw.
 */
function piKeysNote(agentDir: string): string {
	let piDir: string;
	try {
		piDir = getPiAgentDir();
	} catch {
		return ""; // no home folder: no pi folder either
	}
	if (resolve(agentDir) === piDir) return "";
	const held = [AUTH_FILE_NAME, MODELS_FILE_NAME].filter((name) => existsSync(join(piDir, name)));
	if (held.length === 0) return "";
	const are = held.length === 1 ? "is" : "are";
	return ` pi's ${held.join(" and ")} in ${piDir} ${are} not read: to use ${held.length === 1 ? "it" : "them"}, set SETTLE_AGENT_DIR=${piDir} (in code: agentDir: getPiAgentDir()).`;
}

/**
 * Picks the starting model and thinking level: explicit > the model recorded in the session
 * (only if the runtime knows it AND has auth for it, else `Could not restore model <p>/<id>`) >
 * the settings' default model (when its provider has a key, else a `modelFallbackMessage` says it
 * was passed over) > the first provider's default among available models > the first available model. Thinking: explicit > the session's (if it recorded one) > for a new session the
 * model's `modelThinkingLevels` setting (newer pi) > `defaultThinkingLevel` > `medium`;
 * `off` without a model, else clamped to the model. Must not throw.
 *
 * @example
 * ```ts
 * const { model, thinkingLevel, modelFallbackMessage } = resolveInitialModel({ modelRuntime, settingsManager, sessionManager });
 * ```
 */
export function resolveInitialModel(input: {
	modelRuntime: ModelRuntime;
	settingsManager: SettingsManager;
	sessionManager: SessionManager;
	model?: Model;
	thinkingLevel?: ThinkingLevel;
	agentDir?: string;
}): InitialModelChoice {
	const { modelRuntime, settingsManager, sessionManager } = input;
	const existing = sessionManager.buildSessionContext();
	const hasExistingSession = existing.messages.length > 0;
	// pi#6822: a branch that records a model or a thinking level before its first message (a model
	// picked, no prompt sent yet) is session state too, restored like a conversation's.
	const branch = sessionManager.getBranch();
	const recordsModel = branch.some((entry) => entry.type === "model_change");
	const recordsThinking = branch.some((entry) => entry.type === "thinking_level_change");
	let model = input.model;
	let modelFallbackMessage: string | undefined;
	// Responses name the physical model that answered: a virtual selection is only in `model_change` entries.
	const selection =
		hasExistingSession || recordsModel
			? (recordedSelection(sessionManager, modelRuntime) ?? existing.model)
			: undefined;
	if (!model && selection) {
		const restored = modelRuntime.getModel(selection.provider, selection.modelId);
		if (restored && modelRuntime.hasConfiguredAuth(restored.provider)) model = restored;
		else modelFallbackMessage = `Could not restore model ${selection.provider}/${selection.modelId}`;
	}
	if (!model) {
		const initial = findInitialModel(modelRuntime, settingsManager);
		model = initial.model;
		if (!model) modelFallbackMessage = noModelsAvailableMessage(input.agentDir);
		else if (modelFallbackMessage) modelFallbackMessage += `. Using ${model.provider}/${model.id}`;
		else if (initial.keylessDefault) {
			const { provider, id } = initial.keylessDefault;
			modelFallbackMessage = `The settings' default model ${provider}/${id} has no API key here (set ${apiKeyEnvHint(provider)}, or put its key in ${AUTH_FILE_NAME}). Using ${model.provider}/${model.id}`;
		}
	}

	const settingsLevel = settingsManager.getDefaultThinkingLevel() as ThinkingLevel | undefined;
	let thinkingLevel = input.thinkingLevel;
	if (thinkingLevel === undefined && (hasExistingSession || recordsThinking)) {
		thinkingLevel = recordsThinking ? existing.thinkingLevel : (settingsLevel ?? DEFAULT_THINKING_LEVEL);
	}
	// Newer pi: a new session starts with its model's `modelThinkingLevels` entry when there is one.
	const perModel = model
		? (settingsManager.getModelThinkingLevel(model.provider, model.id) as ThinkingLevel | undefined)
		: undefined;
	thinkingLevel ??= perModel ?? settingsLevel ?? DEFAULT_THINKING_LEVEL;
	thinkingLevel = model ? clampThinkingLevel(model, thinkingLevel) : "off";
	const choice: InitialModelChoice = { model, thinkingLevel };
	if (modelFallbackMessage !== undefined) choice.modelFallbackMessage = modelFallbackMessage;
	return choice;
}

/**
 * pi's `findInitialModel` without scoped models: settings default, provider defaults, first
 * available. A settings default whose provider has no key is passed over for an available model
 * (pi#3547: else every prompt fails on it) and returned as `keylessDefault`; with none available it
 * is still the choice, so the refusal names the key it needs.
 */
function findInitialModel(
	modelRuntime: ModelRuntime,
	settingsManager: SettingsManager,
): { model: Model | undefined; keylessDefault?: Model } {
	const provider = settingsManager.getDefaultProvider();
	const modelId = settingsManager.getDefaultModel();
	const saved = provider && modelId ? modelRuntime.getModel(provider, modelId) : undefined;
	if (saved && modelRuntime.hasConfiguredAuth(saved.provider)) return { model: saved };
	const available = modelRuntime.getAvailable();
	if (available.length === 0) return { model: saved };
	const model = firstAvailable(modelRuntime, available);
	return saved ? { model, keylessDefault: saved } : { model };
}

/** The first provider's default among `available` (pi's per-provider defaults), else the first model. */
function firstAvailable(modelRuntime: ModelRuntime, available: Model[]): Model | undefined {
	const seen = new Set<string>();
	for (const candidate of available) {
		if (seen.has(candidate.provider)) continue;
		seen.add(candidate.provider);
		const defaultId = modelRuntime.getDefaultModelId?.(candidate.provider);
		const match =
			defaultId === undefined
				? undefined
				: available.find((model) => model.provider === candidate.provider && model.id === defaultId);
		if (match) return match;
	}
	return available[0];
}

/**
 * The initial tool names: `tools` is the allowlist and the initial set; `noTools:
 * "all"` allows nothing; `noTools` otherwise starts with no built-ins. Without `tools` / `noTools`
 * the session restores the set its transcript recorded (else read, bash, edit, write).
 *
 * @example
 * ```ts
 * resolveToolOptions({ tools: ["read", "bash"], excludeTools: ["bash"] });
 * // { allowedToolNames: ["read", "bash"], initialActiveToolNames: ["read"], excludedToolNames: ["bash"] }
 * resolveToolOptions({ noTools: "all" }); // { allowedToolNames: [], initialActiveToolNames: [] }
 * resolveToolOptions({}); // {}: restore the transcript's set
 * ```
 */
export function resolveToolOptions(
	options: SessionToolOptions,
): Pick<AgentSessionConfig, "initialActiveToolNames" | "allowedToolNames" | "excludedToolNames"> {
	const result: Pick<AgentSessionConfig, "initialActiveToolNames" | "allowedToolNames" | "excludedToolNames"> = {};
	const allowed = options.tools ?? (options.noTools === "all" ? [] : undefined);
	if (allowed) result.allowedToolNames = [...allowed];
	if (options.tools || options.noTools) {
		const exclude = new Set(options.excludeTools ?? []);
		result.initialActiveToolNames = (options.tools ?? []).filter((name) => !exclude.has(name));
	}
	if (options.excludeTools?.length) result.excludedToolNames = [...options.excludeTools];
	return result;
}

const consumedExtensions = new WeakSet<InstantiatedExtensions>();

/** Why `createAgentSession`'s options cannot be used as given (plain JavaScript), before anything is built. */
function createOptionsError(options: CreateAgentSessionOptions): SettleError | undefined {
	const method = "createAgentSession";
	return (
		stringArgumentError(method, "cwd", options.cwd, "Pass the project's directory, or leave it out.", true) ??
		stringArgumentError(method, "agentDir", options.agentDir, "Pass a directory, or leave it out.", true) ??
		modelArgumentError(method, options.model, { byName: true, optional: true }) ??
		thinkingLevelError(method, options.thinkingLevel, THINKING_LEVELS, true) ??
		customToolsError(method, options.customTools)
	);
}

/**
 * Creates an AgentSession. Extensions get `session_start` when the host calls
 * `session.bindExtensions()`. Throws `MissingSessionCwdError` when a file-backed `sessionManager`
 * (and no `cwd`) names a directory that is gone, and `INVALID_ARGUMENT` when the cwd is not a directory.
 * A `sessionManager` you pass stays yours when this throws: it is still open and holds the file's
 * lock, so `close()` it before opening the file again (e.g. with the error's `fallbackCwd` as
 * `cwdOverride`). `createAgentSessionRuntime` closes it for you.
 *
 * @example
 * ```ts
 * const { session, modelFallbackMessage, diagnostics } = await createAgentSession({ cwd });
 * if (modelFallbackMessage) console.warn(modelFallbackMessage);
 * for (const d of diagnostics) console.warn(`${d.type}: ${d.message}`);
 * await session.bindExtensions();
 * await session.prompt("What does this project do?");
 *
 * // A model by name, as the runtime factory and `settle --model` take it:
 * const { session: sonnet } = await createAgentSession({ cwd, model: "anthropic/claude-sonnet-4-5" });
 * ```
 */
export async function createAgentSession(options: CreateAgentSessionOptions = {}): Promise<CreateAgentSessionResult> {
	const invalid = createOptionsError(options);
	if (invalid) throw invalid;
	const cwd = resolve(options.cwd ?? options.sessionManager?.getCwd() ?? process.cwd());
	if (options.cwd === undefined && options.sessionManager)
		assertSessionCwdExists(options.sessionManager, process.cwd());
	assertProjectDirectory(cwd);
	const agentDir = resolve(options.agentDir ?? getDefaultAgentDir());
	const diagnostics: AgentSessionRuntimeDiagnostic[] = [];
	if (options.modelRuntime && options.authStorage) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			"createAgentSession: pass authStorage or modelRuntime, not both: a modelRuntime holds its own keys (modelRuntime.setApiKey(provider, key)).",
		);
	}
	const modelRuntime =
		options.modelRuntime ?? (await createDefaultModelRuntime(agentDir, diagnostics, options.authStorage));
	const settingsManager = options.settingsManager ?? SettingsManager.create(cwd, agentDir);
	let resourceLoader = options.resourceLoader;
	if (!resourceLoader) {
		resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager });
		// Settings made just above were just read: the loader takes them as they are (one read per file).
		await resourceLoader.reload(options.settingsManager ? {} : { settingsReloaded: settingsManager });
	} else if (resourceLoader instanceof DefaultResourceLoader && !resourceLoader.isLoaded()) {
		// A loader never reloaded is empty: its extensions (a tool_call guard, say) would silently not run.
		await resourceLoader.reload();
	}
	collectProjectDiagnostics(settingsManager, resourceLoader, diagnostics);
	let extensionsResult = options.extensionsResult;
	if (!extensionsResult || consumedExtensions.has(extensionsResult)) {
		const flagValues = extensionsResult?.runtime.flagValues;
		extensionsResult = await loadServiceExtensions(resourceLoader, modelRuntime, cwd, diagnostics, options.eventBus);
		if (flagValues) for (const [name, value] of flagValues) extensionsResult.runtime.flagValues.set(name, value);
	}
	consumedExtensions.add(extensionsResult);
	// Resolved like createAgentSessionRuntimeFactory's `model`: after extensions registered providers.
	const explicitModel =
		typeof options.model === "string"
			? findModel(modelRuntime, options.model, settingsManager.getDefaultProvider())
			: options.model;
	const sessionManager =
		options.sessionManager ??
		SessionManager.create(cwd, settingsManager.getSessionDir() ?? getDefaultSessionDirPath(cwd, agentDir));

	const choice = resolveInitialModel({
		modelRuntime,
		settingsManager,
		sessionManager,
		agentDir,
		...(explicitModel ? { model: explicitModel } : {}),
		...(options.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}),
	});
	const config: AgentSessionConfig = {
		sessionManager,
		// A manager made here is the caller's only through the session: dispose() releases its lock and file.
		ownsSessionManager: options.sessionManager === undefined,
		settingsManager,
		resourceLoader,
		modelRuntime,
		cwd,
		thinkingLevel: choice.thinkingLevel,
		extensions: extensionsResult,
		...resolveToolOptions(options),
	};
	if (choice.model) config.model = choice.model;
	if (options.customTools) config.customTools = options.customTools;
	if (options.scopedModels) config.scopedModels = options.scopedModels;
	if (options.sessionStartEvent) config.sessionStartEvent = options.sessionStartEvent;
	if (options.eventBus) config.eventBus = options.eventBus;
	if (options.clock) config.clock = options.clock;
	if (options.shutdownTimeoutMs !== undefined) config.shutdownTimeoutMs = options.shutdownTimeoutMs;
	const session = await AgentSession.create(config);
	const result: CreateAgentSessionResult = { session, extensionsResult, diagnostics };
	if (choice.modelFallbackMessage !== undefined) result.modelFallbackMessage = choice.modelFallbackMessage;
	// Following pi's SDK docs, no agentDir was chosen: pi's keys may be where pi's docs put them.
	if (!choice.model && options.agentDir === undefined && !process.env[AGENT_DIR_ENV]?.trim()) {
		result.modelFallbackMessage = `${result.modelFallbackMessage ?? ""}${piKeysNote(agentDir)}`;
	}
	return result;
}

/** Options of {@link createAgentSessionFromServices}. */
export interface CreateAgentSessionFromServicesOptions extends SessionToolOptions {
	services: AgentSessionServices;
	sessionManager: SessionManager;
	sessionStartEvent?: SessionStartEvent;
	/** A model, or `provider/id` looked up in the services' model runtime (see {@link createAgentSession}). */
	model?: Model | string;
	thinkingLevel?: ThinkingLevel;
	scopedModels?: ScopedModel[];
	eventBus?: EventBus;
	clock?: SessionClock;
	shutdownTimeoutMs?: number;
}

/**
 * Creates the session on services built for its cwd: the services' settings, resources,
 * model runtime and (the first time) their already-loaded extensions.
 *
 * @example
 * ```ts
 * const services = await createAgentSessionServices({ cwd });
 * const { session } = await createAgentSessionFromServices({ services, sessionManager: SessionManager.create(cwd) });
 * ```
 */
export function createAgentSessionFromServices(
	options: CreateAgentSessionFromServicesOptions,
): Promise<CreateAgentSessionResult> {
	const { services, ...rest } = options;
	return createAgentSession({
		...rest,
		cwd: services.cwd,
		agentDir: services.agentDir,
		modelRuntime: services.modelRuntime,
		settingsManager: services.settingsManager,
		resourceLoader: services.resourceLoader,
		extensionsResult: services.extensionsResult,
	});
}
