/**
 * The two extension boundaries of the document version: `turn_end`, run from the
 * Agent's `finishTurn` hook before the core `turn_end` event, and `agent_before_settle`, run by
 * the machine's `beforeSettle` actor. Handlers draft entries and may ask to continue; the session
 * previews the context the drafts would produce, commits valid drafts (`entry_appended` each) and
 * continues only when the context can run a model call.
 *
 * Without handlers neither boundary builds a preview or touches the transcript.
 */

import type { BeforeSettleInput, BeforeSettleOutput } from "../../machines/prompt-operation.machine.js";
import { DEFAULT_TOOL_ABORT_GRACE_MS, lastNonSystemMessage } from "../agent/agent-loop.js";
import type { AgentTurnContext, FinishTurnDecision } from "../agent/types.js";
import { SettleError } from "../errors.js";
import type {
	BoundaryBase,
	BoundaryContextPreview,
	BoundaryDispatchResult,
	BoundaryEntryDraft,
	BoundaryOutcome,
} from "../extensions/types.js";
import { estimateContextTokens } from "../llm/tokens.js";
import type { AgentMessage, AssistantMessage, Message } from "../llm/types.js";
import type { SessionEntry } from "../store/entries.js";
import { contextEntriesOfPath, projectContextEntries } from "../store/projection.js";
import { convertMessageToLlm } from "./convert-to-llm.js";
import type { SessionInternals } from "./internals.js";
import { usageStillCurrent } from "./session-stats.js";

/** `completed` / `aborted` / `error` from a stop reason. */
export function boundaryOutcome(message: AssistantMessage | undefined): BoundaryOutcome {
	if (message?.stopReason === "aborted") return "aborted";
	if (message?.stopReason === "error") return "error";
	return "completed";
}

/**
 * The Agent's `finishTurn` hook: the `turn_end` boundary. Resolves `"continue"` when a handler
 * asked for one more model call and the context allows it. Free without `turn_end` handlers.
 */
export async function finishTurnBoundary(
	s: SessionInternals,
	turn: AgentTurnContext,
	signal?: AbortSignal,
): Promise<FinishTurnDecision> {
	const runner = s.runner();
	if (!runner.hasHandlers("turn_end")) return undefined;
	const messageEntryId = s.transcript.entryIdOf(turn.message) ?? "";
	const toolResultEntryIds: string[] = [];
	for (const result of turn.toolResults) {
		const id = s.transcript.entryIdOf(result);
		if (id) toolResultEntryIds.push(id);
	}
	const result = await dispatchUntilAbandoned(
		s,
		{
			type: "turn_end",
			turnIndex: s.scratch.turnIndex,
			message: turn.message,
			toolResults: turn.toolResults,
			messageEntryId,
			toolResultEntryIds,
			outcome: boundaryOutcome(turn.message),
		},
		signal,
	);
	if (result === ABANDONED) return undefined;
	if (result.valid && result.entries.length > 0) commitDrafts(s, result.entries);
	return result.continue ? "continue" : undefined;
}

/**
 * The machine's `beforeSettle` actor: the `agent_before_settle` boundary (pi's
 * `runBeforeSettleBoundary`). Without handlers: continue only when messages are queued.
 */
export async function beforeSettleBoundary(s: SessionInternals, input: BeforeSettleInput): Promise<BeforeSettleOutput> {
	const runner = s.runner();
	if (!runner.hasHandlers("agent_before_settle")) return { continue: canRunQueued(s) };
	s.scratch.boundaryAborted = false;
	const controller = new AbortController();
	s.scratch.boundaryController = controller;
	let result: BoundaryDispatchResult | typeof ABANDONED;
	try {
		result = await dispatchUntilAbandoned(
			s,
			{ type: "agent_before_settle", outcome: input.outcome },
			controller.signal,
		);
	} finally {
		if (s.scratch.boundaryController === controller) s.scratch.boundaryController = undefined;
	}
	if (result === ABANDONED) {
		s.queues.flushPendingCustom();
		return { continue: false };
	}
	if (result.valid && result.entries.length > 0) commitDrafts(s, result.entries);
	s.queues.flushPendingCustom();
	if (s.scratch.boundaryAborted) return { continue: false };
	// A handler's request was checked by the runner against the preview; queued messages always may run.
	const requested = result.continue && canContinueNow(s);
	return { continue: requested || canRunQueued(s) };
}

