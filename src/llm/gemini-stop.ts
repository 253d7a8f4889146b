/**
 * Why a Gemini stream stopped, read as the client reads the body. Gemini ends an answer
 * `finishReason: "MALFORMED_FUNCTION_CALL"` when the tool call the model wrote did not parse (often
 * Python syntax, `print(default_api.read(...))`, named in `finishMessage`); pi-ai 0.73.1 maps it to
 * an error and throws "An unknown error occurred", so the reason was lost and the turn ended,
 * unretried, though the request sent again usually gets a well-formed call (gemini-cli#12674).
 * The content-policy stops (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII) met the same
 * "An unknown error occurred"; those are named, not retried: the same request stops the same way.
 * A prompt Gemini blocks before any answer comes as `promptFeedback.blockReason` with no candidates,
 * which pi-ai read as an empty answer: the stream is failed there, so it is named, not retried.
 */

/** The last candidate's finish reason and message, when the stream sent them. */
export interface GeminiStop {
	reason?: string;
	message?: string;
	/** The safety ratings that blocked the answer or rated MEDIUM / HIGH, as `CATEGORY: PROBABILITY`. */
	ratings?: string[];
	/** Set when Gemini blocked the prompt itself (`promptFeedback.blockReason`, no candidates). */
	promptBlocked?: boolean;
}

interface SafetyRating {
	category?: unknown;
	probability?: unknown;
	blocked?: unknown;
}

/** The ratings worth naming: blocked, or rated above LOW. */
function notableRatings(ratings: unknown): string[] | undefined {
	if (!Array.isArray(ratings)) return undefined;
	const named = (ratings as SafetyRating[])
		.filter((rating) => rating?.blocked === true || rating?.probability === "MEDIUM" || rating?.probability === "HIGH")
		.map((rating) => {
			const category = typeof rating.category === "string" ? rating.category.replace(/^HARM_CATEGORY_/, "") : "?";
			const probability = typeof rating.probability === "string" ? rating.probability : "?";
			return `${category}: ${probability}${rating.blocked === true ? " (blocked)" : ""}`;
		});
	return named.length > 0 ? named : undefined;
}

/**
 * `body` unchanged, with `seen` filled from each `data:` line's first candidate as it passes.
 *
 * @example
 * ```ts
 * const seen: GeminiStop = {};
 * const line = 'data: {"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: x"}]}\n\n';
 * await new Response(watchedGeminiStop(new Response(line).body!, seen)).text();
 * seen.reason; // "MALFORMED_FUNCTION_CALL"
 * ```
 */
export function watchedGeminiStop(body: ReadableStream<Uint8Array>, seen: GeminiStop): ReadableStream<Uint8Array> {
	const decoder = new TextDecoder();
	let pending = "";
	const read = (line: string) => {
		if (!line.startsWith("data:")) return;
		const finish = line.includes('"finishReason"');
		if (!finish && !line.includes('"blockReason"')) return;
		let chunk: {
			candidates?: { finishReason?: unknown; finishMessage?: unknown; safetyRatings?: unknown }[];
			promptFeedback?: { blockReason?: unknown; blockReasonMessage?: unknown; safetyRatings?: unknown };
		};
		try {
			chunk = JSON.parse(line.slice(5));
		} catch {
			// Not JSON: the client reports it.
			return;
		}
		const feedback = chunk.promptFeedback;
		if (!chunk.candidates?.length && typeof feedback?.blockReason === "string") {
			seen.reason = feedback.blockReason;
			seen.message = typeof feedback.blockReasonMessage === "string" ? feedback.blockReasonMessage : undefined;
			seen.ratings = notableRatings(feedback.safetyRatings);
			seen.promptBlocked = true;
			// pi-ai reads a chunk without candidates as nothing: failed here, the turn ends as an error.
			throw new Error(`Gemini blocked the prompt: ${seen.reason}`);
		}
		const candidate = chunk.candidates?.[0];
		if (!finish || typeof candidate?.finishReason !== "string") return;
		seen.reason = candidate.finishReason;
		seen.message = typeof candidate.finishMessage === "string" ? candidate.finishMessage : undefined;
		seen.ratings = notableRatings(candidate.safetyRatings);
	};
	return body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
				pending = lines.pop() ?? "";
				for (const line of lines) read(line);
				controller.enqueue(chunk);
			},
			flush() {
				read(pending + decoder.decode());
			},
		}),
	);
}

