/**
 * `RpcClient`: drives `settle --rpc` (or pi's `--mode rpc`) as a child process. pi 0.73.1's
 * `RpcClient` method names and shapes, plus what a host needs to never hang: pending calls reject
 * at once with a typed error when the process exits, failed responses reject, dialogs are answered.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { errorMessage, SettleError } from "../errors.js";
import { callListener, reportListenerError } from "../listener-errors.js";
import { attachJsonLineReader } from "./jsonl.js";
import type {
	AgentMessage,
	BashResult,
	CompactionResult,
	ImageContent,
	Model,
	RpcClearedQueue,
	RpcCommand,
	RpcEvent,
	RpcExtensionUIAnswer,
	RpcExtensionUIDialog,
	RpcForkResult,
	RpcModelCycle,
	RpcPromptResult,
	RpcQueueMode,
	RpcQueueResult,
	RpcResponse,
	RpcSessionState,
	RpcSessionStats,
	RpcSwitchSessionResult,
	RpcThinkingLevelResult,
	SlashCommandInfo,
	ThinkingLevel,
} from "./types.js";

/** Answers an extension dialog; `undefined` (or a throw) cancels it. `signal` aborts when the answer is no longer wanted. */
export type RpcExtensionUIHandler = (
	request: RpcExtensionUIDialog,
	signal: AbortSignal,
) => RpcExtensionUIAnswer | undefined | Promise<RpcExtensionUIAnswer | undefined>;

/** Options of {@link RpcClient}. pi's `cliPath`, `cwd`, `env`, `provider`, `model`, `args`, and Settle's own. */
export interface RpcClientOptions {
	/** The CLI file run with `node <cliPath> --mode rpc` (default: this package's `settle` command). */
	cliPath?: string;
	/**
	 * The whole command line instead (`[file, ...args]`, no shell), e.g. `["pi", "--mode", "rpc"]` or
	 * `[process.execPath, "dist/cli.js", "--rpc"]`. `provider`/`model`/`args` are appended.
	 */
	command?: readonly string[];
	/** Working directory of the agent. */
	cwd?: string;
	/** Added to this process's environment (`undefined` removes a variable), e.g. `{ SETTLE_AGENT_DIR }`. */
	env?: Record<string, string | undefined>;
	/** With `model`: passed as `--model <provider>/<model>` (settle has no `--provider`). */
	provider?: string;
	/** `--model <id>` (or `<provider>/<id>` with `provider`). */
	model?: string;
	/** More command-line arguments (e.g. `["--faux", "--no-session"]`). */
	args?: string[];
	/**
	 * Rejects a request not answered within this many ms with `OPERATION_STALLED` (default: no limit;
	 * pi's is 30 s, which fails a longer `bash` or `compact`). `start()` is not limited by it.
	 */
	requestTimeoutMs?: number;
	/**
	 * Answers extension dialogs (`select`, `confirm`, `input`, `editor`). Without it every dialog is
	 * cancelled at once (the extension gets its default), so an extension never waits on a host
	 * that cannot answer.
	 *
	 * @example
	 * ```ts
	 * const plugin = new RpcClient({
	 *   onExtensionUIRequest: async (request, signal) => {
	 *     if (request.method === "confirm") return { confirmed: true };
	 *     if (request.method === "select") return { value: request.options[0]! };
	 *     return undefined; // input, editor: cancelled
	 *   },
	 * });
	 * ```
	 */
	onExtensionUIRequest?: RpcExtensionUIHandler;
	/** Called with the child's stderr as it comes (it is collected for {@link RpcClient.getStderr} either way). */
	onStderr?: (text: string) => void;
	/** `stop()` sends SIGTERM, then SIGKILL after this many ms (default 3000). */
	killAfterMs?: number;
}

/** How the process ended. */
export interface RpcExitStatus {
	code: number | null;
	signal: NodeJS.Signals | null;
}

interface Pending {
	command: string;
	resolve: (data: unknown) => void;
	reject: (error: SettleError) => void;
	timer?: ReturnType<typeof setTimeout>;
}

const DIALOG_METHODS: ReadonlySet<string> = new Set(["select", "confirm", "input", "editor"]);
/** What stays of the child's stderr (getStderr, error messages): a crash's last lines matter, not hours of warnings. */
const STDERR_KEEP = 1 << 20;
const STDERR_IN_ERRORS = 2000;
/** After `exit`, how long stdout may stay open (a grandchild holding it) before pending calls are rejected anyway. */
const STDOUT_DRAIN_MS = 250;
const DEFAULT_WAIT_MS = 60_000;

