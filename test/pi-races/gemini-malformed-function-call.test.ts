/**
 * gemini-cli#12674, hermes-agent#83869: Gemini ends an answer `finishReason:
 * "MALFORMED_FUNCTION_CALL"` when the tool call the model wrote could not be parsed (often Python
 * syntax: `print(default_api.read(...))`), with no content. Clients took it for an empty answer or
 * an unexplained failure (Antigravity-Manager#1045: "Response stopped due to malformed function
 * call" on every try); pi-ai 0.73.1 maps it to an error and throws "An unknown error occurred", and
 * pi ends the turn there, the reason and Gemini's `finishMessage` lost, no retry — though the same
 * request usually gets a well-formed call the next time (gemini-cli retries it).
 *
 * Replayed with a real `settle -p` against a local server speaking the Gemini API (the Google GenAI
 * SDK pi-ai uses), the provider declared in `models.json`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { geminiReply, writeGeminiProvider } from "../llm/wire/gemini.js";
import { type Reply, type SseEvent, sse, startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-gemini-malformed-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

const FINISH_MESSAGE = "Malformed function call: print(default_api.bash(command='ls -la'))";

/** Gemini's answer when the model's call did not parse: the finish reason and its message, no parts. */
function malformedCall(): Reply {
	const event: SseEvent = {
		data: {
			candidates: [
				{
					content: { role: "model" },
					finishReason: "MALFORMED_FUNCTION_CALL",
					finishMessage: FINISH_MESSAGE,
					index: 0,
				},
			],
			usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
			modelVersion: "gemini-wire",
		},
	};
	return sse([event]);
}

async function geminiServer(retry: Record<string, unknown>): Promise<WireServer> {
	server = await startWireServer();
	writeGeminiProvider(cli.agentDir, server.url);
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1, ...retry } }));
	return server;
}

