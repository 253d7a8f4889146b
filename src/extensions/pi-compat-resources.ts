/**
 * pi 0.73.1's skill and context-file functions with pi's signatures and results, for pi extensions
 * (see pi-compat.ts): adapters over Settle's resource discovery and loading.
 */
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { loadProjectContextFiles as loadContextFiles } from "../resources/context-files.js";
import { collectSkillFiles, isDirectory, isFile } from "../resources/discovery.js";
import {
	loadSkillCandidates,
	loadSkillFile,
	type SkillCandidate,
	formatSkillsForPrompt as settleFormatSkills,
} from "../resources/skills.js";
import type { ResourceDiagnostic, Skill, SourceInfo } from "../resources/types.js";
import { expandHome, getDefaultAgentDir, resolveProjectConfigDir } from "../settings/paths.js";

/** Skills and the problems met loading them (pi's `LoadSkillsResult`). */
export interface LoadSkillsResult {
	skills: Skill[];
	diagnostics: ResourceDiagnostic[];
}

/**
 * pi's `createSyntheticSourceInfo`: source info for a resource that no discovery found (scope
 * `temporary` and origin `top-level` unless given).
 *
 * @example
 * ```ts
 * createSyntheticSourceInfo("<inline:greeter>", { source: "inline" });
 * // { path: "<inline:greeter>", source: "inline", scope: "temporary", origin: "top-level", baseDir: undefined }
 * ```
 */
export function createSyntheticSourceInfo(
	path: string,
	options: { source: string; scope?: SourceInfo["scope"]; origin?: SourceInfo["origin"]; baseDir?: string },
): SourceInfo {
	return {
		path,
		source: options.source,
		scope: options.scope ?? "temporary",
		origin: options.origin ?? "top-level",
		baseDir: options.baseDir,
	} as SourceInfo;
}

/**
 * pi's `formatSkillsForPrompt`: Settle's skills listing preceded by a blank line ("\n\n"), ready
 * to append to a system prompt; "" when no skill may be invoked by the model.
 *
 * @example
 * ```ts
 * import { type ExtensionAPI, formatSkillsForPrompt, loadSkillsFromDir } from "@mariozechner/pi-coding-agent";
 *
 * declare const pi: ExtensionAPI;
 * const { skills } = loadSkillsFromDir({ dir: "/opt/team-skills", source: "team" });
 * pi.on("before_agent_start", (event) => ({ systemPrompt: event.systemPrompt + formatSkillsForPrompt(skills) }));
 * ```
 */
export function formatSkillsForPrompt(skills: readonly Skill[]): string {
	const listing = settleFormatSkills(skills);
	return listing ? `\n\n${listing}` : "";
}

/** pi's source labels: `user` / `project` skills folders, an explicit `path`, or any other name. */
function skillSourceInfo(source: string, baseDir: string): Omit<SourceInfo, "path"> {
	const scope = source === "user" ? "user" : source === "project" ? "project" : "temporary";
	const label = source === "user" || source === "project" || source === "path" ? "local" : source;
	return { source: label, scope, origin: "top-level", baseDir } as Omit<SourceInfo, "path">;
}

function candidatesIn(files: readonly string[], source: string): SkillCandidate[] {
	return files.map((filePath) => ({ filePath, sourceInfo: skillSourceInfo(source, dirname(filePath)) }));
}

/**
 * pi's `loadSkillsFromDir`: every skill under `dir` (a folder holding `SKILL.md` is one skill;
 * `.md` files directly in `dir` are skills too; `.gitignore`-style ignore files apply), labelled
 * with `source`. Names are not de-duplicated (that is {@link loadSkills}' job). Must not throw.
 *
 * @example
 * ```ts
 * const { skills, diagnostics } = loadSkillsFromDir({ dir: "/repo/.pi/skills", source: "project" });
 * ```
 */
export function loadSkillsFromDir(options: { dir: string; source: string }): LoadSkillsResult {
	const skills: Skill[] = [];
	const diagnostics: ResourceDiagnostic[] = [];
	for (const { filePath, sourceInfo } of candidatesIn(collectSkillFiles(options.dir, "pi"), options.source)) {
		const loaded = loadSkillFile(filePath, sourceInfo);
		if (loaded.skill) skills.push(loaded.skill);
		diagnostics.push(...loaded.diagnostics);
	}
	return { skills, diagnostics };
}

/** pi's `LoadSkillsOptions`. */
export interface LoadSkillsOptions {
	cwd: string;
	/** Global agent folder (default: Settle's, `$SETTLE_AGENT_DIR` or `~/.settle/agent`). */
	agentDir?: string;
	/** Skill files or folders (`~` expanded, relative to `cwd`). */
	skillPaths: string[];
	/** Also load `<agentDir>/skills` and the project folder's `skills/`. */
	includeDefaults: boolean;
}

