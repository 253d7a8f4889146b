/**
 * `settle -p` (text) and `settle --json`: run the prompts one after the other, then print the final
 * answer (text) — or print every session event as a JSON line while it happens (json), after the
 * session header, as pi's print mode does.
 */
import { basename, dirname, join } from "node:path";
import type { CompactionResult } from "../compaction/types.js";
import { errorMessage, SettleError } from "../errors.js";
import { thrownAt } from "../extensions/thrown-at.js";
import type { ExtensionUIContext } from "../extensions/types.js";
import { createHeadlessUIContext, type UIDialogRequest } from "../extensions/ui.js";
import { isContextOverflow } from "../llm/errors.js";
import { failureOf } from "../llm/failures.js";
import { apiKeyEnvHint, cloudCredentialsHint, providerOfAuthError } from "../llm/provider-env.js";
import type { AgentMessage, AssistantMessage, ImageContent } from "../llm/types.js";
import { jsonLine } from "../rpc/jsonl.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import type { AgentSession } from "../session/agent-session.js";
import type { AgentSessionEvent } from "../session/events.js";
import { RETRY_CANCELLED } from "../session/retry-policy.js";
import { EXIT_AUTH, EXIT_FAILURE, EXIT_OK, EXIT_SESSION_LOCKED } from "./help.js";
import { oneLine, reloadedResourceWarnings, sessionFileChangedForCli, sessionLockedForCli } from "./host.js";
import { compactedText, outputLineSafe, retryCancelledText, streamSafe } from "./interactive-render.js";
import { outputCapText } from "./output-cap.js";
import { retryWaitHint } from "./retry-wait-hint.js";

/** Where the CLI writes. */
export interface CliOutput {
	stdout(text: string): void;
	stderr(text: string): void;
	/**
	 * Undefined while stdout can take more, else a promise that resolves once it can (or closed):
	 * streaming modes wait on it between a run's events. Absent: never wait.
	 */
	room?(): Promise<void> | undefined;
	/**
	 * stdout is a terminal: the answer is printed with its control characters made visible
	 * (`streamSafe`), so a model cannot write the clipboard (OSC 52), retitle the window or hide
	 * text. Absent or false (a pipe, a file): the answer byte for byte, as pi prints it.
	 */
	stdoutIsTerminal?: boolean;
}

/**
 * Makes the session's run wait for `out` to have room after each agent event (the Agent awaits its
 * listeners), so a slow reader of `--json` / `--rpc` output slows the run instead of the output
 * piling up in memory. Returns the unsubscribe function.
 */
export function waitForReader(session: AgentSession, out: CliOutput): () => void {
	const room = out.room;
	if (!room) return () => {};
	return session.agent.subscribe(() => room());
}

/**
 * The short name of the extension at `extensionPath` for a line of output: its file's name
 * (`deploy.ts`), with its folder for a folder's `index.ts` (`deploy/index.ts`); an inline
 * factory's `<inline:N>` as it is.
 */
export function extensionShortName(extensionPath: string): string {
	if (extensionPath.startsWith("<")) return extensionPath;
	const file = basename(extensionPath);
	return /^index\.[cm]?[jt]s$/.test(file) ? `${basename(dirname(extensionPath))}/${file}` : file;
}

/**
 * `[<type>] <extension>: <message>`, the line `settle -p` prints on stderr for a `ctx.ui.notify`.
 * The message is made safe as `settle -i` prints it (escape sequences dropped, other control
 * characters made visible, line by line): it cannot write the clipboard (OSC 52) or the window
 * title, and a carriage return cannot redraw the label and the extension's name.
 */
export function notificationLine(message: string, type: string | undefined, extensionPath: string | undefined): string {
	const from = extensionPath === undefined ? "" : `${extensionShortName(extensionPath)}: `;
	const text = String(message).split("\n").map(outputLineSafe).join("\n");
	return `[${outputLineSafe(type ?? "info")}] ${from}${text}`;
}

/** What to do about a dialog `settle -p` could not ask. */
const UNASKED_WAY_OUT = "; run settle -i or --rpc to answer it, or make the extension check ctx.hasUI";

/**
 * `[dialog] <extension>: <kind> "<title>" not asked (no UI): <answer> …`, the line `settle -p` prints
 * on stderr for a dialog it answers with the no-UI default, so a permission gate's silent "no" is
 * seen (pi_agent_rust#224), with the way to get it answered.
 */
