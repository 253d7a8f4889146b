/**
 * Token accounting for compaction decisions: provider usage where there is one,
 * a chars/4 estimate (rounded up) for everything after it. Pure, no I/O.
 */
import type { AgentMessage, AssistantMessage, ImageContent, TextContent, Usage } from "./types.js";

/** Characters an image is counted as (1200 tokens). */
export const IMAGE_CHAR_ESTIMATE = 4800;

/** Settings the threshold predicate reads (`compaction.*`). */
export interface CompactionThresholdSettings {
	enabled: boolean;
	/** Tokens kept free for the next answer (and the summary request). */
	reserveTokens: number;
}

/**
 * Tokens a request occupied according to its usage: `totalTokens` when the provider reported it,
 * else `input + output + cacheRead + cacheWrite`. A field that is missing or not a number (a
 * partial usage saved by another writer, pi#3425) counts as 0, so the result is never NaN.
 *
 * @example
 * ```ts
 * calculateContextTokens({ input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }); // 1500
 * ```
 */
export function calculateContextTokens(usage: Usage): number {
	return (
		tokenCount(usage.totalTokens) ||
		tokenCount(usage.input) + tokenCount(usage.output) + tokenCount(usage.cacheRead) + tokenCount(usage.cacheWrite)
	);
}

function tokenCount(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * Estimated tokens of one transcript message: characters / 4, rounded up, where a CJK ideograph,
 * kana, Hangul syllable or fullwidth form counts 4 characters (about one token; pi 0.73.1 counts 1,
 * a quarter of a Chinese session, pi#2562). Counted: text of user,
 * custom and toolResult messages (+4800 characters per image), assistant text, thinking, tool
 * names and JSON arguments, bash command + output, summary texts. System messages count 0 (the
 * system prompt is carried separately and is already inside every provider usage); a `!!` bash
 * message (`excludeFromContext`) counts 0: it is never sent, so it must not fill the context
 * estimate or the compaction's kept span (openclaw#121147; pi 0.73.1 counts it); unknown roles
 * count 0.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * estimateMessageTokens({ role: "user", content: "hello world!", timestamp: 0 }); // 3
 * ```
 */
export function estimateMessageTokens(message: AgentMessage): number {
	let chars = 0;
	switch (message.role) {
		case "user":
		case "custom":
		case "toolResult":
			chars = contentChars(message.content);
			break;
		case "assistant":
			for (const block of message.content) {
				if (block.type === "text") chars += textChars(block.text);
				else if (block.type === "thinking") chars += textChars(block.thinking);
				else if (block.type === "toolCall") chars += block.name.length + jsonLength(block.arguments);
			}
			break;
		case "bashExecution":
			if (message.excludeFromContext) return 0;
			chars = textChars(message.command) + textChars(message.output);
			break;
		case "branchSummary":
		case "compactionSummary":
			chars = textChars(message.summary);
			break;
		default:
			return 0;
	}
	return Math.ceil(chars / 4);
}

/** How {@link estimateContextTokens} arrived at its number. */
export interface ContextTokenEstimate {
	/** `usageTokens + trailingTokens`. */
	tokens: number;
	/** Context tokens of the last valid assistant usage (0 when there is none). */
	usageTokens: number;
	/** Estimated tokens of the messages after that usage (all messages when there is none). */
	trailingTokens: number;
	/** Index of the assistant message whose usage was used, or `null`. */
	lastUsageIndex: number | null;
}

/**
 * Context tokens of a transcript: the usage of the last assistant message with valid usage
 * (skipping aborted and error responses, and responses that reported no usage at all) plus
 * estimates of the messages after it; the sum of estimates when no message has usage.
 * `isUsageCurrent`: when given, a response it rejects is estimated like any other message and the
 * walk goes on (its usage counted a message a later context edit replaced or dropped).
 *
 * Walks backwards and stops at that assistant message, so the cost is proportional to the number
 * of messages since the last model response, not to the length of the session.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const { tokens } = estimateContextTokens(agent.state.messages);
 * if (shouldCompact(tokens, model.contextWindow, settingsManager.getCompactionSettings())) await session.compact();
 * ```
 */
export function estimateContextTokens(
	messages: readonly AgentMessage[],
	isUsageCurrent?: (response: AssistantMessage) => boolean,
): ContextTokenEstimate {
	let trailingTokens = 0;
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index]!;
		const usage = validAssistantUsage(message);
		if (usage !== undefined && (isUsageCurrent === undefined || isUsageCurrent(message as AssistantMessage))) {
			const usageTokens = calculateContextTokens(usage);
			return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex: index };
		}
		trailingTokens += estimateMessageTokens(message);
	}
	return { tokens: trailingTokens, usageTokens: 0, trailingTokens, lastUsageIndex: null };
}

/**
 * The reserve a model with this context window gets: `reserveTokens`, but never more than half of
 * the window (pi#8651). pi 0.73.1 takes `reserveTokens` as it is, so the default 16384 on an
 * 8192-token model puts the threshold below zero (a compaction after every prompt) and asks the
 * summarizer for 0.8 × 16384 tokens, more than the window holds. Half keeps at least as much room
 * for the conversation as for the answer, and the summary answer (80% of the reserve) within the
 * window beside the history it summarizes; windows of 32768 tokens and more keep the default
 * reserve unchanged. A window that is not a positive number keeps `reserveTokens`.
 *
 * @example
 * ```ts
 * effectiveReserveTokens(200_000, 16_384); // 16384
 * effectiveReserveTokens(8192, 16_384); // 4096
 * ```
 */
