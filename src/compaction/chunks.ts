/**
 * Summaries of spans larger than the summarizer's context window (openclaw#10423, pi#8196): the
 * span is split at message boundaries into requests that fit, summarized in order, each later
 * request updating the running summary. Only used where one request would not fit (where pi fails),
 * or where the provider rejected a request as too long that the chars/4 estimate said fits.
 */
import { errorMessage, SettleError } from "../errors.js";
import { isOverflowErrorText } from "../llm/errors.js";
import type { AgentMessage, Model, Usage } from "../llm/types.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import { SUMMARIZATION_SYSTEM_PROMPT, summarizationRequestText } from "./prompts.js";
import { addUsage, requestSummary, type SummaryText } from "./request.js";
import { serializeConversation } from "./serialize.js";
import type { SummarizerOptions } from "./types.js";

/**
 * What to do about a compaction summary cut at its cap (pi#7048): nothing was written, so compacting
 * again is safe; a larger reserve gives the answer more room (80% of it, up to half the window).
 */
const SUMMARY_CUT_ADVICE = "no summary was written; compact again, or raise compaction.reserveTokens";

/** Fewest conversation characters a chunk request must have room for (about 100 tokens). */
export const MIN_CHUNK_CHARS = 400;

/**
 * Whether a summarization request with this user text and answer budget fits `model`'s context
 * window, by the chars/4 estimate Settle uses for compaction: ⌈(system prompt + text) / 4⌉ +
 * `maxTokens` ≤ `contextWindow`. A model without a window (0 or absent) fits everything.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * summaryRequestFits("<conversation>\n[User]: hi\n</conversation>\n\nSummarize.", 1000, { contextWindow: 8000 }); // true
 * ```
 */
export function summaryRequestFits(
	promptText: string,
	maxTokens: number,
	model: Pick<Model, "contextWindow">,
): boolean {
	if (!model.contextWindow) return true;
	return Math.ceil((SUMMARIZATION_SYSTEM_PROMPT.length + promptText.length) / 4) + maxTokens <= model.contextWindow;
}

/**
 * Conversation characters a chunk request has room for: the window (chars/4) less the answer budget,
 * the system prompt, the instructions and the previous summary. Negative when those alone overflow;
 * unbounded for a model without a window (as {@link summaryRequestFits}: only the provider's
 * rejection limits its chunks).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const room = chunkBudgetChars({ contextWindow: 8000 }, 1600, CHECKPOINT_PROMPT, undefined);
 * console.log(room > 20_000); // true
 * ```
 */
export function chunkBudgetChars(
	model: Pick<Model, "contextWindow">,
	maxTokens: number,
	instructions: string,
	previousSummary: string | undefined,
): number {
	if (!model.contextWindow) return Number.POSITIVE_INFINITY;
	const overhead =
		SUMMARIZATION_SYSTEM_PROMPT.length + summarizationRequestText("", instructions, previousSummary).length;
	return 4 * (model.contextWindow - maxTokens) - overhead;
}

/** One chunk of a span: messages `[start, end)` and their serialized text (cut when one message alone is too large). */
export interface SummaryChunk {
	start: number;
	end: number;
	conversation: string;
}

/**
 * The next chunk of `texts` (one serialized message each, `""` for a message that serializes to
 * nothing) from `start`: the most messages whose texts, joined by blank lines, stay within
 * `budgetChars`. Takes at least one message; a first message longer than the budget on its own is
 * cut to it, with a note saying how many characters were cut. Needs `budgetChars` ≥
 * {@link MIN_CHUNK_CHARS}.
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * nextSummaryChunk(["[User]: a", "[Assistant]: b", "[User]: c"], 0, 30); // { start: 0, end: 2, conversation: "[User]: a\n\n[Assistant]: b" }
 * ```
 */
export function nextSummaryChunk(texts: readonly string[], start: number, budgetChars: number): SummaryChunk {
	const parts: string[] = [];
	let chars = 0;
	let end = start;
	while (end < texts.length) {
		const text = texts[end]!;
		const added = text === "" ? 0 : parts.length === 0 ? text.length : text.length + 2;
		if (added > 0 && chars + added > budgetChars) {
			if (parts.length === 0) {
				parts.push(cutToFit(text, budgetChars));
				end++;
			}
			break;
		}
		if (text !== "") parts.push(text);
		chars += added;
		end++;
	}
	return { start, end, conversation: parts.join("\n\n") };
}

