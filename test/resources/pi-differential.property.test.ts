// biome-ignore-all lint/suspicious/noTemplateCurlyInString: template placeholders like ${@:2} are the subject of these tests
/**
 * Randomized differential of resource discovery against pi 0.73.1: random project trees in real
 * temp folders (agent folder, a home folder, a git root with cwd two levels below) holding context
 * files at every level, skills (valid and invalid names, missing or long descriptions, broken
 * YAML, nested folders, root `.md` files, `.agents/skills` folders, collisions between global and
 * project), prompt templates and SYSTEM.md / APPEND_SYSTEM.md; pi's DefaultResourceLoader and
 * Settle's read the same tree through pi's `.pi/` folder (Settle's pi-compat path).
 *
 * Compared: context files (list, order, content), skills (and the problems reported per file),
 * templates (and their expansion for random argument strings), the custom and appended prompts,
 * and the system prompt built from them. Half the trees also hold a copy of `.pi/` as `.settle/`,
 * which Settle then reads instead (its own folder); its paths are mapped back for the comparison.
 *
 * `sourceInfo` is compared whole, `baseDir` included (pi's rule: test/resources/source-base-dir.test.ts).
 * Longer hunts: `RESOURCES_DIFF_RUNS=600 npx vitest run test/resources/pi-differential.property.test.ts`
 * (both properties; defaults 60 and 40). Replay a failure with `RESOURCES_DIFF_SEED=<seed>
 * RESOURCES_DIFF_PATH=<path>` and `-t` naming its property (one run: the "what the runs exercised"
 * checks then fail by design).
 *
 * Deliberate differences, normalized here (and only these):
 * - Diagnostics for a skill's broken YAML: pi passes the YAML library's multi-line message (with a
 *   code excerpt); Settle says `invalid YAML front matter: <its first line>.` and what to do ("Fix
 *   the YAML between the --- lines; …", pinned in test/resources/skills.test.ts). pi's message is
 *   mapped to Settle's wording; the YAML error text itself must be the same.
 * - A template with broken YAML: both leave it out; pi says nothing, Settle reports a warning
 *   (test/resources/prompt-templates.test.ts "instead of dropping it silently"). Those warnings are
 *   checked on their own and left out of the diagnostics comparison.
 * - A `skills` / `prompts` settings entry that points nowhere: pi ignores it silently; Settle warns
 *   "<kind> path "x" in <settings file> does not exist (resolved to …). Fix or remove the entry."
 *   (test/bad-input/README.md, test/resources/resource-loader.test.ts). Those warnings are checked to
 *   name a missing path, then left out of the comparison.
 * - Templates in a sub-folder of a `prompts/` folder: neither loads them; pi says nothing, Settle
 *   warns "prompt templates in a sub-folder are not loaded (…)" (pi-claude-marketplace#140,
 *   test/pi-races/prompt-templates-subfolders.test.ts). Those warnings are checked to name templates
 *   pi does not load either, then left out of the comparison.
 * - A `.md` file directly in a skills folder without front matter (a README.md beside the skills):
 *   pi reads it as a skill and warns "description is required"; Settle skips it as documentation
 *   (pi#7805, test/pi-races/skills-discovery.test.ts). pi's warnings for such files are left out.
 * - A SYSTEM.md holding only blanks: pi's whole base prompt, treated as absent by Settle (pinned).
 * - pi bug kept out (see the generator of settings entries): source info keyed by path across kinds.
 * - The system prompt is Settle's own sectioned format (test/session/system-prompt.test.ts): what
 *   is compared is that every piece pi's prompt carries for these resources is in Settle's.
 * - Template arguments: a `'` inside an argument (`don't`) is an apostrophe in Settle, a quote in pi
 *   (openclaw#90468, test/pi-races/prompt-templates-arguments.test.ts); invocations with a `'`
 *   after a non-blank are not compared.
 * - Byte order marks: context files, SYSTEM.md / APPEND_SYSTEM.md, skills and templates are saved
 *   as UTF-16 LE/BE with a mark or UTF-8 with a mark (`encodings` below). Settle decodes them by the
 *   mark (code_puppy#778); pi 0.73.1 reads every file as UTF-8, so it sees NULs or a leading U+FEFF.
 *   The rule compared: Settle reads a marked file as pi reads the same text saved as plain UTF-8
 *   (pi loads the plain tree, then the marked files are written over it and Settle loads).
 * - A git worktree nested under its main checkout (`repo/.worktrees/x`, the layout `git worktree add`
 *   makes, built by hand: a `.git` file with `gitdir:`, `.git/worktrees/x/commondir`): when the
 *   worktree's root holds a context file, Settle leaves out the main checkout's file of the same
 *   name (pi#6617: the same tracked file, from another branch); pi 0.73.1 loads both. The rule
 *   compared: Settle's list is pi's without exactly that file (`withoutShadowedMainFile`).
 * - Template arguments given to a template that has no placeholder: pi drops them; Settle sends
 *   them after the template's text and a blank line (mastra#13493,
 *   test/pi-races/prompt-templates-unused-arguments.test.ts). Compared as pi's text plus that tail.
 * - Template arguments: pi substitutes in several passes, so a value holding `$@`/`$ARGUMENTS`
 *   (or a `$` meeting a value starting with `@`) is substituted again; Settle substitutes once
 *   (test/resources/prompt-templates.property.test.ts pins it). Argument values here hold no `$`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { expandPromptTemplate, parseCommandArgs, templateBodyOnDisk } from "../../src/resources/prompt-templates.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import type { PromptTemplate, ResourceDiagnostic, Skill } from "../../src/resources/types.js";
import { buildSystemPromptSections, systemPromptOptionsFromResources } from "../../src/session/system-prompt.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { atTime, LAST_MINUTE_OF_DAY, tempDir } from "../settings/helpers.js";

// pi does not export these from its package entry; load its module files directly.
const piTemplates = (await import(
	pathToFileURL(resolve("node_modules/@mariozechner/pi-coding-agent/dist/core/prompt-templates.js")).href
)) as { expandPromptTemplate(text: string, templates: unknown[]): string };
const piSystemPrompt = (await import(
	pathToFileURL(resolve("node_modules/@mariozechner/pi-coding-agent/dist/core/system-prompt.js")).href
)) as { buildSystemPrompt(options: object): string };

const RUNS = process.env.RESOURCES_DIFF_RUNS ? Number(process.env.RESOURCES_DIFF_RUNS) : undefined;
/** A failure to replay (either property): `RESOURCES_DIFF_SEED`, `RESOURCES_DIFF_PATH`. */
const REPLAY = process.env.RESOURCES_DIFF_SEED
	? { seed: Number(process.env.RESOURCES_DIFF_SEED), path: process.env.RESOURCES_DIFF_PATH, endOnFailure: true }
	: {};
