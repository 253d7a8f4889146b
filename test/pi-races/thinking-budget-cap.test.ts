/**
 * agent-afk#951, litellm#9001, opencode-claude-auth#143: a model whose output cap is too small for
 * extended thinking (a custom model's `maxTokens` of 1024, a proxy's cap) sent `budget_tokens` at or
 * over `max_tokens`; Anthropic refused every turn ("`max_tokens` must be greater than
 * `thinking.budget_tokens`", or a budget under its 1024 minimum) and nothing said which setting to
 * change. pi-ai fits the budget under the model's `maxTokens`: under 2048 there is no room for the
 * minimum budget and an answer. What the user should see: the provider's refusal, then which
 * setting causes it and the two ways out; and with thinking off, the answer.
 *
 * Real `settle -p` child processes against a local server answering through pi-ai's Anthropic client.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-thinking-budget-cap-");
const server = useWireServer();

const NOT_GREATER =
	"`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size";

function note(maxTokens: number): string {
	return `The "maxTokens" of local/coder (${maxTokens}) is too small for thinking: Anthropic needs a thinking budget of at least 1024 tokens and max_tokens above it. Raise it to 2048 or more in models.json ("modelOverrides" for a built-in provider's model), or turn thinking off (--thinking off).`;
}

function ask(maxTokens: number, thinking: string) {
	writeLocalProvider(cli.agentDir, server.url, {
		api: "anthropic-messages",
		models: [{ id: "coder", reasoning: true, contextWindow: 200_000, maxTokens }],
	});
	return runSettleAsync(["--model", "local/coder", "--thinking", thinking, "-p", "hello"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

const sent = (index: number) =>
	server.requests[index]!.body as { max_tokens: number; thinking?: { type: string; budget_tokens?: number } };

describe("agent-afk#951: a cap too small for thinking refused every turn with no hint", () => {
	it("agent-afk#951: maxTokens 1024 with --thinking high: budget_tokens 1024 = max_tokens, refused 400; stderr adds the maxTokens note, exit 1, not retried", async () => {
		server.reply(anthropicError(400, "invalid_request_error", NOT_GREATER));
		const run = await ask(1024, "high");

		expect(sent(0).max_tokens).toBe(1024);
		expect(sent(0).thinking).toMatchObject({ type: "enabled", budget_tokens: 1024 });
		expect(run.stderr).toContain(NOT_GREATER);
		expect(run.stderr.endsWith(`\n\n${note(1024)}\n`)).toBe(true);
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});

	it("litellm#9001: maxTokens 1500: a budget under Anthropic's 1024 minimum, refused; the same note; with --thinking off the same model answers", async () => {
		server.reply(
			anthropicError(
				400,
				"invalid_request_error",
				"thinking.budget_tokens: Input should be greater than or equal to 1024",
			),
		);
		const refused = await ask(1500, "medium");
		expect(sent(0).thinking?.budget_tokens).toBe(476);
		expect(refused.stderr.endsWith(`\n\n${note(1500)}\n`)).toBe(true);
		expect(refused.code).toBe(1);

		server.reply(anthropicReply([{ type: "text", text: "hi" }]));
		const off = await ask(1500, "off");
		expect(sent(1).thinking).toEqual({ type: "disabled" });
		expect(off).toMatchObject({ code: 0, stdout: "hi\n", stderr: "" });
	});

	it("agent-afk#951: a cap large enough (8192) refused for another budget reason gets no maxTokens note: the note names only the cause it knows", async () => {
		server.reply(anthropicError(400, "invalid_request_error", NOT_GREATER));
		const run = await ask(8192, "high");

		expect(sent(0).thinking!.budget_tokens!).toBeLessThan(sent(0).max_tokens);
		expect(run.stderr).toContain(NOT_GREATER);
		expect(run.stderr).not.toContain('"maxTokens"');
	});
});
