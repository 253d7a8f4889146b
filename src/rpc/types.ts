/**
 * The RPC protocol of `settle --rpc` (pi 0.73.1's, with Settle's additions), as types: the commands
 * a host writes, the responses and events it reads, and the extension dialogs it answers.
 */
import type { CompactionResult } from "../compaction/types.js";
import type { SlashCommandInfo } from "../extensions/types.js";
import type { AgentMessage, ImageContent, Model, ThinkingLevel } from "../llm/types.js";
import type { BashResult } from "../session/bash-runner.js";
import type { AgentSessionEvent } from "../session/events.js";
import type { ModelCycleResult } from "../session/model-cycling.js";
import type { SessionStats } from "../session/session-stats.js";

/** How queued steering / follow-up messages are delivered. */
export type RpcQueueMode = "all" | "one-at-a-time";

/**
 * One command line (pi 0.73.1's names and fields); `id` correlates the response. The server
 * (src/cli/rpc-mode.ts) serves this very type, so client and server cannot drift apart.
 */
export type RpcCommand = { id?: string } & (
	| { type: "prompt"; message: string; images?: ImageContent[]; streamingBehavior?: "steer" | "followUp" }
	| { type: "steer"; message: string; images?: ImageContent[] }
	| { type: "follow_up"; message: string; images?: ImageContent[] }
	| { type: "abort" }
	/** Settle's addition (pi#9194): empties both queues; the data is {@link RpcClearedQueue}. */
	| { type: "clear_queue" }
	| { type: "new_session"; parentSession?: string }
	| { type: "get_state" }
	| { type: "set_model"; provider: string; modelId: string }
	| { type: "cycle_model" }
	| { type: "get_available_models" }
	| { type: "set_thinking_level"; level: ThinkingLevel }
	| { type: "cycle_thinking_level" }
	| { type: "set_steering_mode"; mode: RpcQueueMode }
	| { type: "set_follow_up_mode"; mode: RpcQueueMode }
	| { type: "compact"; customInstructions?: string }
	| { type: "set_auto_compaction"; enabled: boolean }
	| { type: "set_auto_retry"; enabled: boolean }
	| { type: "abort_retry" }
	| { type: "bash"; command: string; excludeFromContext?: boolean }
	| { type: "abort_bash" }
	| { type: "get_session_stats" }
	| { type: "export_html"; outputPath?: string }
	| { type: "switch_session"; sessionPath: string }
	| { type: "fork"; entryId: string }
	| { type: "clone" }
	| { type: "get_fork_messages" }
	| { type: "get_last_assistant_text" }
	| { type: "set_session_name"; name: string }
	| { type: "get_messages" }
	| { type: "get_commands" }
);

/** The `type` of every command. */
export type RpcCommandType = RpcCommand["type"];

/** One response line: `data` on success, the server's error text otherwise. */
export type RpcResponse =
	| { id?: string; type: "response"; command: string; success: true; data?: unknown }
	| { id?: string; type: "response"; command: string; success: false; error: string };

/**
 * A `prompt` response's data (Settle's addition: pi's server sends none). `handled`: an extension
 * command or an `input` hook took the prompt and no run started for it, so no idle event comes —
 * unless `runFollows` (the command sent messages, e.g. `pi.sendUserMessage`, that start a run);
 * `queued`: the run going on delivers it (`streamingBehavior`); `started`: a run started;
 * `aborted`: an `abort` came during its `input` / `before_agent_start` hooks, so nothing was sent
 * or saved (resend it); its operation still ends with the idle event, as a started one does.
 */
export interface RpcPromptResult {
	disposition: "handled" | "queued" | "started" | "aborted";
	/** Only with `handled`: a run the command asked for follows (and ends with its idle event). */
	runFollows?: true;
}

/**
 * A `clear_queue` response's data (Settle's addition; pi 0.73.1 has no such command, pi#9194): the
 * queued texts that will now not be delivered, what an interactive Esc puts back into the editor. A
 * message the run has already taken for the current turn is still delivered and is not listed.
 */
export interface RpcClearedQueue {
	steering: string[];
	followUp: string[];
}

/**
 * A `steer` / `follow_up` response's data (Settle's addition: pi 0.73.1's server sends none;
 * pi#9803): `queued` — the message waits in its queue (and is listed in `queue_update`); `handled` —
 * an extension's `input` hook took it and nothing was queued for it (a message the hook sent itself
 * is the hook's own, not this command's).
 */
export interface RpcQueueResult {
	disposition: "handled" | "queued";
}

/**
 * A `set_thinking_level` response's data (Settle's addition: pi 0.73.1's server sends none): the
 * level that now applies, which differs from the one asked for when the model cannot use it (a model
 * that does not reason is always `off`; pi#9768).
 */