export function unaskedDialogLine(request: UIDialogRequest, extensionPath: string | undefined): string {
	const from = extensionPath === undefined ? "" : `${extensionShortName(extensionPath)}: `;
	const title = request.title === undefined ? "" : ` ${JSON.stringify(request.title)}`;
	const answer = request.kind === "confirm" ? "false" : "undefined";
	return `[dialog] ${from}${request.kind}${title} not asked (no UI): ${answer}${UNASKED_WAY_OUT}`;
}

/**
 * Binds a (new) session of the runtime the way the CLI runs extensions: headless, errors on stderr.
 * `print` (`settle -p`): each notification is a line on stderr naming its extension
 * ({@link notificationLine}), and each dialog one saying it was not asked ({@link unaskedDialogLine}).
 * `json`: each notification and dialog is an `extension_notify` /
 * `extension_dialog` line in the stream, as the session reports them without a UI (with
 * `extensionPath`); stderr gets nothing.
 */
export function bindForCli(
	session: AgentSession,
	mode: "print" | "json" | "rpc",
	out: CliOutput,
	extra: {
		/** The UI extensions talk to (default: headless; see above). */
		uiContext?: ExtensionUIContext;
		onError?: (error: { extensionPath: string; event: string; error: string }) => void;
		shutdown?: () => void;
	} = {},
): Promise<void> {
	return session.bindExtensions({
		mode,
		uiContext:
			extra.uiContext ??
			// json: none, so the session's own UI makes each notification and dialog an event, printed as one.
			(mode === "json"
				? undefined
				: createHeadlessUIContext({
						onNotify: ({ message, type }, extensionPath) =>
							out.stderr(`${notificationLine(message, type, extensionPath)}\n`),
						onDialog: (request, extensionPath) => out.stderr(`${unaskedDialogLine(request, extensionPath)}\n`),
					})),
		onError: extra.onError ?? ((error) => out.stderr(`${extensionErrorLine(session, error)}\n`)),
		...(extra.shutdown ? { shutdownHandler: extra.shutdown } : {}),
		// A reload re-reads the folders: what it found is said again, as at start (-i's /reload does too).
		commandContextActions: {
			reload: async () => {
				await session.reload();
				for (const warning of reloadedResourceWarnings(session)) out.stderr(`Warning: ${oneLine(warning)}\n`);
			},
		},
	});
}

/**
 * `--json`'s extension errors: an `extension_error` line on stdout, as `--rpc` writes, for the
 * program reading the stream (prime-agent#569), and the usual line on stderr for the person watching.
 */
function jsonExtensionError(
	session: AgentSession,
	out: CliOutput,
): (error: { extensionPath: string; event: string; error: string }) => void {
	return (error) => {
		out.stdout(
			jsonLine({ type: "extension_error", extensionPath: error.extensionPath, event: error.event, error: error.error }),
		);
		out.stderr(`${extensionErrorLine(session, error)}\n`);
	};
}

/**
 * `Extension error (<where>, <event>): <text> (thrown at <file>:<line>)`. A command's error names
 * its extension's file too: its `extensionPath` is `command:<name>` (pi's), which does not say
 * where to look.
 */
export function extensionErrorLine(
	session: AgentSession,
	error: { extensionPath: string; event: string; error: string; stack?: string; sentBy?: string },
): string {
	let where = error.extensionPath;
	let file = where;
	if (where === "<runtime>" && error.sentBy !== undefined) {
		// A refused pi.sendMessage / pi.sendUserMessage: whose call it was (oh-my-pi#4345).
		where = `${where} for ${error.sentBy}`;
		file = error.sentBy;
	} else if (where.startsWith("command:")) {
		file = session.extensionRunner.getCommand(where.slice("command:".length))?.sourceInfo.path ?? "";
		if (file) where = `${where} of ${file}`;
	}
	const at = thrownAt(error.stack, file);
	return `Extension error (${where}, ${error.event}): ${error.error}${at ? ` (thrown at ${at})` : ""}`;
}

