/**
 * Starting the CLI's runtime from the parsed command line: the project directory, the session
 * (new, resumed, continued or in memory), the model source (pi-ai or `--faux`), tools, trust and
 * extension flags — one factory reused for every replacement.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { collectExtensionFlags } from "../extensions/flags.js";
import { createAgentSessionRuntimeFactory } from "../runtime/factory.js";
import { joinedProviderWarnings } from "../runtime/models-json.js";
import { type AgentSessionRuntime, createAgentSessionRuntime } from "../runtime/runtime.js";
import {
	type AgentSessionRuntimeDiagnostic,
	collectProjectDiagnostics,
	resourceDiagnosticText,
} from "../runtime/services.js";
import type { AgentSession } from "../session/agent-session.js";
import { buildSystemPromptSections, systemPromptFromTranscript } from "../session/system-prompt.js";
import { expandHome, getDefaultAgentDir, SESSION_DIR_ENV } from "../settings/paths.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { resolveProjectTrust, TRUST_FILE_NAME } from "../settings/trust.js";
import { shellWord } from "../shell-word.js";
import { findLatestActiveSession, newestSessionFirst, unreadableSessionFiles } from "../store/discovery.js";
import { unwritableFolder } from "../store/folders.js";
import { getDefaultSessionDirPath } from "../store/paths.js";
import { SessionManager } from "../store/session-manager.js";
import { danglingLinkNote } from "../tools/fs-errors.js";
import { allToolNames } from "../tools/index.js";
import { extensionFlagValues, type ParsedArgs, projectDirectory, reclaimMessages } from "./args.js";
import { createCliFaux, loadFauxScript } from "./faux-script.js";
import { EXIT_FAILURE, EXIT_OK, EXIT_SESSION_FILE, EXIT_SESSION_LOCKED, EXIT_USAGE, HELP_POINTER } from "./help.js";
import { piContinueHint, piFolderHint, piSessionHint } from "./pi-folder.js";
import {
	findSessionByIdPrefix,
	type LinkNamedSessionFolder,
	namesSessionFile,
	newerSessionFormatForCli,
	sessionFileInFolder,
	skippedLineWarnings,
} from "./session-lookup.js";
import { inLinkFolder, type ProjectSessionFolders } from "./session-picker.js";
import { explainLoadingOnSignal } from "./termination.js";
import { untrustedFlagsLine } from "./unknown-options.js";

/** A failure the CLI reports with a message and an exit code. */
export class CliError extends Error {
	override readonly name = "CliError";
	constructor(
		message: string,
		readonly exitCode: number,
	) {
		super(message);
	}
}

/**
 * `settle -r` quit at the session question (Ctrl+C, end of input): nothing started; exit 0, as
 * pi's cancelled picker ("No session selected" was said).
 */
export class SessionPickCancelled extends CliError {
	constructor() {
		super("No session selected.", EXIT_OK);
	}
}

/** What {@link startHost} asks the CLI before any session starts. */
export interface StartHostHooks {
	/**
	 * `--resume`: asks which of this project's sessions to start on, before the runtime exists (as
	 * pi): resolves with what `open` returned for the file picked, `"new"` for a new session, or
	 * undefined when cancelled.
	 */
	pickSession?: <T>(folders: ProjectSessionFolders, open: (path: string) => T) => Promise<T | "new" | undefined>;
}

/** The started host: the runtime, and the prompts to run (with arguments boolean flags swallowed given back). */
export interface CliHost {
	runtime: AgentSessionRuntime;
	messages: string[];
	/** Said to a pi user whose `~/.pi/agent` Settle is not reading (also among `warnings`). */
	piHint?: string;
	/** Startup problems that are only warnings (errors end the CLI before this). */
	warnings: AgentSessionRuntimeDiagnostic[];
	/**
	 * models.json warnings of providers whose models wait for an extension's registration, by
	 * provider (not among `warnings`): said once `session_start` ran, unless it registered them.
	 */
	providerWarnings: ReadonlyMap<string, AgentSessionRuntimeDiagnostic>;
	/** Where sessions saved under the `--cwd` link path are (oh-my-pi#941): `/resume` looks there too. */
	linkFolder?: LinkNamedSessionFolder;
	/** `--resume` picked a saved session to start on (not a new one). */
	resumed?: boolean;
}

/**
 * `SETTLE_SHUTDOWN_TIMEOUT_MS`: how long `/reload`, `/new`, `/resume`, `/fork` and the exit wait for
 * extensions' `session_shutdown` handlers (ms, or `Infinity`); unset: the SDK's default (10 s).
 */
function shutdownTimeoutFromEnv(value: string | undefined): number | undefined {
	if (value === undefined || value.trim() === "") return undefined;
	const ms = value.trim() === "Infinity" ? Number.POSITIVE_INFINITY : Number(value);
	if (Number.isNaN(ms) || ms < 0) {
		throw new CliError(
			`SETTLE_SHUTDOWN_TIMEOUT_MS=${value} is not a duration: set it to a number of milliseconds ≥ 0 (how long session_shutdown handlers are waited for), or Infinity to wait as long as they take, or unset it for the default 10000.`,
			EXIT_USAGE,
		);
	}
	return ms;
}

