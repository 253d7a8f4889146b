/**
 * The built-in slash commands of `settle -i` (`/help`, `/new`, `/resume`, `/fork`, `/clone`,
 * `/tree`, `/label`, `/compact`, `/model`, `/thinking`, `/session`, `/name`, `/reload`, `/copy`,
 * `/export`, `/import`, `/hotkeys`, `/followup`, `/quit`). Each reports what it did in one or a few lines, and a failure
 * as one `Error: …` line (the REPL goes on).
 *
 * Left out of pi's, as they need its full-screen UI or a service Settle does not have: `/settings`
 * and `/scoped-models` (selectors; settings.json and /model instead), `/login` and `/logout`
 * (Settle uses API keys, not OAuth), `/changelog` (Settle ships none), `/share` (uploads the HTML
 * export as a gist; typed, it points to `/export`, which writes it locally).
 */
import { existsSync } from "node:fs";
import { extname, resolve } from "node:path";
import { SettleError } from "../errors.js";
import type { ExtensionUIContext, SlashCommandInfo } from "../extensions/types.js";
import type { ThinkingLevel } from "../llm/types.js";
import type { SwitchedOffSkill } from "../resources/skills.js";
import { MissingSessionCwdError } from "../runtime/errors.js";
import { exactModelMatch } from "../runtime/model-scope.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import { userMessageText } from "../runtime/targets.js";
import { formatCacheWarmingStatus } from "../session/cache-warmer.js";
import { modelRegistryView } from "../session/model-registry-view.js";
import type { SessionInfo } from "../store/entries.js";
import { getDefaultSessionDirPath } from "../store/paths.js";
import { THINKING_LEVELS } from "./args.js";
import { graphemeSegmenter } from "./graphemes.js";
import { reloadedResourceWarnings } from "./host.js";
import { clip, firstLine, oneLineText, takesEscapes } from "./interactive-render.js";
import { cloneCommand, labelCommand, treeCommand, treeOnlyPrints } from "./interactive-tree-commands.js";
import { type LinkNamedSessionFolder, newerSessionFormatForCli, skippedLineWarnings } from "./session-lookup.js";
import {
	ALL_SESSIONS,
	describeSession,
	findProjectSession,
	inLinkFolder,
	listAllSessions,
	listProjectSessions,
	MORE_SESSIONS,
	type ProjectSessionFolders,
	sessionLockedInChat,
} from "./session-picker.js";

/** What a built-in command can do to the REPL around it. */
export interface CommandHost {
	runtime: AgentSessionRuntime;
	/** Prints a line. */
	print(line: string): void;
	/** Prints a dimmed line. */
	notice(line: string): void;
	/** Prints a warning line. */
	warn(line: string): void;
	/** Whether a run (or another operation) is going on. */
	busy(): boolean;
	/** Queues `text` as a follow-up of the running operation (or runs it when idle). */
	followUp(text: string): Promise<void>;
	/** Ends the REPL once the session settled. */
	quit(): void;
	/** Puts text on the input line to edit (a terminal only). */
	prefill(text: string): void;
	/** Questions the next typed line answers (as extension dialogs). */
	ui: Pick<ExtensionUIContext, "select" | "input" | "confirm">;
	/** Writes control sequences to the terminal (OSC 52); undefined when stdout is not a terminal. */
	writeTerminal: ((sequence: string) => void) | undefined;
	/** Sessions saved under the `--cwd` link path (oh-my-pi#941): this project's too. */
	linkFolder?: LinkNamedSessionFolder;
}

/** A built-in command. */
export interface BuiltinCommand {
	name: string;
	/** Shown in /help: `/name <args>`. */
	usage: string;
	description: string;
	/**
	 * Allowed while a run streams (the others say to wait or press Ctrl+C); a function when it
	 * depends on the arguments (`/tree` prints at once but navigates only when idle).
	 */
	whileBusy: boolean | ((args: string) => boolean);
	run(host: CommandHost, args: string): Promise<void> | void;
}

