/**
 * Read-only views of a session for hosts : message and token totals,
 * context usage, the last answer's text, and the current branch exported as a linear JSONL file.
 * None of them is on the per-turn path.
 */
import { resolve } from "node:path";
import { refuseSessionFileAsOutput, writeFileAtomically } from "../export/write-file.js";
import type { ContextUsage } from "../extensions/types.js";
import { estimateContextTokens, validAssistantUsage } from "../llm/tokens.js";
import type { AgentMessage, AssistantMessage, Model, ToolResultMessage, Usage } from "../llm/types.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../store/entries.js";
import { addUsageTotals, billedUsage, emptyUsageTotals, type UsageTotals } from "../store/entry-index.js";
import type { SessionManager } from "../store/session-manager.js";

/**
 * Message, tool-call, token and cost totals of a session (pi's `SessionStats`). Two scopes:
 * - the message counts, and the tokens and cost of the messages themselves (assistant responses,
 *   a tool result's nested call), cover the current model context, as in pi 0.73.1: messages a
 *   compaction replaced, other branches and answers a retry took out are not counted;
 * - model calls recorded outside the conversation (`usage` entries such as cache-warming
 *   refreshes, and the summarizer calls of `compaction` and `branch_summary` entries) are added to
 *   `tokens` and `cost` wherever they are in the session file, as pi 1.6 counts them.
 */
export interface SessionStats {
	sessionFile: string | undefined;
	sessionId: string;
	userMessages: number;
	assistantMessages: number;
	toolCalls: number;
	toolResults: number;
	/** Messages in the context, of every role (Settle's `system` messages included). */
	totalMessages: number;
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	/** In dollars, at the catalog prices the usages were recorded with. */
	cost: number;
	contextUsage: ContextUsage | undefined;
	/**
	 * `tokens` and `cost` split by the model that was billed (pi 1.6's `/session` "Cost" breakdown),
	 * most expensive first; groups with no tokens and no cost are left out. The groups add up to
	 * `tokens` and `cost`. New in Settle's stats (pi 0.73.1 has no such field; RPC
	 * `get_session_stats` leaves it out to keep pi's shape).
	 */
	byModel: ModelUsageStats[];
	/**
	 * Tokens and cost of every model call ever recorded in the session file, in every branch: each
	 * assistant message appended (also those a compaction replaced, a `/tree` navigation or a branch
	 * left, or a retry took out — money spent stays spent), tool results' nested calls, `usage`
	 * entries and the summarizer calls of compactions and branch summaries. Never goes down after a
	 * compaction, navigation or branch, and a reopened file gives the same totals
	 * (gsd-2#1423, pi-web#557). New in Settle (pi 0.73.1 has no such field; RPC `get_session_stats`
	 * carries it too). `tokens` and `cost` above keep pi 0.73.1's context scope.
	 *
	 * @example
	 * ```ts
	 * const { cumulative } = session.getSessionStats();
	 * console.log(`spent so far: $${cumulative.cost.toFixed(4)} (${cumulative.tokens.total} tokens)`);
	 * ```
	 */
	cumulative: UsageTotals;
}

export type { UsageTotals };

/** Key of {@link ModelUsageStats} for usage no model is named for (pi 1.6's bucket). */
export const UNATTRIBUTED_USAGE_KEY = "Tools/summaries";

/** One group of {@link SessionStats.byModel}. */
export interface ModelUsageStats {
	/**
	 * `provider/model`: of an answer (the `responseModel` the provider reported, else the model
	 * asked) or of a `usage` entry (a cache-warming refresh). {@link UNATTRIBUTED_USAGE_KEY} for a
	 * tool result's nested call and the summarizer calls of compactions and branch summaries, which
	 * record no model.
	 */
	key: string;
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	/** In dollars. */
	cost: number;
}

type Totals = Pick<SessionStats, "tokens" | "cost">;

/** What {@link computeSessionStats} needs besides the context's messages. */
export interface SessionStatsInfo {
	sessionId: string;
	sessionFile: string | undefined;
	contextUsage: ContextUsage | undefined;
	/**
	 * Every entry of the session (`sessionManager.getEntries()`): the usage of the model calls they
	 * record outside the conversation is added to `tokens` and `cost`. Left out: messages only.
	 */
	entries?: Iterable<SessionEntry>;
	/**
	 * {@link SessionStats.cumulative} when the caller keeps it as a running total
	 * (`sessionManager.getCumulativeUsage()`); left out, it is summed from `entries` (zero without them).
	 */
	cumulative?: UsageTotals;
}

/**
 * Counts messages, tool calls, tokens and cost of `messages` (the model context, as pi 0.73.1
 * does: compacted-away messages are not counted), then adds the usage that `info.entries` record
 * outside the conversation (`usage`, `compaction` and `branch_summary` entries, as pi 1.6 does),
 * and splits tokens and cost by model (`byModel`). One pass over each; must not throw (a malformed
 * usage counts as zero).
 *
 * @example
 * ```ts
 * const { tokens, cost, byModel } = computeSessionStats(session.messages, {
 *   sessionId: session.sessionId,
 *   sessionFile: session.sessionFile,
 *   contextUsage: undefined,
 *   entries: session.sessionManager.getEntries(),
 * });
 * for (const { key, cost } of byModel) console.log(`${key}: $${cost.toFixed(4)}`); // "anthropic/claude-sonnet-4-5: $0.0123"
 * ```
 */
