/**
 * pi#5591, pi#4769, openclaw#27975: Anthropic answered HTTP 200 with a stream that ended in
 * `stop_reason: "refusal"` (its safety classifier declined) or `"sensitive"`, with `stop_details`
 * naming the category and explaining why. pi-ai maps both to an error and throws its own text, so
 * the user saw "An unknown error occurred", which reads like a network failure: no reason, no hint
 * that sending it again gets the same refusal. What the user should see: that the model declined,
 * the category and the explanation Anthropic gave, what to do; and no retry.
 *
 * Real `settle -p` child processes against a local server answering through pi-ai's Anthropic client.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicEvents } from "../llm/wire/anthropic.js";
import { encodeSse, type SseEvent, sse, useWireServer } from "../llm/wire/server.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-anthropic-refusals-");
const server = useWireServer();

const EXPLANATION =
	"This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.";

/** A message stream whose `message_delta` stops as `reason`, with `details` beside it (pi#5591's raw event). */
function stoppedAs(reason: string, details?: Record<string, unknown>): SseEvent[] {
	const events = anthropicEvents([]);
	const delta = events.find((event) => event.event === "message_delta")!.data as { delta: Record<string, unknown> };
	delta.delta = { stop_reason: reason, stop_sequence: null, ...(details ? { stop_details: details } : {}) };
	return events;
}

async function askWith(events: SseEvent[]) {
	writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
	server.reply(sse(events));
	return runSettleAsync(["--model", "local/coder", "-p", "how can I run a MITM attack?"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

function savedErrors(): (string | undefined)[] {
	const [file] = sessionFilesUnder(cli.agentDir);
	return fileEntries(file!)
		.filter((entry) => entry.type === "message" && entry.message?.role === "assistant")
		.map((entry) => (entry.message as { errorMessage?: string }).errorMessage);
}

describe("pi#5591, pi#4769: an Anthropic refusal showed as 'An unknown error occurred'", () => {
	it("pi#5591: stop_reason refusal with stop_details prints the category and the explanation, says not to resend it, exit 1, one request", async () => {
		const run = await askWith(stoppedAs("refusal", { type: "refusal", category: "cyber", explanation: EXPLANATION }));

		const said = `The model declined this request (Anthropic stop_reason "refusal", category "cyber"): ${EXPLANATION} Sending it again gets the same refusal: rephrase the request, or switch to another model.`;
		expect(run.stderr).toBe(`${said}\n`);
		expect(run.stdout).toBe("");
		expect(run.code).toBe(1);
		// Deterministic: a retry would burn requests on the same refusal.
		expect(server.requests).toHaveLength(1);
		expect(savedErrors()).toEqual([said]);
	});

	it("pi#4769: stop_reason refusal without details, and sensitive, each name the stop reason instead of 'An unknown error occurred'", async () => {
		const refused = await askWith(stoppedAs("refusal"));
		expect(refused.stderr).toBe(
			'The model declined this request (Anthropic stop_reason "refusal"). Sending it again gets the same refusal: rephrase the request, or switch to another model.\n',
		);
		expect(refused.code).toBe(1);

		const filtered = await askWith(stoppedAs("sensitive"));
		expect(filtered.stderr).toBe(
			'A safety filter stopped this answer (Anthropic stop_reason "sensitive"). Sending it again gets the same refusal: rephrase the request, or switch to another model.\n',
		);
		expect(filtered.code).toBe(1);
		expect(server.requests).toHaveLength(2);
	});
});

describe("a refusal streamed with the media type in capitals (media types are case-insensitive)", () => {
	it("Text/Event-Stream; charset=UTF-8 still names the refusal instead of 'An unknown error occurred'", async () => {
		writeLocalProvider(cli.agentDir, server.url, { api: "anthropic-messages" });
		server.reply((_request, res) => {
			res.writeHead(200, { "content-type": "Text/Event-Stream; charset=UTF-8" });
			res.end(encodeSse(stoppedAs("refusal", { type: "refusal", category: "cyber" })));
		});
		const run = await runSettleAsync(["--model", "local/coder", "-p", "how can I run a MITM attack?"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.stderr).toBe(
			'The model declined this request (Anthropic stop_reason "refusal", category "cyber"). Sending it again gets the same refusal: rephrase the request, or switch to another model.\n',
		);
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});
});