/**
 * Builds the runtime the command line describes. Throws {@link CliError}: `EXIT_USAGE` for a bad
 * directory, an unknown extension flag or model; `EXIT_FAILURE` when the session cannot start.
 */
export async function startHost(args: ParsedArgs, hooks: StartHostHooks = {}): Promise<CliHost> {
	if (args.apiKey !== undefined && !args.model && !args.models) {
		// pi's text: the key is for the chosen model's provider, so a model must be chosen (--models chooses one too).
		throw new CliError(
			"--api-key requires a model to be specified via --model, --provider/--model, or --models (e.g. --model anthropic/claude-sonnet-4-5).",
			EXIT_USAGE,
		);
	}
	if (args.fork !== undefined) {
		const others = [
			args.session !== undefined ? "--session" : undefined,
			args.continue ? "--continue" : undefined,
			args.resume ? "--resume" : undefined,
			args.noSession ? "--no-session" : undefined,
		].filter((flag) => flag !== undefined);
		// pi's text: --fork starts a new session, which these choose otherwise.
		if (others.length > 0) {
			throw new CliError(
				`--fork cannot be combined with ${others.join(", ")}: --fork starts a new session from the one it names.`,
				EXIT_USAGE,
			);
		}
	}
	const cwd = projectDirectory(args);
	if (!isDirectory(cwd)) {
		const problem = existsSync(cwd) ? "is not a directory" : "does not exist";
		throw new CliError(
			`--cwd: ${cwd} ${problem}${danglingLinkNote(cwd)}. Pass the project's directory (or leave --cwd out to work in the current one).`,
			EXIT_USAGE,
		);
	}
	// A quoted `~` reaches us unexpanded (SETTLE_AGENT_DIR's is expanded too).
	const agentDir = resolve(args.agentDir !== undefined ? expandHome(args.agentDir) : getDefaultAgentDir());
	// Before anything creates the agent folder: its absence is what makes a pi user's first run.
	const piHint = piFolderHint({ cwd, agentDir, agentDirGiven: args.agentDir !== undefined });
	// --approve / --no-approve decide here too: an untrusted project's sessionDir does not apply.
	const settings = SettingsManager.create(
		cwd,
		agentDir,
		args.trustProject !== undefined ? { projectTrusted: args.trustProject } : {},
	);
	// The user chose not to trust the project: what trust leaves out is what they asked for, not news.
	const untrustedByChoice = distrustChosen(args, cwd, agentDir, settings);
	// A settings file settle will not start with is refused before any extension loads (and runs code).
	const settingsErrors = settings.getErrors().filter((d) => d.type === "error");
	if (settingsErrors.length > 0) {
		throw new CliError(
			settingsErrors.map((d) => `Error: ${oneLine(settingsErrorForCli(d.message))}`).join("\n"),
			EXIT_FAILURE,
		);
	}
	// As pi: --session-dir, then $SETTLE_SESSION_DIR, then the sessionDir setting, then the agent folder's.
	// As for --agent-dir and the sessionDir setting: a quoted `~` is the home folder (pi#3514).
	const envSessionDir = process.env[SESSION_DIR_ENV]?.trim() || undefined;
	const chosenSessionDir = args.sessionDir
		? resolve(expandHome(args.sessionDir))
		: envSessionDir
			? resolve(expandHome(envSessionDir))
			: settings.getSessionDir();
	const sessionDir = chosenSessionDir ?? getDefaultSessionDirPath(cwd, agentDir);
	const linkFolder = chosenSessionDir === undefined ? linkNamedSessionFolder(args, cwd, agentDir) : undefined;

	// Sessions are written on the first message, after the model answered: check the folder now.
	if (!args.noSession && args.session === undefined) {
		const problem = unwritableFolder(sessionDir);
		if (problem) {
			throw new CliError(
				`Cannot keep sessions in ${sessionDir}${!args.sessionDir && envSessionDir ? ` (${SESSION_DIR_ENV})` : ""}: ${problem}. Pass --session-dir <folder> (or --agent-dir <folder>), or --no-session to keep the session in memory.`,
				args.sessionDir !== undefined || args.agentDir !== undefined ? EXIT_USAGE : EXIT_FAILURE,
			);
		}
	}

	let modelRuntime: (() => ReturnType<ReturnType<typeof createCliFaux>["createModelRuntime"]>) | undefined;
	if (args.faux) {
		let steps: ReturnType<typeof loadFauxScript> = [];
		if (args.fauxScript) {
			try {
				steps = loadFauxScript(args.fauxScript);
			} catch (error) {
				throw new CliError(errorMessage(error), EXIT_USAGE);
			}
		}
		modelRuntime = createCliFaux(steps).createModelRuntime;
	}
	const fromStartupDir = (paths: readonly string[]) => paths.map((path) => resolve(cwd, expandHome(path)));
	const shutdownTimeoutMs = shutdownTimeoutFromEnv(process.env.SETTLE_SHUTDOWN_TIMEOUT_MS);
	const sessionFactory = createAgentSessionRuntimeFactory({
		...(modelRuntime ? { modelRuntime } : {}),
		...(shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs } : {}),
		...(args.model ? { model: cliModelSpec(args), customModelIds: true } : {}),
		// As pi: --models is the scope, else the enabledModels setting.
		...(args.models ? { models: args.models } : {}),
		enabledModelsSetting: true,
		...(args.apiKey !== undefined ? { apiKey: args.apiKey } : {}),
		...(args.thinking ? { thinkingLevel: args.thinking } : {}),
		...(args.tools ? { tools: args.tools } : {}),
		// As pi: -nt wins over -nbt; with --tools, the list decides (built-ins included).
		...(args.noTools ? { noTools: "all" as const } : args.noBuiltinTools ? { noTools: "builtin" as const } : {}),
		extensionFlagValues: extensionFlagValues(args.unknownFlags),
		// CLI paths are resolved once against the start-up directory, as pi does: a session of another
		// project (RPC switch_session, /resume) keeps them.
		resourceLoaderOptions: {
			...(args.trustProject !== undefined ? { trustProject: args.trustProject } : {}),
			...(args.extensions.length > 0 ? { additionalExtensionPaths: fromStartupDir(args.extensions) } : {}),
			...(args.noExtensions ? { noExtensions: true } : {}),
			...(args.noContextFiles ? { noContextFiles: true } : {}),
			...(args.noSkills ? { noSkills: true } : {}),
			...(args.noPromptTemplates ? { noPromptTemplates: true } : {}),
			...(args.skills.length > 0 ? { additionalSkillPaths: fromStartupDir(args.skills) } : {}),
			...(args.promptTemplates.length > 0
				? { additionalPromptTemplatePaths: fromStartupDir(args.promptTemplates) }
				: {}),
			...(args.systemPrompt !== undefined ? { systemPrompt: args.systemPrompt } : {}),
			...(args.appendSystemPrompt.length > 0 ? { appendSystemPrompt: args.appendSystemPrompt } : {}),
		},
	});
	// `--model` and `--thinking` over a resumed or switched-to session's own are recorded by
	// createAgentSession before the next turn, as the SDK's `model` and `thinkingLevel`.

	const {
		sessionManager,
		warnings: sessionWarnings,
		resumed,
	} = await openSession(args, cwd, agentDir, sessionDir, linkFolder, hooks.pickSession);
	// A resumed session restores its own model (before the runtime records one for a new session).
	const recordsModel = sessionManager.getBranch().some((e) => e.type === "model_change" || e.type === "message");
	let runtime: AgentSessionRuntime;
	const stopExplaining = explainLoadingOnSignal();
	try {
		runtime = await createAgentSessionRuntime(sessionFactory, { cwd, agentDir, sessionManager });
	} catch (error) {
		if (error instanceof SettleError && error.code === "MISSING_SESSION_CWD") {
			throw new CliError(
				`${error.message}\nPass --cwd <dir> to continue the session in another directory.`,
				EXIT_SESSION_FILE,
			);
		}
		if (error instanceof SettleError && error.code === "SESSION_LOCKED") throw sessionLockedError(error);
		if (error instanceof SettleError && (error.code === "NOT_FOUND" || error.code === "INVALID_ARGUMENT")) {
			// findModel's NOT_FOUND carries the spec it was given: point to the list of what there is.
			const hint =
				error.code === "NOT_FOUND" && typeof error.details?.spec === "string"
					? " settle --list-models lists the models you can use."
					: "";
			throw new CliError(`${error.message}${hint}`, EXIT_USAGE);
		}
		throw new CliError(errorMessage(error), EXIT_FAILURE);
	} finally {
		stopExplaining();
	}
	const untrusted = untrustedExtensions(runtime);
	const errors = runtime.diagnostics.filter((d) => d.type === "error");
	if (errors.length > 0) {
		await runtime.dispose();
		const usage = errors.every((d) => d.source === "flags");
		const lines = errors.map((d) => {
			if (d.source === "settings") return `Error: ${oneLine(settingsErrorForCli(d.message))}`;
			if (d.source === "extensions") return `Error: ${oneLine(extensionErrorForCli(d, args.extensions, cwd))}`;
			return `Error: ${oneLine(d.message)}`;
		});
		// An "unknown" option may be a flag of an extension that trust kept from loading: say so.
		const maybeExtensionFlag = (d: AgentSessionRuntimeDiagnostic) => d.source === "flags";
		if (untrusted.paths.length > 0 && errors.some(maybeExtensionFlag)) {
			lines.push(untrustedFlagsLine(untrusted.cwd));
		}
		// The models.json warnings held for session_start, which will not run now: said with the errors.
		const served = new Set(runtime.services.modelRuntime.getAll().map((model) => model.provider));
		for (const [provider, warning] of joinedProviderWarnings(runtime.services.modelRuntime)) {
			if (!served.has(provider)) lines.push(`Warning: ${oneLine(warning.message)}`);
		}
		// Unknown extension flags are a bad command line, said as an unknown short option is.
		if (usage) lines.push(HELP_POINTER.trimEnd());
		throw new CliError(lines.join("\n"), usage ? EXIT_USAGE : EXIT_FAILURE);
	}
	const flags = collectExtensionFlags(runtime.services.extensionsResult.extensions);
	const messages = reclaimMessages(args.messages, args.unknownFlags, (name) => flags.get(name)?.type);
	// Held until session_start ran: an extension may register the provider there.
	const providerWarnings = joinedProviderWarnings(runtime.services.modelRuntime);
	const held = new Set(providerWarnings.values());
	const warnings = runtime.diagnostics.filter(
		(d) =>
			d.type !== "error" &&
			!held.has(d) &&
			!untrusted.paths.includes(d.path ?? "") &&
			!(untrustedByChoice && d.message.includes(TRUST_ADVICE_MARK)),
	);
	return {
		runtime,
		messages,
		...(piHint ? { piHint } : {}),
		...(linkFolder ? { linkFolder } : {}),
		...(resumed ? { resumed } : {}),
		providerWarnings,
		warnings: [
			...(piHint ? [{ type: "warning" as const, message: piHint }] : []),
			...sessionWarnings,
			...skippedLineWarnings(runtime.session.sessionManager).map((message) => ({
				type: "warning" as const,
				// The file resumed (`-c` does not name it): the conversation continues without these lines.
				message: `${runtime.session.sessionFile}: ${message}`,
			})),
			...unknownToolWarnings(args.tools, runtime),
			...(args.systemPrompt === undefined ? changedBasePromptWarnings(runtime) : []),
			...(args.provider !== undefined && !args.model
				? [
						{
							type: "warning" as const,
							source: "flags" as const,
							message: `--provider ${args.provider} chooses no model without --model (as in pi): add --model <id> to use one of its models.`,
						},
					]
				: []),
			...(args.model === undefined && !recordsModel ? missingDefaultModelWarnings(runtime) : []),
			...(untrusted.paths.length > 0 && !untrustedByChoice
				? [untrustedWarning(untrusted, runtime.services.agentDir)]
				: []),
			...warnings.map((d) => ({ ...d, message: trustAdviceForCli(d.message, runtime.services.agentDir) })),
		],
	};
}

