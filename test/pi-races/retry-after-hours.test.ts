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
 * Real `settle -p` and `settle -i` child processes against a local server through pi-ai's OpenAI
 * and Anthropic clients, default retry settings unless a test says (the clients' own retries on).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
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
		expect(run.stderr).toContain("Not retried: the provider asks to wait 3h 6m 20s, longer than retry.maxAgentDelayMs");
		expect(run.code).toBe(1);
	});

	it("cline#10139: Anthropic's 529 with `retry-after: 600`: one request, the error naming the wait, exit 1", async () => {
		const overloaded = anthropicError(529, "overloaded_error", "Overloaded", { "retry-after": "600" });
		const run = await askWith("anthropic-messages", overloaded, overloaded);

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toContain("(the response's retry-after header: retry in 600s)");
		expect(run.code).toBe(1);
	});

	it("lobehub#13572 (control): `retry.provider.maxRetryDelayMs: 0` turns the client's cap off, as pi-ai documents: `Retry-After: 1` is the client's to wait, silently", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { provider: { maxRetryDelayMs: 0 } } }));
		const run = await askWith("openai-completions", rateLimited("1"));

		expect(server.requests).toHaveLength(2);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("answered\n");
		expect(run.code).toBe(0);
	});

	// The client reads these by parseFloat: 5 s, over the 1 s cap, slept silently before the fix.
	it.each([
		["a proxy's doubled header, `Retry-After: 5, 5`", { "retry-after": "5, 5" }],
		["`retry-after-ms: 0` beside `Retry-After: 5`", { "retry-after-ms": "0", "retry-after": "5" }],
	])(
		"lobehub#13572: %s, over the cap as the client reads it: not slept by the client, the session's retry says so",
		async (_, headers) => {
			mkdirSync(cli.agentDir, { recursive: true });
			writeFileSync(
				join(cli.agentDir, "settings.json"),
				JSON.stringify({ retry: { baseDelayMs: 1, provider: { maxRetryDelayMs: 1000 } } }),
			);
			const limited = openAiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", headers);
			const run = await askWith("openai-completions", limited);

			expect(server.requests).toHaveLength(2);
			expect(run.stderr).toContain("attempt 1/3: 429 Rate limit reached for requests");
			expect(run.stdout).toBe("answered\n");
			expect(run.code).toBe(0);
		},
	);

	it("lobehub#13572 (control): a short `Retry-After: 1` is still waited by the client, and the answer arrives", async () => {
		const run = await askWith("openai-completions", rateLimited("1"));

		expect(server.requests).toHaveLength(2);
		expect(run.stdout).toBe("answered\n");
		expect(run.code).toBe(0);
	});
});

/**
 * claude-code#81330: a `Retry-After` over 60 s ended the turn instead of waiting, and nothing said
 * it was a cap, nor that a setting could ride the wait out: users read it as "529 never recovers".
 * What the user should see: the error, then a line naming `retry.maxAgentDelayMs` and what to do;
 * with the cap raised, the session waits what the provider asked, and says so as it does.
 */
describe("claude-code#81330: a Retry-After over the cap ends the turn, nothing saying why nor how to wait", () => {
	it("claude-code#81330: `Retry-After: 120` with the defaults: the error, then a line naming the cap and the setting; one request, exit 1", async () => {
		const run = await askWith("openai-completions", rateLimited("120"), rateLimited("120"));

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe(
			"429 Rate limit reached for requests (the response's retry-after header: retry in 120s)\n" +
				"Not retried: the provider asks to wait 2m 0s, longer than retry.maxAgentDelayMs (1m 0s). Run it again after the wait, or raise retry.maxAgentDelayMs in settings.json to have the session wait.\n",
		);
		expect(run.code).toBe(1);
	});

	it("claude-code#81330: `settle -i` says it too, under the error; the chat takes the next prompt", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(rateLimited("120"), chatReply([{ type: "text", text: "answered" }]));
		const chat = new Repl(["--model", "local/coder", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const shown = await chat.say("hello", "Not retried");

		expect(shown).toContain(
			"Error: 429 Rate limit reached for requests (the response's retry-after header: retry in 120s)\n" +
				"Not retried: the provider asks to wait 2m 0s, longer than retry.maxAgentDelayMs (1m 0s). Run it again after the wait, or raise retry.maxAgentDelayMs in settings.json to have the session wait.\n",
		);
		expect(server.requests).toHaveLength(1);
		expect(await chat.say("hello again", "answered")).toContain("answered\n");
		expect(server.requests).toHaveLength(2);
		expect(await chat.end()).toBe(0);
	});

	it("claude-code#81330 (control): `settle -i`, a wait within the cap: the retry line, no Not-retried line, then the answer", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ retry: { baseDelayMs: 1, provider: { maxRetries: 0 } } }),
		);
		server.reply(rateLimited("1"), chatReply([{ type: "text", text: "answered" }]));
		const chat = new Repl(["--model", "local/coder", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const shown = await chat.say("hello", "answered");

		expect(shown).toContain(
			"Error: 429 Rate limit reached for requests (the response's retry-after header: retry in 1s)\nRetrying in 1.0 s, attempt 1/3:",
		);
		expect(shown).not.toContain("Not retried");
		expect(server.requests).toHaveLength(2);
		expect(await chat.end()).toBe(0);
	});

	it("claude-code#81330: with retry.maxAgentDelayMs raised over the wait, the session waits it (said on stderr) and the answer arrives", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		// The client's own cap below the wait: the session's backoff, not a silent client sleep, waits it
		// (the requested 1 s, not the 1 ms base delay).
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ retry: { maxAgentDelayMs: 5000, baseDelayMs: 1, provider: { maxRetryDelayMs: 500 } } }),
		);
		const run = await askWith("openai-completions", rateLimited("1"));

		expect(server.requests).toHaveLength(2);
		expect(run.stderr).toBe(
			"Retrying in 1.0 s, attempt 1/3: 429 Rate limit reached for requests (the response's retry-after header: retry in 1s)\n",
		);
		expect(run.stdout).toBe("answered\n");
		expect(run.code).toBe(0);
	});
});