/** What {@link untilAbandoned} resolves to when the abort stopped waiting for the handlers. */
const ABANDONED = Symbol("abandoned");

/**
 * The boundary's handlers, or {@link ABANDONED} once `signal` has been aborted for the abort grace
 * with one still running: it is named, and the handlers after it never start (they would run late,
 * against the next answer).
 */
async function dispatchUntilAbandoned(
	s: SessionInternals,
	base: BoundaryBase,
	signal: AbortSignal | undefined,
): Promise<BoundaryDispatchResult | typeof ABANDONED> {
	const abandoned = new AbortController();
	let running = "";
	// As long as for a tool that ignores the abort.
	const graceMs = s.agent.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS;
	const emission = s.runner().emitBoundary(base, (drafts) => previewContext(s, drafts, base.type), {
		abandoned: abandoned.signal,
		signal,
		graceMs,
		onHandler: (extensionPath) => {
			running = extensionPath;
		},
	});
	if (!signal) return emission;
	const result = await untilAbandoned(s, emission, signal, graceMs);
	if (result === ABANDONED) {
		abandoned.abort();
		reportAbandoned(s, base.type, running, graceMs);
	}
	return result;
}

/** As for a tool that ignores its signal: the abort does not wait for the handler, and its late drafts are dropped. */
function reportAbandoned(
	s: SessionInternals,
	event: BoundaryBase["type"],
	extensionPath: string,
	graceMs: number,
): void {
	s.runner().emitError({
		extensionPath,
		event,
		error:
			`Operation aborted: ${event === "agent_before_settle" ? "an" : "a"} ${event} handler did not return within ${graceMs} ms of the abort, ` +
			"so its entries were dropped and the run was not continued. An extension handler should return once ctx.signal aborts.",
	});
}

/**
 * `work`, or {@link ABANDONED} once `signal` has been aborted for `graceMs` (on the session's clock) and `work` has still not settled: a handler that ignores the abort must not
 * hold `abort()` (oh-my-pi#6489).
 */
function untilAbandoned<T>(
	s: SessionInternals,
	work: Promise<T>,
	signal: AbortSignal,
	graceMs: number,
): Promise<T | typeof ABANDONED> {
	const settled = new AbortController();
	let wait = () => {};
	const gaveUp = new Promise<typeof ABANDONED>((resolve) => {
		wait = () => {
			s.sleep(graceMs, settled.signal).then(
				() => resolve(ABANDONED),
				() => {}, // `work` settled first: the grace timer is cleared
			);
		};
	});
	if (signal.aborted) wait();
	else signal.addEventListener("abort", wait, { once: true });
	// The run's signal outlives each turn: a listener left on it per turn piled up for the run.
	return Promise.race([work, gaveUp]).finally(() => {
		signal.removeEventListener("abort", wait);
		settled.abort();
	});
}

/** Queued messages exist and `agent.continue()` can deliver them. */
export function canRunQueued(s: SessionInternals): boolean {
	return s.agent.hasQueuedMessages() && lastNonSystemMessage(s.agent.state.messages) !== undefined;
}

/** `agent.continue()` would run a model call on the current transcript. */
function canContinueNow(s: SessionInternals): boolean {
	const last = lastNonSystemMessage(s.agent.state.messages);
	if (!last) return false;
	return last.role !== "assistant" || s.agent.hasQueuedMessages();
}

/**
 * What the context would be with `drafts` committed (the preview): the current branch plus the
 * drafts as entries, projected like the store does. Throws (reported by the runner as
 * `Invalid boundary entries: …`) for a draft that names an entry not on the active branch.
 * O(branch) — only runs when a boundary handler exists.
 */