/**
 * The resource warnings that came after the start-up ones were collected: what the folders an
 * extension's `resources_discover` added said (unreadable ones), once its `session_start` ran.
 * The start-up warnings are not repeated.
 */
export function resourceWarningsAfterStart(runtime: AgentSessionRuntime): string[] {
	const now: AgentSessionRuntimeDiagnostic[] = [];
	collectProjectDiagnostics(runtime.services.settingsManager, runtime.services.resourceLoader, now);
	const said = new Set(runtime.diagnostics.map((diagnostic) => diagnostic.message));
	return now
		.filter((diagnostic) => diagnostic.source === "resources" && !said.has(diagnostic.message))
		.map((diagnostic) => diagnostic.message);
}

/**
 * What a reload found that the user should fix: the skills', prompt templates' and context files'
 * warnings (unreadable folders, an extension's `resources_discover` folders included), as a
 * start-up says them: each reload says them once.
 */
export function reloadedResourceWarnings(session: AgentSession): string[] {
	const loader = session.resourceLoader;
	return [
		...loader.getSkills().diagnostics,
		...loader.getPrompts().diagnostics,
		...(loader.getAgentsFiles().diagnostics ?? []),
	].map(resourceDiagnosticText);
}

/**
 * The `provider/id` that `--model` (with `--provider`, as pi reads them) names: `--provider p
 * --model m` is `p/m`, and a `p/` prefix already on the model is not doubled (`--provider p --model
 * p/m`), while any other slash stays part of the id (`--provider openrouter --model openai/gpt-4o`).
 */