/** Vitest's default for the default runs; about a second a run for longer hunts. */
const LONG_HUNT_TIMEOUT = RUNS ? RUNS * 1000 : undefined;

// ── the random tree ──────────────────────────────────────────────────────────────────────────

/** Relative path → file content. Paths are relative to the run's base folder. */
type Tree = Record<string, string>;

const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "#", "é", "-", ":"), maxLength: 16 });
const skillName = fc.constantFrom("alpha", "beta", "gamma", "Bad_Name", "double--dash", "-lead", "a".repeat(65));
const description = fc.oneof(
	{ weight: 6, arbitrary: fc.constantFrom("Does things.", "Use for reviews", "x: y") },
	{ weight: 1, arbitrary: fc.constant("") },
	{ weight: 1, arbitrary: fc.constant("d".repeat(1025)) },
	{ weight: 1, arbitrary: fc.constant(undefined) },
);

/** A SKILL.md (or skill .md) body: front matter with optional name / description, or broken YAML. */
const skillFile = fc.oneof(
	{
		weight: 8,
		arbitrary: fc
			.record({
				name: fc.option(skillName, { nil: undefined }),
				description,
				disable: fc.constantFrom(undefined, true, false),
				body: text,
			})
			.map(({ name, description, disable, body }) => {
				const lines = ["---"];
				if (name !== undefined) lines.push(`name: ${name}`);
				if (description !== undefined) lines.push(`description: ${JSON.stringify(description)}`);
				if (disable !== undefined) lines.push(`disable-model-invocation: ${disable}`);
				lines.push("---", body);
				return lines.join("\n");
			}),
	},
	{ weight: 1, arbitrary: fc.constant("---\nname: [broken\ndescription: x\n---\nbody") },
	{ weight: 1, arbitrary: fc.constant("no front matter at all") },
);

/** Entries of one skills folder: `<dir>/SKILL.md`, `<group>/<dir>/SKILL.md`, or `<name>.md` at the root. */
const skillsFolder = fc.array(
	fc.record({
		shape: fc.constantFrom("dir", "nested", "rootFile"),
		dir: skillName,
		content: skillFile,
	}),
	{ maxLength: 3 },
);