function settle(args: string[]) {
	return runSettleAsync(["--session-dir", join(cli.dir, "sessions"), "--model", "gem/gemini-wire", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

describe("gemini-cli#12674: an answer Gemini ends MALFORMED_FUNCTION_CALL", () => {
	it("gemini-cli#12674: the request is sent again; the well-formed call of the next answer runs and the answer after it is printed", async () => {
		const wire = await geminiServer({});
		wire.reply(
			malformedCall(),
			geminiReply([{ functionCall: { name: "bash", args: { command: "echo listed" } } }], "gemini-wire"),
			geminiReply([{ text: "The folder is listed." }], "gemini-wire"),
		);
		const run = await settle(["-p", "list the folder"]);
		// One retry, said why on stderr: the reason and Gemini's own message.
		expect(run.stderr.trim().split("\n")).toEqual([
			expect.stringMatching(/^Retrying in .*attempt 1\/3: .*MALFORMED_FUNCTION_CALL/),
		]);
		expect(run.stderr).toContain(FINISH_MESSAGE);
		expect(run.stdout).toBe("The folder is listed.\n");
		expect(run.code).toBe(0);
		expect(wire.requests).toHaveLength(3);
		const parts = (wire.requests[2]!.body.contents as { parts: { functionResponse?: unknown }[] }[]).flatMap(
			(content) => content.parts,
		);
		expect(parts.find((part) => part.functionResponse)).toMatchObject({
			functionResponse: { name: "bash", response: { output: "listed\n" } },
		});
	});

	it("hermes-agent#83869: with retries spent, the run fails naming the finish reason and Gemini's own message, exit 1", async () => {
		const wire = await geminiServer({ maxRetries: 1 });
		wire.reply(malformedCall(), malformedCall());
		const run = await settle(["-p", "list the folder"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("MALFORMED_FUNCTION_CALL");
		expect(run.stderr).toContain(FINISH_MESSAGE);
		expect(run.stderr).not.toContain("An unknown error occurred");
		expect(wire.requests).toHaveLength(2);
	});
});

/** Gemini's answer stopped for what it said: the reason, and the ratings that blocked it. */
function policyStop(reason: string, finishMessage?: string): Reply {
	const event: SseEvent = {
		data: {
			candidates: [
				{
					content: { role: "model", parts: [{ text: "Here is how" }] },
					finishReason: reason,
					...(finishMessage ? { finishMessage } : {}),
					safetyRatings: [
						{ category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
						{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
					],
					index: 0,
				},
			],
			usageMetadata: { promptTokenCount: 10, totalTokenCount: 12 },
			modelVersion: "gemini-wire",
		},
	};
	return sse([event]);
}

describe("an answer Gemini stops for its content (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII)", () => {
	it("the run fails once, naming the reason, Gemini's message and the rating that blocked it, not retried", async () => {
		const wire = await geminiServer({});
		wire.reply(policyStop("SAFETY", "The answer was blocked."), geminiReply([{ text: "unused" }], "gemini-wire"));
		const run = await settle(["-p", "explain it"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			"Gemini stopped the answer: SAFETY: The answer was blocked. (safety ratings: DANGEROUS_CONTENT: HIGH (blocked))",
		);
		expect(run.stderr).not.toContain("An unknown error occurred");
		expect(run.stderr).not.toContain("Retrying");
		expect(wire.requests).toHaveLength(1);
	});

	it.each([
		["IMAGE_SAFETY", "Gemini stopped the answer: IMAGE_SAFETY (safety ratings:"],
		["UNEXPECTED_TOOL_CALL", "Gemini ended the answer: finishReason UNEXPECTED_TOOL_CALL."],
	])("%s, which pi-ai also reports as 'An unknown error occurred', is named, not retried", async (reason, named) => {
		const wire = await geminiServer({});
		wire.reply(policyStop(reason), geminiReply([{ text: "unused" }], "gemini-wire"));
		const run = await settle(["-p", "draw it"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(named);
		expect(run.stderr).not.toContain("An unknown error occurred");
		expect(wire.requests).toHaveLength(1);
	});

	it("RECITATION without a message is named too", async () => {
		const wire = await geminiServer({});
		wire.reply(policyStop("RECITATION"), geminiReply([{ text: "unused" }], "gemini-wire"));
		const run = await settle(["-p", "quote it"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("Gemini stopped the answer: RECITATION (safety ratings:");
		expect(wire.requests).toHaveLength(1);
	});
});

/** Gemini's answer to a prompt it blocked: no candidates, only `promptFeedback` (Vertex adds a message). */
function blockedPrompt(reason: string, blockReasonMessage?: string): Reply {
	const event: SseEvent = {
		data: {
			promptFeedback: {
				blockReason: reason,
				...(blockReasonMessage ? { blockReasonMessage } : {}),
				safetyRatings: [
					{ category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
					{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH" },
				],
			},
			usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
			modelVersion: "gemini-wire",
		},
	};
	return sse([event]);
}

describe("a prompt Gemini blocks before any answer (promptFeedback.blockReason, no candidates)", () => {
	it("the run fails once naming the block reason and the rating above LOW, not an empty answer, not retried", async () => {
		const wire = await geminiServer({});
		wire.reply(blockedPrompt("SAFETY"), geminiReply([{ text: "unused" }], "gemini-wire"));
		const run = await settle(["-p", "explain it"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("Gemini blocked the prompt: SAFETY (safety ratings: DANGEROUS_CONTENT: HIGH)");
		expect(run.stderr).not.toContain("An unknown error occurred");
		expect(run.stderr).not.toContain("Retrying");
		expect(wire.requests).toHaveLength(1);
	});

	it("Vertex's blockReasonMessage is named with the reason (PROHIBITED_CONTENT)", async () => {
		const wire = await geminiServer({});
		wire.reply(blockedPrompt("PROHIBITED_CONTENT", "The prompt was blocked due to prohibited content."));
		const run = await settle(["-p", "explain it"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			"Gemini blocked the prompt: PROHIBITED_CONTENT: The prompt was blocked due to prohibited content.",
		);
		expect(wire.requests).toHaveLength(1);
	});
});

/**
 * Gemini's `finishMessage` / `blockReasonMessage` is free text: one that reads as transient ("The
 * request was terminated", "try again later", "timeout") made the retry classifier send a blocked
 * request again (and again), to be blocked the same way. The finish reason decides, not the text.
 */
describe("a non-answer whose Gemini message reads as transient", () => {
	it.each([
		["SAFETY", "The request was terminated.", "Gemini stopped the answer: SAFETY: The request was terminated."],
		[
			"OTHER",
			"Model overloaded, try again later",
			"Gemini ended the answer: finishReason OTHER: Model overloaded, try again later.",
		],
	])("regression: %s with the message %j fails once, not retried (was: retried)", async (reason, message, named) => {
		const wire = await geminiServer({ maxRetries: 2 });
		wire.reply(policyStop(reason, message), policyStop(reason, message), policyStop(reason, message));
		const run = await settle(["-p", "explain it"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(named);
		expect(run.stderr).not.toContain("Retrying");
		expect(wire.requests).toHaveLength(1);
	});

	it("regression: a blocked prompt whose blockReasonMessage names a timeout fails once, not retried (was: retried)", async () => {
		const wire = await geminiServer({ maxRetries: 2 });
		const blocked = blockedPrompt("OTHER", "Blocked: upstream request timeout while checking the prompt");
		wire.reply(blocked, blockedPrompt("OTHER"), blockedPrompt("OTHER"));
		const run = await settle(["-p", "explain it"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			"Gemini blocked the prompt: OTHER: Blocked: upstream request timeout while checking the prompt",
		);
		expect(run.stderr).not.toContain("Retrying");
		expect(wire.requests).toHaveLength(1);
	});
});
