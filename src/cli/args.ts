/**
 * `settle` command-line parsing. Known options are Settle's (mostly pi's names); any other
 * `--name [value]` is collected as an extension flag, validated once the project's extensions are
 * loaded (pi's `Unknown option: --a` / `Extension flag "--x" requires a value`).
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { ThinkingLevel } from "../llm/types.js";
import { piPackageCommandError } from "./pi-options.js";

/** The thinking levels `--thinking` accepts. */
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** How the CLI runs (`interactive`: the line-oriented chat of `interactive-mode.ts`). */
export type CliMode = "text" | "json" | "rpc" | "interactive";

/** A problem with the command line (always a usage error). */
export interface ArgDiagnostic {
	type: "error" | "warning";
	message: string;
}

/** An option the CLI does not know: an extension flag (or a typo, reported once extensions are loaded). */
export interface UnknownFlag {
	name: string;
	value: string | true;
	/** The value was the next argument (not `--name=value`): a boolean flag gives it back as a message. */
	valueWasNextArg: boolean;
	/** Index in `messages` where the next argument would go if it is given back. */
	messageIndex: number;
}

/** The parsed command line. */
export interface ParsedArgs {
	command?: "demo" | "viz" | "trace";
	/** `viz [dir]`, `trace <file>`. */
	commandArgs: string[];
	help: boolean;
	version: boolean;
	/** `--list-models [search]`: `true`, or the search text. */
	listModels?: true | string;
	/** `-p` / `--print` was given. */
	print: boolean;
	mode?: CliMode;
	messages: string[];
	/** `@path` arguments (without the `@`): files whose contents go into the first prompt, as in pi. */
	fileArgs: string[];
	model?: string;
	/** `--models <a,b>` (pi's): the model patterns `cycle_model` goes through (the start-up model without `--model`). */
	models?: string[];
	/** `--provider <name>` (pi's): the provider whose models `--model <id>` names; nothing without `--model`. */
	provider?: string;
	/** `--api-key <key>` (pi's): the key for the chosen model's provider, over auth.json and the environment; kept in memory only. */
	apiKey?: string;
	/** `--fork <file|id-prefix>` (pi's): start a new session forked from that one. */
	fork?: string;
	thinking?: ThinkingLevel;
	cwd?: string;
	agentDir?: string;
	session?: string;
	sessionDir?: string;
	continue: boolean;
	/** `--resume` / `-r` (pi's): `settle -i` asks which of this project's sessions to continue. */
	resume: boolean;
	noSession: boolean;
	tools?: string[];
	noTools: boolean;
	/** `--no-builtin-tools` / `-nbt`: no built-in tool unless `--tools` names it; extension tools stay (pi's). */
	noBuiltinTools: boolean;
	/** `--approve` true, `--no-approve` false. */
	trustProject?: boolean;
	faux: boolean;
	fauxScript?: string;
	extensions: string[];
	noExtensions: boolean;
	/** `--system-prompt <text|file>`: replaces the base prompt (as SYSTEM.md does); the last one wins, as in pi. */
	systemPrompt?: string;
	/** `--append-system-prompt <text|file>` (repeatable): replace APPEND_SYSTEM.md, in order, as in pi. */
	appendSystemPrompt: string[];
	/** `--no-context-files` / `-nc`: no AGENTS.md / CLAUDE.md. */
	noContextFiles: boolean;
	/** `--no-skills` / `-ns`: no skill discovery. */
	noSkills: boolean;
	/** `--no-prompt-templates` / `-np`: no prompt template discovery. */
	noPromptTemplates: boolean;
	/** `--skill <path>` (repeatable): skill files or folders loaded besides the discovered ones (also with `-ns`, as in pi). */
	skills: string[];
	/** `--prompt-template <path>` (repeatable): template files or folders loaded besides the discovered ones (also with `-np`). */
	promptTemplates: string[];
	/** `--theme <name|path>` (pi's, repeatable): accepted for pi's scripts; Settle has no themes, so it changes nothing. */
	themes: string[];
	/** `--no-themes` (pi's): accepted for pi's scripts; changes nothing. */
	noThemes: boolean;
	/** `--verbose` (pi's): `settle -i` prints its start-up banner even with the `quietStartup` setting. */
	verbose: boolean;
	/** `--offline` (pi's): accepted; Settle makes no start-up network requests, so it changes nothing. */
	offline: boolean;
	/** `--trace <file>`: save the run's lifecycle trace there. */
	trace?: string;
	/** `settle trace <file> -o <out.html>`. */
	traceOutput?: string;
	/** `--inspect` (or `--inspect-port`): serve the live inspector for the run. */
	inspect: boolean;
	/** `--inspect-port <n>`: its port on 127.0.0.1 (0 or absent: a free one). */
	inspectPort?: number;
	/** `--export <session.jsonl> [output.html]`: write the session as HTML and exit (pi's option). */
	export?: string;
	unknownFlags: UnknownFlag[];
	diagnostics: ArgDiagnostic[];
}

