/**
 * Telling someone coming from pi where their pi setup went. Settle keeps its own agent folder
 * (`~/.settle/agent`) and never reads pi's `~/.pi/agent` unasked (src/settings/paths.ts says why),
 * so a pi user's first `settle` finds no keys, models, extensions or sessions. These hints name
 * pi's folder and the one setting that shares it; they only read, never write, pi's folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { AGENT_DIR_ENV, getPiAgentDir } from "../settings/paths.js";
import { shellWord } from "../shell-word.js";
import { readSessionHeader } from "../store/discovery.js";
import { makeFolders, PRIVATE_FOLDER_MODE } from "../store/folders.js";
import { getDefaultSessionDirPath } from "../store/paths.js";

/**
 * One line for a pi user whose setup Settle is not reading: the default agent folder is in use
 * (no `--agent-dir`, no `$SETTLE_AGENT_DIR`), it does not exist yet, and pi's holds something.
 * Undefined otherwise, so it is said on the first run only (the CLI then makes Settle's folder:
 * {@link piFolderHintShown}). Must not throw.
 *
 * @example
 * ```ts
 * piFolderHint({ cwd: process.cwd(), agentDir: "/home/me/.settle/agent", agentDirGiven: false });
 * // "pi's agent folder /home/me/.pi/agent (settings.json, auth.json, 3 sessions of this project) is not read by Settle, … SETTLE_AGENT_DIR=/home/me/.pi/agent …"
 * ```
 */
export function piFolderHint(input: {
	cwd: string;
	agentDir: string;
	/** `--agent-dir` was given. */
	agentDirGiven: boolean;
	env?: NodeJS.ProcessEnv;
}): string | undefined {
	const env = input.env ?? process.env;
	try {
		if (input.agentDirGiven || env[AGENT_DIR_ENV]?.trim()) return undefined;
		const piDir = getPiAgentDir(env);
		if (resolve(input.agentDir) === piDir || existsSync(input.agentDir) || !isDirectory(piDir)) return undefined;
		const held = [
			...["settings.json", "auth.json", "models.json"].filter((name) => existsSync(join(piDir, name))),
			...["extensions", "skills", "prompts"].filter((name) => isDirectory(join(piDir, name))).map((n) => `${n}/`),
		];
		const sessions = projectSessionFiles(getDefaultSessionDirPath(input.cwd, piDir), input.cwd).length;
		if (sessions > 0) held.push(`${sessions} session${sessions === 1 ? "" : "s"} of this project`);
		if (held.length === 0) return undefined;
		return `pi's agent folder ${piDir} (${held.join(", ")}) is not read by Settle, which keeps its own in ${resolve(input.agentDir)}. To use pi's keys, settings, models, extensions, skills and sessions (Settle then writes its sessions and settings there too), run with SETTLE_AGENT_DIR=${shellWord(piDir)} or --agent-dir ${shellWord(piDir)}.`;
	} catch {
		return undefined;
	}
}

/**
 * Remembers that the {@link piFolderHint} was said, so it is said once: makes Settle's own agent
 * folder (empty), which the first saved session makes anyway — a `--no-session` run would
 * otherwise repeat the hint every time. No file is written, pi's folder is not touched. Must not throw.
 *
 * @example
 * ```ts
 * piFolderHintShown("/home/me/.settle/agent"); // the next run finds the folder: no hint
 * ```
 */
export function piFolderHintShown(agentDir: string): void {
	try {
		makeFolders(agentDir, { mode: PRIVATE_FOLDER_MODE });
	} catch {
		// Unwritable: the hint is said again next time, which is all that is lost.
	}
}

/**
 * For an id prefix that matched nothing in Settle's folder (`--session <id-prefix>`, `/resume
 * <id-prefix>`): pi's session of this project with that id, and how to open it (its path works as
 * it is: `open` words the command). Undefined when pi has none.
 */
