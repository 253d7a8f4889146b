/**
 * Repairs of OpenAI Chat Completions streams from servers that break the wire format in ways the
 * provider client cannot undo once it has parsed them.
 */

/**
 * An event-stream body with its `tool_calls` deltas renumbered where a server gave a new call
 * (a new `id`) the `index` of an earlier one. Ollama numbers every call of an answer `0`
 * (ollama#15457): pi-ai joins calls by index, so two calls became one whose arguments were two JSON
 * objects end to end, and neither ran. A reused index becomes the next free one; later deltas of
 * that index without an id go to the call that took it last. Lines without `tool_calls` pass as
 * they came.
 *
 * @example
 * ```ts
 * const response = new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
 * const repaired = new Response(renumberedToolCalls(response.body!), response);
 * expect(await repaired.text()).toBe("data: [DONE]\n\n");
 * ```
 */
export function renumberedToolCalls(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
	const decoder = new TextDecoder();
	const encoder = new TextEncoder();
	const renumber = toolCallRenumbering();
	let pending = "";
	return body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				const text = pending + decoder.decode(chunk, { stream: true });
				const end = text.lastIndexOf("\n") + 1;
				pending = text.slice(end);
				if (end > 0) controller.enqueue(encoder.encode(renumberLines(text.slice(0, end), renumber)));
			},
			flush(controller) {
				const rest = pending + decoder.decode();
				if (rest) controller.enqueue(encoder.encode(renumberLines(rest, renumber)));
			},
		}),
	);
}

type ToolCallDelta = { index?: unknown; id?: unknown };

function renumberLines(text: string, renumber: (call: ToolCallDelta) => void): string {
	// Most lines carry text or reasoning: only a line naming tool_calls is parsed.
	if (!text.includes('"tool_calls"')) return text;
	return text
		.split("\n")
		.map((line) => {
			if (!line.startsWith("data:") || !line.includes('"tool_calls"')) return line;
			let chunk: { choices?: { delta?: { tool_calls?: ToolCallDelta[] } }[] };
			try {
				chunk = JSON.parse(line.slice(5));
			} catch {
				return line;
			}
			const calls = chunk.choices?.[0]?.delta?.tool_calls;
			if (!Array.isArray(calls)) return line;
			for (const call of calls) renumber(call);
			return `data: ${JSON.stringify(chunk)}`;
		})
		.join("\n");
}

/** Per stream: which id holds each index, and where a server's index now points. */
function toolCallRenumbering(): (call: ToolCallDelta) => void {
	const idAt = new Map<number, string>();
	const indexOf = new Map<string, number>();
	const movedTo = new Map<number, number>();
	return (call) => {
		if (typeof call.index !== "number") return;
		const sent = call.index;
		if (typeof call.id === "string" && call.id) {
			// A server that repeats the id on every delta of a call keeps that call's index.
			let index = indexOf.get(call.id);
			if (index === undefined) {
				index = sent;
				while (idAt.has(index)) index++;
				idAt.set(index, call.id);
				indexOf.set(call.id, index);
			}
			movedTo.set(sent, index);
			call.index = index;
			return;
		}
		const index = movedTo.get(sent);
		if (index !== undefined) call.index = index;
	};
}
