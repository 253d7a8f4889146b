/**
 * User-visible texts of the compaction paths, exactly as pi 0.73 words them, in one place.
 */
import { errorMessage } from "../errors.js";
import type { SessionEntry } from "../store/entries.js";

/** `compaction_end.errorMessage` after a second overflow in the same request. */
export const OVERFLOW_RECOVERY_FAILED =
	"Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";
/** The same for a second context-full `length` stop. */
export const LENGTH_RECOVERY_FAILED = "Truncated response recovery failed after one compact-and-retry attempt.";
/** Why a manual compaction did nothing: the branch already ends with a compaction. */
export const ALREADY_COMPACTED = "Already compacted";
/** Why a manual compaction did nothing: too little to summarize. */
export const NOTHING_TO_COMPACT = "Nothing to compact (session too small)";
/** Message of the `ABORTED` error a cancelled compaction rejects with. */
export const COMPACTION_CANCELLED = "Compaction cancelled";

/**
 * A manual compaction an extension's `session_before_compact` handler cancelled: names the
 * extension, which the bare {@link COMPACTION_CANCELLED} did not (pi#7492, openclaw#41100).
 *
 * @example
 * ```ts
 * compactionCancelledByExtension("/home/me/.pi/agent/extensions/guard.ts");
 * // "Compaction cancelled by the extension /home/me/…/guard.ts: its session_before_compact handler returned { cancel: true }. …"
 * ```
 */
export function compactionCancelledByExtension(extensionPath: string): string {
	return `Compaction cancelled by the extension ${extensionPath}: its session_before_compact handler returned { cancel: true }. Nothing was summarized or written; to compact, change what that handler checks, or run without the extension.`;
}
/**
 * Message of the `BUSY` error of a `compact()` (RPC `compact`, `ctx.compact()`) with other instructions
 * than the manual compaction summarizing: Settle's own (pi 0.73.1 runs a second compaction beside it).
 */
export const COMPACTION_OTHER_INSTRUCTIONS =
	"A compaction with other instructions is summarizing the session or waiting to start; this compaction was not started, and that one was left alone. Wait for it to finish (its summary does not follow these instructions), or cancel it (abortCompaction() or abort(); RPC: abort) and compact again with these instructions.";
/** Message when compaction needs a summarizer and the session has no model. */
export const NO_MODEL_FOR_SUMMARIZATION = "No model available for summarization";

/**
 * Why `prepareCompaction` returned nothing, for a manual `compact()`.
 *
 * @example
 * ```ts
 * nothingToCompactReason(sessionManager.getBranch());
 * // "Already compacted" when the branch ends with a compaction, else "Nothing to compact (session too small)"
 * ```
 */
export function nothingToCompactReason(branchEntries: readonly SessionEntry[]): string {
	return branchEntries[branchEntries.length - 1]?.type === "compaction" ? ALREADY_COMPACTED : NOTHING_TO_COMPACT;
}

/**
 * `compaction_end.errorMessage` for a failed compaction: `Context overflow recovery failed: <msg>`
 * (overflow), `Auto-compaction failed: <msg>` (threshold), `Compaction failed: <msg>` (manual).
 * Aborted or cancelled compactions carry no error message (`undefined`): do not call this for them.
 *
 * @example
 * ```ts
 * compactionFailureMessage("threshold", new Error("Summarization failed: 529 overloaded")); // "Auto-compaction failed: Summarization failed: 529 overloaded"
 * ```
 */
export function compactionFailureMessage(reason: "overflow" | "threshold" | "manual", error: unknown): string {
	const message = errorMessage(error);
	if (reason === "overflow") return `Context overflow recovery failed: ${message}`;
	if (reason === "threshold") return `Auto-compaction failed: ${message}`;
	return `Compaction failed: ${message}`;
}

/** The end of {@link unansweredOverflowMessage}: the request is out of the context; what the user can do. */
const LEFT_OUT = "The prompt is left out of the context (the session history keeps it)";
const UNANSWERED_ADVICE = `${LEFT_OUT}: send it again shorter or with less attached, or switch to a model with a larger context window first.`;

/**
 * `agent_settled.errorMessage` when a request overflowed the context and overflow recovery could
 * not compact it, so the prompt got no answer: says what happened and what to do. The failed
 * response (as pi does) and the request itself (unlike pi 0.73.1) are already edited out of the
 * context, so the next prompt is not stuck behind it. `overflow`: the provider's error text.
 *
 * @example
 * ```ts
 * unansweredOverflowMessage("prompt is too long: 250000 tokens > 200000 maximum", { skipped: "nothing_to_compact" });
 * // "The prompt got no answer: the context is too long for the model (prompt is too long: …) and there is nothing to compact …"
 * ```
 */
