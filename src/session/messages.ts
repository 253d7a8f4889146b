/**
 * Transcript message roles the session layer adds to the LLM roles, registered on
 * {@link CustomAgentMessages} by declaration merging. Field names match pi's session files.
 */
import type { ImageContent, TextContent } from "../llm/types.js";

/** A message an extension or host injected (`sendCustomMessage`); persisted as a `custom_message` entry. */
export interface CustomMessage<TDetails = unknown> {
	role: "custom";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	/** Whether a UI shows it; it reaches the model either way. */
	display: boolean;
	details?: TDetails;
	timestamp: number;
}

/** A shell command the user ran outside the model (`executeBash`). */
export interface BashExecutionMessage {
	role: "bashExecution";
	command: string;
	output: string;
	exitCode: number | undefined;
	cancelled: boolean;
	truncated: boolean;
	fullOutputPath?: string;
	/**
	 * Seconds of the timeout that stopped the command (Settle's; `cancelled` is true too, which is
	 * what pi reads): the model is told it timed out, not that it was cancelled.
	 */
	timedOutAfter?: number;
	/**
	 * Some output bytes were not UTF-8 text (GBK, Shift-JIS, Latin-1): `output` shows them as U+FFFD,
	 * the full-output file keeps them, and the model is told so.
	 */
	notUtf8?: boolean;
	/**
	 * The command's operations reported no exit code (`exitCode: null`, killed by a signal): Settle's;
	 * `exitCode` stays undefined, as pi writes it, and the model is told the command was killed.
	 */
	killedBySignal?: boolean;
	/** `!!` commands: kept in the log, never sent to the model. */
	excludeFromContext?: boolean;
	timestamp: number;
}

/** Derived from a `compaction` entry when the context is rebuilt; never persisted as a message. */
export interface CompactionSummaryMessage {
	role: "compactionSummary";
	summary: string;
	tokensBefore: number;
	timestamp: number;
}

/** Derived from a `branch_summary` entry when the context is rebuilt; never persisted as a message. */
export interface BranchSummaryMessage {
	role: "branchSummary";
	summary: string;
	fromId: string;
	timestamp: number;
}

/** One named, independently replaceable part of the system prompt. */
export interface SystemPromptSection {
	id: string;
	text: string;
}

/**
 * The system prompt kept in the transcript (transcript-system model): each change to the prompt
 * or to the active tools is a `system` message, so a reopened session shows exactly which prompt
 * each request saw. `content` is the full prompt text in effect from this message on.
 */
export interface SystemMessage {
	role: "system";
	content: string;
	/** Sections in effect (a baseline carries all; a patch carries the changed ones). */
	sections?: SystemPromptSection[];
	kind?: "baseline" | "patch";
	/** Tool loadout change this message records. */
	tools?: { active: string[]; added?: string[]; removed?: string[] };
	timestamp: number;
}

declare module "../llm/types.js" {
	interface CustomAgentMessages {
		custom: CustomMessage;
		bashExecution: BashExecutionMessage;
		compactionSummary: CompactionSummaryMessage;
		branchSummary: BranchSummaryMessage;
		system: SystemMessage;
	}
}