/**
 * Runs `messages` in order and prints; a prompt whose answer failed or went unanswered ends the
 * run there (the later ones are not sent). Returns the exit code: 1 when the last answer is an error or was
 * aborted (its message on stderr), its retry was cancelled in the backoff, the last prompt got no answer (`agent_settled.errorMessage`: an
 * overflow compaction could not recover; pi prints nothing and exits 0 there), or a prompt was
 * rejected — 4 / 5 instead when that failure's `SettleError` code is `NO_AUTH` / `SESSION_LOCKED`
 * ({@link exitCodeOf}; a failed answer's code is {@link failureOf} it). Text mode prints the last
 * answer's text, or the run's latest earlier text when that answer is empty (pi#8094), and says on
 * stderr when the run wrote no text at all.
 */
export async function runPrintMode(
	runtime: AgentSessionRuntime,
	options: {
		mode: "text" | "json";
		messages: readonly string[];
		/** Attached to the first prompt (`@image.png` arguments). */
		images?: readonly ImageContent[];
		/** Called once the first session's `session_start` handlers ran, before any prompt. */
		onSessionStarted?: () => void;
	},
	out: CliOutput,
): Promise<number> {
	const json = options.mode === "json";
	let unsubscribe: (() => void) | undefined;
	let unwait: (() => void) | undefined;
	// The last prompt got no answer and its context holds no error that says so (an overflow that
	// could not be compacted): agent_settled carries the text.
	let unanswered: string | undefined;
	// The last prompt's latest answer text as it arrived: a message the session could not write
	// (its file deleted or written to by another program) leaves the transcript, not the screen.
	let arrivedAnswer: string | undefined;
	// The last prompt's retry was cancelled in its backoff: the attempt, when the prompt got no answer.
	let cancelledRetry: number | undefined;
	// The last message was `/compact`: what it compacted.
	let compacted: CompactionResult<unknown> | undefined;
	const bind = async (session: AgentSession) => {
		unsubscribe?.();
		unwait?.();
		if (json) unwait = waitForReader(session, out);
		unsubscribe = json
			? session.subscribe((event) => {
					if (event.type === "agent_settled") unanswered = event.errorMessage;
					if (event.type === "auto_retry_end") cancelledRetry = cancelledInBackoff(session, event);
					out.stdout(jsonLine(jsonStreamEvent(event)));
				})
			: session.subscribe((event) => {
					if (event.type === "agent_settled") unanswered = event.errorMessage;
					if (event.type === "message_end") arrivedAnswer = answerTextAfter(arrivedAnswer, event.message);
					if (event.type === "compaction_over_threshold") out.stderr(`Warning: ${event.message}\n`);
					// Ctrl+C in the automatic compaction after the answer: exit 130 must not read as a half-compacted session.
					if (event.type === "compaction_end" && event.aborted && !event.cancelledBy && event.reason !== "manual") {
						out.stderr(`${autoCompactionCancelledText(event.reason)}\n`);
					}
					if (event.type === "default_not_saved") out.stderr(`Warning: ${event.message}\n`);
					// A backoff is silent seconds before the answer (or the error): say what is waited for.
					if (event.type === "auto_retry_start") {
						out.stderr(
							// The chat's wording (interactive-render.ts), on one line.
							`Retrying in ${(event.delayMs / 1000).toFixed(1)} s, attempt ${event.attempt}/${event.maxAttempts}: ${event.errorMessage.replace(/\s*\n\s*/g, " ")}\n`,
						);
					}
					// Ctrl+C in the backoff: "Retrying in 60.0 s" must not be the run's last word (gemini-cli#11223).
					// An aborted retried answer is said once, as "Request was aborted", at the end.
					if (event.type === "auto_retry_end") {
						cancelledRetry = cancelledInBackoff(session, event);
						if (cancelledRetry !== undefined) out.stderr(`${retryCancelledText(cancelledRetry)}\n`);
					}
				});
		// Listening first: a run an extension starts from session_start streams from its agent_start.
		await bindForCli(session, json ? "json" : "print", out, json ? { onError: jsonExtensionError(session, out) } : {});
	};
	runtime.setRebindSession(bind);
	try {
		if (json) {
			const header = runtime.session.sessionManager.getHeader();
			if (header) out.stdout(jsonLine(header));
		}
		await bind(runtime.session);
		options.onSessionStarted?.();
		// A message an extension sent from session_start (a reminder, a kickoff) started a run: the
		// first prompt would be refused as busy and never run (oh-my-pi#1372). It runs first.
		await runtime.session.waitForExtensionRuns();
		for (const [index, message] of options.messages.entries()) {
			const images = index === 0 && options.images?.length ? { images: [...options.images] } : undefined;
			unanswered = undefined;
			cancelledRetry = undefined;
			const compact = images ? undefined : compactCommand(runtime.session, message);
			if (compact) {
				// A failure (nothing to compact, the summary refused) ends the run in the catch below.
				compacted = await runtime.session.compact(compact.instructions);
				continue;
			}
			compacted = undefined;
			const answeredBefore = lastAssistant(runtime.session);
			await runtime.session.prompt(message, images);
			// A command may have started a run with pi.sendUserMessage: its answer is this prompt's.
			await runtime.session.waitForExtensionRuns();
			// A failed step ends the script (`settle -p "step 1" "step 2"`): the next prompts would build on
			// it, and only the last answer decides the exit code — it would read 0 (KSP-CKAN/CKAN#2941).
			const answer = lastAssistant(runtime.session);
			if (unanswered !== undefined || cancelledRetry !== undefined) break;
			if (answer !== answeredBefore && answer && isFailed(answer)) break;
		}
		// The run ended on `/compact`: its result is the output, not the answer it kept.
		if (compacted) {
			if (!json) out.stdout(`${compactedText("manual", compacted)}\n`);
			return EXIT_OK;
		}
		const last = lastAssistant(runtime.session);
		const failed = last !== undefined && isFailed(last);
		// Why the answer failed, typed: the exit code follows its code, never its text.
		const cause = last?.stopReason === "error" ? failureOf(last) : undefined;
		// The log lost its lock: two jobs started a new session at the same --session path (the second
		// to write stops at its first entry, before its model call), or another writer took it over.
		// Or another program deleted or wrote to the file: both told in flags, not SDK calls.
		const refusedFile =
			cause?.code === "SESSION_LOCKED"
				? lockRefusalForCli(cause.message, answerNotWritten(runtime.session, arrivedAnswer))
				: cause && sessionFileChangedForCli(cause);
		const failure = exitCodeOf(cause);
		// Stopped in a retry's backoff: no answer, and the text before the failed request is not one
		// (antigravity-cli#1018: a headless run stopped while retrying exited 0 with partial output).
		if (cancelledRetry !== undefined) return EXIT_FAILURE;
		if (unanswered !== undefined && !failed) {
			// pi prints nothing and exits 0 here: a script could not tell the prompt went unanswered.
			if (!json) out.stderr(`Error: ${unanswered}\n`);
			return EXIT_FAILURE;
		}
		if (json) return failed ? failure : EXIT_OK;
		if (!last) return EXIT_OK;
		if (failed) {
			// The answer arrived and was paid for; only its entry could not be written: print it as a
			// normal run would, then say on stderr why the file does not hold it.
			const unsaved = refusedFile ? arrivedAnswer : undefined;
			if (unsaved) out.stdout(`${out.stdoutIsTerminal ? streamSafe(unsaved) : unsaved}\n`);
			const hint =
				compactionOffHint(runtime.session, last) ??
				retryWaitHint(last, runtime.session.settingsManager.getRetrySettings());
			out.stderr(
				refusedFile
					? `Error: ${refusedFile}\n`
					: `${last.errorMessage || `Request ${last.stopReason}`}\n${hint ? `${hint}\n` : ""}`,
			);
			return failure;
		}
		// The run's last words: a model may end on an empty answer after writing its report with a
		// tool call (pi#8094: pi prints an empty line and the report is lost).
		const text = lastAnswerText(runtime.session);
		if (text) out.stdout(`${out.stdoutIsTerminal ? streamSafe(text) : text}\n`);
		// A cut answer printed as a finished one reads as complete (gsd-pi#2157, dreb#240).
		const cut =
			last.stopReason === "length" ? `Warning: ${outputCapText(last, runtime.session.model, "--thinking")}` : undefined;
		if (cut) out.stderr(`${cut}\n`);
		else if (!text && thoughtLength(runtime.session) > 0) out.stderr(onlyThinkingText(thoughtLength(runtime.session)));
		else if (!text) out.stderr("Warning: the model's answer holds no text; nothing to print.\n");
		return EXIT_OK;
	} catch (error) {
		const text = cliErrorText(error, runtime.services.agentDir);
		const code = error instanceof SettleError ? error.code : undefined;
		// A refused prompt (no key, …) leaves no event: the stream's reader is told why it ends (gemini-cli#20183).
		if (json) out.stdout(jsonLine({ type: "error", ...(code ? { code } : {}), message: text }));
		out.stderr(`${text}\n`);
		return exitCodeOf(error instanceof SettleError ? error : undefined);
	} finally {
		unsubscribe?.();
		unwait?.();
	}
}

