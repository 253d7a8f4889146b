/**
 * opencode#1735, openclaude#331, colibri#260: a custom OpenAI-compatible provider whose server takes
 * a smaller output cap than the one asked for. The request's `max_tokens` comes from the model's
 * `maxTokens` (at most 32000 a request; 16384 when models.json gives none), the server refuses it on
 * every prompt ("max_tokens is too large: 32000. This model supports at most 16384 completion
 * tokens", "expected a value <= 12288", "must be an integer between 1 and 1024"), and users saw the
 * refusal alone, with nothing naming the setting that sets the cap. Replayed with real `settle -p`
 * processes against a local server that refuses as those servers word it. What the user should
 * see: the refusal, what was asked for and where it comes from, and the `maxTokens` to write; with
 * that written, the same prompt is answered.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-output-cap-limit-");

/** A server that refuses a cap over `limit` with `refusal(cap)` and answers any other request. */
function cappedServer(limit: number, refusal: (cap: number) => string) {
	return startWireServer((request) => {
		const body = request.body as { max_tokens?: number; max_completion_tokens?: number };
		const cap = body.max_completion_tokens ?? body.max_tokens ?? 0;
		if (cap > limit) return openAiError(400, refusal(cap), "invalid_request_error");
		return chatReply([{ type: "text", text: "hello there" }]);
	});
}

async function settleHi() {
	return runSettleAsync(["--model", "local/coder", "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("opencode#1735, openclaude#331, colibri#260: an output cap over what the server takes", () => {
	it("opencode#1735: maxTokens 64000 (32000 asked) against a 16384 limit: stderr names the cap asked, the model's maxTokens and the value to set; with it set, the prompt is answered", async () => {
		const server = await cappedServer(
			16384,
			(cap) =>
				`max_tokens is too large: ${cap}. This model supports at most 16384 completion tokens, whereas you provided ${cap}.`,
		);
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", maxTokens: 64000 }] });
			const run = await settleHi();
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain("max_tokens is too large: 32000");
			expect(run.stderr).toContain(
				'local/coder asked for up to 32000 tokens of answer (its "maxTokens" is 64000); the server takes at most 16384. Set "maxTokens": 16384 for coder in models.json',
			);
			// A value to lower, not a field to stop sending.
			expect(run.stderr).not.toContain('"maxTokensField"');
			expect(server.requests).toHaveLength(1);

			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", maxTokens: 16384 }] });
			expect(await settleHi()).toMatchObject({ code: 0, stdout: "hello there\n" });
		} finally {
			await server.close();
		}
	});

	it("openclaude#331: Volcengine's wording ('expected a value <= 12288, but got 32000') gets the same note", async () => {
		const server = await cappedServer(
			12288,
			(cap) =>
				`The parameter \`max_completion_tokens\` specified in the request are not valid: integer above maximum value, expected a value <= 12288, but got ${cap} instead.`,
		);
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", maxTokens: 32000 }] });
			const run = await settleHi();
			expect(run.code).toBe(1);
			expect(run.stderr).toContain('the server takes at most 12288. Set "maxTokens": 12288 for coder in models.json');
		} finally {
			await server.close();
		}
	});

	it("colibri#260: a model with no maxTokens in models.json (16384 asked) against a local server capped at 1024: the note names the default and 1024; with it set, the prompt is answered", async () => {
		const server = await cappedServer(1024, () => "`max_tokens` must be an integer between 1 and 1024.");
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			const run = await settleHi();
			expect(run.code).toBe(1);
			expect(run.stderr).toContain(
				'local/coder asked for up to 16384 tokens of answer (its "maxTokens" is 16384); the server takes at most 1024. Set "maxTokens": 1024 for coder in models.json',
			);

			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", maxTokens: 1024 }] });
			expect(await settleHi()).toMatchObject({ code: 0, stdout: "hello there\n" });
		} finally {
			await server.close();
		}
	});
});
