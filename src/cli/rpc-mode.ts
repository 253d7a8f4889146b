/**
 * `settle --rpc`: pi's RPC protocol over stdin/stdout. Commands are JSON lines on stdin
 * (`{"id":"1","type":"prompt","message":"hi"}`); every response is one line
 * `{"id","type":"response","command","success","data"?|"error"?}`; session events (and
 * `extension_error` lines) are written as they happen. Extension dialogs are
 * `extension_ui_request` lines the host answers with `extension_ui_response` (see `rpc-ui.ts`).
 * The session may be replaced (new_session, switch_session, fork, clone, or an extension
 * command); events then come from the new session.
 *
 * Differences from pi 0.73.1, on purpose: a line that is not a JSON object with a string `type`
 * gets a `parse` error, under the object's string or number `id` as sent when it has one (pi
 * crashes on `null`, pi#4901, and answers without the id), and
 * a byte order mark ahead of a line is ignored (pi refuses the line);
 * missing or mistyped fields get a typed error naming the field; an unknown command's response
 * keeps its `id`; `export_html` answers as pi's does but writes Settle's page (src/export/);
 * commands after a session replacement or a model switch wait for it (and a prompt, steer or follow_up that arrives
 * while an extension command replaces the session waits for that replacement, then goes to the
 * current session; pi sends it to the old one); at the end of stdin the server finishes the running
 * work before it exits (pi disposes at once); a prompt's success response carries
 * `data: { disposition }` (`handled` | `queued` | `started` | `aborted`: aborted in its hooks, nothing
 * sent; and `runFollows` when a handled command sent messages), so a client knows whether an idle event will come (pi's response has no data;
 * pi's RpcClient ignores it). Added: `clear_queue` empties the steering and follow-up queues and
 * answers the texts it took (pi#9194: `abort` keeps them). An `extension_ui_response` whose `id`
 * no dialog was sent with gets a failed response naming the open dialogs (pi drops it: pilish#80).
 * A dialog still open when the session is replaced ends with its default, named on stderr (pi leaves
 * it open for an answer that would reach a disposed extension).
 */
import { join } from "node:path";
import type { Readable } from "node:stream";
import { errorMessage, SettleError } from "../errors.js";
import { loadReadline } from "../lazy-deps.js";
import { apiKeyEnvHint, cloudCredentialsHint, providerOfAuthError } from "../llm/provider-env.js";
import { jsonLine } from "../rpc/jsonl.js";
import type {
	RpcQueueMode as QueueMode,
	RpcClearedQueue,
	RpcCommand,
	RpcPromptResult,
	RpcQueueResult,
	RpcSwitchSessionResult,
} from "../rpc/types.js";
import { INVALID_FORK_ENTRY_MESSAGE, InvalidForkEntryError } from "../runtime/errors.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import { modelHint } from "../runtime/sdk.js";
import { type AgentSession, hasPendingExtensionSends, type PromptDisposition } from "../session/agent-session.js";
import { THINKING_LEVELS } from "./args.js";
import { sendToCurrentSession } from "./current-session.js";
import { bindForCli, type CliOutput, waitForReader } from "./print-mode.js";
import { createRpcUIContext, type RpcUIResponse } from "./rpc-ui.js";
import { destroyedStdinError, stdinState } from "./stdin-state.js";

/** Commands that replace the session: the commands after them start once they are done. */
const REPLACING_COMMANDS: ReadonlySet<string> = new Set(["new_session", "switch_session", "fork", "clone"]);
/** Commands that change the session's state asynchronously: the commands after them start once they are done. */
const SWITCHING_COMMANDS: ReadonlySet<string> = new Set(["set_model", "cycle_model"]);
/** Commands that do not wait for a model switch: they must reach a running operation at once. */
const IMMEDIATE_COMMANDS: ReadonlySet<string> = new Set(["abort", "abort_bash", "abort_retry", "steer", "follow_up"]);
const QUEUE_MODES: readonly string[] = ["all", "one-at-a-time"];

/** A response; its `id` is the command's as sent (a client may number its commands). */
type Response = {
	id?: string | number;
	type: "response";
	command: string;
	success: boolean;
	data?: unknown;
	error?: string;
};