/**
 * A client of `settle --rpc`: spawns it, sends typed commands, correlates responses, delivers
 * events. The same method names and shapes as pi 0.73.1's `RpcClient`, so switching is a change of
 * import; it can drive pi's `--mode rpc` too (`command` option).
 *
 * Never hangs on a dead child: when the process exits, every pending call rejects at once with a
 * `SettleError` `SESSION_CLOSED` (exit code, signal and the end of its stderr in the message and
 * `details`). A response with `success: false` rejects with `COMMAND_FAILED` and the server's text.
 *
 * @example
 * ```ts
 * import { RpcClient } from "settle/rpc";
 *
 * const settle = new RpcClient({ cwd, args: ["--faux", "--no-session"] });
 * await settle.start();
 * const events = await settle.promptAndWait("hello");
 * console.log(events.at(-1)?.type, await settle.getLastAssistantText()); // agent_settled hello
 * await settle.stop();
 * ```
 */
export class RpcClient {
	private readonly options: RpcClientOptions;
	private child: ChildProcessWithoutNullStreams | undefined;
	private readonly listeners = new Set<(event: RpcEvent) => void>();
	private readonly pending = new Map<string, Pending>();
	private readonly dialogs = new Set<AbortController>();
	/** Called once when the process is gone (exit, spawn failure, stop), with the error pending work gets. */
	private readonly closeHooks = new Set<(error: SettleError, stopped: boolean) => void>();
	/** Called when a prompt was handled with no run going on or following: no idle event will come for it. */
	private readonly handledHooks = new Set<() => void>();
	/** A run has started (a prompt said so, or `agent_start`) and its idle event has not come yet. */
	private runActive = false;
	private requestId = 0;
	private stderr = "";
	private idleType: "agent_settled" | "agent_end" = "agent_settled";
	private closedWith: SettleError | undefined;
	private stopRequested = false;
	private stopping: Promise<void> | undefined;
	private exitStatus: RpcExitStatus | undefined;
	private closed: Promise<void> = Promise.resolve();
	/** Lines read but not handled yet (see {@link receiveLine}), and who waits for them to be. */
	private lines: string[] = [];
	private linesPaused = false;
	private afterLines: (() => void)[] = [];

	constructor(options: RpcClientOptions = {}) {
		this.options = options;
	}

