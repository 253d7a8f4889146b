/**
 * Starting the CLI's runtime from the parsed command line: the project directory, the session
 * (new, resumed, continued or in memory), the model source (pi-ai or `--faux`), tools, trust and
 * extension flags — one factory reused for every replacement.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { collectExtensionFlags } from "../extensions/flags.js";
import { createAgentSessionRuntimeFactory } from "../runtime/factory.js";
import { type AgentSessionRuntime, createAgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSessionRuntimeDiagnostic } from "../runtime/services.js";
import { getDefaultAgentDir } from "../settings/paths.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { getDefaultSessionDirPath } from "../store/paths.js";
import { SessionManager } from "../store/session-manager.js";
import { extensionFlagValues, type ParsedArgs, reclaimMessages } from "./args.js";
import { createCliFaux, loadFauxScript } from "./faux-script.js";
import { EXIT_FAILURE, EXIT_USAGE } from "./help.js";
import { findSessionByIdPrefix } from "./session-lookup.js";

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

/** The started host: the runtime, and the prompts to run (with arguments boolean flags swallowed given back). */
export interface CliHost {
	runtime: AgentSessionRuntime;
	messages: string[];
	/** Startup problems that are only warnings (errors end the CLI before this). */
	warnings: AgentSessionRuntimeDiagnostic[];
}

/**
 * Builds the runtime the command line describes. Throws {@link CliError}: `EXIT_USAGE` for a bad
 * directory, an unknown extension flag or model; `EXIT_FAILURE` when the session cannot start.
 */
export async function startHost(args: ParsedArgs): Promise<CliHost> {
	const cwd = resolve(args.cwd ?? process.cwd());
	if (!isDirectory(cwd)) throw new CliError(`--cwd: ${cwd} is not a directory.`, EXIT_USAGE);
	const agentDir = resolve(args.agentDir ?? getDefaultAgentDir());
	const settings = SettingsManager.create(cwd, agentDir);
	const sessionDir = args.sessionDir
		? resolve(args.sessionDir)
		: (settings.getSessionDir() ?? getDefaultSessionDirPath(cwd, agentDir));

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
	const factory = createAgentSessionRuntimeFactory({
		...(modelRuntime ? { modelRuntime } : {}),
		...(args.model ? { model: args.model } : {}),
		...(args.thinking ? { thinkingLevel: args.thinking } : {}),
		...(args.tools ? { tools: args.tools } : {}),
		...(args.noTools ? { noTools: "all" as const } : {}),
		extensionFlagValues: extensionFlagValues(args.unknownFlags),
		resourceLoaderOptions: {
			...(args.trustProject !== undefined ? { trustProject: args.trustProject } : {}),
			...(args.extensions.length > 0 ? { additionalExtensionPaths: args.extensions } : {}),
			...(args.noExtensions ? { noExtensions: true } : {}),
		},
	});

	const { sessionManager, warnings: sessionWarnings } = await openSession(args, cwd, agentDir, sessionDir);
	let runtime: AgentSessionRuntime;
	try {
		runtime = await createAgentSessionRuntime(factory, { cwd, agentDir, sessionManager });
	} catch (error) {
		if (error instanceof SettleError && error.code === "MISSING_SESSION_CWD") {
			throw new CliError(
				`${error.message}\nPass --cwd <dir> to continue the session in another directory.`,
				EXIT_FAILURE,
			);
		}
		if (error instanceof SettleError && (error.code === "NOT_FOUND" || error.code === "INVALID_ARGUMENT")) {
			// findModel's NOT_FOUND carries the spec it was given: point to the list of what there is.
			const hint =
				error.code === "NOT_FOUND" && typeof error.details?.spec === "string"
					? " settle --list-models lists the models you can use."
					: "";
			throw new CliError(`${error.message}${hint}`, EXIT_USAGE);
		}
		throw new CliError(errorMessage(error), EXIT_FAILURE);
	}
	const errors = runtime.diagnostics.filter((d) => d.type === "error");
	if (errors.length > 0) {
		await runtime.dispose();
		const usage = errors.every((d) => d.source === "flags");
		throw new CliError(
			errors
				.map((d) => `Error: ${oneLine(d.source === "settings" ? settingsErrorForCli(d.message) : d.message)}`)
				.join("\n"),
			usage ? EXIT_USAGE : EXIT_FAILURE,
		);
	}
	const flags = collectExtensionFlags(runtime.services.extensionsResult.extensions);
	const messages = reclaimMessages(args.messages, args.unknownFlags, (name) => flags.get(name)?.type);
	return {
		runtime,
		messages,
		warnings: mergeUntrustedExtensionWarnings([
			...sessionWarnings,
			...runtime.diagnostics.filter((d) => d.type !== "error"),
		]),
	};
}

