/**
 * The link between the Agent's in-memory transcript and the session log: persisting messages at
 * `message_end`, appending side-channel messages to both, appending entries that emit
 * `entry_appended`, and rebuilding the transcript from the projection after a context edit or a
 * compaction (the only times the whole transcript is walked).
 */
import type { Agent } from "../agent/agent.js";
import type { AgentMessage, ToolResultMessage } from "../llm/types.js";
import type { ContextEditReplacement, SessionManager } from "../store/session-manager.js";
import type { PublicEvents } from "./public-events.js";

export class Transcript {
	/**
	 * Entry ids of the messages persisted since the current turn started — all the session ever
	 * needs to look up (the turn_end boundary, omitting a failed attempt or turn). Cheaper per
	 * message than a WeakMap over the whole transcript.
	 */
	private readonly recentMessages: (AgentMessage | undefined)[] = [];
	/** `recentIds[i]` is the entry id of `recentMessages[i]` (two arrays: no object per message). */
	private readonly recentIds: string[] = [];
	/**
	 * How many of the slots above hold the current turn's messages. The arrays are reused from turn
	 * to turn (truncating them would free their storage and grow it again on every turn).
	 */
	private recentCount = 0;
	/** Timestamp (ms) of the latest compaction in the current context; undefined when none. */
	latestCompactionAt: number | undefined;
	/** The current context has context edits (the last usage no longer describes it). */
	hasContextEdits = false;
	/**
	 * A tree navigation left the branch recording another thinking level than the live one: the
	 * next turn records the live level before its messages (pi#3544).
	 */
	thinkingLevelUnrecorded = false;

	constructor(
		private readonly agent: Agent,
		private readonly sessionManager: SessionManager,
		private readonly events: PublicEvents,
	) {
		this.readContextFacts();
	}

	/**
	 * Persists a message at its `message_end`: `custom` → a custom_message entry;
	 * system, user, assistant and toolResult → a message entry; other roles are persisted by their
	 * own flows. Returns the entry id, or undefined when the role is not persisted here.
	 */
	persist(message: AgentMessage): string | undefined {
		let id: string;
		try {
			id = this.write(message) as string;
		} catch (error) {
			// Not in the log (a full disk, the file deleted…): not in the live transcript either, so that
			// what the session goes on with is what the log holds (the caller's throw ends the run). A
			// failure message stays: it says why the run ended, and no model request includes it.
			const messages = this.agent.state.messages;
			const failure = message.role === "assistant" && message.stopReason === "error";
			if (!failure && messages[messages.length - 1] === message) messages.pop();
			throw error;
		}
		if (id === undefined) return undefined;
		this.remember(message, id);
		return id;
	}

	/**
	 * Answers the tool calls of the log's last answer that have no result there yet, and returns the
	 * results it wrote: the live transcript's own result when it has one (its `message_end` was under
	 * way), else an error result saying `text`. For a dispose while tools run: the detached run never
	 * writes their results, and a file ending on an unanswered call is not a valid conversation (a
	 * provider refuses it; claude-code#3003).
	 */
	answerOpenToolCalls(text: string): ToolResultMessage[] {
		const answered = new Set<string>();
		const branch = this.sessionManager.getBranch();
		for (let index = branch.length - 1; index >= 0; index--) {
			const entry = branch[index]!;
			if (entry.type !== "message") continue;
			const message = entry.message;
			if (message.role === "toolResult") {
				answered.add(message.toolCallId);
				continue;
			}
			const results: ToolResultMessage[] = [];
			// An aborted or failed answer's calls never ran (and are never sent).
			if (message.role !== "assistant" || message.stopReason === "aborted" || message.stopReason === "error") {
				return results;
			}
			for (const block of message.content) {
				if (block.type !== "toolCall" || answered.has(block.id)) continue;
				const result = this.liveResult(block.id) ?? {
					role: "toolResult",
					toolCallId: block.id,
					toolName: block.name,
					content: [{ type: "text", text }],
					details: {},
					isError: true,
					timestamp: Date.now(),
				};
				this.sessionManager.appendMessage(result);
				results.push(result);
			}
			return results;
		}
		return [];
	}

	/** The live transcript's result for call `id`, after the last answer; undefined when none. */
	private liveResult(id: string): ToolResultMessage | undefined {
		const messages = this.agent.state.messages;
		for (let index = messages.length - 1; index >= 0; index--) {
			const message = messages[index]!;
			if (message.role === "assistant") return undefined;
			if (message.role === "toolResult" && message.toolCallId === id) return message;
		}
		return undefined;
	}

