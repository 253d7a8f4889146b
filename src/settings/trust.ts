/**
 * Project trust: whether code that lives in a project (its extensions, and settings that run
 * commands: `shellPath`, `shellCommandPrefix`, `npmCommand`, `packages`, `extensions`) may run.
 *
 * Decided, first match wins: an explicit override (SDK option `trustProject`, a CLI flag) → a
 * remembered decision in `<agentDir>/trust.json` for the folder or its nearest ancestor → the
 * global setting `defaultProjectTrust` (`always` trusts, `never` and `ask` do not: Settle has no
 * prompt to ask with). The `trust.json` format is pi's (`{ "<absolute folder>": true | false }`).
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readJsonObjectFile, updateJsonObjectFile } from "./json-file.js";
import type { DefaultProjectTrust } from "./schema.js";

/** File name of the remembered trust decisions inside the agent folder. */
export const TRUST_FILE_NAME = "trust.json";

/**
 * Remembered per-folder trust decisions (`<agentDir>/trust.json`). A decision for a folder applies
 * to its subfolders unless one of them has its own.
 * @example
 * ```ts
 * new ProjectTrustStore(agentDir).set("/work/my-repo", true);
 * ```
 */
export class ProjectTrustStore {
	readonly path: string;

	constructor(agentDir: string) {
		this.path = join(agentDir, TRUST_FILE_NAME);
	}

	/**
	 * The decision for `cwd` or its nearest ancestor that has one; `null` when none. Must not throw:
	 * an unreadable file counts as no decision (see {@link problem}).
	 */
	get(cwd: string): boolean | null {
		const read = readJsonObjectFile(this.path);
		if (read.status !== "ok") return null;
		let dir = canonicalPath(cwd);
		for (;;) {
			const value = read.value[dir];
			if (typeof value === "boolean") return value;
			const parent = dirname(dir);
			if (parent === dir) return null;
			dir = parent;
		}
	}

	/** Why the file cannot be used, or undefined when it is fine or absent. */
	problem(): string | undefined {
		const read = readJsonObjectFile(this.path);
		return read.status === "malformed" || read.status === "unreadable" ? `${this.path}: ${read.reason}` : undefined;
	}

	/**
	 * Remembers (or with `null` forgets) the decision for `cwd`. Throws `SettleError`
	 * INVALID_SETTINGS, leaving the file untouched, when the existing file cannot be parsed.
	 */
	set(cwd: string, trusted: boolean | null): void {
		const key = canonicalPath(cwd);
		updateJsonObjectFile(
			this.path,
			(current) => {
				if (trusted === null) delete current[key];
				else current[key] = trusted;
			},
			{ what: `the trust decision for ${key}` },
		);
	}
}

/** Inputs of {@link resolveProjectTrust}. */
export interface ResolveProjectTrustOptions {
	cwd: string;
	agentDir: string;
	/** An explicit decision (SDK option, CLI flag); wins over everything else. */
	override?: boolean;
	/** The global `defaultProjectTrust` setting (default `ask`). */
	defaultProjectTrust?: DefaultProjectTrust;
}

/** A trust decision and what made it. */
export interface ProjectTrustDecision {
	trusted: boolean;
	reason: "override" | "remembered" | "default";
}

/**
 * Decides whether the project at `cwd` is trusted. Must not throw.
 * @example
 * ```ts
 * const { trusted } = resolveProjectTrust({ cwd, agentDir, override: process.argv.includes("--approve") ? true : undefined });
 * ```
 */
export function resolveProjectTrust(options: ResolveProjectTrustOptions): ProjectTrustDecision {
	if (options.override !== undefined) return { trusted: options.override, reason: "override" };
	const remembered = new ProjectTrustStore(options.agentDir).get(options.cwd);
	if (remembered !== null) return { trusted: remembered, reason: "remembered" };
	return { trusted: options.defaultProjectTrust === "always", reason: "default" };
}

/**
 * How a user makes a project trusted; used in diagnostics.
 *
 * @example
 * ```ts
 * howToTrustProject("/repo", "/home/me/.settle/agent");
 * // 'To trust it: run settle with --approve; in the SDK, pass trustProject: true to the resource loader (…); remember it with …'
 * ```
 */
export function howToTrustProject(cwd: string, agentDir: string): string {
	return (
		"To trust it: run settle with --approve; in the SDK, pass trustProject: true to the resource loader " +
		"(new DefaultResourceLoader({ cwd, agentDir, trustProject: true }), or resourceLoaderOptions: { trustProject: true } " +
		`of createAgentSessionServices / createAgentSessionRuntimeFactory); remember it with new ProjectTrustStore(agentDir).set("${cwd}", true) ` +
		`(writes ${join(agentDir, TRUST_FILE_NAME)}); or set "defaultProjectTrust": "always" in ${join(agentDir, "settings.json")}.`
	);
}

function canonicalPath(path: string): string {
	const absolute = resolve(path);
	try {
		return existsSync(absolute) ? realpathSync(absolute) : absolute;
	} catch {
		return absolute;
	}
}
