/**
 * `settle` in a terminal (or `settle -i`): a line-oriented chat on node:readline. Each line is a
 * prompt through `session.prompt` (source `interactive`: extension commands, input hooks, skills
 * and prompt templates apply); the answer streams as it comes. While a run streams, a line steers
 * it; `/followup <text>` queues a follow-up. Ctrl+C (or Esc) aborts the run (the chat goes on; in a terminal
 * the undelivered queued lines go back on the input line, as pi's Esc; one the run already took
 * for its turn is named as kept); Ctrl+C twice on an empty
 * prompt, Ctrl+D, `/quit` or `/exit` end it once the session settled. In a terminal one message may
 * span lines: a bracketed paste's, lines ended with `\`, or a typed line feed (Ctrl+J); Up recalls the
 * session's prompts too.
 *
 * Lines are handled one at a time, in the order typed: a prompt once the session accepted it
 * (started, queued or handled), a built-in command once it is done. Extension dialogs take the
 * next line as their answer. When stdout is not a terminal (a pipe), the prompt `> ` is still
 * written and each line read is echoed after it, so a transcript reads like a session.
 */
import { join } from "node:path";
import type { Readable } from "node:stream";
import { SettleError } from "../errors.js";
import { extensionsLoadingNow } from "../extensions/loading-now.js";
import {
	apiKeyEnvHint,
	cloudCredentialsHint,
	GENERIC_API_KEY_ENV_HINT,
	providerOfAuthError,
} from "../llm/provider-env.js";
import type { ImageContent, ThinkingLevel } from "../llm/types.js";
import { skillInvocation, switchedOffSkills } from "../resources/skills.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import { userMessageText } from "../runtime/targets.js";
import type { AgentSession } from "../session/agent-session.js";
import { CLEARED_BEFORE_QUEUED, sharedCommandName } from "../session/texts.js";
import type { ParsedArgs } from "./args.js";
import { ChatInput, HISTORY_SIZE } from "./chat-input.js";
import { sendToCurrentSession } from "./current-session.js";
import { EXIT_FAILURE, EXIT_OK } from "./help.js";
import {
	type CommandHost,
	conversationLength,
	findBuiltin,
	parseSlashCommand,
	printRecap,
	promptFileLines,
	reportReload,
	runsWhileBusy,
	sessionLocation,
	shadowedCommands,
	shadowedCommandWarning,
	unknownCommandText,
} from "./interactive-commands.js";
import {
	asTyped,
	createStyle,
	firstLine,
	outputLineSafe,
	shouldUseColor,
	TranscriptPrinter,
	takesEscapes,
	terminalSafe,
} from "./interactive-render.js";
import { createInteractiveUIContext, type InteractiveEditor, LineQuestions } from "./interactive-ui.js";
import { type CliOutput, extensionErrorLine } from "./print-mode.js";
import type { LinkNamedSessionFolder } from "./session-lookup.js";
import {
	describePendingWork,
	EXIT_SIGHUP,
	EXIT_SIGINT,
	EXIT_SIGPIPE,
	EXIT_SIGTERM,
	processStdout,
	reportCrashesBelow,
	SHUTDOWN_GRACE_MS,
	shutDownThenExit,
	stoppedWhileStartingText,
	termination,
} from "./termination.js";

/** Two Ctrl+C on an empty prompt within this time exit. */
export const DOUBLE_INTERRUPT_MS = 1000;
const PROMPT = "> ";
/** The prompt of a message's next line (after a pasted line break or `\` + Enter). */
const CONTINUATION_PROMPT = ". ";

/** Options of {@link runInteractiveMode}. */
export interface InteractiveModeOptions {
	/** Prompts to run first, one after the other (`settle -i "fix the test"`). */
	messages?: readonly string[];
	/** Attached to the first of `messages` (`@image.png` arguments). */
	images?: readonly ImageContent[];
	/** Where lines come from (default `process.stdin`). */
	input?: Readable;
	/** Line editing, history and Ctrl+C as a key (default: stdin and stdout are terminals). */
	terminal?: boolean;
	/** ANSI colors (default: stdout is a terminal, `NO_COLOR` unset). */
	color?: boolean;
	/** Take over SIGINT, SIGTERM, SIGHUP and a closed stdout (default true; false for an in-process host). */
	handleSignals?: boolean;
	/** Print the start-up banner even with the `quietStartup` setting (pi's `--verbose`). */
	verbose?: boolean;
	/** Sessions saved under the `--cwd` link path (oh-my-pi#941): `/resume` lists and finds them too. */
	linkFolder?: LinkNamedSessionFolder;
	/**
	 * The input, opened before the chat (pi's `--resume` / `-r` asked which session to start on
	 * first): its unread lines are the chat's first. Replaces `input` and `terminal`.
	 */
	lines?: ChatInput;
	/** The session was picked at start-up (`-r`): say so, as `/resume` does. */
	resumedAtStart?: boolean;
	/** Warnings known once the first session's `session_start` / `resources_discover` ran, shown then. */
	warningsAfterStart?: () => string[];
}