/**
 * `event` as `--json` writes it: a `message_update` carries only its delta (the answer so far, twice
 * on every delta, made the stream quadratic in the answer's length: pi#7395), plus the usage so far
 * and, on `toolcall_start`, the call's id and tool name, as pi 0.84's stream does. `message_start`
 * and `message_end` still carry the whole message.
 */
function jsonStreamEvent(event: AgentSessionEvent): unknown {
	if (event.type !== "message_update" || event.message.role !== "assistant") return event;
	const update = event.assistantMessageEvent;
	if (!("partial" in update)) return { type: event.type, usage: event.message.usage, assistantMessageEvent: update };
	const { partial, ...delta } = update;
	const call = update.type === "toolcall_start" ? partial.content[update.contentIndex] : undefined;
	const named = call?.type === "toolCall" ? { ...delta, id: call.id, toolName: call.name } : delta;
	return { type: event.type, usage: event.message.usage, assistantMessageEvent: named };
}

/**
 * `/compact [instructions]` as a message: the chat's built-in, run here too. Sent as a prompt, the
 * model got the words and the context stayed as it was (claude-code#43685). An extension command,
 * prompt template or skill of that name runs as itself (`-p` runs those, see `shadowedCommands`).
 */
function compactCommand(session: AgentSession, message: string): { instructions?: string } | undefined {
	const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(message.trim());
	if (!match || session.getCommands().some((command) => command.name === "compact")) return undefined;
	const instructions = match[1]?.trim();
	return instructions ? { instructions } : {};
}