const placeholder = fc.constantFrom("$1", "$2", "$@", "$ARGUMENTS", "${@:2}", "${@:1:1}", "${@:3:2}", "$", "text");
const promptFile = fc
	.record({
		description: fc.option(fc.constantFrom("Review code", "", "x: y"), { nil: undefined }),
		hint: fc.option(fc.constantFrom("<file>", "[a] [b]"), { nil: undefined }),
		body: fc.array(placeholder, { maxLength: 5 }).map((parts) => parts.join(" ")),
		frontMatter: fc.constantFrom("yes", "no", "broken"),
	})
	.map(({ description, hint, body, frontMatter }) => {
		if (frontMatter === "no") return body;
		if (frontMatter === "broken") return `---\ndescription: [x\n---\n${body}`;
		const lines = ["---"];
		if (description !== undefined) lines.push(`description: ${JSON.stringify(description)}`);
		if (hint !== undefined) lines.push(`argument-hint: ${JSON.stringify(hint)}`);
		lines.push("---", body);
		return lines.join("\n");
	});
const promptsFolder = fc.array(
	fc.record({ name: fc.constantFrom("review", "fix", "plan"), sub: fc.boolean(), content: promptFile }),
	{
		maxLength: 3,
	},
);

const contextFiles = fc.record(
	{ "AGENTS.md": text, "CLAUDE.md": text, "AGENTS.MD": text, "CLAUDE.MD": text },
	{ requiredKeys: [] },
);

/** Folders (relative to the run's base) and what each holds. cwd is `w/a/b`; `w` is a git root. */
const AGENT = "agent";
const HOME = "home";
const CWD = join("w", "a", "b");
const LEVELS = [AGENT, "w", join("w", "a"), CWD];
/** Folders only settings entries point at. */
const EXTRA_SKILLS = join("w", "extra");
const EXTRA_PROMPTS = join("w", "extra-prompts");
const SKILL_FOLDERS = [
	EXTRA_SKILLS,
	join(AGENT, "skills"),
	join(CWD, ".pi", "skills"),
	join(HOME, ".agents", "skills"),
	join("w", ".agents", "skills"),
	join(CWD, ".agents", "skills"),
];
const PROMPT_FOLDERS = [EXTRA_PROMPTS, join(AGENT, "prompts"), join(CWD, ".pi", "prompts")];

/**
 * `skills` / `prompts` entries of a settings file: folders and files (relative to the settings
 * file's folder, `~`, missing), and pi's filters (`!glob` excludes, `+path` forces in, `-path` out).
 */
function settingsEntries(up: string, kind: "skills" | "prompts"): fc.Arbitrary<string[]> {
	const extra = kind === "skills" ? "extra" : "extra-prompts";
	return fc.uniqueArray(
		fc.constantFrom(
			`${up}/${extra}`,
			`${up}/${extra}/`,
			`${up}/missing`,
			// pi bug, constrained: a file found both as a skill and as a template gets the metadata of
			// whichever was registered first for both (pi keys source info by path across kinds), so a
			// `prompts` entry for `~/.agents/skills` reports its templates as `auto`. Pinned in
			// pi-differential-regressions.test.ts; the prompts entry points at a home folder of its own.
			kind === "skills" ? "~/.agents/skills" : "~/prompts",
			kind,
			kind === "skills" ? `${up}/${extra}/alpha/SKILL.md` : `${up}/${extra}/review.md`,
			kind === "skills" ? "!alpha" : "!review.md",
			kind === "skills" ? "!**/beta/**" : "!**/fix.md",
			kind === "skills" ? `+${kind}/gamma/SKILL.md` : `+${kind}/plan.md`,
			kind === "skills" ? `-${kind}/alpha/SKILL.md` : `-${kind}/review.md`,
		),
		{ maxLength: 3 },
	);
}
const settingsFile = (up: string) =>
	fc.record({ skills: settingsEntries(up, "skills"), prompts: settingsEntries(up, "prompts") }, { requiredKeys: [] });
const SYSTEM_FILES = [
	join(AGENT, "SYSTEM.md"),
	join(AGENT, "APPEND_SYSTEM.md"),
	join(CWD, ".pi", "SYSTEM.md"),
	join(CWD, ".pi", "APPEND_SYSTEM.md"),
];