/**
 * Serves commands until stdin ends (or an extension calls `ctx.shutdown()`), then waits for the
 * commands in flight and the session to settle, and disposes the runtime. Returns the exit code (0).
 *
 * Commands start in arrival order and do not wait for each other (as pi): `abort_bash` reaches a
 * running `bash`, `get_state` answers during a `compact`, and an `extension_ui_response` reaches
 * the dialog a command is waiting on. Only a session replacement (`new_session`, `switch_session`,
 * `fork`, `clone`) holds the commands after it until the new session is in place, a model switch
 * (`set_model`, `cycle_model`) holds them until it is done (all but `abort`, `abort_bash`,
 * `abort_retry`, `steer` and `follow_up`), and an `abort`
 * holds the `prompt`s after it until the aborted run has ended (oh-my-pi#69: pi refuses a prompt
 * sent right behind an abort with "Agent is already processing"). Stdin is read from the start,
 * while `session_start` runs (pi#8735): the commands wait for the first bind, a dialog's answer
 * does not.
 */
export async function runRpcMode(
	runtime: AgentSessionRuntime,
	input: Readable,
	out: CliOutput,
	/** Called once the first session's `session_start` and `resources_discover` handlers ran. */
	onSessionStarted?: () => void,
): Promise<number> {
	const write = (value: unknown) => out.stdout(jsonLine(value));
	let unsubscribe: (() => void) | undefined;
	/** The session whose events stdout carries. */
	let boundSession: AgentSession | undefined;
	let unwait: (() => void) | undefined;
	let shutdownRequested = false;
	// Ends the command loop; set once stdin's reader exists.
	let stopReading = () => {};
	const ui = createRpcUIContext(write, (line) => out.stderr(`${line}\n`));
	const bind = async (session: AgentSession) => {
		await bindForCli(session, "rpc", out, {
			uiContext: ui,
			onError: (error) =>
				write({ type: "extension_error", extensionPath: error.extensionPath, event: error.event, error: error.error }),
			shutdown: () => {
				shutdownRequested = true;
				// Asked from an event handler (agent_end), not a command: no next line may ever come.
				stopReading();
			},
		});
		unsubscribe?.();
		unwait?.();
		unwait = waitForReader(session, out);
		unsubscribe = session.subscribe((event) => write(event));
		// A replaced session's queue goes with it, silently (as in pi): a client still showing the
		// messages it was last told of is given the new session's lists (hermes-webui#4533).
		const previous = boundSession;
		boundSession = session;
		if (previous && previous !== session && previous.pendingMessageCount > 0)
			write({ type: "queue_update", steering: session.getSteeringMessages(), followUp: session.getFollowUpMessages() });
	};
	runtime.setRebindSession(bind);
	// The replaced session's open dialogs end with their defaults while its contexts still work (a
	// later answer reached a disposed extension, whose ctx.ui.notify threw). pi's protocol has no
	// host-side dismiss: stderr names each one, and why (a stopped settle replaced nothing).
	runtime.setBeforeSessionInvalidate(() => ui.dismissOpen(runtime.isDisposed ? "ending" : "replaced"));

	const success = (id: string | undefined, command: string, data?: unknown): Response =>
		data === undefined
			? { ...(id !== undefined ? { id } : {}), type: "response", command, success: true }
			: { ...(id !== undefined ? { id } : {}), type: "response", command, success: true, data };
	const failure = (id: string | number | undefined, command: string, error: unknown): Response => ({
		...(id !== undefined ? { id } : {}),
		type: "response",
		command,
		success: false,
		error: errorMessage(rpcErrorForCli(error, runtime.services.agentDir)),
	});

	/**
	 * The answer to a command that reads the session's state, taken and written in one step: awaited
	 * like the others, the run's events (agent_start) could pass it on stdout, and a client saw
	 * `isStreaming: false` after `agent_start` (hapi#1379). Undefined for other commands.
	 */
	const query = (command: RpcCommand): Response | undefined => {
		const id = command.id;
		const session = runtime.session;
		switch (command.type) {
			case "get_state":
				return success(id, "get_state", {
					model: withoutRequestHeaders(session.model),
					thinkingLevel: session.thinkingLevel,
					isStreaming: session.isStreaming,
					isCompacting: session.isCompacting,
					steeringMode: session.steeringMode,
					followUpMode: session.followUpMode,
					sessionFile: session.sessionFile,
					sessionId: session.sessionId,
					sessionName: session.sessionName,
					autoCompactionEnabled: session.autoCompactionEnabled,
					messageCount: session.messages.length,
					pendingMessageCount: session.pendingMessageCount,
					cwd: runtime.cwd,
					lifecycle: session.lifecycle,
					...(session.modelUnavailable === undefined ? {} : { modelUnavailable: session.modelUnavailable }),
				});
			case "get_session_stats": {
				// pi 0.73.1's shape (the RPC differential compares it) plus `cumulative`: the per-model split is SDK and /session only.
				const { byModel: _byModel, ...stats } = session.getSessionStats();
				return success(id, "get_session_stats", stats);
			}
			case "get_last_assistant_text":
				return success(id, "get_last_assistant_text", { text: session.getLastAssistantText() ?? null });
			case "get_messages":
				return success(id, "get_messages", { messages: session.messages });
			default:
				return undefined;
		}
	};

	const handle = async (command: RpcCommand): Promise<Response | undefined> => {
		const id = command.id;
		const session = runtime.session;
		switch (command.type) {
			case "prompt": {
				const message = requireString(command, "message");
				// The response is sent once the prompt was handled, queued or started (pi: after preflight).
				// Its data (Settle's addition; pi's client ignores it) says which, so a client knows
				// whether an idle event will come.
				let answered = false;
				let target = session;
				sendToCurrentSession(runtime, (current) => {
					target = current;
					return current.prompt(message, {
						source: "rpc",
						...(command.images ? { images: command.images } : {}),
						...(command.streamingBehavior ? { streamingBehavior: command.streamingBehavior } : {}),
						preflightResult: (disposition) => {
							answered = true;
							write(success(id, "prompt", promptResult(disposition, [current, runtime.session])));
						},
					});
				}).catch((error: unknown) => {
					if (answered) return;
					// An extension command that replaced the session ends the old session's prompt: that is success.
					const replaced =
						error instanceof SettleError && error.code === "SESSION_CLOSED" && runtime.session !== target;
					write(
						replaced ? success(id, "prompt", promptResult("handled", [runtime.session])) : failure(id, "prompt", error),
					);
				});
				return undefined;
			}
			case "steer": {
				const message = requireString(command, "message");
				const disposition = await sendToCurrentSession(runtime, (current) => current.steer(message, command.images));
				return success(id, "steer", { disposition } satisfies RpcQueueResult);
			}
			case "follow_up": {
				const message = requireString(command, "message");
				const disposition = await sendToCurrentSession(runtime, (current) => current.followUp(message, command.images));
				return success(id, "follow_up", { disposition } satisfies RpcQueueResult);
			}
			case "abort":
				await session.abort();
				return success(id, "abort");
			case "clear_queue":
				// What an interactive Esc puts back into the editor; `abort` alone keeps the queues (pi#9194).
				return success(id, "clear_queue", runtime.session.clearQueue() satisfies RpcClearedQueue);
			case "new_session": {
				const options = command.parentSession ? { parentSession: command.parentSession } : {};
				return success(id, "new_session", await runtime.newSession(options));
			}
			case "set_model": {
				const provider = requireString(command, "provider");
				const modelId = requireString(command, "modelId");
				const model = runtime.services.modelRuntime
					.getAvailable()
					.find((candidate) => candidate.provider === provider && candidate.id === modelId);
				if (!model) {
					const message = modelNotSelectableMessage(runtime, provider, modelId);
					return failure(id, "set_model", message);
				}
				await session.setModel(model);
				return success(id, "set_model", withoutRequestHeaders(model));
			}
			case "cycle_model": {
				const cycled = await session.cycleModel();
				return success(id, "cycle_model", cycled ? { ...cycled, model: withoutRequestHeaders(cycled.model) } : null);
			}
			case "get_available_models":
				return success(id, "get_available_models", {
					models: runtime.services.modelRuntime.getAvailable().map(withoutRequestHeaders),
				});
			case "set_thinking_level":
				if (!(THINKING_LEVELS as readonly unknown[]).includes(command.level)) {
					return failure(
						id,
						"set_thinking_level",
						`Invalid thinking level "${String(command.level)}". Valid values: ${THINKING_LEVELS.join(", ")}`,
					);
				}
				// pi#9768: a model that does not reason clamps the level (to off); the answer says what applies.
				session.setThinkingLevel(command.level);
				return success(id, "set_thinking_level", { level: session.thinkingLevel });
			case "cycle_thinking_level": {
				const level = session.cycleThinkingLevel();
				return success(id, "cycle_thinking_level", level === undefined ? null : { level });
			}
			case "set_steering_mode":
				session.setSteeringMode(requireQueueMode(command));
				return success(id, "set_steering_mode");
			case "set_follow_up_mode":
				session.setFollowUpMode(requireQueueMode(command));
				return success(id, "set_follow_up_mode");
			case "compact":
				return success(id, "compact", await session.compact(command.customInstructions));
			case "set_auto_compaction":
				session.setAutoCompactionEnabled(requireBoolean(command, "enabled"));
				return success(id, "set_auto_compaction");
			case "set_auto_retry":
				session.setAutoRetryEnabled(requireBoolean(command, "enabled"));
				return success(id, "set_auto_retry");
			case "abort_retry":
				session.abortRetry();
				return success(id, "abort_retry");
			case "bash": {
				// `excludeFromContext` (pi#5039, a later pi's field): run as `!!` does, saved but never sent to the model.
				const bashCommand = requireString(command, "command");
				const excludeFromContext = optionalBoolean(command, "excludeFromContext");
				// The request id tags each `bash_execution_update` (pi#6703, as later pi): commands run side by
				// side, and a host can only tell whose output a delta is by it.
				const options = id !== undefined ? { excludeFromContext, id } : { excludeFromContext };
				// During an extension's replacement it waits, and runs on the session current then (as a prompt).
				const result = await sendToCurrentSession(runtime, (current) =>
					current.executeBash(bashCommand, undefined, options),
				);
				return success(id, "bash", result);
			}
			case "abort_bash":
				session.abortBash();
				return success(id, "abort_bash");
			case "export_html":
				return success(id, "export_html", { path: await session.exportToHtml(optionalString(command, "outputPath")) });
			case "switch_session": {
				// pi's RPC: a path with no file starts a new session there; `created: true` (Settle's) tells
				// the host, as `--session <missing path>` warns, so a mistyped path is not taken for a resume.
				// Decided by the switch, not by a look before it: the current session's unwritten path may be
				// written by its own session_shutdown, and the switch then continues that file.
				const sessionPath = requireString(command, "sessionPath");
				const switched = await runtime.switchSession(sessionPath, { createIfMissing: true });
				return success(id, "switch_session", switched satisfies RpcSwitchSessionResult);
			}
			case "fork": {
				let result: Awaited<ReturnType<AgentSessionRuntime["fork"]>>;
				try {
					result = await runtime.fork(requireString(command, "entryId"));
				} catch (error) {
					// pi's exact text on the wire; the SDK's error goes on to say what to pass instead.
					if (error instanceof InvalidForkEntryError) return failure(id, "fork", INVALID_FORK_ENTRY_MESSAGE);
					throw error;
				}
				return success(id, "fork", { text: result.selectedText, cancelled: result.cancelled });
			}
			case "clone": {
				const leafId = session.sessionManager.getLeafId();
				if (!leafId) return failure(id, "clone", "Cannot clone session: no current entry selected");
				const result = await runtime.fork(leafId, { position: "at" });
				return success(id, "clone", { cancelled: result.cancelled });
			}
			case "get_fork_messages":
				return success(id, "get_fork_messages", { messages: session.getUserMessagesForForking() });
			case "set_session_name": {
				const name = requireString(command, "name").trim();
				if (!name) return failure(id, "set_session_name", "Session name cannot be empty");
				session.setSessionName(name);
				return success(id, "set_session_name");
			}
			case "get_commands":
				return success(id, "get_commands", { commands: session.getCommands() });
			default: {
				const unknown = command as { type?: unknown; id?: string };
				return failure(unknown.id, String(unknown.type), `Unknown command: ${String(unknown.type)}`);
			}
		}
	};

	const inFlight = new Set<Promise<void>>();
	let aborting: Promise<void> = Promise.resolve();
	let switching: Promise<void> = Promise.resolve();
	// An embedder may have read or destroyed stdin before runCli (pi#8587): the line reader would
	// wait for an end that already came, or never comes.
	const state = stdinState(input);
	if (state === "destroyed") throw destroyedStdinError("RPC commands");
	const lines = loadReadline().createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
	stopReading = () => lines.close();
	// The first bind runs `session_start` while stdin is already read (pi#8735: pi reads stdin only
	// after it, so a `session_start` dialog waited for an answer nobody read, for good). Commands
	// wait for it as for a session replacement; a dialog's answer reaches the dialog at once.
	let bindError: { error: unknown } | undefined;
	const firstBind = bind(runtime.session).then(onSessionStarted, (error: unknown) => {
		bindError = { error };
		lines.close();
	});
	let replacement: Promise<void> = firstBind;
	const run = async (command: RpcCommand) => {
		if (bindError) return;
		try {
			const response = query(command) ?? (await handle(command));
			if (response) write(response);
		} catch (error) {
			write(failure(command.id, command.type, error));
		}
		if (shutdownRequested) lines.close();
	};
	// An ended stdin holds no commands (a closed line reader's iterator would never finish either).
	for await (const line of state === "ended" ? [] : lines) {
		// A byte order mark ahead of a command (a .NET host's UTF-8 StreamWriter, PowerShell 5.1) is
		// not part of it: RFC 8259 lets a parser ignore it, JSON.parse refuses it.
		const text = line.startsWith("\uFEFF") ? line.slice(1) : line;
		if (text.trim() === "") continue;
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
			if (!parsed || typeof parsed !== "object" || typeof (parsed as { type?: unknown }).type !== "string")
				throw new SettleError("INVALID_ARGUMENT", 'a command is one JSON object per line with a string "type"');
		} catch (error) {
			// An object that carries an id gets it back (pi#4901), so the client waiting on it hears the refusal.
			write(failure(requestIdOf(parsed), "parse", `Failed to parse command: ${errorMessage(error)}`));
			continue;
		}
		if ((parsed as { type: string }).type === "extension_ui_response") {
			// The answer to a dialog (pi sends no response line for it).
			ui.answer(parsed as RpcUIResponse);
			continue;
		}
		const command = parsed as RpcCommand;
		// Commands after a session replacement wait for it, so they reach the new session (pi sends
		// a prompt that follows new_session to the old one, which is then disposed: it is lost).
		// A prompt sent right behind an abort is meant for after it: it waits for the run to end.
		// A command behind a model switch sees the switch done, and its answer follows the switch's
		// (a client reading get_state right behind set_model got the old model, answered first).
		const waits = [replacement];
		if (!IMMEDIATE_COMMANDS.has(command.type)) waits.push(switching);
		if (command.type === "prompt") waits.push(aborting);
		const before = Promise.all(waits);
		const task = before.then(() => run(command));
		if (REPLACING_COMMANDS.has(command.type)) replacement = task;
		if (SWITCHING_COMMANDS.has(command.type)) switching = task;
		if (command.type === "abort") aborting = task;
		inFlight.add(task);
		void task.finally(() => inFlight.delete(task));
		if (shutdownRequested) break;
	}
	lines.close();
	// Nobody can answer a dialog any more.
	ui.cancelAll();
	await firstBind;
	if (bindError) throw bindError.error;
	await Promise.all(inFlight);
	await runtime.session.waitForIdle();
	unsubscribe?.();
	unwait?.();
	await runtime.dispose();
	return 0;
}

