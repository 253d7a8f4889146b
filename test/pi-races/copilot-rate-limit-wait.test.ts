/**
 * GitHub Copilot words its rate limit in the message, not in a `Retry-After` header: "Sorry, your
 * request was rate-limited. Please wait 17 seconds before trying again." (vscode-copilot-release#1847),
 * "… Please wait 587 hours 33 minutes before trying again." (#6479), "… Please try again in 15 hours
 * 23 minutes." (copilot-cli#2754). Read as the wait the provider asked for: a wait over
 * `retry.maxAgentDelayMs` ends the run naming it, as a `Retry-After` over the cap does, instead of
 * spending the retries on the default backoff.
 *
 * Replayed with a real `settle -p` against a local OpenAI-compatible server declared in `models.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-copilot-wait-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function copilotServer(): Promise<WireServer> {
	server = await startWireServer();
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({
			providers: {
				copilot: {
					baseUrl: `${server.url}/v1`,
					api: "openai-completions",
					apiKey: "k",
					models: [{ id: "gpt-wire" }],
				},
			},
		}),
	);
	writeFileSync(
		join(cli.agentDir, "settings.json"),
		JSON.stringify({ retry: { baseDelayMs: 1, maxAgentDelayMs: 60_000 } }),
	);
	return server;
}

function settle(args: string[]) {
	return runSettleAsync(["--session-dir", join(cli.dir, "sessions"), "--model", "copilot/gpt-wire", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

const limited = (text: string) => openAiError(429, text, "rate_limit_exceeded", "rate_limited");

describe("Copilot's 'Please wait N before trying again' is the wait the provider asked for", () => {
	it("vscode-copilot-release#6479: a wait of 587 hours 33 minutes is over maxAgentDelayMs: one request, the run ends naming it", async () => {
		const wire = await copilotServer();
		const text = "Sorry, your request was rate-limited. Please wait 587 hours 33 minutes before trying again.";
		wire.reply(limited(text), limited(text), limited(text), limited(text));
		const run = await settle(["-p", "hello"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(text);
		expect(run.stderr).toContain(
			"Not retried: the provider asks to wait 587h 33m 0s, longer than retry.maxAgentDelayMs (1m 0s).",
		);
		expect(run.stderr).not.toContain("Retrying");
		expect(wire.requests).toHaveLength(1);
	});

	it("copilot-cli#2754: 'Please try again in 15 hours 23 minutes' reads as the whole wait, not 15 hours", async () => {
		const wire = await copilotServer();
		const text = "Sorry, you've hit a rate limit. Please try again in 15 hours 23 minutes.";
		wire.reply(limited(text));
		const run = await settle(["-p", "hello"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain("Not retried: the provider asks to wait 15h 23m 0s,");
		expect(wire.requests).toHaveLength(1);
	});

	it("vscode-copilot-release#1847: a wait within the cap is waited, said on stderr, then the answer is printed", async () => {
		const wire = await copilotServer();
		wire.reply(
			limited("Sorry, your request was rate-limited. Please wait 1 seconds before trying again."),
			chatReply([{ type: "text", text: "answered" }]),
		);
		const run = await settle(["-p", "hello"]);
		expect(run.stderr).toMatch(/^Retrying in 1\.0 s, attempt 1\/3: 429 Sorry/);
		expect(run.stdout).toBe("answered\n");
		expect(wire.requests).toHaveLength(2);
	});
});