const tree: fc.Arbitrary<Tree> = fc
	.record({
		context: fc.tuple(...LEVELS.map(() => contextFiles)),
		skills: fc.tuple(...SKILL_FOLDERS.map(() => skillsFolder)),
		prompts: fc.tuple(...PROMPT_FOLDERS.map(() => promptsFolder)),
		system: fc.tuple(...SYSTEM_FILES.map(() => fc.option(text, { nil: undefined }))),
		globalSettings: fc.option(settingsFile("../w"), { nil: undefined }),
		projectSettings: fc.option(settingsFile("../../.."), { nil: undefined }),
	})
	.map(({ context, skills, prompts, system, globalSettings, projectSettings }) => {
		const files: Tree = { [join("w", ".git", "HEAD")]: "ref: refs/heads/main\n" };
		if (globalSettings) files[join(AGENT, "settings.json")] = JSON.stringify(globalSettings);
		if (projectSettings) files[join(CWD, ".pi", "settings.json")] = JSON.stringify(projectSettings);
		LEVELS.forEach((level, i) => {
			for (const [name, content] of Object.entries(context[i]!)) files[join(level, name)] = content;
		});
		SKILL_FOLDERS.forEach((folder, i) => {
			for (const { shape, dir, content } of skills[i]!) {
				const path =
					shape === "dir"
						? join(folder, dir, "SKILL.md")
						: shape === "nested"
							? join(folder, "group", dir, "SKILL.md")
							: join(folder, `${dir}.md`);
				files[path] = content;
			}
		});
		PROMPT_FOLDERS.forEach((folder, i) => {
			for (const { name, sub, content } of prompts[i]!) files[join(folder, sub ? "sub" : "", `${name}.md`)] = content;
		});
		SYSTEM_FILES.forEach((path, i) => {
			if (system[i] !== undefined) files[path] = system[i]!;
		});
		return files;
	});

/** How a text resource is saved: plain UTF-8, or with a byte order mark. */
type Encoding = "utf8" | "utf8-bom" | "utf16le-bom" | "utf16be-bom";
/**
 * Encodings handed out in turn to the tree's `.md` files (sorted by path); none: all plain UTF-8.
 * Mostly marked, so that a few files per tree are.
 */
const encodings = fc.option(
	fc.array(fc.constantFrom<Encoding>("utf8", "utf8-bom", "utf16le-bom", "utf16be-bom"), {
		minLength: 1,
		maxLength: 6,
	}),
	{ nil: undefined },
);

function encode(content: string, encoding: Encoding): Buffer {
	if (encoding === "utf8") return Buffer.from(content, "utf8");
	if (encoding === "utf8-bom") return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(content, "utf8")]);
	const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(content, "utf16le")]);
	return encoding === "utf16le-bom" ? le : le.swap16();
}

/** Writes the tree's `.md` files again, each in its encoding; how many now carry a mark. */
function writeEncoded(base: string, files: Tree, picks: readonly Encoding[] | undefined): number {
	if (!picks) return 0;
	let marked = 0;
	const texts = Object.keys(files)
		.filter((path) => path.endsWith(".md"))
		.sort();
	texts.forEach((path, i) => {
		const encoding = picks[i % picks.length]!;
		if (encoding === "utf8") return;
		writeFileSync(join(base, path), encode(files[path]!, encoding));
		marked++;
	});
	return marked;
}

function writeTree(base: string, files: Tree): void {
	mkdirSync(join(base, HOME), { recursive: true });
	mkdirSync(join(base, CWD), { recursive: true });
	mkdirSync(join(base, AGENT), { recursive: true });
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(dirname(join(base, path)), { recursive: true });
		writeFileSync(join(base, path), content);
	}
}

/** `/name args` (or plain text): argument values hold no `$` (the named multi-pass difference). */
const argText = fc.string({
	unit: fc.constantFrom("a", "b", " ", "\t", '"', "'", "x y", "@", "é", "{", ":", "\\"),
	maxLength: 20,
});
const invocation = fc.oneof(
	{
		weight: 5,
		arbitrary: fc
			.tuple(
				fc.constantFrom("review", "fix", "plan", "nope", "Review"),
				fc.constantFrom(" ", "", "  ", "\t", "\n"),
				argText,
			)
			.map(([name, sep, args]) => `/${name}${sep}${args}`),
	},
	{ weight: 1, arbitrary: argText },
);
/**
 * pi's expansion of `input` with the named difference applied: arguments given to a template
 * whose body has no placeholder follow its text after a blank line.
 */
function withUnusedArguments(
	input: string,
	piExpanded: string,
	prompts: readonly { name: string; content: string }[],
): string {
	const space = input.search(/\s/);
	const typed = space === -1 ? "" : input.slice(space + 1).trim();
	const template = prompts.find((candidate) => candidate.name === input.slice(1, space === -1 ? undefined : space));
	const placeholder = /\$\{(\d+|@|ARGUMENTS):-([^}]*)\}|\$(\d+)|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@/;
	if (!template || parseCommandArgs(typed).length === 0 || placeholder.test(template.content)) return piExpanded;
	return piExpanded.trim() ? `${piExpanded.trimEnd()}\n\n${typed}` : typed;
}

const tools = fc.subarray(["read", "bash", "edit", "write", "grep", "find", "ls"]);

/**
 * The tree with every `.pi/` file also under `.settle/`: pi reads `.pi/`, Settle its own `.settle/`
 * (and ignores `.pi/`, with a warning in the context-file diagnostics, not compared here).
 */
