/**
 * An OpenAI Responses stream that ends with `response.incomplete` (the answer reached
 * `max_output_tokens`, or a content filter stopped it). pi-ai 0.73.1's Responses client reads only
 * `response.completed` (its Codex client reads both): the cut answer ended as a finished one, with
 * no usage, and one cut while the model reasoned printed nothing and said nothing (langchain#33840,
 * litellm#27186). The event goes on as `response.completed` with its response as sent, whose
 * `incomplete` status the client reads as a `length` stop. One stopped by a content filter
 * (`incomplete_details.reason: "content_filter"`) is no cut at the cap: read as `length`, the user
 * was told to raise `maxTokens` for an answer that never comes (langchain4j#6181,
 * hermes-agent#55637). It goes on as `response.failed`, which the client throws as
 * `incomplete: content_filter`.
 */

const INCOMPLETE = Buffer.from("response.incomplete");
const NEWLINE = 10;

/**
 * `body` with each `response.incomplete` event renamed `response.completed` (its `event:` line and
 * its data's `type`); everything else passes as it came, chunk by chunk, without being decoded.
 *
 * @example
 * ```ts
 * const sent = 'event: response.incomplete\ndata: {"type":"response.incomplete","response":{"status":"incomplete"}}\n\n';
 * const body = new Response(sent).body!;
 * const text = await new Response(completedIncompleteStream(body)).text();
 * expect(text).toBe('event: response.completed\ndata: {"type":"response.completed","response":{"status":"incomplete"}}\n\n');
 * ```
 */
export function completedIncompleteStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
	let carry: Buffer = Buffer.alloc(0);
	return body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				const bytes =
					carry.length > 0
						? Buffer.concat([carry, chunk])
						: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
				const end = bytes.lastIndexOf(NEWLINE) + 1;
				// Copied: the chunk's memory is the reader's.
				carry = Buffer.from(bytes.subarray(end));
				if (end > 0) controller.enqueue(renamed(bytes.subarray(0, end)));
			},
			flush(controller) {
				if (carry.length > 0) controller.enqueue(renamed(carry));
			},
		}),
	);
}

/** Whole lines, with an incomplete event's name and type made `response.completed` (or `response.failed`). */
function renamed(lines: Buffer): Uint8Array {
	if (!lines.includes(INCOMPLETE)) return lines;
	const split = lines.toString("utf8").split("\n");
	const text = split
		.map((line, index) => {
			// The event's name follows its data, the next line (a chunk cut between them keeps `completed`).
			if (/^event:\s*response\.incomplete\s*$/.test(line)) return `event: ${endingOf(split[index + 1]) ?? COMPLETED}`;
			const ending = endingOf(line);
			if (ending === undefined) return line;
			const data = JSON.parse(line.slice(5)) as Record<string, unknown>;
			return `data: ${JSON.stringify({ ...data, type: ending })}`;
		})
		.join("\n");
	return Buffer.from(text);
}

const COMPLETED = "response.completed";

/** The event a `response.incomplete` data line goes on as; undefined for any other line. */
function endingOf(line: string | undefined): string | undefined {
	if (!line?.startsWith("data:") || !line.includes("response.incomplete")) return undefined;
	try {
		const data = JSON.parse(line.slice(5)) as {
			type?: unknown;
			response?: { incomplete_details?: { reason?: unknown } | null };
		};
		if (data?.type !== "response.incomplete") return undefined;
		return data.response?.incomplete_details?.reason === "content_filter" ? "response.failed" : COMPLETED;
	} catch {
		return undefined;
	}
}
