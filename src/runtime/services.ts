/**
 * AgentSessionServices: everything bound to one cwd — settings, resources, the
 * model runtime, and the extensions loaded for that project — created before (and without) a
 * session, so a replacement can build the services of the TARGET project first.
 */
import { join, resolve } from "node:path";
import { errorMessage } from "../errors.js";
import { applyExtensionFlagValues, type ExtensionFlagInput } from "../extensions/flags.js";
import { type InstantiatedExtensions, instantiateExtensions } from "../extensions/loader.js";
import type { EventBus } from "../extensions/types.js";
import { InMemoryModelRuntime, type ModelRuntime } from "../llm/model-runtime.js";
import { createPiAiModelRuntime } from "../llm/pi-ai.js";
import { apiKeyEnvHint } from "../llm/provider-env.js";
import { DefaultResourceLoader, type DefaultResourceLoaderOptions } from "../resources/resource-loader.js";
import type { ResourceDiagnostic, ResourceLoader } from "../resources/types.js";
import { modelRegistryView } from "../session/model-registry-view.js";
import { getDefaultAgentDir } from "../settings/paths.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { AUTH_FILE_NAME, AuthStorage } from "./auth-storage.js";
import { applyModelsJson, withdrawJoinedProviderWarnings } from "./models-json.js";

/** A problem found while building services or a session (pi's `AgentSessionRuntimeDiagnostic`). */
export interface AgentSessionRuntimeDiagnostic {
	type: "info" | "warning" | "error";
	message: string;
	/** The file the problem is about, when there is one. */
	path?: string;
	/**
	 * What it is about: command-line extension flags, extensions, settings, credentials, the model
	 * runtime, or resources (skills, prompt templates, context files that were skipped).
	 */
	source?: "flags" | "extensions" | "settings" | "credentials" | "models" | "resources";
}

/** The cwd-bound bundle a session is built from. */
export interface AgentSessionServices {
	/** Absolute. Tools run here; project settings, AGENTS.md, skills and extensions come from here. */
	cwd: string;
	agentDir: string;
	settingsManager: SettingsManager;
	resourceLoader: ResourceLoader;
	modelRuntime: ModelRuntime;
	/** Flag errors, extension load and provider errors, settings and credential problems, skipped resources. */
	diagnostics: AgentSessionRuntimeDiagnostic[];
	/**
	 * The project's extensions with their factories run, flag values applied and provider
	 * registrations flushed into the model runtime. The first session created from these services
	 * takes them; later ones run the factories again.
	 */
	extensionsResult: InstantiatedExtensions;
}

/** Options of {@link createAgentSessionServices}. */
export interface CreateAgentSessionServicesOptions {
	cwd: string;
	/** Default `$SETTLE_AGENT_DIR` or `~/.settle/agent`. */
	agentDir?: string;
	/** Default `SettingsManager.create(cwd, agentDir)`. */
	settingsManager?: SettingsManager;
	/**
	 * Default: pi-ai's providers (loaded lazily) with keys from `<agentDir>/auth.json` and the
	 * environment; without pi-ai installed, an empty runtime and a warning diagnostic.
	 */
	modelRuntime?: ModelRuntime;
	/** Credentials for the default model runtime (default `<agentDir>/auth.json`). */
	authStorage?: AuthStorage;
	/** Extension flags from the command line: `--name value` → string, bare `--name` → true. */
	extensionFlagValues?: ExtensionFlagInput;
	/** Everything else the resource loader takes (`trustProject`, `extensionFactories`, `noSkills`, …). */
	resourceLoaderOptions?: Omit<DefaultResourceLoaderOptions, "cwd" | "agentDir" | "settingsManager">;
	/** Shared `pi.events` bus for the extensions (default: a new one). */
	eventBus?: EventBus;
}