/**
 * pi's `loadSkills`: the default skills folders (with `includeDefaults`), then `skillPaths`; the
 * first skill of a name wins (later ones get a `collision` diagnostic, listed last), the same file
 * reached twice is loaded once (and read once: pi reports its warnings again, then drops it). A
 * missing path or a file that is not markdown is a warning.
 *
 * The project folder is Settle's: `.settle/skills`, or pi's `.pi/skills` in a project that has
 * only `.pi/` (pi always reads `.pi/skills`).
 *
 * @example
 * ```ts
 * import { loadSkills } from "@mariozechner/pi-coding-agent";
 *
 * const { skills, diagnostics } = loadSkills({ cwd, agentDir, skillPaths: ["~/shared-skills"], includeDefaults: true });
 * ```
 */
export function loadSkills(options: LoadSkillsOptions): LoadSkillsResult {
	const { cwd, skillPaths, includeDefaults } = options;
	const userSkillsDir = join(options.agentDir ?? getDefaultAgentDir(), "skills");
	const projectSkillsDir = join(resolveProjectConfigDir(cwd).dir, "skills");
	// pi reports problems in the order of the paths: each candidate and path problem keeps its step.
	const candidates: SkillCandidate[] = [];
	const stepOf = new Map<string, number>();
	const pathProblems: { step: number; diagnostic: ResourceDiagnostic }[] = [];
	let step = 0;
	const add = (files: readonly string[], source: string) => {
		for (const candidate of candidatesIn(files, source)) {
			candidates.push(candidate);
			if (!stepOf.has(candidate.filePath)) stepOf.set(candidate.filePath, step);
		}
		step++;
	};
	if (includeDefaults) {
		add(collectSkillFiles(userSkillsDir, "pi"), "user");
		add(collectSkillFiles(projectSkillsDir, "pi"), "project");
	}
	const sourceOf = (path: string) => {
		if (!includeDefaults && isUnder(path, userSkillsDir)) return "user";
		if (!includeDefaults && isUnder(path, projectSkillsDir)) return "project";
		return "path";
	};
	for (const rawPath of skillPaths) {
		const expanded = expandHome(rawPath);
		const path = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
		if (isDirectory(path)) add(collectSkillFiles(path, "pi"), sourceOf(path));
		else if (isFile(path) && path.endsWith(".md")) add([path], sourceOf(path));
		else {
			const message = isFile(path) ? "skill path is not a markdown file" : "skill path does not exist";
			pathProblems.push({ step: step++, diagnostic: { type: "warning", message, path } });
		}
	}

	const { skills, diagnostics } = loadSkillCandidates(candidates);
	const collisions = diagnostics.filter((diagnostic) => diagnostic.type === "collision");
	const problems = [
		...diagnostics
			.filter((diagnostic) => diagnostic.type !== "collision")
			.map((diagnostic) => ({ step: stepOf.get(diagnostic.path ?? "") ?? 0, diagnostic })),
		...pathProblems,
	].sort((a, b) => a.step - b.step);
	return { skills, diagnostics: [...problems.map((problem) => problem.diagnostic), ...collisions] };
}

function isUnder(target: string, root: string): boolean {
	const normalizedRoot = resolve(root);
	return (
		target === normalizedRoot || target.startsWith(normalizedRoot.endsWith(sep) ? normalizedRoot : normalizedRoot + sep)
	);
}

/**
 * pi's `loadProjectContextFiles`: the AGENTS.md / CLAUDE.md files that apply to `cwd` (the agent
 * folder's, then each folder from the root down to `cwd`), as `{ path, content }`. Settle's
 * function of this name also returns diagnostics for unreadable files; pi's leaves them out silently.
 * Unlike pi 0.73.1, a file reached by two paths (a symlinked `AGENTS.md`) is listed once (pi#8116), and
 * in a git worktree nested under its main checkout the main checkout's copy is left out (pi#6617).
 *
 * @example
 * ```ts
 * import { getAgentDir, loadProjectContextFiles } from "@mariozechner/pi-coding-agent";
 *
 * const files = loadProjectContextFiles({ cwd, agentDir: getAgentDir() });
 * const text = files.map((file) => `# ${file.path}\n${file.content}`).join("\n\n");
 * ```
 */
export function loadProjectContextFiles(options: {
	cwd: string;
	agentDir: string;
}): { path: string; content: string }[] {
	return loadContextFiles(options).agentsFiles.map(({ path, content }) => ({ path, content }));
}
