/**
 * anthropic-sdk-python#494, bedrock-access-gateway#239: a conversation whose model called tools,
 * continued with no tools offered (tools turned off for a plain answer, a summary): Anthropic
 * refuses the request, "Requests which include tool_use or tool_result blocks must define tools",
 * and Bedrock "The toolConfig field must be defined when using toolUse and toolResult content
 * blocks". pi-ai 0.73.1 sends the calls and results as they are and leaves `tools` out.
 *
 * Here a session whose Claude answer ran `bash`, continued with a real `settle --session <file>
 * --no-tools -p` on a local Anthropic-style server that refuses as Anthropic does, and on a local
 * Bedrock runtime endpoint (the AWS SDK pi-ai uses, over HTTP/2). What the user
 * should see: the answer, the model told what was called and what it returned; the file keeps the
 * call and its result as they were.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { bedrockAnswer, startBedrockServer } from "../llm/wire/bedrock.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-tool-history-no-tools-");
let server: WireServer | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
	await server?.close();
	server = undefined;
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

type SentBlock = { type: string; text?: string };
type SentMessage = { role: string; content: SentBlock[] | string };

const CALL_ID = "toolu_01A09q90qw90lq917835lq9";
const NPM_CALL_ID = "toolu_01B7zX2kq0Wd9mR3pLk8sT4v";

/** A session file as Claude left it: two `bash` calls in one answer, their results, the answer. */
function claudeSessionWithToolCall(): string {
	const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
	const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	const assistant = { api: "anthropic-messages" as const, provider: "anthropic", model: "claude-sonnet-4-5" };
	sm.appendMessage({ role: "user", content: "which node version is installed?", timestamp: 1 });
	sm.appendMessage({
		role: "assistant",
		...assistant,
		usage: { ...usage, cost },
		timestamp: 2,
		content: [
			{ type: "toolCall", id: CALL_ID, name: "bash", arguments: { command: "node --version" } },
			{ type: "toolCall", id: NPM_CALL_ID, name: "bash", arguments: { command: "npm --version" } },
		],
		stopReason: "toolUse",
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: CALL_ID,
		toolName: "bash",
		content: [{ type: "text", text: "v22.11.0" }],
		isError: false,
		timestamp: 3,
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: NPM_CALL_ID,
		toolName: "bash",
		content: [{ type: "text", text: "10.9.0" }],
		isError: false,
		timestamp: 3,
	});
	sm.appendMessage({
		role: "assistant",
		...assistant,
		usage: { ...usage, cost },
		timestamp: 4,
		content: [{ type: "text", text: "Node v22.11.0, npm 10.9.0." }],
		stopReason: "stop",
	});
	const file = sm.getSessionFile()!;
	sm.close();
	return file;
}

describe("anthropic-sdk-python#494: tools turned off after the model called one", () => {
	it("anthropic-sdk-python#494: `settle --session <file> --no-tools -p` after a Claude bash call: the request defines no tools and holds no tool_use, the model reads the call and its output as text, the answer arrives; the file keeps the call", async () => {
		server = await startWireServer((request, next) => {
			const messages = request.body.messages as SentMessage[];
			const toolBlocks = messages.some(
				(message) =>
					typeof message.content !== "string" &&
					message.content.some((block) => block.type === "tool_use" || block.type === "tool_result"),
			);
			const tools = request.body.tools as unknown[] | undefined;
			if (toolBlocks && !tools?.length) {
				return anthropicError(
					400,
					"invalid_request_error",
					"Requests which include `tool_use` or `tool_result` blocks must define tools.",
				);
			}
			return next();
		});
		writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
		const file = claudeSessionWithToolCall();
		const before = readFileSync(file, "utf8");
		server.reply(
			anthropicReply([{ type: "text", text: "You have Node v22.11.0; no tools needed." }], { model: "coder" }),
		);

		const run = await runSettleAsync(
			["--session", file, "--model", "local/coder", "--no-tools", "-p", "summarize what we found"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.stderr).not.toContain("must define tools");
		expect(run.stdout).toContain("You have Node v22.11.0; no tools needed.");
		expect(run.code).toBe(0);

		const sent = server.requests.at(-1)!.body as { tools?: unknown[]; messages: SentMessage[] };
		expect(sent.tools ?? []).toEqual([]);
		const texts = JSON.stringify(sent.messages);
		expect(texts).toContain("node --version");
		expect(texts).toContain("v22.11.0");
		expect(texts).toContain("10.9.0");
		expect(sent.messages.at(-1)).toMatchObject({ role: "user" });
		// Roles still alternate: both outputs went with the user's side, in one message.
		const roles = sent.messages.map((message) => message.role);
		expect(roles.every((role, i) => i === 0 || role !== roles[i - 1])).toBe(true);

		const after = readFileSync(file, "utf8");
		expect(after.startsWith(before)).toBe(true);
		expect(after).toContain(`"toolCallId":"${CALL_ID}"`);
	});
});

describe("bedrock-access-gateway#239: Bedrock with no tools offered after tool calls", () => {
	it("bedrock-access-gateway#239: `settle --session <file> --no-tools -p` on Bedrock after a Claude bash call: no toolUse or toolResult block goes without a toolConfig, the call and its output go as text, the answer arrives", async () => {
		const bedrock = await startBedrockServer();
		cleanups.push(() => bedrock.close());
		const file = claudeSessionWithToolCall();
		bedrock.reply(bedrockAnswer("You have Node v22.11.0."));
		const awsCleared = Object.fromEntries(
			Object.keys(process.env)
				.filter((name) => name.startsWith("AWS_"))
				.map((name) => [name, undefined]),
		);
		const run = await runSettleAsync(
			[
				"--session",
				file,
				"--model",
				"amazon-bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
				"--no-tools",
				"-p",
				"summarize what we found",
			],
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
				env: {
					...awsCleared,
					HOME: cli.dir,
					AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
					AWS_ACCESS_KEY_ID: "AKIAOK",
					AWS_SECRET_ACCESS_KEY: "fake",
					AWS_REGION: "us-west-2",
				},
			},
		);
		expect(run.stdout).toContain("You have Node v22.11.0.");
		expect(run.code).toBe(0);
		const sent = bedrock.requests.at(-1)!.body as {
			toolConfig?: unknown;
			messages: { role: string; content: object[] }[];
		};
		expect(sent.toolConfig).toBeUndefined();
		const blocks = sent.messages.flatMap((message) => message.content);
		expect(blocks.filter((block) => "toolUse" in block || "toolResult" in block)).toEqual([]);
		expect(JSON.stringify(sent.messages)).toContain("node --version");
		expect(JSON.stringify(sent.messages)).toContain("v22.11.0");
		const roles = sent.messages.map((message) => message.role);
		expect(roles.every((role, i) => i === 0 || role !== roles[i - 1])).toBe(true);
	});
});
