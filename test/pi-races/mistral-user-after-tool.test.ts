/**
 * zed#37021, datapizza-ai#98, hermes-agent#20154: Mistral's API refuses a user message right after
 * tool results, "Unexpected role 'user' after role 'tool'" (`invalid_request_message_order`), on
 * every later request of the conversation. pi-ai 0.73.1's Mistral client sends a steer delivered
 * after tool results, or the next prompt after a turn that ended at its results, that way (its
 * Chat Completions client bridges the two for a compat flag, its Mistral client never).
 *
 * A session file continued with a real `settle --session <file> -p` through pi-ai's Mistral client
 * (the Mistral SDK) to a local server refusing as Mistral does. What the user should see: the
 * answer; the request holds the result and the steer, an assistant turn between them; the file
 * keeps its messages as they were.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-mistral-user-after-tool-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

type SentMessage = { role: string; content?: unknown };

function assistant(
	content: AssistantMessage["content"],
	stopReason: AssistantMessage["stopReason"],
	api: AssistantMessage["api"] = "mistral-conversations",
) {
	const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	return {
		role: "assistant" as const,
		api,
		provider: "local",
		model: "coder",
		usage: { ...usage, cost },
		timestamp: 2,
		content,
		stopReason,
	};
}

describe("zed#37021: a user message right after tool results, to Mistral", () => {
	it.each([
		{
			title: "a steer delivered after a `bash` result, answered; then `settle --session <file> -p` on Mistral's API",
			provider: { api: "mistral-conversations" },
			api: "mistral-conversations",
		},
		{
			title: "the same on a Mistral model reached over Chat Completions (a gateway; compat.requiresMistralToolIds)",
			provider: { compat: { requiresMistralToolIds: true } },
			api: "openai-completions",
		},
	] as const)(
		"zed#37021: $title: the answer arrives; an assistant turn goes between the result and the steer",
		async ({ provider, api }) => {
			server = await startWireServer((request, next) => {
				const messages = (request.body.messages ?? []) as SentMessage[];
				const at = messages.findIndex((message, i) => message.role === "user" && messages[i - 1]?.role === "tool");
				if (at < 0) return next();
				return openAiError(400, "Unexpected role 'user' after role 'tool'", "invalid_request_message_order", "3230");
			});
			writeLocalProvider(cli.agentDir, server.url, provider);
			const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
			sm.appendMessage({ role: "user", content: "which node version is installed?", timestamp: 1 });
			sm.appendMessage(
				assistant(
					[{ type: "toolCall", id: "AbC123xyZ", name: "bash", arguments: { command: "node --version" } }],
					"toolUse",
					api,
				),
			);
			sm.appendMessage({
				role: "toolResult",
				toolCallId: "AbC123xyZ",
				toolName: "bash",
				content: [{ type: "text", text: "v22.11.0" }],
				isError: false,
				timestamp: 3,
			});
			sm.appendMessage({ role: "user", content: "also check npm", timestamp: 4 });
			sm.appendMessage(assistant([{ type: "text", text: "Node v22.11.0; npm next." }], "stop", api));
			const file = sm.getSessionFile()!;
			sm.close();
			const before = readFileSync(file, "utf8");
			server.reply(chatReply([{ type: "text", text: "Node v22.11.0." }], { model: "coder" }));

			const run = await runSettleAsync(["--session", file, "--model", "local/coder", "-p", "thanks, summarize"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(run.stderr).not.toContain("Unexpected role");
			expect(run.stdout).toContain("Node v22.11.0.");
			expect(run.code).toBe(0);
			const sent = server.requests.at(-1)!.body.messages as SentMessage[];
			expect(sent.map((message) => message.role).filter((role) => role !== "system")).toEqual([
				"user",
				"assistant",
				"tool",
				"assistant",
				"user",
				"assistant",
				"user",
			]);
			expect(JSON.stringify(sent)).toContain("also check npm");
			expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
		},
	);
});