const UNTRUSTED_EXTENSION = /^Project extension not loaded: (.+?)\. (The project .+)$/s;

/**
 * One warning for all of an untrusted project's extensions (at the place of the first), instead
 * of one per file that repeats the same paragraph of how to trust the project.
 */
export function mergeUntrustedExtensionWarnings(
	warnings: AgentSessionRuntimeDiagnostic[],
): AgentSessionRuntimeDiagnostic[] {
	const files: string[] = [];
	let advice: string | undefined;
	let first = -1;
	warnings.forEach((warning, index) => {
		const match = UNTRUSTED_EXTENSION.exec(warning.message);
		if (!match || (advice !== undefined && match[2] !== advice)) return;
		files.push(match[1] as string);
		advice = match[2];
		if (first < 0) first = index;
	});
	if (files.length < 2) return warnings;
	const merged: AgentSessionRuntimeDiagnostic = {
		...(warnings[first] as AgentSessionRuntimeDiagnostic),
		message: `Project extensions not loaded (${files.length}): ${files.join(", ")}. ${advice}`,
	};
	delete merged.path;
	return warnings.flatMap((warning, index) => {
		if (index === first) return [merged];
		const match = UNTRUSTED_EXTENSION.exec(warning.message);
		return match && match[2] === advice ? [] : [warning];
	});
}

async function openSession(
	args: ParsedArgs,
	cwd: string,
	agentDir: string,
	sessionDir: string,
): Promise<{ sessionManager: SessionManager; warnings: AgentSessionRuntimeDiagnostic[] }> {
	const warnings: AgentSessionRuntimeDiagnostic[] = [];
	const opened = (sessionManager: SessionManager) => ({ sessionManager, warnings });
	try {
		if (args.noSession) return opened(SessionManager.inMemory(cwd));
		if (args.continue) return opened(SessionManager.continueRecent(cwd, sessionDir));
		if (args.session !== undefined) {
			const cwdOverride = args.cwd !== undefined ? cwd : undefined;
			const path = resolve(args.session);
			if (existsSync(path)) return opened(SessionManager.open(path, undefined, cwdOverride));
			if (looksLikePath(args.session)) {
				// pi starts a new session at a path that does not exist; a mistyped path should not pass unnoticed.
				warnings.push({ type: "warning", message: `${path} does not exist: starting a new session there.` });
				return opened(SessionManager.open(path, undefined, cwdOverride));
			}
			const found =
				SessionManager.findById(cwd, args.session, sessionDir) ??
				(await findByIdPrefix(args, cwd, agentDir, sessionDir));
			return opened(SessionManager.open(found, undefined, cwdOverride));
		}
		return opened(SessionManager.create(cwd, sessionDir));
	} catch (error) {
		if (error instanceof CliError) throw error;
		throw new CliError(errorMessage(error), EXIT_FAILURE);
	}
}

/** pi's rule: a `--session` value with a path separator or a `.jsonl` ending is a path, anything else an id. */
function looksLikePath(value: string): boolean {
	return value.includes("/") || value.includes("\\") || value.endsWith(".jsonl");
}

/**
 * The project's session whose id starts with `--session`'s value (pi accepts a partial id), by the
 * rule `/resume` shares ({@link findSessionByIdPrefix}). Throws {@link CliError} (exit 2) when none
 * or several match, with what there is.
 */
async function findByIdPrefix(args: ParsedArgs, cwd: string, agentDir: string, sessionDir: string): Promise<string> {
	try {
		const info = await findSessionByIdPrefix(args.session!, {
			cwd,
			agentDir,
			sessionDir,
			latestHint: " (settle --continue resumes the latest).",
			resumeElsewhere: (other) => `settle --cwd ${shellWord(other.cwd)} --session ${other.id}`,
		});
		return info.path;
	} catch (error) {
		if (error instanceof SettleError) throw new CliError(error.message, EXIT_USAGE);
		throw error;
	}
}

/** `value` as one shell word (quoted when it needs to be), for a command the user can paste. */
function shellWord(value: string): string {
	return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** A message on one line (a parser's error may span several: code frame, file position). */
/**
 * The SDK keeps running without a broken settings file or key ("until then it is ignored"); the
 * command does not start with one, so it says that instead.
 */
function settingsErrorForCli(message: string): string {
	return message.replace(/; until then (it|this key) is ignored.*$/, "; settle does not start until then.");
}

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