/**
 * Builds the services for one cwd: settings, resources (`reload()`ed), extensions (their
 * factories run once here), provider registrations applied to the model runtime, extension CLI
 * flags validated with pi's messages (`Unknown option: --a`, `Extension flag "--x" requires a
 * value`). Never creates a session; never throws for problems in the project (they are
 * `diagnostics`).
 *
 * @example
 * ```ts
 * const services = await createAgentSessionServices({ cwd, extensionFlagValues: { plan: true } });
 * for (const d of services.diagnostics) console.error(`${d.type}: ${d.message}`);
 * ```
 */
export async function createAgentSessionServices(
	options: CreateAgentSessionServicesOptions,
): Promise<AgentSessionServices> {
	const cwd = resolve(options.cwd);
	const agentDir = resolve(options.agentDir ?? getDefaultAgentDir());
	const diagnostics: AgentSessionRuntimeDiagnostic[] = [];
	const modelRuntime =
		options.modelRuntime ?? (await createDefaultModelRuntime(agentDir, diagnostics, options.authStorage));
	const settingsManager = options.settingsManager ?? SettingsManager.create(cwd, agentDir);
	const resourceLoader = new DefaultResourceLoader({
		...(options.resourceLoaderOptions ?? {}),
		cwd,
		agentDir,
		settingsManager,
	});
	// Settings made just above were just read: the loader takes them as they are (one read per file).
	await resourceLoader.reload(options.settingsManager ? {} : { settingsReloaded: settingsManager });
	collectProjectDiagnostics(settingsManager, resourceLoader, diagnostics);
	const extensionsResult = await loadServiceExtensions(
		resourceLoader,
		modelRuntime,
		cwd,
		diagnostics,
		options.eventBus,
	);
	if (options.extensionFlagValues) {
		for (const problem of applyExtensionFlagValues(extensionsResult, options.extensionFlagValues)) {
			diagnostics.push({
				type: problem.type === "error" ? "error" : "warning",
				message: problem.message,
				source: "flags",
			});
		}
	}
	return { cwd, agentDir, settingsManager, resourceLoader, modelRuntime, diagnostics, extensionsResult };
}

/**
 * What the user reads for a skipped skill, template or context file: its file; for a name collision
 * both files, the one skipped and the one used (gemini-cli#16022: "collision" and one path left
 * them guessing which skill runs).
 */
export function resourceDiagnosticText(problem: ResourceDiagnostic): string {
	if (problem.type === "collision" && problem.collision) {
		const { loserPath, winnerPath } = problem.collision;
		return `${problem.message}: ${loserPath} is skipped, ${winnerPath} is used; give one of them another name to keep both.`;
	}
	const path = problem.path;
	return path && !problem.message.includes(path) ? `${problem.message} (${path})` : problem.message;
}

/**
 * Adds what the project's settings and resources reported: settings errors, skipped skills,
 * prompt templates and context files, extension discovery problems. Must not throw.
 */
export function collectProjectDiagnostics(
	settingsManager: SettingsManager,
	resourceLoader: ResourceLoader,
	diagnostics: AgentSessionRuntimeDiagnostic[],
): void {
	for (const problem of settingsManager.getErrors()) {
		diagnostics.push({ type: problem.type, message: problem.message, path: problem.path, source: "settings" });
	}
	// A skipped skill, template or context file is not fatal, but the user must hear which file and why.
	for (const problem of [
		...resourceLoader.getSkills().diagnostics,
		...resourceLoader.getPrompts().diagnostics,
		...(resourceLoader.getAgentsFiles().diagnostics ?? []),
	]) {
		diagnostics.push({
			type: "warning",
			message: resourceDiagnosticText(problem),
			source: "resources",
			...(problem.path ? { path: problem.path } : {}),
		});
	}
	for (const problem of resourceLoader.getExtensions().diagnostics) {
		diagnostics.push({
			type: problem.type === "error" ? "error" : "warning",
			message: problem.message,
			source: "extensions",
			...(problem.path ? { path: problem.path } : {}),
		});
	}
}

