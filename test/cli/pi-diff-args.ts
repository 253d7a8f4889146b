/**
 * The argument-parsing half of the CLI differential: pi 0.73.1's `parseArgs` and Settle's, seen
 * the way a user sees a command line: the run it starts (options in shared names) or the errors
 * it prints. No extension is loaded here, so every extension flag ends in pi's and Settle's
 * `Unknown option: --name` (same text on both sides, from the flag map each parser builds).
 */
import fc from "fast-check";
import { extensionFlagValues, type ParsedArgs, parseArgs } from "../../src/cli/args.js";
import { type PiArgs, piParseArgs } from "./pi-diff-pi.js";

/** What a command line asks for, in shared names (pi's field names; Settle's mapped where they differ). */
export interface ArgsView {
	help: boolean;
	version: boolean;
	listModels: true | string | undefined;
	print: boolean;
	mode: string | undefined;
	messages: string[];
	fileArgs: string[];
	model: string | undefined;
	/** `--models <a,b>`: the patterns, split on commas and trimmed. */
	models: string[] | undefined;
	provider: string | undefined;
	apiKey: string | undefined;
	fork: string | undefined;
	thinking: string | undefined;
	session: string | undefined;
	sessionDir: string | undefined;
	continue: boolean;
	/** `--resume` / `-r`. */
	resume: boolean;
	noSession: boolean;
	tools: string[] | undefined;
	noTools: boolean;
	/** `--no-builtin-tools` / `-nbt`. */
	noBuiltinTools: boolean;
	/** pi `extensions` (undefined when none) ↔ Settle `extensions` ([] when none). */
	extensions: string[];
	noExtensions: boolean;
	/** `--system-prompt <text|file>` (the last one). */
	systemPrompt: string | undefined;
	/** pi `appendSystemPrompt` (undefined when none) ↔ Settle `appendSystemPrompt` ([] when none). */
	appendSystemPrompt: string[];
	noContextFiles: boolean;
	noSkills: boolean;
	noPromptTemplates: boolean;
	/** pi `skills` (undefined when none) ↔ Settle `skills` ([] when none). */
	skills: string[];
	/** pi `promptTemplates` (undefined when none) ↔ Settle `promptTemplates` ([] when none). */
	promptTemplates: string[];
	/** pi `themes` (undefined when none) ↔ Settle `themes` ([] when none): `--theme` (repeatable). */
	themes: string[];
	noThemes: boolean;
	offline: boolean;
	verbose: boolean;
	/** `--export <file>`: the session file to write as HTML (the first message is then the output path). */
	export: string | undefined;
	/** pi `unknownFlags` (a Map) ↔ Settle `extensionFlagValues(unknownFlags)` (the Map it hands to the runtime). */
	extensionFlags: [string, string | boolean][];
	errors: string[];
	warnings: string[];
}

function diagnostics(list: readonly { type: string; message: string }[], type: string): string[] {
	return list.filter((d) => d.type === type).map((d) => d.message);
}

export function piView(p: PiArgs): ArgsView {
	return {
		help: p.help === true,
		version: p.version === true,
		listModels: p.listModels,
		print: p.print === true,
		mode: p.mode,
		messages: p.messages,
		fileArgs: p.fileArgs,
		model: p.model,
		models: p.models,
		provider: p.provider,
		apiKey: p.apiKey,
		fork: p.fork,
		thinking: p.thinking,
		session: p.session,
		sessionDir: p.sessionDir,
		continue: p.continue === true,
		resume: p.resume === true,
		noSession: p.noSession === true,
		tools: p.tools,
		noTools: p.noTools === true,
		noBuiltinTools: p.noBuiltinTools === true,
		extensions: p.extensions ?? [],
		noExtensions: p.noExtensions === true,
		systemPrompt: p.systemPrompt,
		appendSystemPrompt: p.appendSystemPrompt ?? [],
		noContextFiles: p.noContextFiles === true,
		noSkills: p.noSkills === true,
		noPromptTemplates: p.noPromptTemplates === true,
		skills: p.skills ?? [],
		promptTemplates: p.promptTemplates ?? [],
		themes: p.themes ?? [],
		noThemes: p.noThemes === true,
		offline: p.offline === true,
		verbose: p.verbose === true,
		export: p.export,
		extensionFlags: [...p.unknownFlags.entries()],
		errors: diagnostics(p.diagnostics, "error"),
		warnings: diagnostics(p.diagnostics, "warning"),
	};
}