/** The built-in commands, in /help order. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
	{
		name: "help",
		usage: "/help",
		description: "List the commands",
		whileBusy: true,
		run: (host) => help(host),
	},
	{
		name: "new",
		usage: "/new",
		description: "Start a new session",
		whileBusy: false,
		async run(host) {
			const { cancelled } = await host.runtime.newSession();
			if (cancelled) host.print("New session cancelled by an extension.");
			else host.print(`New session ${host.runtime.session.sessionId}: ${sessionLocation(host.runtime)}`);
		},
	},
	{
		name: "resume",
		usage: "/resume [id-prefix|path|all|more]",
		description:
			"Resume a session of this project (no argument: list them, newest first; all: every project's; more: the next 20 listed)",
		whileBusy: false,
		run: (host, args) => resume(host, args),
	},
	{
		name: "fork",
		usage: "/fork [entry-id]",
		description: "Branch into a new session before your last message (or at an entry)",
		whileBusy: false,
		run: (host, args) => fork(host, args),
	},
	{
		name: "clone",
		usage: "/clone",
		description: "Copy the current branch into a new session and switch to it",
		whileBusy: false,
		run: (host) => cloneCommand(host),
	},
	{
		name: "tree",
		usage: "/tree [all|entry-id]",
		description: "Show the session tree (all: every entry), or go to an entry",
		whileBusy: treeOnlyPrints,
		run: (host, args) => treeCommand(host, args),
	},
	{
		name: "label",
		usage: "/label [entry-id [text]]",
		description: "Label an entry of the tree (no text clears it; no argument lists the labels)",
		whileBusy: (args) => args === "",
		run: (host, args) => labelCommand(host, args),
	},
	{
		name: "compact",
		usage: "/compact [instructions]",
		description: "Summarize the conversation to free context",
		whileBusy: false,
		async run(host, args) {
			// The compaction_start / compaction_end events print the progress and the result.
			await host.runtime.session.compact(args || undefined);
		},
	},
	{
		name: "model",
		usage: "/model [provider/id]",
		description: "Show the model and the available ones, or switch",
		whileBusy: false,
		run: (host, args) => model(host, args),
	},
	{
		name: "thinking",
		usage: "/thinking [level]",
		description: `Show or set the thinking level (${THINKING_LEVELS.join(", ")})`,
		whileBusy: true,
		run: (host, args) => thinking(host, args),
	},
	{
		name: "session",
		usage: "/session",
		description: "Show the session: file, id, messages, tokens, cost",
		whileBusy: true,
		run: (host) => sessionInfo(host),
	},
	{
		name: "name",
		usage: "/name <text>",
		description: "Name the session",
		whileBusy: true,
		run(host, args) {
			const name = args.trim();
			if (!name) {
				const current = host.runtime.session.sessionName;
				host.print(current ? `Session name: ${oneLineText(current)}` : "The session has no name. Usage: /name <text>");
				return;
			}
			host.runtime.session.setSessionName(name);
			// A new session's file is written with its first message (pi's rule): said, so a name given
			// before one is not thought saved by a user who then quits. Not while the first message's run
			// has started: its message is on its way to the file, and quitting waits for it.
			const session = host.runtime.session;
			const file = session.sessionFile;
			const unsaved = file !== undefined && !existsSync(file) && !session.isStreaming;
			host.print(
				`Session name: ${name}${unsaved ? " (saved with the first message; quitting before one keeps no session)" : ""}`,
			);
		},
	},
	{
		name: "export",
		usage: "/export [file.html|file.jsonl]",
		description: "Write the session as one HTML page (or the current branch as JSONL)",
		whileBusy: true,
		run: (host, args) => exportSession(host, args),
	},
	{
		name: "import",
		usage: "/import <file.jsonl>",
		description: "Replace the current session with a copy of a session file",
		whileBusy: false,
		run: (host, args) => importSession(host, args),
	},
	{
		name: "reload",
		usage: "/reload",
		description: "Reload extensions, skills, prompt templates and context files",
		whileBusy: false,
		run: (host) => reload(host),
	},
	{
		name: "copy",
		usage: "/copy",
		description: "Copy the last answer to the clipboard (through the terminal)",
		whileBusy: true,
		run: (host) => copy(host),
	},
	{
		name: "hotkeys",
		usage: "/hotkeys",
		description: "List the keys of the input line",
		whileBusy: true,
		run: (host) => hotkeys(host),
	},
	{
		name: "followup",
		usage: "/followup <text>",
		description: "Queue a message for when the current run ends",
		whileBusy: true,
		async run(host, args) {
			if (!args.trim()) throw new SettleError("INVALID_ARGUMENT", "Usage: /followup <text>");
			await host.followUp(args);
		},
	},
	{
		name: "quit",
		usage: "/quit, /exit",
		description: "Exit (after the running work settles)",
		whileBusy: true,
		run: (host) => host.quit(),
	},
];

const BY_NAME = new Map(BUILTIN_COMMANDS.map((command) => [command.name, command]));
BY_NAME.set("exit", BY_NAME.get("quit")!);

/**
 * A `/name args` line split, or undefined when the line is not a command (no leading slash, or a
 * path such as `/usr/bin/env is odd`).
 *
 * @example
 * ```ts
 * parseSlashCommand("/model faux/faux-1"); // { name: "model", args: "faux/faux-1" }
 * ```
 */
export function parseSlashCommand(line: string): { name: string; args: string } | undefined {
	const match = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
	if (!match) return undefined;
	return { name: match[1]!, args: (match[2] ?? "").trim() };
}

/** The built-in command called `name` (`exit` is `quit`). */
export function findBuiltin(name: string): BuiltinCommand | undefined {
	return BY_NAME.get(name);
}

/**
 * The commands of extensions, prompt templates and skills that carry a built-in's name: typed in
 * `settle -i`, the built-in runs, so they cannot run there (`-p` and `--rpc` run them). pi warns
 * about such extension commands at start-up and keeps them out of its autocomplete (pi#1196).
 *
 * @example
 * ```ts
 * for (const command of shadowedCommands(session.getCommands())) console.warn(shadowedCommandWarning(command));
 * ```
 */