function withSettleFolder(files: Tree): Tree {
	const copy: Tree = { ...files };
	const piPrefix = `${join(CWD, ".pi")}/`;
	for (const [path, content] of Object.entries(files)) {
		if (path.startsWith(piPrefix)) copy[join(CWD, ".settle", path.slice(piPrefix.length))] = content;
	}
	return copy;
}

type Compared = Pick<
	DefaultResourceLoader,
	"getAgentsFiles" | "getSkills" | "getPrompts" | "getSystemPrompt" | "getAppendSystemPrompt"
>;

/** Settle's results with its `.settle/` paths written as the `.pi/` paths pi reports for the same files. */
function settlePathsAsPi(loader: DefaultResourceLoader, base: string): Compared {
	const from = JSON.stringify(join(base, CWD, ".settle")).slice(1, -1);
	const to = JSON.stringify(join(base, CWD, ".pi")).slice(1, -1);
	const map = <T>(value: T): T =>
		value === undefined ? value : (JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T);
	return {
		getAgentsFiles: () => map(loader.getAgentsFiles()),
		getSkills: () => map(loader.getSkills()),
		getPrompts: () => map(loader.getPrompts()),
		getSystemPrompt: () => loader.getSystemPrompt(),
		getAppendSystemPrompt: () => loader.getAppendSystemPrompt(),
	};
}

// ── loading both ─────────────────────────────────────────────────────────────────────────────

interface Loaded {
	pi: PiResourceLoader;
	settle: DefaultResourceLoader;
	cwd: string;
}

/** pi loads the tree as written, then `beforeSettle` (the marked files written over it), then Settle. */
/**
 * Removes each run's tree in the background, while the next run loads: removing a tree's ~60 new
 * entries waits ~100 ms on the disk here, about half a property's time when done in turn (one
 * timed out at 30 s beside other test files on 2 cores). `settled` waits for every removal, so
 * none outlives its test (whose temp root is removed after it).
 */
function backgroundRemovals(): { remove(dir: string): void; settled(): Promise<void> } {
	const pending: Promise<void>[] = [];
	return {
		remove: (dir) => {
			pending.push(rm(dir, { recursive: true, force: true }));
		},
		settled: async () => {
			await Promise.all(pending.splice(0));
		},
	};
}

async function loadBoth(base: string, beforeSettle: () => void = () => {}, cwdInBase = CWD): Promise<Loaded> {
	const cwd = join(base, cwdInBase);
	const agentDir = join(base, AGENT);
	// pi reads `~/.agents/skills` through $HOME (stubbed to the run's home folder in beforeEach).
	process.env.HOME = join(base, HOME);
	const pi = new PiResourceLoader({ cwd, agentDir, settingsManager: PiSettingsManager.create(cwd, agentDir) });
	await pi.reload();
	beforeSettle();
	const settle = new DefaultResourceLoader({
		cwd,
		agentDir,
		homeDir: join(base, HOME),
		settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted: true }),
		trustProject: true,
	});
	await settle.reload();
	return { pi, settle, cwd };
}

function skillsView(skills: readonly Skill[]): unknown[] {
	return [...skills];
}

function promptsView(prompts: readonly PromptTemplate[]): unknown[] {
	return prompts.map((prompt) => {
		const { argumentHint, ...rest } = prompt;
		// pi leaves `argumentHint` out when there is none; Settle too (undefined is not a difference).
		return argumentHint === undefined ? rest : { ...rest, argumentHint };
	});
}

const MISSING_ENTRY =
	/^(skills|prompts) path ".*" in .* does not exist \(resolved to .*\)\. Fix or remove the entry\.$/;
/** Settle's diagnostics without its warnings for settings entries that point nowhere (checked here). */
function withoutMissingEntryWarnings(diagnostics: readonly ResourceDiagnostic[]): ResourceDiagnostic[] {
	return diagnostics.filter((d) => {
		if (!MISSING_ENTRY.test(d.message)) return true;
		expect(existsSync(d.path!)).toBe(false);
		return false;
	});
}

/** pi's warnings for a non-`SKILL.md` file of the tree without front matter (named above: pi#7805). */
function withoutRootDocWarnings(diagnostics: readonly ResourceDiagnostic[], files: Tree, base: string) {
	return diagnostics.filter((d) => {
		if (d.path === undefined || d.path.endsWith("SKILL.md")) return true;
		const content = files[relative(base, d.path)];
		return content === undefined || content.startsWith("---");
	});
}

