/**
 * lobehub#13572, cline#10139: a 429 whose `Retry-After` was hours long (a spent quota window,
 * `retry-after: 11180`) was retried as a rate limit: the client either waited it out, silently,
 * then hit the same wall, or clipped it and re-sent inside the cool-down. What the user should see:
 * a wait longer than the transport's cap (`retry.provider.maxRetryDelayMs`, 60 s) is not waited
 * nor retried: one request, the error naming the wait, at once.
 *
 * Settle's session already ended such a wait at once (pi#9595), but the provider clients retry a
 * 429 or 529 themselves before the session sees it, and the OpenAI and Anthropic clients sleep
 * whatever `Retry-After` says: with default settings `settle -p` sat silent for three hours.
 * pi 0.73.1 passes the same clients the same request (its pi-ai and openai 6.26.0; read, not run).
 *
 * Real `settle -p` child processes against a local server through pi-ai's OpenAI and Anthropic
 * clients, default retry settings (the clients' own retries on).
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { type Reply, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-retry-hours-");
const server = useWireServer();

async function askWith(api: "openai-completions" | "anthropic-messages", ...replies: Reply[]) {
	writeLocalProvider(cli.agentDir, api === "openai-completions" ? `${server.url}/v1` : server.url, { api });
	const answer = api === "openai-completions" ? chatReply : anthropicReply;
	server.reply(...replies, answer([{ type: "text", text: "answered" }]));
	return runSettleAsync(["--model", "local/coder", "-p", "hello"], { cwd: cli.project, agentDir: cli.agentDir });
}

const rateLimited = (retryAfter: string) =>
	openAiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", { "retry-after": retryAfter });

describe("lobehub#13572, cline#10139: a Retry-After of hours is retried instead of surfaced", () => {
	it("lobehub#13572: a 429 with `Retry-After: 11180` (3 h): one request, the error naming the wait at once, exit 1", async () => {
		const run = await askWith("openai-completions", rateLimited("11180"), rateLimited("11180"));

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toContain(
			"429 Rate limit reached for requests (the response's retry-after header: retry in 11180s)",
		);
		expect(run.code).toBe(1);
	});

	it("cline#10139: Anthropic's 529 with `retry-after: 600`: one request, the error naming the wait, exit 1", async () => {
		const overloaded = anthropicError(529, "overloaded_error", "Overloaded", { "retry-after": "600" });
		const run = await askWith("anthropic-messages", overloaded, overloaded);

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toContain("(the response's retry-after header: retry in 600s)");
		expect(run.code).toBe(1);
	});

	it("lobehub#13572 (control): a short `Retry-After: 1` is still waited by the client, and the answer arrives", async () => {
		const run = await askWith("openai-completions", rateLimited("1"));

		expect(server.requests).toHaveLength(2);
		expect(run.stdout).toBe("answered\n");
		expect(run.code).toBe(0);
	});
});
