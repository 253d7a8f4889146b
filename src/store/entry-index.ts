/**
 * The entries of a session in file order and what one pass over them derives (chain length,
 * labels, session name, whether a conversation started). The same indexing runs on every append
 * and while a file is read: there the entries of each decoded piece (64 KiB or 1 MiB of text) are
 * indexed right after they are parsed, while they are still in the CPU cache (separate passes over
 * 10,000 freshly parsed entries cost 1-3 ms, next to 15-30 ms for parsing them).
 */
import type { AgentMessage, Usage } from "../llm/types.js";
import type { SessionContext, SessionEntry } from "./entries.js";
import { isUsableContent, storedText } from "./entry-shape.js";
import { pushContextMessages } from "./projection.js";

/** A label in effect: the latest label change of an entry. */
export interface LabelState {
	label: string;
	timestamp: string;
}

/** The context of the last entry of a session whose entries form one chain (see {@link EntryIndex.takeChainContext}). */
export interface ChainContext {
	messages: AgentMessage[];
	thinkingLevel: SessionContext["thinkingLevel"];
	model: SessionContext["model"];
}

/** Tokens and cost of model calls, summed (see {@link EntryIndex.cumulative}). */
export interface UsageTotals {
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	/** In dollars, at the catalog prices the usages were recorded with. */
	cost: number;
}

/** Zero tokens and zero cost. */
export function emptyUsageTotals(): UsageTotals {
	return { tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, cost: 0 };
}

/**
 * The usage an entry records of a model call that was billed: an assistant message's, a tool
 * result's nested call, a `usage` entry (cache-warming refresh), the summarizer call of a
 * `compaction` or `branch_summary`. Undefined for other entries. Must not throw.
 */
export function billedUsage(entry: SessionEntry): Usage | undefined {
	switch (entry.type) {
		case "message": {
			const message = entry.message as AgentMessage | null | undefined;
			if (typeof message !== "object" || message === null) return undefined;
			return message.role === "assistant" || message.role === "toolResult" ? message.usage : undefined;
		}
		case "usage":
		case "compaction":
		case "branch_summary":
			return entry.usage;
		default:
			return undefined;
	}
}

/** Adds one call's usage to `totals` (total tokens too); a missing usage or a field that is not a number counts as zero. */
export function addUsageTotals(totals: UsageTotals, usage: Usage | undefined): void {
	if (!usage || typeof usage !== "object") return;
	const input = finite(usage.input);
	const output = finite(usage.output);
	const cacheRead = finite(usage.cacheRead);
	const cacheWrite = finite(usage.cacheWrite);
	totals.tokens.input += input;
	totals.tokens.output += output;
	totals.tokens.cacheRead += cacheRead;
	totals.tokens.cacheWrite += cacheWrite;
	totals.tokens.total += input + output + cacheRead + cacheWrite;
	totals.cost += finite(usage.cost?.total);
}

function finite(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** True for the entries that make a session worth writing: user and assistant messages. */
export function isConversationEntry(entry: SessionEntry): boolean {
	return entry.type === "message" && (entry.message.role === "user" || entry.message.role === "assistant");
}

export class EntryIndex {
	/** All entries in file order. */
	readonly entries: SessionEntry[];
	/** How many entries from the start form one chain (each the child of the previous one). */
	linearPrefix = 0;
	/** Labels by target id (latest change wins; a clear removes it). */
	readonly labels = new Map<string, LabelState>();
	/** Name from the latest `session_info` entry, trimmed; undefined if empty. */
	sessionName: string | undefined;
	/** A user or assistant message has been added. */
	hasConversation = false;
	/**
	 * Tokens and cost of every billed model call the entries record ({@link billedUsage}), in every
	 * branch: a running total, added to as each entry is indexed (read from the file or appended).
	 */
	readonly cumulative: UsageTotals = emptyUsageTotals();

	// The context of the last entry, kept while every entry continues the chain and needs no
	// rebuild (no compaction, no context edit, nothing unusual); null once that stops.
	private chainMessages: AgentMessage[] | null;
	private thinkingLevel: SessionContext["thinkingLevel"] = "off";
	/** Where the model in effect comes from (the last assistant message or model change); no object per message. */
	private hasModel = false;
	private modelProvider = "";
	private modelId = "";

	/**
	 * `trackChainContext`: also gather the context while the entries form one chain (for loading a
	 * file). `entries`: an empty array that the file reader fills (see {@link indexFrom}).
	 */
	constructor(trackChainContext = false, entries: SessionEntry[] = []) {
		this.chainMessages = trackChainContext ? [] : null;
		this.entries = entries;
	}

	add(entry: SessionEntry): void {
		this.entries.push(entry);
		this.indexFrom(this.entries.length - 1);
	}

	/**
	 * Indexes the entries from `start` on, which were just pushed onto {@link entries} (by the file
	 * reader, which fills that array, a decoded piece at a time). One loop for a batch, not a call per
	 * entry: in a fresh process the optimizing compiler then compiles this loop once instead of
	 * inlining a per-entry call into the reader's parse loop (several ms of compile work).
	 */
	indexFrom(start: number): void {
		const entries = this.entries;
		for (let count = start; count < entries.length; count++) {
			const entry = entries[count]!;
			const chained = (entry.parentId ?? null) === (count === 0 ? null : entries[count - 1]!.id);
			if (chained && this.linearPrefix === count) this.linearPrefix = count + 1;
			const messages = this.chainMessages;
			addUsageTotals(this.cumulative, billedUsage(entry));
			switch (entry.type) {
				case "message": {
					if (!this.hasConversation && isConversationEntry(entry)) this.hasConversation = true;
					if (messages === null) continue;
					const message = entry.message as (AgentMessage & { content?: unknown }) | null | undefined;
					// Anything unusual (a message without content, or with content of the wrong shape, is
					// projected as a copy) leaves it to a rebuild.
					if (
						!chained ||
						typeof message !== "object" ||
						message === null ||
						message.content == null ||
						(typeof message.content !== "string" && !isUsableContent(message.content))
					) {
						break;
					}
					messages.push(message);
					if (message.role === "assistant") {
						this.hasModel = true;
						this.modelProvider = message.provider;
						this.modelId = message.model;
					}
					continue;
				}
				case "label":
					// A label that is not text (`42` in a hand-edited file) reads as none.
					if (typeof entry.label === "string" && entry.label) {
						this.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
					} else this.labels.delete(entry.targetId);
					if (chained || messages === null) continue;
					break;
				case "session_info":
					// A name that is not text (`42` in a hand-edited file) reads as none, like a clear.
					this.sessionName = storedText(entry.name)?.trim() || undefined;
					if (chained || messages === null) continue;
					break;
				case "thinking_level_change":
					if (!chained || messages === null) break;
					this.thinkingLevel = entry.thinkingLevel;
					continue;
				case "model_change":
					if (!chained || messages === null) break;
					this.hasModel = true;
					this.modelProvider = entry.provider;
					this.modelId = entry.modelId;
					continue;
				case "compaction":
				case "context_edit":
					break;
				default:
					if (!chained || messages === null) break;
					pushContextMessages(entry, messages);
					continue;
			}
			this.chainMessages = null;
		}
	}

	/**
	 * The context of the last entry when every entry so far continued one chain with nothing that
	 * needs a rebuild, else null; stops gathering either way.
	 */
	takeChainContext(): ChainContext | null {
		const messages = this.chainMessages;
		this.chainMessages = null;
		if (messages === null) return null;
		const model = this.hasModel ? { provider: this.modelProvider, modelId: this.modelId } : null;
		return { messages, thinkingLevel: this.thinkingLevel, model };
	}
}
