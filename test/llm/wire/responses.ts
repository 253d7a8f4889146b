/**
 * The OpenAI Responses API as it streams (https://platform.openai.com/docs/api-reference/responses-streaming):
 * named events (`response.created`, `response.output_item.added`, `…delta`, `…done`,
 * `response.completed` with usage), a `response.failed` event for failures after the stream began.
 */
import { openAiError } from "./openai.js";
import type { Reply, Router, SseEvent, StreamEnd } from "./server.js";
import { sse } from "./server.js";

export type ResponsesItem =
	| { type: "reasoning"; summary: string; encrypted?: string }
	| { type: "message"; text: string }
	| { type: "function_call"; callId: string; name: string; arguments: Record<string, unknown> };

export interface ResponsesUsage {
	input: number;
	output: number;
	cached?: number;
}

export function responsesEvents(
	items: readonly ResponsesItem[],
	usage: ResponsesUsage = { input: 10, output: 5 },
): SseEvent[] {
	let sequence = 0;
	const event = (type: string, data: Record<string, unknown>): SseEvent => ({
		event: type,
		data: { type, sequence_number: sequence++, ...data },
	});
	const response = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
		id: "resp_wire1",
		object: "response",
		created_at: 1_764_000_000,
		model: "gpt-wire-1",
		status,
		output,
		...extra,
	});
	const events: SseEvent[] = [
		event("response.created", { response: response("in_progress", []) }),
		event("response.in_progress", { response: response("in_progress", []) }),
	];
	const done: unknown[] = [];
	items.forEach((item, output_index) => {
		if (item.type === "reasoning") {
			const id = `rs_wire${output_index}`;
			const finished = {
				id,
				type: "reasoning",
				summary: [{ type: "summary_text", text: item.summary }],
				...(item.encrypted === undefined ? {} : { encrypted_content: item.encrypted }),
			};
			events.push(event("response.output_item.added", { output_index, item: { id, type: "reasoning", summary: [] } }));
			const part = { item_id: id, output_index, summary_index: 0 };
			events.push(
				event("response.reasoning_summary_part.added", { ...part, part: { type: "summary_text", text: "" } }),
			);
			events.push(event("response.reasoning_summary_text.delta", { ...part, delta: item.summary }));
			events.push(event("response.reasoning_summary_text.done", { ...part, text: item.summary }));
			events.push(
				event("response.reasoning_summary_part.done", { ...part, part: { type: "summary_text", text: item.summary } }),
			);
			events.push(event("response.output_item.done", { output_index, item: finished }));
			done.push(finished);
		} else if (item.type === "message") {
			const id = `msg_wire${output_index}`;
			const text = { type: "output_text", text: item.text, annotations: [] };
			const finished = { id, type: "message", status: "completed", role: "assistant", content: [text] };
			events.push(
				event("response.output_item.added", {
					output_index,
					item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
				}),
			);
			const part = { item_id: id, output_index, content_index: 0 };
			events.push(event("response.content_part.added", { ...part, part: { ...text, text: "" } }));
			events.push(event("response.output_text.delta", { ...part, delta: item.text }));
			events.push(event("response.output_text.done", { ...part, text: item.text }));
			events.push(event("response.content_part.done", { ...part, part: text }));
			events.push(event("response.output_item.done", { output_index, item: finished }));
			done.push(finished);
		} else {
			const id = `fc_wire${output_index}`;
			const args = JSON.stringify(item.arguments);
			const call = { id, type: "function_call", call_id: item.callId, name: item.name };
			events.push(
				event("response.output_item.added", { output_index, item: { ...call, status: "in_progress", arguments: "" } }),
			);
			events.push(event("response.function_call_arguments.delta", { item_id: id, output_index, delta: args }));
			events.push(event("response.function_call_arguments.done", { item_id: id, output_index, arguments: args }));
			const finished = { ...call, status: "completed", arguments: args };
			events.push(event("response.output_item.done", { output_index, item: finished }));
			done.push(finished);
		}
	});
	events.push(
		event("response.completed", {
			response: response("completed", done, {
				usage: {
					input_tokens: usage.input,
					input_tokens_details: { cached_tokens: usage.cached ?? 0 },
					output_tokens: usage.output,
					output_tokens_details: { reasoning_tokens: 0 },
					total_tokens: usage.input + usage.output,
				},
			}),
		}),
	);
	return events;
}

export function responsesReply(items: readonly ResponsesItem[], usage?: ResponsesUsage): Reply {
	return sse(responsesEvents(items, usage));
}

/**
 * The response stops at `max_output_tokens` (or a content filter's `reason`): the items that arrived, then `response.incomplete`
 * (status `incomplete`, `incomplete_details.reason`) in place of `response.completed`.
 */
export function responsesIncomplete(
	items: readonly ResponsesItem[],
	usage?: ResponsesUsage,
	reason: "max_output_tokens" | "content_filter" = "max_output_tokens",
): Reply {
	const events = responsesEvents(items, usage);
	const completed = events.at(-1)!.data as { response: Record<string, unknown> };
	const response = { ...completed.response, status: "incomplete", incomplete_details: { reason } };
	const incomplete = { ...completed, type: "response.incomplete", response };
	return sse([...events.slice(0, -1), { event: "response.incomplete", data: incomplete }]);
}

export function responsesPartial(items: readonly ResponsesItem[], count: number, end: StreamEnd): Reply {
	return sse(responsesEvents(items).slice(0, count), end);
}

/** The stream begins, then the response fails (`response.failed` with the error). */
export function responsesFailed(code: string, message: string): Reply {
	const [created, inProgress] = responsesEvents([]);
	return sse([
		created!,
		inProgress!,
		{
			event: "response.failed",
			data: {
				type: "response.failed",
				sequence_number: 2,
				response: { id: "resp_wire1", object: "response", status: "failed", output: [], error: { code, message } },
			},
		},
	]);
}

/** A Responses request's `input` item, as far as the reasoning replays read it. */
export type ResponsesInputItem = { type?: string; id?: string; call_id?: string; encrypted_content?: string | null };

/** What the wire model puts in a reasoning item's `encrypted_content` when it is asked for. */
export const ENCRYPTED = "gAAAAABoWireEncryptedReasoning==";

/** OpenAI under `store: false`: a reasoning item without its encrypted content cannot be found. */
export const statelessOpenAi: Router = (request, next) => {
	const input = (request.body?.input ?? []) as ResponsesInputItem[];
	const lost = input.find((item) => item.type === "reasoning" && !item.encrypted_content);
	if (request.body?.store !== false || !lost) return next();
	return openAiError(
		404,
		`Item with id '${lost.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
		"invalid_request_error",
	);
};