/**
 * A prompt response's data: how the session took it, and for a handled prompt whether a run follows
 * (the command sent messages with `pi.sendUserMessage`; their run ends with its own idle event).
 */
function promptResult(disposition: PromptDisposition, sessions: readonly AgentSession[]): RpcPromptResult {
	if (disposition !== "handled" || !sessions.some(hasPendingExtensionSends)) return { disposition };
	return { disposition, runFollows: true };
}

/**
 * The `id` of a JSON object that is not a valid command (no string `type`), if it has a string or
 * number one: echoed as sent (`7` stays a number), as a valid command's is, so a client matching
 * ids hears the refusal.
 */
function requestIdOf(parsed: unknown): string | number | undefined {
	if (!parsed || typeof parsed !== "object") return undefined;
	const id = (parsed as { id?: unknown }).id;
	return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
}

/** A command's string field; a clear error when it is missing (pi's was "Cannot read properties of undefined"). */
function requireString<T extends object>(command: T, field: keyof T & string): string {
	const value = command[field];
	if (typeof value !== "string") throw invalidField(command, field, "a string");
	return value;
}

/** An optional string field: undefined when absent, a clear error when it is something else. */
function optionalString<T extends object>(command: T, field: keyof T & string): string | undefined {
	return command[field] === undefined ? undefined : requireString(command, field);
}