const VALUE_OPTIONS = new Set([
	"--mode",
	"--model",
	"--models",
	"--provider",
	"--api-key",
	"--fork",
	"--thinking",
	"--cwd",
	"--agent-dir",
	"--session",
	"--session-dir",
	"--tools",
	"-t",
	"--faux-script",
	"--extension",
	"-e",
	"--trace",
	"--inspect-port",
	"--export",
	"--system-prompt",
	"--append-system-prompt",
	"--skill",
	"--prompt-template",
	"--theme",
]);
/** `settle trace <file> -o <out.html>` (elsewhere `-o` stays an unknown option, as in pi). Internal (its help is checked against it). */
export const TRACE_COMMAND_OPTIONS: ReadonlySet<string> = new Set(["-o", "--output"]);

/**
 * Parses `argv` (without `node` and the script). Never throws: problems are `diagnostics`.
 *
 * @example
 * ```ts
 * parseArgs(["-p", "hello", "--faux"]); // { print: true, messages: ["hello"], faux: true, … }
 * ```
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
	const result: ParsedArgs = {
		commandArgs: [],
		help: false,
		version: false,
		print: false,
		messages: [],
		fileArgs: [],
		continue: false,
		resume: false,
		noSession: false,
		noTools: false,
		noBuiltinTools: false,
		faux: false,
		extensions: [],
		noExtensions: false,
		appendSystemPrompt: [],
		noContextFiles: false,
		noSkills: false,
		noPromptTemplates: false,
		skills: [],
		promptTemplates: [],
		themes: [],
		noThemes: false,
		verbose: false,
		offline: false,
		inspect: false,
		unknownFlags: [],
		diagnostics: [],
	};
	// Each mode option as given (`--json`, `--mode rpc`, …), to refuse two that disagree.
	const modeChoices: { option: string; mode: CliMode }[] = [];
	const first = argv[0];
	let start = 0;
	if (first === "demo" || first === "viz" || first === "trace") {
		result.command = first;
		start = 1;
	} else {
		const piCommand = first === undefined ? undefined : piPackageCommandError(first);
		if (piCommand) result.diagnostics.push({ type: "error", message: piCommand });
	}
	for (let i = start; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === "--") {
			// The end of the options (the usual convention): a prompt starting with "-" is given after it, as is.
			for (const rest of argv.slice(i + 1)) (result.command ? result.commandArgs : result.messages).push(rest);
			break;
		}
		if (VALUE_OPTIONS.has(arg) || (result.command === "trace" && TRACE_COMMAND_OPTIONS.has(arg))) {
			const value = argv[i + 1];
			if (value === undefined) {
				result.diagnostics.push({ type: "error", message: `Option ${arg} requires a value` });
				continue;
			}
			i++;
			applyValueOption(result, arg, value);
			if (arg === "--mode" && result.mode === value) modeChoices.push({ option: `--mode ${value}`, mode: value });
			continue;
		}
		switch (arg) {
			case "--help":
			case "-h":
				result.help = true;
				continue;
			case "--version":
			case "-v":
				result.version = true;
				continue;
			case "--list-models": {
				const next = argv[i + 1];
				if (next !== undefined && !next.startsWith("-") && !next.startsWith("@")) {
					result.listModels = next;
					i++;
				} else result.listModels = true;
				continue;
			}
			case "--print":
			case "-p": {
				result.print = true;
				const next = argv[i + 1];
				// pi's rule: a prompt may start with "---" (a markdown rule, front matter), not with "-" or "--".
				if (next !== undefined && !next.startsWith("@") && (!next.startsWith("-") || next.startsWith("---"))) {
					result.messages.push(next);
					i++;
				}
				continue;
			}
			case "--json":
				result.mode = "json";
				modeChoices.push({ option: arg, mode: "json" });
				continue;
			case "--rpc":
				result.mode = "rpc";
				modeChoices.push({ option: arg, mode: "rpc" });
				continue;
			case "--interactive":
			case "-i":
				result.mode = "interactive";
				modeChoices.push({ option: arg, mode: "interactive" });
				continue;
			case "--continue":
			case "-c":
				result.continue = true;
				continue;
			case "--resume":
			case "-r":
				result.resume = true;
				continue;
			case "--no-session":
				result.noSession = true;
				continue;
			case "--no-tools":
			case "-nt":
				result.noTools = true;
				continue;
			case "--no-builtin-tools":
			case "-nbt":
				result.noBuiltinTools = true;
				continue;
			case "--approve":
				result.trustProject = true;
				continue;
			case "--no-approve":
				result.trustProject = false;
				continue;
			case "--faux":
				result.faux = true;
				continue;
			case "--inspect":
				result.inspect = true;
				continue;
			case "--no-extensions":
			case "-ne":
				result.noExtensions = true;
				continue;
			case "--no-context-files":
			case "-nc":
				result.noContextFiles = true;
				continue;
			case "--no-skills":
			case "-ns":
				result.noSkills = true;
				continue;
			case "--no-prompt-templates":
			case "-np":
				result.noPromptTemplates = true;
				continue;
			case "--no-themes":
				result.noThemes = true;
				continue;
			case "--offline":
				result.offline = true;
				continue;
			case "--verbose":
				result.verbose = true;
				continue;
		}
		if (arg.startsWith("--") && arg.length > 2) {
			if (collectUnknownFlag(result, argv, i, arg)) i++;
		} else if (arg.startsWith("-")) {
			result.diagnostics.push({ type: "error", message: `Unknown option: ${arg}` });
		} else if (result.command) {
			result.commandArgs.push(arg);
		} else if (arg.startsWith("@")) {
			result.fileArgs.push(arg.slice(1));
		} else {
			result.messages.push(arg);
		}
	}
	checkCombinations(result);
	checkModeChoices(result, modeChoices);
	return result;
}

/**
 * An empty path (`--agent-dir "$DIR"` with DIR unset) is refused: it resolved to the current
 * directory, so the project became the global folder (its extensions ran without trust) or the
 * run went on in another folder than the one meant. Returns whether it refused.
 */
