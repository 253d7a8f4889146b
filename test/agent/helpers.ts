import { Type } from "@sinclair/typebox";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, AgentOptions, AgentTool, AgentToolResult } from "../../src/agent/types.js";
import type { AgentMessage, UserMessage } from "../../src/llm/types.js";
import { createFauxProvider, type FauxProvider, type FauxProviderOptions } from "../../src/testing/index.js";

export interface TestAgent {
	agent: Agent;
	faux: FauxProvider;
	events: AgentEvent[];
	/** Event types, with runs of message_update collapsed into one `message_update*`. */
	types(): string[];
}

export function createTestAgent(options: AgentOptions = {}, fauxOptions: FauxProviderOptions = {}): TestAgent {
	const faux = createFauxProvider(fauxOptions);
	const agent = new Agent({
		streamFn: faux.streamFn,
		...options,
		initialState: { model: faux.getModel(), systemPrompt: "You are a test assistant.", ...options.initialState },
	});
	const events: AgentEvent[] = [];
	agent.subscribe((event) => {
		events.push(event);
	});
	return { agent, faux, events, types: () => collapseUpdates(events.map((event) => event.type)) };
}

export function collapseUpdates(types: string[]): string[] {
	const out: string[] = [];
	for (const type of types) {
		if (type === "message_update" && out[out.length - 1] === "message_update*") continue;
		out.push(type === "message_update" ? "message_update*" : type);
	}
	return out;
}

export function user(text: string): UserMessage {
	return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
}

export function textOf(message: AgentMessage | undefined): string {
	if (!message || !("content" in message)) return "";
	const content = message.content;
	if (typeof content === "string") return content;
	return content
		.map((block) => (block.type === "text" ? block.text : block.type === "thinking" ? block.thinking : ""))
		.join("");
}

export function textResult(text: string): AgentToolResult {
	return { content: [{ type: "text", text }], details: { text } };
}

/** A tool that echoes `text`; `execute` can be replaced per test. */
export function echoTool(overrides: Partial<AgentTool> = {}): AgentTool {
	return {
		name: "echo",
		label: "Echo",
		description: "Echo the text back",
		parameters: Type.Object({ text: Type.String() }),
		execute: async (_id, params: { text: string }) => textResult(params.text),
		...overrides,
	};
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): {
	promise: Promise<T>;
	resolve: (value: T) => void;
	reject: (error: unknown) => void;
} {
	let resolve!: (value: T) => void;
	let reject!: (error: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}
