/**
 * Roo-Code#2822 (continue#5502, continue#11794, narumiruna/pi-extensions#1324): a stream cut with "Premature
 * close" (Node's `ERR_STREAM_PREMATURE_CLOSE`, as node-fetch words it: "Invalid response body
 * while trying to fetch …: Premature close") was taken for a fatal error while timeouts and rate
 * limits were retried: the task stopped and waited for the user. A gateway built on node-fetch
 * passes the text on as the stream's error when its upstream connection is cut. What the user
 * should see: the request sent again after the backoff, and the answer.
 *
 * Replayed with real `settle -p` child processes against a local OpenAI-compatible endpoint, through
 * pi-ai's OpenAI client: part of the answer streams, then the error chunk arrives.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeFastRetrySettings, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, chatStreamError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-premature-close-");
const server = useWireServer();

/** `settle -p <prompt>` on the local endpoint, a 1 ms backoff, no client retries. */
function settle(prompt: string) {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	writeFastRetrySettings(cli.agentDir);
	return runSettleAsync(["--model", "local/coder", "-p", prompt], { cwd: cli.project, agentDir: cli.agentDir });
}

describe('Roo-Code#2822: a stream cut with "Premature close" is not retried', () => {
	for (const message of [
		"Invalid response body while trying to fetch https://api.anthropic.com/v1/messages: Premature close",
		"Error [ERR_STREAM_PREMATURE_CLOSE]: Premature close",
		"Premature end of chunk coded message body",
	]) {
		it(`Roo-Code#2822: "${message}" after part of the answer: retried after the backoff, the answer printed once, exit 0`, async () => {
			server.reply(
				chatStreamError(message, "upstream_error", [{ type: "text", text: "Reading the config" }]),
				chatReply([{ type: "text", text: "The config is fine." }]),
			);
			const run = await settle("check the config");

			expect(run.stdout).toBe("The config is fine.\n");
			expect(run.code).toBe(0);
			expect(server.requests).toHaveLength(2);
			expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("Reading the config");
		});
	}

	it("a refusal that merely names a premature close (400 invalid_request_error) is still not retried: one request, exit 1", async () => {
		server.reply(
			chatStreamError("400 Invalid 'stop': 'premature close' is not a valid stop sequence", "invalid_request_error"),
		);
		const run = await settle("check the config");

		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});
});