export function shadowedCommands(commands: readonly SlashCommandInfo[]): SlashCommandInfo[] {
	return commands.filter((command) => BY_NAME.has(command.name));
}

/** The start-up warning for a command {@link shadowedCommands} found; says what to do. */
export function shadowedCommandWarning(command: SlashCommandInfo): string {
	const kind =
		command.source === "extension" ? "extension command" : command.source === "prompt" ? "prompt template" : "skill";
	return `The ${kind} /${command.name} (${command.sourceInfo.path}) has the name of a built-in command: /${command.name} here runs the built-in. Rename it to use it in settle -i (-p and --rpc run it).`;
}

/** Whether `command` may run with `args` while a run streams. */
export function runsWhileBusy(command: BuiltinCommand, args: string): boolean {
	return typeof command.whileBusy === "function" ? command.whileBusy(args) : command.whileBusy;
}

function help(host: CommandHost): void {
	const width = Math.max(...BUILTIN_COMMANDS.map((command) => command.usage.length)) + 2;
	host.print("Commands:");
	for (const command of BUILTIN_COMMANDS) host.print(`  ${command.usage.padEnd(width)}${command.description}`);
	// A command under a built-in's name cannot be typed here (a start-up warning says so).
	const session = host.runtime.session;
	// As pi's completion list: `enableSkillCommands: false` leaves the skills out (typed, they still run).
	const skillCommands = session.settingsManager.getEnableSkillCommands();
	const others = session
		.getCommands()
		.filter((command) => !BY_NAME.has(command.name) && (skillCommands || command.source !== "skill"));
	if (others.length > 0) {
		host.print("From extensions, prompt templates and skills:");
		for (const command of others) {
			const usage = command.argumentHint ? `/${command.name} ${command.argumentHint}` : `/${command.name}`;
			host.print(
				`  ${usage.length < width ? usage.padEnd(width) : `${usage}  `}${command.description ? clip(command.description, 80) : `(${command.source})`}`,
			);
		}
	}
	if (!skillCommands && session.resourceLoader.getSkills().skills.length > 0) {
		host.print(
			"Skill commands are not listed: enableSkillCommands is false in settings. /skill:<name> still runs a loaded skill.",
		);
	}
	host.print(
		"Keys: Enter sends (while a run streams: steers it; Alt+Enter queues a follow-up), Shift+Tab picks the next thinking level, Ctrl+C or Esc aborts the run, Ctrl+C twice or Ctrl+D exits.",
	);
	host.print("Shell: !command runs it and adds its output to the context; !!command keeps the output out of it.");
}

/** Where the session is kept: its file, or "in memory". */
export function sessionLocation(runtime: AgentSessionRuntime): string {
	return runtime.session.sessionFile ?? "in memory";
}

/**
 * The files shaping the system prompt, for the banner and `/session`: the context files, and a
 * `SYSTEM.md` / `APPEND_SYSTEM.md` (or a file a flag named) when one was read (pi#7096: a
 * `SYSTEM.md` replaced the whole prompt and nothing on screen said so).
 */
export function promptFileLines(runtime: AgentSessionRuntime): string[] {
	const loader = runtime.session.resourceLoader;
	const context = loader.getAgentsFiles().agentsFiles.map((file) => file.path);
	const { system, append } = loader.getSystemPromptFiles?.() ?? { append: [] };
	return [
		`  context files: ${context.length > 0 ? context.join(", ") : "none"}`,
		...(system ? [`  system prompt: ${system} (replaces the base prompt)`] : []),
		...(append.length > 0 ? [`  appended to the system prompt: ${append.join(", ")}`] : []),
	];
}

/** Where this project's sessions are: its session folder, and the link-named one (oh-my-pi#941). */
function projectSessionFolders(host: CommandHost): ProjectSessionFolders {
	const { runtime } = host;
	const { agentDir } = runtime.services;
	// While the session is the start-up project's, the link-named folder's sessions are its too; the
	// project's own folder stays the real path's, also while such a session (kept in its file) is open.
	const linkFolder = host.linkFolder?.project === resolve(runtime.cwd) ? host.linkFolder : undefined;
	const current = runtime.session.sessionManager.getSessionDir();
	const sessionDir =
		linkFolder && resolve(current) === linkFolder.sessionDir
			? getDefaultSessionDirPath(linkFolder.project, agentDir)
			: current;
	return { cwd: runtime.cwd, agentDir, sessionDir, ...(linkFolder ? { linkFolder } : {}) };
}

/**
 * Each chat's last `/resume` list (every project's or this one's) and how much of it was shown:
 * `/resume more` goes on. `found` false: that list was empty, so there is nothing more (not the list before it).
 */
const resumeListed = new WeakMap<CommandHost, { all: boolean; shown: number; found: boolean }>();