/**
 * The SDK's missing-key text tells a program to register the provider with its model runtime; on
 * the command line the fix is a key in the environment or in the agent folder's auth.json.
 */
function cliErrorText(error: unknown, agentDir: string): string {
	const text = errorMessage(error);
	if (!(error instanceof SettleError) || error.code !== "NO_AUTH") return text;
	const firstLine = text.split("\n")[0]!;
	// The provider's own variable and the auth.json entry to write under its name, when known.
	const provider = providerOfAuthError(error);
	// Bedrock and Vertex sign in otherwise: a key variable or an auth.json entry alone would not do.
	const cloud = provider === undefined ? undefined : cloudCredentialsHint(provider);
	if (cloud) return `${firstLine}\n\n${cloud}`;
	return `${firstLine}\n\nSet the provider's key in the environment (${apiKeyEnvHint(provider)}) or in ${join(agentDir, "auth.json")}: ${JSON.stringify({ [provider ?? "<provider>"]: { type: "api_key", key: "…" } })}.`;
}

/** An automatic compaction stopped (a signal, `ctx.abort()`): nothing of it was saved. */
function autoCompactionCancelledText(reason: string): string {
	const kept = reason === "threshold" ? " (the answer above is saved)" : "";
	return `Compaction (${reason}) cancelled: the session is unchanged${kept}.`;
}

/**
 * With automatic compaction off, an overflow is the run's answer (pi#6472): the provider's text alone
 * does not say that compaction would have fit the conversation back, nor how to run it.
 */
function compactionOffHint(session: AgentSession, last: AssistantMessage): string | undefined {
	if (last.stopReason !== "error" || session.autoCompactionEnabled) return undefined;
	if (!isContextOverflow(last, session.model?.contextWindow)) return undefined;
	return "The conversation no longer fits the model's context window, and automatic compaction is off (the compaction.enabled setting is false): resume with `settle -c` and run /compact, or set compaction.enabled to true.";
}

/**
 * The attempt whose retry was cancelled in its backoff (Ctrl+C, an extension's `ctx.abort()`), or
 * undefined: the failed answer was taken out for the retry, so no answer ends the prompt. A retried
 * answer aborted while it streamed ends it instead (reported as an aborted answer).
 */
