/**
 * Session file entry types (pi session format v3).
 * One JSON object per line; line 1 is the header, every other line an entry.
 */
import type { AgentMessage, ImageContent, TextContent, ThinkingLevel, Usage } from "../llm/types.js";

/** Session file format version written by this package (pi's v3); older files are migrated on open. */
export const CURRENT_SESSION_VERSION = 3;

/** Line 1 of a session file. */
export interface SessionHeader {
	type: "session";
	version?: number;
	id: string;
	timestamp: string;
	cwd: string;
	/** Path of the session file this one was forked from. */
	parentSession?: string;
}

/** Fields every session entry has: its id, its parent in the session tree, and when it was written. */
export interface SessionEntryBase {
	type: string;
	/** 8 hex characters (a full UUID only on collision). */
	id: string;
	parentId: string | null;
	/** ISO timestamp. */
	timestamp: string;
}

/** An entry holding one message of the transcript. */
export interface SessionMessageEntry extends SessionEntryBase {
	type: "message";
	message: AgentMessage;
}

/** The thinking level changed from here on. */
export interface ThinkingLevelChangeEntry extends SessionEntryBase {
	type: "thinking_level_change";
	thinkingLevel: ThinkingLevel;
}

/** The model changed from here on. */
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

/** A compaction: the summary that replaces the context before `firstKeptEntryId`. */
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

/** The summary of a branch abandoned by tree navigation, placed where the navigation landed. */
export interface BranchSummaryEntry<TDetails = unknown> extends SessionEntryBase {
	type: "branch_summary";
	/** Leaf the branch was left from, or `"root"`. */
	fromId: string;
	summary: string;
	details?: TDetails;
	usage?: Usage;
	fromHook?: boolean;
}

/** Extension state (`pi.appendEntry`); never part of the model context. */
export interface CustomEntry<TData = unknown> extends SessionEntryBase {
	type: "custom";
	customType: string;
	data?: TData;
}

/** A message an extension added (`pi.sendMessage`); part of the model context, shown when `display`. */
export interface CustomMessageEntry<TDetails = unknown> extends SessionEntryBase {
	type: "custom_message";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	display: boolean;
	details?: TDetails;
}

/** A label set on (or cleared from) the entry `targetId`. */
export interface LabelEntry extends SessionEntryBase {
	type: "label";
	targetId: string;
	/** `undefined` clears the label. */
	label: string | undefined;
}

/** Session metadata, such as its display name. */
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

/** Usage of a model call outside the transcript (a summarizer, a tool's nested call), for cost totals. */
export interface UsageEntry extends SessionEntryBase {
	type: "usage";
	kind: string;
	provider: string;
	model: string;
	usage: Usage;
	note?: string;
}

/** Any entry of a session file after the header. */
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

/** Context a session rebuilds for the model. */
export interface SessionContext {
	messages: AgentMessage[];
	thinkingLevel: ThinkingLevel;
	model: { provider: string; modelId: string } | null;
}

/** The context with each message traced back to the entry it came from. */
export interface SessionProjection extends SessionContext {
	entries: { sourceEntry: SessionEntry; messages: AgentMessage[] }[];
}

/** A line of a session file: the header (line 1) or an entry. */
export type FileEntry = SessionHeader | SessionEntry;

/** Options for a new session (`create`, `newSession`, `inMemory`, `forkFrom`). */
export interface NewSessionFileOptions {
	/** Session id; default a fresh UUIDv7. Must match `^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`. */
	id?: string;
	/** Path of the session this one continues from (stored in the header). */
	parentSession?: string;
}

/** One node of {@link SessionManager.getTree}: an entry, its children (oldest first) and its label. */
export interface SessionTreeNode {
	entry: SessionEntry;
	children: SessionTreeNode[];
	/** Current label of the entry, if any. */
	label?: string;
	/** Timestamp of the label change that set {@link label}. */
	labelTimestamp?: string;
}

/** Summary of a session file, as listed by `SessionManager.list` / `listAll`. */
export interface SessionInfo {
	path: string;
	id: string;
	/** Working directory the session was started in; `""` for very old sessions. */
	cwd: string;
	/** Name from the latest `session_info` entry. */
	name?: string;
	/** Session this one was forked from. */
	parentSessionPath?: string;
	created: Date;
	/**
	 * Time of the latest user/assistant message, or a fork's creation (its header time) when later
	 * (header time, else file mtime, when there is no message).
	 */
	modified: Date;
	/** Number of `message` entries. */
	messageCount: number;
	/** Text of the first user message, or `"(no messages)"`. */
	firstMessage: string;
	/** Text of every user and assistant message, space-separated (for search). */
	allMessagesText: string;
}

/**
 * Something noticed while reading a session file. Reading never throws for these: the damaged
 * part is skipped (and, when the file is opened for writing, repaired or set aside) and the rest loads.
 *
 * - `torn_line`: the last line was cut off (a crash mid-write); it was not loaded and, for a writable
 *   session, was moved to `setAsidePath` so the next append starts on a clean line.
 * - `missing_newline`: the last line was complete but had no final newline; it was loaded (and the
 *   newline added for a writable session).
 * - `malformed_line`: a line in the middle is not JSON or not an entry (a message entry without a
 *   message object counts); skipped, later lines still load.
 * - `invalid_field`: an entry whose content, summary, name or label has the wrong type (a
 *   custom_message whose content is `42`); loaded as it is, and read as the message says (no
 *   content, the unusable blocks left out, no name…), so the session stays usable.
 * - `duplicate_header`: a second `session` header line; skipped.
 * - `duplicate_id`: an entry id seen before; the later entry wins lookups by id.
 * - `missing_parent`: an entry's `parentId` names no loaded entry, so the branch through it starts there.
 * - `migrated`: an old format version was upgraded and the file rewritten.
 */
export interface SessionDiagnostic {
	kind:
		| "torn_line"
		| "missing_newline"
		| "malformed_line"
		| "invalid_field"
		| "duplicate_header"
		| "duplicate_id"
		| "missing_parent"
		| "migrated";
	/** Absolute path of the session file (undefined for in-memory text). */
	file?: string;
	/** 1-based line number in the file as it was read. */
	line?: number;
	/** What happened, in a sentence. */
	message: string;
	/** Where the bytes of a torn line (or the pre-migration file) were moved. */
	setAsidePath?: string;
}
