/**
 * anything-llm#6099, llama_index#21075: vLLM 0.9 and later stream a reasoning model's thinking as
 * `delta.reasoning` (no longer `reasoning_content`); clients that read only `reasoning_content`
 * dropped it, and the thinking panel stayed empty. Replayed with a real `settle --mode json -p`
 * process and pi-ai's Chat Completions client against a local server streaming as vLLM does
 * (`--reasoning-parser qwen3`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

describe("anything-llm#6099: vLLM's thinking in `delta.reasoning`", () => {
	const cli = useCliProject("settle-vllm-reasoning-");
	const server = useWireServer();

	it("anything-llm#6099: the thinking streams as thinking deltas, the answer as text, and the session file keeps both", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "Qwen/Qwen3.6-35B-A3B", reasoning: true, contextWindow: 131_072, maxTokens: 8192 }],
		});
		server.reply(
			chatReply(
				[
					{ type: "reasoning", text: "The user greets me; answer briefly.", field: "reasoning" },
					{ type: "text", text: "Hello!" },
				],
				{ model: "Qwen/Qwen3.6-35B-A3B" },
			),
		);
		const sessions = join(cli.dir, "sessions");
		const run = await runSettleAsync(
			["--session-dir", sessions, "--model", "local/Qwen/Qwen3.6-35B-A3B", "--mode", "json", "-p", "hi"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);

		expect(run.code).toBe(0);
		const events = run.stdout
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as { type: string; assistantMessageEvent?: { type: string; delta?: string } });
		const deltas = (kind: string) =>
			events
				.filter((event) => event.type === "message_update" && event.assistantMessageEvent?.type === kind)
				.map((event) => event.assistantMessageEvent!.delta)
				.join("");
		expect(deltas("thinking_delta")).toBe("The user greets me; answer briefly.");
		expect(deltas("text_delta")).toBe("Hello!");

		const [file] = readdirSync(sessions, { recursive: true }).filter((name) => String(name).endsWith(".jsonl"));
		const saved = readFileSync(join(sessions, String(file)), "utf8");
		expect(saved).toContain('"thinking":"The user greets me; answer briefly."');
	});
});