export function computeSessionStats(messages: readonly AgentMessage[], info: SessionStatsInfo): SessionStats {
	const stats: SessionStats = {
		sessionFile: info.sessionFile,
		sessionId: info.sessionId,
		userMessages: 0,
		assistantMessages: 0,
		toolCalls: 0,
		toolResults: 0,
		totalMessages: messages.length,
		tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		cost: 0,
		contextUsage: info.contextUsage,
		byModel: [],
		cumulative: info.cumulative ?? emptyUsageTotals(),
	};
	const groups = new Map<string, ModelUsageStats>();
	/** Adds one call's usage to the group of `key` (the totals are added by the caller). */
	const addToGroup = (key: string, usage: Usage | undefined) => {
		if (!usage || typeof usage !== "object") return;
		let group = groups.get(key);
		if (!group) {
			group = { key, tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, cost: 0 };
			groups.set(key, group);
		}
		addUsage(group, usage);
	};
	for (const message of messages) {
		if (message.role === "user") stats.userMessages++;
		else if (message.role === "toolResult") {
			stats.toolResults++;
			addUsage(stats, (message as ToolResultMessage).usage);
			addToGroup(UNATTRIBUTED_USAGE_KEY, (message as ToolResultMessage).usage);
		} else if (message.role === "assistant") {
			const assistant = message as AssistantMessage;
			stats.assistantMessages++;
			for (const block of assistant.content) if (block.type === "toolCall") stats.toolCalls++;
			addUsage(stats, assistant.usage);
			addToGroup(modelKey(assistant.provider, assistant.responseModel ?? assistant.model), assistant.usage);
		}
	}
	for (const entry of info.entries ?? []) {
		if (!info.cumulative) addUsageTotals(stats.cumulative, billedUsage(entry));
		if (entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary") {
			addUsage(stats, entry.usage);
			addToGroup(entry.type === "usage" ? modelKey(entry.provider, entry.model) : UNATTRIBUTED_USAGE_KEY, entry.usage);
		}
	}
	withTotal(stats.tokens);
	for (const group of groups.values()) {
		withTotal(group.tokens);
		if (group.cost > 0 || group.tokens.total > 0) stats.byModel.push(group);
	}
	// Stable: groups of equal cost keep the order they were first billed in.
	stats.byModel.sort((a, b) => b.cost - a.cost);
	return stats;
}

/** pi 1.6's `provider/model` key; a field a hand-edited file lacks reads `unknown`. */
function modelKey(provider: unknown, model: unknown): string {
	return `${typeof provider === "string" ? provider : "unknown"}/${typeof model === "string" ? model : "unknown"}`;
}

function withTotal(tokens: Totals["tokens"]): void {
	tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
}

/** Adds one call's usage; a missing usage or a field that is not a number counts as zero. */
function addUsage(stats: Totals, usage: Usage | undefined): void {
	if (!usage || typeof usage !== "object") return;
	stats.tokens.input += count(usage.input);
	stats.tokens.output += count(usage.output);
	stats.tokens.cacheRead += count(usage.cacheRead);
	stats.tokens.cacheWrite += count(usage.cacheWrite);
	stats.cost += count(usage.cost?.total);
}

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * Context tokens against the model's window (pi's `getContextUsage`): the last valid response's
 * usage plus estimates of what came after it. `unknownSinceCompaction` (see
 * {@link awaitsResponseSinceCompaction}): the context was compacted and no response arrived since,
 * so the size is unknown and `tokens` / `percent` are null. `isUsageCurrent` (see
 * {@link usageStillCurrent}): after context edits, the responses whose usage still describes the
 * context; the others are estimated. Undefined without a model or a window. Walks back only to the
 * last response taken. Must not throw.
 *
 * @example
 * ```ts
 * const usage = contextUsage(messages, model, awaitsResponseSinceCompaction(sessionManager));
 * if (usage?.percent && usage.percent > 80) console.warn("context almost full");
 * ```
 */
export function contextUsage(
	messages: readonly AgentMessage[],
	model: Pick<Model, "contextWindow"> | undefined,
	unknownSinceCompaction: boolean,
	isUsageCurrent?: (response: AssistantMessage) => boolean,
): ContextUsage | undefined {
	if (!model || !(model.contextWindow > 0)) return undefined;
	const contextWindow = model.contextWindow;
	if (unknownSinceCompaction) return { tokens: null, contextWindow, percent: null };
	const { tokens } = estimateContextTokens(messages, isUsageCurrent);
	return { tokens, contextWindow, percent: (tokens / contextWindow) * 100 };
}