export interface RpcThinkingLevelResult {
	level: ThinkingLevel;
}

/**
 * `switch_session`'s answer. `created: true` (Settle's addition; absent otherwise and from pi's server):
 * no file was at the path, so a new, empty session was started there, as pi does; a mistyped path
 * lands here too, so tell the user (the CLI's `--session <missing path>` warns).
 */
export interface RpcSwitchSessionResult {
	cancelled: boolean;
	created?: true;
}

/**
 * `get_state`'s answer. `cwd`, `lifecycle` and `modelUnavailable` are Settle's additions (absent when the server is pi).
 */
export interface RpcSessionState {
	model?: Model;
	thinkingLevel: ThinkingLevel;
	isStreaming: boolean;
	isCompacting: boolean;
	steeringMode: RpcQueueMode;
	followUpMode: RpcQueueMode;
	sessionFile?: string;
	sessionId: string;
	sessionName?: string;
	autoCompactionEnabled: boolean;
	messageCount: number;
	pendingMessageCount: number;
	/** Settle only: the session's working directory. */
	cwd?: string;
	/** Settle only: the session's lifecycle state (`idle`, `streaming`, …). */
	lifecycle?: string;
	/**
	 * Settle only, present when `model` cannot be requested now: why (its provider was unregistered),
	 * the text the next prompt's error carries. `model` stays the selection.
	 */
	modelUnavailable?: string;
}

/**
 * `get_session_stats`'s answer: pi 0.73.1's shape (no per-model split), plus Settle's
 * `cumulative` (every model call in the session file, all branches; never goes down after a
 * compaction — gsd-2#1423).
 */
export type RpcSessionStats = Omit<SessionStats, "byModel">;

/** A dialog an extension opens; the client answers it (see `RpcClientOptions.onExtensionUIRequest`). */
export type RpcExtensionUIDialog =
	| { type: "extension_ui_request"; id: string; method: "select"; title: string; options: string[]; timeout?: number }
	| { type: "extension_ui_request"; id: string; method: "confirm"; title: string; message: string; timeout?: number }
	| { type: "extension_ui_request"; id: string; method: "input"; title: string; placeholder?: string; timeout?: number }
	| { type: "extension_ui_request"; id: string; method: "editor"; title: string; prefill?: string; timeout?: number };

/** What an extension shows without waiting for an answer (delivered as events). */
export type RpcExtensionUINotice =
	| {
			type: "extension_ui_request";
			id: string;
			method: "notify";
			message: string;
			notifyType?: "info" | "warning" | "error";
	  }
	| { type: "extension_ui_request"; id: string; method: "setStatus"; statusKey: string; statusText: string | undefined }
	| {
			type: "extension_ui_request";
			id: string;
			method: "setWidget";
			widgetKey: string;
			widgetLines: string[] | undefined;
			widgetPlacement?: "aboveEditor" | "belowEditor";
	  }
	| { type: "extension_ui_request"; id: string; method: "setTitle"; title: string }
	| { type: "extension_ui_request"; id: string; method: "set_editor_text"; text: string };

/** Every `extension_ui_request` line. */
export type RpcExtensionUIRequest = RpcExtensionUIDialog | RpcExtensionUINotice;

/**
 * A host's answer to a dialog: the chosen or typed text (`select`, `input`, `editor`), the
 * confirmation (`confirm`), or `{ cancelled: true }` (the extension gets its default).
 */
export type RpcExtensionUIAnswer = { value: string } | { confirmed: boolean } | { cancelled: true };

/** A failure inside an extension handler, reported as a line of its own. */
export interface RpcExtensionErrorEvent {
	type: "extension_error";
	extensionPath: string;
	event: string;
	error: string;
}

/**
 * Every line that is not the response to one of this client's requests: session events
 * (`agent_start` … `agent_end`, Settle's `agent_settled`, `queue_update`, …), extension UI
 * requests (dialogs too; the dialog handler answers them), extension errors, and (as in pi's
 * client) a response whose id this client did not send.
 */
export type RpcEvent = AgentSessionEvent | RpcExtensionUIRequest | RpcExtensionErrorEvent | RpcResponse;

/** `cycle_model`'s answer (null when there is no other model). */
export type RpcModelCycle = ModelCycleResult | null;

/** `fork`'s answer: the text of the message forked before (absent when cancelled). */
export interface RpcForkResult {
	text?: string;
	cancelled: boolean;
}

/** Re-exported data shapes the responses carry. */
export type { AgentMessage, BashResult, CompactionResult, ImageContent, Model, SlashCommandInfo, ThinkingLevel };