/**
 * `text` cut to at most `budgetChars` characters, ending with a note saying how many were cut. The
 * cut never falls between an emoji's halves (one character fewer is kept, and counted as cut).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * cutToFit("x".repeat(1000), 200).length <= 200; // true
 * ```
 */
export function cutToFit(text: string, budgetChars: number): string {
	const note = (cut: number) => `\n\n[... ${cut} more characters cut to fit the summarizer's context window]`;
	const kept = sliceWholeCharacters(text, Math.max(0, budgetChars - note(text.length).length));
	return kept + note(text.length - kept.length);
}

/** The prompts and budget of a chunked summary: see {@link summarizeInChunks}. */
export interface ChunkedSummaryOptions extends SummarizerOptions {
	/** Instructions of the first request (no previous summary). */
	firstInstructions: string;
	/** Instructions of every request that carries a previous summary. */
	updateInstructions: string;
	/** The summary the first chunk updates (a previous compaction's). */
	previousSummary?: string;
	/** Answer budget of each request. */
	maxTokens: number;
	/** Prefix of a failure's message, as for a single request. */
	failurePrefix: string;
	/** The user's focus in the instructions (`/compact <focus>`): named when the window cannot hold them. */
	customInstructions?: string;
}

/**
 * Whether `error` (thrown by a summarization request) is the provider rejecting the request as too
 * long for its context window ({@link isOverflowErrorText} on the provider's text).
 *
 * Must not throw.
 *
 * @example
 * ```ts
 * const rejected = new SettleError("PROVIDER", "Summarization failed: prompt is too long: 9000 tokens > 8000 maximum", {
 *   details: { stopReason: "error", errorMessage: "prompt is too long: 9000 tokens > 8000 maximum" },
 * });
 * isOverflowRejection(rejected); // true
 * ```
 */
export function isOverflowRejection(error: unknown): boolean {
	if (!(error instanceof SettleError) || error.code !== "PROVIDER") return false;
	const providerText = error.details?.errorMessage;
	if (typeof providerText === "string") return isOverflowErrorText(providerText);
	return error.cause !== undefined && isOverflowErrorText(errorMessage(error.cause));
}

/**
 * Summarizes `messages` (whose one request is `promptText`): pi's one request where it fits the
 * window by the chars/4 estimate, else in chunks ({@link summarizeInChunks}; where the window cannot
 * hold even a first chunk beside the instructions and the answer budget, that fails before any
 * request is sent). When the provider counts more tokens than the estimate (dense code, CJK, JSON)
 * and rejects the one request as too long, the span is summarized in chunks of at most half its
 * serialized length instead (the provider's error is thrown as it is for a span under twice
 * {@link MIN_CHUNK_CHARS}).
 *
 * Throws as {@link summarizeInChunks}.
 *
 * @example
 * ```ts
 * const prompt = summarizationRequestText(serializeConversation(messages), CHECKPOINT_PROMPT);
 * const { text } = await summarizeSpan(messages, prompt, {
 *   model, streamFn: faux.streamFn, signal, maxTokens: 2000, failurePrefix: "Summarization failed",
 *   firstInstructions: CHECKPOINT_PROMPT, updateInstructions: CHECKPOINT_UPDATE_PROMPT,
 * });
 * ```
 */
export async function summarizeSpan(
	messages: readonly AgentMessage[],
	promptText: string,
	options: ChunkedSummaryOptions,
): Promise<SummaryText> {
	if (!summaryRequestFits(promptText, options.maxTokens, options.model)) return summarizeInChunks(messages, options);
	try {
		return await requestSummary(promptText, options.maxTokens, options, options.failurePrefix, SUMMARY_CUT_ADVICE);
	} catch (error) {
		// The request fit the window, so a chunk of half its conversation fits too (or there is no window).
		const halfSpan = Math.floor(serializeConversation(messages).length / 2);
		if (!isOverflowRejection(error) || halfSpan < MIN_CHUNK_CHARS) throw error;
		return summarizeInChunks(messages, options, halfSpan);
	}
}

