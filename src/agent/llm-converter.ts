/**
 * Incremental AgentMessage[] → Message[] conversion: the per-turn cost depends on the messages
 * added since the last call, not on the transcript length.
 */
import type { AgentMessage, Message } from "../llm/types.js";

/** Converts one transcript message: a message, several, or `undefined` to leave it out. */
export type LlmMessageConversion = (message: AgentMessage) => Message | readonly Message[] | undefined;

/**
 * Keeps user, assistant and toolResult messages as they are; returns undefined for every other role. Never throws.
 *
 * @example
 * ```ts
 * defaultConvertMessageToLlm({ role: "user", content: "hi", timestamp: 0 }); // the same message
 * const llmMessages = messages.map(defaultConvertMessageToLlm).filter((m) => m !== undefined);
 * ```
 */
export function defaultConvertMessageToLlm(message: AgentMessage): Message | undefined {
	return message.role === "user" || message.role === "assistant" || message.role === "toolResult"
		? (message as Message)
		: undefined;
}

interface ArrayEntry {
	llm: Message[];
	/** How many transcript messages are converted. */
	count: number;
	last: AgentMessage | undefined;
	llmLength: number;
	llmLast: Message | undefined;
}

const DROPPED = null;

/**
 * Creates a whole-transcript converter that remembers, per transcript array, how far it has
 * converted and extends one LLM array in place. Conversions that produce a new object are cached
 * per message (WeakMap), so a reassigned transcript that shares messages re-converts cheaply.
 *
 * Contract (what makes the incremental path correct):
 * - Transcript arrays are append-only: change a transcript by assigning a new array (or by
 *   replacing its last element before the next call). Truncation, or replacing the last converted
 *   element, is detected and triggers a full rebuild; edits in the middle are not detected.
 * - The returned array is reused and grows on later calls. Callers (stream functions) must treat
 *   it as read-only and copy it if they keep it past the request; a changed length is detected
 *   and triggers a rebuild.
 * - `convertMessage` must be pure.
 *
 * @example
 * ```ts
 * const toLlm = createLlmMessageConverter((m) => (m.role === "custom" ? { role: "user", content: m.content, timestamp: m.timestamp } : defaultConvertMessageToLlm(m)));
 * const agent = new Agent({ convertToLlm: toLlm });
 * ```
 */
export function createLlmMessageConverter(
	convertMessage: LlmMessageConversion = defaultConvertMessageToLlm,
): (messages: AgentMessage[]) => Message[] {
	const perMessage = new WeakMap<object, Message | readonly Message[] | typeof DROPPED>();
	const perArray = new WeakMap<AgentMessage[], ArrayEntry>();
	return (messages) => {
		let entry = perArray.get(messages);
		// A new (or changed) array starts over and looks its messages up; an intact one only
		// converts what was appended since, and caches only conversions that made a new object
		// (a message passed through as it is costs no cache entry and no lookup per turn).
		const rebuilding = !entry || !isIntact(entry, messages);
		if (!entry || rebuilding) {
			entry = { llm: [], count: 0, last: undefined, llmLength: 0, llmLast: undefined };
			perArray.set(messages, entry);
		}
		const llm = entry.llm;
		for (let index = entry.count; index < messages.length; index++) {
			const message = messages[index]!;
			let converted = rebuilding ? perMessage.get(message) : undefined;
			if (converted === undefined) {
				converted = convertMessage(message) ?? DROPPED;
				if (converted !== message) perMessage.set(message, converted);
			}
			if (converted === DROPPED) continue;
			if (isMessageList(converted)) for (const item of converted) llm.push(item);
			else llm.push(converted);
		}
		entry.count = messages.length;
		entry.last = messages[messages.length - 1];
		entry.llmLength = llm.length;
		entry.llmLast = llm[llm.length - 1];
		return llm;
	};
}

function isMessageList(value: Message | readonly Message[]): value is readonly Message[] {
	return Array.isArray(value);
}

function isIntact(entry: ArrayEntry, messages: AgentMessage[]): boolean {
	if (messages.length < entry.count) return false;
	if (entry.count > 0 && messages[entry.count - 1] !== entry.last) return false;
	if (entry.llm.length !== entry.llmLength) return false;
	return entry.llmLength === 0 || entry.llm[entry.llmLength - 1] === entry.llmLast;
}