	/**
	 * Spawns the server and waits until it answers (`get_state`). Rejects with `SESSION_CLOSED` when
	 * it exits first (a bad argument, a missing file: its stderr is in the message).
	 *
	 * @example
	 * ```ts
	 * const pi = new RpcClient({ cwd, command: ["pi", "--mode", "rpc"] }); // pi's own RPC mode
	 * await pi.start();
	 * ```
	 */
	async start(): Promise<void> {
		if (this.child) throw new SettleError("BUSY", "The RPC client is already started: call stop() before start().");
		const [file, ...args] = this.commandLine();
		this.stderr = "";
		this.closedWith = undefined;
		this.stopRequested = false;
		this.stopping = undefined;
		this.exitStatus = undefined;
		this.runActive = false;
		this.lines = [];
		this.linesPaused = false;
		this.afterLines = [];
		const child = spawn(file!, args, {
			cwd: this.options.cwd,
			env: { ...process.env, ...this.options.env },
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.child = child;
		// A write after the child died fails with EPIPE: the exit handler rejects what is pending.
		child.stdin.on("error", () => {});
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (text: string) => {
			this.stderr = (this.stderr + text).slice(-STDERR_KEEP);
			if (this.options.onStderr) callListener("rpcClient.onStderr", this.options.onStderr, text);
		});
		attachJsonLineReader(child.stdout, (line) => this.receiveLine(line));
		this.closed = new Promise<void>((resolve) => {
			let done = false;
			const finish = (spawnError?: Error) => {
				if (done) return;
				done = true;
				// The lines already read come first: their events reach the waiters before the close does.
				this.whenLinesHandled(() => {
					this.close(spawnError);
					resolve();
				});
			};
			child.on("error", (error) => finish(error));
			child.on("exit", (code, signal) => {
				this.exitStatus = { code, signal };
				// Lines still buffered in stdout come first; a grandchild holding stdout must not hold us.
				if (child.stdout.readableEnded) finish();
				else {
					const drained = setTimeout(finish, STDOUT_DRAIN_MS);
					child.stdout.once("end", () => {
						clearTimeout(drained);
						finish();
					});
				}
			});
		});
		// No requestTimeoutMs here: loading a project's extensions may take a while, and an exit rejects anyway.
		const state = await this.request<RpcSessionState>({ type: "get_state" }, Number.POSITIVE_INFINITY).catch(
			async (error: unknown) => {
				await this.stop();
				throw error;
			},
		);
		// Settle's get_state names the lifecycle; its runs end with agent_settled (after retries and compaction).
		this.idleType = state.lifecycle !== undefined ? "agent_settled" : "agent_end";
	}

	/**
	 * Stops the process (SIGTERM, SIGKILL after `killAfterMs`) and resolves once it has exited.
	 * Pending calls reject with `SESSION_CLOSED`. Idempotent; `start()` may be called again after.
	 *
	 * @example
	 * ```ts
	 * await Promise.all([client.stop(), client.stop()]); // one process, stopped once
	 * ```
	 */
	stop(): Promise<void> {
		const child = this.child;
		if (!child) return Promise.resolve();
		this.stopping ??= (async () => {
			this.stopRequested = true;
			this.rejectPending(this.closedError("the client was stopped (stop())"));
			if (!this.closedWith) {
				child.kill("SIGTERM");
				const force = setTimeout(() => child.kill("SIGKILL"), this.options.killAfterMs ?? 3000);
				await this.closed;
				clearTimeout(force);
			}
			this.child = undefined;
		})();
		return this.stopping;
	}

	/** The server's process id while it runs (to watch or signal it yourself). */
	get pid(): number | undefined {
		return this.closedWith ? undefined : this.child?.pid;
	}

	/** How the process ended; undefined while it runs (or before `start()`). */
	get exit(): RpcExitStatus | undefined {
		return this.exitStatus;
	}

	/**
	 * The event that ends a run for {@link waitForIdle}: `agent_settled` for Settle (after retries and
	 * compaction), `agent_end` for pi (its `RpcClient` waits for that one).
	 */
	get idleEvent(): "agent_settled" | "agent_end" {
		return this.idleType;
	}

	/**
	 * Subscribes to every event line; returns the unsubscribe function. A throwing listener is
	 * skipped (reported once as a `LISTENER` process warning).
	 *
	 * @example
	 * ```ts
	 * const off = client.onEvent((event) => {
	 *   if (event.type === "message_update") console.log(event.assistantMessageEvent.type);
	 * });
	 * off();
	 * ```
	 */
	onEvent(listener: (event: RpcEvent) => void): () => void {
		const own = (event: RpcEvent) => listener(event);
		this.listeners.add(own);
		return () => {
			this.listeners.delete(own);
		};
	}

	/**
	 * Events as an async iterator, from now on. It ends when the client is stopped or `signal`
	 * aborts, and throws `SESSION_CLOSED` after the last event when the process died.
	 *
	 * @example
	 * ```ts
	 * const controller = new AbortController();
	 * for await (const event of client.events({ signal: controller.signal })) {
	 *   if (event.type === "agent_settled") controller.abort();
	 * }
	 * ```
	 */
	events(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<RpcEvent> {
		const buffered: RpcEvent[] = [];
		let wake: (() => void) | undefined;
		let ended = false;
		let failure: SettleError | undefined;
		const stop = () => {
			ended = true;
			off();
			this.closeHooks.delete(onClose);
			options.signal?.removeEventListener("abort", stop);
			wake?.();
		};
		const off = this.onEvent((event) => {
			buffered.push(event);
			wake?.();
		});
		const onClose = (error: SettleError, stopped: boolean) => {
			if (!stopped) failure = error;
			stop();
		};
		if (!this.child) {
			// After stop() the stream is simply over; before start() there is nothing to listen to.
			onClose(this.closedError("the client is not started: call start() first"), this.stopRequested);
		} else if (this.closedWith) onClose(this.closedWith, false);
		else this.closeHooks.add(onClose);
		if (options.signal?.aborted) stop();
		else options.signal?.addEventListener("abort", stop, { once: true });
		const iterator: AsyncIterableIterator<RpcEvent> = {
			next: async () => {
				while (buffered.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
				wake = undefined;
				if (buffered.length > 0) return { value: buffered.shift()!, done: false };
				if (failure) {
					const error = failure;
					failure = undefined;
					throw error;
				}
				return { value: undefined, done: true };
			},
			return: async () => {
				stop();
				buffered.length = 0;
				return { value: undefined, done: true };
			},
			[Symbol.asyncIterator]: () => iterator,
		};
		return iterator;
	}

	/** The child's stderr so far (its last MiB). */
	getStderr(): string {
		return this.stderr;
	}

	/**
	 * Sends a prompt. Resolves once the server accepted it (the run goes on: use {@link onEvent},
	 * {@link waitForIdle} or {@link promptAndWait}); rejects with `COMMAND_FAILED` when it refused it
	 * (no model, no key, …) — no run started then, and waiters of {@link waitForIdle} resolve at once
	 * unless a run goes on. `streamingBehavior` queues it while a run streams.
	 *
	 * Settle's server says how it took the prompt: `handled` (an extension command or `input` hook:
	 * no run started, and waiters of {@link waitForIdle} resolve at once unless a run goes on),
	 * `queued`, `started`, or `aborted` (an `abort` during its `input` / `before_agent_start` hooks:
	 * nothing was sent or saved; the idle event still follows). pi's server says nothing (undefined).
	 *
	 * @example
	 * ```ts
	 * const idle = client.waitForIdle();
	 * const result = await client.prompt("/deploy staging"); // { disposition: "handled" }
	 * await idle; // resolved: the command started no run
	 * ```
	 */
	async prompt(
		message: string,
		images?: ImageContent[],
		streamingBehavior?: "steer" | "followUp",
	): Promise<RpcPromptResult | undefined> {
		const data = await this.request<unknown>({ type: "prompt", message, images, streamingBehavior });
		return promptResultOf(data);
	}

	/**
	 * Queues a steering message while a run streams: delivered after the current tool calls. Resolves
	 * to whether it was queued or an extension's `input` hook took it ({@link RpcQueueResult};
	 * undefined when the server is pi, whose response has no data).
	 *
	 * @example
	 * ```ts
	 * const idle = client.waitForIdle();
	 * await client.prompt("Refactor src/");
	 * const steered = await client.steer("Leave the tests alone");
	 * if (steered?.disposition === "handled") console.log("an extension took the steer");
	 * await client.followUp("Then run the tests");
	 * await idle;
	 * ```
	 */
	async steer(message: string, images?: ImageContent[]): Promise<RpcQueueResult | undefined> {
		return await this.request<RpcQueueResult | undefined>({ type: "steer", message, images });
	}

	/** Queues a follow-up message: delivered when the run would end (see {@link steer}, also for what it resolves to). */
	async followUp(message: string, images?: ImageContent[]): Promise<RpcQueueResult | undefined> {
		return await this.request<RpcQueueResult | undefined>({ type: "follow_up", message, images });
	}

	/**
	 * Aborts the running request (its shell commands are killed); the run still ends with its events.
	 *
	 * @example
	 * ```ts
	 * const ended = client.waitForIdle();
	 * await client.abort();
	 * await ended;
	 * ```
	 */
	async abort(): Promise<void> {
		await this.request({ type: "abort" });
	}

	/**
	 * Empties the steering and follow-up queues and resolves with the texts that will now not be
	 * delivered (Settle's addition, pi#9194): `abort` alone keeps them for the next prompt. Clear, then
	 * abort, to stop and put the queued texts back into your own editor as pi's interactive Esc does.
	 * A {@link steer} / {@link followUp} still in an extension's `input` hook is dropped and returned
	 * too; that call then rejects with `COMMAND_FAILED` (oh-my-pi#10563). Custom messages extensions
	 * queued stay queued (pi#9886).
	 *
	 * @example
	 * ```ts
	 * const { steering, followUp } = await client.clearQueue();
	 * await client.abort();
	 * const draft = [...steering, ...followUp].join("\n"); // back into the editor
	 * ```
	 */
	clearQueue(): Promise<RpcClearedQueue> {
		return this.request({ type: "clear_queue" });
	}

	/**
	 * Starts a new session (`parentSession`: lineage); `cancelled` when an extension refused.
	 * Commands sent after it reach the new session (Settle holds them until it is in place).
	 *
	 * @example
	 * ```ts
	 * const { cancelled } = await client.newSession();
	 * if (!cancelled) console.log((await client.getState()).sessionFile);
	 * ```
	 */
	newSession(parentSession?: string): Promise<{ cancelled: boolean }> {
		return this.request({ type: "new_session", parentSession });
	}

	/** The session's state (model, streaming, queue modes, session file, …). */
	getState(): Promise<RpcSessionState> {
		return this.request({ type: "get_state" });
	}

	/**
	 * Selects a model; rejects with `COMMAND_FAILED` when it is not available: pi's "Model not found:
	 * <provider>/<id>", and from `settle --rpc` what to do after it (the provider's key, or what there is).
	 */
	setModel(provider: string, modelId: string): Promise<Model> {
		return this.request({ type: "set_model", provider, modelId });
	}

	/** Switches to the next model; null when there is none. */
	cycleModel(): Promise<RpcModelCycle> {
		return this.request({ type: "cycle_model" });
	}

	/** The models with credentials. */
	async getAvailableModels(): Promise<Model[]> {
		return (await this.request<{ models: Model[] }>({ type: "get_available_models" })).models;
	}

	/**
	 * Sets the thinking level; resolves to the level that now applies (a model that does not reason
	 * stays `off`), or undefined when the server is pi, which does not say.
	 *
	 * @example
	 * ```ts
	 * const applied = await client.setThinkingLevel("high");
	 * if (applied && applied.level !== "high") console.log(`thinking stays ${applied.level}`);
	 * ```
	 */
	async setThinkingLevel(level: ThinkingLevel): Promise<RpcThinkingLevelResult | undefined> {
		const data = await this.request<RpcThinkingLevelResult | undefined>({ type: "set_thinking_level", level });
		return data ?? undefined;
	}

	/** Switches to the next thinking level; null when the model has no reasoning. */
	cycleThinkingLevel(): Promise<{ level: ThinkingLevel } | null> {
		return this.request({ type: "cycle_thinking_level" });
	}

	/** How queued steering messages are delivered. */
	async setSteeringMode(mode: RpcQueueMode): Promise<void> {
		await this.request({ type: "set_steering_mode", mode });
	}

	/** How queued follow-up messages are delivered. */
	async setFollowUpMode(mode: RpcQueueMode): Promise<void> {
		await this.request({ type: "set_follow_up_mode", mode });
	}

	/** Compacts the context now. */
	compact(customInstructions?: string): Promise<CompactionResult> {
		return this.request({ type: "compact", customInstructions });
	}

	/** Turns automatic compaction on or off. */
	async setAutoCompaction(enabled: boolean): Promise<void> {
		await this.request({ type: "set_auto_compaction", enabled });
	}

	/** Turns automatic retry on or off. */
	async setAutoRetry(enabled: boolean): Promise<void> {
		await this.request({ type: "set_auto_retry", enabled });
	}

	/** Cancels a retry backoff. */
	async abortRetry(): Promise<void> {
		await this.request({ type: "abort_retry" });
	}

	/**
	 * Runs a shell command in the session. Its output joins the context, unless
	 * `excludeFromContext` (as `!!cmd`): then it is saved in the session but never sent to the model.
	 *
	 * @example
	 * ```ts
	 * declare const client: RpcClient;
	 * const status = await client.bash("git status --short", { excludeFromContext: true });
	 * console.log(status.output);
	 * ```
	 */
	bash(command: string, options: { excludeFromContext?: boolean } = {}): Promise<BashResult> {
		return this.request({
			type: "bash",
			command,
			...(options.excludeFromContext !== undefined ? { excludeFromContext: options.excludeFromContext } : {}),
		});
	}

	/** Stops the running `bash` command. */
	async abortBash(): Promise<void> {
		await this.request({ type: "abort_bash" });
	}

	/** Message, token and cost totals. */
	getSessionStats(): Promise<RpcSessionStats> {
		return this.request({ type: "get_session_stats" });
	}

	/** Writes the session as one HTML page; resolves with its path. */
	exportHtml(outputPath?: string): Promise<{ path: string }> {
		return this.request({ type: "export_html", outputPath });
	}

	/**
	 * Continues another session file. A path with no file starts a new, empty session there (as pi
	 * does) and resolves with `created: true` (Settle's server; pi's omits it): check it to catch a
	 * mistyped path.
	 *
	 * @example
	 * ```ts
	 * const { created } = await client.switchSession("/home/me/notes/sesion.jsonl");
	 * if (created) console.warn("No session file there: started a new session at that path");
	 * ```
	 */
	switchSession(sessionPath: string): Promise<RpcSwitchSessionResult> {
		return this.request({ type: "switch_session", sessionPath });
	}

	/** A new session just before the user message `entryId` (see {@link getForkMessages}). */
	fork(entryId: string): Promise<RpcForkResult> {
		return this.request({ type: "fork", entryId });
	}

	/** The current branch copied into a new session, which becomes current. */
	clone(): Promise<{ cancelled: boolean }> {
		return this.request({ type: "clone" });
	}

	/** The user messages one can fork before. */
	async getForkMessages(): Promise<{ entryId: string; text: string }[]> {
		return (await this.request<{ messages: { entryId: string; text: string }[] }>({ type: "get_fork_messages" }))
			.messages;
	}

	/** The last answer's text, or null. */
	async getLastAssistantText(): Promise<string | null> {
		return (await this.request<{ text: string | null }>({ type: "get_last_assistant_text" })).text;
	}

	/** Names the session. */
	async setSessionName(name: string): Promise<void> {
		await this.request({ type: "set_session_name", name });
	}

	/** The session's messages. */
	async getMessages(): Promise<AgentMessage[]> {
		return (await this.request<{ messages: AgentMessage[] }>({ type: "get_messages" })).messages;
	}

	/** Extension commands, prompt templates and skills. */
	async getCommands(): Promise<SlashCommandInfo[]> {
		return (await this.request<{ commands: SlashCommandInfo[] }>({ type: "get_commands" })).commands;
	}

	/**
	 * Resolves at the next {@link idleEvent}. Call it before the command that starts the run, or right
	 * after awaiting that command (pi's `await prompt(); await waitForIdle()`): the events after an
	 * answer reach listeners only once the code awaiting it has run, so a run that ended in the chunk
	 * that carried the answer is not missed (pi#8965). Rejects
	 * with `OPERATION_STALLED` once `timeout` ms (default 60 s) pass without an event — a run that
	 * streams for ten minutes is waited for (pi's client rejects at 60 s however busy the run) — and
	 * `SESSION_CLOSED` when the process exits first. With Settle's server it also resolves when a prompt is handled (an extension
	 * command, an `input` hook) while no run goes on and none follows: no idle event comes then.
	 * Likewise, with any server, when a prompt is refused (`COMMAND_FAILED`) while no run goes on.
	 *
	 * @example
	 * ```ts
	 * const idle = client.waitForIdle();
	 * await client.prompt("/stats"); // an extension command that starts no run
	 * await idle; // resolves at once, not after 60 s
	 * ```
	 */
	async waitForIdle(timeout = DEFAULT_WAIT_MS): Promise<void> {
		await this.collectEvents(timeout);
	}

	/**
	 * The events up to and including the next {@link idleEvent} (rejects as {@link waitForIdle}).
	 *
	 * @example
	 * ```ts
	 * const collecting = client.collectEvents(120_000);
	 * await client.prompt("Fix the failing test");
	 * const toolCalls = (await collecting).filter((event) => event.type === "tool_execution_start").length;
	 * ```
	 */
	collectEvents(timeout = DEFAULT_WAIT_MS): Promise<RpcEvent[]> {
		return new Promise<RpcEvent[]>((resolve, reject) => {
			const events: RpcEvent[] = [];
			let timer: ReturnType<typeof setTimeout> | undefined;
			const done = () => {
				clearTimeout(timer);
				off();
				this.closeHooks.delete(onClose);
				this.handledHooks.delete(onHandled);
			};
			const onHandled = () => {
				done();
				resolve(events);
			};
			const onClose = (error: SettleError) => {
				done();
				reject(error);
			};
			if (this.closedWith || !this.child) {
				reject(this.closedWith ?? this.closedError("the client is not started"));
				return;
			}
			const off = this.onEvent((event) => {
				events.push(event);
				if (event.type !== this.idleType) {
					// A run that still sends events is not stalled, however long it takes: only silence counts.
					timer?.refresh();
					return;
				}
				done();
				resolve(events);
			});
			this.closeHooks.add(onClose);
			this.handledHooks.add(onHandled);
			if (Number.isFinite(timeout) && timeout > 0) {
				timer = setTimeout(() => {
					done();
					reject(
						new SettleError(
							"OPERATION_STALLED",
							`No ${this.idleType}, and no event for ${timeout} ms: the run is stalled (a silent tool still running?), or no run started (pi's server does not say when an extension command starts none). Pass a longer timeout, or abort().${this.stderrNote()}`,
							{ details: { timeoutMs: timeout, stderr: this.stderrTail() } },
						),
					);
				}, timeout);
			}
		});
	}

	/**
	 * Sends a prompt and resolves with its events once the run is over — or, with Settle's server,
	 * once an extension command or `input` hook handled it without a run (the events it caused so far).
	 *
	 * @example
	 * ```ts
	 * const events = await client.promptAndWait("What changed?");
	 * const answer = events.filter((event) => event.type === "message_end").at(-1);
	 * ```
	 */
	async promptAndWait(message: string, images?: ImageContent[], timeout = DEFAULT_WAIT_MS): Promise<RpcEvent[]> {
		const events = this.collectEvents(timeout);
		// A refused prompt rejects below; its idle wait must not become an unhandled rejection.
		events.catch(() => {});
		await this.prompt(message, images);
		return events;
	}

	/** Sends one command and resolves with its `data`. */
	private request<T>(command: RpcCommand, timeout = this.options.requestTimeoutMs): Promise<T> {
		const child = this.child;
		if (!child || this.closedWith || this.stopRequested) {
			const why = this.stopRequested
				? "the client was stopped (stop())"
				: `the client is not started (call start() first), "${command.type}" was not sent`;
			return Promise.reject(this.closedWith ?? this.closedError(why));
		}
		const id = `req_${++this.requestId}`;
		return new Promise<T>((resolve, reject) => {
			const entry: Pending = { command: command.type, resolve: resolve as (data: unknown) => void, reject };
			if (timeout !== undefined && Number.isFinite(timeout) && timeout > 0) {
				entry.timer = setTimeout(() => {
					this.pending.delete(id);
					reject(
						new SettleError(
							"OPERATION_STALLED",
							`No response to "${command.type}" within ${timeout} ms (requestTimeoutMs). The server is alive but busy or stuck; raise requestTimeoutMs, or stop() and start again.${this.stderrNote()}`,
							{ details: { command: command.type, timeoutMs: timeout, stderr: this.stderrTail() } },
						),
					);
				}, timeout);
			}
			this.pending.set(id, entry);
			child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
		});
	}

	/**
	 * Handles the lines in order. After a line that answers a request, the lines after it wait for the
	 * next macrotask, so code that awaited the answer runs first: `await client.prompt(…); await
	 * client.waitForIdle()` then cannot miss an idle event that came in the same chunk as the answer
	 * (pi#8965: pi's client waits out its timeout there).
	 */
	private receiveLine(line: string): void {
		this.lines.push(line);
		if (!this.linesPaused) this.handleLines();
	}

	private handleLines(): void {
		let next = 0;
		while (next < this.lines.length) {
			const answered = this.handleLine(this.lines[next++]!);
			// The reader hands over a chunk's lines one by one: the pause holds the rest of it too.
			if (answered) {
				this.lines = this.lines.slice(next);
				this.linesPaused = true;
				setImmediate(() => {
					this.linesPaused = false;
					this.handleLines();
				});
				return;
			}
		}
		this.lines = [];
		const waiting = this.afterLines;
		this.afterLines = [];
		for (const callback of waiting) callback();
	}

	/** Runs `callback` once every line read so far has been handled. */
	private whenLinesHandled(callback: () => void): void {
		if (this.linesPaused) this.afterLines.push(callback);
		else callback();
	}

	/** Handles one line; true when it answered a pending request. */
	private handleLine(line: string): boolean {
		let data: unknown;
		try {
			data = JSON.parse(line);
		} catch {
			return false; // not a protocol line (a stray log): as pi, skip it
		}
		if (!data || typeof data !== "object" || Array.isArray(data)) return false;
		const message = data as { type?: unknown; id?: unknown; method?: unknown };
		if (message.type === "response" && typeof message.id === "string") {
			const pending = this.pending.get(message.id);
			if (pending) {
				this.pending.delete(message.id);
				clearTimeout(pending.timer);
				const response = data as RpcResponse;
				if (response.success && pending.command === "prompt") this.notePrompt(promptResultOf(response.data));
				if (response.success) pending.resolve(response.data);
				else {
					const error =
						typeof response.error === "string"
							? response.error
							: `"${pending.command}" failed without an error text (${JSON.stringify(data)})`;
					pending.reject(new SettleError("COMMAND_FAILED", error, { details: { command: pending.command, error } }));
					// A refused prompt started nothing: waiters end now unless a run goes on.
					if (pending.command === "prompt") this.releaseWaiters();
				}
				return true;
			}
		}
		if (typeof message.type !== "string") return false;
		if (message.type === "agent_start") this.runActive = true;
		else if (message.type === this.idleType) this.runActive = false;
		for (const listener of [...this.listeners]) callListener("rpcClient.onEvent", listener, data as RpcEvent);
		if (
			message.type === "extension_ui_request" &&
			typeof message.id === "string" &&
			DIALOG_METHODS.has(String(message.method))
		) {
			void this.answerDialog(data as RpcExtensionUIDialog);
		}
		return false;
	}

	/** A prompt's disposition: a run to wait for, or none (the waiters resolve now). */
	private notePrompt(result: RpcPromptResult | undefined): void {
		if (!result) return; // pi's server: no disposition, the waiters wait for the idle event
		if (result.disposition !== "handled" || result.runFollows) {
			this.runActive = true;
			return;
		}
		this.releaseWaiters();
	}

	/** A prompt ended without a run: {@link waitForIdle} / {@link collectEvents} waiters resolve, unless a run goes on. */
	private releaseWaiters(): void {
		if (this.runActive) return; // the run going on ends with the idle event the waiters want
		for (const hook of [...this.handledHooks]) hook();
	}

	private async answerDialog(request: RpcExtensionUIDialog): Promise<void> {
		const handler = this.options.onExtensionUIRequest;
		let answer: RpcExtensionUIAnswer | undefined;
		if (handler) {
			const controller = new AbortController();
			this.dialogs.add(controller);
			// The server gives up on a dialog with a timeout by itself; the handler hears it.
			const timer =
				"timeout" in request && request.timeout ? setTimeout(() => controller.abort(), request.timeout) : undefined;
			try {
				answer = await handler(request, controller.signal);
			} catch (error) {
				reportListenerError("rpcClient.onExtensionUIRequest", handler, error);
				answer = undefined;
			} finally {
				clearTimeout(timer);
				this.dialogs.delete(controller);
			}
		}
		this.write({ type: "extension_ui_response", id: request.id, ...(answer ?? { cancelled: true }) });
	}

	private write(value: unknown): void {
		const child = this.child;
		if (!child || this.closedWith || !child.stdin.writable) return;
		child.stdin.write(`${JSON.stringify(value)}\n`);
	}

	/** The process is gone: reject everything waiting, once. */
	private close(spawnError?: Error): void {
		const status = this.exitStatus;
		const how = spawnError
			? `could not be started (${errorMessage(spawnError)}): check the command or cliPath, and cwd`
			: status?.signal
				? `was killed by ${status.signal}`
				: `exited with code ${status?.code ?? "unknown"}`;
		const error = this.stopRequested
			? this.closedError("the client was stopped (stop())")
			: this.closedError(`the process ${how}`, spawnError);
		this.closedWith = error;
		this.rejectPending(error);
		for (const controller of this.dialogs) controller.abort();
		for (const hook of [...this.closeHooks]) hook(error, this.stopRequested);
		this.closeHooks.clear();
	}

	private rejectPending(error: SettleError): void {
		const entries = [...this.pending.values()];
		this.pending.clear();
		for (const entry of entries) {
			clearTimeout(entry.timer);
			const pendingError = new SettleError(
				error.code,
				error.message.replace("RPC server:", `RPC server (while "${entry.command}" was pending):`),
				{
					...(error.cause === undefined ? {} : { cause: error.cause }),
					details: { ...error.details, command: entry.command },
				},
			);
			entry.reject(pendingError);
		}
	}

	private closedError(what: string, cause?: unknown): SettleError {
		const status = this.exitStatus;
		return new SettleError(
			"SESSION_CLOSED",
			`RPC server: ${what}. Nothing more can be sent; start a client again (await client.start()) to go on — what the session wrote to its file is kept.${this.stderrNote()}`,
			{
				...(cause === undefined ? {} : { cause }),
				details: {
					exitCode: status?.code ?? null,
					signal: status?.signal ?? null,
					stderr: this.stderrTail(),
					commandLine: this.child ? this.child.spawnargs : undefined,
				},
			},
		);
	}

	private stderrTail(): string {
		return this.stderr.slice(-STDERR_IN_ERRORS);
	}

	private stderrNote(): string {
		const tail = this.stderrTail().trim();
		return tail ? ` Its stderr ends with:\n${tail}` : "";
	}

	/** `[file, ...args]` to spawn. */
	private commandLine(): string[] {
		const { provider, model, args = [] } = this.options;
		if (provider !== undefined && model === undefined) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`provider "${provider}" needs model too: settle selects models as --model <provider>/<id>.`,
			);
		}
		const modelArgs = model === undefined ? [] : ["--model", provider === undefined ? model : `${provider}/${model}`];
		if (this.options.command) {
			if (this.options.command.length === 0)
				throw new SettleError("INVALID_ARGUMENT", "command must name a program: [file, ...args].");
			return [...this.options.command, ...modelArgs, ...args];
		}
		return [process.execPath, this.options.cliPath ?? settleCli(), "--mode", "rpc", ...modelArgs, ...args];
	}
}

/** A prompt response's data as Settle's server sends it; undefined for anything else (pi's server sends none). */
function promptResultOf(data: unknown): RpcPromptResult | undefined {
	if (!data || typeof data !== "object") return undefined;
	const { disposition, runFollows } = data as { disposition?: unknown; runFollows?: unknown };
	if (disposition !== "handled" && disposition !== "queued" && disposition !== "started" && disposition !== "aborted")
		return undefined;
	return runFollows === true ? { disposition, runFollows: true } : { disposition };
}

/** This package's CLI: dist/cli.js next to the built entry, or the repository's build when run from sources. */
function settleCli(): string {
	const paths = ["./cli.js", "../../dist/cli.js"].map((candidate) =>
		fileURLToPath(new URL(candidate, import.meta.url)),
	);
	const found = paths.find((path) => existsSync(path));
	if (found) return found;
	// A host that bundled settle/rpc into its own file moved this module away from dist/cli.js.
	throw new SettleError(
		"NOT_FOUND",
		`The settle command was not found next to settle/rpc (looked for ${paths.join(" and ")}). ` +
			"If your app bundles settle/rpc, pass cliPath (the installed node_modules/settle/dist/cli.js) or command to RpcClient; " +
			"in Settle's repository, run `npm run build`.",
	);
}