/**
 * Whether `settle` without a mode option starts the chat: no prompt, no `@file`, no `-p`, and both
 * stdin and stdout are terminals.
 *
 * @example
 * ```ts
 * startsInteractive({ print: false, messages: [], fileArgs: [] }, { isTTY: false }, { isTTY: true }); // false
 * ```
 */
export function startsInteractive(
	args: Pick<ParsedArgs, "print" | "messages" | "fileArgs">,
	stdin: { isTTY?: boolean } = process.stdin,
	stdout: { isTTY?: boolean } = process.stdout,
): boolean {
	if (args.print || args.messages.length > 0 || args.fileArgs.length > 0) return false;
	return stdin.isTTY === true && stdout.isTTY === true;
}

/**
 * Runs the chat until the user exits (or stdin ends), then waits for the session to settle and
 * returns the exit code (0). The host disposes the runtime afterwards. SIGTERM and SIGHUP end the
 * process as in the other modes (the run aborted, the runtime disposed, exit 143 / 129).
 */
export async function runInteractiveMode(
	runtime: AgentSessionRuntime,
	options: InteractiveModeOptions,
	out: CliOutput,
): Promise<number> {
	// Opened earlier when a question came first (settle -r): the lines it did not take are the chat's.
	const lines =
		options.lines ??
		new ChatInput({
			...(options.input ? { input: options.input } : {}),
			...(options.terminal !== undefined ? { terminal: options.terminal } : {}),
		});
	const { rl, terminal, echoInput } = lines;
	const handedOver = lines.handOver();
	const style = createStyle(options.color ?? shouldUseColor(process.stdout, process.env));
	// A dumb terminal prints escape sequences as text: there the chat writes lines as on a pipe.
	const escapes = terminal && takesEscapes(process.env);

	// --- Output: the prompt and the transcript share one line-tracking writer.
	let promptShown = false;
	let questionShown = false;
	const printer = new TranscriptPrinter(
		(text) => {
			if (promptShown || questionShown) {
				// Something printed while the prompt waits: clear it (a terminal) or end its line (a pipe), show it again after.
				if (escapes) out.stdout("\r\x1b[K");
				else out.stdout("\n");
				const wasQuestion = questionShown;
				promptShown = false;
				questionShown = false;
				out.stdout(text);
				queueMicrotask(() => (wasQuestion ? questions.redisplay() : showPrompt()));
				return;
			}
			out.stdout(text);
		},
		style,
		() => runtime.services.settingsManager.getHideThinkingBlock(),
		() => runtime.session.model,
		() => runtime.services.settingsManager.getRetrySettings(),
		() => runtime.session.getQueuedImageCounts(),
	);

	const questions = new LineQuestions((text) => {
		if (!printer.lineStart) printer.raw("\n");
		if (terminal) {
			// The question stays the prompt (line editing redraws it) until the chat's prompt shows again.
			rl.setPrompt(text);
			rl.prompt(true);
		} else out.stdout(text);
		questionShown = true;
		promptShown = false;
		// On a pipe, a line read before the question was asked (piped right after the command that
		// asks, as `/import f.jsonl` then `y`) answers it: it waited in `pending` behind that command,
		// the question was cancelled at the end of input, and the line went to the model as a prompt
		// (pi#3305 replay). In a terminal the user sees the question and types its answer.
		if (!terminal && pending.length > 0) queueMicrotask(answerTypedAhead);
	});
	function answerTypedAhead(): void {
		if (!questions.pending || pending.length === 0) return;
		const { line } = pending.shift()!;
		if (echoInput) out.stdout(`${line}\n`);
		questionShown = false;
		questions.answer(line);
	}

	// --- State.
	/** Lines read and not handled yet; `echoed`: a pipe's transcript already shows it after the prompt. */
	const pending: { line: string; echoed: boolean; followUp?: boolean }[] = [];
	let pumping = false;
	let commandRunning = false;
	// The command (`/name`) the chat waits on before it reads on: lines typed meanwhile wait for it.
	let waitingOn: string | undefined;
	let runsInFlight = 0;
	let closing = false;
	let lastIdleInterrupt = 0;
	/**
	 * False while the first session binds its extensions: lines read meanwhile answer an extension's
	 * question (a `session_start` handler may ask one) or wait; the prompt is not shown yet.
	 */
	let started = false;
	const quietWaiters: (() => void)[] = [];

	const session = () => runtime.session;
	const busy = () => runsInFlight > 0 || commandRunning || !session().isIdle;
	const quiet = () => pending.length === 0 && !pumping && !commandRunning && runsInFlight === 0;
	const checkQuiet = () => {
		if (!quiet()) return;
		for (const resolve of quietWaiters.splice(0)) resolve();
	};

	function showPrompt(): void {
		if (!started || closing || questions.pending || pending.length > 0 || busy()) return;
		if (promptShown) return;
		if (!printer.lineStart) printer.raw("\n");
		if (terminal) {
			rl.setPrompt(held.length > 0 ? CONTINUATION_PROMPT : PROMPT);
			rl.prompt(true);
		} else out.stdout(PROMPT);
		promptShown = true;
		if (draft !== undefined) {
			const text = draft;
			draft = undefined;
			replaceLine(text);
		}
	}

	// --- The input line as an extension's editor (pi's setEditorText / pasteToEditor / getEditorText),
	// in a terminal. pi#5620: a text an extension set never showed (it was kept aside, Enter sent
	// nothing). While a question waits, its answer is the line: the text waits for the prompt.
	let draft: string | undefined;
	const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ");
	function replaceLine(text: string): void {
		rl.write(null, { ctrl: true, name: "e" });
		rl.write(null, { ctrl: true, name: "u" });
		if (text) rl.write(text);
	}
	const inputLine: InteractiveEditor = {
		set(text) {
			if (questions.pending || closing) draft = oneLine(text);
			else replaceLine(oneLine(text));
		},
		paste(text) {
			if (questions.pending || closing) draft = (draft ?? "") + oneLine(text);
			else rl.write(oneLine(text));
		},
		get: () => (questions.pending && draft !== undefined ? draft : lines.editedText),
	};

	// --- Binding each session (the first and every replacement).
	let unsubscribe: (() => void) | undefined;
	const ui = createInteractiveUIContext(
		questions,
		(line, kind) => {
			const paint =
				kind === "error" ? style.red : kind === "warning" ? style.yellow : kind === "status" ? style.dim : undefined;
			printer.line(paint ? paint(line) : line);
		},
		terminal ? inputLine : undefined,
		// OSC 0 sets the window title; on a pipe it would be noise in the output.
		process.stdout.isTTY && takesEscapes(process.env) ? (title) => out.stdout(`\x1b]0;${title}\x07`) : undefined,
	);
	const bind = async (target: AgentSession) => {
		if (terminal) rememberPrompts(rl, target);
		await target.bindExtensions({
			mode: "tui",
			uiContext: ui,
			onError: (error) => printer.line(style.red(extensionErrorLine(target, error))),
			shutdownHandler: () => quit(),
			// An extension command's reload says what it loaded and found, as /reload does.
			commandContextActions: {
				reload: async () => {
					await target.reload();
					reportReload(host);
				},
			},
		});
		unsubscribe?.();
		unsubscribe = target.subscribe((event) => {
			printer.handle(event);
			// A run nobody typed (an extension's) ended: offer the prompt again once the session rests.
			if (event.type === "agent_settled") void target.waitForIdle().then(() => queueMicrotask(showPrompt));
		});
	};
	runtime.setRebindSession(bind);

	// --- Prompts.
	/** Runs or queues `text`; resolves once the session accepted it (started, queued, handled) or refused it. */
	const submit = (text: string, behavior: "steer" | "followUp", images?: ImageContent[]): Promise<void> =>
		new Promise((accepted) => {
			let target = session();
			runsInFlight++;
			printer.expectOwn(text);
			// Typed while an extension command replaces the session: sent once the replacement is over.
			sendToCurrentSession(runtime, (current) => {
				target = current;
				return current.prompt(text, {
					source: "interactive",
					streamingBehavior: behavior,
					...(images ? { images } : {}),
					preflightResult: (disposition) => {
						// Ctrl+C during its own input / before_agent_start hooks: nothing was sent or saved.
						if (disposition === "aborted") giveBack([text]);
						accepted();
					},
				});
			})
				.catch((error: unknown) => {
					// An extension command that replaced the session ends the old session's prompt: not a failure.
					if (error instanceof SettleError && error.code === "SESSION_CLOSED" && runtime.session !== target) return;
					// Ctrl+C's clearQueue() dropped it on its way and put it back on the input line (or listed it).
					if (error instanceof SettleError && error.code === "ABORTED" && error.message.includes(CLEARED_BEFORE_QUEUED))
						return;
					printer.error(promptErrorForCli(error, runtime.services.agentDir));
				})
				.finally(() => {
					runsInFlight--;
					accepted();
					checkQuiet();
					queueMicrotask(showPrompt);
				});
		});

	// Shift+Tab: the model's next thinking level, wrapping to `off` (pi's `app.thinking.cycle`). A press
	// only picks it; it is set (one `thinking_level_change`, saved as the default) when the next line
	// is sent or the chat ends: a line per press bloated the session file (pi#5909).
	let pickedThinking: ThinkingLevel | undefined;
	lines.onShiftTab = () => {
		const target = session();
		if (!target.supportsThinking()) {
			printer.notice(`Thinking stays off: ${target.model ? target.model.id : "no model"} cannot reason.`);
			return;
		}
		const levels = target.getAvailableThinkingLevels();
		const from = pickedThinking ?? target.thinkingLevel;
		pickedThinking = levels[(levels.indexOf(from) + 1) % levels.length];
		printer.notice(`Thinking: ${pickedThinking} (from the next message)`);
	};
	function applyPickedThinking(): void {
		const level = pickedThinking;
		pickedThinking = undefined;
		if (level === undefined || level === session().thinkingLevel) return;
		try {
			session().setThinkingLevel(level);
		} catch (error) {
			// A settings file that cannot be parsed refuses the new level: the line is still sent.
			host.warn(error instanceof Error ? error.message : String(error));
		}
	}

	const host: CommandHost = {
		runtime,
		print: (line) => printer.line(line),
		notice: (line) => printer.notice(line),
		warn: (line) => printer.line(style.yellow(`Warning: ${line}`)),
		busy: () => runsInFlight > 0 || !session().isIdle,
		followUp: (text) => submit(text, "followUp"),
		quit: () => quit(),
		prefill: (text) => {
			if (terminal && text) queueMicrotask(() => rl.write(text.replace(/\s*\n\s*/g, " ")));
		},
		ui,
		writeTerminal: escapes ? (sequence) => out.stdout(sequence) : undefined,
		...(options.linkFolder ? { linkFolder: options.linkFolder } : {}),
	};

	/** `!cmd` / `!!cmd`: runs the command in the session's shell, prints its output, records the result. */
	async function runUserBash(command: string, excludeFromContext: boolean): Promise<void> {
		const target = session();
		if (target.isBashRunning) {
			printer.line(style.yellow("A bash command is already running: press Ctrl+C to cancel it first."));
			return;
		}
		printer.line(
			`${style.cyan("$")} ${terminalSafe(command)}${excludeFromContext ? style.dim(" (not sent to the model)") : ""}`,
		);
		let partial = "";
		const printLines = (text: string) => {
			const lines = (partial + text).split("\n");
			partial = lines.pop() ?? "";
			for (const output of lines) printer.line(style.dim(`  ${outputLineSafe(output)}`));
		};
		commandRunning = true;
		waitingOn = `!${firstLine(command)}`;
		try {
			const result = await target.executeBash(command, printLines, { excludeFromContext });
			if (partial) printLines("\n");
			if (result.cancelled) printer.line(style.yellow("(cancelled)"));
			else if (result.killedBySignal) printer.line(style.red("(killed by a signal)"));
			else if (result.exitCode !== 0) printer.line(style.red(`(exit ${result.exitCode ?? "unknown"})`));
			// The record names this file (cut output, or terminal codes left out): so does the chat.
			if (result.notUtf8) printer.notice("(bytes that are not UTF-8 text are shown as \ufffd)");
			if (result.fullOutputPath) {
				printer.notice(
					result.truncated
						? `(output cut for the model; the full output is in ${result.fullOutputPath})`
						: `(the full output is in ${result.fullOutputPath})`,
				);
			}
		} catch (error) {
			if (partial) printLines("\n");
			printer.error(error);
		} finally {
			commandRunning = false;
			waitingOn = undefined;
		}
	}

	async function handleLine(line: string, followUp = false): Promise<void> {
		applyPickedThinking();
		if (line.trim() === "") return;
		const bash = parseBashLine(line);
		if (bash) {
			await runUserBash(bash.command, bash.excludeFromContext);
			return;
		}
		// A bare `/` names no command: sent, it costs a model call on a meaningless prompt (pi#5135).
		if (line.trim() === "/") {
			printer.line(style.red("Error: / alone is no command. Type /help for the commands."));
			return;
		}
		const command = parseSlashCommand(line);
		const builtin = command && findBuiltin(command.name);
		if (command && builtin) {
			if (!runsWhileBusy(builtin, command.args) && host.busy()) {
				printer.line(
					// Not queued: say so, or the user waits for a command that never runs.
					style.yellow(
						`/${command.name} needs an idle session and was not run: press Ctrl+C to abort the run, or send it again once the run has finished.`,
					),
				);
				return;
			}
			commandRunning = true;
			waitingOn = `/${command.name}`;
			try {
				await builtin.run(host, command.args);
			} catch (error) {
				printer.error(error);
			} finally {
				commandRunning = false;
				waitingOn = undefined;
				abortStalled = false;
				clearTimeout(abortStallTimer);
			}
			return;
		}
		if (
			command &&
			!session()
				.getCommands()
				.some((known) => known.name === command.name) &&
			!reachesSkill(line, session())
		) {
			const loader = session().resourceLoader;
			// Two extensions' `/review`: say which numbered names run them (pi#1061), not "unknown".
			const sharing = session().extensionRunner.getCommandsSharing(command.name);
			const switchedOff = command.name.startsWith("skill:") ? switchedOffSkills(loader) : [];
			const text =
				sharing.length > 0
					? sharedCommandName(
							command.name,
							sharing.map((shared) => ({ invocationName: shared.invocationName, path: shared.sourceInfo.path })),
						)
					: unknownCommandText(
							command.name,
							loader.getSkills().skills.map((skill) => skill.name),
							switchedOff,
						);
			printer.line(style.red(`Error: ${text}`));
			return;
		}
		// An extension's command is accepted once its handler has finished.
		waitingOn = command ? `/${command.name}` : undefined;
		try {
			// Sent as recognized: the session expands only text that starts with `/` (pi's editor trims too).
			await submit(command ? line.trim() : line, followUp ? "followUp" : "steer");
		} finally {
			waitingOn = undefined;
		}
	}

	async function pump(): Promise<void> {
		if (pumping || !started) return;
		pumping = true;
		try {
			while (pending.length > 0) {
				const { line, echoed, followUp } = pending.shift()!;
				// A pipe's transcript shows each line handled at an idle prompt (a steer shows as "Queued").
				if (echoInput && !echoed && !host.busy() && line.trim()) printer.line(`${PROMPT}${line}`);
				await handleLine(line, followUp);
			}
		} finally {
			pumping = false;
			checkQuiet();
			showPrompt();
		}
	}

	// --- One message over several lines, in a terminal: a bracketed paste's line breaks, and a line
	// ended with `\` (pi's editor: backslash + Enter is a new line where Shift+Enter is not told apart).
	const held: string[] = [];
	const history = (rl as unknown as LineHistory).history;
	lines.onEndWhileTyping = () => {
		if (held.length === 0) return false;
		printer.notice("(a message is being typed: Enter sends it, Ctrl+C drops it; Ctrl+D exits at an empty prompt)");
		return true;
	};
	/** The message `read` ends (the lines held before it joined), or undefined while it goes on. */
	function gather(read: string): string | undefined {
		const lineBreak = lines.pasting || lines.lineFeedTyped;
		const continues = lineBreak || read.endsWith("\\");
		if (!continues && held.length === 0) return read;
		// readline made each piece a history entry: the message is one.
		if (history[0] === ChatInput.historyEntry(read)) history.shift();
		if (continues) {
			held.push(lineBreak ? read : read.slice(0, -1));
			return undefined;
		}
		// A paste that ended with a line break leaves an empty last line: Enter sends what was pasted.
		const message = (read === "" ? held : [...held, read]).join("\n");
		held.length = 0;
		if (message.trim()) history.unshift(ChatInput.historyEntry(message));
		return message;
	}

	rl.on("line", (read) => {
		const line = terminal ? gather(lines.takeLine(read)) : read;
		if (line === undefined) {
			promptShown = false;
			showPrompt();
			return;
		}
		const echoed = echoInput && (promptShown || questionShown);
		if (echoed) out.stdout(`${line}\n`);
		promptShown = false;
		questionShown = false;
		lastIdleInterrupt = 0;
		if (questions.answer(line)) return;
		if (closing) return;
		// Alt+Enter, as pi's: a follow-up while a run streams (idle, it sends as Enter does).
		pending.push({ line, echoed, followUp: lines.followUpTyped });
		// Read now, handled when the command ends: say it was taken (command-code#356: no sign of it).
		if (waitingOn && line.trim()) printer.notice(`Queued (after ${waitingOn}): ${firstLine(asTyped(line))}`);
		void pump();
	});

	// --- Ending.
	let finish: () => void = () => {};
	const closed = new Promise<void>((resolve) => {
		finish = resolve;
	});
	let startGrace: NodeJS.Timeout | undefined;
	function quit(): void {
		if (closing) return;
		closing = true;
		pending.length = 0;
		rl.close();
	}
	rl.on("close", () => {
		closing = true;
		questions.close();
		finish();
		stopIfStillStarting();
	});
	// Read before the chat began (typed ahead of, or piped with, the answer to -r's question).
	for (const line of handedOver.lines) pending.push({ line, echoed: false });
	if (handedOver.ended) {
		closing = true;
		questions.close();
		finish();
		stopIfStillStarting();
	}
	// Input ended (Ctrl+D) while a session_start handler still runs (gentle-pi#1007: one that never
	// returns): after a shutdown's grace, as Ctrl+C twice does, say which and exit instead of waiting.
	function stopIfStillStarting(): void {
		if (started || startGrace) return;
		startGrace = setTimeout(() => {
			if (started || !stoppedWhileStartingText(runtime) || termination.code !== undefined) return;
			// Lines read but never run are a failure; a bare Ctrl+D is a normal quit.
			terminate(pending.length > 0 ? EXIT_FAILURE : EXIT_OK);
		}, SHUTDOWN_GRACE_MS);
		startGrace.unref();
	}

	/**
	 * As pi's Esc: the messages an abort did not deliver go back on the input line, before what is
	 * being typed, a blank line between each (Enter sends them as one message, edited or not).
	 */
	function putBack(undelivered: string[]): void {
		const typing = [...held, rl.line].join("\n");
		const parts = [...undelivered, typing]
			.filter((text) => text.trim())
			.join("\n\n")
			.split("\n");
		rl.write(null, { ctrl: true, name: "u" });
		// Clearing the line redrew the prompt the run hides: the notice takes its place.
		out.stdout(escapes ? "\r\x1b[K" : "\n");
		held.splice(0, held.length, ...parts.slice(0, -1));
		draft = parts.at(-1);
		printer.notice("Not sent; back on the input line (Enter sends it, Ctrl+C drops it):");
		for (const [index, line] of held.entries()) printer.line(`${index === 0 ? PROMPT : CONTINUATION_PROMPT}${line}`);
	}

	/** Messages an abort kept from the model: back on the input line (a terminal), or each named. */
	function giveBack(texts: string[]): void {
		const undelivered = texts.filter((text) => text.trim());
		if (terminal && undelivered.length > 0) putBack(undelivered);
		else for (const text of undelivered) printer.notice(`Not sent: ${firstLine(asTyped(text))}`);
	}

	/** Set when an abort has not stopped the run after the grace period (what it waits on was shown). */
	let abortStalled = false;
	// The stall notice of the last Ctrl+C abort: a /reload it could not stop clears it when it ends.
	let abortStallTimer: NodeJS.Timeout | undefined;
	function interrupt(): void {
		if (questions.cancelCurrent()) {
			printer.notice("(cancelled)");
			return;
		}
		if (busy() && abortStalled) {
			// The abort was ignored (named already): Ctrl+C again ends settle, as SIGINT does in the other modes.
			terminate(EXIT_SIGINT);
			return;
		}
		if (busy()) {
			lastIdleInterrupt = 0;
			// What was typed and not delivered yet is put back on the input line (a terminal) or shown, not silently dropped.
			const unsent = pending.splice(0).map((entry) => entry.line);
			const target = session();
			const { steering, followUp } = target.clearQueue();
			giveBack([...steering, ...followUp, ...unsent]);
			// What clearQueue() kept: the run took it for this turn (turn_start, before its message_start).
			for (const text of [...target.getSteeringMessages(), ...target.getFollowUpMessages()]) {
				printer.notice(
					`Not put back: the run had already taken it for this turn (it stays in the conversation, unanswered): ${firstLine(asTyped(text))}`,
				);
			}
			target.abortBash();
			// A tool that ignores its abort signal (or a stuck handler) keeps the run going: say what it waits on.
			clearTimeout(abortStallTimer);
			const stalled = setTimeout(() => {
				const pending = describePendingWork(runtime);
				if (!pending) return;
				abortStalled = true;
				// A load is awaited as long as it takes (as pi): no abort reaches it.
				const loading = extensionsLoadingNow();
				printer.notice(
					`Still not stopped ${SHUTDOWN_GRACE_MS / 1000} s after the abort; waiting for:\n${pending.trimEnd()}\n` +
						(loading && pending.endsWith(loading)
							? "An extension's load is waited for as long as it takes; make its module and factory finish, or start without it. Press Ctrl+C again to end settle."
							: "It ignores the abort (a bug in that tool or extension). Press Ctrl+C again to end settle."),
				);
			}, SHUTDOWN_GRACE_MS);
			abortStallTimer = stalled;
			void target.abort().then(() => {
				// A /reload waiting on an extension's load is not stopped by the abort: the timer names it.
				if (extensionsLoadingNow()) return;
				clearTimeout(stalled);
				abortStalled = false;
				printer.aborted();
			});
			return;
		}
		if (terminal && (rl.line.length > 0 || held.length > 0)) {
			// As a shell: Ctrl+C drops the message being typed, its held lines too. The press after it
			// is a first press on an empty prompt, whatever came before (opencode#36612: exited).
			lastIdleInterrupt = 0;
			rl.write(null, { ctrl: true, name: "u" });
			if (held.length > 0) {
				held.length = 0;
				promptShown = false;
				showPrompt();
			}
			return;
		}
		const now = Date.now();
		if (now - lastIdleInterrupt <= DOUBLE_INTERRUPT_MS && !started) {
			// Still binding (a session_start handler that never returns, gentle-pi#1007): quitting would wait for it.
			terminate(EXIT_SIGINT);
			return;
		}
		if (now - lastIdleInterrupt <= DOUBLE_INTERRUPT_MS) {
			if (!printer.lineStart || promptShown) printer.raw("\n");
			promptShown = false;
			quit();
			return;
		}
		lastIdleInterrupt = now;
		printer.notice("(Ctrl+C again to exit, or Ctrl+D)");
	}

	const terminate = (code: number) => {
		if (termination.code !== undefined) process.exit(code);
		termination.code = code;
		// Before the first prompt a session_start handler may hold the start (gentle-pi#1007): named
		// now, whatever ends settle, as settle -p does; the abort and the disposal do not wait for it.
		const starting = started ? "" : stoppedWhileStartingText(runtime);
		if (starting) out.stderr(starting);
		// As settle -p; a level picked with Shift+Tab is kept as a clean end keeps it (pi saves each press).
		shutDownThenExit(runtime, code, (exitCode) => process.exit(exitCode), applyPickedThinking);
	};
	// The terminal hung up (pi#3057: its window closed): as SIGHUP, which may come before or after
	// it; that SIGHUP is the same event, not a second signal that ends the clean end early.
	const hangUp = () => {
		if (termination.code === undefined) terminate(EXIT_SIGHUP);
	};
	const handlers: [NodeJS.Signals, () => void][] = [
		["SIGINT", interrupt],
		["SIGTERM", () => terminate(EXIT_SIGTERM)],
		["SIGHUP", () => (lines.terminalLost ? hangUp() : terminate(EXIT_SIGHUP))],
	];
	const handleSignals = options.handleSignals ?? true;
	if (handleSignals) {
		for (const [signal, handler] of handlers) process.on(signal, handler);
		processStdout.onClosed = () => terminate(EXIT_SIGPIPE);
		processStdout.onHungUp = () => lines.loseTerminal();
		lines.onTerminalLost = hangUp;
		if (lines.terminalLost) hangUp();
	}
	const releaseCrashLine = reportCrashesBelow(() => !printer.lineStart || promptShown || questionShown);
	rl.on("SIGINT", interrupt);
	// Esc, as pi's: stops the run (a tool, a retry's wait, a compaction) or cancels a question, as
	// Ctrl+C does; never more (it drops no typed text and never exits). dreb#262: Esc did nothing.
	lines.onEscape = () => {
		if (questions.pending || (busy() && !abortStalled)) interrupt();
	};
	lines.showsPrompt = () => promptShown || questionShown;

	try {
		// Bound once the chat reads lines (pi#2035: a question asked in `session_start` waited for a
		// line nobody listened to, and the chat hung before its first prompt).
		await bind(runtime.session);
		clearTimeout(startGrace);
		if (options.resumedAtStart) {
			const file = sessionLocation(runtime);
			printer.line(`Resumed ${runtime.session.sessionId} (${conversationLength(runtime)} messages): ${file}`);
		}
		printBanner(runtime, printer, style, options.verbose === true);
		for (const warning of options.warningsAfterStart?.() ?? []) printer.line(style.yellow(`Warning: ${warning}`));
		for (const command of shadowedCommands(runtime.session.getCommands())) {
			printer.line(style.yellow(`Warning: ${shadowedCommandWarning(command)}`));
		}
		// Not started yet: lines typed meanwhile answer the question (or wait), none runs as a prompt.
		started = true;
		for (const [index, message] of (options.messages ?? []).entries()) {
			if (closing) break;
			const images = index === 0 && options.images?.length ? [...options.images] : undefined;
			printer.line(`${PROMPT}${firstLine(message)}`);
			await submit(message, "steer", images);
			await whenQuiet();
		}
		// Lines typed while the session bound its extensions (none answered a question) run now.
		if (pending.length > 0) void pump();
		showPrompt();
		await closed;
		// Lines read before the end of input are still handled (piped input), then the session settles.
		await whenQuiet();
		await session().waitForIdle();
		applyPickedThinking();
		// The shell's prompt comes next: end the line our prompt left open.
		if (!printer.lineStart || promptShown || questionShown) out.stdout("\n");
		return EXIT_OK;
	} finally {
		if (handleSignals) {
			for (const [signal, handler] of handlers) process.off(signal, handler);
			processStdout.onClosed = undefined;
			processStdout.onHungUp = undefined;
			lines.onTerminalLost = undefined;
		}
		releaseCrashLine();
		lines.onShiftTab = undefined;
		lines.onEscape = undefined;
		lines.showsPrompt = undefined;
		clearTimeout(startGrace);
		questions.close();
		rl.close();
		unsubscribe?.();
	}

	function whenQuiet(): Promise<void> {
		if (!pumping && pending.length > 0) void pump();
		if (quiet()) return Promise.resolve();
		return new Promise((resolve) => quietWaiters.push(resolve));
	}
}