export function effectiveReserveTokens(contextWindow: number, reserveTokens: number): number {
	return contextWindow > 0 ? Math.min(reserveTokens, Math.floor(contextWindow / 2)) : reserveTokens;
}

/**
 * The compaction threshold in tokens, `contextWindow − reserveTokens` with the reserve capped at half
 * of the window ({@link effectiveReserveTokens}): the one definition {@link shouldCompact}
 * and the traces' numbers (`thresholdTokens`) share.
 *
 * @example
 * ```ts
 * compactionThresholdTokens(200_000, { reserveTokens: 16_384 }); // 183616
 * compactionThresholdTokens(8192, { reserveTokens: 16_384 }); // 4096
 * ```
 */
export function compactionThresholdTokens(
	contextWindow: number,
	settings: Pick<CompactionThresholdSettings, "reserveTokens">,
): number {
	return contextWindow - effectiveReserveTokens(contextWindow, settings.reserveTokens);
}

/**
 * The `keepRecentTokens` a compaction on a model with this context window gets: as set, but never
 * more than half of the threshold ({@link compactionThresholdTokens}), so the kept tail leaves room
 * under the threshold for the summary, the system prompt and the tools. pi 0.73.1 keeps 20000 tokens
 * as set: on a 32768-token model (threshold 16384) the kept tail alone is over the threshold, and
 * every answer after the first compaction compacts again, one turn at a time; on a 16384-token
 * model it holds the whole context, so nothing can be summarized (opencode#45368). With the default
 * settings, windows of 56384 tokens and more keep 20000. A window that is not a positive number
 * keeps `keepRecentTokens`.
 *
 * @example
 * ```ts
 * effectiveKeepRecentTokens(200_000, { reserveTokens: 16_384, keepRecentTokens: 20_000 }); // 20000
 * effectiveKeepRecentTokens(32_768, { reserveTokens: 16_384, keepRecentTokens: 20_000 }); // 8192
 * ```
 */
export function effectiveKeepRecentTokens(
	contextWindow: number,
	settings: { reserveTokens: number; keepRecentTokens: number },
): number {
	if (!(contextWindow > 0)) return settings.keepRecentTokens;
	const half = Math.max(1, Math.floor(compactionThresholdTokens(contextWindow, settings) / 2));
	return Math.min(settings.keepRecentTokens, half);
}

/**
 * The threshold predicate: compaction is due when it is enabled and the context occupies more than
 * {@link compactionThresholdTokens} (`contextWindow − reserveTokens`).
 *
 * @example
 * ```ts
 * shouldCompact(190_000, 200_000, { enabled: true, reserveTokens: 16_384 }); // true
 * ```
 */
export function shouldCompact(
	contextTokens: number,
	contextWindow: number,
	settings: CompactionThresholdSettings,
): boolean {
	return settings.enabled && contextTokens > compactionThresholdTokens(contextWindow, settings);
}

/**
 * The usage of an assistant message that reflects a complete request, if any: undefined for other
 * roles, aborted or failed responses, and usage that counts no context tokens. Never throws.
 *
 * @example
 * ```ts
 * const usage = validAssistantUsage(messages[messages.length - 1]!);
 * if (usage) console.log(calculateContextTokens(usage));
 * ```
 */
export function validAssistantUsage(message: AgentMessage): Usage | undefined {
	if (message.role !== "assistant") return undefined;
	const assistant = message as AssistantMessage;
	if (assistant.stopReason === "aborted" || assistant.stopReason === "error") return undefined;
	if (!assistant.usage || calculateContextTokens(assistant.usage) <= 0) return undefined;
	return assistant.usage;
}

function contentChars(content: string | (TextContent | ImageContent)[]): number {
	if (typeof content === "string") return textChars(content);
	let chars = 0;
	for (const block of content) {
		if (block.type === "text") chars += textChars(block.text);
		else if (block.type === "image") chars += IMAGE_CHAR_ESTIMATE;
	}
	return chars;
}

/**
 * Length in estimate characters: one per UTF-16 unit, but four per CJK ideograph, kana, Hangul
 * syllable or fullwidth form, which tokenizers encode as about one token each; chars/4 alone counted
 * a Chinese session at a quarter of its size (pi#2562, openclaw#103930).
 */
function textChars(text: string): number {
	// The native scan first: a text with no wide character (most) costs no loop; a one-byte string none at all.
	if (!WIDE_CHARACTER.test(text)) return text.length;
	let chars = text.length;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0x1100 && isWide(code)) chars += 3;
	}
	return chars;
}

/** The ranges {@link isWide} accepts, as one character class. */
const WIDE_CHARACTER = /[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]/;

function isWide(code: number): boolean {
	return (
		code <= 0x11ff || // Hangul Jamo
		(code >= 0x2e80 && code <= 0x9fff) || // CJK radicals, punctuation, kana, ideographs
		(code >= 0xa960 && code <= 0xa97f) || // Hangul Jamo Extended-A
		(code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
		(code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
		(code >= 0xfe30 && code <= 0xfe4f) || // CJK compatibility forms
		(code >= 0xff00 && code <= 0xffef) // halfwidth and fullwidth forms
	);
}

function jsonLength(value: unknown): number {
	try {
		return textChars(JSON.stringify(value) ?? "");
	} catch {
		return 0;
	}
}
