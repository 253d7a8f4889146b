/**
 * Skills (Agent Skills format, as pi reads them): a markdown file with front matter `name`,
 * `description`, `disable-model-invocation`. Validation follows pi's rules and texts; a skill with
 * name problems still loads (with warnings), one without a description does not.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname } from "node:path";
import { errorMessage } from "../errors.js";
import { misplacedFrontmatterLine, parseFrontmatter } from "./frontmatter.js";
import { escapablePlaceholders, fillPlaceholders, parseCommandArgs } from "./prompt-templates.js";
import { readPromptTextFile, readTextFile } from "./text-file.js";
import type { FilteredOutSkill, ResourceDiagnostic, ResourceLoader, Skill, SourceInfo } from "./types.js";

/** Longest skill name allowed (Agent Skills spec). */
export const MAX_SKILL_NAME_LENGTH = 64;
/** Longest skill description allowed (Agent Skills spec). */
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;

/**
 * Problems with a skill name (pi's texts); empty when valid.
 *
 * @example
 * ```ts
 * validateSkillName("code-review", "code-review"); // []
 * validateSkillName("Code_Review", "code-review");
 * // ['name "Code_Review" does not match parent directory "code-review"', "name contains invalid characters (…)"]
 * ```
 */
export function validateSkillName(name: string, parentDirName: string): string[] {
	const errors: string[] = [];
	if (name !== parentDirName) errors.push(`name "${name}" does not match parent directory "${parentDirName}"`);
	if (name.length > MAX_SKILL_NAME_LENGTH)
		errors.push(`name exceeds ${MAX_SKILL_NAME_LENGTH} characters (${name.length})`);
	if (!/^[a-z0-9-]+$/.test(name)) {
		errors.push("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)");
	}
	if (name.startsWith("-") || name.endsWith("-")) errors.push("name must not start or end with a hyphen");
	if (name.includes("--")) errors.push("name must not contain consecutive hyphens");
	return errors;
}

function validateDescription(description: unknown): string[] {
	if (description !== undefined && description !== null && typeof description !== "string") {
		return ["description must be a string"];
	}
	if (!description || description.trim() === "") return ["description is required"];
	if (description.length > MAX_SKILL_DESCRIPTION_LENGTH) {
		return [`description exceeds ${MAX_SKILL_DESCRIPTION_LENGTH} characters (${description.length})`];
	}
	return [];
}

/**
 * Reads one skill file. Must not throw: problems are diagnostics (type `warning`, as pi).
 *
 * @example
 * ```ts
 * const { skill, diagnostics } = loadSkillFile("/repo/.settle/skills/code-review/SKILL.md", { source: "local", scope: "project", origin: "top-level" });
 * skill?.name; // "code-review" (front matter `name`, else the folder name); null without a description
 * ```
 */
export function loadSkillFile(
	filePath: string,
	sourceInfo: Omit<SourceInfo, "path">,
): { skill: Skill | null; diagnostics: ResourceDiagnostic[] } {
	const diagnostics: ResourceDiagnostic[] = [];
	const warn = (message: string) => diagnostics.push({ type: "warning", message, path: filePath });
	let raw: string;
	try {
		raw = readPromptTextFile(filePath, "skill file", diagnostics);
	} catch (error) {
		warn(`cannot read skill file: ${errorMessage(error)}`);
		return { skill: null, diagnostics };
	}
	const { frontmatter, error } = parseFrontmatter(raw);
	if (error) {
		warn(`${error}. Fix the YAML between the --- lines; the skill is not loaded until then.`);
		return { skill: null, diagnostics };
	}
	const skillDir = dirname(filePath);
	const parentDirName = basename(skillDir);
	const descriptionErrors = validateDescription(frontmatter.description);
	// pi's text, then where the front matter is when it does not open the file (bigpowers#108).
	const late = descriptionErrors.length > 0 ? misplacedFrontmatterLine(raw) : undefined;
	for (const message of descriptionErrors) {
		warn(
			late === undefined
				? message
				: `${message}: the front matter must open the file, but its --- line is line ${late}; move the lines above it below the block.`,
		);
	}
	let name = parentDirName;
	if (typeof frontmatter.name === "string" && frontmatter.name !== "") name = frontmatter.name;
	else if (frontmatter.name !== undefined && frontmatter.name !== null && frontmatter.name !== "") {
		warn("name must be a string");
	}
	for (const message of validateSkillName(name, parentDirName)) warn(message);
	// As pi: name problems are warnings only; a missing description means the skill is not loaded.
	if (!descriptionIsUsable(frontmatter.description)) return { skill: null, diagnostics };
	return {
		skill: {
			name,
			description: frontmatter.description as string,
			filePath,
			baseDir: skillDir,
			// A baseDir key in the given source info wins, even undefined (pi's settings entries have none).
			sourceInfo: { baseDir: skillDir, ...sourceInfo, path: filePath },
			disableModelInvocation: frontmatter["disable-model-invocation"] === true,
		},
		diagnostics,
	};
}

