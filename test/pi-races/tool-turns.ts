/**
 * Sessions that call an extension's tool, for the image and tool-result replays: the extension, the
 * model's scripted turns, and what the session file saved.
 */
import type { ExtensionFactory } from "../../src/extensions/types.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import type { WireSession } from "../llm/wire/session.js";

/** An extension registering tool `name`, which answers `content`. */
export function toolAnswering(name: string, content: unknown[]): ExtensionFactory {
	return (pi) => {
		pi.registerTool({
			name,
			label: name,
			description: `the ${name} tool`,
			parameters: { type: "object", properties: {} } as never,
			execute: async () => ({ content: content as never, details: {} }),
		});
	};
}

/** The model calls `tool`, then answers; a second prompt is answered too. Returns the stop reasons. */
export async function callToolThenPromptAgain(w: WireSession, tool: string): Promise<string[]> {
	w.server.reply(
		anthropicReply([{ type: "tool_use", id: `toolu_${tool}`, name: tool, input: {} }], { stopReason: "tool_use" }),
		anthropicReply([{ type: "text", text: "I could not see it." }]),
		anthropicReply([{ type: "text", text: "Still here." }]),
	);
	await w.session.prompt(`use ${tool}`);
	await w.session.prompt("and now?");
	return stopReasons(w);
}

/** The stop reason of every assistant message, in order. */
export function stopReasons(w: WireSession): string[] {
	return w.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
}

/** The messages of `role` in the session's file, as saved. */
export function savedMessages<Role extends "user" | "toolResult">(
	w: WireSession,
	role: Role,
): Extract<AgentMessage, { role: Role }>[] {
	return w
		.entries()
		.flatMap((entry) =>
			entry.type === "message" && entry.message.role === role
				? [entry.message as Extract<AgentMessage, { role: Role }>]
				: [],
		);
}