function requireBoolean<T extends object>(command: T, field: keyof T & string): boolean {
	const value = command[field];
	if (typeof value !== "boolean") throw invalidField(command, field, "true or false");
	return value;
}

/** An optional boolean field: undefined when absent, a clear error when it is something else. */
function optionalBoolean<T extends object>(command: T, field: keyof T & string): boolean | undefined {
	return command[field] === undefined ? undefined : requireBoolean(command, field);
}

function requireQueueMode(command: { type: string; mode: unknown }): QueueMode {
	if (!QUEUE_MODES.includes(command.mode as string)) throw invalidField(command, "mode", '"all" or "one-at-a-time"');
	return command.mode as QueueMode;
}

/** Names clients give a message's text by mistake (pi#2461, pi#9465: pi crashed on `startsWith`). */
const MESSAGE_ALIASES = ["text", "content", "prompt"];

function invalidField(command: object, field: string, expected: string): SettleError {
	const type = (command as { type: string }).type;
	const fields = command as Record<string, unknown>;
	const value = fields[field];
	let got = value === undefined ? "it is missing" : `got ${JSON.stringify(value)}`;
	const alias =
		value === undefined && field === "message"
			? MESSAGE_ALIASES.find((name) => typeof fields[name] === "string")
			: undefined;
	if (alias) got += `; the text goes in "message", not "${alias}"`;
	return new SettleError("INVALID_ARGUMENT", `${type}: "${field}" must be ${expected} (${got})`, {
		details: { command: type, field },
	});
}