function cancelledInBackoff(
	session: AgentSession,
	event: Extract<AgentSessionEvent, { type: "auto_retry_end" }>,
): number | undefined {
	return event.finalError === RETRY_CANCELLED && session.messages.at(-1)?.role !== "assistant"
		? event.attempt
		: undefined;
}

/** An answer that ended in an error or was aborted: print mode reports it and exits non-zero. */
function isFailed(answer: AssistantMessage): boolean {
	return answer.stopReason === "error" || answer.stopReason === "aborted";
}

function lastAssistant(session: AgentSession): AssistantMessage | undefined {
	const messages = session.messages;
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "assistant") return message;
		if (message.role === "user") return undefined;
	}
	return undefined;
}

/**
 * The text of the last answer of the last prompt's run that holds any (its text blocks joined by
 * newlines): the final answer, or, when that one is empty (the model wrote its report along with a
 * tool call, then stopped without a word), the latest earlier answer of the same run. Undefined
 * when no answer since the last user message holds text.
 */
function lastAnswerText(session: AgentSession): string | undefined {
	const messages = session.messages;
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role === "user") return undefined;
		if (message.role !== "assistant") continue;
		const text = textOf(message);
		if (text) return text;
	}
	return undefined;
}

/** The thinking characters of the answers since the last user message. */
function thoughtLength(session: AgentSession): number {
	let length = 0;
	for (let index = session.messages.length - 1; index >= 0; index--) {
		const message = session.messages[index]!;
		if (message.role === "user") break;
		if (message.role !== "assistant") continue;
		for (const block of message.content) if (block.type === "thinking") length += block.thinking.length;
	}
	return length;
}

/**
 * A run whose answers hold thinking and no text: "holds no text" alone reads as a run that did
 * nothing (DeepSeek-Reasonix#10301); where the model's words went, and where to read them.
 */
function onlyThinkingText(length: number): string {
	return `Warning: the model answered only in its thinking (${length} characters), with no text; nothing to print. settle --json shows the thinking (its thinking_delta events).\n`;
}

/** The run's latest answer text once `message` ended: a user message starts over, an answer with text replaces it. */
function answerTextAfter(latest: string | undefined, message: AgentMessage): string | undefined {
	if (message.role === "user") return undefined;
	if (message.role !== "assistant") return latest;
	const text = textOf(message);
	return text || latest;
}

/**
 * The session's `SESSION_LOCKED` failure in command-line terms, saying what became of this run:
 * refused at its first write (another process held the file), or its lock taken over mid-run —
 * then what it wrote before stays, and the answer printed above, if it is that one, is not in the file.
 */
function lockRefusalForCli(message: string, answerNotWritten: boolean): string {
	const lost = /^Lost the write lock on (.+?) \((.*)\); another writer may have taken over\./s.exec(message);
	if (!lost) {
		const outcome = answerNotWritten
			? "so the answer printed above was not written to it"
			: "so this run stopped before writing to it";
		return sessionLockedForCli(message, outcome) ?? message;
	}
	const [, file, why] = lost;
	const outcome = answerNotWritten
		? "so the answer printed above was not written to it"
		: "so this run stopped at its next write";
	return `Session file ${file} was taken over by another writer during this run (${why}): only one process may write a session at a time, ${outcome}; what this run wrote before stays in the file. Run again once that writer has exited (--session ${file} continues from what the file holds then), or carry on now in a new session (--fork ${file}).`;
}

/** The answer text that arrived is in no message of the transcript (the session drops an entry it could not write). */
function answerNotWritten(session: AgentSession, arrived: string | undefined): boolean {
	if (!arrived) return false;
	return !session.messages.some((message) => message.role === "assistant" && textOf(message) === arrived);
}

/** An answer's text blocks joined by newlines. */
function textOf(message: AssistantMessage): string {
	return message.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join("\n");
}

/**
 * The exit code of a failure by its `SettleError` code: 4 for `NO_AUTH` (no key, or the provider
 * refused it), 5 for `SESSION_LOCKED` (another process writes the session file), else 1.
 */
export function exitCodeOf(error: SettleError | undefined): number {
	if (error?.code === "NO_AUTH") return EXIT_AUTH;
	if (error?.code === "SESSION_LOCKED") return EXIT_SESSION_LOCKED;
	return EXIT_FAILURE;
}