function cliModelSpec(args: Pick<ParsedArgs, "model" | "provider">): string | undefined {
	if (args.model === undefined || args.provider === undefined) return args.model;
	const prefix = `${args.provider}/`;
	const id = args.model.toLowerCase().startsWith(prefix.toLowerCase()) ? args.model.slice(prefix.length) : args.model;
	return `${args.provider}/${id}`;
}

/**
 * A resumed session whose recorded base prompt this run does not give (a `--system-prompt` or
 * SYSTEM.md it ran with): its next request changes the model's persona without a word (pi#1252).
 */
function changedBasePromptWarnings(runtime: AgentSessionRuntime): AgentSessionRuntimeDiagnostic[] {
	const preamble = (sections: readonly { id: string; text: string }[] | undefined) =>
		sections?.find((section) => section.id === "preamble")?.text;
	// A handler may set the prompt per operation: the recorded one can be its, and it sets it again.
	if (runtime.session.extensionRunner.hasHandlers("before_agent_start")) return [];
	const recorded = preamble(systemPromptFromTranscript(runtime.session.messages)?.sections);
	if (recorded === undefined) return [];
	if (recorded === preamble(buildSystemPromptSections(runtime.session.getSystemPromptOptions()))) return [];
	return [
		{
			type: "warning",
			source: "flags",
			message: `this session ran with another base system prompt (from --system-prompt or SYSTEM.md) than this run gives; its next request uses this run's. Give the same --system-prompt again to keep the session's.`,
		},
	];
}

