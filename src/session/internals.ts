/**
 * What the session's modules share (internal). The facade ({@link AgentSession}) assembles one
 * {@link SessionInternals} and hands it to the event bridge, the prompt pipeline, the machine's
 * actors, the boundaries and the compaction runner, so each stays a focused module.
 */

import type {
	PreflightOutcome,
	PromptOperationEvent,
	PromptOperationSnapshot,
} from "../../machines/prompt-operation.machine.js";
import type { Agent } from "../agent/agent.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { ModelRuntime } from "../llm/model-runtime.js";
import type { AssistantMessage, Model, ToolResultMessage } from "../llm/types.js";
import type { ResourceLoader } from "../resources/types.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import type { SessionManager } from "../store/session-manager.js";
import type { CacheWarmer } from "./cache-warmer.js";
import type { CustomMessage, SystemMessage } from "./messages.js";
import type { PublicEvents } from "./public-events.js";
import type { SessionQueues } from "./queues.js";
import type { ToolLoadout } from "./tool-loadout.js";
import type { Transcript } from "./transcript.js";
import type { RequestRouter } from "./virtual-routing.js";

/** Per-run and per-operation scratch state (reset at run start / settle). Never the transcript. */
export interface OperationScratch {
	/** The last assistant message of the current run, recorded at its `message_end` . */
	lastAssistant: AssistantMessage | undefined;
	/** Tool results of the last finished turn (overflow recovery omits them). */
	turnToolResults: ToolResultMessage[];
	/** Messages the current run added (`message_end`s); 0 after a run = no progress (`RunOutcome.madeProgress`). */
	runMessageCount: number;
	/** `turnIndex` of extension `turn_start` / `turn_end` events (reset at `agent_start`). */
	turnIndex: number;
	/**
	 * The current run has emitted its `agent_end` (reset at `agent_start`): it takes no more turns, so
	 * a custom message sent now without `triggerTurn` waits for the settle instead of steering (pi#9379).
	 */
	runEnded: boolean;
	/** `before_agent_start` forced this operation's system prompt (request projection only, never persisted). */
	forcedSystemPrompt: string | undefined;
	/** The system message built for this operation's prompt, until it is persisted (re-synced if it never is). */
	promptSystemMessage: SystemMessage | undefined;
	/** `abort()` arrived while the `agent_before_settle` boundary ran. */
	boundaryAborted: boolean;
	/**
	 * The `agent_before_settle` dispatch in progress: its handlers' `ctx.signal` (no run is active
	 * then), aborted by `abort()` or `dispose()` meanwhile (oh-my-pi#6489).
	 */
	boundaryController: AbortController | undefined;
	/**
	 * Set when this operation's last request overflowed and overflow recovery could not compact
	 * (the failed response is already out of the context): `agent_settled.errorMessage`. A later
	 * run of the operation clears it.
	 */
	unanswered: string | undefined;
	/**
	 * That unanswered request was taken out of the context: messages queued meanwhile run next, even
	 * on a context left with no message (the next run clears it).
	 */
	unansweredOmitted: boolean;
	/**
	 * Settling could not write what waited for the run (a bash result, a custom message: the file
	 * deleted, a full disk; they stay pending), or a retry or overflow recovery its context edit
	 * (nothing is re-run):
	 * the operation's `prompt()` fails with this after `agent_settled`.
	 */
	settleWriteFailure: unknown;
	/** Abort handle of the running compaction. */
	compactionController: AbortController | undefined;
	/** Resumes the request preparation waiting for its compaction (`request_compaction_done`, or dispose). */
	requestCompactionDone: (() => void) | undefined;
	/**
	 * Abort flag of the running preflight, made before its first await (`abort()` then skips what is
	 * left), and the next-turn messages it took for its run. A plain object: an AbortController per
	 * prompt costs more, and nothing listens to it.
	 */
	preflightAbort: { aborted: boolean; nextTurn?: CustomMessage[] } | undefined;
	/**
	 * Depth of the session's own dispatch in progress (commands, `input` / `before_agent_start`
	 * handlers, `agent_settled`): `waitForIdle()` called meanwhile resolves at once.
	 */
	dispatchDepth: number;
	/**
	 * The `agent_settled` dispatch in progress: its handlers' `ctx.signal`, aborted by `abort()` or
	 * `dispose()` meanwhile (the run is over, but a handler may still hold work; pi-agents#139).
	 */
	settledController: AbortController | undefined;
	/**
	 * The prompt whose `agent_settled` the host's listeners have been sent, until its
	 * `operation_settled`: a dispose from such a listener ends that prompt as settled.
	 */
	settledAnnounced: string | undefined;
	/** Depth of `before_agent_start` dispatches in progress: a custom message they trigger skips the hook. */
	beforeAgentStartDepth: number;
	/**
	 * The preflight in progress and what it will produce: a prompt whose extension command disposes
	 * the session (ctx.newSession / fork / switchSession) still resolves once the command is done.
	 */
	runningPreflight: { requestId: string; outcome: Promise<PreflightOutcome> } | undefined;
	/**
	 * A manual compaction is saved and its `session_compact` handlers (then `compaction_end`
	 * listeners) run: what an extension sends now runs once the compaction is over (pi#9647).
	 */
	manualCompactionSaved: boolean;
	/** Resumes the preflight waiting after its dispatch (`preflight_dispatch_released`, or dispose). */
	dispatchReleased: (() => void) | undefined;
	/** Tool calls dispose() answered as aborted: their late results from the detached run are not written. */
	answeredAtDispose: ReadonlySet<string> | undefined;
}