/**
 * The SDK's no-model and missing-key texts tell a program which model runtime call to make; an
 * RPC client of `settle` fixes it with a key, `set_model` or the command line. The first line
 * stays pi's (`No model selected.`, `No API key found for <provider>.`).
 */
function rpcErrorForCli(error: unknown, agentDir: string): unknown {
	if (!(error instanceof SettleError) || (error.code !== "NO_MODEL" && error.code !== "NO_AUTH")) return error;
	const provider = error.code === "NO_AUTH" ? providerOfAuthError(error) : undefined;
	const whose = provider === undefined ? "a provider's" : "the provider's";
	const cloud = provider === undefined ? undefined : cloudCredentialsHint(provider);
	const keyHint = cloud
		? `${cloud.replace(/\.$/, "")} (in the environment of settle)`
		: `Set ${whose} key in the environment of settle (${apiKeyEnvHint(provider)}) or in ${join(agentDir, "auth.json")}`;
	const then =
		error.code === "NO_MODEL"
			? "then select a model with set_model, or start settle with --model <provider/id> (--faux for the offline model)"
			: "or select another model with set_model";
	return `${error.message.split("\n")[0]} ${keyHint}, ${then}.`;
}

/**
 * Why `set_model` cannot select `provider/modelId`, and what to do: pi's `Model not found: p/id`
 * first (clients match it), then the fix, as the command line's `--model` error says it — the
 * provider's key when the model is known but has no credentials, else what the provider serves (or
 * models with a similar id) and the known providers — and the command that lists what can be selected.
 */