/** Runs the loader's extension factories and applies the providers they registered (pi's service step). */
export async function loadServiceExtensions(
	resourceLoader: ResourceLoader,
	modelRuntime: ModelRuntime,
	cwd: string,
	diagnostics: AgentSessionRuntimeDiagnostic[],
	eventBus?: EventBus,
): Promise<InstantiatedExtensions> {
	const loaded = await instantiateExtensions(resourceLoader.getExtensions().extensions, {
		cwd,
		...(eventBus ? { eventBus } : {}),
	});
	for (const problem of loaded.diagnostics) {
		diagnostics.push({
			type: problem.type === "warning" ? "warning" : "error",
			message: problem.message,
			source: "extensions",
			...(problem.path ? { path: problem.path } : {}),
		});
	}
	const registry = modelRegistryView(modelRuntime);
	const pending = loaded.runtime.pendingProviderRegistrations;
	loaded.runtime.pendingProviderRegistrations = [];
	const registered: string[] = [];
	for (const { name, config, extensionPath } of pending) {
		try {
			registry.registerProvider?.(name, config);
			registered.push(name);
		} catch (error) {
			diagnostics.push({
				type: "error",
				message: `Extension "${extensionPath}" error: ${errorMessage(error)}`,
				source: "extensions",
			});
		}
	}
	withdrawJoinedProviderWarnings(modelRuntime, registered, diagnostics);
	// Virtual models too, so `--model provider/virtual-id` and a resumed virtual selection find them.
	const pendingVirtual = loaded.runtime.pendingVirtualModelRegistrations;
	loaded.runtime.pendingVirtualModelRegistrations = [];
	for (const { definition, extensionPath } of pendingVirtual) {
		try {
			registry.registerVirtualModel?.(definition);
		} catch (error) {
			diagnostics.push({
				type: "error",
				message: `Extension "${extensionPath}" error: ${errorMessage(error)}`,
				source: "extensions",
			});
		}
	}
	return loaded;
}

/**
 * The default model runtime: pi-ai's providers with `auth.json` and environment keys, plus the
 * custom providers of pi's `<agentDir>/models.json` when there is one. Without
 * pi-ai (or with an unreadable `auth.json`) it still returns a runtime and appends why to `diagnostics`.
 *
 * @example
 * ```ts
 * const diagnostics: AgentSessionRuntimeDiagnostic[] = [];
 * const modelRuntime = await createDefaultModelRuntime(agentDir, diagnostics);
 * for (const d of diagnostics) console.warn(`${d.type}: ${d.message}`);
 * ```
 */
export async function createDefaultModelRuntime(
	agentDir: string,
	diagnostics: AgentSessionRuntimeDiagnostic[],
	authStorage: AuthStorage = AuthStorage.create(join(agentDir, AUTH_FILE_NAME)),
): Promise<ModelRuntime> {
	const authProblem = authStorage.getError();
	if (authProblem) {
		diagnostics.push({ type: "error", message: authProblem.message, source: "credentials", path: authStorage.path });
	}
	for (const message of authStorage.getWarnings()) {
		diagnostics.push({ type: "warning", message, source: "credentials", path: authStorage.path });
	}
	try {
		const modelRuntime = await createPiAiModelRuntime({ credentials: authStorage });
		// pi's custom providers (Ollama, vLLM, proxies), for an agent folder shared with pi.
		applyModelsJson(modelRuntime, agentDir, diagnostics);
		// pi's /login credentials: kept, not used; said only for a provider left without any key.
		const known = new Set(modelRuntime.getAll().map((model) => model.provider));
		for (const provider of authStorage.list()) {
			if (!authStorage.hasOAuth(provider) || !known.has(provider) || modelRuntime.hasConfiguredAuth(provider)) continue;
			diagnostics.push({
				type: "warning",
				source: "credentials",
				...(authStorage.path ? { path: authStorage.path } : {}),
				message: `${authStorage.path ?? "auth.json"}: "${provider}" is a pi /login (OAuth) credential, which Settle does not use (it has no /login), so ${provider} has no key: set ${apiKeyEnvHint(provider)} in the environment to use its models (an "api_key" entry in this file would replace pi's login).`,
			});
		}
		return modelRuntime;
	} catch (error) {
		diagnostics.push({ type: "warning", message: errorMessage(error), source: "models" });
		return new InMemoryModelRuntime();
	}
}
