/**
 * KSP-CKAN/CKAN#2941's shape in Settle's print mode: a headless run of several commands printed a
 * failed one's error and went on, then exited 0, so a script could not tell a step had failed.
 * `settle -p "step 1" "step 2"` (pi's several-messages form) did the same, more quietly: the first
 * prompt's request refused (400), the second was sent anyway on a history ending in the error, and
 * only the last answer decided the exit code (0) and the printout (pi 0.73.1 does the same). What a
 * script should see: the run ends at the failed step, its error on stderr, exit 1, nothing more sent.
 * Replayed with real `settle` processes against a local OpenAI-compatible server.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-print-failed-step-");

const REFUSAL = "Invalid 'messages[1].content': string too long.";

/** The user texts of a session file, in order. */
function savedPrompts(file: string): string[] {
	return readFileSync(file, "utf8")
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: { text?: string }[] } })
		.filter((entry) => entry.type === "message" && entry.message?.role === "user")
		.map((entry) => entry.message!.content.map((block) => block.text ?? "").join(""));
}

describe("KSP-CKAN/CKAN#2941: several prompts in one print run: a failed step was passed over and the run exited 0", () => {
	const server = useWireServer();

	it('KSP-CKAN/CKAN#2941: settle -p "step 1" "step 2", step 1\'s request refused (400): text mode stops there, its error on stderr, nothing on stdout, exit 1; one request, step 2 never sent nor saved', async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(
			openAiError(400, REFUSAL, "invalid_request_error"),
			chatReply([{ type: "text", text: "Step 2 done." }]),
		);
		const sessionFile = join(cli.project, "steps.jsonl");
		const run = await runSettleAsync(["--model", "local/coder", "--session", sessionFile, "-p", "step 1", "step 2"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(REFUSAL);
		expect(server.requests).toHaveLength(1);
		expect(savedPrompts(sessionFile)).toEqual(["step 1"]);
	});

	it("KSP-CKAN/CKAN#2941: the same in json mode: exit 1, one operation's events (one agent_settled), its answer the error; step 2 never sent", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(
			openAiError(400, REFUSAL, "invalid_request_error"),
			chatReply([{ type: "text", text: "Step 2 done." }]),
		);
		const run = await runSettleAsync(["--model", "local/coder", "--mode", "json", "-p", "step 1", "step 2"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(1);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map(
				(line) =>
					JSON.parse(line) as {
						type: string;
						message?: { role: string; stopReason?: string; content: { text?: string }[] };
					},
			);
		expect(events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		const users = events.filter((event) => event.type === "message_end" && event.message?.role === "user");
		expect(users.map((event) => event.message!.content[0]!.text)).toEqual(["step 1"]);
		const answers = events.filter((event) => event.type === "message_end" && event.message?.role === "assistant");
		expect(answers.map((event) => event.message!.stopReason)).toEqual(["error"]);
		expect(server.requests).toHaveLength(1);
	});

	it("both steps answered: both requests sent in order, the last answer printed, exit 0", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(
			chatReply([{ type: "text", text: "Step 1 done." }]),
			chatReply([{ type: "text", text: "Step 2 done." }]),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "step 1", "step 2"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run).toMatchObject({ code: 0, stdout: "Step 2 done.\n" });
		expect(server.requests).toHaveLength(2);
	});
});