function modelNotSelectableMessage(runtime: AgentSessionRuntime, provider: string, modelId: string): string {
	const { modelRuntime, agentDir } = runtime.services;
	const spec = `${provider}/${modelId}`;
	const list = "get_available_models lists the models you can select";
	if (modelRuntime.getModel(provider, modelId)) {
		return `Model not found: ${spec}: ${provider} has no credentials. Set its key in the environment of settle (${apiKeyEnvHint(provider)}) or in ${join(agentDir, "auth.json")}, then send set_model again; ${list}.`;
	}
	const all = modelRuntime.getAll();
	const providers = [...new Set(all.map((model) => model.provider))];
	const known = providers.length > 0 ? providers.join(", ") : "none";
	const hint = provider ? modelHint(modelRuntime, spec, provider.length) : modelHint(modelRuntime, modelId, -1);
	return `Model not found: ${spec}.${hint} Known providers: ${known}; ${list}.`;
}

/**
 * A model as RPC lines show it: without `headers`, which hold the request headers resolved from
 * models.json or `pi.registerProvider` (a team token, a value read from an environment variable).
 * pi keeps those out of its model objects and resolves them per request; Settle's models carry them.
 */
function withoutRequestHeaders<T extends { headers?: unknown } | undefined>(model: T): T {
	if (!model || model.headers === undefined) return model;
	const { headers: _headers, ...rest } = model;
	return rest as T;
}
