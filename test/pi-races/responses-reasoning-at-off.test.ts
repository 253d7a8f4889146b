/**
 * pi#5059: an OpenAI Responses model that reasons even at thinking `off` (a `thinkingLevelMap.off`
 * of "minimal", a gateway model that always thinks). pi-ai 0.73.1 sends `store: false` and asks for
 * `reasoning.encrypted_content` only when a reasoning effort is set, so at `off` the model's
 * reasoning items came back with only their id; pi-ai replayed them by id after the tool call, and
 * OpenAI, having stored nothing, answered 404 "Item with id 'rs_…' not found" every time. Replayed
 * through pi-ai's real OpenAI client against a local server that answers as OpenAI does: encrypted
 * content only when the request asks for it, and a 404 for a reasoning item it cannot resolve.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	ENCRYPTED,
	type ResponsesInputItem,
	type ResponsesItem,
	responsesReply,
	statelessOpenAi,
} from "../llm/wire/responses.js";
import type { RecordedRequest, Reply } from "../llm/wire/server.js";
import { lastAssistant, useWireSession, type WireSession } from "../llm/wire/session.js";

const asksForEncrypted = (request: RecordedRequest) =>
	Array.isArray(request.body.include) && request.body.include.includes("reasoning.encrypted_content");

/** The model reasons whatever the effort; the item carries encrypted content only when asked for. */
function reasoningReply(summary: string, rest: ResponsesItem[]): Reply {
	return (request, res, req) => {
		const reasoning: ResponsesItem = {
			type: "reasoning",
			summary,
			...(asksForEncrypted(request) ? { encrypted: ENCRYPTED } : {}),
		};
		return responsesReply([reasoning, ...rest])(request, res, req);
	};
}

function answer(session: WireSession) {
	const message = lastAssistant(session);
	const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
	return { stopReason: message.stopReason, text };
}

const wireSession = useWireSession();

describe("pi#5059: thinking off on a Responses model that reasons anyway, then a tool call", () => {
	it("pi#5059: each request asks for the encrypted reasoning, the item goes back with it after the real read; the answers arrive", async () => {
		const w = await wireSession({
			api: "openai-responses",
			route: statelessOpenAi,
			settings: { defaultThinkingLevel: "off" },
			model: { thinkingLevelMap: { off: "minimal" } },
		});
		writeFileSync(join(w.dir, "notes.txt"), "the secret is 42\n");
		w.server.reply(
			reasoningReply("Read the notes first.", [
				{ type: "function_call", callId: "call_wire1", name: "read", arguments: { path: "notes.txt" } },
			]),
			reasoningReply("The file says 42.", [{ type: "message", text: "It is 42." }]),
			reasoningReply("Same file.", [{ type: "message", text: "Still 42." }]),
		);

		await w.session.prompt("what is the secret in notes.txt?");
		expect(answer(w)).toEqual({ stopReason: "stop", text: "It is 42." });
		await w.session.prompt("and now?");
		expect(answer(w)).toEqual({ stopReason: "stop", text: "Still 42." });

		expect(w.server.requests).toHaveLength(3);
		for (const request of w.server.requests) {
			// Thinking stays off (the model's own `off` effort); only the encrypted content is asked for.
			expect(request.body).toMatchObject({ store: false, reasoning: { effort: "minimal" } });
			expect(request.body.include).toEqual(["reasoning.encrypted_content"]);
		}
		const replayed = (w.server.requests[1]!.body.input as ResponsesInputItem[]).filter(
			(item) => item.type === "reasoning",
		);
		expect(replayed).toEqual([expect.objectContaining({ id: "rs_wire0", encrypted_content: ENCRYPTED })]);
		expect(JSON.stringify(w.server.requests[1]!.body.input)).toContain("the secret is 42");
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message.role] : []));
		expect(saved.filter((role) => role !== "system")).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"user",
			"assistant",
		]);
	});
});
