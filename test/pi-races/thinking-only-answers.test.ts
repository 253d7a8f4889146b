/**
 * forgecode#3071, hermes-agent#13010: Claude ended a turn with thinking and nothing after it (no
 * text, no tool call). The answer was saved as it came and sent back as an assistant message whose
 * last block is `thinking`; Anthropic refused that request, and every later one, with 400 "The final
 * block in an assistant message cannot be `thinking`": the conversation was dead. What the user
 * should see: the next prompt answered; the saved answer stays in the session file as it came.
 *
 * A whole session on pi-ai's Anthropic client against a local server that checks assistant
 * messages as Anthropic does.
 */
import { describe, expect, it } from "vitest";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest, Router } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

type SentMessage = { role: string; content: string | { type: string }[] };

/** Anthropic's check: no assistant message may end on a thinking block. */
const anthropicFinalBlockCheck: Router = (request, next) => {
	const messages = request.body.messages as SentMessage[];
	for (const [index, message] of messages.entries()) {
		if (message.role !== "assistant" || typeof message.content === "string") continue;
		const last = message.content.at(-1)?.type;
		if (last === "thinking" || last === "redacted_thinking") {
			return anthropicError(
				400,
				"invalid_request_error",
				`messages.${index}: The final block in an assistant message cannot be \`thinking\`.`,
			);
		}
	}
	return next();
};

function sentBlockTypes(request: RecordedRequest): string[] {
	return (request.body.messages as SentMessage[]).flatMap((message) =>
		typeof message.content === "string" ? ["text"] : message.content.map((block) => block.type),
	);
}

describe("forgecode#3071: an answer that was only thinking made every later Anthropic request fail", () => {
	it("forgecode#3071: Claude ends a turn after a signed thinking block; the next prompt goes without that answer and is answered, the file keeps it", async () => {
		const w = await wireSession({ api: "anthropic-messages", route: anthropicFinalBlockCheck });
		w.server.reply(
			anthropicReply([{ type: "thinking", thinking: "The user wants a plan; let me think.", signature: "sig-plan" }]),
			anthropicReply([{ type: "text", text: "Here is the plan." }]),
		);
		await w.session.prompt("plan the rename");

		await w.session.prompt("go on");

		expect(w.session.getLastAssistantText()).toBe("Here is the plan.");
		const second = w.server.requests[1]!;
		expect(second.body.messages.map((message: SentMessage) => message.role)).toEqual(["user", "user"]);
		expect(sentBlockTypes(second)).not.toContain("thinking");
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		expect(saved.find((message) => message.role === "assistant")).toMatchObject({
			role: "assistant",
			content: [{ type: "thinking", thinking: "The user wants a plan; let me think.", thinkingSignature: "sig-plan" }],
		});
	});

	it("hermes-agent#13010: an answer of only redacted thinking, cut at the output cap, is left out too and the next prompt is answered", async () => {
		const w = await wireSession({ api: "anthropic-messages", route: anthropicFinalBlockCheck });
		w.server.reply(
			anthropicReply([{ type: "redacted_thinking", data: "EncryptedReasoning==" }], { stopReason: "max_tokens" }),
			anthropicReply([{ type: "text", text: "Done." }]),
		);
		await w.session.prompt("think hard");

		await w.session.prompt("answer now");

		expect(w.session.getLastAssistantText()).toBe("Done.");
		expect(sentBlockTypes(w.server.requests[1]!)).not.toContain("redacted_thinking");
	});

	it("an answer with thinking and then text still goes back with its signed thinking first", async () => {
		const w = await wireSession({ api: "anthropic-messages", route: anthropicFinalBlockCheck });
		w.server.reply(
			anthropicReply([
				{ type: "thinking", thinking: "Short question.", signature: "sig-short" },
				{ type: "text", text: "Yes." },
			]),
			anthropicReply([{ type: "text", text: "No." }]),
		);
		await w.session.prompt("is it?");
		await w.session.prompt("and now?");

		expect(w.server.requests[1]!.body.messages[1]).toEqual({
			role: "assistant",
			content: [
				{ type: "thinking", thinking: "Short question.", signature: "sig-short" },
				{ type: "text", text: "Yes." },
			],
		});
	});
});
