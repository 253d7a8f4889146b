/**
 * pi#157, gotgenes/pi-anthropic-auth#73: Anthropic answers 200, streams part of the answer, then
 * sends `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` as an SSE
 * event (the SDK's own retries only see HTTP statuses). pi showed the raw JSON and the turn ended;
 * the second report has it at thinking level high, the thinking already streaming. What the user
 * should see: the request sent again after a backoff, and the answer.
 *
 * Roo-Code#4921: the same overload "mid edit, with hundreds of lines already edited": the turn sat
 * until the user pressed resume. What the user should see: the half-streamed call not run, the
 * request retried, and the answer.
 *
 * pi#8031: openai-codex streams on the Responses API; a long answer cut after thousands of
 * characters (`terminated`) was retried from the beginning, and the failed partial stayed beside
 * the full one. What the user should see: the answer printed once, and the partial attempt sent
 * to the model in no later request.
 *
 * Real `settle -p` child processes against a local server, through pi-ai's Anthropic and OpenAI
 * clients.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeFastRetrySettings, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply, anthropicStreamError } from "../llm/wire/anthropic.js";
import { responsesPartial, responsesReply } from "../llm/wire/responses.js";
import { useWireServer } from "../llm/wire/server.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-mid-stream-errors-");
const server = useWireServer();

/** `settle <args>` on the local provider with `api`, a 1 ms retry backoff, no client retries. */
function settle(api: string, args: string[]) {
	writeLocalProvider(cli.agentDir, api === "anthropic-messages" ? server.url : `${server.url}/v1`, {
		api,
		models: [{ id: "coder", reasoning: true }],
	});
	writeFastRetrySettings(cli.agentDir);
	return runSettleAsync(["--model", "local/coder", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

/** The assistant messages of the run's session file, as `stopReason: text`. */
function savedAnswers(): string[] {
	const [file] = sessionFilesUnder(cli.agentDir);
	return fileEntries(file!)
		.filter((entry) => entry.type === "message" && entry.message?.role === "assistant")
		.map((entry) => {
			const message = entry.message as { stopReason: string; content: { type: string; text?: string }[] };
			return `${message.stopReason}: ${message.content.map((block) => block.text ?? "").join("")}`;
		});
}

describe("pi#157 / pi-anthropic-auth#73: an overloaded_error sent mid-stream ends the turn", () => {
	it("pi#157: thinking high, Anthropic streams thinking and text, then an SSE overloaded_error: retried, the answer printed once, exit 0; the retry's request holds nothing of the cut attempt", async () => {
		server.reply(
			anthropicStreamError("overloaded_error", "Overloaded", [
				{ type: "thinking", thinking: "Let me think about the subagents", signature: "sig-cut" },
				{ type: "text", text: "Os subagentes ODD são" },
			]),
			anthropicReply([{ type: "text", text: "Subagents answer." }]),
		);
		const run = await settle("anthropic-messages", ["--thinking", "high", "-p", "o que são subagentes ODD?"]);

		expect(run.stdout).toBe("Subagents answer.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(2);
		const retried = JSON.stringify(server.requests[1]!.body.messages);
		expect(retried).not.toContain("Os subagentes ODD");
		expect(retried).not.toContain("sig-cut");
		expect(server.requests[1]!.body.thinking).toEqual(server.requests[0]!.body.thinking);
		expect(savedAnswers()).toEqual([
			expect.stringMatching(/^error: Os subagentes ODD são$/),
			"stop: Subagents answer.",
		]);
	});

	it("Roo-Code#4921: the overloaded_error comes mid-edit, after a whole `write` call streamed: the cut call never runs, the request is retried and answered, exit 0", async () => {
		server.reply(
			anthropicStreamError("overloaded_error", "Overloaded", [
				{ type: "text", text: "Writing the notes." },
				{ type: "tool_use", id: "toolu_cut", name: "write", input: { path: "notes.md", content: "half an edit" } },
			]),
			anthropicReply([{ type: "text", text: "Notes answered." }]),
		);
		const run = await settle("anthropic-messages", ["-p", "write the notes"]);

		expect(run.stdout).toBe("Notes answered.\n");
		expect(run.code).toBe(0);
		expect(existsSync(join(cli.project, "notes.md"))).toBe(false);
		expect(server.requests).toHaveLength(2);
		expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("toolu_cut");
	});
});

describe("pi#8031: a Responses stream cut after thousands of characters duplicates the answer", () => {
	it("pi#8031: the cut stream (`terminated`) is retried; stdout holds the full answer once, and the next prompt's request holds it once and not the partial", async () => {
		const long = `${"The migration plan, step by step. ".repeat(180)}Done.`;
		server.reply(
			responsesPartial([{ type: "message", text: long }], 5, "cut"),
			responsesReply([{ type: "message", text: long }]),
		);
		const run = await settle("openai-responses", ["-p", "write the plan"]);

		expect(run.code).toBe(0);
		expect(run.stdout).toBe(`${long}\n`);
		expect(server.requests).toHaveLength(2);
		expect(JSON.stringify(server.requests[1]!.body.input)).not.toContain("The migration plan");
		// The cut attempt had streamed all its text (6,000 characters), the response's end never came.
		expect(savedAnswers()).toEqual([`error: ${long}`, `stop: ${long}`]);

		server.reply(responsesReply([{ type: "message", text: "next" }]));
		const next = await settle("openai-responses", ["-c", "-p", "and then?"]);
		expect(next.stdout).toBe("next\n");
		const sentAgain = JSON.stringify(server.requests[2]!.body.input);
		expect(sentAgain.split(long).length - 1).toBe(1);
		expect(sentAgain.split("The migration plan").length - 1).toBe(180);
	});
});
