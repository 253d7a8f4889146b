/**
 * The message a session entry contributes to the model context, with the
 * branch's `context_edit` entries applied.
 */
import type { AgentMessage, ImageContent, TextContent } from "../llm/types.js";
import type { ContextEditEntry, SessionEntry } from "../store/entries.js";
import { storedText } from "../store/entry-shape.js";
import { sessionEntryToContextMessages } from "../store/projection.js";

/** Latest replacement per target id (`null` = omitted). */
export type ContextEdits = ReadonlyMap<string, ContextEditEntry["replacement"]>;

/**
 * Collects the latest `context_edit` per target among `entries[start..end)` (later entries win), keyed
 * by target entry id; a `null` replacement means the target is omitted.
 *
 * @example
 * ```ts
 * declare const entryId: string;
 * const edits = collectContextEdits(sessionManager.getBranch());
 * edits.get(entryId); // the replacement, null (omitted), or undefined when never edited
 * ```
 */
export function collectContextEdits(entries: readonly SessionEntry[], start = 0, end = entries.length): ContextEdits {
	const edits = new Map<string, ContextEditEntry["replacement"]>();
	for (let index = start; index < end; index++) {
		const entry = entries[index]!;
		if (entry.type === "context_edit") edits.set(entry.targetId, entry.replacement);
	}
	return edits;
}

/**
 * The message an entry contributes: message entries → their message, `custom_message` → custom
 * message, non-empty `branch_summary` → branchSummary, `compaction` → compactionSummary; other
 * entries → `undefined`. An entry omitted by a context edit → `undefined`; a replaced one → its
 * message with the replacement content.
 *
 * @example
 * ```ts
 * const branch = sessionManager.getBranch();
 * const edits = collectContextEdits(branch);
 * const messages = branch.map((entry) => messageFromEntry(entry, edits)).filter((m) => m !== undefined);
 * ```
 */
export function messageFromEntry(entry: SessionEntry, edits?: ContextEdits): AgentMessage | undefined {
	const message = baseMessage(entry);
	if (!message || !edits?.has(entry.id)) return message;
	const replacement = edits.get(entry.id);
	if (replacement === null || replacement === undefined) return undefined;
	return withContent(message, replacement.content);
}

function baseMessage(entry: SessionEntry): AgentMessage | undefined {
	const timestamp = Date.parse(entry.timestamp);
	switch (entry.type) {
		case "message":
		case "custom_message":
		case "branch_summary":
			// What the context reads (a stored field of the wrong type read as the projection does).
			return sessionEntryToContextMessages(entry)[0];
		case "compaction":
			return {
				role: "compactionSummary",
				summary: storedText(entry.summary) ?? "",
				tokensBefore: entry.tokensBefore,
				timestamp,
			};
		default:
			return undefined;
	}
}

function withContent(message: AgentMessage, content: string | (TextContent | ImageContent)[]): AgentMessage {
	switch (message.role) {
		case "user":
		case "custom":
			return { ...message, content };
		case "assistant":
			return {
				...message,
				content: typeof content === "string" ? [{ type: "text", text: content }] : content.filter(isText),
			};
		case "toolResult":
			return { ...message, content: typeof content === "string" ? [{ type: "text", text: content }] : content };
		default:
			return message;
	}
}

function isText(block: TextContent | ImageContent): block is TextContent {
	return block.type === "text";
}
