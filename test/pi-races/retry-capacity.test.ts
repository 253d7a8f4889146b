/**
 * Providers' own words for "no capacity right now, try again", replayed with real `settle -p` child
 * processes against a local OpenAI-compatible endpoint, through pi-ai's OpenAI client.
 *
 * laravel/ai#925: Groq answers its flex tier's capacity spikes with its own status 498 ("Flex Tier
 * Capacity Exceeded", documented as "You can try again later"), outside every list of transient
 * statuses: the turn failed at once. What the user should see: the request sent again after the
 * backoff, and the answer.
 *
 * Cloudgeni-ai/opengeni#1643: xAI's Grok failed an accepted (200) stream with "The model is
 * currently at capacity due to high demand": settled as a final failure. What the user should see:
 * the same retry.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeFastRetrySettings, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, chatStreamError, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-capacity-");
const server = useWireServer();

/** `settle -p <prompt>` on the local endpoint, a 1 ms backoff, no client retries. */
function settle(prompt: string) {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
	writeFastRetrySettings(cli.agentDir);
	return runSettleAsync(["--model", "local/coder", "-p", prompt], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("laravel/ai#925: Groq's 498 (flex tier at capacity) is not retried", () => {
	it("laravel/ai#925: a 498 is retried after the backoff and the answer printed, exit 0", async () => {
		server.reply(
			openAiError(498, "Flex Tier Capacity Exceeded", "capacity_exceeded"),
			chatReply([{ type: "text", text: "Answered." }]),
		);
		const run = await settle("hello");

		expect(run.stdout).toBe("Answered.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(2);
	});

	it("laravel/ai#925: a 400 whose text names 498 (a limit) is still not retried: one request, exit 1", async () => {
		server.reply(openAiError(400, "Invalid 'max_tokens': must be at most 498", "invalid_request_error"));
		const run = await settle("hello");

		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});
});

describe('opengeni#1643: Grok\'s "currently at capacity" in an accepted stream is not retried', () => {
	it("opengeni#1643: retried after the backoff, the answer printed once, exit 0", async () => {
		server.reply(
			chatStreamError("The model is currently at capacity due to high demand", "server_error", [
				{ type: "text", text: "Let me" },
			]),
			chatReply([{ type: "text", text: "Here it is." }]),
		);
		const run = await settle("hello");

		expect(run.stdout).toBe("Here it is.\n");
		expect(run.code).toBe(0);
		expect(server.requests).toHaveLength(2);
	});
});
