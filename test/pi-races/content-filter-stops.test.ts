/**
 * Answers a provider's content filter stopped, replayed against real `settle -p` child processes on
 * a local server, through pi-ai's OpenAI clients.
 *
 * pi#2168, opencode#31744: Chat Completions ends the stream `finish_reason: "content_filter"`; pi-ai
 * 0.73.1 words it "Provider finish_reason: content_filter" and nothing says what it means or what
 * to do (opencode's turn went idle with nothing shown). What the user should see: the filter named,
 * that sending it again gets the same result, and what to do; one request, exit 1.
 *
 * langchain4j#6181, hermes-agent#55637: on the Responses API a filtered answer ends
 * `response.incomplete` with `incomplete_details.reason: "content_filter"`; read as a cut at the
 * output cap, the user was told to raise the token limit for an answer that never comes.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeFastRetrySettings, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { responsesIncomplete } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-content-filter-");
const server = useWireServer();

const AGAIN = "Sending it again gets the same result: rephrase the request, or switch to another model.";

describe('pi#2168, opencode#31744: a Chat Completions answer stopped `finish_reason: "content_filter"`', () => {
	it("pi#2168: `settle -p` exits 1 naming the content filter and what to do; one request, not retried", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFastRetrySettings(cli.agentDir);
		server.reply(chatReply([{ type: "text", text: "Here is how to" }], { finishReason: "content_filter" }));
		const run = await runSettleAsync(["--model", "local/coder", "-p", "summarize the chapter"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).toContain(
			`The provider's content filter stopped this answer (finish_reason "content_filter"). ${AGAIN}`,
		);
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});
});

describe('langchain4j#6181, hermes-agent#55637: a Responses answer incomplete for "content_filter" read as cut at the cap', () => {
	it("langchain4j#6181: `settle -p` says the content filter stopped it, not the output token limit; exit 1, one request", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			api: "openai-responses",
			models: [{ id: "coder", contextWindow: 400_000, maxTokens: 4096 }],
		});
		writeFastRetrySettings(cli.agentDir);
		server.reply(
			responsesIncomplete([{ type: "message", text: "Here is how to" }], { input: 900, output: 4 }, "content_filter"),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "summarize the chapter"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).toContain(
			`The provider's content filter stopped this answer (OpenAI Responses incomplete_details.reason "content_filter"). ${AGAIN}`,
		);
		expect(run.stderr).not.toContain("output token limit");
		expect(run.stderr).not.toContain("maxTokens");
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});
});
