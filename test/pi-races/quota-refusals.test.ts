/**
 * codex#6340: OpenAI answers a spent account with `429 insufficient_quota`, and the agent retried it
 * like a rate limit: the same refusal again after each backoff, the user's answer delayed for
 * nothing. Settle's session retry already left it alone, but with the default transport settings
 * the OpenAI client retried it itself (a 429 is retryable to it): three requests and four seconds
 * for one "You exceeded your current quota". What the user should see: one request, the quota
 * message at once; a plain rate limit still retried.
 *
 * Real `settle -p` child processes against a local server answering through pi-ai's OpenAI client,
 * default settings (the client's own retries on).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { type Reply, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-quota-");
const server = useWireServer();

async function askWith(...replies: Reply[]) {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	server.reply(...replies, chatReply([{ type: "text", text: "answered" }]));
	return runSettleAsync(["--model", "local/coder", "-p", "hello"], { cwd: cli.project, agentDir: cli.agentDir });
}

const QUOTA = "You exceeded your current quota, please check your plan and billing details.";

describe("codex#6340: a spent quota (429 insufficient_quota) is retried like a rate limit", () => {
	it("codex#6340: one request, no retry by the client nor the session; the quota message on stderr, exit 1", async () => {
		const spent = openAiError(429, QUOTA, "insufficient_quota", "insufficient_quota", { "retry-after": "0" });
		const run = await askWith(spent, spent, spent);

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe(`429 ${QUOTA}\n`);
		expect(run.code).toBe(1);
	});

	it("codex#6340 (control): a plain rate limit is still retried by the client, and the answer arrives", async () => {
		const run = await askWith(
			openAiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", { "retry-after": "0" }),
		);

		expect(server.requests).toHaveLength(2);
		expect(run.stdout).toBe("answered\n");
		expect(run.code).toBe(0);
	});
});

// Qwen's token plan, as a user's run logged it (its `code` varies by gateway; none is needed here).
const PLAN_SPENT =
	"Quota exhausted: Your token-plan 1-week quota has been exhausted. The quota will reset at 07-27 09:25:00 UTC.\n\nPlease retry after the reset time, or switch to another API key / auth method.";

/**
 * qwen-code#7841: a 429 saying the account's quota "has been exhausted" and resets at a date days
 * away was taken for a rate limit (its status alone): retried through the whole budget, the session
 * silent, every retry the same 429. The session backoff is 1 ms here so the old behaviour fails fast.
 */
describe("qwen-code#7841: a quota-exhausted 429 is retried silently through the whole budget", () => {
	it("qwen-code#7841: one request, no retry by the client nor the session; the message on stderr at once, exit 1", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const spent = openAiError(429, PLAN_SPENT, "rate_limit_error", null, { "retry-after": "0" });
		const run = await askWith(...Array.from({ length: 12 }, () => spent));

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe(`429 ${PLAN_SPENT}\n`);
		expect(run.code).toBe(1);
	});
});

// Kimi's spent plan window: no "exhausted", only the clock time it resets at.
const KIMI_RESET = "Your quota will reset at 09-18 15:39:00 UTC.";

describe("Kimi's 429 'Your quota will reset at <date>' is retried like a rate limit", () => {
	it("one request, no retry by the client nor the session; the reset time on stderr at once, exit 1", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const spent = openAiError(429, KIMI_RESET, "exceeded_current_quota_error", null, { "retry-after": "0" });
		const run = await askWith(...Array.from({ length: 12 }, () => spent));

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe(`429 ${KIMI_RESET}\n`);
		expect(run.code).toBe(1);
	});
});