export function settleView(s: ParsedArgs): ArgsView {
	return {
		help: s.help,
		version: s.version,
		listModels: s.listModels,
		print: s.print,
		mode: s.mode,
		messages: s.messages,
		fileArgs: s.fileArgs,
		model: s.model,
		models: s.models,
		provider: s.provider,
		apiKey: s.apiKey,
		fork: s.fork,
		thinking: s.thinking,
		session: s.session,
		sessionDir: s.sessionDir,
		continue: s.continue,
		resume: s.resume,
		noSession: s.noSession,
		tools: s.tools,
		noTools: s.noTools,
		noBuiltinTools: s.noBuiltinTools,
		extensions: s.extensions,
		noExtensions: s.noExtensions,
		systemPrompt: s.systemPrompt,
		appendSystemPrompt: s.appendSystemPrompt,
		noContextFiles: s.noContextFiles,
		noSkills: s.noSkills,
		noPromptTemplates: s.noPromptTemplates,
		skills: s.skills,
		promptTemplates: s.promptTemplates,
		themes: s.themes,
		noThemes: s.noThemes,
		offline: s.offline,
		verbose: s.verbose,
		export: s.export,
		extensionFlags: [...extensionFlagValues(s.unknownFlags).entries()],
		errors: diagnostics(s.diagnostics, "error"),
		warnings: diagnostics(s.diagnostics, "warning"),
	};
}

/** Both parsers on one command line. */
export function parseBoth(argv: readonly string[]): { pi: ArgsView; settle: ArgsView } {
	return { pi: piView(piParseArgs([...argv])), settle: settleView(parseArgs(argv)) };
}

// ---- vocabulary ---------------------------------------------------------------------------------

/** Options both CLIs have, with the same meaning. */
export const SHARED_BOOLEAN = [
	"-p",
	"--print",
	"--continue",
	"-c",
	"--resume",
	"-r",
	"--no-session",
	"--no-tools",
	"-nt",
	"--no-builtin-tools",
	"-nbt",
	"--no-extensions",
	"-ne",
	"--no-context-files",
	"-nc",
	"--no-skills",
	"-ns",
	"--no-prompt-templates",
	"-np",
	"--no-themes",
	"--offline",
	"--verbose",
	"--help",
	"-h",
	"--version",
	"-v",
	"--list-models",
];
export const SHARED_VALUE = [
	"--mode",
	"--model",
	"--models",
	"--provider",
	"--api-key",
	"--fork",
	"--thinking",
	"--session",
	"--session-dir",
	"--tools",
	"-t",
	"--extension",
	"-e",
	"--export",
	"--system-prompt",
	"--append-system-prompt",
	"--skill",
	"--prompt-template",
	"--theme",
];

/** Values, valid for some option or not, and words that look like options. */
const VALUES = [
	"text",
	"json",
	"rpc",
	"bogus",
	"high",
	"off",
	"xhigh",
	"HIGH",
	"faux/faux-1",
	"faux-1:high",
	"read,bash",
	" read , ,ls ",
	"abc12",
	"./s.jsonl",
	"sessions/",
	"ext.ts",
	"",
	"hello world",
	"---\nfront: matter\n---",
	"@notes.md",
	"-",
	"--",
	"-z",
];

/**
 * Settle options pi does not have (named divergence "Settle-only option", Settle's help):
 * `--json`/`--rpc` (short for `--mode json|rpc`), `--cwd`, `--agent-dir`, `--approve`/`--no-approve`
 * (project trust), `--faux`/`--faux-script` (the offline scripted model), `--trace`, `--inspect`/`--inspect-port`
 * (the live inspector). pi reports them as unknown.
 */
export const SETTLE_ONLY_BOOLEAN = [
	"--json",
	"--rpc",
	"--approve",
	"--no-approve",
	"--faux",
	"-i",
	"--interactive",
	"--inspect",
];
export const SETTLE_ONLY_VALUE = ["--cwd", "--agent-dir", "--faux-script", "--trace", "--inspect-port"];

/** Arguments that are neither known options nor values: extension flags, messages, files, odd dashes. */
const OTHERS = [
	"--plan",
	"--plan=deep",
	"--alias",
	"--alias=",
	"--mode=json",
	"--print=x",
	"--",
	"-",
	"---x",
	"-z",
	"-pz",
	"@notes.md",
	"@img.png",
	"@",
	"hello",
	"fix the bug",
	"",
	"--list-models",
];