/**
 * Prints `sessions` from `from` on, 20 of them (every project's: each with its cwd and file), then
 * how many older ones `/resume more` lists (claude-code#87392: else past 20 only an unknown id reached them).
 */
function printResumePage(host: CommandHost, sessions: readonly SessionInfo[], from: number, all: boolean): void {
	const current = host.runtime.session.sessionFile;
	const page = sessions.slice(from, from + 20);
	for (const info of page) {
		host.print(`  ${describeSession(info, current)}`);
		if (all) host.print(`    in ${info.cwd || "(no cwd)"}: ${info.path}`);
	}
	resumeListed.set(host, { all, shown: from + page.length, found: true });
	const rest = sessions.length - from - page.length;
	if (rest > 0) host.notice(`  … and ${rest} older: /resume ${MORE_SESSIONS} lists the next ${Math.min(rest, 20)}`);
}

async function resume(host: CommandHost, args: string): Promise<void> {
	if (args.trim().toLowerCase() === MORE_SESSIONS) {
		const last = resumeListed.get(host) ?? { all: false, shown: 0, found: true };
		if (!last.found) {
			host.print(
				`Nothing more to list: /resume${last.all ? ` ${ALL_SESSIONS}` : ""} found no saved sessions. Give it again to list them anew.`,
			);
			return;
		}
		const folders = projectSessionFolders(host);
		const sessions = last.all ? await listAllSessions(folders) : await listProjectSessions(folders, host);
		if (sessions.length === 0) return;
		if (last.shown >= sessions.length) host.print("No older sessions: all are listed above.");
		else printResumePage(host, sessions, last.shown, last.all);
		return;
	}
	if (args.trim().toLowerCase() === ALL_SESSIONS) {
		// Every project's (pi's picker: Tab), each with its cwd and the file /resume takes.
		const sessions = await listAllSessions(projectSessionFolders(host));
		if (sessions.length === 0) {
			resumeListed.set(host, { all: true, shown: 0, found: false });
			host.print("No saved sessions in any project.");
			return;
		}
		host.print("Sessions of every project, newest first (/resume <file>):");
		printResumePage(host, sessions, 0, true);
		return;
	}
	if (!args) {
		const folders = projectSessionFolders(host);
		const sessions = await listProjectSessions(folders, host);
		if (sessions.length === 0) {
			resumeListed.set(host, { all: false, shown: 0, found: false });
			const others = (await listAllSessions(folders)).length;
			if (others > 0)
				host.print(
					`Other projects have ${others} saved session${others === 1 ? "" : "s"}: /resume ${ALL_SESSIONS} lists them.`,
				);
			return;
		}
		host.print(
			`Sessions of this project, newest first (/resume <id-prefix>, /resume ${ALL_SESSIONS} for every project's):`,
		);
		printResumePage(host, sessions, 0, false);
		return;
	}
	await resumeSession(host, args);
}

/**
 * A `SESSION_LOCKED` refusal to open a session, or one of a newer format version (pi#9426), thrown
 * again in the chat's terms; any other error returns.
 */
function rethrowInChatTerms(error: unknown, outcome: string): void {
	const locked = sessionLockedInChat(error, outcome, "This chat goes on in its own session.");
	if (locked) throw new SettleError("SESSION_LOCKED", locked, { details: (error as SettleError).details });
	const newer = newerSessionFormatForCli(error);
	if (newer) throw new SettleError("INVALID_SESSION_FILE", newer, { details: (error as SettleError).details });
}

