/**
 * Normalizers that turn what a {@link Peer} recorded into plain data both peers must agree on:
 * no timestamps, ids, usage numbers, api strings or streaming granularity; order and roles kept.
 *
 * Settle's documented extras are filtered here, and only here, so every scenario filters the same:
 * - `system` messages: Settle keeps the system prompt as transcript `system` messages (behavior I.1,
 *   the transcript-system model; pi 0.73.1 keeps a plain `systemPrompt` string). Their
 *   `message_start`/`message_end` events, their `message` entries and their place in
 *   `session.messages` / `buildSessionContext()` are dropped.
 * - `agent_settled` / `agent_before_settle`: Settle's settlement events (behavior B.2, I.7); pi 0.73.1
 *   has neither.
 * - `context_edit` entries (and their `entry_appended` events): Settle omits a failed attempt from the
 *   model context with a persisted `context_edit` (behavior C.4 step 5 / C.5, doc version, I.5); pi
 *   0.73.1 only drops it from agent state. Scenarios that hit this compare the edits separately.
 */
import type { AnyEvent, Peer, Recorded } from "./peers.js";

/** Event types only Settle emits (documented extras, see the module comment). */
export const SETTLE_ONLY_EVENTS: ReadonlySet<string> = new Set(["agent_settled", "agent_before_settle"]);

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Content blocks without provider-specific extras (signatures, ids of text blocks). */
function normalizeContent(content: unknown): unknown {
	if (typeof content === "string" || content === undefined || content === null) return content;
	if (!Array.isArray(content)) return content;
	return content.map((block: Json) => {
		switch (block.type) {
			case "text":
				return { type: "text", text: block.text };
			case "thinking":
				return { type: "thinking", thinking: block.thinking };
			case "toolCall":
				return { type: "toolCall", id: block.id, name: block.name, arguments: block.arguments };
			case "image":
				return { type: "image", mimeType: block.mimeType };
			default:
				return block;
		}
	});
}

/**
 * Token counts compared by kind only: compaction's `tokensBefore` starts from the last assistant's
 * usage, and the faux providers count the system prompt into it, whose text is each product's own.
 */
function tokenCount(value: unknown): unknown {
	return typeof value === "number" && value > 0 ? "<tokens>" : value;
}

/** A message with the fields both peers define identically; timestamps, usage, api and model ids dropped. */
export function normalizeMessage(message: unknown): unknown {
	if (!isRecord(message)) return message;
	const out: Json = { role: message.role };
	switch (message.role) {
		case "user":
			out.content = normalizeContent(message.content);
			break;
		case "assistant":
			out.content = normalizeContent(message.content);
			out.stopReason = message.stopReason;
			if (message.errorMessage !== undefined) out.errorMessage = message.errorMessage;
			break;
		case "toolResult":
			out.toolCallId = message.toolCallId;
			out.toolName = message.toolName;
			out.content = normalizeContent(message.content);
			out.isError = message.isError;
			break;
		case "custom":
			out.customType = message.customType;
			out.content = normalizeContent(message.content);
			out.display = message.display;
			if (message.details !== undefined) out.details = message.details;
			break;
		case "compactionSummary":
			out.summary = message.summary;
			out.tokensBefore = tokenCount(message.tokensBefore);
			break;
		case "branchSummary":
			out.summary = message.summary;
			out.fromId = message.fromId;
			break;
		default:
			Object.assign(out, message);
			delete out.timestamp;
	}
	return out;
}

/** Messages without Settle's transcript `system` messages (documented extra), normalized. */
export function normalizeMessages(messages: readonly unknown[]): unknown[] {
	return messages.filter((message) => !(isRecord(message) && message.role === "system")).map(normalizeMessage);
}

function role(event: AnyEvent): string | undefined {
	const message = event.message;
	return isRecord(message) ? String(message.role) : undefined;
}

function isContextEdit(entry: unknown): boolean {
	return isRecord(entry) && entry.type === "context_edit";
}

/** Whether an event is one of Settle's documented extras. */
export function isSettleExtra(event: AnyEvent): boolean {
	return (
		SETTLE_ONLY_EVENTS.has(event.type) ||
		role(event) === "system" ||
		// pi 0.73.1 has no entry_appended event (Settle's, behavior B: custom entries, context edits, …).
		event.type === "entry_appended"
	);
}

/** Public events without Settle's documented extras. */
export function comparableEvents(recorded: readonly Recorded[]): AnyEvent[] {
	return recorded.flatMap((entry) => (entry.kind === "event" && !isSettleExtra(entry.event) ? [entry.event] : []));
}

/**
 * The event sequence as `type(role)` tokens with markers as `<<label>>`; runs of `message_update`
 * collapse to one token (streaming granularity is the provider's, not the session's).
 */
