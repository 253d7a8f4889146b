/**
 * `Retry-After` values that are not delay-seconds, read under several time zones.
 *
 * pi#9571 (mastra#23778): a `Retry-After` neither a number nor a valid HTTP date went to
 * `Date.parse`, which reads junk leniently: `-3` or `1,5` is a date in 2001 (so "retry in 0s"),
 * `-2099` one in 2099. Settle's retry must treat such a header as absent: the backoff, and no wait
 * claimed in the error text.
 *
 * RFC 9110 lets a server send the date in asctime form (`Sun Dec  6 15:29:00 2026`), which carries
 * no zone and means GMT; `Date.parse` reads a zoneless date in the process's time zone. A wait of an
 * hour then read as nine in Los Angeles, and as a date already past (an immediate retry) in
 * Chatham (+13:45). The wait must be the same hour under every `TZ`.
 *
 * Real `settle --mode json -p` child processes (each with its own `TZ`) against a local server
 * speaking OpenAI's wire format through pi-ai's client.
 */
import { describe, expect, it } from "vitest";
import { requestedRetryDelayFromHeaders } from "../../src/llm/errors.js";
import { runSettleAsync, useCliProject, writeFastRetrySettings, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { type Reply, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-retry-after-dates-");
const server = useWireServer();

let arrivals = 0;
function counted(reply: Reply): Reply {
	return (request, res, req) => {
		arrivals++;
		reply(request, res, req);
	};
}

const rateLimited = (retryAfter: string) =>
	openAiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", { "retry-after": retryAfter });

/** `settle --mode <mode> -p` with `TZ=tz` on the local provider; the client's own retries off, the backoff 1 ms. */
async function runRateLimited(first: Reply, tz: string, mode: "json" | "text" = "json") {
	arrivals = 0;
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { api: "openai-completions" });
	writeFastRetrySettings(cli.agentDir);
	server.reply(counted(first), counted(chatReply([{ type: "text", text: "after the wait" }])));
	const run = await runSettleAsync(["--model", "local/coder", "--mode", mode, "-p", "hello"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { TZ: tz },
	});
	const retries = run.stdout
		.split("\n")
		.filter((line) => line.startsWith("{"))
		.map((line) => JSON.parse(line) as Record<string, unknown>)
		.filter((event) => event.type === "auto_retry_start");
	return { run, retries };
}

/** `at` as an asctime date (RFC 9110's third form: `Sun Dec  6 15:29:00 2026`, GMT without saying so). */
function asctime(at: Date): string {
	const [weekday, , month, , time] = at.toUTCString().replace(",", "").split(" ");
	return `${weekday} ${month} ${String(at.getUTCDate()).padStart(2, " ")} ${time} ${at.getUTCFullYear()}`;
}

describe("pi#9571: a malformed Retry-After read by Date.parse", () => {
	it("pi#9571: `Retry-After: -3` and `1,5` are no wait: the retry takes the backoff and its error names no header", async () => {
		for (const value of ["-3", "1,5"]) {
			const { run, retries } = await runRateLimited(rateLimited(value), "UTC");
			expect(retries, value).toHaveLength(1);
			expect(retries[0]!.delayMs, value).toBe(1);
			expect(retries[0]!.errorMessage, value).toBe("429 Rate limit reached for requests");
			expect(run.stdout).toContain("after the wait");
			expect(run.code).toBe(0);
		}
	});
});

/** `at` in RFC 9110's obsolete RFC 850 form (`Sunday, 06-Dec-26 15:29:00 GMT`: a two-digit year). */
function rfc850(at: Date): string {
	const weekday = at.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });
	const [, day, month, year, time] = at.toUTCString().replace(",", "").split(" ");
	return `${weekday}, ${day}-${month}-${year!.slice(2)} ${time} GMT`;
}

/** `at` as servers outside the RFC send it: IMF-fixdate with a `UTC` zone and a one-digit day (`Sun, 6 Dec 2026 15:29:00 UTC`). */
function imfUtcOneDigitDay(at: Date): string {
	const [weekday, , month, year, time] = at.toUTCString().split(" ");
	return `${weekday} ${at.getUTCDate()} ${month} ${year} ${time} UTC`;
}

describe("pi#9571: an asctime Retry-After date read by Date.parse in the local time zone", () => {
	it.each([
		{ tz: "UTC", form: asctime },
		{ tz: "America/Los_Angeles", form: asctime },
		{ tz: "Pacific/Chatham", form: asctime },
		{ tz: "Pacific/Chatham", form: rfc850 },
		{ tz: "Pacific/Chatham", form: imfUtcOneDigitDay },
	])(
		"pi#9571: an HTTP date an hour ahead with TZ=$tz ($form.name form) is an hour's wait: above the cap, the run ends at once naming it",
		async ({ tz, form }) => {
			// The date is taken when the request arrives (the process takes a while to start).
			const { run } = await runRateLimited(
				(request, res, req) => rateLimited(form(new Date(Date.now() + 3_600_000)))(request, res, req),
				tz,
				"text",
			);
			expect(arrivals, `TZ=${tz}`).toBe(1);
			expect(run.code, `TZ=${tz}: ${run.stderr}`).not.toBe(0);
			const named = /\(the response's retry-after header: retry in (\d+)(ms|s)\)/.exec(run.stderr);
			expect(named, `TZ=${tz}: ${run.stderr}`).not.toBeNull();
			const waitMs = Number(named![1]) * (named![2] === "s" ? 1000 : 1);
			// Whole seconds in the date, and the two processes read their clocks apart.
			expect(waitMs, `TZ=${tz}`).toBeGreaterThan(3_540_000);
			expect(waitMs, `TZ=${tz}`).toBeLessThanOrEqual(3_600_000);
		},
	);
});

describe("Retry-After dates real servers send outside RFC 9110", () => {
	const now = Date.UTC(2026, 11, 6, 16, 0, 0);
	const wait = (value: string) => requestedRetryDelayFromHeaders(429, new Headers({ "retry-after": value }), now);
	it("a one-digit day and a `UTC` zone are read strictly, as the GMT IMF-fixdate; anything looser is no date", () => {
		for (const value of [
			"Sun, 6 Dec 2026 17:00:00 GMT",
			"Sun, 06 Dec 2026 17:00:00 UTC",
			"Sun, 6 Dec 2026 17:00:00 UTC",
			"Sunday, 06-Dec-26 17:00:00 UTC",
		]) {
			expect(wait(value), value).toEqual({ header: "retry-after", delayMs: 3_600_000 });
		}
		for (const value of [
			"Sun, 6 Dec 2026 17:00:00",
			"Sun, 6 Dec 2026 17:00:00 PST",
			"Sun, 006 Dec 2026 17:00:00 GMT",
		]) {
			expect(wait(value), value).toBeUndefined();
		}
	});
});