/** Broken-YAML messages: Settle's adds advice after pi's text (named above). */
const SETTLE_YAML_ADVICE = / Fix the YAML between the --- lines; the (skill|template) is not loaded until then\.$/;
function diagnosticsView(diagnostics: readonly ResourceDiagnostic[]): unknown[] {
	return diagnostics.map((d) => ({ ...d, message: d.message.replace(SETTLE_YAML_ADVICE, "") }));
}
function piDiagnosticsView(diagnostics: readonly ResourceDiagnostic[]): unknown[] {
	return diagnosticsView(
		diagnostics.map((d) =>
			d.message.includes("\n")
				? { ...d, message: `invalid YAML front matter: ${d.message.split("\n")[0]!.replace(/:$/, "")}.` }
				: d,
		),
	);
}

// ── a git worktree nested under its main checkout ───────────────────────────────────────────

const REPO = "repo";
const WORKTREE = join(REPO, ".worktrees", "x");
/** Levels with random context files; the worktree's root has `ownFile` or none. */
const WORKTREE_LEVELS = [AGENT, REPO, join(REPO, ".worktrees"), join(WORKTREE, "sub")];

/**
 * The files `git worktree add .worktrees/x` leaves that a loader may read (written by hand: the same
 * bytes, without a git process per run), and context files at every level; cwd is the worktree or
 * a folder in it. Absolute paths are written under `base`.
 */
const worktreeLayout = fc.record({
	context: fc.tuple(...WORKTREE_LEVELS.map(() => contextFiles)),
	cwd: fc.constantFrom(WORKTREE, join(WORKTREE, "sub")),
	// The worktree's root often has its own file (the case pi#6617 is about), sometimes not.
	ownFile: fc.option(fc.record({ name: fc.constantFrom("AGENTS.md", "AGENTS.md", "CLAUDE.md", "AGENTS.MD"), text }), {
		nil: undefined,
		freq: 3,
	}),
});

function worktreeTree(
	base: string,
	layout: { context: Partial<Record<string, string>>[]; ownFile: { name: string; text: string } | undefined },
): Tree {
	const files: Tree = {
		[join(REPO, ".git", "HEAD")]: "ref: refs/heads/main\n",
		[join(REPO, ".git", "worktrees", "x", "HEAD")]: "ref: refs/heads/x\n",
		[join(REPO, ".git", "worktrees", "x", "commondir")]: "../..\n",
		[join(REPO, ".git", "worktrees", "x", "gitdir")]: `${join(base, WORKTREE, ".git")}\n`,
		[join(WORKTREE, ".git")]: `gitdir: ${join(base, REPO, ".git", "worktrees", "x")}\n`,
		[join(WORKTREE, "sub", ".keep")]: "",
	};
	WORKTREE_LEVELS.forEach((level, i) => {
		for (const [name, content] of Object.entries(layout.context[i]!)) files[join(level, name)] = content!;
	});
	if (layout.ownFile) files[join(WORKTREE, layout.ownFile.name)] = layout.ownFile.text;
	return files;
}

/**
 * pi's context files without the main checkout's file that the worktree's root file of the same
 * name shadows (the named difference, pi#6617): what Settle must list.
 */
function withoutShadowedMainFile(files: readonly { path: string; content: string }[], base: string) {
	const own = files.find((file) => dirname(file.path) === join(base, WORKTREE));
	if (!own) return [...files];
	return files.filter((file) => file.path !== join(base, REPO, basename(own.path)));
}