/**
 * Words one CLI gives a meaning the other lacks, kept out of random strings: the one-sided options
 * (their own properties), Settle's commands `demo`, `viz` and `trace` (named "Settle-only command": as the
 * first argument they are commands in Settle, messages in pi) and pi's package commands (`install`,
 * `list`, …: as the first argument both run their package commands, whose output differs).
 */
const ONE_SIDED = new Set([
	...SETTLE_ONLY_BOOLEAN,
	...SETTLE_ONLY_VALUE,
	"demo",
	"viz",
	"trace",
	"install",
	"remove",
	"uninstall",
	"update",
	"list",
	"config",
]);

/** One random argument from the shared vocabulary (options, values, messages, files, extension flags). */
export const sharedToken: fc.Arbitrary<string> = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(...SHARED_BOOLEAN) },
	{ weight: 3, arbitrary: fc.constantFrom(...SHARED_VALUE) },
	{ weight: 4, arbitrary: fc.constantFrom(...VALUES) },
	{ weight: 4, arbitrary: fc.constantFrom(...OTHERS) },
	{ weight: 1, arbitrary: fc.string({ maxLength: 6 }).filter((arg) => !ONE_SIDED.has(arg)) },
);

/** A well-formed piece of a command line: an option with a fitting value, a message, a file, a flag. */
export const sharedUnit: fc.Arbitrary<readonly string[]> = fc.oneof(
	fc
		.constantFrom(...SHARED_BOOLEAN.filter((flag) => flag !== "-p" && flag !== "--print" && flag !== "--list-models"))
		.map((flag) => [flag]),
	fc
		.tuple(fc.constantFrom("-p", "--print"), fc.constantFrom("why?", "---\nrule", "@a.md", "-z"))
		.map((unit) => [...unit]),
	fc.constantFrom(["--list-models"], ["--list-models", "sonnet"], ["--list-models", "@a.md"]),
	fc.tuple(fc.constantFrom("--mode"), fc.constantFrom("text", "json")).map((unit) => [...unit]),
	fc
		.tuple(fc.constantFrom("--model"), fc.constantFrom("faux/faux-1", "faux-1:high", "sonnet"))
		.map((unit) => [...unit]),
	fc
		.tuple(fc.constantFrom("--thinking"), fc.constantFrom("off", "minimal", "low", "medium", "high", "xhigh"))
		.map((unit) => [...unit]),
	fc.tuple(fc.constantFrom("--provider"), fc.constantFrom("faux", "openai", "x/y")).map((unit) => [...unit]),
	fc
		.tuple(fc.constantFrom("--models"), fc.constantFrom("faux/*", "sonnet:high, haiku", "a,,b", ""))
		.map((unit) => [...unit]),
	fc.tuple(fc.constantFrom("--api-key"), fc.constantFrom("sk-test", "KEY_VAR")).map((unit) => [...unit]),
	fc.tuple(fc.constantFrom("--fork"), fc.constantFrom("abc12", "./s.jsonl")).map((unit) => [...unit]),
	fc.tuple(fc.constantFrom("--session-dir"), fc.constantFrom("sessions", "/tmp/s")).map((unit) => [...unit]),
	fc
		.tuple(fc.constantFrom("--tools", "-t"), fc.constantFrom("read,bash", "ls", " read , ,ls "))
		.map((unit) => [...unit]),
	fc.tuple(fc.constantFrom("--extension", "-e"), fc.constantFrom("ext.ts", "npm:pkg")).map((unit) => [...unit]),
	fc.tuple(fc.constantFrom("--export"), fc.constantFrom("s.jsonl", "./s.jsonl")).map((unit) => [...unit]),
	fc
		.tuple(
			fc.constantFrom("--system-prompt", "--append-system-prompt"),
			fc.constantFrom("Be brief.", "prompt.md", "-x", "@a.md", ""),
		)
		.map((unit) => [...unit]),
	fc
		.tuple(
			fc.constantFrom("--skill", "--prompt-template", "--theme"),
			fc.constantFrom("skills/lint", "fix.md", "~/p", "-x", "", "dark"),
		)
		.map((unit) => [...unit]),
	fc.constantFrom(["hello"], ["fix the bug"], ["@notes.md"], ["@img.png"], ["--plan=deep"], ["--alias", "fast"]),
);
