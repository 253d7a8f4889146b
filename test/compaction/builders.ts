/** Builders for session entries and a scripted stream function, local to the compaction tests. */
import type {
	AgentMessage,
	AssistantMessage,
	AssistantMessageEvent,
	AssistantMessageEventStream,
	Context,
	Model,
	StreamFn,
	StreamOptions,
	ToolCall,
	ToolResultMessage,
	Usage,
} from "../../src/llm/types.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { assistant, usage } from "../recovery/helpers.js";

type EntryBody = SessionEntry extends infer E
	? E extends SessionEntry
		? Omit<E, "id" | "parentId" | "timestamp">
		: never
	: never;

/** Appends entries in a chain (each the child of the previous), like a linear session. */
export class EntryLog {
	readonly entries: SessionEntry[] = [];
	private clock = Date.parse("2025-01-01T00:00:00.000Z");

	add(body: EntryBody): SessionEntry {
		const parent = this.entries[this.entries.length - 1];
		this.clock += 1000;
		const entry = {
			...body,
			id: `e${String(this.entries.length).padStart(3, "0")}`,
			parentId: parent?.id ?? null,
			timestamp: new Date(this.clock).toISOString(),
		} as SessionEntry;
		this.entries.push(entry);
		return entry;
	}

	message(message: AgentMessage): SessionEntry {
		return this.add({ type: "message", message });
	}

	user(text: string): SessionEntry {
		return this.message({ role: "user", content: text, timestamp: this.clock });
	}

	assistant(text: string, toolCalls: ToolCall[] = [], total = 0): SessionEntry {
		return this.message(
			assistant({ text, toolCalls, usage: { totalTokens: total }, stopReason: toolCalls.length ? "toolUse" : "stop" }),
		);
	}

	toolResult(toolCallId: string, toolName: string, text: string): SessionEntry {
		const result: ToolResultMessage = {
			role: "toolResult",
			toolCallId,
			toolName,
			content: [{ type: "text", text }],
			isError: false,
			timestamp: this.clock,
		};
		return this.message(result);
	}
}

export function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
	return { type: "toolCall", id, name, arguments: args };
}

/** One recorded request of the scripted stream function. */
export interface RecordedRequest {
	model: Model;
	context: Context;
	options: StreamOptions | undefined;
}

export type ScriptedResponse =
	| { text: string; usage?: Partial<Omit<Usage, "cost">> }
	| { error: string }
	| { aborted: true }
	| { hangUntilAborted: true }
	| { throws: string };

/**
 * A StreamFn that answers requests in order from a script and records each request.
 * `hangUntilAborted` never finishes unless the request's signal aborts.
 */
export function scriptedStream(responses: ScriptedResponse[]): { streamFn: StreamFn; requests: RecordedRequest[] } {
	const requests: RecordedRequest[] = [];
	let next = 0;
	const streamFn: StreamFn = (model, context, options) => {
		requests.push({ model, context, options });
		const response = responses[next++];
		if (!response) throw new Error(`scriptedStream: no response scripted for request ${next}`);
		if ("throws" in response) throw new Error(response.throws);
		return makeStream(response, model, options?.signal);
	};
	return { streamFn, requests };
}

function makeStream(
	response: Exclude<ScriptedResponse, { throws: string }>,
	model: Model,
	signal: AbortSignal | undefined,
): AssistantMessageEventStream {
	const base = (stopReason: AssistantMessage["stopReason"], errorMessage?: string): AssistantMessage => ({
		...assistant({ model, stopReason, ...(errorMessage === undefined ? {} : { errorMessage }) }),
		api: model.api,
	});
	async function* events(): AsyncGenerator<AssistantMessageEvent> {
		if ("text" in response) {
			const message = {
				...base("stop"),
				content: [{ type: "text" as const, text: response.text }],
				usage: usage(response.usage),
			};
			yield { type: "start", partial: { ...message, content: [] } };
			yield { type: "text_start", contentIndex: 0, partial: { ...message, content: [{ type: "text", text: "" }] } };
			yield { type: "text_delta", contentIndex: 0, delta: response.text, partial: message };
			yield { type: "text_end", contentIndex: 0, content: response.text, partial: message };
			yield { type: "done", reason: "stop", message };
		} else if ("error" in response) {
			yield { type: "error", reason: "error", error: base("error", response.error) };
		} else if ("aborted" in response) {
			yield { type: "error", reason: "aborted", error: base("aborted", "Request was aborted") };
		} else {
			await new Promise<void>((resolve) => {
				if (signal?.aborted) resolve();
				signal?.addEventListener("abort", () => resolve(), { once: true });
			});
			yield { type: "error", reason: "aborted", error: base("aborted", "Request was aborted") };
		}
	}
	const iterable = events();
	const collected: AssistantMessageEvent[] = [];
	const final: Promise<AssistantMessage> = (async () => {
		for await (const event of iterable) collected.push(event);
		const last = collected[collected.length - 1]!;
		return last.type === "done" ? last.message : (last as Extract<AssistantMessageEvent, { type: "error" }>).error;
	})();
	return {
		async *[Symbol.asyncIterator]() {
			await final;
			yield* collected;
		},
		result: () => final,
	};
}

/** The single user message text of a recorded request. */
export function requestText(request: RecordedRequest): string {
	const message = request.context.messages[0]!;
	if (message.role !== "user" || typeof message.content === "string") return String(message.content);
	return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