/**
 * Which responses' usage still describes the current context, when context edits could have
 * changed it (modelscope/ms-agent#999): a response followed on the branch by a `context_edit` of a
 * message at or before it counted that message as it was, so its usage is too large (or small)
 * now. Walks back from the leaf to the last response no later edit reaches; returns a test that
 * rejects the responses passed on the way (by timestamp), or every response when a compaction came
 * first (the usage before it describes the old context). Undefined when no edit reaches back past
 * the last response. Must not throw.
 *
 * @example
 * ```ts
 * const usage = contextUsage(messages, model, false, usageStillCurrent(sessionManager));
 * ```
 */
export function usageStillCurrent(
	sessionManager: Pick<SessionManager, "getLeafEntry" | "getEntry">,
): ((response: AssistantMessage) => boolean) | undefined {
	const editedTargets = new Set<string>();
	const measuredBeforeEdits = new Set<number>();
	let entry = sessionManager.getLeafEntry();
	while (entry) {
		if (entry.type === "context_edit") editedTargets.add(entry.targetId);
		else if (entry.type === "compaction") return measuredBeforeEdits.size > 0 ? () => false : undefined;
		else if (entry.type === "message" && entry.message && validAssistantUsage(entry.message) !== undefined) {
			// Targets still pending lie at or before this response (its own id included).
			if (editedTargets.size === 0) break;
			measuredBeforeEdits.add((entry.message as AssistantMessage).timestamp);
		}
		editedTargets.delete(entry.id);
		entry = entry.parentId ? sessionManager.getEntry(entry.parentId) : undefined;
	}
	if (measuredBeforeEdits.size === 0) return undefined;
	return (response) => !measuredBeforeEdits.has(response.timestamp);
}

/**
 * True when the current branch's latest compaction has no complete response after it: responses
 * kept from before the compaction describe the old, larger context. Walks back from the leaf only
 * to the last response (or the compaction). Must not throw.
 */
export function awaitsResponseSinceCompaction(
	sessionManager: Pick<SessionManager, "getLeafEntry" | "getEntry">,
): boolean {
	let entry = sessionManager.getLeafEntry();
	while (entry) {
		if (entry.type === "compaction") return true;
		if (entry.type === "message" && entry.message.role === "assistant") {
			const assistant = entry.message as AssistantMessage;
			if (assistant.stopReason !== "aborted" && assistant.stopReason !== "error") return false;
		}
		entry = entry.parentId ? sessionManager.getEntry(entry.parentId) : undefined;
	}
	return false;
}

/**
 * The text of the last assistant message (an aborted one without content is skipped), trimmed;
 * undefined when there is none or it has no text. Walks back only to that message.
 *
 * @example
 * ```ts
 * await session.prompt("Summarize the diff");
 * console.log(lastAssistantText(session.messages));
 * ```
 */
export function lastAssistantText(messages: readonly AgentMessage[]): string | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		if (message.role !== "assistant") continue;
		const assistant = message as AssistantMessage;
		if (assistant.stopReason === "aborted" && assistant.content.length === 0) continue;
		let text = "";
		for (const block of assistant.content) if (block.type === "text") text += block.text;
		return text.trim() || undefined;
	}
	return undefined;
}

/**
 * Writes the current branch as a standalone session file: a fresh header (same session id and
 * cwd), then the branch's entries re-chained into a line (each entry's parent is the one before),
 * with the current labels of those entries (also ones set from another branch), as a fork has.
 * The file opens with `SessionManager.open`. Creates missing folders; returns the absolute path.
 * Default path: `session-<timestamp>.jsonl` in the process cwd (pi's default). Throws
 * `INVALID_ARGUMENT` for the session's own file (it would replace the session) and `IO` when the
 * file cannot be written; nothing is left behind then.
 *
 * @example
 * ```ts
 * const file = exportBranchToJsonl(session.sessionManager, "exports/branch.jsonl");
 * ```
 */
export function exportBranchToJsonl(sessionManager: SessionManager, outputPath?: string): string {
	const defaultPath = `session-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`;
	const filePath = resolve(outputPath ?? defaultPath);
	refuseSessionFileAsOutput(sessionManager.getSessionFile(), filePath, "JSONL export", defaultPath);
	const header: SessionHeader = {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: sessionManager.getSessionId(),
		timestamp: new Date().toISOString(),
		cwd: sessionManager.getCwd(),
	};
	// As `/fork` copies a branch: its label entries left out, then the labels of its entries (some
	// set from another branch) re-emitted; a label of the branch naming another branch's entry goes.
	const leafId = sessionManager.getLeafId();
	const branch = leafId === null ? [] : sessionManager.getBranchedEntries(leafId);
	writeFileAtomically(filePath, branchLines(header, branch), "JSONL export");
	return filePath;
}

/**
 * The header and the branch re-chained, as JSON lines in pieces of about 1 MiB: a branch can be
 * longer than any one string (pi#5231), and is not held twice in memory.
 */
function* branchLines(header: SessionHeader, branch: readonly SessionEntry[]): Generator<string> {
	let text = `${JSON.stringify(header)}\n`;
	let parentId: string | null = null;
	for (const entry of branch) {
		text += `${JSON.stringify({ ...entry, parentId })}\n`;
		parentId = entry.id;
		if (text.length >= 1 << 20) {
			yield text;
			text = "";
		}
	}
	if (text) yield text;
}