/**
 * `--tools` names no tool has (a typo, or an extension's tool that did not load): pi drops them
 * without a word, leaving the model without the tool the user meant to give it.
 */
function unknownToolWarnings(
	allowlist: readonly string[] | undefined,
	runtime: AgentSessionRuntime,
): AgentSessionRuntimeDiagnostic[] {
	if (!allowlist) return [];
	const present = runtime.session.getAllTools().map((tool) => tool.name);
	const unknown = allowlist.filter((name) => !present.includes(name));
	if (unknown.length === 0) return [];
	return [
		{
			type: "warning",
			source: "flags",
			message: `--tools: no tool is named ${unknown.map((name) => `"${name}"`).join(", ")}, so the model gets ${present.length > 0 ? `only ${present.join(", ")}` : "no tools"}. The built-in tools are ${allToolNames.join(", ")}; extensions add theirs.`,
		},
	];
}

/**
 * Settings whose `defaultProvider` / `defaultModel` name a model that provider does not have (a typo,
 * a model gone from the catalogue): pi, and the SDK as pi, start on another model without a word.
 * Asked only when that model would have been used (no `--model`, a session with no model recorded).
 * A provider not served here at all (`--faux` with a real default, pi-ai missing) is said elsewhere.
 */
function missingDefaultModelWarnings(runtime: AgentSessionRuntime): AgentSessionRuntimeDiagnostic[] {
	const { settingsManager, modelRuntime } = runtime.services;
	const provider = settingsManager.getDefaultProvider();
	const id = settingsManager.getDefaultModel();
	if (!provider || !id || modelRuntime.getModel(provider, id)) return [];
	if (!modelRuntime.getAll().some((model) => model.provider === provider)) return [];
	const current = runtime.session.model;
	const using = current ? `, so this session uses ${current.provider}/${current.id}` : "";
	return [
		{
			type: "warning",
			source: "settings",
			message: `The settings' default model ${provider}/${id} is not a model of ${provider}${using}. Fix "defaultModel" in settings.json (settle --list-models lists the models you can use), or pass --model.`,
		},
	];
}

/** The project extensions trust kept from loading (paths as their diagnostics name them), and the project. */
function untrustedExtensions(runtime: AgentSessionRuntime): { cwd: string; paths: string[] } {
	const paths = runtime.services.resourceLoader
		.getExtensions()
		.skipped.filter((skipped) => skipped.reason === "untrusted-project")
		.map((skipped) => skipped.path);
	return { cwd: trustKey(runtime.services.cwd), paths };
}

/**
 * One warning for all of an untrusted project's extensions, in command-line terms (the SDK's
 * diagnostics, one per extension, also explain the SDK's options).
 */
function untrustedWarning(
	untrusted: { cwd: string; paths: string[] },
	agentDir: string,
): AgentSessionRuntimeDiagnostic {
	const names = untrusted.paths.map((path) => relative(untrusted.cwd, path) || path).join(", ");
	return {
		type: "warning",
		source: "extensions",
		message: `The project ${untrusted.cwd} is not trusted, so its extensions were not loaded (${names}). ${cliTrustAdvice(untrusted.cwd, agentDir)}`,
	};
}

/** The start of {@link howToTrustProject}'s advice in a diagnostic: what was left out because of trust. */
const TRUST_ADVICE_MARK = "To trust it: ";

/**
 * Whether the project is untrusted because the user said so: `--no-approve`, `false` for it in
 * trust.json, or `"defaultProjectTrust": "never"`. Not with the default `ask` (Settle cannot ask):
 * then the warnings say what was left out and how to trust it.
 */
function distrustChosen(args: ParsedArgs, cwd: string, agentDir: string, settings: SettingsManager): boolean {
	const defaultProjectTrust = settings.getDefaultProjectTrust();
	const decision = resolveProjectTrust({
		cwd,
		agentDir,
		defaultProjectTrust,
		...(args.trustProject !== undefined ? { override: args.trustProject } : {}),
	});
	return !decision.trusted && (decision.reason !== "default" || defaultProjectTrust === "never");
}

/** How a command-line user trusts `cwd`: for this run, or from now on. */
function cliTrustAdvice(cwd: string, agentDir: string): string {
	return `Run settle with --approve to trust it for this run; to trust it from now on, add ${JSON.stringify(cwd)}: true to ${join(agentDir, TRUST_FILE_NAME)} (or set "defaultProjectTrust": "always" in ${join(agentDir, "settings.json")}).`;
}

/** A settings warning's SDK advice on trust (`howToTrustProject`), told in command-line terms instead. */
function trustAdviceForCli(message: string, agentDir: string): string {
	const at = message.indexOf(TRUST_ADVICE_MARK);
	if (at === -1) return message;
	const cwd = /remember it with new ProjectTrustStore\(agentDir\)\.set\("([^"]*)", true\)/.exec(message)?.[1];
	return cwd === undefined ? message : `${message.slice(0, at)}${cliTrustAdvice(trustKey(cwd), agentDir)}`;
}

