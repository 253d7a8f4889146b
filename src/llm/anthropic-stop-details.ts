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
 * `body` as it came, with `seen` filled from each `message_delta` event as it passes.
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
	let pending = "";
	const read = (lines: string) => {
		for (const line of lines.split("\n")) {
			if (!line.startsWith("data:") || !line.includes('"message_delta"')) continue;
			Object.assign(seen, stopOf(line.slice(5)));
		}
	};
	return body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				controller.enqueue(chunk);
				const text = pending + decoder.decode(chunk, { stream: true });
				const end = text.lastIndexOf("\n") + 1;
				pending = text.slice(end);
				read(text.slice(0, end));
			},
			flush() {
				read(pending + decoder.decode());
			},
		}),
	);
}

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