/** Resumes the session `args` names: a file path, or an id prefix of this project's sessions. */
async function resumeSession(host: CommandHost, args: string): Promise<void> {
	const { runtime } = host;
	const folders = projectSessionFolders(host);
	// A quoted path (`/resume "my dir/s.jsonl"`, as /import and /export take one) is the path inside
	// the quotes; unquoted, the whole argument is (its spaces too).
	const reference = /^\s*["']/.test(args) ? (pathArgument(args) ?? "") : args.trim();
	if (!reference) throw new SettleError("INVALID_ARGUMENT", "Usage: /resume [id-prefix|path|all|more]");
	const path = await findProjectSession(folders, reference);
	// A link-named folder's session is resumed as this project's (its header names the link path), and
	// sessions started from it (/new, /fork) go to the project's own folder, as with -c.
	const { linkFolder } = folders;
	const options =
		linkFolder && inLinkFolder(folders, path)
			? {
					cwdOverride: linkFolder.project,
					sessionDir: getDefaultSessionDirPath(linkFolder.project, runtime.services.agentDir),
				}
			: {};
	let cancelled: boolean;
	let movedFrom: string | undefined;
	try {
		({ cancelled } = await runtime.switchSession(path, options));
	} catch (error) {
		rethrowInChatTerms(error, "so it was not resumed");
		// A removed worktree or a moved project (claude-code#28314): as pi does, ask to go on here.
		if (!(error instanceof MissingSessionCwdError)) throw error;
		const here = error.fallbackCwd;
		const question = `its folder ${error.sessionCwd} no longer exists. Continue it in ${here}?`;
		if (!(await host.ui.confirm("Resume session", question))) {
			host.print("Resume cancelled.");
			return;
		}
		movedFrom = error.sessionCwd;
		({ cancelled } = await runtime.switchSession(path, { ...options, cwdOverride: here }));
	}
	if (cancelled) {
		host.print("Resume cancelled by an extension.");
		return;
	}
	const where = movedFrom === undefined ? "" : ` in ${runtime.cwd} (its folder ${movedFrom} is gone)`;
	host.print(`Resumed ${runtime.session.sessionId} (${conversationLength(runtime)} messages)${where}: ${path}`);
	warnSkippedLines(host);
	printRecap(host);
}

/** Messages of the conversation in the context (the system prompt's record is not one). */
export function conversationLength(runtime: AgentSessionRuntime): number {
	return runtime.session.messages.filter((message) => message.role !== "system").length;
}

/** The last exchange of a resumed session, so the user sees where it stands. */
export function printRecap(host: Pick<CommandHost, "runtime" | "notice">): void {
	const messages = host.runtime.session.messages;
	let user: string | undefined;
	for (let index = messages.length - 1; index >= 0 && user === undefined; index--) {
		const message = messages[index]!;
		if (message.role === "user") user = userMessageText(message.content as never);
	}
	const answer = host.runtime.session.getLastAssistantText();
	if (user !== undefined) host.notice(`  last message: ${firstLine(user)}`);
	if (answer !== undefined) host.notice(`  last answer: ${firstLine(answer)}`);
}

async function fork(host: CommandHost, args: string): Promise<void> {
	const { runtime } = host;
	const manager = runtime.session.sessionManager;
	let entryId: string;
	let position: "before" | "at" = "before";
	if (!args) {
		const branch = manager.getBranch();
		const lastUser = branch.findLast((entry) => entry.type === "message" && entry.message.role === "user");
		if (!lastUser)
			throw new SettleError("INVALID_ARGUMENT", "Nothing to fork: the session has no message of yours yet.");
		entryId = lastUser.id;
	} else {
		const matches = manager.getEntries().filter((entry) => entry.id.startsWith(args));
		if (matches.length !== 1) {
			throw new SettleError(
				matches.length === 0 ? "NOT_FOUND" : "INVALID_ARGUMENT",
				matches.length === 0
					? `No entry of this session has an id starting with ${args}.`
					: `${matches.length} entries have an id starting with ${args}: give more of the id.`,
			);
		}
		const entry = matches[0]!;
		entryId = entry.id;
		if (!(entry.type === "message" && entry.message.role === "user")) position = "at";
	}
	const result = await runtime.fork(entryId, { position });
	if (result.cancelled) {
		host.print("Fork cancelled by an extension.");
		return;
	}
	const where = sessionLocation(runtime);
	if (position === "before") {
		const text = result.selectedText ?? "";
		host.print(`Forked into a new session (${where}), just before your message: ${firstLine(text)}`);
		host.notice("Send it again, edited, or type another one.");
		host.prefill(text);
	} else {
		host.print(`Forked into a new session (${where}) at entry ${entryId}.`);
	}
}

function model(host: CommandHost, args: string): Promise<void> | void {
	const { runtime } = host;
	const session = runtime.session;
	// As pi's /model (pi#6999): models.json is read again, so a provider or model added meanwhile is there.
	const registry = modelRegistryView(runtime.services.modelRuntime);
	registry.refresh?.();
	// As pi's model selector: a models.json that did not read is said, not left to look like missing models.
	const modelsFileError = registry.getError?.();
	if (modelsFileError) host.warn(modelsFileError);
	// As pi: with a model scope (--models, the enabledModels setting), /model chooses among its models.
	const scoped = session.scopedModels.map((entry) => entry.model);
	const available = scoped.length > 0 ? scoped : runtime.services.modelRuntime.getAvailable();
	const name = (m: { provider: string; id: string }) => `${m.provider}/${m.id}`;
	if (!args) {
		host.print(`Model: ${session.model ? name(session.model) : "(none)"}`);
		if (session.modelUnavailable) host.warn(session.modelUnavailable);
		if (available.length === 0) {
			host.print("No models available: set a provider's API key (see settle --help).");
			return;
		}
		host.print(scoped.length > 0 ? "In the model scope (/model <provider/id>):" : "Available (/model <provider/id>):");
		for (const candidate of available) {
			const current = session.model && name(candidate) === name(session.model) ? "* " : "  ";
			host.print(`${current}${name(candidate)}${candidate.reasoning ? "  (thinking)" : ""}`);
		}
		return;
	}
	// As pi's /model <ref>: provider/id or a bare id, which may hold a slash itself (openclaw#44498),
	// case-insensitively. A bare id several providers serve is the settings' defaultProvider's, as
	// for --model and the SDK (pi#1419).
	const match = exactModelMatch(args, available, session.settingsManager.getDefaultProvider());
	if (!match) {
		const several = available.filter((candidate) => candidate.id.toLowerCase() === args.toLowerCase()).length > 1;
		const hint = several ? "several providers serve it: give provider/id" : "/model lists the models";
		throw new SettleError("NOT_FOUND", `Model ${args} not found (${hint}).`);
	}
	return session.setModel(match).then(() => {
		host.print(`Model: ${name(match)}, thinking ${session.thinkingLevel}`);
	});
}

function thinking(host: CommandHost, args: string): void {
	const session = host.runtime.session;
	const levels = session.getAvailableThinkingLevels();
	if (!args) {
		host.print(`Thinking: ${session.thinkingLevel} (this model supports: ${levels.join(", ")})`);
		return;
	}
	if (!(THINKING_LEVELS as readonly string[]).includes(args)) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`Invalid thinking level "${args}". Valid values: ${THINKING_LEVELS.join(", ")}`,
		);
	}
	session.setThinkingLevel(args as ThinkingLevel);
	const effective = session.thinkingLevel;
	host.print(
		effective === args ? `Thinking: ${effective}` : `Thinking: ${effective} (the model supports: ${levels.join(", ")})`,
	);
}