/** The folder as trust.json names it (real path, as ProjectTrustStore looks it up). */
function trustKey(cwd: string): string {
	try {
		return realpathSync(cwd);
	} catch {
		return cwd;
	}
}

async function openSession(
	args: ParsedArgs,
	cwd: string,
	agentDir: string,
	sessionDir: string,
	linkFolder?: LinkNamedSessionFolder,
	pickSession?: StartHostHooks["pickSession"],
): Promise<{ sessionManager: SessionManager; warnings: AgentSessionRuntimeDiagnostic[]; resumed?: boolean }> {
	const warnings: AgentSessionRuntimeDiagnostic[] = [];
	const opened = (sessionManager: SessionManager) => ({ sessionManager, warnings });
	try {
		if (args.noSession) return opened(SessionManager.inMemory(cwd));
		if (args.fork !== undefined) {
			// As pi: every entry of the source, in a new session of this project (parentSession: the source).
			return opened(SessionManager.forkFrom(await forkSource(args.fork, cwd, agentDir, sessionDir), cwd, sessionDir));
		}
		if (args.continue) {
			// The newer of the project's latest and the link-named folder's (opened in place, kept in its file).
			// Latest by its last message, as -r lists (claude-code#79572): a file's mtime moves with a sync or a copy.
			const linked = linkFolder ? await findLatestActiveSession(linkFolder.sessionDir, linkFolder.cwd) : null;
			const latest = await findLatestActiveSession(sessionDir, cwd);
			const sessionManager =
				linked !== null && (latest === null || newestSessionFirst()(linked, latest) < 0)
					? SessionManager.openReadAhead(linked.read, sessionDir, cwd)
					: latest !== null
						? SessionManager.openReadAhead(latest.read, sessionDir, cwd)
						: SessionManager.create(cwd, resolve(sessionDir));
			// A newer file the search passed over (oh-my-pi#9915): say so, or -c silently resumes an older one.
			for (const file of passedOverByContinue(sessionDir, sessionManager.getSessionFile())) {
				warnings.push({ type: "warning", message: passedOverWarning(file) });
			}
			// Nothing to continue: a new session, while pi may hold this project's sessions elsewhere.
			const hint = sessionManager.getEntries().length === 0 ? piContinueHint({ cwd, agentDir }) : undefined;
			if (hint) warnings.push({ type: "warning", message: hint });
			return opened(sessionManager);
		}
		if (args.resume && pickSession) {
			// As pi: the session is picked first, then the runtime starts on it (extensions see one session_start).
			const folders = { cwd, agentDir, sessionDir, ...(linkFolder ? { linkFolder } : {}) };
			const picked = await pickSession(folders, (path) =>
				// A link-named folder's session keeps its file; sessions started from it go to the project's folder.
				inLinkFolder(folders, path) ? SessionManager.open(path, sessionDir, cwd) : SessionManager.open(path),
			);
			if (picked === undefined) throw new SessionPickCancelled();
			if (picked !== "new") return { ...opened(picked), resumed: true };
			return opened(SessionManager.create(cwd, sessionDir));
		}
		if (args.session !== undefined) {
			const cwdOverride = args.cwd !== undefined ? cwd : undefined;
			const path = resolve(args.session);
			// A bare word naming a folder or a file that is no session (`docs`) is an id or a name.
			if (existsSync(path) && namesSessionFile(args.session)) {
				return opened(SessionManager.open(path, undefined, cwdOverride));
			}
			const inFolder = sessionFileInFolder(args.session, sessionDir);
			if (inFolder !== undefined) return opened(SessionManager.open(inFolder, undefined, cwdOverride));
			if (looksLikePath(args.session)) {
				// Written on the first message, after the model answered: a folder that cannot hold it is named now.
				const problem = unwritableFolder(dirname(path));
				if (problem) {
					throw new CliError(
						`Cannot start a session at ${path}: ${problem}. Pass a --session path in a writable folder, or --no-session to keep the session in memory.`,
						EXIT_SESSION_FILE,
					);
				}
				// pi starts a new session at a path that does not exist; a mistyped path should not pass unnoticed.
				warnings.push({ type: "warning", message: `${path} does not exist: starting a new session there.` });
				return opened(SessionManager.open(path, undefined, cwdOverride));
			}
			const found =
				SessionManager.findById(cwd, args.session, sessionDir) ??
				(linkFolder && SessionManager.findById(linkFolder.cwd, args.session, linkFolder.sessionDir)) ??
				(await findByIdPrefix(args.session, "--session", cwd, agentDir, sessionDir, linkFolder, cwdOverride));
			// A link-named folder's session keeps its file; sessions started from it go to the project's folder.
			const inLinkFolder = linkFolder !== undefined && resolve(dirname(found)) === linkFolder.sessionDir;
			return opened(SessionManager.open(found, inLinkFolder ? sessionDir : undefined, cwdOverride));
		}
		return opened(SessionManager.create(cwd, sessionDir));
	} catch (error) {
		if (error instanceof CliError) throw error;
		if (error instanceof SettleError && error.code === "SESSION_LOCKED") throw sessionLockedError(error);
		// The file given (or the latest one) cannot be read as a session; a new session's folder is not a file.
		const given = args.session !== undefined || args.continue || args.fork !== undefined;
		const fileProblem =
			error instanceof SettleError && (error.code === "INVALID_SESSION_FILE" || (given && error.code === "IO"));
		throw new CliError(
			newerSessionFormatForCli(error) ?? errorMessage(error),
			fileProblem ? EXIT_SESSION_FILE : EXIT_FAILURE,
		);
	}
}

