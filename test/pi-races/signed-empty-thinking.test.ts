/**
 * pi#6376, pi#4003: Claude's newer models (thinking display "omitted") and DeepSeek's Anthropic
 * endpoint answer with a thinking block that has a signature and no text. pi-ai 0.73.1 left such a
 * block out of the next request, so after a tool call the API refused it ("a final assistant message
 * must start with a thinking block"), on every try. Replayed with real `settle -p` and `settle -c`
 * processes, a real `bash` run, and a local server speaking the Anthropic Messages API that refuses
 * such a request as Anthropic does.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { type RecordedRequest, useWireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

type SentBlock = { type: string; thinking?: string; signature?: string };
type SentMessage = { role: string; content: SentBlock[] | string };

const blocksOf = (message: SentMessage) => (typeof message.content === "string" ? [] : message.content);

/**
 * Anthropic's rule: with thinking on, the final assistant message, when the request continues its
 * tool calls (their results come last), starts with its thinking block.
 */
function refusedTurn(request: RecordedRequest): number | undefined {
	const body = request.body as { thinking?: { type?: string }; messages: SentMessage[] };
	if (body.thinking?.type !== "enabled") return undefined;
	const index = body.messages.findLastIndex((message) => message.role === "assistant");
	const final = body.messages[index];
	const continued = blocksOf(body.messages.at(-1)!).some((block) => block.type === "tool_result");
	if (!final || !continued || !blocksOf(final).some((block) => block.type === "tool_use")) return undefined;
	return blocksOf(final)[0]?.type === "thinking" ? undefined : index;
}

describe("pi#6376, pi#4003: a signed thinking block without text, before a tool call", () => {
	const cli = useCliProject("settle-signed-empty-thinking-");
	const server = useWireServer((request, next) => {
		const index = refusedTurn(request);
		if (index === undefined) return next();
		return anthropicError(
			400,
			"invalid_request_error",
			`messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`,
		);
	});

	it("pi#6376: the block goes back unchanged with its signature after the real bash run, and again after `settle -c`; another model gets neither; each answer is printed", async () => {
		writeLocalProvider(cli.agentDir, server.url, {
			api: "anthropic-messages",
			models: [
				{ id: "claude-omitted", reasoning: true },
				{ id: "claude-other", reasoning: true },
			],
		});
		const signed = { type: "thinking" as const, thinking: "", signature: "EqQBCkgIBhABGAIiQOmitted" };
		server.reply(
			anthropicReply(
				[signed, { type: "tool_use", id: "toolu_01Omitted", name: "bash", input: { command: "echo from-bash" } }],
				{ model: "claude-omitted", stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "bash said from-bash." }], { model: "claude-omitted" }),
			anthropicReply([{ type: "text", text: "Still here." }], { model: "claude-omitted" }),
			anthropicReply([{ type: "text", text: "Other model here." }], { model: "claude-other" }),
		);
		const sessionDir = join(cli.dir, "sessions");

		const first = await runSettleAsync(["--session-dir", sessionDir, "--thinking", "high", "-p", "run echo"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(first.stderr).toBe("");
		expect(first.stdout).toBe("bash said from-bash.\n");
		expect(first.code).toBe(0);
		const replayed = { type: "thinking", thinking: "", signature: signed.signature };
		const toolTurn = (index: number) =>
			(server.requests[index]!.body as { messages: SentMessage[] }).messages.filter(
				(message) => message.role === "assistant" && blocksOf(message).some((block) => block.type === "tool_use"),
			);
		expect(toolTurn(1).map(blocksOf)).toEqual([[replayed, expect.objectContaining({ type: "tool_use" })]]);
		const toolResult = JSON.stringify(server.requests[1]!.body);
		expect(toolResult).toContain("from-bash");

		const [file] = sessionFilesUnder(cli.dir);
		const saved = readFileSync(file!, "utf8");
		expect(saved).toContain(`"thinking":"","thinkingSignature":"${signed.signature}"`);

		const again = await runSettleAsync(["--session-dir", sessionDir, "-c", "-p", "still there?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(again.stderr).toBe("");
		expect(again.stdout).toBe("Still here.\n");
		expect(again.code).toBe(0);
		expect(server.requests).toHaveLength(3);
		expect(toolTurn(2).map(blocksOf)).toEqual([[replayed, expect.objectContaining({ type: "tool_use" })]]);

		// Another model cannot check the signature: the block (it has no text to keep) is left out.
		const other = await runSettleAsync(
			["--session-dir", sessionDir, "-c", "--model", "local/claude-other", "-p", "and you?"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(other.stdout).toBe("Other model here.\n");
		expect(other.code).toBe(0);
		expect(server.requests).toHaveLength(4);
		expect(toolTurn(3).map(blocksOf)).toEqual([[expect.objectContaining({ type: "tool_use" })]]);
		expect(JSON.stringify(server.requests[3]!.body)).not.toContain(signed.signature);
		expect(JSON.stringify(server.requests[3]!.body)).not.toContain("\u2063");
	});
});
