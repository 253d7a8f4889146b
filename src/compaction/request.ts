/**
 * One summarization request through a stream function: a system prompt, one user message, no
 * tools. Failures become typed errors carrying the provider text.
 */
import { raceAbortWith } from "../abort.js";
import { errorMessage, SettleError } from "../errors.js";
import type { AssistantMessage, StreamOptions, Usage } from "../llm/types.js";
import { emptyUsage } from "../llm/types.js";
import { SUMMARIZATION_SYSTEM_PROMPT } from "./prompts.js";
import type { SummarizerOptions } from "./types.js";

/** A summary's text and the usage of the request that produced it. */
export interface SummaryText {
	text: string;
	usage: Usage;
}

/**
 * Sends `promptText` and returns the answer's text blocks joined by newlines.
 *
 * Throws `SettleError("ABORTED")` when `signal` is aborted (before or during the request) or the
 * answer stopped as `aborted`; `SettleError("PROVIDER", "<failurePrefix>: <provider text>")` when
 * the answer is an error, the stream function throws, or (with `requireText`) the answer is empty.
 */
export async function requestSummary(
	promptText: string,
	maxTokens: number,
	options: SummarizerOptions,
	failurePrefix: string,
	requireText = true,
): Promise<SummaryText> {
	const { model, streamFn, signal } = options;
	throwIfAborted(signal);
	const streamOptions: StreamOptions = { maxTokens };
	if (signal) streamOptions.signal = signal;
	if (options.apiKey !== undefined) streamOptions.apiKey = options.apiKey;
	if (options.headers !== undefined) streamOptions.headers = options.headers;
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
		return final ?? (await stream.result());
	};
	let response: AssistantMessage;
	try {
		// A stream function that ignores the signal must not keep an aborted compaction waiting.
		response = await raceAbort(consume(), signal);
	} catch (error) {
		throwIfAborted(signal);
		throw new SettleError("PROVIDER", `${failurePrefix}: ${errorMessage(error)}`, { cause: error });
	}

	if (response.stopReason === "aborted" || signal?.aborted) {
		throw new SettleError("ABORTED", SUMMARIZATION_ABORTED);
	}
	if (response.stopReason === "error") {
		const providerText = response.errorMessage || "Unknown error";
		throw new SettleError("PROVIDER", `${failurePrefix}: ${providerText}`, {
			details: { stopReason: response.stopReason, errorMessage: providerText },
		});
	}
	const text = response.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	if (requireText && text.trim() === "") {
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

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
	return raceAbortWith(promise, signal, SUMMARIZATION_ABORTED);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new SettleError("ABORTED", SUMMARIZATION_ABORTED);
}
