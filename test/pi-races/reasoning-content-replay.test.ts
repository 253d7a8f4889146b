/**
 * pi#3636: DeepSeek V4 in thinking mode refuses a request whose earlier assistant turns come back
 * without their `reasoning_content` ("400 The `reasoning_content` in the thinking mode must be passed
 * back to the API"); a session on it failed after its first tool call. Replayed with real `settle -p`
 * and `settle -c` processes, a real `bash` run, and a local server speaking OpenAI Chat Completions
 * that refuses such a request as DeepSeek does (the provider is named `deepseek` in `models.json`, as
 * the reporter's was).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, type RecordedRequest, useWireServer } from "../llm/wire/server.js";

type SentMessage = { role: string; content?: unknown; reasoning_content?: string; tool_calls?: unknown[] };

const assistantsOf = (request: RecordedRequest) =>
	(request.body as { messages: SentMessage[] }).messages.filter((message) => message.role === "assistant");

/** DeepSeek's rule in thinking mode: every assistant message carries its `reasoning_content`. */
function refused(request: RecordedRequest): boolean {
	const body = request.body as { thinking?: { type?: string } };
	return (
		body.thinking?.type === "enabled" && assistantsOf(request).some((message) => !("reasoning_content" in message))
	);
}

describe("pi#3636: DeepSeek's reasoning_content, passed back in thinking mode", () => {
	const cli = useCliProject("settle-reasoning-content-");
	const server = useWireServer((request, next) =>
		refused(request)
			? json(400, {
					error: {
						message: "The `reasoning_content` in the thinking mode must be passed back to the API.",
						type: "invalid_request_error",
						param: null,
						code: "invalid_request_error",
					},
				})
			: next(),
	);

	it("pi#3636: after the real bash run and after `settle -c`, each assistant turn goes back with its reasoning_content; both answers are printed", async () => {
		// The reporter's models.json, pointed at the local server.
		const deepseek = {
			baseUrl: server.url,
			api: "openai-completions",
			apiKey: "DEEPSEEK_API_KEY",
			models: [{ id: "deepseek-v4-flash", reasoning: true, contextWindow: 1_000_000, maxTokens: 384_000 }],
		};
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { deepseek } }));
		server.reply(
			chatReply(
				[
					{ type: "reasoning", text: "I should run echo first." },
					{ type: "tool_call", id: "call_00_deepseek", name: "bash", arguments: { command: "echo from-bash" } },
				],
				{ model: "deepseek-v4-flash", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "bash said from-bash." }], { model: "deepseek-v4-flash" }),
			chatReply(
				[
					{ type: "reasoning", text: "Still the same session." },
					{ type: "text", text: "Still here." },
				],
				{ model: "deepseek-v4-flash" },
			),
		);
		const sessionDir = join(cli.dir, "sessions");
		const run = (args: string[]) =>
			runSettleAsync(["--session-dir", sessionDir, "--model", "deepseek/deepseek-v4-flash", ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});

		const first = await run(["--thinking", "high", "-p", "run echo"]);
		expect(first.stderr).toBe("");
		expect(first.stdout).toBe("bash said from-bash.\n");
		expect(first.code).toBe(0);
		expect(server.requests[0]!.body).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "high" });
		expect(assistantsOf(server.requests[1]!)).toEqual([
			expect.objectContaining({ reasoning_content: "I should run echo first.", tool_calls: [expect.anything()] }),
		]);
		expect(JSON.stringify(server.requests[1]!.body)).toContain("from-bash");

		const again = await run(["-c", "-p", "still there?"]);
		expect(again.stderr).toBe("");
		expect(again.stdout).toBe("Still here.\n");
		expect(again.code).toBe(0);
		expect(server.requests).toHaveLength(3);
		expect(server.requests[2]!.body).toMatchObject({ thinking: { type: "enabled" } });
		// The answer that had no reasoning goes back with an empty one, as DeepSeek requires.
		expect(assistantsOf(server.requests[2]!)).toEqual([
			expect.objectContaining({ reasoning_content: "I should run echo first.", tool_calls: [expect.anything()] }),
			expect.objectContaining({ reasoning_content: "", content: "bash said from-bash." }),
		]);
	});
});

/**
 * oh-my-pi#517: GLM-5 on Z.AI looped after a few turns, repeating its actions, its reasoning reset
 * each turn: Z.AI keeps a conversation's thinking only when each assistant turn comes back with its
 * `reasoning_content`. Replayed with a `models.json` provider `zai` at the local server.
 */
describe("oh-my-pi#517: GLM's reasoning_content on every assistant turn", () => {
	const cli = useCliProject("settle-glm-reasoning-content-");
	const server = useWireServer();

	it("oh-my-pi#517: after the real bash run and after `settle -c`, each GLM turn goes back with its reasoning_content", async () => {
		const zai = {
			baseUrl: server.url,
			api: "openai-completions",
			apiKey: "ZAI_API_KEY",
			models: [{ id: "glm-5", reasoning: true, contextWindow: 200_000, maxTokens: 128_000 }],
		};
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { zai } }));
		server.reply(
			chatReply(
				[
					{ type: "reasoning", text: "List the files before editing." },
					{ type: "tool_call", id: "call_glm_1", name: "bash", arguments: { command: "echo from-bash" } },
				],
				{ model: "glm-5", finishReason: "tool_calls" },
			),
			chatReply(
				[
					{ type: "reasoning", text: "The listing is done; report it." },
					{ type: "text", text: "bash said from-bash." },
				],
				{ model: "glm-5" },
			),
			chatReply([{ type: "text", text: "Next step." }], { model: "glm-5" }),
		);
		const sessionDir = join(cli.dir, "sessions");
		const run = (args: string[]) =>
			runSettleAsync(["--session-dir", sessionDir, "--model", "zai/glm-5", ...args], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});

		const first = await run(["--thinking", "high", "-p", "list the files"]);
		expect(first.stdout).toBe("bash said from-bash.\n");
		const again = await run(["-c", "-p", "go on"]);
		expect(again.stdout).toBe("Next step.\n");

		expect(server.requests).toHaveLength(3);
		expect(assistantsOf(server.requests[2]!)).toEqual([
			expect.objectContaining({ reasoning_content: "List the files before editing.", tool_calls: [expect.anything()] }),
			expect.objectContaining({
				reasoning_content: "The listing is done; report it.",
				content: "bash said from-bash.",
			}),
		]);
	});
});
