/**
 * Error classification on the real wire: each failure of test/fixtures/llm/wire-errors.json is
 * served over HTTP, streamed through pi-ai's provider (the real SDK, its own retries off), and the
 * resulting assistant message must carry the expected `errorMessage` and recovery class.
 */
import { readFileSync } from "node:fs";
import * as piAi from "@mariozechner/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyAssistantError, parseRequestedRetryDelayMs } from "../../../src/llm/errors.js";
import type { AssistantMessage, Context } from "../../../src/llm/types.js";
import { anthropicStreamError } from "./anthropic.js";
import { chatStreamError } from "./openai.js";
import { responsesFailed } from "./responses.js";
import { json, type Reply, startWireServer, text, type WireServer } from "./server.js";
import { API_KEY, type WireApi, wireModel } from "./session.js";

interface WireErrorCase {
	name: string;
	api: WireApi;
	reply: {
		kind: "http" | "anthropic-sse-error" | "chat-stream-error" | "responses-failed";
		status?: number;
		headers?: Record<string, string>;
		body?: unknown;
		text?: string;
		contentType?: string;
		type?: string;
		code?: string;
		message?: string;
	};
	errorMessage: string;
	class: string;
	requestedDelayMs?: number;
}

const fixture = JSON.parse(readFileSync(new URL("../../fixtures/llm/wire-errors.json", import.meta.url), "utf8")) as {
	cases: WireErrorCase[];
};

function toReply({ reply }: WireErrorCase): Reply {
	switch (reply.kind) {
		case "http":
			return reply.text !== undefined
				? text(reply.status!, reply.text, reply.contentType)
				: json(reply.status!, reply.body, reply.headers);
		case "anthropic-sse-error":
			return anthropicStreamError(reply.type!, reply.message!);
		case "chat-stream-error":
			return chatStreamError(reply.message!, reply.type!);
		case "responses-failed":
			return responsesFailed(reply.code!, reply.message!);
	}
}

let server: WireServer;
beforeAll(async () => {
	server = await startWireServer();
});
afterAll(() => server.close());

const context: Context = { systemPrompt: "You are a test.", messages: [{ role: "user", content: "hi", timestamp: 0 }] };

describe("provider errors over HTTP → pi-ai's errorMessage → Settle's recovery class", () => {
	for (const testCase of fixture.cases) {
		it(`${testCase.name}: ${testCase.class}`, async () => {
			const model = wireModel(testCase.api, server.url);
			server.reply(toReply(testCase));
			const message = (await piAi
				.streamSimple(model as never, context as never, { apiKey: API_KEY, maxRetries: 0 })
				.result()) as AssistantMessage;
			expect(message).toMatchObject({ stopReason: "error", errorMessage: testCase.errorMessage });
			expect(classifyAssistantError(message, model)).toBe(testCase.class);
			expect(parseRequestedRetryDelayMs(message.errorMessage)).toBe(testCase.requestedDelayMs);
		});
	}
});
