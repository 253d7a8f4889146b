/**
 * pi#9595: a provider's 429 said `Retry-After: 30` in its headers, yet pi's agent-level retry came
 * after 2 s, then 4 s: the provider clients turn a refused response into an error text without its
 * headers, so the session's backoff never learned the wait (the client's own retries, which read the
 * header, are off with `retry.provider.maxRetries: 0`, as pi's settings docs show). What the user
 * should see: the retry waits what the response's headers asked for (`Retry-After` in seconds or as
 * a date, `retry-after-ms`, OpenAI's `x-ratelimit-reset-*` of the spent bucket), the
 * `auto_retry_start` event's `delayMs` saying that wait; a wait above `retry.maxAgentDelayMs` ends
 * the turn at once with the error naming it, instead of re-hammering the provider.
 *
 * Real `settle --mode json -p` child processes against a local server speaking OpenAI's and
 * Anthropic's wire formats through pi-ai's own clients.
 */
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeFastRetrySettings, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { type Reply, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-retry-after-");
const server = useWireServer();

/** When each request reached the server (ms, this process's clock). */
let arrivals: number[] = [];
function timed(reply: Reply): Reply {
	return (request, res, req) => {
		arrivals.push(performance.now());
		reply(request, res, req);
	};
}

/** `settle --mode json -p` on the local provider; the client's own retries off, the backoff 1 ms. */
async function runRateLimited(
	first: Reply,
	{
		api = "openai-completions",
		mode = "json",
	}: { api?: "openai-completions" | "anthropic-messages"; mode?: "json" | "text" } = {},
) {
	arrivals = [];
	writeLocalProvider(cli.agentDir, api === "openai-completions" ? `${server.url}/v1` : server.url, { api });
	writeFastRetrySettings(cli.agentDir);
	const answer = api === "openai-completions" ? chatReply : anthropicReply;
	server.reply(timed(first), timed(answer([{ type: "text", text: "after the wait" }])));
	const run = await runSettleAsync(["--model", "local/coder", "--mode", mode, "-p", "hello"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const events = run.stdout
		.split("\n")
		.filter((line) => line.startsWith("{"))
		.map((line) => JSON.parse(line) as Record<string, unknown>);
	const retries = events.filter((event) => event.type === "auto_retry_start");
	return { run, retries };
}

/** The retry's wait as the event announced it, checked against the gap between the two requests. */
function expectWaited(retries: Record<string, unknown>[], delayMs: number | [number, number]): void {
	expect(retries).toHaveLength(1);
	const announced = retries[0]!.delayMs as number;
	if (typeof delayMs === "number") expect(announced).toBe(delayMs);
	else expect(announced).toBeGreaterThan(delayMs[0]);
	if (typeof delayMs !== "number") expect(announced).toBeLessThanOrEqual(delayMs[1]);
	expect(arrivals).toHaveLength(2);
	// Timers may fire up to a millisecond early; the backoff alone would have been 1 ms.
	expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(announced - 2);
}

const rateLimited = (headers: Record<string, string>) =>
	openAiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", headers);

describe("pi#9595: the agent-level retry ignores the 429's Retry-After header", () => {
	it("pi#9595: `Retry-After: 1` is waited (delayMs 1000, not the 1 ms backoff), then the answer arrives", async () => {
		const { run, retries } = await runRateLimited(rateLimited({ "retry-after": "1" }));

		expectWaited(retries, 1000);
		expect(retries[0]!.errorMessage).toBe(
			"429 Rate limit reached for requests (the response's retry-after header: retry in 1s)",
		);
		expect(run.stdout).toContain("after the wait");
		expect(run.code).toBe(0);
	});

	it("pi#9595: `retry-after-ms: 1200` is waited to the millisecond", async () => {
		const { run, retries } = await runRateLimited(rateLimited({ "retry-after-ms": "1200" }));

		expectWaited(retries, 1200);
		expect(run.code).toBe(0);
	});

	it("pi#9595: `Retry-After` as an HTTP date ten minutes ahead is read as that wait: above the cap, the run ends at once naming it", async () => {
		// The date is taken when the request arrives (the process takes a while to start).
		const { run } = await runRateLimited(
			(request, res, req) =>
				rateLimited({ "retry-after": new Date(Date.now() + 600_000).toUTCString() })(request, res, req),
			{ mode: "text" },
		);

		expect(arrivals).toHaveLength(1);
		expect(run.code).not.toBe(0);
		const named = /\(the response's retry-after header: retry in (\d+)(ms|s)\)/.exec(run.stderr);
		expect(named).not.toBeNull();
		const waitMs = Number(named![1]) * (named![2] === "s" ? 1000 : 1);
		// Whole seconds in the date, and the two processes read their clocks apart.
		expect(waitMs).toBeGreaterThan(540_000);
		expect(waitMs).toBeLessThanOrEqual(600_000);
	});

	it("pi#9595: OpenAI's spent token bucket (`x-ratelimit-remaining-tokens: 0`, reset `1.5s`) is waited; the untouched requests bucket is not", async () => {
		const { run, retries } = await runRateLimited(
			rateLimited({
				"x-ratelimit-remaining-requests": "499",
				"x-ratelimit-reset-requests": "6m0s",
				"x-ratelimit-remaining-tokens": "0",
				"x-ratelimit-reset-tokens": "1.5s",
			}),
		);

		expectWaited(retries, 1500);
		expect(run.code).toBe(0);
	});

	it("pi#9595: Anthropic's 529 overloaded_error with `retry-after: 1` is waited, then the answer arrives", async () => {
		const { run, retries } = await runRateLimited(
			anthropicError(529, "overloaded_error", "Overloaded", { "retry-after": "1" }),
			{ api: "anthropic-messages" },
		);

		expectWaited(retries, 1000);
		expect(run.stdout).toContain("after the wait");
		expect(run.code).toBe(0);
	});

	it("pi#9595: `Retry-After: 120`, above retry.maxAgentDelayMs (60 s): no retry, the run ends at once with the error naming the wait", async () => {
		const { run } = await runRateLimited(rateLimited({ "retry-after": "120" }), { mode: "text" });

		expect(arrivals).toHaveLength(1);
		expect(run.code).not.toBe(0);
		expect(run.stderr).toContain(
			"429 Rate limit reached for requests (the response's retry-after header: retry in 120s)",
		);
	});
});

/** An Anthropic subscription's 429: the unified window is spent (`-status: rejected`), its reset in epoch seconds, no Retry-After. */
const unifiedRejected =
	(resetInMs: number): Reply =>
	(request, res, req) =>
		anthropicError(429, "rate_limit_error", "This request would exceed your account's rate limit.", {
			"anthropic-ratelimit-unified-status": "rejected",
			// Taken when the request arrives (the process takes a while to start).
			"anthropic-ratelimit-unified-reset": String(Math.ceil((Date.now() + resetInMs) / 1000)),
		})(request, res, req);

describe("Anthropic subscription 429s: the unified window's reset is the wait (they may send no Retry-After)", () => {
	it("a spent window reopening in about 2 s is waited (not the 1 ms backoff), then the answer arrives", async () => {
		const { run, retries } = await runRateLimited(unifiedRejected(1500), { api: "anthropic-messages" });

		expectWaited(retries, [999, 3000]);
		expect(retries[0]!.errorMessage).toMatch(
			/\(the response's anthropic-ratelimit-unified-reset header: retry in [23]s\)$/,
		);
		expect(run.stdout).toContain("after the wait");
		expect(run.code).toBe(0);
	});

	it("a spent window reopening in 3 hours is above retry.maxAgentDelayMs: no retry, the run ends at once naming the wait", async () => {
		const { run } = await runRateLimited(unifiedRejected(3 * 3600_000), { api: "anthropic-messages", mode: "text" });

		expect(arrivals).toHaveLength(1);
		expect(run.code).not.toBe(0);
		const named = /\(the response's anthropic-ratelimit-unified-reset header: retry in (\d+)s\)/.exec(run.stderr);
		expect(named).not.toBeNull();
		expect(Number(named![1])).toBeGreaterThan(3 * 3600 - 60);
		expect(Number(named![1])).toBeLessThanOrEqual(3 * 3600 + 1);
	});

	it("a 429 whose unified window is still allowed (a per-minute throttle) does not take the window's reset as the wait", async () => {
		const { run, retries } = await runRateLimited(
			anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", {
				"anthropic-ratelimit-unified-status": "allowed",
				"anthropic-ratelimit-unified-reset": String(Math.ceil(Date.now() / 1000) + 3 * 3600),
			}),
			{ api: "anthropic-messages" },
		);

		expect(retries).toHaveLength(1);
		expect(retries[0]!.errorMessage).not.toContain("unified-reset");
		expect(run.code).toBe(0);
	});
});
