/**
 * pi#4251, kilocode#5528: Kimi (K2.5, K2.6) thinks whatever the reasoning effort, and Moonshot and
 * the gateways in front of it (OpenCode Go) refuse a request whose earlier assistant tool-call
 * messages come back without `reasoning_content`: "400 thinking is enabled but reasoning_content is
 * missing in assistant tool call message at index N", after the first tool call of every session.
 * OpenCode Go streams Kimi's thinking as `delta.reasoning`, which pi-ai 0.73.1 sends back under that
 * name; a call the model made without thinking went back with none. Replayed with real `settle -p`
 * processes, a real `bash` run, and a local server speaking OpenAI Chat Completions that refuses as
 * Moonshot does.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, type RecordedRequest, useWireServer } from "../llm/wire/server.js";

type SentMessage = { role: string; content?: unknown; reasoning_content?: unknown; tool_calls?: unknown[] };

const messagesOf = (request: RecordedRequest) => (request.body as { messages: SentMessage[] }).messages;

/** Moonshot's rule: every assistant message with tool calls carries its `reasoning_content`. */
function missingAt(request: RecordedRequest): number {
	return messagesOf(request).findIndex(
		(message) => message.role === "assistant" && message.tool_calls && typeof message.reasoning_content !== "string",
	);
}

describe("pi#4251: Kimi's reasoning_content on its tool-call turns", () => {
	const cli = useCliProject("settle-kimi-reasoning-");
	const server = useWireServer((request, next) => {
		const at = missingAt(request);
		return at >= 0
			? json(400, {
					error: {
						message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${at}`,
						type: "invalid_request_error",
					},
				})
			: next();
	});

	function writeModels(compat?: Record<string, unknown>): void {
		// An OpenCode-Go-like gateway in models.json, pointed at the local server.
		const gateway = {
			baseUrl: server.url,
			api: "openai-completions",
			apiKey: "OPENCODE_API_KEY",
			models: [{ id: "kimi-k2.6", reasoning: true, contextWindow: 262_144, maxTokens: 65_536, compat }],
		};
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { gateway } }));
	}

	const run = (args: string[]) =>
		runSettleAsync(["--no-session", "--model", "gateway/kimi-k2.6", ...args], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

	it.each([
		{
			title:
				"pi#4251: thinking streamed as `reasoning` goes back as the tool-call turn's reasoning_content; the answer is printed",
			compat: undefined,
		},
		{
			// pi-ai fills an empty reasoning_content beside the thinking it sends back as `reasoning`.
			title:
				"pi#5309: with the models.json workaround `requiresReasoningContentOnAssistantMessages`, the thinking still goes back as reasoning_content, not an empty one",
			compat: { requiresReasoningContentOnAssistantMessages: true },
		},
	])("$title", async ({ compat }) => {
		writeModels(compat);
		server.reply(
			chatReply(
				[
					{ type: "reasoning", text: "I should run echo first.", field: "reasoning" },
					{ type: "tool_call", id: "functions.bash:0", name: "bash", arguments: { command: "echo from-bash" } },
				],
				{ model: "kimi-k2.6", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "bash said from-bash." }], { model: "kimi-k2.6" }),
		);

		const result = await run(["--thinking", "high", "-p", "run echo"]);
		expect(result.stderr).toBe("");
		expect(result.stdout).toBe("bash said from-bash.\n");
		expect(result.code).toBe(0);
		const call = messagesOf(server.requests[1]!).find((message) => message.role === "assistant");
		expect(call).toMatchObject({ reasoning_content: "I should run echo first.", tool_calls: [expect.anything()] });
		expect(call).not.toHaveProperty("reasoning");
	});

	it("kilocode#5528: a tool call Kimi made without thinking, at thinking off, goes back with an empty reasoning_content", async () => {
		writeModels();
		server.reply(
			chatReply(
				[{ type: "tool_call", id: "functions.bash:0", name: "bash", arguments: { command: "echo from-bash" } }],
				{ model: "kimi-k2.6", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "bash said from-bash." }], { model: "kimi-k2.6" }),
		);

		const result = await run(["--thinking", "off", "-p", "run echo"]);
		expect(result.stderr).toBe("");
		expect(result.stdout).toBe("bash said from-bash.\n");
		expect(result.code).toBe(0);
		const call = messagesOf(server.requests[1]!).find((message) => message.role === "assistant");
		expect(call).toMatchObject({ reasoning_content: "", tool_calls: [expect.anything()] });
	});
});