/** readline's history, newest first (not in node's typings). */
type LineHistory = { history: string[] };

/**
 * Puts a session's own prompts (its branch, oldest first) on the input line's history, as pi does
 * when it shows a session: after `--continue`, `-r` or `/resume`, Up recalls what was sent there.
 */
function rememberPrompts(rl: object, session: AgentSession): void {
	const { history } = rl as LineHistory;
	for (const message of session.messages) {
		if (message.role !== "user") continue;
		const text = ChatInput.historyEntry(userMessageText(message.content as never).trim());
		if (!text || history[0] === text) continue;
		history.unshift(text);
	}
	history.splice(HISTORY_SIZE);
}

/**
 * A typed `!command` (its output joins the context) or `!!command` (kept out of it), as in pi's
 * interactive mode; undefined for any other line, and for a bare `!` / `!!` (sent as a prompt).
 *
 * @example
 * ```ts
 * parseBashLine("!! git status"); // { command: "git status", excludeFromContext: true }
 * ```
 */
export function parseBashLine(line: string): { command: string; excludeFromContext: boolean } | undefined {
	const text = line.trim();
	if (!text.startsWith("!")) return undefined;
	const excludeFromContext = text.startsWith("!!");
	const command = text.slice(excludeFromContext ? 2 : 1).trim();
	return command ? { command, excludeFromContext } : undefined;
}

