/**
 * Transport failures that should be retried, replayed against a real `settle -p` child process on a
 * scripted faux model whose first answer ends in the error text the reporters saw. pi-msg#80: an
 * HTTP/2 body cut mid-stream ("Upstream error from Together: Stream error: h2 protocol error: error
 * reading a body from connection", 19 times in one day) matched none of pi's retry patterns: the run
 * failed at once, no backoff, no `auto_retry_*` event, and the bridge showed "done (no reply)". What
 * the user should see: the request retried after a backoff, and the answer. The same for a
 * gateway's "upstream_error: Upstream request failed" (oh-my-pi#2056) and "fail to touch upstream"
 * (pi#9585), and openai-codex's bare "Sorry, something went wrong" (pi#8138); OpenAI's
 * `server_error` (pi#2091) and "You can retry your request" (pi#6019) already were.
 */
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { runJsonScript } from "./helpers.js";

const cli = useCliProject("settle-pi-races-retry-");

/** `settle --mode json -p` on a script whose first model call fails with `errorMessage`, then answers. */
function runFailingOnce(errorMessage: string) {
	// A short backoff: the test waits for the retry, it does not time it.
	return runJsonScript(cli, [{ stopReason: "error", errorMessage }, "Answered after the retry."], { baseDelayMs: 1 });
}

/** Runs {@link runFailingOnce} and checks one retry that succeeded, quietly, with exit 0. */
function expectRetriedOnce(errorMessage: string): { events: Record<string, unknown>[] } {
	const { code, events, stderr } = runFailingOnce(errorMessage);
	expect(stderr).toBe("");
	expect(code).toBe(0);
	expect(events.filter((event) => event.type === "auto_retry_start")).toEqual([
		expect.objectContaining({ attempt: 1, errorMessage }),
	]);
	expect(events.filter((event) => event.type === "auto_retry_end")).toEqual([
		expect.objectContaining({ success: true, attempt: 1 }),
	]);
	return { events };
}

describe("oh-my-pi#2056 / pi#9585 / pi#8138: a gateway's or Codex's transient failure text is not retried", () => {
	for (const [report, errorMessage] of [
		["oh-my-pi#2056", "upstream_error: Upstream request failed"],
		["pi#9585", "fail to touch upstream"],
		["pi#8138", "Sorry, something went wrong"],
	] as const) {
		it(`${report}: "${errorMessage}" is retried after a backoff and the run answers (exit 0)`, () => {
			const { events } = expectRetriedOnce(errorMessage);
			expect(events.at(-1)).toEqual({ type: "agent_settled" });
		});
	}

	it('pi#8138: a longer text that merely contains "Sorry, something went wrong" (a model\'s refusal wording) is not retried', () => {
		const { code, events } = runFailingOnce("Sorry, something went wrong with your file: it is not valid UTF-8");
		expect(code).not.toBe(0);
		expect(events.some((event) => event.type === "auto_retry_start")).toBe(false);
	});
});

describe('pi#2091 / pi#6019: OpenAI\'s server_error and "You can retry your request" texts', () => {
	for (const [report, errorMessage] of [
		[
			"pi#2091",
			'Codex error: {"type":"error","error":{"type":"server_error","code":"server_error","message":"An error occurred while processing your request."}}',
		],
		[
			"pi#6019",
			"An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists.",
		],
	] as const) {
		it(`${report}: retried after a backoff and the run answers (exit 0)`, () => {
			const { code, events } = runFailingOnce(errorMessage);
			expect(code).toBe(0);
			expect(events.filter((event) => event.type === "auto_retry_end")).toEqual([
				expect.objectContaining({ success: true, attempt: 1 }),
			]);
		});
	}
});

describe("pi-msg#80: an HTTP/2 stream cut mid-body is not retried", () => {
	for (const errorMessage of [
		"Upstream error from Together: Stream error: h2 protocol error: error reading a body from connection",
		"error reading a body from connection: unexpected end of file",
		"Stream error: h2 protocol error: frame with invalid size",
	]) {
		it(`pi-msg#80: "${errorMessage}" is retried after a backoff and the run answers (exit 0)`, () => {
			const { events } = expectRetriedOnce(errorMessage);
			const answers = events
				.filter((event) => event.type === "message_end")
				.map((event) => event.message as { role: string; stopReason?: string })
				.filter((message) => message.role === "assistant");
			expect(answers.map((message) => message.stopReason)).toEqual(["error", "stop"]);
			expect(JSON.stringify(answers.at(-1))).toContain("Answered after the retry.");
			expect(events.at(-1)).toEqual({ type: "agent_settled" });
		});
	}

	it("pi-msg#80: a request the provider refused (400 invalid_request_error) is still not retried: one answer, the error, exit non-zero", () => {
		const { code, events } = runFailingOnce(
			'400 {"type":"invalid_request_error","message":"messages: text content blocks must be non-empty"}',
		);
		expect(code).not.toBe(0);
		expect(code).not.toBeNull();
		expect(events.some((event) => event.type === "auto_retry_start")).toBe(false);
	});
});
