/**
 * Session file entry types (pi session format v3, behavior D.1/D.2).
 * One JSON object per line; line 1 is the header, every other line an entry.
 */
import type { AgentMessage, ImageContent, TextContent, ThinkingLevel, Usage } from "../llm/types.js";

export const CURRENT_SESSION_VERSION = 3;

export interface SessionHeader {
	type: "session";
	version?: number;
	id: string;
	timestamp: string;
	cwd: string;
	/** Path of the session file this one was forked from. */
	parentSession?: string;
}

export interface SessionEntryBase {
	type: string;
	/** 8 hex characters (a full UUID only on collision). */
	id: string;
	parentId: string | null;
	/** ISO timestamp. */
	timestamp: string;
}

export interface SessionMessageEntry extends SessionEntryBase {
	type: "message";
	message: AgentMessage;
}

export interface ThinkingLevelChangeEntry extends SessionEntryBase {
	type: "thinking_level_change";
	thinkingLevel: ThinkingLevel;
}

export interface ModelChangeEntry extends SessionEntryBase {
	type: "model_change";
	provider: string;
	modelId: string;
}

/** Files touched in the summarized span; recorded on compaction and branch summaries. */
export interface FileOperationDetails {
	readFiles: string[];
	modifiedFiles: string[];
}

export interface CompactionEntry<TDetails = unknown> extends SessionEntryBase {
	type: "compaction";
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details?: TDetails;
	usage?: Usage;
	/** True when an extension produced the summary. */
	fromHook?: boolean;
	/** Transcript-system model: the system message in effect at the compaction. */
	systemMessage?: AgentMessage;
}

export interface BranchSummaryEntry<TDetails = unknown> extends SessionEntryBase {
	type: "branch_summary";
	/** Leaf the branch was left from, or `"root"`. */
	fromId: string;
	summary: string;
	details?: TDetails;
	usage?: Usage;
	fromHook?: boolean;
}

export interface CustomEntry<TData = unknown> extends SessionEntryBase {
	type: "custom";
	customType: string;
	data?: TData;
}

export interface CustomMessageEntry<TDetails = unknown> extends SessionEntryBase {
	type: "custom_message";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	display: boolean;
	details?: TDetails;
}

export interface LabelEntry extends SessionEntryBase {
	type: "label";
	targetId: string;
	/** `undefined` clears the label. */
	label: string | undefined;
}

export interface SessionInfoEntry extends SessionEntryBase {
	type: "session_info";
	name?: string;
}

/** Replaces (or, with `null`, omits) a target's contribution to the model context; branch-relative. */
export interface ContextEditEntry extends SessionEntryBase {
	type: "context_edit";
	targetId: string;
	replacement: { content: string | (TextContent | ImageContent)[] } | null;
}

export interface UsageEntry extends SessionEntryBase {
	type: "usage";
	kind: string;
	provider: string;
	model: string;
	usage: Usage;
	note?: string;
}

export type SessionEntry =
	| SessionMessageEntry
	| ThinkingLevelChangeEntry
	| ModelChangeEntry
	| CompactionEntry
	| BranchSummaryEntry
	| CustomEntry
	| CustomMessageEntry
	| LabelEntry
	| SessionInfoEntry
	| ContextEditEntry
	| UsageEntry;

/** Context a session rebuilds for the model (behavior D.4). */
export interface SessionContext {
	messages: AgentMessage[];
	thinkingLevel: ThinkingLevel;
	model: { provider: string; modelId: string } | null;
}

/** The context with each message traced back to the entry it came from. */
export interface SessionProjection extends SessionContext {
	entries: { sourceEntry: SessionEntry; messages: AgentMessage[] }[];
}