/**
 * Summarizes `messages` in as many requests as needed for each to fit `options.model`'s window
 * ({@link summaryRequestFits}): the span is split at message boundaries ({@link nextSummaryChunk});
 * each request after the first carries the running summary as `<previous-summary>` with the update
 * instructions. Chunks hold at most `limitChars` of conversation. A request the provider rejects
 * as too long ({@link isOverflowRejection}: it counts more tokens than the estimate) is split again
 * with half its conversation as the limit, for it and every later chunk; the running summary is
 * kept. Returns the last summary, the summed usage and the number of requests sent (rejected ones
 * included): at most one per message plus one per halving of the limit down to
 * {@link MIN_CHUNK_CHARS}, plus the last rejection.
 *
 * Throws as `requestSummary` (the first failing request ends it; later chunks are not sent; a
 * rejection as too long ends it once the rejected conversation's half would be under
 * {@link MIN_CHUNK_CHARS}), and `SettleError("PROVIDER", "<failurePrefix>: …")` when the window
 * cannot hold the instructions, the running summary and the answer budget with room for any
 * conversation.
 *
 * @example
 * ```ts
 * const { text, requests } = await summarizeInChunks(messages, {
 *   model, streamFn: faux.streamFn, signal, maxTokens: 2000, failurePrefix: "Summarization failed",
 *   firstInstructions: CHECKPOINT_PROMPT, updateInstructions: CHECKPOINT_UPDATE_PROMPT,
 * });
 * ```
 */
export async function summarizeInChunks(
	messages: readonly AgentMessage[],
	options: ChunkedSummaryOptions,
	limitChars = Number.POSITIVE_INFINITY,
): Promise<SummaryText & { requests: number }> {
	const texts = messages.map((message) => serializeConversation([message]));
	let previous = options.previousSummary;
	let usage: Usage | undefined;
	let requests = 0;
	let start = 0;
	let limit = limitChars;
	do {
		const instructions = previous !== undefined ? options.updateInstructions : options.firstInstructions;
		const budgetChars = chunkBudgetChars(options.model, options.maxTokens, instructions, previous);
		if (budgetChars < MIN_CHUNK_CHARS) throw windowTooSmall(options, previous, start === 0);
		const chunk = nextSummaryChunk(texts, start, Math.min(budgetChars, limit));
		const promptText = summarizationRequestText(chunk.conversation, instructions, previous);
		let answer: SummaryText;
		requests++;
		try {
			answer = await requestSummary(promptText, options.maxTokens, options, options.failurePrefix, SUMMARY_CUT_ADVICE);
		} catch (error) {
			// The provider counts this text denser than chars/4: the same messages again, in halves.
			const half = Math.floor(chunk.conversation.length / 2);
			if (!isOverflowRejection(error) || half < MIN_CHUNK_CHARS) throw error;
			limit = half;
			continue;
		}
		previous = answer.text;
		usage = usage ? addUsage(usage, answer.usage) : answer.usage;
		start = chunk.end;
	} while (start < texts.length);
	return { text: previous ?? "", usage: usage!, requests };
}

/**
 * The error of a window that cannot hold a chunk request's instructions, summary and answer budget
 * with room for any conversation: a request would be rejected, so none is sent; it names what
 * takes the room and what the user can change.
 */
function windowTooSmall(options: ChunkedSummaryOptions, previous: string | undefined, first: boolean): SettleError {
	const focus = options.customInstructions ? ` (with your ${options.customInstructions.length}-character focus)` : "";
	const summary = previous === undefined ? "" : first ? ", the previous compaction's summary" : ", the running summary";
	const shorten = options.customInstructions ? "Shorten the compaction focus, lower" : "Lower";
	return new SettleError(
		"PROVIDER",
		`${options.failurePrefix}: the summarizer's context window (${options.model.contextWindow} tokens) cannot hold the summarization instructions${focus}${summary} and the answer budget (${options.maxTokens} tokens). ${shorten} compaction.reserveTokens or compact with a model that has a larger context window.`,
	);
}
