/**
 * What the session adds to a refused provider request (provider-stream.ts) reaches every request
 * the session makes: its prompts' and its compaction summaries'. Real pi-ai OpenAI client against a
 * local server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { startWireSession, type WireSession } from "../llm/wire/session.js";

let w: WireSession | undefined;
afterEach(async () => {
	await w?.dispose();
	w = undefined;
});

const INCORRECT = "Incorrect API key provided: sk-wire***.";
const KEY_NOTE = "openai answered 401 to the key stored for openai in auth.json";

describe("a refused key names its source wherever the answer is read", () => {
	it("a compaction summary refused with 401 fails naming where the key came from", async () => {
		// A small keepRecentTokens leaves the first exchange to summarize.
		w = await startWireSession({ api: "openai-completions", settings: { compaction: { keepRecentTokens: 1 } } });
		w.server.reply(
			chatReply([{ type: "text", text: "an answer worth summarizing" }]),
			chatReply([{ type: "text", text: "a second answer" }]),
		);
		await w.session.prompt("hello");
		await w.session.prompt("and again");
		w.server.reply(openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key"));

		const failure = await w.session.compact().then(
			() => undefined,
			(error: unknown) => error,
		);

		expect(String(failure)).toContain(INCORRECT);
		expect(String(failure)).toContain(KEY_NOTE);
	});

	it("a prompt refused with 401 ends with the key's source in the saved answer's error", async () => {
		w = await startWireSession({ api: "openai-completions" });
		w.server.reply(openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key"));

		await w.session.prompt("hello");

		const answer = w.session.messages.at(-1);
		expect(answer?.role === "assistant" && answer.errorMessage).toContain(KEY_NOTE);
	});
});
