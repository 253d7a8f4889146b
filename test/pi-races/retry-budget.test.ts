/**
 * opencode#17648, opencode#25733, opencode#40090: the session's retry had no attempt cap nor a
 * setting for one: a provider that kept answering 5xx (or a 429 for a spent plan) was retried
 * forever, the run never ended, `opencode run` hung with no output. What the user should see: the
 * retry budget is `retry.maxRetries` and is kept: each retry said on stderr with its attempt, then
 * the error and exit 1; `maxRetries: 0` or `enabled: false` sends the request once.
 *
 * Real `settle -p` child processes against a local server through pi-ai's OpenAI client (its own
 * retries off, so each request the server sees is one of the session's attempts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-retry-budget-");
const server = useWireServer();

const OVERLOADED = "503 The server is overloaded. Please try again later.";

/** `settle -p` against a server that answers 503 to every request (more than any budget here). */
async function askOverloaded(retry: Record<string, unknown>, mode: "text" | "json" = "text") {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	writeFileSync(
		join(cli.agentDir, "settings.json"),
		JSON.stringify({ retry: { baseDelayMs: 1, ...retry, provider: { maxRetries: 0 } } }),
	);
	const overloaded = openAiError(503, "The server is overloaded. Please try again later.", "server_error");
	server.reply(...Array.from({ length: 8 }, () => overloaded), chatReply([{ type: "text", text: "answered" }]));
	const run = await runSettleAsync(["--model", "local/coder", "--mode", mode, "-p", "hello"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const events =
		mode === "json"
			? run.stdout
					.split("\n")
					.filter((line) => line.startsWith("{"))
					.map((line) => JSON.parse(line) as { type: string; [key: string]: unknown })
			: [];
	return { run, events };
}

describe("opencode#17648, opencode#25733, opencode#40090: retries with no cap loop forever", () => {
	it("opencode#25733: a server that keeps failing gets 1 + retry.maxRetries (2) requests; each retry on stderr, then the error, exit 1", async () => {
		const { run } = await askOverloaded({ maxRetries: 2 });

		expect(server.requests).toHaveLength(3);
		expect(run.stderr).toBe(
			`Retrying in 0.0 s, attempt 1/2: ${OVERLOADED}\nRetrying in 0.0 s, attempt 2/2: ${OVERLOADED}\n${OVERLOADED}\n`,
		);
		expect(run.stdout).toBe("");
		expect(run.code).toBe(1);
	});

	it("opencode#17648: the events say the budget: two auto_retry_start (attempt 1/2, 2/2), one failed auto_retry_end, one agent_settled", async () => {
		const { run, events } = await askOverloaded({ maxRetries: 2 }, "json");

		expect(server.requests).toHaveLength(3);
		expect(events.filter((e) => e.type === "auto_retry_start").map((e) => [e.attempt, e.maxAttempts])).toEqual([
			[1, 2],
			[2, 2],
		]);
		expect(events.filter((e) => e.type === "auto_retry_end")).toEqual([
			expect.objectContaining({ success: false, attempt: 2, finalError: OVERLOADED }),
		]);
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(run.code).toBe(1);
	});

	it("opencode#40090: `retry.maxRetries: 0` sends the request once: no retry event, the error, exit 1", async () => {
		const { run, events } = await askOverloaded({ maxRetries: 0 }, "json");

		expect(server.requests).toHaveLength(1);
		expect(events.filter((e) => e.type.startsWith("auto_retry"))).toEqual([]);
		expect(events.filter((e) => e.type === "agent_settled")).toHaveLength(1);
		expect(run.code).toBe(1);
	});

	it("opencode#40090: `retry.enabled: false` sends the request once, whatever maxRetries says", async () => {
		const { run } = await askOverloaded({ enabled: false, maxRetries: 5 });

		expect(server.requests).toHaveLength(1);
		expect(run.stderr).toBe(`${OVERLOADED}\n`);
		expect(run.code).toBe(1);
	});
});
