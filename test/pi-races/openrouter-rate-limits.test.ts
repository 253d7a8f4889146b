/**
 * OpenRouter's 429s for its free models, as its users met them in coding agents.
 *
 * - TranslateBooksWithLLMs#125: a free model's per-minute limit ("limited to 8 requests per
 *   minute. Please retry shortly.") sends no `Retry-After`; the window's end is in the body's
 *   `error.metadata.headers` (`X-RateLimit-Reset`, epoch ms). Blind backoffs of a second or two
 *   retried inside the window until the budget was spent.
 * - openclaude#1542, openclaude#1549, openclaude#936: the daily cap ("Rate limit exceeded:
 *   free-models-per-day-high-balance.", or with "Add 10 credits…" and the reset in the body) was
 *   retried as a rate limit, "Retrying in 26 seconds… (attempt 5/10)", the same 429 each time: it
 *   resets at midnight UTC.
 *
 * What the user should see: the per-minute limit waited until its reset, then the answer; the daily
 * cap shown at once, with the reset when the body names it, nothing retried.
 *
 * Real `settle -p` processes against a local server that enforces its window, through pi-ai's
 * OpenAI client, default retry settings (the client's own retries on).
 */
import { describe, expect, it } from "vitest";
import { requestedRetryDelayFromBody, requestedRetryDelayFromHeaders } from "../../src/llm/errors.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, type Reply, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-openrouter-limits-");
const server = useWireServer();

/** OpenRouter's 429 body: the limiter's headers inside it, `reset` (epoch ms) when given. */
function openRouterLimit(message: string, reset?: number): Reply {
	const headers =
		reset === undefined
			? undefined
			: { "X-RateLimit-Limit": "8", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": String(reset) };
	return json(429, {
		error: { message, code: 429, ...(headers ? { metadata: { headers, provider_name: null } } : {}) },
	});
}

const PER_MINUTE =
	"Rate limit exceeded: limit_rpm/qwen/qwen3-coder-480b-a35b-07-25/a9bbd882. High demand for qwen/qwen3-coder:free on OpenRouter - limited to 8 requests per minute. Please retry shortly.";

/** A limiter whose window opens at the first request and lasts `windowMs`: refused inside it, answered after. */
function limiter(windowMs: number): Reply {
	let resetAt: number | undefined;
	return (request, res, req) => {
		resetAt ??= Date.now() + windowMs;
		const reply =
			Date.now() < resetAt ? openRouterLimit(PER_MINUTE, resetAt) : chatReply([{ type: "text", text: "answered" }]);
		reply(request, res, req);
	};
}

function ask() {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	return runSettleAsync(["--model", "local/coder", "-p", "hello"], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("OpenRouter's free-model limits: the reset in the body, the daily cap", () => {
	it("TranslateBooksWithLLMs#125: a per-minute 429 whose body resets in 2.5 s: one retry after the reset (3 s), not blind ones inside the window; answered", async () => {
		const limited = limiter(2500);
		server.reply(...Array.from({ length: 8 }, () => limited));
		const run = await ask();

		expect(server.requests).toHaveLength(2);
		expect(run.stderr).toBe(
			`Retrying in 3.0 s, attempt 1/3: 429 ${PER_MINUTE} (the response's x-ratelimit-reset header: retry in 3s)\n`,
		);
		expect(run.stdout).toBe("answered\n");
		expect(run.code).toBe(0);
	});

	it("openclaude#1542, openclaude#1549: the daily cap (`free-models-per-day-high-balance`, no reset in the body): one request, the error at once, exit 1", async () => {
		const daily = openRouterLimit("Rate limit exceeded: free-models-per-day-high-balance. ");
		server.reply(daily, daily, chatReply([{ type: "text", text: "answered" }]));
		const run = await ask();

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe("429 Rate limit exceeded: free-models-per-day-high-balance. \n");
		expect(run.code).toBe(1);
	});

	it("openclaude#936: the daily cap whose body resets in 5 h: one request, the error naming the wait, exit 1", async () => {
		const daily: Reply = (request, res, req) =>
			openRouterLimit(
				"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day",
				Date.now() + 5 * 3_600_000,
			)(request, res, req);
		server.reply(daily, daily, chatReply([{ type: "text", text: "answered" }]));
		const run = await ask();

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe(
			"429 Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day (the response's x-ratelimit-reset header: retry in 18000s)\n",
		);
		expect(run.code).toBe(1);
	});
});

describe("TranslateBooksWithLLMs#125: an X-RateLimit-Reset instant is the limiter's end", () => {
	const now = Date.UTC(2026, 11, 7, 12, 0, 0);
	const fromHeaders = (headers: Record<string, string>) =>
		requestedRetryDelayFromHeaders(429, new Headers(headers), now)?.delayMs;
	const spent = (reset: string) => fromHeaders({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset });

	it("epoch ms or s, in whole seconds from now (a past one is no wait); only for a spent limiter; a count of seconds is no instant", () => {
		expect(spent(String(now + 29_400))).toBe(30_000);
		expect(spent(String(now / 1000 + 45))).toBe(45_000);
		expect(spent(String(now - 5000))).toBe(0);
		expect(spent("60")).toBeUndefined();
		expect(fromHeaders({ "x-ratelimit-remaining": "3", "x-ratelimit-reset": String(now + 29_400) })).toBeUndefined();
	});

	it("in a 429 body, only under `error.metadata.headers`; not on another status, nor in a body that is no JSON", () => {
		const body = JSON.stringify({
			error: {
				code: 429,
				metadata: { headers: { "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": String(now + 30_000) } },
			},
		});
		expect(requestedRetryDelayFromBody(429, body, now)).toEqual({ header: "x-ratelimit-reset", delayMs: 30_000 });
		expect(requestedRetryDelayFromBody(503, body, now)).toBeUndefined();
		expect(
			requestedRetryDelayFromBody(429, `X-RateLimit-Remaining: 0, X-RateLimit-Reset: ${now + 30_000}`, now),
		).toBeUndefined();
		const elsewhere = JSON.stringify({ "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": String(now + 30_000) });
		expect(requestedRetryDelayFromBody(429, elsewhere, now)).toBeUndefined();
	});
});