/**
 * The SDK's no-model and missing-key texts tell a program what to register; in the chat the fixes
 * are a key and /model (print mode says the same for its missing key).
 */
function promptErrorForCli(error: unknown, agentDir: string): unknown {
	if (!(error instanceof SettleError)) return error;
	const authFile = join(agentDir, "auth.json");
	if (error.code === "NO_MODEL") {
		return `No model selected: set a provider's key in the environment (${GENERIC_API_KEY_ENV_HINT}) or in ${authFile}, then pick one with /model (or start settle with --faux).`;
	}
	if (error.code === "NO_AUTH") {
		const provider = providerOfAuthError(error);
		const cloud = provider === undefined ? undefined : cloudCredentialsHint(provider);
		if (cloud) return `${error.message.split("\n")[0]} ${cloud}`;
		const whose = provider === undefined ? "a provider's" : "the provider's";
		return `${error.message.split("\n")[0]} To fix it, set ${whose} key in the environment (${apiKeyEnvHint(provider)}) or in ${authFile}.`;
	}
	return error;
}

function printBanner(
	runtime: AgentSessionRuntime,
	printer: TranscriptPrinter,
	style: ReturnType<typeof createStyle>,
	verbose: boolean,
): void {
	const session = runtime.session;
	const count = conversationLength(runtime);
	// pi's quietStartup: no header (unless --verbose, as pi); a resumed conversation's recap is the session's own text and stays.
	if (!verbose && runtime.services.settingsManager.getQuietStartup()) {
		if (count > 0) printRecap({ runtime, notice: (line) => printer.notice(line) });
		return;
	}
	const model = session.model ? `${session.model.provider}/${session.model.id}` : "none (/model to pick one)";
	printer.line(style.bold("settle interactive"));
	printer.line(`  model: ${model}, thinking ${session.thinkingLevel}`);
	// pi's "Model scope: a:high, b (Ctrl+P to cycle)" for --models / enabledModels.
	const scope = session.scopedModels.map((s) => `${s.model.id}${s.thinkingLevel ? `:${s.thinkingLevel}` : ""}`);
	if (scope.length > 0) printer.line(`  model scope: ${scope.join(", ")} (/model lists them)`);
	printer.line(`  session: ${sessionLocation(runtime)}${count > 0 ? ` (resumed, ${count} messages)` : ""}`);
	printer.line(`  cwd: ${runtime.cwd}`);
	for (const line of promptFileLines(runtime)) printer.line(line);
	if (count > 0) printRecap({ runtime, notice: (line) => printer.notice(line) });
	printer.line(style.dim("/help for commands, Ctrl+C to abort, Ctrl+D to exit"));
}

/**
 * Whether `line` runs a skill `getCommands()` does not list by its first word: `skill:<folder>` for
 * a skill named otherwise in its front matter, or a name with spaces (`/skill:Code Review a.ts`).
 */
function reachesSkill(line: string, session: AgentSession): boolean {
	const text = line.trim();
	return (
		text.startsWith("/skill:") &&
		skillInvocation(text.slice(7), session.resourceLoader.getSkills().skills) !== undefined
	);
}
