/**
 * gpustack#929 (with continuedev/continue#5166): a model set up with an output cap as large as its
 * context window (`maxTokens` 8192 on an 8192-token vLLM model). Every request asks the server for
 * the whole window as answer, so vLLM refuses even "hi": "This model's maximum context length is
 * 8192 tokens. However, you requested 8204 tokens (12 in the messages, 8192 in the completion)".
 * Replayed with a real `settle -p` against a local OpenAI-compatible server that refuses as vLLM
 * does. Settle took the refusal for a context too long and told the user to send the prompt
 * shorter or switch models: no prompt can be shorter than "hi". What the user should see: the
 * refusal named for what it is, the model's `maxTokens` against its window, and what to write in
 * models.json; with that done, the same prompt is answered.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-output-cap-window-");

/**
 * vLLM's check: the prompt (about 4 characters a token) plus the requested output over the window
 * is refused with `refusal(prompt, cap)`; anything else is answered "hello there".
 */
function vllm(window: number, refusal: (prompt: number, cap: number) => string) {
	return startWireServer((request) => {
		const body = request.body as { messages?: unknown; max_tokens?: number; max_completion_tokens?: number };
		const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
		const cap = body.max_completion_tokens ?? body.max_tokens ?? 0;
		if (prompt + cap > window) return openAiError(400, refusal(prompt, cap), "BadRequestError");
		return chatReply([{ type: "text", text: "hello there" }]);
	});
}

/** vLLM's usual refusal of a request over a `window`-token context. */
const overTheWindow = (window: number) => (prompt: number, cap: number) =>
	`This model's maximum context length is ${window} tokens. However, you requested ${prompt + cap} tokens (${prompt} in the messages, ${cap} in the completion). Please reduce the length of the messages or completion.`;

/** `settle --model local/coder -p <prompt>` in the project. */
function askCoder(prompt: string) {
	return runSettleAsync(["--model", "local/coder", "-p", prompt], { cwd: cli.project, agentDir: cli.agentDir });
}

/** With `model` as local/coder's models.json entry, "hi" is answered. */
async function expectAnsweredWith(serverUrl: string, model: Record<string, unknown>): Promise<void> {
	writeLocalProvider(cli.agentDir, `${serverUrl}/v1`, { models: [model] });
	expect(await askCoder("hi")).toMatchObject({ code: 0, stdout: "hello there\n" });
}

describe("gpustack#929, continue#5166: an output cap as large as the context window", () => {
	it("gpustack#929: settle -p hi on a models.json model with contextWindow 8192 and maxTokens 8192: vLLM refuses; stderr names maxTokens against the window and what to set, not a prompt to shorten; with maxTokens 2048 the same prompt is answered", async () => {
		const server = await vllm(8192, overTheWindow(8192));
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "coder", contextWindow: 8192, maxTokens: 8192 }],
			});
			const run = await askCoder("hi");
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain("in the completion");
			expect(run.stderr).toContain(
				'each request asks for up to 8192 tokens of answer (the "maxTokens" of local/coder) in a window of 8192 tokens',
			);
			expect(run.stderr).toContain('Lower its "maxTokens" in models.json');
			expect(run.stderr).toContain("e.g. to 2048");
			expect(run.stderr).not.toContain("send it again shorter");
			// One refusal, nothing retried or summarized.
			expect(server.requests).toHaveLength(1);
			expect(server.requests[0]?.body?.max_completion_tokens ?? server.requests[0]?.body?.max_tokens).toBe(8192);

			await expectAnsweredWith(server.url, { id: "coder", contextWindow: 8192, maxTokens: 2048 });
		} finally {
			await server.close();
		}
	});

	it("gpustack#929: a context that is really too long (a 128k window, a 2048-token cap) keeps the advice to send it shorter", async () => {
		const server = await vllm(3000, overTheWindow(3000));
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "coder", contextWindow: 128_000, maxTokens: 2048 }],
			});
			const run = await askCoder("x".repeat(20_000));
			expect(run.code).toBe(1);
			expect(run.stderr).toContain("send it again shorter");
			expect(run.stderr).not.toContain('"maxTokens"');
		} finally {
			await server.close();
		}
	});
});

describe("Step-Audio-R1#3: the server's window smaller than models.json's", () => {
	it("Step-Audio-R1#3: settle -p hi with maxTokens 64000 and no contextWindow (128000 taken) against vLLM at 16384 ('is too large: 32000 … your request has N input tokens'): stderr names the cap and the server's window, not a prompt to shorten; with both set, the prompt is answered", async () => {
		const server = await vllm(
			16384,
			(prompt, cap) =>
				`'max_tokens' or 'max_completion_tokens' is too large: ${cap}. This model's maximum context length is 16384 tokens and your request has ${prompt} input tokens (${cap} > 16384 - ${prompt}). None`,
		);
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", maxTokens: 64000 }] });
			const run = await askCoder("hi");
			expect(run.code).toBe(1);
			expect(run.stderr).toContain(
				'each request asks for up to 32000 tokens of answer (the "maxTokens" of local/coder) in a window of 16384 tokens',
			);
			expect(run.stderr).toContain(
				'e.g. to 4096, and set its "contextWindow" to 16384, the server\'s (models.json gives 128000)',
			);
			expect(run.stderr).not.toContain("send it again shorter");
			expect(server.requests).toHaveLength(1);

			await expectAnsweredWith(server.url, { id: "coder", maxTokens: 4096, contextWindow: 16384 });
		} finally {
			await server.close();
		}
	});
});