function refuseEmptyPath(result: ParsedArgs, option: string, value: string, what: string): boolean {
	if (value.trim() !== "") return false;
	result.diagnostics.push({
		type: "error",
		message: `Option ${option} got an empty value (an unset shell variable?): give ${what}, or leave ${option} out.`,
	});
	return true;
}

/**
 * Two options that ask for different modes (`--rpc --json`) are refused: the last one won silently,
 * and `--rpc --json` sent the RPC commands piped on stdin to the model as a prompt. Only `--mode`
 * repeated keeps pi's rule (the last one wins): `--json`, `--rpc` and `-i` are Settle's own.
 */
function checkModeChoices(result: ParsedArgs, choices: readonly { option: string; mode: CliMode }[]): void {
	if (new Set(choices.map((choice) => choice.mode)).size < 2) return;
	if (choices.every((choice) => choice.option.startsWith("--mode "))) return;
	const options = [...new Set(choices.map((choice) => choice.option))];
	// No mode is chosen, so stdout belongs to none of them: the refusal goes to stderr only.
	delete result.mode;
	result.diagnostics.push({
		type: "error",
		message: `${options.join(" and ")} ask for different modes: give one (--json, --rpc, -i or --mode <text|json|rpc|interactive>).`,
	});
}

function applyValueOption(result: ParsedArgs, option: string, value: string): void {
	switch (option) {
		case "--mode":
			if (value === "text" || value === "json" || value === "rpc" || value === "interactive") result.mode = value;
			else
				result.diagnostics.push({
					type: "error",
					message: `Invalid mode "${value}". Valid values: text, json, rpc, interactive`,
				});
			return;
		case "--model":
			result.model = value;
			return;
		case "--models":
			// As pi: split on commas, each pattern trimmed (empty ones kept: they match nothing).
			result.models = value.split(",").map((pattern) => pattern.trim());
			return;
		case "--provider":
			result.provider = value;
			return;
		case "--api-key":
			result.apiKey = value;
			return;
		case "--fork":
			if (refuseEmptyPath(result, option, value, "the session to fork (a file or id)")) return;
			result.fork = value;
			return;
		case "--thinking":
			if ((THINKING_LEVELS as readonly string[]).includes(value)) result.thinking = value as ThinkingLevel;
			else {
				result.diagnostics.push({
					type: "error",
					message: `Invalid thinking level "${value}". Valid values: ${THINKING_LEVELS.join(", ")}`,
				});
			}
			return;
		case "--cwd":
			if (refuseEmptyPath(result, option, value, "the project's directory")) return;
			result.cwd = value;
			return;
		case "--agent-dir":
			if (refuseEmptyPath(result, option, value, "the global folder")) return;
			result.agentDir = value;
			return;
		case "--session":
			// pi matches an empty id prefix against every session and resumes the newest (pi#9733).
			if (refuseEmptyPath(result, option, value, "a session file or id")) return;
			result.session = value;
			return;
		case "--session-dir":
			// Empty, it fell back to the default folder without a word.
			if (refuseEmptyPath(result, option, value, "the folder to keep sessions in")) return;
			result.sessionDir = value;
			return;
		case "--tools":
		case "-t":
			result.tools = value
				.split(",")
				.map((name) => name.trim())
				.filter((name) => name.length > 0);
			return;
		case "--faux-script":
			if (refuseEmptyPath(result, option, value, "the script's JSON file")) return;
			result.faux = true;
			result.fauxScript = value;
			return;
		case "--extension":
		case "-e":
			result.extensions.push(value);
			return;
		case "--trace":
			result.trace = value;
			return;
		case "--inspect-port":
			result.inspect = true;
			if (/^\d{1,5}$/.test(value) && Number(value) <= 65_535) result.inspectPort = Number(value);
			else {
				result.diagnostics.push({
					type: "error",
					message: `Invalid --inspect-port "${value}": give a port number from 0 to 65535 (0 picks a free port).`,
				});
			}
			return;
		case "--export":
			result.export = value;
			return;
		case "--system-prompt":
			result.systemPrompt = value;
			return;
		case "--append-system-prompt":
			result.appendSystemPrompt.push(value);
			return;
		case "--skill":
			result.skills.push(value);
			return;
		case "--prompt-template":
			result.promptTemplates.push(value);
			return;
		case "--theme":
			result.themes.push(value);
			return;
		case "-o":
		case "--output":
			result.traceOutput = value;
			return;
	}
}