export function previewContext(
	s: SessionInternals,
	drafts: readonly BoundaryEntryDraft[],
	type: "turn_end" | "agent_before_settle",
): BoundaryContextPreview {
	const branch = s.sessionManager.getBranch();
	const onBranch = new Set(branch.map((entry) => entry.id));
	let parentId = s.sessionManager.getLeafId();
	const timestamp = new Date().toISOString();
	const path: SessionEntry[] = branch;
	drafts.forEach((draft, index) => {
		const id = `draft-${index}`;
		const base = { id, parentId, timestamp };
		switch (draft.type) {
			case "custom":
				path.push({ ...base, type: "custom", customType: draft.customType, data: draft.data });
				break;
			case "custom_message":
				path.push({
					...base,
					type: "custom_message",
					customType: draft.customType,
					content: draft.content,
					display: draft.display,
					details: draft.details,
				});
				break;
			case "context_edit":
				if (!onBranch.has(draft.targetId)) {
					throw new SettleError(
						"INVALID_ARGUMENT",
						`entries[${index}] (context_edit): entry ${draft.targetId} is not on the active branch`,
					);
				}
				path.push({ ...base, type: "context_edit", targetId: draft.targetId, replacement: draft.replacement });
				break;
			case "compaction":
				if (draft.firstKeptEntryId !== null && !onBranch.has(draft.firstKeptEntryId)) {
					throw new SettleError(
						"INVALID_ARGUMENT",
						`entries[${index}] (compaction): firstKeptEntryId ${draft.firstKeptEntryId} is not on the active branch`,
					);
				}
				path.push({
					...base,
					type: "compaction",
					summary: draft.summary,
					firstKeptEntryId: draft.firstKeptEntryId ?? id,
					tokensBefore: 0,
					details: draft.details,
					usage: draft.usage,
				});
				break;
		}
		onBranch.add(id);
		parentId = id;
	});
	const contextEntries = contextEntriesOfPath(path);
	const contextMessages: AgentMessage[] = [];
	for (const entry of projectContextEntries(contextEntries)) contextMessages.push(...entry.messages);
	const llmMessages: Message[] = [];
	for (const message of contextMessages) {
		const converted = convertMessageToLlm(message);
		if (converted) llmMessages.push(converted);
	}
	const pendingMessages = s.queues.pendingCustomMessages.slice();
	const last = llmMessages[llmMessages.length - 1];
	const queued = s.agent.hasQueuedMessages();
	const canContinue =
		(last !== undefined && last.role !== "assistant") ||
		pendingMessages.length > 0 ||
		(type === "turn_end" ? queued : last?.role === "assistant" && queued);
	return { contextEntries, contextMessages, llmMessages, pendingMessages, canContinue };
}

/**
 * Appends boundary drafts to the log (`entry_appended` each) and rebuilds the transcript when
 * they change the context (custom messages, context edits, compactions).
 */
export function commitDrafts(s: SessionInternals, drafts: readonly BoundaryEntryDraft[]): void {
	const manager = s.sessionManager;
	let reshaped = false;
	for (const draft of drafts) {
		let id: string;
		switch (draft.type) {
			case "custom":
				id = manager.appendCustomEntry(draft.customType, draft.data);
				break;
			case "custom_message":
				id = manager.appendCustomMessageEntry(draft.customType, draft.content, draft.display, draft.details);
				reshaped = true;
				break;
			case "context_edit":
				id = manager.appendContextEdit(draft.targetId, draft.replacement);
				s.transcript.hasContextEdits = true;
				reshaped = true;
				break;
			case "compaction": {
				// Measured on the log as it stands: an edit earlier in this batch is not in the live
				// transcript yet, and an answer that saw the edited message is estimated (ms-agent#999).
				const messages = reshaped ? manager.buildSessionContext().messages : s.agent.state.messages;
				const isUsageCurrent = s.transcript.hasContextEdits ? usageStillCurrent(manager) : undefined;
				const tokensBefore = estimateContextTokens(messages, isUsageCurrent).tokens;
				id = manager.appendCompaction(
					draft.summary,
					draft.firstKeptEntryId,
					tokensBefore,
					draft.details,
					true,
					draft.usage,
				);
				s.transcript.noteCompaction(id);
				reshaped = true;
				break;
			}
		}
		s.transcript.announce(id);
	}
	if (reshaped) s.transcript.rebuild();
}