function descriptionIsUsable(description: unknown): boolean {
	return typeof description === "string" && description.trim() !== "";
}

/** A skill file to load, with where it came from. */
export interface SkillCandidate {
	filePath: string;
	/** Without a `baseDir` key, `sourceInfo.baseDir` is the skill's folder (pi's `loadSkills`). */
	sourceInfo: Omit<SourceInfo, "path">;
}

/**
 * Loads candidates in order: the first skill of a name wins (later ones get a `collision`
 * diagnostic, as pi); the same file reached twice (symlinks) is loaded once. Must not throw.
 *
 * @example
 * ```ts
 * const { skills, diagnostics } = loadSkillCandidates([
 *   { filePath: "/repo/.settle/skills/code-review/SKILL.md", sourceInfo: { source: "local", scope: "project", origin: "top-level" } },
 * ]);
 * ```
 */
export function loadSkillCandidates(candidates: SkillCandidate[]): {
	skills: Skill[];
	diagnostics: ResourceDiagnostic[];
} {
	const byName = new Map<string, Skill>();
	const seenFiles = new Set<string>();
	const diagnostics: ResourceDiagnostic[] = [];
	const collisions: ResourceDiagnostic[] = [];
	for (const candidate of candidates) {
		const real = canonical(candidate.filePath);
		if (seenFiles.has(real)) continue;
		const { skill, diagnostics: found } = loadSkillFile(candidate.filePath, candidate.sourceInfo);
		diagnostics.push(...found);
		if (!skill) continue;
		const existing = byName.get(skill.name);
		if (existing) {
			collisions.push({
				type: "collision",
				message: `name "${skill.name}" collision`,
				path: skill.filePath,
				collision: {
					resourceType: "skill",
					name: skill.name,
					winnerPath: existing.filePath,
					loserPath: skill.filePath,
				},
			});
			continue;
		}
		byName.set(skill.name, skill);
		seenFiles.add(real);
	}
	return { skills: [...byName.values()], diagnostics: [...diagnostics, ...collisions] };
}

/**
 * The skills listing of the system prompt (pi's format): only skills without
 * `disable-model-invocation`; "" when none.
 *
 * @example
 * ```ts
 * const listing = formatSkillsForPrompt(resourceLoader.getSkills().skills); // "The following skills … <available_skills>…</available_skills>"
 * formatSkillsForPrompt([]); // ""
 * ```
 */
export function formatSkillsForPrompt(skills: readonly Skill[]): string {
	const visible = skills.filter((skill) => !skill.disableModelInvocation);
	if (visible.length === 0) return "";
	const lines = [
		"The following skills provide specialized instructions for specific tasks.",
		"Use the read tool to load a skill's file when the task matches its description.",
		"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
		"",
		"<available_skills>",
	];
	for (const skill of visible) {
		lines.push("  <skill>");
		lines.push(`    <name>${escapeXml(skill.name)}</name>`);
		lines.push(`    <description>${escapeXml(skill.description)}</description>`);
		lines.push(`    <location>${escapeXml(skill.filePath)}</location>`);
		lines.push("  </skill>");
	}
	lines.push("</available_skills>");
	return lines.join("\n");
}