export function piSessionHint(input: {
	cwd: string;
	prefix: string;
	agentDir: string;
	open: (path: string) => string;
	env?: NodeJS.ProcessEnv;
}): string | undefined {
	const pi = piProjectSessions(input);
	if (!pi) return undefined;
	// pi names its files <timestamp>_<id>.jsonl.
	const matches = pi.files.filter((path) => {
		const name = basename(path);
		return name.slice(name.indexOf("_") + 1).startsWith(input.prefix);
	});
	if (matches.length === 0) return undefined;
	const path = matches.sort().at(-1)!;
	const several = matches.length > 1 ? ` (the newest of ${matches.length})` : "";
	return `pi's session ${path}${several} matches: open it with ${input.open(path)}, or run settle with SETTLE_AGENT_DIR=${shellWord(pi.piDir)} to find pi's sessions by id and with -c.`;
}

/**
 * For `-c` that found no Settle session of this project (so it starts a new one): pi's latest
 * session of this project, and how to continue it. Undefined when pi has none.
 */
export function piContinueHint(input: { cwd: string; agentDir: string; env?: NodeJS.ProcessEnv }): string | undefined {
	const pi = piProjectSessions(input);
	if (!pi) return undefined;
	return `-c found no Settle session of this project, so this is a new one; pi has ${pi.files.length} in ${pi.dir}. settle --session ${shellWord(pi.latest)} continues pi's latest; SETTLE_AGENT_DIR=${shellWord(pi.piDir)} makes -c use pi's sessions.`;
}

/** For `/resume` listing no session: pi's sessions of this project, and how to open one. */
export function piResumeHint(input: { cwd: string; agentDir: string; env?: NodeJS.ProcessEnv }): string | undefined {
	const pi = piProjectSessions(input);
	if (!pi) return undefined;
	return `pi has ${pi.files.length} session${pi.files.length === 1 ? "" : "s"} of this project in ${pi.dir}: /resume ${pi.latest} continues pi's latest (settle with SETTLE_AGENT_DIR=${shellWord(pi.piDir)} lists them here).`;
}

/**
 * pi's session files of `cwd` in pi's folder, and the most recently modified (pi's -c pick).
 * Undefined when Settle already uses pi's folder or pi has none. Must not throw.
 */
function piProjectSessions(input: {
	cwd: string;
	agentDir: string;
	env?: NodeJS.ProcessEnv;
}): { piDir: string; dir: string; files: string[]; latest: string } | undefined {
	try {
		const piDir = getPiAgentDir(input.env);
		if (resolve(input.agentDir) === piDir) return undefined;
		const dir = getDefaultSessionDirPath(input.cwd, piDir);
		const files = projectSessionFiles(dir, input.cwd);
		if (files.length === 0) return undefined;
		const latest = files.reduce((a, b) => (statSync(b).mtimeMs > statSync(a).mtimeMs ? b : a));
		return { piDir, dir, files, latest };
	} catch {
		return undefined;
	}
}

/**
 * For a resumed session whose model could not be restored because its provider is unknown here:
 * pi's models.json defines that provider, and Settle is not reading pi's folder. Undefined
 * otherwise. Must not throw.
 */
export function piModelsHint(input: {
	provider: string;
	agentDir: string;
	env?: NodeJS.ProcessEnv;
}): string | undefined {
	try {
		const piDir = getPiAgentDir(input.env);
		if (resolve(input.agentDir) === piDir) return undefined;
		const file = join(piDir, "models.json");
		const providers = (JSON.parse(readFileSync(file, "utf8")) as { providers?: Record<string, unknown> }).providers;
		if (!providers || !Object.hasOwn(providers, input.provider)) return undefined;
		return `pi's ${file} defines the provider "${input.provider}": run with SETTLE_AGENT_DIR=${shellWord(piDir)} to use it.`;
	} catch {
		return undefined;
	}
}

/**
 * The session files in `dir` whose header names `cwd`: another cwd can share the folder
 * (`a/b` and `a-b` both map to `--a-b--`, openclaw#96542).
 */
function projectSessionFiles(dir: string, cwd: string): string[] {
	const project = resolve(cwd);
	try {
		return readdirSync(dir)
			.filter((name) => name.endsWith(".jsonl"))
			.map((name) => join(dir, name))
			.filter((path) => {
				const headerCwd = readSessionHeader(path)?.cwd;
				return typeof headerCwd === "string" && headerCwd !== "" && resolve(headerCwd) === project;
			});
	} catch {
		return [];
	}
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}
