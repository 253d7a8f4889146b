/**
 * prime-agent#605, replayed: a script that fed print mode an empty prompt got no output, exit 0 and
 * no word of what went wrong. Settle already said "no prompt" (exit 2) for an empty stdin; the
 * argument form — `settle -p "$PROMPT"` with the variable unset or blank — sent a user message of
 * nothing (or of spaces, which Anthropic refuses with a 400) to the model and exited 0. Replayed
 * with real `settle` processes against a local OpenAI-compatible server that counts its requests.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-print-blank-prompt-");

const NO_PROMPT =
	'Error: no prompt. Give one (settle -p "<prompt>"), pipe it on stdin, or use --rpc; -i starts a chat. See settle --help.\n';

describe('prime-agent#605: print mode given an empty prompt (settle -p "$PROMPT", unset) asked the model anyway and exited 0', () => {
	const server = useWireServer();

	for (const [label, prompt] of [
		["an empty prompt", ""],
		["a prompt of spaces and a newline", "  \n "],
	] as const) {
		it(`prime-agent#605: settle -p with ${label}, text and json mode: exit 2 saying there is no prompt, nothing on stdout but json's one error line, no request, no session file`, async () => {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			const sessionFile = join(cli.project, "run.jsonl");
			for (const mode of ["text", "json"]) {
				const run = await runSettleAsync(
					["--model", "local/coder", "--session", sessionFile, "--mode", mode, "-p", prompt],
					{ cwd: cli.project, agentDir: cli.agentDir },
				);
				// --json's reader gets the refusal as the stream's one line (opencode#27559).
				const stdout = mode === "json" ? `${JSON.stringify({ type: "error", message: NO_PROMPT.slice(7, -1) })}\n` : "";
				expect({ mode, ...run }).toEqual({ mode, code: 2, stdout, stderr: NO_PROMPT });
			}
			expect(server.requests).toHaveLength(0);
			expect(existsSync(sessionFile)).toBe(false);
		});
	}

	it("prime-agent#605: a blank argument beside a real prompt is skipped: one request, carrying the real prompt only, and its answer printed", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(chatReply([{ type: "text", text: "Renamed." }]));
		const sessionFile = join(cli.project, "run.jsonl");
		const run = await runSettleAsync(
			["--model", "local/coder", "--session", sessionFile, "-p", " ", "rename the helper"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run).toMatchObject({ code: 0, stdout: "Renamed.\n" });
		expect(server.requests).toHaveLength(1);
		const userTurns = (server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages
			.filter((message) => message.role === "user")
			.map((message) => message.content);
		expect(userTurns).toEqual([[{ type: "text", text: "rename the helper" }]]);
		const savedUsers = readFileSync(sessionFile, "utf8")
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string } })
			.filter((entry) => entry.type === "message" && entry.message?.role === "user");
		expect(savedUsers).toHaveLength(1);
	});
});