/**
 * `tokens` of `window` with one decimal, rounded half up on the exact ratio, as a user reads it:
 * `toFixed` rounds the binary float, so 41,050 of 100,000 (41.04999…) showed as 41.0%.
 */
function percentOf(tokens: number, window: number): string {
	const tenths = Math.floor((tokens * 2000 + window) / (2 * window));
	return `${Math.floor(tenths / 10)}.${tenths % 10}%`;
}

/**
 * Dollars to four decimals; a cost above zero that would round to `$0.0000` reads `<$0.0001`, so a
 * cheap model's spending is not shown as an unpriced model's zero (makenotion/lore#828).
 */
function dollars(cost: number): string {
	return cost > 0 && cost < 0.00005 ? "<$0.0001" : `$${cost.toFixed(4)}`;
}

function sessionInfo(host: CommandHost): void {
	const session = host.runtime.session;
	const stats = session.getSessionStats();
	host.print(`Session ${session.sessionId}${session.sessionName ? ` "${oneLineText(session.sessionName)}"` : ""}`);
	host.print(`  file: ${sessionLocation(host.runtime)}`);
	// The fork link is in the header, so a resumed fork still names its parent (codex#9330).
	const parent = session.sessionManager.getHeader()?.parentSession;
	if (parent) host.print(`  forked from: ${parent}`);
	host.print(`  cwd: ${host.runtime.cwd}`);
	for (const line of promptFileLines(host.runtime)) host.print(line);
	// The numbers of RPC `get_session_stats`; "other": system prompt records, summaries, custom and bash messages.
	const other = stats.totalMessages - stats.userMessages - stats.assistantMessages - stats.toolResults;
	host.print(
		`  messages: ${stats.totalMessages} in context (${stats.userMessages} yours, ${stats.assistantMessages} answers, ${stats.toolResults} tool results, ${other} other; ${stats.toolCalls} tool calls)`,
	);
	const { tokens } = stats;
	host.print(
		`  tokens: ${tokens.total} (input ${tokens.input}, output ${tokens.output}, cache read ${tokens.cacheRead}, cache write ${tokens.cacheWrite}), cost ${dollars(stats.cost)}`,
	);
	// Money spent never goes down: every model call in the file, compacted and abandoned turns too (gsd-2#1423).
	const spent = stats.cumulative;
	host.print(`  spent: ${dollars(spent.cost)} (${spent.tokens.total} tokens) in this session file, all branches`);
	// pi 1.6's breakdown: one group only repeats the total, unless it is not the current model.
	const current = session.model ? `${session.model.provider}/${session.model.id}` : undefined;
	if (stats.byModel.length > 1 || (stats.byModel.length === 1 && stats.byModel[0]!.key !== current)) {
		host.print("  by model:");
		for (const group of stats.byModel) {
			host.print(`    ${group.key}: ${dollars(group.cost)} (${group.tokens.total} tokens)`);
		}
	}
	const usage = stats.contextUsage;
	if (usage) {
		const percent =
			usage.percent === null || usage.tokens === null ? "unknown" : percentOf(usage.tokens, usage.contextWindow);
		host.print(`  context: ${usage.tokens ?? "?"} of ${usage.contextWindow} tokens (${percent})`);
	}
	const model = session.model;
	// A virtual selection: where its last answer was routed (pi's footer shows the route).
	const routed = session.routedModel;
	const route = routed
		? ` → ${routed.model.provider}/${routed.model.id}${routed.thinkingLevel ? ` (thinking ${routed.thinkingLevel})` : ""}`
		: "";
	host.print(
		`  model: ${model ? `${model.provider}/${model.id}` : "(none)"}${route}, thinking ${session.thinkingLevel}`,
	);
	// pi 1.6's "Cache Warming" block: the mode and the warmer's status line.
	const warming = session.cacheWarmingStatus;
	host.print(
		`  cache warming: ${session.settingsManager.getCacheWarmingMode()}, ${warming ? formatCacheWarmingStatus(warming) : "Inactive (cache warming unavailable)"}`,
	);
}

