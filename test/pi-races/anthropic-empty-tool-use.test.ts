/**
 * pi#9681: after a tool ran, Anthropic answered HTTP 200 with a message of no content blocks at all
 * and `stop_reason: "tool_use"`. pi recorded an empty answer, found no call to run and ended the
 * turn: to the user it looked hung after the tool's output, no error, no retry; typing `continue`
 * recovered it every time. What the user should see: the contradictory answer (a tool-use stop
 * without a tool call) taken for a cut one and asked again, and the turn's answer.
 *
 * Real `settle -p` child processes against a local server answering through pi-ai's Anthropic client.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireServer } from "../llm/wire/server.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-anthropic-empty-tool-use-");
const server = useWireServer();

describe("pi#9681: stop_reason tool_use with no tool_use block ended the turn silently", () => {
	it("pi#9681: the empty tool-use stop after a bash result is asked again; the answer is printed, exit 0; the file holds no empty answer", async () => {
		writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_01", name: "bash", input: { command: "echo built" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([], { stopReason: "tool_use", usage: { input: 2, output: 1 } }),
			anthropicReply([{ type: "text", text: "The build passed." }]),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "build it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toBe("The build passed.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(3);
		// The third request is the second sent again: the tool's result last, no empty answer after it.
		expect(server.requests[2]!.body.messages).toEqual(server.requests[1]!.body.messages);
		const [file] = sessionFilesUnder(cli.agentDir);
		const answers = fileEntries(file!)
			.filter((entry) => entry.type === "message" && entry.message?.role === "assistant")
			.map((entry) => entry.message as { stopReason: string; content: unknown[] });
		expect(answers.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "The build passed." }],
		});
		expect(answers.filter((answer) => answer.stopReason === "toolUse" && answer.content.length === 0)).toEqual([]);
	});
});
