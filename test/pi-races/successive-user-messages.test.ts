/**
 * cherry-studio#5051, pi#6514 (PR): an answer stopped mid-stream is left out of later requests, so
 * the prompt before it and the next prompt went as two user messages in a row; DeepSeek's reasoner
 * refused every later request, "deepseek-reasoner does not support successive user or assistant
 * messages (messages[1] and messages[2] in your input)". Here the answer was Claude's and the
 * session then switched to DeepSeek. What the user should see: the answer, both prompts in the
 * request, in one user message; the file keeps the aborted answer and both prompts.
 *
 * Over HTTP through pi-ai's own clients (Anthropic, then OpenAI Chat for DeepSeek) to a local
 * server that refuses successive roles as DeepSeek does, a whole session from `createAgentSession`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { anthropicEvents } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { sse } from "../llm/wire/server.js";
import { type WireModelSpec, wireProjectsPerTest } from "./helpers.js";

const wireProject = wireProjectsPerTest("settle-successive-user-", "off");
const CLAUDE: WireModelSpec = { api: "anthropic-messages", provider: "anthropic", id: "claude-wire-1" };
const REASONER: WireModelSpec = {
	api: "openai-completions",
	provider: "deepseek",
	id: "deepseek-reasoner",
	name: "R1",
};

type SentMessage = { role: string; content?: unknown };

describe("cherry-studio#5051: an answer stopped mid-stream, then DeepSeek's reasoner", () => {
	it("cherry-studio#5051: after the abort and a switch to deepseek/deepseek-reasoner, the next prompt is answered; both prompts go in one user message", async () => {
		const { server, model, open } = await wireProject([CLAUDE, REASONER], {
			route: (request, next) => {
				if (!request.path.endsWith("/chat/completions")) return next();
				const roles = (request.body.messages as SentMessage[]).map((message) => message.role);
				const at = roles.findIndex((role, i) => i > 0 && role !== "tool" && role === roles[i - 1]);
				if (at < 0) return next();
				return openAiError(
					400,
					`deepseek-reasoner does not support successive user or assistant messages (messages[${at - 1}] and messages[${at}] in your input). You should interleave the user/assistant messages in the message sequence.`,
					"invalid_request_error",
				);
			},
		});
		const session = await open(CLAUDE);
		const events = anthropicEvents([{ type: "text", text: "Definitely, here is a long PARTIAL text" }]);
		const cut = events.findIndex((event) => JSON.stringify(event.data).includes("PARTIAL"));
		server.reply(
			sse(events.slice(0, cut + 1), "hang"),
			chatReply([{ type: "text", text: "Your first message asked for a long text." }], {
				model: "deepseek-reasoner",
			}),
		);
		const reached = new Promise<void>((resolve) => {
			const off = session.subscribe((event) => {
				if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
					off();
					resolve();
				}
			});
		});
		const first = session.prompt("reply with some long text");
		await reached;
		await session.abort();
		await first;
		await server.waitForClientClose(1);
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });

		await session.setModel(model(REASONER));
		await session.prompt("what did my first message ask for?");

		expect(session.messages.at(-1)).toMatchObject({
			role: "assistant",
			provider: "deepseek",
			stopReason: "stop",
			content: [{ type: "text", text: "Your first message asked for a long text." }],
		});
		const sent = server.requests[1]!.body.messages as SentMessage[];
		expect(sent.map((message) => message.role).slice(1)).toEqual(["user"]);
		const prompt = JSON.stringify(sent[1]!.content);
		expect(prompt).toContain("reply with some long text");
		expect(prompt).toContain("what did my first message ask for?");
		expect(prompt.indexOf("reply with some long text")).toBeLessThan(prompt.indexOf("what did my first"));
		expect(prompt).not.toContain("PARTIAL");

		const file = readFileSync(session.sessionFile!, "utf8");
		expect(file).toContain('"stopReason":"aborted"');
		expect(file).toContain("reply with some long text");
		expect(file).toContain("what did my first message ask for?");
	});
});
