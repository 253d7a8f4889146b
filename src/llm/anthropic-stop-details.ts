/**
 * What an Anthropic Messages stream says about why it stopped, read as the client reads the body:
 * pi-ai 0.73.1 maps `stop_reason: "refusal"` and `"sensitive"` to an error and throws its own
 * "An unknown error occurred", so the reason and `stop_details` (category, explanation) were lost
 * (pi#4769, pi#5591).
 */

/** The last `message_delta`'s stop reason and its `stop_details`, when the stream sent them. */
export interface AnthropicStop {
	reason?: string;
	category?: string;
	explanation?: string;
}

/**
 * `body` with `seen` filled from each `message_delta` event as it passes. One repair: a message
 * that stops `tool_use` without any `tool_use` block (pi#9681: no content at all, after a tool
 * result) ends with an `error` event instead, {@link EMPTY_TOOL_USE_STOP}, a transient failure: a
 * turn that ended there looked hung, and asking again gets the answer.
 *
 * @example
 * ```ts
 * const seen: AnthropicStop = {};
 * const line = 'data: {"type":"message_delta","delta":{"stop_reason":"refusal"}}\n\n';
 * const body = new Response(line).body!;
 * await new Response(watchedAnthropicStop(body, seen)).text();
 * expect(seen.reason).toBe("refusal");
 * ```
 */
export function watchedAnthropicStop(
	body: ReadableStream<Uint8Array>,
	seen: AnthropicStop,
): ReadableStream<Uint8Array> {
	const decoder = new TextDecoder();
	const encoder = new TextEncoder();
	let pending = "";
	let toolUseBlocks = 0;
	// An `event:` line waits for its `data:` line: an error event needs both rewritten.
	let eventLine: string | undefined;
	const lineOut = (line: string): string => {
		if (line.startsWith("event:")) {
			const held = eventLine;
			eventLine = line;
			return held === undefined ? "" : `${held}\n`;
		}
		const held = eventLine;
		eventLine = undefined;
		if (line.startsWith("data:")) {
			if (line.includes('"content_block_start"') && /"type"\s*:\s*"tool_use"/.test(line)) toolUseBlocks++;
			if (line.includes('"message_delta"')) {
				const stop = stopOf(line.slice(5));
				Object.assign(seen, stop);
				if (stop.reason === "tool_use" && toolUseBlocks === 0) {
					const error = { type: "error", error: { type: "api_error", message: EMPTY_TOOL_USE_STOP } };
					return `event: error\ndata: ${JSON.stringify(error)}\n`;
				}
			}
		}
		return `${held === undefined ? "" : `${held}\n`}${line}\n`;
	};
	const linesOut = (lines: string[]) => lines.map(lineOut).join("");
	return body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				const text = pending + decoder.decode(chunk, { stream: true });
				const lines = text.split("\n");
				pending = lines.pop() ?? "";
				const out = linesOut(lines);
				if (out) controller.enqueue(encoder.encode(out));
			},
			flush(controller) {
				const tail = pending + decoder.decode();
				let out = tail ? linesOut([tail]).replace(/\n$/, "") : "";
				if (eventLine !== undefined) out += eventLine;
				if (out) controller.enqueue(encoder.encode(out));
			},
		}),
	);
}

/**
 * The error a `tool_use` stop without a tool call ends with: a cut answer, retried as transient.
 * pi-ai shows the event's JSON, so the text is kept plain.
 */
export const EMPTY_TOOL_USE_STOP = "The answer stopped with stop_reason tool_use but holds no tool call (cut short)";

function stopOf(data: string): AnthropicStop {
	try {
		const event = JSON.parse(data) as { type?: unknown; delta?: Record<string, unknown> };
		const delta = event.type === "message_delta" ? event.delta : undefined;
		if (!delta || typeof delta.stop_reason !== "string") return {};
		const details = (delta.stop_details ?? {}) as Record<string, unknown>;
		const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : undefined);
		return { reason: delta.stop_reason, category: text(details.category), explanation: text(details.explanation) };
	} catch {
		return {};
	}
}

/**
 * The error text for a stream Anthropic stopped as a refusal (`refusal`: the model's safety
 * classifier declined; `sensitive`: a safety filter), with the category and explanation it gave,
 * and what to do: the same request is refused again, so it is not retried. Undefined for other
 * stop reasons.
 *
 * @example
 * ```ts
 * refusalText({ reason: "refusal", category: "cyber" });
 * // 'The model declined this request (Anthropic stop_reason "refusal", category "cyber"). Sending it again gets the same refusal: rephrase the request, or switch to another model.'
 * ```
 */
export function refusalText(stop: AnthropicStop): string | undefined {
	if (stop.reason !== "refusal" && stop.reason !== "sensitive") return undefined;
	const who = stop.reason === "refusal" ? "The model declined this request" : "A safety filter stopped this answer";
	const category = stop.category ? `, category "${stop.category}"` : "";
	const said = stop.explanation;
	const explanation = said ? `: ${said}${/[.!?]$/.test(said) ? "" : "."}` : ".";
	return `${who} (Anthropic stop_reason "${stop.reason}"${category})${explanation} Sending it again gets the same refusal: rephrase the request, or switch to another model.`;
}