/**
 * The session folder `settle --cwd <link>` used before `--cwd` was resolved through symlinks
 * (oh-my-pi#941): the default folder named after the path as given, whose sessions' headers name
 * that path. Undefined when `--cwd` was not given or names no symlink on the way (the path given
 * resolves to itself). `-c`, `--session <id-prefix>` and `/resume` look there too; new sessions go
 * to the real path's folder.
 */
function linkNamedSessionFolder(args: ParsedArgs, cwd: string, agentDir: string): LinkNamedSessionFolder | undefined {
	if (args.cwd === undefined) return undefined;
	const given = resolve(args.cwd);
	return given === cwd
		? undefined
		: { cwd: given, sessionDir: getDefaultSessionDirPath(given, agentDir), project: cwd };
}

/** The files with bytes but no session header, newer than the session `-c` picked (all of them when it starts a new one). */
function passedOverByContinue(sessionDir: string, picked: string | undefined): string[] {
	const after = picked !== undefined && existsSync(picked) ? statSync(picked).mtimeMs : undefined;
	return unreadableSessionFiles(sessionDir, after);
}

function passedOverWarning(file: string): string {
	return (
		`--continue passed over ${file}, newer than any session it could resume: its first line is not a session ` +
		"header (a crash may have cut it), so it cannot be resumed; nothing was changed. Open it with --session to " +
		"see the error, or move it away."
	);
}

/**
 * The store's `SESSION_LOCKED` text told in command-line terms (it names `manager.close()` and
 * `readOnly`): who holds the file, what became of this run (`outcome`), and what a script can do —
 * wait for it, fork it (a fork only reads the file), or not share the file. Undefined for any other text.
 *
 * @example
 * ```ts
 * declare const error: SettleError; // code SESSION_LOCKED
 * sessionLockedForCli(error.message, "so nothing ran"); // "Session file /s.jsonl is in use by process 7 on ci-1: …"
 * ```
 */
export function sessionLockedForCli(message: string, outcome: string): string | undefined {
	const match =
		/^Session file (.+) is already open for writing by (.+?)\. Only one SessionManager may write a session: .*?(A lock left by a crashed process.*)$/s.exec(
			message,
		);
	if (!match) return undefined;
	const [, file, holder, stale] = match;
	return `Session file ${file} is in use by ${holder}: only one process may write a session at a time, ${outcome}. Run again once it has exited, carry on from what it holds in a new session (--fork ${file}), or give this run its own session (--no-session, or another --session). ${stale}`;
}

/**
 * The store's refusal to append to a session file another program deleted, replaced, wrote to or
 * left cut mid-line, told in command-line terms: its way out names `SessionManager` calls, and this
 * process's memory ends with it, so the run's later entries are in no file. Undefined for any other error.
 *
 * @example
 * ```ts
 * declare const error: SettleError; // code IO, details.reason "changed"
 * sessionFileChangedForCli(error); // "Session file /s.jsonl was written to by another program … --session /s.jsonl …"
 * ```
 */
export function sessionFileChangedForCli(error: SettleError): string | undefined {
	const { path, reason } = (error.details ?? {}) as { path?: unknown; reason?: unknown };
	if (error.code !== "IO" || typeof path !== "string" || typeof reason !== "string") return undefined;
	if (!["deleted", "changed", "replaced", "uncut"].includes(reason)) return undefined;
	const end = error.message.indexOf(" Nothing more is written to it");
	if (end < 0) return undefined;
	const next =
		reason === "deleted"
			? "Run the prompt again in a new session (leave out -c and --session)."
			: `Run again with --session ${path} to continue from what the file holds now, or with --fork ${path} to continue from it in a new file; without -c or --session a new session starts.`;
	return `${error.message.slice(0, end)} Nothing more was written to it, so what this run added after that is in no file. ${next}`;
}

/** A `SESSION_LOCKED` error at startup: exit {@link EXIT_SESSION_LOCKED}, nothing ran. */
function sessionLockedError(error: SettleError): CliError {
	return new CliError(sessionLockedForCli(error.message, "so nothing ran") ?? error.message, EXIT_SESSION_LOCKED);
}

/** Whether a lookup's `elsewhere` is the one matching session of a project folder that no longer exists. */
function movedAway(elsewhere: unknown): elsewhere is { path: string } {
	const { path, cwd, others } = (elsewhere ?? {}) as { path?: unknown; cwd?: unknown; others?: unknown };
	return typeof path === "string" && typeof cwd === "string" && others === 0 && !existsSync(cwd);
}

