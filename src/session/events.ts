/**
 * The events `session.subscribe(listener)` delivers: every Agent event as is,
 * except `agent_end` which gains `willRetry`, plus the session's own events.
 */
import type { AgentEvent } from "../agent/types.js";
import type { CompactionResult, SummaryPart } from "../compaction/types.js";
import type { CompactionReason, NotificationType } from "../extensions/types.js";
import type { UIDialogRequest } from "../extensions/ui.js";
import type { ThinkingLevel } from "../llm/types.js";
import type { SessionEntry } from "../store/entries.js";

/** `agent_end` as listeners see it. */
export type SessionAgentEndEvent = Extract<AgentEvent, { type: "agent_end" }> & {
	/**
	 * True iff the session will retry this run: no abort requested, retry enabled, attempts left,
	 * and the run's last assistant message is a retryable error.
	 */
	willRetry: boolean;
	/** True when the run ended through an abort (its last answer is `aborted`), as newer pi's `aborted`. */
	aborted: boolean;
};

/** Events only the session emits. */
export type SessionOwnEvent =
	/** Once per started operation, after all automatic continuation. */
	| {
			type: "agent_settled";
			/**
			 * Set when the prompt got no answer and the context holds no error saying so: its request
			 * overflowed the context and overflow recovery could not compact it (nothing to compact, no
			 * model, the compaction failed or was cancelled). Says what happened and what to do.
			 */
			errorMessage?: string;
	  }
	/** Copies of the display lists of queued steering / follow-up texts. */
	| { type: "queue_update"; steering: string[]; followUp: string[] }
	| { type: "compaction_start"; reason: CompactionReason }
	| {
			type: "compaction_end";
			reason: CompactionReason;
			result: CompactionResult<unknown> | undefined;
			aborted: boolean;
			willRetry: boolean;
			errorMessage?: string;
			/**
			 * Settle's: the path of the extension whose `session_before_compact` handler cancelled
			 * (`aborted: true`); absent when `abort()` / `abortCompaction()` cancelled (pi#7492).
			 */
			cancelledBy?: string;
	  }
	/**
	 * Settle's: the latest compaction left the context still over the compaction threshold (the system
	 * prompt, tools and context files alone can be, kimi-code#2325), so threshold compactions wait
	 * until the conversation has grown by a kept tail. Once per session, again when another model or
	 * other compaction settings make it true anew. `contextTokens`: about what the compaction left;
	 * `message` names the numbers and what to change (`compaction.reserveTokens`, a larger window,
	 * fewer tools or a shorter system prompt / context files).
	 */
	| {
			type: "compaction_over_threshold";
			contextTokens: number;
			thresholdTokens: number;
			contextWindow: number;
			message: string;
	  }
	/** Before each retry backoff. */
	| { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
	/**
	 * A retry sequence ended: a successful answer (`success: true`), exhausted (`finalError`: the last
	 * error), or cancelled (`finalError: "Retry cancelled"`: `abortRetry()` / `abort()` in the backoff,
	 * or `abort()` while the retried request ran, before it answered — pi 0.73.1 says `success: true` then).
	 */
	| { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
	/**
	 * A compaction or branch-summary model call failed transiently and is retried after `delayMs`
	 * (`settings.retry`, as turn retries); `attempt` counts the retries of this call. `part` (Settle's)
	 * says which of a split-turn compaction's two summary calls it is: they run at the same time and
	 * retry on their own, so their events interleave.
	 */
	| {
			type: "summarization_retry_scheduled";
			attempt: number;
			maxAttempts: number;
			delayMs: number;
			errorMessage: string;
			part?: SummaryPart;
	  }
	/** The backoff passed: the retried summarization call starts now. */
	| { type: "summarization_retry_attempt_start"; source: "branchSummary" }
	| { type: "summarization_retry_attempt_start"; source: "compaction"; reason: CompactionReason; part?: SummaryPart }
	/** A summarization call that was retried ended (success, exhausted, non-retryable error or aborted). */
	| { type: "summarization_retry_finished"; part?: SummaryPart }
	/** A session entry appended outside `message_end` (context edits, custom entries, boundary drafts). */
	| { type: "entry_appended"; entry: SessionEntry }
	| { type: "session_info_changed"; name: string | undefined }
	| { type: "thinking_level_changed"; level: ThinkingLevel }
	/**
	 * Settle's: a model switch or thinking level applied, but the settings file could not take it as
	 * the default (read-only: a Nix store link). `message` names what applies, the file and why.
	 */
	| { type: "default_not_saved"; message: string }
	/** Output of `executeBash`, chunk by chunk. */
	| { type: "bash_execution_update"; id?: string; delta: string }
	/**
	 * An extension called `ctx.ui.notify(message, type)` and the host bound no UI
	 * (`bindExtensions({ uiContext })`): the notification is delivered here instead of being lost.
	 * Settle's (pi drops it). Not emitted when the host bound a UI: that UI's `notify` gets it.
	 * `extensionPath` names the extension that called it (its path, `<inline:N>` for an inline
	 * factory; as `ExtensionError.extensionPath`); absent only for a call that no extension's
	 * `ctx.ui` made (`session.extensionRunner.getUIContext().notify(…)`).
	 */
	| { type: "extension_notify"; message: string; notifyType: NotificationType; extensionPath?: string }
	/**
	 * An extension opened a dialog (`ctx.ui.select`, `confirm`, `input`, `editor`, `custom`) and the
	 * host bound no UI: nobody was asked, and the extension got `answer` at once — `false` for
	 * `confirm`, `undefined` for the others, as in pi without a UI (`ctx.hasUI` is false, so a careful
	 * extension does not ask). Settle's; not emitted when the host bound a UI. `extensionPath` names
	 * the extension that asked, as in `extension_notify`.
	 */
	| {
			type: "extension_dialog";
			kind: UIDialogRequest["kind"];
			title?: string;
			answer: false | undefined;
			extensionPath?: string;
	  };

/** Everything a session listener receives. */
export type AgentSessionEvent = Exclude<AgentEvent, { type: "agent_end" }> | SessionAgentEndEvent | SessionOwnEvent;

/** The `type` of every session event. */
export type AgentSessionEventType = AgentSessionEvent["type"];

/**
 * A session listener. Called synchronously, in subscription order; its return value is ignored
 * and never awaited. It must not throw: a throwing listener is skipped (the error is dropped) so it
 * can never break the session's bookkeeping.
 */
export type AgentSessionListener = (event: AgentSessionEvent) => void;
