/**
 * hermes-agent#43915 (oh-my-pi#12449): Bedrock sends a fault that happens after the stream opened as
 * an exception frame inside the 200 response (`:message-type: exception`, `:exception-type:
 * internalServerException`, "… Try your request again."). The reporters' clients read the frame's
 * 400 and called it a refused request: the turn (a subagent's whole task) died on a fault the same
 * request got past at once. What the user should see: the request sent again after the backoff,
 * and the answer; a `validationException` frame still ends the turn. oh-my-pi#12449 keeps
 * `modelStreamErrorException` retryable too: AWS documents it as "… Retry your request.", a text
 * Settle's patterns did not read (the turn ended, unretried).
 *
 * Real `settle -p` child processes through pi-ai's Bedrock client (the AWS SDK) against a local
 * ConverseStream endpoint.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { afterEachTest } from "../cleanups.js";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { type BedrockReply, bedrockAnswer, bedrockStreamException, startBedrockServer } from "../llm/wire/bedrock.js";

const cli = useCliProject("settle-pi-races-bedrock-faults-");
const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

/** `settle -p <prompt>` on Bedrock at a local endpoint answering `replies` in turn, a 1 ms backoff. */
async function onBedrock(prompt: string, ...replies: BedrockReply[]) {
	const bedrock = await startBedrockServer();
	afterEachTest(() => bedrock.close());
	bedrock.reply(...replies);
	const awsCleared = Object.fromEntries(
		Object.keys(process.env)
			.filter((name) => name.startsWith("AWS_"))
			.map((name) => [name, undefined]),
	);
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
	const run = await runSettleAsync(["--model", `amazon-bedrock/${MODEL}`, "-p", prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: {
			...awsCleared,
			HOME: cli.dir,
			AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
			AWS_ACCESS_KEY_ID: "AKIAOK",
			AWS_SECRET_ACCESS_KEY: "fake",
			AWS_REGION: "us-west-2",
		},
	});
	return { run, requests: bedrock.requests };
}

const TRY_AGAIN = "The system encountered an unexpected error during processing. Try your request again.";

describe("hermes-agent#43915: a Bedrock fault sent as an exception frame mid-stream ends the turn", () => {
	for (const [report, type, message] of [
		["hermes-agent#43915", "internalServerException", TRY_AGAIN],
		// The exception's text as the AWS SDK documents it; no retry pattern read "Retry your request".
		[
			"oh-my-pi#12449",
			"modelStreamErrorException",
			"An error occurred while streaming the response. Retry your request.",
		],
		["hermes-agent#43915", "throttlingException", "Too many requests, please wait before trying again."],
		["hermes-agent#43915", "serviceUnavailableException", "Bedrock is unable to process your request."],
	] as const) {
		it(`${report}: a ${type} frame after part of the answer: retried after the backoff, the answer printed once, exit 0`, async () => {
			const { run, requests } = await onBedrock(
				"summarize the repo",
				bedrockStreamException(type, message, "The repo holds"),
				bedrockAnswer("The repo holds a CLI."),
			);

			expect(run.stdout).toBe("The repo holds a CLI.\n");
			expect(run.code).toBe(0);
			expect(requests).toHaveLength(2);
			expect(JSON.stringify(requests[1]!.body)).not.toContain('"The repo holds"');
		});
	}

	it("hermes-agent#43915: a validationException frame is not retried: one request, the error on stderr, exit 1", async () => {
		const { run, requests } = await onBedrock(
			"summarize the repo",
			bedrockStreamException("validationException", "The model returned the following errors: bad input"),
		);

		expect(run.code).toBe(1);
		expect(requests).toHaveLength(1);
		expect(run.stderr).toContain("bad input");
	});
});
