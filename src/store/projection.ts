/**
 * Context reconstruction: the path from the leaf to the root, the latest compaction,
 * context edits, and the model / thinking level in effect. Pure functions over entries; the
 * SessionManager keeps an incremental copy of the same result for its current leaf.
 */
import type { AgentMessage, ThinkingLevel } from "../llm/types.js";
import type { BranchSummaryMessage, CompactionSummaryMessage, CustomMessage } from "../session/messages.js";
import type { CompactionEntry, ContextEditEntry, SessionContext, SessionEntry, SessionProjection } from "./entries.js";
import { contextContent, isUsableContent, storedText } from "./entry-shape.js";

/** Lookup by id; built from the entries when not given. */
type EntryIndex = { get(id: string): SessionEntry | undefined };

/** An entry of a {@link SessionProjection} with the messages it contributes. */
export type ProjectedSessionEntry = SessionProjection["entries"][number];

function indexEntries(entries: readonly SessionEntry[]): EntryIndex {
	const byId = new Map<string, SessionEntry>();
	for (const entry of entries) byId.set(entry.id, entry);
	return byId;
}

/**
 * Entries from the root to the leaf. `leafId` null → `[]`; undefined or unknown → the last entry.
 * A missing parent ends the walk. Linear in the path length; must not throw.
 *
 * @example
 * ```ts
 * const path = buildSessionPath(sessionManager.getEntries(), sessionManager.getLeafId());
 * ```
 */
export function buildSessionPath(
	entries: readonly SessionEntry[],
	leafId?: string | null,
	byId?: EntryIndex,
): SessionEntry[] {
	if (leafId === null) return [];
	const index = byId ?? indexEntries(entries);
	let current: SessionEntry | undefined = (leafId ? index.get(leafId) : undefined) ?? entries[entries.length - 1];
	const path: SessionEntry[] = [];
	// A cycle can only come from a hand-edited file; stop rather than loop forever.
	const limit = Math.max(entries.length, 1);
	while (current && path.length < limit) {
		path.push(current);
		current = current.parentId ? index.get(current.parentId) : undefined;
	}
	return path.reverse();
}

/** Thinking level and model in effect at the end of `path`. */
export function getSessionContextSettings(
	path: readonly SessionEntry[],
): Pick<SessionContext, "thinkingLevel" | "model"> {
	let thinkingLevel: ThinkingLevel = "off";
	let model: SessionContext["model"] = null;
	for (const entry of path) {
		if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
		else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
		else if (entry.type === "message" && entry.message.role === "assistant") {
			model = { provider: entry.message.provider, modelId: entry.message.model };
		}
	}
	return { thinkingLevel, model };
}

/** A `compactionSummary` message for a compaction entry. */
export function createCompactionSummaryMessage(
	summary: string,
	tokensBefore: number,
	timestamp: string,
): CompactionSummaryMessage {
	return { role: "compactionSummary", summary, tokensBefore, timestamp: new Date(timestamp).getTime() };
}

/** A `branchSummary` message for a branch_summary entry. */
export function createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): BranchSummaryMessage {
	return { role: "branchSummary", summary, fromId, timestamp: new Date(timestamp).getTime() };
}

/** A `custom` message for a custom_message entry. */
export function createCustomMessage(
	customType: string,
	content: CustomMessage["content"],
	display: boolean,
	details: unknown,
	timestamp: string,
): CustomMessage {
	return { role: "custom", customType, content, display, details, timestamp: new Date(timestamp).getTime() };
}

/** Pushes what one entry contributes to the context, before edits, onto `out`. */
export function pushContextMessages(entry: SessionEntry, out: AgentMessage[]): void {
	switch (entry.type) {
		case "message": {
			const message = entry.message as AgentMessage & { content?: unknown };
			if (message.role === "system") {
				out.push(message.content == null ? { ...message, content: "" } : message);
				return;
			}
			// Null, `42`, `{}` or a list with unusable blocks (a hand-edited file): read as what can be sent.
			if (
				(message.role === "user" || message.role === "assistant" || message.role === "toolResult") &&
				!isUsableContent(message.content)
			) {
				out.push({ ...message, content: contextContent(message.content) } as AgentMessage);
				return;
			}
			out.push(message);
			return;
		}
		case "custom_message":
			out.push(
				createCustomMessage(
					entry.customType,
					contextContent(entry.content) as CustomMessage["content"],
					entry.display,
					entry.details,
					entry.timestamp,
				),
			);
			return;
		case "branch_summary": {
			const summary = storedText(entry.summary);
			if (summary) out.push(createBranchSummaryMessage(summary, entry.fromId, entry.timestamp));
			return;
		}
		case "compaction":
			if (entry.systemMessage) out.push(entry.systemMessage);
			out.push(createCompactionSummaryMessage(storedText(entry.summary) ?? "", entry.tokensBefore, entry.timestamp));
			return;
		default:
			return;
	}
}

/**
 * What one entry contributes to the context, before edits: `[]` for entries that
 * contribute nothing.
 *
 * @example
 * ```ts
 * const compactionEntry = getLatestCompactionEntry(sessionManager.getEntries());
 * if (compactionEntry) sessionEntryToContextMessages(compactionEntry); // [{ role: "compactionSummary", … }]
 * ```
 */