export function createOperationScratch(): OperationScratch {
	return {
		lastAssistant: undefined,
		turnToolResults: [],
		runMessageCount: 0,
		turnIndex: 0,
		runEnded: false,
		forcedSystemPrompt: undefined,
		promptSystemMessage: undefined,
		boundaryAborted: false,
		boundaryController: undefined,
		unanswered: undefined,
		unansweredOmitted: false,
		settleWriteFailure: undefined,
		compactionController: undefined,
		requestCompactionDone: undefined,
		preflightAbort: undefined,
		dispatchDepth: 0,
		beforeAgentStartDepth: 0,
		settledController: undefined,
		settledAnnounced: undefined,
		runningPreflight: undefined,
		manualCompactionSaved: false,
		dispatchReleased: undefined,
		answeredAtDispose: undefined,
	};
}

export interface SessionInternals {
	readonly agent: Agent;
	readonly sessionManager: SessionManager;
	readonly settingsManager: SettingsManager;
	readonly resourceLoader: ResourceLoader;
	readonly modelRuntime: ModelRuntime;
	readonly cwd: string;
	readonly events: PublicEvents;
	readonly transcript: Transcript;
	readonly queues: SessionQueues;
	readonly loadout: ToolLoadout;
	/** Routes requests of a virtual selection; told about retries. */
	readonly router: RequestRouter;
	readonly scratch: OperationScratch;
	/** The current extension runner (replaced on reload). */
	runner(): ExtensionRunner;
	/** The prompt-operation actor's snapshot. */
	snapshot(): PromptOperationSnapshot;
	/** Sends an event to the prompt-operation actor. */
	send(event: PromptOperationEvent): void;
	/** `session.isStreaming`. */
	isStreaming(): boolean;
	/** The selected model, or undefined when none is selected. */
	model(): Model | undefined;
	/** The session's prompt-cache warmer (told when a run settles), if it has one. */
	readonly cacheWarmer: CacheWarmer | undefined;
	/** Prepares the Agent for a run (installs the hooks the run needs). */
	beforeRun(): void;
	/** Waits on the session's clock (summarization retry backoff); rejects when `signal` aborts. */
	sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

/**
 * Whether a bash result or a custom message recorded now waits for a safe point: while an operation
 * runs, and while a tree navigation runs (written now, it would stay on the branch being left).
 */
export function holdsSideMessages(s: SessionInternals): boolean {
	return s.isStreaming() || s.snapshot().context.treeNavigation !== undefined;
}
