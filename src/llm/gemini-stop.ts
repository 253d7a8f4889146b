/**
 * Why a Gemini stream stopped, read as the client reads the body. Gemini ends an answer
 * `finishReason: "MALFORMED_FUNCTION_CALL"` when the tool call the model wrote did not parse (often
 * Python syntax, `print(default_api.read(...))`, named in `finishMessage`); pi-ai 0.73.1 maps it to
 * an error and throws "An unknown error occurred", so the reason was lost and the turn ended,
 * unretried, though the request sent again usually gets a well-formed call (gemini-cli#12674).
 */

/** The last candidate's finish reason and message, when the stream sent them. */
export interface GeminiStop {
	reason?: string;
	message?: string;
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
		if (!line.startsWith("data:") || !line.includes('"finishReason"')) return;
		try {
			const candidate = (
				JSON.parse(line.slice(5)) as { candidates?: { finishReason?: unknown; finishMessage?: unknown }[] }
			).candidates?.[0];
			if (typeof candidate?.finishReason !== "string") return;
			seen.reason = candidate.finishReason;
			seen.message = typeof candidate.finishMessage === "string" ? candidate.finishMessage : undefined;
		} catch {
			// Not JSON: the client reports it.
		}
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

/**
 * The failure text for an answer Gemini ended `MALFORMED_FUNCTION_CALL`, else undefined. It reads
 * as transient (`isTransientErrorText`): sent again, the model writes the call anew.
 *
 * @example
 * ```ts
 * geminiStopText({ reason: "MALFORMED_FUNCTION_CALL", message: "Malformed function call: x" });
 * // "Gemini could not parse the tool call the model wrote (finishReason MALFORMED_FUNCTION_CALL: Malformed function call: x). Sent again, the model writes the call anew."
 * ```
 */
export function geminiStopText(stop: GeminiStop): string | undefined {
	if (stop.reason !== "MALFORMED_FUNCTION_CALL") return undefined;
	const said = stop.message ? `: ${stop.message}` : "";
	return `Gemini could not parse the tool call the model wrote (finishReason ${stop.reason}${said}). Sent again, the model writes the call anew.`;
}