/** Result of {@link expandSkillCommand}. */
export interface SkillExpansion {
	/** The expanded text, or the input unchanged. */
	text: string;
	/** The skill that was expanded (also set when reading it failed). */
	skill?: Skill;
	/** Set when the skill file could not be read; `text` is then the input unchanged. */
	error?: { path: string; message: string };
}

/**
 * Expands `/skill:<name> [args]` (the name ends at the first space, tab or line break): the skill body (front matter removed,
 * trimmed) wrapped as `<skill name="…" location="…">`, a line `References are relative to <dir>.`,
 * a blank line, the body, `</skill>`, then the args after a blank line, or in the body where it says
 * `$ARGUMENTS` (Claude Code's placeholder; `$ARGUMENTS[0]`, `${ARGUMENTS:-text}` too). A name no skill has
 * may be the folder of a skill named otherwise in its front matter. Unknown names and other text come
 * back unchanged. Must not throw: a read failure is returned in `error`.
 * @example
 * ```ts
 * const { text, error } = expandSkillCommand("/skill:code-review src/a.ts", resourceLoader.getSkills().skills);
 * if (error) console.error(`${error.path}: ${error.message}`);
 * ```
 */
export function expandSkillCommand(
	text: string,
	skills: readonly Skill[],
	readFile: (path: string) => string = readTextFile,
): SkillExpansion {
	if (!text.startsWith("/skill:")) return { text };
	const invocation = skillInvocation(text.slice(7), skills);
	if (!invocation) return { text };
	const { skill, args } = invocation;
	let body: string;
	try {
		body = parseFrontmatter(readFile(skill.filePath)).body.trim();
	} catch (error) {
		return { text, skill, error: { path: skill.filePath, message: errorMessage(error) } };
	}
	// A skill written for Claude Code places its arguments with `$ARGUMENTS`; then they are not repeated below.
	const placed = placesArguments(body);
	// Also when none is placed: a placeholder behind a backslash loses the backslash.
	body = substituteSkillArguments(body, args);
	const block = `<skill name="${skill.name}" location="${skill.filePath}">\nReferences are relative to ${skill.baseDir}.\n\n${body}\n</skill>`;
	return { text: args && !placed ? `${block}\n\n${args}` : block, skill };
}

/**
 * The skill the text after `/skill:` runs, and its arguments. Any whitespace ends the name
 * (`/skill:demo` then a new line of arguments is still the skill, pi#8413), so the first word is
 * looked up ({@link findSkill}). A front matter name with spaces (`name: Code Review`, which pi only
 * warns about) could never be typed: when no skill has the first word, the longest such name the
 * text starts with, followed by whitespace or the end, is the skill (claude-code#88814).
 *
 * @example
 * ```ts
 * skillInvocation("Code Review src/a.ts", resourceLoader.getSkills().skills); // { skill: <Code Review>, args: "src/a.ts" }
 * ```
 */
export function skillInvocation(
	afterPrefix: string,
	skills: readonly Skill[],
): { skill: Skill; args: string } | undefined {
	const space = afterPrefix.search(/\s/);
	const word = space === -1 ? afterPrefix : afterPrefix.slice(0, space);
	const skill = findSkill(word, skills);
	if (skill) return { skill, args: space === -1 ? "" : afterPrefix.slice(space + 1).trim() };
	let spaced: Skill | undefined;
	for (const candidate of skills) {
		const { name } = candidate;
		if (!/\s/.test(name) || !afterPrefix.startsWith(name) || /\S/.test(afterPrefix.charAt(name.length))) continue;
		if (!spaced || name.length > spaced.name.length) spaced = candidate;
	}
	return spaced ? { skill: spaced, args: afterPrefix.slice(spaced.name.length).trim() } : undefined;
}

/**
 * The skill `/skill:<name>` runs: the one of that name, else {@link skillInFolder}'s.
 *
 * @example
 * ```ts
 * findSkill("code-review", resourceLoader.getSkills().skills)?.filePath;
 * ```
 */
export function findSkill(name: string, skills: readonly Skill[]): Skill | undefined {
	return skills.find((candidate) => candidate.name === name) ?? skillInFolder(skills, name);
}