async function reload(host: CommandHost): Promise<void> {
	const session = host.runtime.session;
	host.notice("Reloading extensions, skills, prompt templates and context files…");
	try {
		await session.reload();
	} catch (error) {
		throw new SettleError(
			error instanceof SettleError ? error.code : "INTERNAL",
			`Reload failed: ${error instanceof Error ? error.message : String(error)}`,
			{ cause: error },
		);
	}
	reportReload(host);
}

/**
 * What a finished reload loaded and what to fix, said after `/reload` and after an extension
 * command's `ctx.reload()` alike (as pi's chat does): the counts, extensions that failed to load,
 * commands a built-in hides, and the resources' warnings.
 */
export function reportReload(host: Pick<CommandHost, "runtime" | "print" | "warn">): void {
	const session = host.runtime.session;
	const loader = session.resourceLoader;
	const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
	host.print(
		`Reloaded: ${count(loader.getExtensions().extensions.length, "extension")}, ${count(loader.getSkills().skills.length, "skill")}, ${count(loader.getPrompts().prompts.length, "prompt template")}, ${count(loader.getAgentsFiles().agentsFiles.length, "context file")}.`,
	);
	for (const failure of session.extensionLoadErrors)
		host.warn(`Extension ${failure.path} failed to load: ${failure.error}`);
	for (const command of shadowedCommands(session.getCommands())) host.warn(shadowedCommandWarning(command));
	for (const warning of reloadedResourceWarnings(session)) host.warn(warning);
}

/**
 * The error for `/<name>` when neither a built-in nor an extension command has that name. pi's
 * `/share` (an upload to a secret GitHub gist, pi#7217) gets what to do instead: Settle uploads
 * nothing. A `/skill:<name>` that differs from loaded `skillNames` only in case names them; one
 * a settings filter switched off (`switchedOff`) names the filter.
 */
export function unknownCommandText(
	name: string,
	skillNames: readonly string[] = [],
	switchedOff: readonly SwitchedOffSkill[] = [],
): string {
	if (name === "share") {
		return "/share is pi's upload of the session page to a secret GitHub gist; Settle uploads nothing. Write the page with /export [file.html] and share that file.";
	}
	// As in pi, `/skill:<name>` matches the name exactly; a user typing `Code` for `code` is told which.
	if (name.startsWith("skill:")) {
		const off = switchedOff.find((skill) => skill.name === name.slice(6));
		if (off) {
			return `/${name} is not loaded: its skill ${off.path} is switched off by ${off.filter}. Change that filter to load it, then /reload.`;
		}
		const typed = name.slice(6).toLowerCase();
		const meant = skillNames.filter((skill) => skill.toLowerCase() === typed).sort();
		if (meant.length > 0) {
			const names = meant.map((skill) => `/skill:${skill}`).join(" or ");
			return `unknown command /${name}. Skill names are case-sensitive: did you mean ${names}?`;
		}
	}
	return `unknown command /${name}. Type /help for the commands.`;
}

/** OSC 52 payloads larger than this are refused by terminals (pi's limit). */
export const OSC52_MAX_ENCODED = 100_000;

function copy(host: CommandHost): void {
	const text = host.runtime.session.getLastAssistantText();
	if (!text) throw new SettleError("NOT_FOUND", "No agent messages to copy yet.");
	if (!host.writeTerminal) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`/copy writes to the clipboard through the terminal (OSC 52), and the output is not a terminal${process.stdout.isTTY && !takesEscapes(process.env) ? " that takes escape sequences (TERM=dumb shows them as text)" : ""}: nothing copied.`,
		);
	}
	const encoded = Buffer.from(text, "utf8").toString("base64");
	if (encoded.length > OSC52_MAX_ENCODED) {
		throw new SettleError(
			"INVALID_ARGUMENT",
			`The last answer is too long for the terminal's clipboard (${encoded.length} base64 characters, at most ${OSC52_MAX_ENCODED}): nothing copied.`,
		);
	}
	host.writeTerminal(`\x1b]52;c;${encoded}\x07`);
	host.print(
		`Copied the last answer to the clipboard (${characterCount(text)} characters; the terminal must allow OSC 52 clipboard writes).`,
	);
}

/** Characters as a reader counts them (grapheme clusters): 👍🏽 and é are one each, not their UTF-16 units. */
function characterCount(text: string): number {
	let count = 0;
	for (const _ of graphemeSegmenter().segment(text)) count++;
	return count;
}

