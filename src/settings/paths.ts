/**
 * Where Settle looks for configuration: the global agent folder and the project folder.
 *
 * - Global: `$SETTLE_AGENT_DIR`, else `~/.settle/agent`. Settle does not fall back to pi's
 *   `~/.pi/agent` on its own: that folder also holds pi's credentials, sessions and a settings file
 *   Settle would write to. Pass `agentDir: getPiAgentDir()` (or `SETTLE_AGENT_DIR=~/.pi/agent`) to
 *   share it on purpose (every file there is format-compatible, models.json included). The `settle`
 *   command says so when it finds pi's folder and none of its own (src/cli/pi-folder.ts).
 * - Project: `<cwd>/.settle/`; a project that has pi's `.pi/` folder and no `.settle/` is read from
 *   `.pi/` (settings, skills, prompts, extensions, SYSTEM.md, APPEND_SYSTEM.md), so existing pi
 *   projects work unchanged. When both exist, only `.settle/` is used.
 */
import { existsSync, statSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { SettleError } from "../errors.js";

/** Name of Settle's project configuration folder. */
export const SETTLE_CONFIG_DIR_NAME = ".settle";
/** Name of pi's project configuration folder, read when a project has no `.settle/`. */
export const PI_CONFIG_DIR_NAME = ".pi";
/** Environment variable that overrides the default global agent folder. */
export const AGENT_DIR_ENV = "SETTLE_AGENT_DIR";
/**
 * Environment variable naming the `settle` command's session folder (pi's
 * `PI_CODING_AGENT_SESSION_DIR`): `--session-dir` beats it, it beats the `sessionDir` setting.
 */
export const SESSION_DIR_ENV = "SETTLE_SESSION_DIR";

/**
 * The default global agent folder: `$SETTLE_AGENT_DIR` or `~/.settle/agent`.
 * @example
 * ```ts
 * const settings = SettingsManager.create(process.cwd(), getDefaultAgentDir());
 * ```
 */
export function getDefaultAgentDir(env: NodeJS.ProcessEnv = process.env): string {
	const fromEnv = env[AGENT_DIR_ENV]?.trim();
	if (fromEnv) return resolve(expandHome(fromEnv));
	return join(requireHome(`the agent folder ~/${SETTLE_CONFIG_DIR_NAME}/agent`), SETTLE_CONFIG_DIR_NAME, "agent");
}

/**
 * The user's home folder, or undefined when there is none: `HOME` unset (or empty) and no passwd
 * entry for the user (a container started with an arbitrary `--user`, `env -i`), where Node's
 * `homedir()` throws; or a relative `HOME`, which would put the agent folder inside the current one.
 *
 * @example
 * ```ts
 * const home = homeFolder(); // "/home/me", or undefined in such a container
 * ```
 */
export function homeFolder(): string | undefined {
	let home: string;
	try {
		home = homedir();
	} catch {
		return undefined;
	}
	// Node gives an empty HOME back as "" where an unset one reads the passwd entry: both read it (gops#60).
	if (home === "") home = passwdHome() ?? "";
	// A relative HOME would put the agent folder (keys, sessions) inside whatever folder settle runs in.
	return isAbsolute(home) ? home : undefined;
}

/** The user's home folder in the passwd database, whatever HOME says; undefined without an entry. */
function passwdHome(): string | undefined {
	try {
		return userInfo().homedir || undefined;
	} catch {
		return undefined;
	}
}

/** Why {@link homeFolder} found none. */
function homeProblem(): string {
	const home = process.env.HOME;
	if (home) return `HOME is ${JSON.stringify(home)}, not an absolute path (the folder would be inside the current one)`;
	return `HOME is ${home === "" ? "empty" : "not set"} and this user (uid ${process.getuid?.() ?? "?"}) has none`;
}

/** The home folder for `what`; without one, an `IO` error saying how to do without it. */
function requireHome(what: string): string {
	const home = homeFolder();
	if (home !== undefined) return home;
	throw new SettleError(
		"IO",
		`There is no home folder for ${what}: ${homeProblem()}. ` +
			`Set ${AGENT_DIR_ENV}=<folder> (settle --agent-dir <folder>, agentDir in code), or HOME.`,
	);
}

/**
 * pi's global agent folder, as pi 0.73.1 resolves it: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
 * Settle never reads it on its own; pass it as `agentDir` (or set `SETTLE_AGENT_DIR`) to share
 * pi's keys, settings, models.json, extensions, skills, prompts and sessions on purpose.
 * @example
 * ```ts
 * const { session } = await createAgentSession({ agentDir: getPiAgentDir() }); // pi's setup, Settle's session
 * ```
 */
export function getPiAgentDir(env: NodeJS.ProcessEnv = process.env): string {
	const fromEnv = env.PI_CODING_AGENT_DIR?.trim();
	return fromEnv
		? resolve(expandHome(fromEnv))
		: join(requireHome(`pi's agent folder ~/${PI_CONFIG_DIR_NAME}/agent`), PI_CONFIG_DIR_NAME, "agent");
}

/** The project configuration folder in use for `cwd`. */
export interface ProjectConfigDir {
	/** Absolute path (may not exist yet: it is where Settle would create it). */
	dir: string;
	/** `settle` for `.settle/`, `pi` when read from pi's `.pi/` folder. */
	kind: "settle" | "pi";
	exists: boolean;
}

/**
 * Resolves the project folder: `.settle/` when it exists, else `.pi/` when it exists, else
 * `.settle/` (not created). Must not throw.
 *
 * @example
 * ```ts
 * const { dir, kind, exists } = resolveProjectConfigDir("/repo"); // { dir: "/repo/.settle", kind: "settle", exists: false } in a fresh repo
 * ```
 */
export function resolveProjectConfigDir(cwd: string): ProjectConfigDir {
	const settleDir = join(cwd, SETTLE_CONFIG_DIR_NAME);
	if (isDirectory(settleDir)) return { dir: settleDir, kind: "settle", exists: true };
	const piDir = join(cwd, PI_CONFIG_DIR_NAME);
	if (isDirectory(piDir)) return { dir: piDir, kind: "pi", exists: true };
	return { dir: settleDir, kind: "settle", exists: false };
}

/**
 * Expands a leading `~` (`~`, `~/x`, `~x`) to the home folder, as pi does.
 *
 * @example
 * ```ts
 * expandHome("~/notes", "/home/me"); // "/home/me/notes"
 * expandHome(" ./src "); // "./src" (trimmed, otherwise unchanged)
 * ```
 */
export function expandHome(path: string, home?: string): string {
	const trimmed = path.trim();
	// The home folder is looked up only for a `~` path: without one, other paths still work.
	if (!trimmed.startsWith("~")) return trimmed;
	const base = home ?? requireHome(trimmed);
	if (trimmed === "~") return base;
	if (trimmed.startsWith("~/")) return join(base, trimmed.slice(2));
	return join(base, trimmed.slice(1));
}

function isDirectory(path: string): boolean {
	try {
		return existsSync(path) && statSync(path).isDirectory();
	} catch {
		return false;
	}
}