/** pi's rule: `--name=value`, `--name value` (when value starts with neither `-` nor `@`), else `--name` = true. */
function collectUnknownFlag(result: ParsedArgs, argv: readonly string[], index: number, arg: string): boolean {
	const equals = arg.indexOf("=");
	const messageIndex = result.messages.length;
	if (equals !== -1) {
		result.unknownFlags.push({
			name: arg.slice(2, equals),
			value: arg.slice(equals + 1),
			valueWasNextArg: false,
			messageIndex,
		});
		return false;
	}
	const next = argv[index + 1];
	if (next !== undefined && !next.startsWith("-") && !next.startsWith("@")) {
		result.unknownFlags.push({ name: arg.slice(2), value: next, valueWasNextArg: true, messageIndex });
		return true;
	}
	result.unknownFlags.push({ name: arg.slice(2), value: true, valueWasNextArg: false, messageIndex });
	return false;
}

function checkCombinations(result: ParsedArgs): void {
	const sessionChoices = [result.session !== undefined, result.continue, result.resume, result.noSession].filter(
		Boolean,
	).length;
	if (sessionChoices > 1) {
		result.diagnostics.push({
			type: "error",
			message: "Use only one of --session <file>, --continue, --resume and --no-session.",
		});
	}
	if (result.tools && result.noTools) {
		result.diagnostics.push({ type: "error", message: "Use either --tools <names> or --no-tools, not both." });
	}
	// With --export the first message is the output path (pi), not a prompt.
	if (result.mode === "rpc" && result.messages.length > 0 && result.export === undefined) {
		result.diagnostics.push({
			type: "error",
			message:
				'--rpc reads commands from stdin; send prompts as {"type":"prompt","message":…} lines instead of arguments.',
		});
	}
	if (result.mode === "interactive" && result.print) {
		result.diagnostics.push({
			type: "error",
			message: "Use either -i/--interactive (a chat) or -p/--print (run the prompts and exit), not both.",
		});
	}
	if (result.mode === "rpc" && result.fileArgs.length > 0) {
		result.diagnostics.push({ type: "error", message: "@file arguments are not supported in RPC mode" });
	}
	checkTraceOptions(result);
}

