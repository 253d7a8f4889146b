/**
 * Context files (`AGENTS.md`, else `CLAUDE.md`, one per folder), as pi collects them: the global
 * one in the agent folder first, then every folder from the filesystem root down to `cwd`
 * (outermost first), each file once. "Once" is by the file's real path (pi#8116, pi#4436, pi#5648): a
 * project `AGENTS.md` that is a symlink to the global one, or an agent folder reached through a
 * symlink, is sent once under the path first found; two distinct files with the same text both stay.
 * In a git worktree nested under its main checkout (`repo/.worktrees/x`), the main checkout's file of
 * the same name is left out: it is the worktree's own tracked file, on another branch (pi#6617).
 */
import { lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { errorMessage } from "../errors.js";
import { isFile } from "./discovery.js";
import { readPromptTextFile } from "./text-file.js";
import type { ContextFile, ResourceDiagnostic } from "./types.js";

/** File names tried in each folder, in order; the first that exists is used. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] as const;

function loadFromDir(dir: string, diagnostics: ResourceDiagnostic[]): ContextFile | null {
	for (const name of CONTEXT_FILE_NAMES) {
		const path = join(dir, name);
		if (!isFile(path)) {
			const link = danglingLink(path);
			// A broken link was skipped in silence: the rules never arrived (t3code#2052, rolldown#10451).
			if (link !== undefined) {
				// A link that leads back to itself is there; "does not exist" sent users looking for a missing file (deepagents#2255).
				const why = link.loop ? "which leads back to itself (a symbolic link loop)" : "which does not exist";
				diagnostics.push({
					type: "warning",
					message: `context file ${name} is a symbolic link to ${JSON.stringify(link.target)}, ${why}: fix the link (ln -sf <file> ${name}) or remove it`,
					path,
				});
			}
			continue;
		}
		try {
			return { path, content: readPromptTextFile(path, `context file ${name}`, diagnostics) };
		} catch (error) {
			diagnostics.push({ type: "warning", message: `cannot read context file: ${errorMessage(error)}`, path });
		}
	}
	return null;
}

/**
 * Where `path` points when it is a symbolic link that resolves to nothing, and whether that is because
 * the links go round in a loop; undefined otherwise. Must not throw.
 */
function danglingLink(path: string): { target: string; loop: boolean } | undefined {
	try {
		if (!lstatSync(path).isSymbolicLink()) return undefined;
		realpathSync(path);
		return undefined;
	} catch (error) {
		try {
			return { target: readlinkSync(path), loop: (error as NodeJS.ErrnoException).code === "ELOOP" };
		} catch {
			return undefined;
		}
	}
}

/** The file's real path (symlinks resolved); the path itself when it cannot be resolved. Must not throw. */
function identityOf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/**
 * When `dir` is the root of a linked git worktree (its `.git` is a file naming
 * `<main>/.git/worktrees/<name>`), the main checkout's root; undefined otherwise (a submodule's
 * `.git` file names `.git/modules/…`, no worktree). Must not throw.
 */
function mainCheckoutOfWorktree(dir: string): string | undefined {
	try {
		const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(join(dir, ".git"), "utf8"))?.[1];
		if (pointer === undefined) return undefined;
		const gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
		if (basename(dirname(gitDir)) !== "worktrees") return undefined;
		const common = resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim());
		return basename(common) === ".git" ? dirname(common) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Collects the context files for `cwd`. Must not throw; unreadable files are diagnostics.
 * @example
 * ```ts
 * const { agentsFiles } = loadProjectContextFiles({ cwd: process.cwd(), agentDir });
 * ```
 */
export function loadProjectContextFiles(options: { cwd: string; agentDir: string }): {
	agentsFiles: ContextFile[];
	diagnostics: ResourceDiagnostic[];
} {
	const diagnostics: ResourceDiagnostic[] = [];
	const files: ContextFile[] = [];
	const seen = new Set<string>();
	const global = loadFromDir(options.agentDir, diagnostics);
	if (global) {
		files.push(global);
		seen.add(identityOf(global.path));
	}
	const ancestors: ContextFile[] = [];
	let dir = resolve(options.cwd);
	let shadowed: { root: string; name: string } | undefined;
	for (;;) {
		const file = loadFromDir(dir, diagnostics);
		const main = file && shadowed === undefined ? mainCheckoutOfWorktree(dir) : undefined;
		if (file && main !== undefined) shadowed = { root: identityOf(main), name: basename(file.path) };
		const isShadowed = file !== null && shadowed?.name === basename(file.path) && shadowed.root === identityOf(dir);
		if (file && !isShadowed && !seen.has(identityOf(file.path))) {
			ancestors.unshift(file);
			seen.add(identityOf(file.path));
		}
		const parent = dirname(dir);
		if (parent === dir) break;
		dir = parent;
	}
	files.push(...ancestors);
	return { agentsFiles: files, diagnostics };
}
