/**
 * One summarization request through a stream function: a system prompt, one user message, no
 * tools. Failures become typed errors carrying the provider text.
 */
import { planRetry } from "../../machines/prompt-operation.machine.js";
import { raceAbortWith } from "../abort.js";
import { errorMessage, SettleError } from "../errors.js";
import { isRetryableError, parseRequestedRetryDelayMs } from "../llm/errors.js";
import { redactSecrets, requestSecrets } from "../llm/redact.js";
import type { AssistantMessage, StreamOptions, Usage } from "../llm/types.js";
import { emptyUsage } from "../llm/types.js";
import { SUMMARIZATION_SYSTEM_PROMPT } from "./prompts.js";
import type { SummarizationRetryOptions, SummarizerOptions } from "./types.js";

/** A summary's text and the usage of the request that produced it. */
export interface SummaryText {
	text: string;
	usage: Usage;
}

/**
 * Sends `promptText` and returns the answer's text blocks joined by newlines.
 *
 * With `options.retry`, a transient error answer is retried (see {@link SummarizationRetryOptions}).
 *
 * Throws `SettleError("ABORTED")` when `signal` is aborted (before or during the request, or
 * during a retry's backoff) or the answer stopped as `aborted`; `SettleError("PROVIDER",
 * "<failurePrefix>: <provider text>")` when the (last) answer is an error, the stream function
 * throws, (unless `options.acceptEmptyAnswer`) the answer is empty, or the answer stopped at
 * `maxTokens` (`stopReason: "length"`: its text names the cap and ends with `whenCut`).
 */
export async function requestSummary(
	promptText: string,
	maxTokens: number,
	options: SummarizerOptions,
	failurePrefix: string,
	whenCut: string,
): Promise<SummaryText> {
	const { model, streamFn, signal } = options;
	throwIfAborted(signal);
	const streamOptions: StreamOptions = { maxTokens };
	if (signal) streamOptions.signal = signal;
	if (options.apiKey !== undefined) streamOptions.apiKey = options.apiKey;
	if (options.headers !== undefined) streamOptions.headers = options.headers;
	if (options.onPayload !== undefined) streamOptions.onPayload = options.onPayload;
	if (model.reasoning && options.thinkingLevel && options.thinkingLevel !== "off") {
		streamOptions.reasoning = options.thinkingLevel;
	}
	const context = {
		systemPrompt: SUMMARIZATION_SYSTEM_PROMPT,
		messages: [
			{ role: "user" as const, content: [{ type: "text" as const, text: promptText }], timestamp: Date.now() },
		],
	};

	const consume = async (): Promise<AssistantMessage> => {
		const stream = await streamFn(model, context, streamOptions);
		let final: AssistantMessage | undefined;
		for await (const event of stream) {
			if (event.type === "done") final = event.message;
			else if (event.type === "error") final = event.error;
		}
		final ??= await stream.result();
		// An error answer was refused or broke off: what it reports is not taken as billed.
		if (final.usage && final.stopReason !== "error") options.onAnswerUsage?.(final.usage);
		// A provider that echoes the key it got must not put it in the summary's error (and log).
		if (!final.errorMessage) return final;
		const redacted = redactSecrets(final.errorMessage, requestSecrets(model, streamOptions));
		return redacted === final.errorMessage ? final : { ...final, errorMessage: redacted };
	};
	const attemptOnce = async (): Promise<AssistantMessage> => {
		try {
			// A stream function that ignores the signal must not keep an aborted compaction waiting.
			return await raceAbort(consume(), signal);
		} catch (error) {
			throwIfAborted(signal);
			const text = redactSecrets(errorMessage(error), requestSecrets(model, streamOptions));
			throw new SettleError("PROVIDER", `${failurePrefix}: ${text}`, { cause: error });
		}
	};
	const response = options.retry ? await withRetry(attemptOnce, options.retry, signal) : await attemptOnce();

	if (response.stopReason === "aborted" || signal?.aborted) {
		throw new SettleError("ABORTED", SUMMARIZATION_ABORTED);
	}
	if (response.stopReason === "error") {
		const providerText = response.errorMessage || "Unknown error";
		throw new SettleError("PROVIDER", `${failurePrefix}: ${providerText}`, {
			details: { stopReason: response.stopReason, errorMessage: providerText },
		});
	}
	if (response.stopReason === "length") {
		// A summary cut at the cap reads as complete but misses its last sections (pi#8845, pi#7048).
		const providerText = `the answer reached its ${maxTokens}-token cap before the summary was complete (a reasoning model may have spent it thinking); ${whenCut}`;
		throw new SettleError("PROVIDER", `${failurePrefix}: ${providerText}`, {
			details: { stopReason: response.stopReason, errorMessage: providerText },
		});
	}
	const text = response.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	if (!options.acceptEmptyAnswer && text.trim() === "") {
		throw new SettleError("PROVIDER", `${failurePrefix}: the model returned no summary text`, {
			details: { stopReason: response.stopReason },
		});
	}
	return { text, usage: response.usage ?? emptyUsage() };
}