export function sessionEntryToContextMessages(entry: SessionEntry): AgentMessage[] {
	const out: AgentMessage[] = [];
	pushContextMessages(entry, out);
	return out;
}

/**
 * The entries that make up the context: with a compaction on the path, the latest
 * compaction, then the kept entries before it (system messages skipped), then everything after it.
 * Without a compaction this is `path` itself (not a copy).
 */
export function contextEntriesOfPath(path: readonly SessionEntry[]): SessionEntry[] {
	let compactionIndex = -1;
	for (let i = path.length - 1; i >= 0; i--) {
		if (path[i]!.type === "compaction") {
			compactionIndex = i;
			break;
		}
	}
	if (compactionIndex < 0) return path as SessionEntry[];
	const compaction = path[compactionIndex] as CompactionEntry;
	const out: SessionEntry[] = [compaction];
	let kept = false;
	for (let i = 0; i < compactionIndex; i++) {
		const entry = path[i]!;
		if (entry.id === compaction.firstKeptEntryId) kept = true;
		if (kept && !(entry.type === "message" && entry.message.role === "system")) out.push(entry);
	}
	for (let i = compactionIndex + 1; i < path.length; i++) out.push(path[i]!);
	return out;
}

/**
 * The entries that make up the context for `leafId` (see {@link contextEntriesOfPath}); a new array.
 *
 * @example
 * ```ts
 * const [first] = buildContextEntries(sessionManager.getBranch()); // the latest compaction, when there is one
 * ```
 */
export function buildContextEntries(
	entries: readonly SessionEntry[],
	leafId?: string | null,
	byId?: EntryIndex,
): SessionEntry[] {
	return contextEntriesOfPath(buildSessionPath(entries, leafId, byId)).slice();
}

/** One entry's messages with its context edit applied. */
export function projectContextEntry(entry: SessionEntry, edit: ContextEditEntry | undefined): AgentMessage[] {
	const messages = sessionEntryToContextMessages(entry);
	if (!edit) return messages;
	const replacement = edit.replacement;
	if (replacement === null) return [];
	return messages.map((message) => {
		const role = message.role;
		if (role !== "user" && role !== "assistant" && role !== "toolResult" && role !== "custom") return message;
		const content =
			(role === "assistant" || role === "toolResult") && typeof replacement.content === "string"
				? [{ type: "text" as const, text: replacement.content }]
				: replacement.content;
		return { ...message, content } as AgentMessage;
	});
}

/** Projects context entries: later `context_edit`s win; only the compaction at index 0 contributes. */
export function projectContextEntries(contextEntries: readonly SessionEntry[]): ProjectedSessionEntry[] {
	const edits = new Map<string, ContextEditEntry>();
	for (const entry of contextEntries) if (entry.type === "context_edit") edits.set(entry.targetId, entry);
	return contextEntries.map((sourceEntry, index) => ({
		sourceEntry,
		messages:
			sourceEntry.type === "compaction" && index > 0 ? [] : projectContextEntry(sourceEntry, edits.get(sourceEntry.id)),
	}));
}

/**
 * The full projection for `leafId`: `{entries: [{sourceEntry, messages}], messages, thinkingLevel, model}`.
 * Linear in the path length. Must not throw for any entries a session file can hold.
 *
 * @example
 * ```ts
 * const { messages, model } = buildSessionProjection(sessionManager.getEntries(), sessionManager.getLeafId());
 * ```
 */
export function buildSessionProjection(
	entries: readonly SessionEntry[],
	leafId?: string | null,
	byId?: EntryIndex,
): SessionProjection {
	const path = buildSessionPath(entries, leafId, byId);
	const { thinkingLevel, model } = getSessionContextSettings(path);
	const projected = projectContextEntries(contextEntriesOfPath(path));
	const messages: AgentMessage[] = [];
	for (const entry of projected) for (const message of entry.messages) messages.push(message);
	return { entries: projected, messages, thinkingLevel, model };
}

/**
 * `{messages, thinkingLevel, model}` for `leafId` (pi's `buildSessionContext`).
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 *
 * const text = readFileSync(sessionManager.getSessionFile()!, "utf8");
 * const context = buildSessionContext(parseSessionEntries(text).filter((e) => e.type !== "session") as SessionEntry[]);
 * ```
 */
export function buildSessionContext(
	entries: readonly SessionEntry[],
	leafId?: string | null,
	byId?: EntryIndex,
): SessionContext {
	const { messages, thinkingLevel, model } = buildSessionProjection(entries, leafId, byId);
	return { messages, thinkingLevel, model };
}

/**
 * The last compaction entry in file order, or null.
 *
 * @example
 * ```ts
 * const compaction = getLatestCompactionEntry(sessionManager.getEntries());
 * ```
 */
export function getLatestCompactionEntry(entries: readonly SessionEntry[]): CompactionEntry | null {
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i]!;
		if (entry.type === "compaction") return entry;
	}
	return null;
}