describe("resources: differential against pi 0.73.1", () => {
	let savedHome: string | undefined;
	beforeEach(() => {
		savedHome = process.env.HOME;
	});
	afterEach(() => {
		vi.unstubAllEnvs();
		process.env.HOME = savedHome;
	});

	it(
		"random trees give the same context files, skills, templates, custom and appended prompts",
		async () => {
			const root = tempDir("settle-resources-diff-");
			let run = 0;
			// What the runs exercised: the comparison must not pass by comparing empty lists.
			const removals = backgroundRemovals();
			const seen = {
				settleFolder: 0,
				agentsFiles: 0,
				skills: 0,
				collisions: 0,
				skillWarnings: 0,
				prompts: 0,
				systemPrompts: 0,
				markedFiles: 0,
			};
			await fc
				.assert(
					fc.asyncProperty(tree, fc.boolean(), encodings, async (generated, settleFolder, picks) => {
						const base = join(root, String(run++));
						const files = settleFolder ? withSettleFolder(generated) : generated;
						writeTree(base, files);
						try {
							const loaded = await loadBoth(base, () => {
								seen.markedFiles += writeEncoded(base, files, picks);
							});
							const pi = loaded.pi;
							// Settle's project folder is `.settle/` even where it holds nothing: a discovered `.agents/` skill's
							// baseDir names it (seed -941491521), as pi's names `.pi/`.
							const settle = settlePathsAsPi(loaded.settle, base);
							if (settleFolder) seen.settleFolder++;
							expect(settle.getAgentsFiles().agentsFiles).toEqual(pi.getAgentsFiles().agentsFiles);
							const piSkills = pi.getSkills();
							const settleSkills = settle.getSkills();
							expect(skillsView(settleSkills.skills)).toEqual(skillsView(piSkills.skills as Skill[]));
							expect(diagnosticsView(withoutMissingEntryWarnings(settleSkills.diagnostics))).toEqual(
								piDiagnosticsView(withoutRootDocWarnings(piSkills.diagnostics, files, base)),
							);
							const piPrompts = pi.getPrompts();
							const settlePrompts = settle.getPrompts();
							expect(promptsView(settlePrompts.prompts)).toEqual(promptsView(piPrompts.prompts as PromptTemplate[]));
							const brokenTemplates = settlePrompts.diagnostics.filter((d) =>
								d.message.startsWith("invalid YAML front matter"),
							);
							// Each names a file of the tree with broken YAML, a template pi does not load either.
							for (const d of brokenTemplates) {
								expect(files[relative(base, d.path!)]).toMatch(/^---\ndescription: \[x/);
								expect(piPrompts.prompts.map((prompt) => prompt.filePath)).not.toContain(d.path);
							}
							const nestedTemplates = settlePrompts.diagnostics.filter((d) =>
								d.message.startsWith("prompt templates in a sub-folder are not loaded"),
							);
							// Each names a sub-folder whose templates pi does not load either.
							for (const d of nestedTemplates) {
								expect(piPrompts.prompts.some((prompt) => prompt.filePath.startsWith(`${d.path!}/`))).toBe(false);
							}
							const otherDiagnostics = withoutMissingEntryWarnings(settlePrompts.diagnostics).filter(
								(d) => !brokenTemplates.includes(d) && !nestedTemplates.includes(d),
							);
							expect(diagnosticsView(otherDiagnostics)).toEqual(piDiagnosticsView(piPrompts.diagnostics));
							expect(settle.getSystemPrompt()).toBe(pi.getSystemPrompt());
							expect(settle.getAppendSystemPrompt()).toEqual(pi.getAppendSystemPrompt());
							seen.agentsFiles += pi.getAgentsFiles().agentsFiles.length;
							seen.skills += piSkills.skills.length;
							seen.collisions += piSkills.diagnostics.filter((d) => d.type === "collision").length;
							seen.skillWarnings += piSkills.diagnostics.filter((d) => d.type === "warning").length;
							seen.prompts += piPrompts.prompts.length;
							seen.systemPrompts += pi.getSystemPrompt() === undefined ? 0 : 1;
						} finally {
							removals.remove(base);
						}
					}),
					{ numRuns: RUNS ?? 60, ...REPLAY },
				)
				.finally(removals.settled);
			for (const [what, count] of Object.entries(seen)) expect({ what, some: count > 0 }).toEqual({ what, some: true });
		},
		LONG_HUNT_TIMEOUT,
	);
	it(
		"random `/template args` expand the same, and the system prompt carries what pi's carries",
		async () => {
			const root = tempDir("settle-resources-diff-");
			let run = 0;
			const removals = backgroundRemovals();
			const seen = { expanded: 0, customPrompts: 0, skillsListed: 0, markedFiles: 0 };
			await fc
				.assert(
					fc.asyncProperty(
						tree,
						fc.array(invocation, { minLength: 1, maxLength: 4 }),
						tools,
						encodings,
						async (files, inputs, active, picks) => {
							const base = join(root, String(run++));
							writeTree(base, files);
							try {
								const { pi, settle, cwd } = await loadBoth(base, () => {
									seen.markedFiles += writeEncoded(base, files, picks);
								});
								const piPrompts = pi.getPrompts().prompts;
								const settlePrompts = settle.getPrompts().prompts;
								for (const input of inputs) {
									// Named difference (above): an apostrophe inside an argument.
									if (/\S'/.test(input)) continue;
									// As a prompt expands it (prompt-pipeline.ts expandText): the body read from the file at use.
									const ours = expandPromptTemplate(input, settlePrompts, templateBodyOnDisk);
									// Named difference: a tab or line break right after the name ends it as a space does
									// (Settle, as for skills, pi#8413); pi 0.73.1 ends it at a space only.
									const piInput = input.replace(/^(\/\S*)[\t\n\r]/, "$1 ");
									const piExpanded = piTemplates.expandPromptTemplate(piInput, piPrompts);
									expect({ input, expanded: ours }).toEqual({
										input,
										expanded: piExpanded === piInput ? input : withUnusedArguments(input, piExpanded, settlePrompts),
									});
									if (ours !== input) seen.expanded++;
								}

								const toolSnippets = Object.fromEntries(active.map((name) => [name, `Use ${name}`]));
								const append = pi.getAppendSystemPrompt();
								// Both read the clock, stopped for both: the same day on both sides of midnight.
								const [piText, sections] = atTime(
									LAST_MINUTE_OF_DAY,
									() =>
										[
											piSystemPrompt.buildSystemPrompt({
												cwd,
												customPrompt: pi.getSystemPrompt(),
												selectedTools: active,
												toolSnippets,
												appendSystemPrompt: append.length > 0 ? append.join("\n\n") : undefined,
												contextFiles: pi.getAgentsFiles().agentsFiles,
												skills: pi.getSkills().skills,
											}),
											Object.fromEntries(
												buildSystemPromptSections(
													systemPromptOptionsFromResources({
														cwd,
														resources: settle,
														tools: active.map((name) => ({ name, promptSnippet: `Use ${name}` })),
													}),
												).map((section) => [section.id, section.text]),
											),
										] as const,
								);
								const custom = pi.getSystemPrompt();
								if (custom?.trim()) {
									seen.customPrompts++;
									expect(sections.preamble).toBe(custom.trim());
									expect(piText.startsWith(custom)).toBe(true);
								} else if (!custom) {
									// pi's default prompt: the tools it lists and its guidelines are Settle's too.
									expect(piText).toContain(sections.tools ?? "(none)");
									for (const line of (sections.guidelines ?? "").split("\n")) expect(piText).toContain(line);
								}
								// Named difference: a SYSTEM.md holding only blanks is pi's whole base prompt (no tools,
								// no guidelines); Settle treats it as absent and keeps its own preamble and tool list
								// (pinned in pi-differential-regressions.test.ts).
								if (sections.skills) seen.skillsListed++;
								expect(sections.date).toBe("Current date: 2025-01-31");
								for (const id of ["skills", "addendum", "cwd", "date"]) {
									if (sections[id] !== undefined) expect(piText).toContain(sections[id]);
								}
								expect(sections.skills === undefined).toBe(!piText.includes("<available_skills>"));
								const contextFiles = settle.getAgentsFiles().agentsFiles;
								for (const file of contextFiles) {
									// Settle trims each section's end, so an empty last file keeps only its heading.
									const chunk = file.content.trimEnd()
										? `## ${file.path}\n\n${file.content.trimEnd()}`
										: `## ${file.path}`;
									expect(piText).toContain(chunk);
									expect(sections.project_context).toContain(chunk);
								}
								expect(sections.project_context === undefined).toBe(contextFiles.length === 0);
								for (const text of append) if (text.trim()) expect(sections.addendum).toContain(text.trim());
							} finally {
								removals.remove(base);
							}
						},
					),
					{ numRuns: RUNS ?? 40, ...REPLAY },
				)
				.finally(removals.settled);
			for (const [what, count] of Object.entries(seen)) expect({ what, some: count > 0 }).toEqual({ what, some: true });
		},
		LONG_HUNT_TIMEOUT,
	);

	it(
		"in a git worktree nested under its main checkout, the context files are pi's without the main file the worktree's own shadows",
		async () => {
			const root = tempDir("settle-resources-diff-");
			let run = 0;
			const removals = backgroundRemovals();
			const seen = { shadowed: 0, mainKept: 0, withoutOwnFile: 0 };
			await fc
				.assert(
					fc.asyncProperty(worktreeLayout, encodings, async (layout, picks) => {
						const base = join(root, String(run++));
						const files = worktreeTree(base, layout);
						writeTree(base, files);
						try {
							const { pi, settle } = await loadBoth(base, () => writeEncoded(base, files, picks), layout.cwd);
							const piFiles = pi.getAgentsFiles().agentsFiles;
							const expected = withoutShadowedMainFile(piFiles, base);
							expect(settle.getAgentsFiles().agentsFiles).toEqual(expected);
							if (expected.length < piFiles.length) seen.shadowed++;
							if (expected.some((file) => dirname(file.path) === join(base, REPO))) seen.mainKept++;
							if (!piFiles.some((file) => dirname(file.path) === join(base, WORKTREE))) seen.withoutOwnFile++;
						} finally {
							removals.remove(base);
						}
					}),
					{ numRuns: RUNS ?? 40, ...REPLAY },
				)
				.finally(removals.settled);
			for (const [what, count] of Object.entries(seen)) expect({ what, some: count > 0 }).toEqual({ what, some: true });
		},
		LONG_HUNT_TIMEOUT,
	);
});