/** Stops for what the answer said: the same request stops the same way, so they are not retried. */
const POLICY_STOPS = new Set([
	"SAFETY",
	"RECITATION",
	"BLOCKLIST",
	"PROHIBITED_CONTENT",
	"SPII",
	"IMAGE_SAFETY",
	"IMAGE_PROHIBITED_CONTENT",
	"IMAGE_RECITATION",
]);

/** The stops pi-ai reads as an answer, not an error. */
const ANSWER_STOPS = new Set(["STOP", "MAX_TOKENS"]);

/**
 * The failure text for an answer Gemini ended with a finish reason pi-ai reports only as "An
 * unknown error occurred", else undefined. `MALFORMED_FUNCTION_CALL` reads as transient
 * (`isTransientErrorText`): sent again, the model writes the call anew. The content-policy stops
 * (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and the IMAGE_ ones) are named with
 * Gemini's message and safety ratings, and read as final; so is a prompt Gemini blocked
 * (`promptBlocked`); any other reason but STOP and MAX_TOKENS (OTHER, LANGUAGE,
 * UNEXPECTED_TOOL_CALL…) is named with Gemini's message, final too.
 *
 * @example
 * ```ts
 * geminiStopText({ reason: "MALFORMED_FUNCTION_CALL", message: "Malformed function call: x" });
 * // "Gemini could not parse the tool call the model wrote (finishReason MALFORMED_FUNCTION_CALL: Malformed function call: x). Sent again, the model writes the call anew."
 * geminiStopText({ reason: "SAFETY", ratings: ["DANGEROUS_CONTENT: HIGH (blocked)"] });
 * // "Gemini stopped the answer: SAFETY (safety ratings: DANGEROUS_CONTENT: HIGH (blocked)). The same request stops the same way: reword the prompt or use another model."
 * geminiStopText({ reason: "UNEXPECTED_TOOL_CALL" }); // "Gemini ended the answer: finishReason UNEXPECTED_TOOL_CALL."
 * geminiStopText({ reason: "OTHER", promptBlocked: true });
 * // "Gemini blocked the prompt: OTHER. The same prompt is blocked the same way: reword it or use another model."
 * ```
 */
export function geminiStopText(stop: GeminiStop): string | undefined {
	const said = stop.message ? `: ${stop.message}` : "";
	const ratings = stop.ratings ? ` (safety ratings: ${stop.ratings.join(", ")})` : "";
	if (stop.promptBlocked) {
		return `${PROMPT_BLOCKED}${stop.reason}${said}${ratings}. The same prompt is blocked the same way: reword it or use another model.`;
	}
	if (stop.reason === "MALFORMED_FUNCTION_CALL") {
		return `${MALFORMED_CALL}${said}). Sent again, the model writes the call anew.`;
	}
	if (stop.reason === undefined || ANSWER_STOPS.has(stop.reason)) return undefined;
	// OTHER, LANGUAGE, UNEXPECTED_TOOL_CALL, NO_IMAGE…: pi-ai's "An unknown error occurred" named no reason either.
	if (!POLICY_STOPS.has(stop.reason)) return `${ANSWER_ENDED}${stop.reason}${said}.`;
	return `${ANSWER_STOPPED}${stop.reason}${said}${ratings}. The same request stops the same way: reword the prompt or use another model.`;
}

const PROMPT_BLOCKED = "Gemini blocked the prompt: ";
const MALFORMED_CALL = "Gemini could not parse the tool call the model wrote (finishReason MALFORMED_FUNCTION_CALL";
const ANSWER_ENDED = "Gemini ended the answer: finishReason ";
const ANSWER_STOPPED = "Gemini stopped the answer: ";

/**
 * Whether a {@link geminiStopText} text is worth sending again, decided by its finish reason (its
 * opening words), else undefined for any other text. Gemini's own `finishMessage` in it is free
 * text ("The request was terminated", "try again later"): read by the transient patterns, it would
 * send a blocked request again, to be blocked the same way.
 *
 * @example
 * ```ts
 * geminiStopRetryable("Gemini stopped the answer: SAFETY: The request was terminated. The same request stops the same way: …"); // false
 * geminiStopRetryable("Gemini could not parse the tool call the model wrote (finishReason MALFORMED_FUNCTION_CALL: x). …"); // true
 * geminiStopRetryable("503 overloaded"); // undefined
 * ```
 */
export function geminiStopRetryable(errorMessage: string): boolean | undefined {
	if (errorMessage.startsWith(MALFORMED_CALL)) return true;
	if ([PROMPT_BLOCKED, ANSWER_ENDED, ANSWER_STOPPED].some((prefix) => errorMessage.startsWith(prefix))) return false;
	return undefined;
}