/**
 * Sum of two usages (counts and costs), as a new record; neither input is changed.
 *
 * @example
 * ```ts
 * declare const historySummary: { usage: Usage };
 * declare const turnPrefixSummary: { usage: Usage };
 * const total = addUsage(historySummary.usage, turnPrefixSummary.usage);
 * addUsage(emptyUsage(), total); // equal to total
 * ```
 */
export function addUsage(a: Usage, b: Usage): Usage {
	return {
		input: a.input + b.input,
		output: a.output + b.output,
		cacheRead: a.cacheRead + b.cacheRead,
		cacheWrite: a.cacheWrite + b.cacheWrite,
		totalTokens: a.totalTokens + b.totalTokens,
		cost: {
			input: a.cost.input + b.cost.input,
			output: a.cost.output + b.cost.output,
			cacheRead: a.cost.cacheRead + b.cost.cacheRead,
			cacheWrite: a.cost.cacheWrite + b.cost.cacheWrite,
			total: a.cost.total + b.cost.total,
		},
	};
}

const SUMMARIZATION_ABORTED = "Summarization aborted";

/**
 * pi 1.6's `retryAssistantCall` loop around one summarization request: retries transient error
 * answers within the budget, reporting each retry through the callbacks; the final answer (or
 * error) is returned (thrown) as without retries. `onRetryFinished` runs once, on any way out of a
 * loop that retried — pi skips it when the stream function throws; here every exit reports it.
 */
async function withRetry(
	produce: () => Promise<AssistantMessage>,
	retry: SummarizationRetryOptions,
	signal: AbortSignal | undefined,
): Promise<AssistantMessage> {
	const maxAttempts = retry.settings.enabled ? Math.max(0, retry.settings.maxRetries) : 0;
	let attempt = 0;
	let delayMs = 0;
	const finish = (success: boolean, errorText?: string) => {
		if (attempt > 0) retry.onRetryFinished?.(success, attempt, errorText);
	};
	for (;;) {
		let response: AssistantMessage;
		try {
			response = await produce();
		} catch (error) {
			finish(false, errorMessage(error));
			throw error;
		}
		if (response.stopReason === "aborted" || signal?.aborted) {
			finish(false);
			return response;
		}
		if (response.stopReason !== "error") {
			finish(true);
			return response;
		}
		// The turn retries' policy (budget, `enabled`): at least the wait the provider asked for (a
		// rate-limited summary retried sooner fails again), never shorter than the last, none past the cap.
		const requestedDelayMs = parseRequestedRetryDelayMs(response.errorMessage);
		const plan = isRetryableError(response)
			? planRetry(retry.settings, attempt + 1, {
					...(requestedDelayMs !== undefined ? { requestedDelayMs } : {}),
					floorMs: delayMs,
				})
			: undefined;
		if (plan?.kind !== "retry") {
			finish(false, response.errorMessage);
			return response;
		}
		attempt++;
		delayMs = plan.delayMs;
		const failure = response.errorMessage || "Unknown error";
		retry.onRetryScheduled?.(attempt, maxAttempts, delayMs, failure);
		try {
			// An abort from onRetryScheduled needs no sleep (nor a custom sleep's check of it).
			if (!signal?.aborted) await (retry.sleep ?? sleep)(delayMs, signal);
		} catch {
			// Only an abort ends the backoff early.
		}
		if (signal?.aborted) {
			finish(false, failure);
			throw new SettleError("ABORTED", SUMMARIZATION_ABORTED);
		}
		retry.onRetryAttemptStart?.();
	}
}

/** `setTimeout` that rejects as soon as `signal` aborts (the timer is cleared). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new SettleError("ABORTED", SUMMARIZATION_ABORTED));
		const onAbort = () => {
			clearTimeout(timer);
			reject(new SettleError("ABORTED", SUMMARIZATION_ABORTED));
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
	return raceAbortWith(promise, signal, SUMMARIZATION_ABORTED);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new SettleError("ABORTED", SUMMARIZATION_ABORTED);
}
