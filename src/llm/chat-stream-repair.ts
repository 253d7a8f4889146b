/**
 * Repairs of OpenAI Chat Completions streams from servers that break the wire format in ways the
 * provider client cannot undo once it has parsed them.
 */
import { loadCrypto } from "../lazy-deps.js";

/**
 * An event-stream body repaired where a server broke the format in a way the client cannot undo:
 *
 * - `tool_calls` deltas renumbered where a server gave a new call (a new `id`) the `index` of an
 *   earlier one. Ollama numbers every call of an answer `0` (ollama#15457): pi-ai joins calls by
 *   index, so two calls became one whose arguments were two JSON objects end to end, and neither
 *   ran. A reused index becomes the next free one; later deltas of that index without an id go to
 *   the call that took it last.
 * - A call that starts without an `id` (Ollama's gpt-oss, LangBot#2261) given one (`call_…`):
 *   pi-ai kept `""`, which Anthropic (`^[a-zA-Z0-9_-]+$`) and OpenAI Responses (`call_id`) refuse
 *   once the session switches to them. When Ollama sends several such calls, each whole at index
 *   `0`, a delta with a function name after the call at that index already has complete JSON
 *   arguments starts a new call (id and index of its own) instead of extending that one.
 * - A bare JSON error body (`{"error":…}` on a line of its own, no `data: `) framed as the event
 *   OpenAI sends an error in. A proxy that forwards a backend's refusal inside its `200` stream
 *   (lemonade#2826: llama-server's context overflow) is otherwise read as an empty answer, the
 *   reason lost.
 *
 * - A stream that ends with neither a `finish_reason` nor `data: [DONE]` ends with the error event
 *   "Stream ended without finish_reason" (later pi-ai's wording, a transient failure): pi-ai
 *   0.73.1 took such a close for a finished answer, so a server that stopped mid-answer or
 *   mid-call (pi#8496, command-code#785) left a truncated turn that looked complete.
 *
 * Other lines pass as they came.
 *
 * @example
 * ```ts
 * const response = new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
 * const repaired = new Response(repairedChatStream(response.body!), response);
 * expect(await repaired.text()).toBe("data: [DONE]\n\n");
 * ```
 */
export function repairedChatStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
	const decoder = new TextDecoder();
	const encoder = new TextEncoder();
	const renumber = toolCallRenumbering();
	let pending = "";
	let finished = false;
	return body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				const text = pending + decoder.decode(chunk, { stream: true });
				const end = text.lastIndexOf("\n") + 1;
				pending = text.slice(end);
				if (end === 0) return;
				const lines = text.slice(0, end);
				finished ||= FINISHED.test(lines);
				controller.enqueue(encoder.encode(repairLines(lines, renumber)));
			},
			flush(controller) {
				const tail = pending + decoder.decode();
				// A line the server closed in the middle of reached the client's JSON.parse, which printed
				// it to stderr and threw "Unexpected end of JSON input": left out, the close says why.
				const rest = isCutDataLine(tail) ? "" : tail;
				if (rest) controller.enqueue(encoder.encode(repairLines(rest, renumber)));
				if (!finished && !FINISHED.test(rest)) controller.enqueue(encoder.encode(UNFINISHED));
			},
		}),
	);
}

/** Whether `line`, the body's last and without its newline, is a `data:` line whose JSON was cut. */
function isCutDataLine(line: string): boolean {
	if (!line.startsWith("data:")) return false;
	const data = line.slice(5).trim();
	if (data === "" || data === "[DONE]") return false;
	try {
		JSON.parse(data);
		return false;
	} catch {
		return true;
	}
}

/** A chunk with a finish reason (`null` until the last), or the terminator. */
const FINISHED = /"finish_reason":\s*"|^data:\s*\[DONE\]/m;
const UNFINISHED = `\n\ndata: ${JSON.stringify({ error: { message: "Stream ended without finish_reason", type: "stream_truncated" } })}\n\n`;

type ToolCallDelta = { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };

function repairLines(text: string, renumber: (call: ToolCallDelta) => void): string {
	// Most lines carry text or reasoning: only a line naming tool_calls, or a bare object, is parsed.
	if (!text.includes('"tool_calls"') && !text.startsWith("{") && !text.includes("\n{")) return text;
	return text
		.split("\n")
		.map((line) => {
			if (line.startsWith("{")) return framedError(line) ?? line;
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

/** `line` as an SSE event when it is a JSON object with an `error` (the client then throws it). */
function framedError(line: string): string | undefined {
	try {
		const value: unknown = JSON.parse(line);
		if (typeof value !== "object" || value === null || !("error" in value)) return undefined;
	} catch {
		return undefined;
	}
	// The blank line ends the event even when the body ended without one.
	return `data: ${line.trim()}\n\n`;
}

/** Per stream: which id holds each index, and where a server's index now points. */
function toolCallRenumbering(): (call: ToolCallDelta) => void {
	const idAt = new Map<number, string>();
	const indexOf = new Map<string, number>();
	const movedTo = new Map<number, number>();
	const argumentsAt = new Map<number, string>();
	const record = (call: ToolCallDelta, index: number) => {
		call.index = index;
		const piece = call.function?.arguments;
		if (typeof piece === "string") argumentsAt.set(index, (argumentsAt.get(index) ?? "") + piece);
	};
	return (call) => {
		if (typeof call.index !== "number") return;
		const sent = call.index;
		let id = typeof call.id === "string" ? call.id : "";
		if (!id) {
			const index = movedTo.get(sent);
			// Ollama sends each id-less call whole at index 0: a name after complete arguments starts the next.
			if (index !== undefined && !(hasName(call) && isComplete(argumentsAt.get(index)))) {
				record(call, index);
				return;
			}
			// A call that starts without an id (Ollama's gpt-oss, LangBot#2261) gets one now: it is stored
			// with the answer and its result, and Anthropic or Responses refuse an empty one after a switch.
			id = `call_${loadCrypto().randomUUID().replaceAll("-", "").slice(0, 24)}`;
			call.id = id;
		}
		// A server that repeats the id on every delta of a call keeps that call's index.
		let index = indexOf.get(id);
		if (index === undefined) {
			index = sent;
			while (idAt.has(index)) index++;
			idAt.set(index, id);
			indexOf.set(id, index);
		}
		movedTo.set(sent, index);
		record(call, index);
	};
}

const hasName = (call: ToolCallDelta) => typeof call.function?.name === "string" && call.function.name !== "";

/** Whether a call's arguments so far are a whole JSON value, so nothing more can be appended to them. */
function isComplete(args: string | undefined): boolean {
	if (!args?.trim()) return false;
	try {
		JSON.parse(args);
		return true;
	} catch {
		return false;
	}
}
