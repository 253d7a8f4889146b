/**
 * What the session adds to a refused provider request (provider-stream.ts) reaches every request
 * the session makes: its prompts' and its compaction summaries'. Real pi-ai OpenAI client against a
 * local server.
 */
import { describe, expect, it } from "vitest";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import type { Router } from "../llm/wire/server.js";
import { API_KEY, useWireSession, type WireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

const INCORRECT = "Incorrect API key provided: sk-wire***.";
const KEY_NOTE = "openai answered 401 to the key stored for openai in auth.json";

describe("a refused key names its source wherever the answer is read", () => {
	it("a compaction summary refused with 401 fails naming where the key came from", async () => {
		// A small keepRecentTokens leaves the first exchange to summarize.
		const w = await wireSession({ api: "openai-completions", settings: { compaction: { keepRecentTokens: 1 } } });
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
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key"));

		await w.session.prompt("hello");

		const answer = w.session.messages.at(-1);
		expect(answer?.role === "assistant" && answer.errorMessage).toContain(KEY_NOTE);
	});
});

describe("a request refused for a key replaced since it was read is sent once more (databricks/unity-gateway#451)", () => {
	/** A gateway that refuses API_KEY with `refusal`, the key being rotated in `auth` as the request arrives. */
	function rotatingGateway(auth: AuthStorage, refusal: ReturnType<typeof openAiError>): Router {
		return (request, next) => {
			if (request.headers.authorization !== `Bearer ${API_KEY}`) return next();
			auth.set("openai", "sk-rotated");
			return refusal;
		};
	}

	/** A session whose gateway refuses API_KEY with `refusal`, rotating auth.json's key as it does. */
	async function rotatingSession(refusal: ReturnType<typeof openAiError>): Promise<WireSession> {
		const auth = AuthStorage.inMemory({ openai: API_KEY });
		return wireSession({ api: "openai-completions", credentials: auth, route: rotatingGateway(auth, refusal) });
	}

	it("a 401 to a key replaced in auth.json meanwhile: the request goes again with the new key; one answer, no error, is shown and saved", async () => {
		const w = await rotatingSession(openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key"));
		w.server.reply(chatReply([{ type: "text", text: "answered" }]));

		await w.session.prompt("hello");

		expect(w.server.requests.map((request) => request.headers.authorization)).toEqual([
			`Bearer ${API_KEY}`,
			"Bearer sk-rotated",
		]);
		const shown = (type: "message_start" | "message_end") =>
			w.eventsOf(type).flatMap((event) => (event.message.role === "assistant" ? [event.message.stopReason] : []));
		expect([shown("message_start"), shown("message_end")]).toEqual([["stop"], ["stop"]]);
		const saved = w
			.entries()
			.flatMap((entry) =>
				entry.type === "message" && entry.message.role === "assistant"
					? [[entry.message.stopReason, entry.message.content]]
					: [],
			);
		expect(saved).toEqual([["stop", [{ type: "text", text: "answered" }]]]);
	});

	it("a 403 saying the key is invalid is sent again with the new key too", async () => {
		const w = await rotatingSession(
			openAiError(403, "Invalid API key: the token has expired.", "invalid_request_error", "invalid_api_key"),
		);
		w.server.reply(chatReply([{ type: "text", text: "answered" }]));

		await w.session.prompt("hello");

		expect(w.server.requests).toHaveLength(2);
		expect(w.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("a 403 refusing the model, not the key, is not sent again though the key changed", async () => {
		const forbidden = "You do not have access to the model gpt-wire.";
		const w = await rotatingSession(openAiError(403, forbidden, "invalid_request_error", "model_not_found"));

		await w.session.prompt("hello");

		expect(w.server.requests).toHaveLength(1);
		const answer = w.session.messages.at(-1);
		expect(answer?.role === "assistant" && answer.errorMessage).toContain(forbidden);
	});

	it("a compaction summary refused for a key replaced meanwhile is sent again with the new key and the compaction lands", async () => {
		const auth = AuthStorage.inMemory({ openai: API_KEY });
		let rotating = false;
		const refusal = openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key");
		const w = await wireSession({
			api: "openai-completions",
			credentials: auth,
			settings: { compaction: { keepRecentTokens: 1 } },
			route: (request, next) => (rotating ? rotatingGateway(auth, refusal)(request, next) : next()),
		});
		w.server.reply(
			chatReply([{ type: "text", text: "an answer worth summarizing" }]),
			chatReply([{ type: "text", text: "a second answer" }]),
		);
		await w.session.prompt("hello");
		await w.session.prompt("and again");
		rotating = true;
		// Two summaries: the history's and the kept turn's prefix.
		w.server.reply(
			chatReply([{ type: "text", text: "the summary" }]),
			chatReply([{ type: "text", text: "the prefix" }]),
		);

		const result = await w.session.compact();

		expect(result.summary).toContain("the summary");
		expect(w.server.requests.slice(-3).map((request) => request.headers.authorization)).toEqual([
			`Bearer ${API_KEY}`,
			"Bearer sk-rotated",
			"Bearer sk-rotated",
		]);
	});

	it("read by its result alone (no events), a request refused for a key replaced meanwhile resolves to the new key's answer", async () => {
		const w = await rotatingSession(openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key"));
		w.server.reply(chatReply([{ type: "text", text: "answered" }]));
		const context = { messages: [{ role: "user" as const, content: "hello", timestamp: Date.now() }] };

		const answer = await (await w.session.agent.streamFn!(w.model, context, { apiKey: API_KEY })).result();

		expect(answer).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "answered" }] });
		expect(w.server.requests.map((request) => request.headers.authorization)).toEqual([
			`Bearer ${API_KEY}`,
			"Bearer sk-rotated",
		]);
	});

	it("a 401 to the key still current is not sent again", async () => {
		const w = await wireSession({ api: "openai-completions" });
		w.server.reply(openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key"));

		await w.session.prompt("hello");

		expect(w.server.requests).toHaveLength(1);
		const answer = w.session.messages.at(-1);
		expect(answer?.role === "assistant" && answer.errorMessage).toContain(KEY_NOTE);
	});
});