function checkTraceOptions(result: ParsedArgs): void {
	// A command, --list-models and --export run no prompt: nothing would be recorded or served.
	const noRun = result.command !== undefined || result.listModels !== undefined || result.export !== undefined;
	if (result.trace !== undefined && noRun) {
		result.diagnostics.push({
			type: "error",
			message:
				"--trace records a prompt run: use it with -p, --json or --rpc (settle trace <file> renders a saved trace).",
		});
	}
	if (result.inspect && noRun) {
		result.diagnostics.push({
			type: "error",
			message: "--inspect watches a prompt run live: use it with -p, --json, --rpc or -i.",
		});
	}
}

/**
 * The project directory a command line names: `--cwd` (else the current directory) resolved through
 * symlinks, as `cd <dir>` and `process.cwd()` name it. The session folder, trust and the project's
 * files are keyed by it, so `settle --cwd <link>` and `cd <link> && settle` are one project
 * (oh-my-pi#941: a project reached through a symlink lost its sessions). A path that does not exist
 * stays as given (the host refuses it).
 */
export function projectDirectory(args: Pick<ParsedArgs, "cwd">): string {
	const path = resolve(args.cwd ?? process.cwd());
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** The extension flag values to validate, as `createAgentSessionServices` takes them. */
export function extensionFlagValues(unknownFlags: readonly UnknownFlag[]): Map<string, string | boolean> {
	return new Map(unknownFlags.map((flag) => [flag.name, flag.value]));
}

/**
 * Gives back the arguments boolean extension flags swallowed (`--plan "do it"`: pi would lose
 * "do it"; it is a message). Returns the messages in command-line order.
 */
export function reclaimMessages(
	messages: readonly string[],
	unknownFlags: readonly UnknownFlag[],
	flagType: (name: string) => "boolean" | "string" | undefined,
): string[] {
	const result = [...messages];
	let inserted = 0;
	for (const flag of unknownFlags) {
		if (!flag.valueWasNextArg || typeof flag.value !== "string" || flagType(flag.name) !== "boolean") continue;
		result.splice(flag.messageIndex + inserted, 0, flag.value);
		inserted++;
	}
	return result;
}