	/** Appends the entry of a message persisted at `message_end`; undefined for roles persisted elsewhere. */
	private write(message: AgentMessage): string | undefined {
		switch (message.role) {
			case "custom":
				return this.sessionManager.appendCustomMessageEntry(
					message.customType,
					message.content ?? [],
					message.display,
					message.details,
				);
			case "system":
			case "user":
			case "assistant":
			case "toolResult":
				return this.sessionManager.appendMessage(message);
			default:
				return undefined;
		}
	}

	private remember(message: AgentMessage, id: string): void {
		const index = this.recentCount++;
		this.recentMessages[index] = message;
		this.recentIds[index] = id;
	}

	/** A new turn starts: earlier messages are no longer looked up (nor kept alive). */
	startTurn(): void {
		const messages = this.recentMessages;
		for (let index = 0; index < this.recentCount; index++) messages[index] = undefined;
		this.recentCount = 0;
	}

	/** The entry id of a message persisted in the current (or, between runs, the last) turn. */
	entryIdOf(message: AgentMessage): string | undefined {
		const messages = this.recentMessages;
		for (let index = this.recentCount - 1; index >= 0; index--) {
			if (messages[index] === message) return this.recentIds[index];
		}
		return undefined;
	}

	/**
	 * Adds a message outside a run's event flow (pending bash / custom messages, idle custom
	 * messages): appended to the live transcript and to the log. Bash executions are stored as
	 * message entries.
	 */
	append(message: AgentMessage): string {
		// Logged first: a message the log refused (a full disk) does not join the transcript either.
		const id = message.role === "custom" ? (this.write(message) as string) : this.sessionManager.appendMessage(message);
		this.agent.state.messages.push(message);
		this.remember(message, id);
		return id;
	}

	/** Emits `entry_appended` for an entry appended outside `message_end`. */
	announce(entryId: string): void {
		const entry = this.sessionManager.getEntry(entryId);
		if (entry) this.events.emit({ type: "entry_appended", entry });
	}

	/** Appends a context edit (+ `entry_appended`); call {@link rebuild} once after a batch. */
	appendContextEdit(targetId: string, replacement: ContextEditReplacement): string {
		const id = this.sessionManager.appendContextEdit(targetId, replacement);
		this.hasContextEdits = true;
		this.announce(id);
		return id;
	}

	/**
	 * Omits persisted messages from the model context (they stay in the log): one `context_edit`
	 * with a null replacement each, then one rebuild. Messages this session did not persist are
	 * skipped. Returns the edit entry ids.
	 */
	omit(messages: readonly AgentMessage[]): string[] {
		const ids: string[] = [];
		for (const message of messages) {
			const target = this.entryIdOf(message);
			if (target) ids.push(this.appendContextEdit(target, null));
		}
		if (ids.length > 0) this.rebuild();
		return ids;
	}

	/** Notes a compaction appended now (its entry starts the context). */
	noteCompaction(entryId: string): void {
		const entry = this.sessionManager.getEntry(entryId);
		if (entry) this.latestCompactionAt = Date.parse(entry.timestamp);
	}

	/**
	 * Replaces the live transcript with the projection of the log (after context edits, a
	 * compaction, boundary drafts). Messages keep their identity where the log stores them, so
	 * per-message caches (LLM conversion, recent entry ids) stay valid. O(transcript).
	 */
	rebuild(): void {
		this.rebuildRequested = false;
		this.agent.state.messages = this.sessionManager.buildSessionContext().messages;
		this.readContextFacts();
	}

	/** A {@link rebuild} is due at the next safe point of the run in progress (`refreshContext()`). */
	rebuildRequested = false;

	/** Rebuilds if {@link rebuildRequested} (before a run, before the next turn's request, at settle). */
	rebuildIfRequested(): void {
		if (this.rebuildRequested) this.rebuild();
	}

	private readContextFacts(): void {
		const entries = this.sessionManager.buildContextEntries();
		const first = entries[0];
		this.latestCompactionAt = first?.type === "compaction" ? Date.parse(first.timestamp) : undefined;
		this.hasContextEdits = entries.some((entry) => entry.type === "context_edit");
	}
}