export function eventSequence(recorded: readonly Recorded[], options: { marks?: boolean } = {}): string[] {
	const out: string[] = [];
	for (const entry of recorded) {
		if (entry.kind === "mark") {
			if (options.marks !== false) out.push(`<<${entry.label}>>`);
			continue;
		}
		const event = entry.event;
		if (isSettleExtra(event)) continue;
		const r = role(event);
		const token = r ? `${event.type}(${r})` : event.type;
		if (event.type === "message_update" && out[out.length - 1] === token) continue;
		out.push(token);
	}
	return out;
}

function resultText(result: unknown): unknown {
	if (!isRecord(result)) return result;
	return normalizeContent(result.content);
}

/**
 * Selected event payloads both peers define, normalized: tool execution (ids, names, args, result
 * content, isError), turn_end (assistant + tool results), queue_update, retry and compaction events.
 */
export function eventPayloads(recorded: readonly Recorded[], types: readonly string[]): Json[] {
	return comparableEvents(recorded)
		.filter((event) => types.includes(event.type))
		.map((event) => {
			switch (event.type) {
				case "tool_execution_start":
					return { type: event.type, toolCallId: event.toolCallId, toolName: event.toolName, args: event.args };
				case "tool_execution_update":
					return { type: event.type, toolCallId: event.toolCallId, toolName: event.toolName };
				case "tool_execution_end":
					return {
						type: event.type,
						toolCallId: event.toolCallId,
						toolName: event.toolName,
						result: resultText(event.result),
						isError: event.isError,
					};
				case "turn_end":
					return {
						type: event.type,
						message: normalizeMessage(event.message),
						toolResults: (event.toolResults as unknown[]).map(normalizeMessage),
					};
				case "agent_end":
					return { type: event.type, messages: normalizeMessages(event.messages as unknown[]) };
				case "message_start":
				case "message_end":
					return { type: event.type, message: normalizeMessage(event.message) };
				case "compaction_end":
					return { ...event, result: normalizeCompactionResult(event.result) };
				default:
					return { ...event };
			}
		});
}

/** A compaction result with what both peers define (`details` are Settle's/pi's file lists). */
export function normalizeCompactionResult(result: unknown): unknown {
	if (!isRecord(result)) return result;
	return {
		summary: result.summary,
		firstKeptEntryId: typeof result.firstKeptEntryId === "string" ? "<entry id>" : result.firstKeptEntryId,
		tokensBefore: tokenCount(result.tokensBefore),
		details: result.details,
	};
}

/**
 * Session file entries as `type` or `type:role` tokens (header first), without Settle's transcript
 * `system` message entries and `context_edit` entries (documented extras).
 */
export function fileShape(entries: readonly Json[]): string[] {
	return entries
		.filter((entry) => !(entry.type === "message" && isRecord(entry.message) && entry.message.role === "system"))
		.filter((entry) => !isContextEdit(entry))
		.map((entry) => {
			if (entry.type === "message" && isRecord(entry.message)) {
				const message = entry.message;
				const extra =
					message.role === "assistant" && message.stopReason !== "stop"
						? `(${String(message.stopReason)})`
						: message.role === "toolResult"
							? `(${String(message.toolName)})`
							: "";
				return `message:${String(message.role)}${extra}`;
			}
			if (entry.type === "custom_message") return `custom_message:${String(entry.customType)}`;
			return String(entry.type);
		});
}

/** The messages stored in a session file's `message`/`custom_message` entries, normalized. */
export function fileMessages(entries: readonly Json[]): unknown[] {
	return normalizeMessages(
		entries.flatMap((entry) => {
			if (entry.type === "message") return [entry.message];
			if (entry.type === "custom_message") {
				return [
					{
						role: "custom",
						customType: entry.customType,
						content: entry.content,
						display: entry.display,
						details: entry.details,
					},
				];
			}
			return [];
		}),
	);
}

/** Everything a plain scenario compares, from one peer. */
export function observe(peer: Peer) {
	return {
		events: eventSequence(peer.recorded),
		messages: normalizeMessages(peer.session.messages),
		file: fileShape(peer.fileEntries()),
		fileMessages: fileMessages(peer.fileEntries()),
		requests: peer.requests,
	};
}

/**
 * Settle's `context_edit` entries as `omit <shape of the target>` / `replace <shape>` tokens, so a
 * scenario can check what was edited out (pi 0.73.1 writes none, see the module comment).
 */
export function contextEdits(entries: readonly Json[]): string[] {
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	return entries.filter(isContextEdit).map((edit) => {
		const target = byId.get(edit.targetId);
		const [shape] = target ? fileShape([target]) : ["<missing target>"];
		return `${edit.replacement === null ? "omit" : "replace"} ${shape}`;
	});
}