export function unansweredOverflowMessage(
	overflow: string | undefined,
	why: {
		skipped?: "no_model" | "nothing_to_compact";
		cancelled?: boolean;
		/** The extension whose `session_before_compact` handler cancelled the compaction. */
		cancelledBy?: string;
		errorMessage?: string;
		/** The model whose output cap takes half its window or more (see {@link outputCapTakesWindow}). */
		outputCap?: OutputCapModel;
	},
): string {
	if (why.skipped === "nothing_to_compact" && why.outputCap) return outputCapMessage(overflow, why.outputCap);
	const cause =
		why.skipped === "nothing_to_compact"
			? "there is nothing to compact (all of it is within compaction.keepRecentTokens)"
			: why.skipped === "no_model"
				? "there is no model to compact it with"
				: why.cancelledBy !== undefined
					? `its compaction was cancelled by the extension ${why.cancelledBy} (its session_before_compact handler returned { cancel: true }; to let it compact, change what that handler checks, or run without the extension)`
					: why.cancelled
						? "its compaction was cancelled"
						: `compacting it failed${why.errorMessage ? ` (${why.errorMessage})` : ""}`;
	return `The prompt got no answer: the context is too long for the model${overflow ? ` (${overflow})` : ""} and ${cause}. ${UNANSWERED_ADVICE}`;
}

/** What {@link unansweredOverflowMessage} names when the output cap is what does not fit. */
export interface OutputCapModel {
	/** `provider/id`. */
	model: string;
	/** The output tokens each request asks for (`min(maxTokens, 32000)`). */
	requestedMaxTokens: number;
	contextWindow: number;
	/** The window models.json gives the model, when the server's refusal stated another. */
	configuredWindow?: number;
}

/** How OpenAI-compatible servers state their window in a refusal (vLLM, OpenAI, DeepSeek). */
const STATED_WINDOW = /maximum context length is ([\d,]+) tokens|context length is only ([\d,]+) tokens/i;

/** The input a refusal states: vLLM's "your request has 457 input tokens", OpenAI's "(457 in the messages". */
const STATED_INPUT = /request has ([\d,]+) input tokens|([\d,]+) in the messages/i;

/**
 * The context window a refusal states (vLLM: "This model's maximum context length is 16384
 * tokens and your request has 457 input tokens"), which beats a models.json `contextWindow` that
 * is wrong (Step-Audio-R1#3); undefined when the text states none, or states an input that alone
 * fills it (then the context is what is too long, whatever the cap).
 *
 * @example
 * ```ts
 * statedContextWindow("This model's maximum context length is 16384 tokens and your request has 457 input tokens"); // 16384
 * ```
 */
export function statedContextWindow(text: string | undefined): number | undefined {
	const match = text ? STATED_WINDOW.exec(text) : null;
	const window = Number((match?.[1] ?? match?.[2] ?? "").replaceAll(",", ""));
	const input = text ? STATED_INPUT.exec(text) : null;
	const tokens = Number((input?.[1] ?? input?.[2] ?? "0").replaceAll(",", ""));
	return window > 0 && tokens < window ? window : undefined;
}

/**
 * Whether a request that overflowed with nothing to compact was refused for its output cap rather
 * than its context: the cap alone takes half the window or more (gpustack#929: `maxTokens` equal
 * to an 8192-token window, so "hi" asked for 8204 tokens). Must not throw.
 *
 * @example
 * ```ts
 * outputCapTakesWindow({ model: "local/coder", requestedMaxTokens: 8192, contextWindow: 8192 }); // true
 * outputCapTakesWindow({ model: "local/coder", requestedMaxTokens: 16384, contextWindow: 128000 }); // false
 * ```
 */
export function outputCapTakesWindow(cap: OutputCapModel): boolean {
	return cap.contextWindow > 0 && cap.requestedMaxTokens * 2 >= cap.contextWindow;
}

function outputCapMessage(overflow: string | undefined, cap: OutputCapModel): string {
	const suggested = Math.max(1, Math.floor(cap.contextWindow / 4));
	return (
		`The prompt got no answer: the request did not fit the model's context window${overflow ? ` (${overflow})` : ""}, ` +
		`and there is nothing to compact: each request asks for up to ${cap.requestedMaxTokens} tokens of answer (the "maxTokens" of ${cap.model}) ` +
		`in a window of ${cap.contextWindow} tokens, leaving little or no room for the conversation. ` +
		`Lower its "maxTokens" in models.json ("modelOverrides" for a built-in provider's model), e.g. to ${suggested}, ` +
		(cap.configuredWindow === undefined
			? `or raise its "contextWindow" if the server holds more. ${LEFT_OUT}.`
			: `and set its "contextWindow" to ${cap.contextWindow}, the server's (models.json gives ${cap.configuredWindow}). ${LEFT_OUT}.`)
	);
}