/** node:readline's keys in a terminal (Node's "TTY keybindings"), and the chat's own. */
const HOTKEYS: readonly (readonly [string, string])[] = [
	["Enter", "Send the line (while a run streams: steer it)"],
	["\\ then Enter", "Go on on the next line: one message with a line break (a paste keeps its line breaks too)"],
	["Ctrl+J", "The same line break (so is Shift+Enter where the terminal sends a line feed for it)"],
	["Ctrl+C", "Abort the run; at a question: cancel it; on a typed line: drop it; twice on an empty prompt: exit"],
	["Esc", "Abort the run; at a question: cancel it (the typed line stays)"],
	["Alt+Enter", "While a run streams: queue the line as a follow-up (idle: send it, as Enter)"],
	["Ctrl+D", "Exit (on an empty line, no message's lines held); otherwise delete the character under the cursor"],
	["Up / Down, Ctrl+P / Ctrl+N", "Previous / next line of the history (a resumed session's prompts too)"],
	["Shift+Tab", "Next thinking level the model has, wrapping to off (set when the next line is sent)"],
	["Left / Right, Ctrl+B / Ctrl+F", "Move by character"],
	["Ctrl+Left / Ctrl+Right, Alt+B / Alt+F", "Move by word"],
	["Home / End, Ctrl+A / Ctrl+E", "Start / end of the line"],
	["Ctrl+W, Alt+Backspace", "Delete the word before the cursor"],
	["Alt+D, Ctrl+Delete", "Delete the word after the cursor"],
	["Ctrl+U / Ctrl+K", "Delete to the start / end of the line"],
	["Ctrl+L", "Clear the screen"],
	["Ctrl+Z", "Suspend (fg resumes)"],
];

function hotkeys(host: CommandHost): void {
	const width = Math.max(...HOTKEYS.map(([keys]) => keys.length)) + 2;
	host.print("Keys of the input line (in a terminal):");
	for (const [keys, action] of HOTKEYS) host.print(`  ${keys.padEnd(width)}${action}`);
	host.notice("Extension shortcuts and pi's full-screen keys (model cycling, tool expansion) need pi's UI.");
}

/**
 * pi's `/export [path]`: a `.jsonl` path gets the current branch as JSONL, anything else the HTML
 * page. A new name without an extension gets `.html` (claude-code#46596): a browser opens `foo` as
 * plain text, the page's source, not the conversation.
 */
async function exportSession(host: CommandHost, args: string): Promise<void> {
	const session = host.runtime.session;
	const path = pathArgument(args);
	const written = path?.endsWith(".jsonl") ? session.exportToJsonl(path) : await session.exportToHtml(pagePath(path));
	host.print(`Session exported to: ${resolve(written)}`);
}

/** `path`, or `path.html` for a new file named without an extension (an existing file, folder or device is kept as named). */
function pagePath(path: string | undefined): string | undefined {
	if (path === undefined || extname(path) !== "" || /[/\\]$/.test(path) || existsSync(path)) return path;
	return `${path}.html`;
}

/** pi's `/import <path.jsonl>`: asks first, then copies the file into this project's sessions and switches to it. */
async function importSession(host: CommandHost, args: string): Promise<void> {
	const path = pathArgument(args);
	if (!path) throw new SettleError("INVALID_ARGUMENT", "Usage: /import <path.jsonl>");
	if (!(await host.ui.confirm("Import session", `Replace the current session with ${path}?`))) {
		host.print("Import cancelled.");
		return;
	}
	let cancelled: boolean;
	try {
		({ cancelled } = await host.runtime.importFromJsonl(resolve(path)));
	} catch (error) {
		rethrowInChatTerms(error, "so it was not imported");
		// The file's folder is gone (a removed worktree, claude-code#28314): as pi does, ask to go on here.
		if (!(error instanceof MissingSessionCwdError)) throw error;
		const question = `its folder ${error.sessionCwd} no longer exists. Continue it in ${error.fallbackCwd}?`;
		if (!(await host.ui.confirm("Import session", question))) {
			host.print("Import cancelled.");
			return;
		}
		({ cancelled } = await host.runtime.importFromJsonl(resolve(path), error.fallbackCwd));
	}
	if (cancelled) {
		host.print("Import cancelled by an extension.");
		return;
	}
	host.print(`Imported into a new session (${sessionLocation(host.runtime)}).`);
	warnSkippedLines(host);
}

/**
 * The lines of the session file just opened that were left out (malformed, a torn last line set
 * aside, duplicate ids…), one warning each: the conversation shown lacks them. Migrations and a
 * missing last newline lose nothing and are not reported.
 */
function warnSkippedLines(host: CommandHost): void {
	for (const text of skippedLineWarnings(host.runtime.session.sessionManager)) host.warn(text);
}

/** The first argument, unquoted as pi reads a path (`"my file.html"` keeps its space). */
function pathArgument(args: string): string | undefined {
	const text = args.trim();
	if (!text) return undefined;
	const quote = text[0];
	if (quote === '"' || quote === "'") {
		const end = text.indexOf(quote, 1);
		// pi falls back to no path (the default export name): not the file the user meant.
		if (end < 0)
			throw new SettleError("INVALID_ARGUMENT", `The path ${text} has no closing ${quote}: close the quote.`);
		return text.slice(1, end);
	}
	return text.split(/\s/, 1)[0];
}
