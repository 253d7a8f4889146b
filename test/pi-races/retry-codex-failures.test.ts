/**
 * Failures the Codex backend sends inside an accepted stream, replayed through pi-ai's openai-codex
 * client against a local server (real `settle -p` child processes). pi-ai keeps only the
 * `response.failed` message and drops its code, so what the session reads is the message alone.
 *
 * codex#6761 (claude-relay-service#445): at busy hours the Codex stream failed with "We're
 * currently experiencing high demand, which may cause temporary errors." (code
 * `server_is_overloaded`); "It should automatically retry though, no?". What the user should see:
 * the request sent again after the backoff, and the answer.
 *
 * nanobot#5454: a `server_error` that fails the response after part of the answer streamed was not
 * retried because content had already arrived. What the user should see: the same retry, the
 * answer printed once.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { responsesEvents, responsesFailed, responsesReply } from "../llm/wire/responses.js";
import { sse, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-retry-codex-");
const server = useWireServer();

/** nanobot#5454's message, its request id left out. */
const SERVER_ERROR =
	"An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists.";
const HIGH_DEMAND = "We're currently experiencing high demand, which may cause temporary errors.";

/** A ChatGPT sign-in token as the Codex client reads it: the account id in its payload. */
function codexToken(): string {
	const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
	return `${part({ alg: "none" })}.${part({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_wire" } })}.sig`;
}

/** `settle --mode json -p <prompt>` on a local openai-codex provider, SSE transport, a 1 ms backoff. */
async function settleCodex(prompt: string, retry: Record<string, unknown> = {}) {
	writeLocalProvider(cli.agentDir, server.url, {
		api: "openai-codex-responses",
		apiKey: codexToken(),
		models: [{ id: "coder" }],
	});
	writeFileSync(
		join(cli.agentDir, "settings.json"),
		JSON.stringify({ transport: "sse", retry: { baseDelayMs: 1, provider: { maxRetries: 0 }, ...retry } }),
	);
	const run = await runSettleAsync(["--model", "local/coder", "--mode", "json", "-p", prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const events = run.stdout
		.split("\n")
		.filter((line) => line.startsWith("{"))
		.map((line) => JSON.parse(line) as Record<string, unknown>);
	return { ...run, events };
}

const ofType = (events: Record<string, unknown>[], type: string) => events.filter((event) => event.type === type);

describe('codex#6761: the Codex stream fails with "experiencing high demand"', () => {
	it("codex#6761: retried after the backoff and answered, exit 0; the retry event carries the provider's words", async () => {
		server.reply(
			responsesFailed("server_is_overloaded", HIGH_DEMAND),
			responsesReply([{ type: "message", text: "Done." }]),
		);
		const run = await settleCodex("fix the build");

		expect(run.code).toBe(0);
		expect(server.requests.map((request) => request.path)).toEqual(["/codex/responses", "/codex/responses"]);
		expect(ofType(run.events, "auto_retry_start")).toEqual([
			expect.objectContaining({ attempt: 1, errorMessage: HIGH_DEMAND }),
		]);
		expect(ofType(run.events, "auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
		expect(run.events.at(-1)).toEqual({ type: "agent_settled" });
	});

	it("codex#6761: still busy after `retry.maxRetries` (1): two requests, the failed retry ends with the provider's words, exit 1", async () => {
		server.reply(
			responsesFailed("server_is_overloaded", HIGH_DEMAND),
			responsesFailed("server_is_overloaded", HIGH_DEMAND),
		);
		const run = await settleCodex("fix the build", { maxRetries: 1 });

		expect(server.requests).toHaveLength(2);
		expect(run.code).toBe(1);
		expect(ofType(run.events, "auto_retry_end")).toEqual([
			expect.objectContaining({ success: false, finalError: HIGH_DEMAND }),
		]);
	});
});

describe("nanobot#5454: a server_error after part of the answer streamed", () => {
	it("nanobot#5454: retried though text had arrived; answered, exit 0, and the retry's request holds none of the cut text", async () => {
		const partial = responsesEvents([{ type: "message", text: "Half of the plan" }]).slice(0, -1);
		server.reply(
			sse([
				...partial,
				{
					event: "response.failed",
					data: {
						type: "response.failed",
						response: {
							id: "resp_wire1",
							status: "failed",
							output: [],
							error: { code: "server_error", message: SERVER_ERROR },
						},
					},
				},
			]),
			responsesReply([{ type: "message", text: "The whole plan." }]),
		);
		const run = await settleCodex("write the plan");

		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(2);
		expect(JSON.stringify(server.requests[1]!.body.input)).not.toContain("Half of the plan");
		expect(ofType(run.events, "auto_retry_end")).toEqual([expect.objectContaining({ success: true })]);
	});
});
