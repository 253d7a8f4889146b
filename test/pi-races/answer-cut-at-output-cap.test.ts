/**
 * gsd-pi#2157, stella#1079, dreb#240: an answer that stopped at the output token cap
 * (`finish_reason: "length"`, Anthropic `max_tokens`) was shown as a finished one. gsd-pi's turn
 * ended mid-sentence ("Both aud") with nothing saying it was cut; stella and dreb's subagents
 * spent the whole cap thinking and "completed" with no text and no error. pi 0.73.1's `-p` prints
 * the cut text (or an empty line) and exits 0 without a word. What the user should see: the text
 * that arrived, and on stderr that it stopped at the output limit, how many tokens it got, and the
 * setting the cap comes from (the model's `maxTokens` in models.json; a lower thinking level).
 *
 * The chat (`settle -i`) says the same in its notice, with `/thinking` for the level.
 *
 * langchain#33840, litellm#27186: on the OpenAI Responses API the cut answer ends with a
 * `response.incomplete` event (status `incomplete`, `incomplete_details.reason: "max_output_tokens"`),
 * which pi-ai 0.73.1's Responses client does not read: the answer ended as a finished one, its usage
 * 0, and one cut while the model reasoned printed nothing and said only that it held no text.
 *
 * Real `settle -p` and `settle -i` child processes against a local server, through pi-ai's OpenAI and Anthropic clients.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { ENCRYPTED, responsesIncomplete } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-output-cap-");
const server = useWireServer();

const MODELS_JSON = '("modelOverrides" for a built-in provider\'s model)';

describe("gsd-pi#2157, dreb#240: an answer cut at the output token cap read as a finished turn", () => {
	it("gsd-pi#2157: an answer cut mid-sentence at a 64-token cap: stdout holds the text, stderr says it is cut short and names maxTokens in models.json; no compaction, one request", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "coder", contextWindow: 128_000, maxTokens: 64 }],
		});
		server.reply(
			chatReply([{ type: "text", text: "Both explore agents are done. Both aud" }], {
				finishReason: "length",
				usage: { prompt: 900, completion: 64 },
			}),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "audit the repo"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toBe("Both explore agents are done. Both aud\n");
		expect(run.stderr).toBe(
			`Warning: the answer stopped at the output token limit after 64 tokens: it is cut short. The cap comes from the "maxTokens" of local/coder (64): raise it in models.json ${MODELS_JSON}.\n`,
		);
		expect(run.code).toBe(0);
		// Input and cap fit the window: not a full context, so nothing is compacted or sent again.
		expect(server.requests).toHaveLength(1);
	});

	it.each([
		{
			title:
				"dreb#240: a reasoning model spends the whole cap thinking (Anthropic max_tokens, no text): stderr says it stopped before any text and that a lower --thinking level leaves more room",
			api: "anthropic-messages",
			path: "",
			contextWindow: 200_000,
			reply: () =>
				anthropicReply([{ type: "thinking", thinking: "Let me audit every error path first…", signature: "sig" }], {
					stopReason: "max_tokens",
					usage: { input: 630, output: 4096 },
				}),
			capField: "max_tokens",
		},
		{
			title:
				"langchain#33840: GPT-5 cut while it reasoned (`max_output_tokens`): stderr says it stopped at the limit after 4096 tokens before any text, names maxTokens and a lower --thinking level",
			api: "openai-responses",
			path: "/v1",
			contextWindow: 400_000,
			reply: () =>
				responsesIncomplete([{ type: "reasoning", summary: "Audit every error path first…", encrypted: ENCRYPTED }], {
					input: 630,
					output: 4096,
				}),
			capField: "max_output_tokens",
		},
	] as const)("$title", async ({ api, path, contextWindow, reply, capField }) => {
		writeLocalProvider(cli.agentDir, `${server.url}${path}`, {
			api,
			models: [{ id: "coder", reasoning: true, contextWindow, maxTokens: 4096 }],
		});
		server.reply(reply());
		const run = await runSettleAsync(["--model", "local/coder", "--thinking", "high", "-p", "audit the errors"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toBe("");
		expect(run.stderr).toBe(
			`Warning: the answer stopped at the output token limit after 4096 tokens before any text: it is cut short. The cap comes from the "maxTokens" of local/coder (4096): raise it in models.json ${MODELS_JSON}; thinking spends the same tokens: a lower --thinking level leaves more for the answer.\n`,
		);
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(1);
		expect((server.requests[0]!.body as Record<string, unknown>)[capField]).toBe(4096);
	});

	it("gsd-pi#2157: a model whose maxTokens is over 32000: the warning says a request asks for at most 32000, not to raise maxTokens", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "coder", contextWindow: 400_000, maxTokens: 128_000 }],
		});
		server.reply(
			chatReply([{ type: "text", text: "Here is the full file:\n\nexport const a" }], {
				finishReason: "length",
				usage: { prompt: 900, completion: 32_000 },
			}),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "write it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toBe("Here is the full file:\n\nexport const a\n");
		expect(run.stderr).toBe(
			'Warning: the answer stopped at the output token limit after 32000 tokens: it is cut short. The cap comes from the "maxTokens" of local/coder (128000), of which a request asks for at most 32000 (plus a thinking budget): ask for a shorter answer, or one in parts.\n',
		);
		expect(run.code).toBe(0);
	});

	it("dreb#240 in the chat: settle -i's notice for a cut answer names the model's maxTokens, models.json, and /thinking for the level, as -p's warning does", async () => {
		writeLocalProvider(cli.agentDir, server.url, {
			api: "anthropic-messages",
			models: [{ id: "coder", reasoning: true, contextWindow: 200_000, maxTokens: 4096 }],
		});
		server.reply(
			anthropicReply([{ type: "thinking", thinking: "Let me audit every error path first…", signature: "sig" }], {
				stopReason: "max_tokens",
				usage: { input: 630, output: 4096 },
			}),
		);
		const chat = new Repl(["--model", "local/coder", "--thinking", "high"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		const shown = await chat.say("audit the errors", "output token limit");
		expect(shown).toContain(
			`(the answer stopped at the output token limit after 4096 tokens before any text: it is cut short. The cap comes from the "maxTokens" of local/coder (4096): raise it in models.json ${MODELS_JSON}; thinking spends the same tokens: a lower /thinking level leaves more for the answer.)\n`,
		);
		expect(await chat.end()).toBe(0);
		expect(server.requests).toHaveLength(1);
	});
});

describe("langchain#33840: a Responses answer that ended with response.incomplete read as finished", () => {
	it("litellm#27186: an answer cut mid-sentence on the Responses API: stdout holds the text, stderr says it is cut short", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			api: "openai-responses",
			models: [{ id: "coder", contextWindow: 400_000, maxTokens: 64 }],
		});
		server.reply(
			responsesIncomplete([{ type: "message", text: "Both explore agents are done. Both aud" }], {
				input: 900,
				output: 64,
			}),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "audit the repo"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toBe("Both explore agents are done. Both aud\n");
		expect(run.stderr).toBe(
			`Warning: the answer stopped at the output token limit after 64 tokens: it is cut short. The cap comes from the "maxTokens" of local/coder (64): raise it in models.json ${MODELS_JSON}.\n`,
		);
		expect(run.code).toBe(0);
	});
});