/**
 * The one skill whose `SKILL.md` sits in a folder of that name while its front matter names it
 * otherwise (`react-best-practices/` holding `name: vercel-react-best-practices`): listed under one
 * name and looked up under the other, it was reachable under neither (agent-skills#330).
 */
function skillInFolder(skills: readonly Skill[], folder: string): Skill | undefined {
	const found = skills.filter(
		(candidate) =>
			candidate.name !== folder &&
			basename(candidate.filePath) === "SKILL.md" &&
			basename(candidate.baseDir) === folder,
	);
	return found.length === 1 ? found[0] : undefined;
}

/**
 * `$ARGUMENTS` (the arguments as typed), `$ARGUMENTS[N]` (the N-th word, from 0) and
 * `${ARGUMENTS:-text}` in a skill body. `$1` and `$@` are not: skill bodies hold shell code.
 * Behind a backslash each is kept as written, as in a prompt template.
 */
const ARGUMENTS_PLACEHOLDER = escapablePlaceholders(
	/\$\{ARGUMENTS:-([^}]*)\}|\$ARGUMENTS(?:\[(\d+)\])?(?![A-Za-z0-9_])/.source,
);

/** Whether a skill body places its arguments: an {@link ARGUMENTS_PLACEHOLDER} not behind a backslash. */
function placesArguments(body: string): boolean {
	for (const match of body.matchAll(ARGUMENTS_PLACEHOLDER)) if (!match[1]) return true;
	return false;
}

/** Fills {@link ARGUMENTS_PLACEHOLDER}s in one pass, so an argument holding `$ARGUMENTS` stays as typed. */
function substituteSkillArguments(body: string, args: string): string {
	const words = parseCommandArgs(args);
	return fillPlaceholders(body, ARGUMENTS_PLACEHOLDER, (_match, fallback, index) => {
		if (fallback !== undefined) return args === "" ? fallback : args;
		return index === undefined ? args : (words[Number.parseInt(index, 10)] ?? "");
	});
}

/** A parsed `<skill>` block (for UIs showing an expanded skill compactly). */
export interface SkillBlock {
	name: string;
	location: string;
	content: string;
	userMessage?: string;
}

/**
 * Parses text produced by {@link expandSkillCommand}; null when it is not one.
 *
 * @example
 * ```ts
 * const { text } = expandSkillCommand("/skill:code-review src/a.ts", resourceLoader.getSkills().skills);
 * parseSkillBlock(text); // { name: "code-review", location: "…/SKILL.md", content: "…", userMessage: "src/a.ts" }
 * parseSkillBlock("hello"); // null
 * ```
 */
export function parseSkillBlock(text: string): SkillBlock | null {
	const match = /^<skill name="([^"]+)" location="([^"]+)">\n([\s\S]*?)\n<\/skill>(?:\n\n([\s\S]+))?$/.exec(text);
	if (!match) return null;
	const userMessage = match[4]?.trim();
	return { name: match[1]!, location: match[2]!, content: match[3]!, ...(userMessage ? { userMessage } : {}) };
}

function escapeXml(text: string): string {
	return text
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(/"/g, "&quot;")
		.replace(/'/g, "&apos;");
}

function canonical(path: string): string {
	try {
		return existsSync(path) ? realpathSync(path) : path;
	} catch {
		return path;
	}
}

/** A skill file a settings filter switched off, under the name `/skill:<name>` would give it. */
export interface SwitchedOffSkill {
	name: string;
	path: string;
	/** Which filter, as {@link FilteredOutSkill.filter} says. */
	filter: string;
}

/**
 * The skills settings filters switched off, by name (their files are read now: only an unknown `/skill:` asks).
 *
 * @example
 * ```ts
 * for (const { name, filter } of switchedOffSkills(resourceLoader)) console.log(`/skill:${name} is off (${filter})`);
 * ```
 */
export function switchedOffSkills(loader: Pick<ResourceLoader, "getFilteredOutSkills">): SwitchedOffSkill[] {
	return (loader.getFilteredOutSkills?.() ?? []).flatMap(({ path, filter }) => {
		const name = loadSkillFile(path, { source: "local", scope: "user", origin: "top-level" }).skill?.name;
		return name === undefined ? [] : [{ name, path, filter }];
	});
}