/** pi's rule: a `--session` value with a path separator or a `.jsonl` ending is a path, anything else an id. */
function looksLikePath(value: string): boolean {
	return value.includes("/") || value.includes("\\") || value.endsWith(".jsonl");
}

/**
 * The project's session whose id starts with `--session`'s (or `--fork`'s) value (pi accepts a
 * partial id), by the rule `/resume` shares ({@link findSessionByIdPrefix}). `--fork` also takes a
 * session of another project when none of this one matches, as pi's does (the fork is this
 * project's); `--session` too when `--cwd` was given (`cwdGiven`) and that project's folder is gone
 * (moved or renamed, maka#2529): the session goes on in `--cwd`, as its refusal advises. Throws
 * {@link CliError} (exit 2) when none or several match, with what there is.
 */
async function findByIdPrefix(
	prefix: string,
	option: "--session" | "--fork",
	cwd: string,
	agentDir: string,
	sessionDir: string,
	linkFolder?: LinkNamedSessionFolder,
	cwdGiven?: string,
): Promise<string> {
	try {
		const info = await findSessionByIdPrefix(prefix, {
			cwd,
			agentDir,
			sessionDir,
			...(linkFolder ? { linkFolder } : {}),
			latestHint:
				option === "--fork"
					? " (settle -r lists them all; settle --fork <id> forks one)."
					: " (settle -r lists them all; settle --continue resumes the latest).",
			// The file's path, not its id: an id is looked up in the session folders of the command
			// that runs it, and --session-dir, a sessionDir setting or SETTLE_AGENT_DIR may not be there (pi#8048).
			resumeElsewhere: (other) => `settle --cwd ${shellWord(other.cwd)} --session ${shellWord(other.path)}`,
			resumeHere: (other) => `settle --cwd ${shellWord(resolve(cwd))} --session ${shellWord(other.path)}`,
		});
		return info.path;
	} catch (error) {
		if (error instanceof SettleError) {
			const elsewhere = error.details?.elsewhere as { path?: unknown } | undefined;
			if (option === "--fork" && typeof elsewhere?.path === "string") return elsewhere.path;
			if (cwdGiven !== undefined && movedAway(elsewhere)) return elsewhere.path;
			const pi =
				error.code === "NOT_FOUND" && elsewhere === undefined
					? piSessionHint({
							cwd,
							prefix,
							agentDir,
							open: (path) => `settle ${option} ${shellWord(path)}`,
						})
					: undefined;
			throw new CliError(pi ? `${error.message} ${pi}` : error.message, EXIT_USAGE);
		}
		throw error;
	}
}

/**
 * The session file `--fork` names: a file (that must exist, as pi's fork reads it), or the id (or
 * id prefix) of a session of this project, else of another one.
 */
async function forkSource(fork: string, cwd: string, agentDir: string, sessionDir: string): Promise<string> {
	const path = resolve(fork);
	if (existsSync(path) && namesSessionFile(fork)) return path;
	const inFolder = sessionFileInFolder(fork, sessionDir);
	if (inFolder !== undefined) return inFolder;
	if (looksLikePath(fork)) {
		throw new CliError(
			`--fork: ${path} does not exist. Give a session file, or the id (or its first characters) of a session.`,
			EXIT_SESSION_FILE,
		);
	}
	return (
		SessionManager.findById(cwd, fork, sessionDir) ?? (await findByIdPrefix(fork, "--fork", cwd, agentDir, sessionDir))
	);
}

/**
 * The SDK keeps running without a broken settings file or key ("until then it is ignored"); the
 * command does not start with one, so it says that instead.
 */
function settingsErrorForCli(message: string): string {
	return message.replace(/; until then (it|this key) is ignored.*$/, "; settle does not start until then.");
}

/**
 * An extension that did not load stops the command (as in pi), so its error says how to start
 * anyway: without the `-e` that named it, or, for one found in an extensions folder or listed in
 * settings, with `--no-extensions` (which still loads `-e` paths). A name two extensions register
 * stops it too (as in pi): the SDK goes on with the first ("the first is used"), the command does not.
 */
function extensionErrorForCli(
	diagnostic: AgentSessionRuntimeDiagnostic,
	explicit: readonly string[],
	cwd: string,
): string {
	const { path } = diagnostic;
	const message = diagnostic.message.replace(
		": the first is used; rename one",
		": settle does not start with both; rename one",
	);
	if (path === undefined) return message;
	const given = explicit.find((entry) => {
		const resolved = resolve(cwd, expandHome(entry));
		return path === resolved || path.startsWith(`${resolved}${sep}`);
	});
	const end = message.endsWith(".") ? "" : ".";
	return given !== undefined
		? `${message}${end} Fix ${message.startsWith("Extension path") ? "the path" : "it"}, or run without -e ${shellWord(given)}.`
		: `${message}${end} Fix or remove it, or run with --no-extensions (only -e extensions load then).`;
}

/** A message on one line (a parser's error may span several: code frame, file position). */
export function oneLine(message: string): string {
	return message.trim().replace(/\s*\n\s*/g, " ");
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}
