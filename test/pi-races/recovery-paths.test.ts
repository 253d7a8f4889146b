/**
 * The prompt operation's recovery paths (auto-retry and compaction recovery), replayed from reports
 * against pi and projects built on it:
 *
 * - oh-my-pi#5375: a provider turn that ended `stopReason: "error"` with the bare abort sentinel
 *   "Request was aborted" (a stalled stream the provider dropped, not the user's abort) was never
 *   retried, though retry was on: the turn died and control went back to the user.
 * - pi#6303 / pi#8826: the agent-level backoff `baseDelayMs · 2^(attempt−1)` had no cap: with
 *   `maxRetries: 10` a long 5xx outage grew the waits to minutes, then hours.
 * - pi#4666: an OpenAI-compatible provider's 429 with `Retry-After`: the provider client waited it
 *   out inside the request, Esc did not cancel the wait, and the session stayed half frozen.
 * - pi#6827: an extension's `agent_end` handler could not tell a failure pi was about to retry from
 *   one it gave up on (only the session's listeners got `willRetry`): it preempted the retry.
 * - oh-my-pi#275: auto-compaction reported a failure, yet a summary was applied: the next answer
 *   continued from a stale state; xyne-spaces#306: a summarizer that answered with reasoning only
 *   gave an empty summary that was committed, wiping the context.
 *
 * Real `settle -p` child processes on a faux script, SDK sessions writing real session files, and a
 * session talking to a local HTTP server through pi-ai's real OpenAI client.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxThinking } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { useCliProject } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";
import {
	BIG_ANSWER,
	comparable,
	errorReply,
	OVERLOADED,
	reopenedContext,
	runJsonScript,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./helpers.js";

const cli = useCliProject("settle-pi-races-recovery-");

/** `settle --mode json -p go` on `steps` with `retry` settings (see {@link runJsonScript}). */
const runScript = (steps: unknown[], retry: Record<string, unknown>) => runJsonScript(cli, steps, retry);

const ofType = (events: Record<string, unknown>[], type: string) => events.filter((event) => event.type === type);

describe('oh-my-pi#5375: an error stop with the bare "Request was aborted" sentinel is never retried', () => {
	for (const sentinel of ["Request was aborted", "Request was aborted.", "This operation was aborted"]) {
		it(`oh-my-pi#5375: "${sentinel}" on stopReason "error" is retried after a backoff and the run answers (exit 0)`, () => {
			const { code, events, stderr } = runScript(
				[{ stopReason: "error", errorMessage: sentinel }, "Answered after the retry."],
				{ baseDelayMs: 1 },
			);
			expect(stderr).toBe("");
			expect(code).toBe(0);
			expect(ofType(events, "auto_retry_start")).toEqual([
				expect.objectContaining({ attempt: 1, errorMessage: sentinel }),
			]);
			expect(ofType(events, "auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
			const answers = ofType(events, "message_end")
				.map((event) => event.message as { role: string; content: { type: string; text?: string }[] })
				.filter((message) => message.role === "assistant");
			expect(answers.at(-1)?.content).toEqual([{ type: "text", text: "Answered after the retry." }]);
			expect(events.at(-1)).toEqual({ type: "agent_settled" });
		});
	}

	it('oh-my-pi#5375: the same text on an "aborted" stop (an abort, not a provider failure) is still not retried', () => {
		const { events } = runScript([{ stopReason: "aborted", errorMessage: "Request was aborted" }, "never requested"], {
			baseDelayMs: 1,
		});
		expect(ofType(events, "auto_retry_start")).toEqual([]);
		expect(JSON.stringify(events)).not.toContain("never requested");
	});

	it("oh-my-pi#5375: a longer text that only mentions an abort (a tool's or the model's words) is not retried", () => {
		const { code, events } = runScript(
			[{ stopReason: "error", errorMessage: "Request was aborted by policy: this key may not use the model" }],
			{ baseDelayMs: 1 },
		);
		expect(code).not.toBe(0);
		expect(ofType(events, "auto_retry_start")).toEqual([]);
	});
});

describe("pi#6303 / pi#8826: the agent-level retry backoff grows without a cap", () => {
	it("pi#6303: five 503s in a row wait 1, 2, 3, 3, 3 ms under maxAgentDelayMs 3 (pi: 1, 2, 4, 8, 16), then the answer arrives", () => {
		const failure = { stopReason: "error", errorMessage: "503 upstream call failed: Connect: Too many open files" };
		const { code, events, stderr } = runScript(
			[failure, failure, failure, failure, failure, "Back after the outage."],
			{
				maxRetries: 10,
				baseDelayMs: 1,
				maxAgentDelayMs: 3,
			},
		);
		expect(stderr).toBe("");
		expect(code).toBe(0);
		expect(ofType(events, "auto_retry_start").map((event) => [event.attempt, event.delayMs])).toEqual([
			[1, 1],
			[2, 2],
			[3, 3],
			[4, 3],
			[5, 3],
		]);
		expect(ofType(events, "auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 5 })]);
	});
});

describe("oh-my-pi#275: auto-compaction reports a failure but a summary is applied", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	const failures = [
		{
			report: "oh-my-pi#275",
			what: "a summary request that fails (400)",
			reply: () =>
				fauxAssistantMessage("## Goal\nstale summary", {
					stopReason: "error",
					errorMessage: "400 invalid_request_error: messages: roles must alternate",
				}),
			error: "roles must alternate",
		},
		{
			report: "xyne-spaces#306",
			what: "a summarizer that answers with thinking only (no text)",
			reply: () => fauxAssistantMessage([fauxThinking("stale summary: planning what to write")]),
			error: "no summary text",
		},
	];
	for (const failure of failures) {
		it(`${failure.report}: a threshold compaction after ${failure.what} applies nothing: no compaction entry, the next request holds the whole history, the file reopens to the live context`, async () => {
			h = await createHarness({ persistence: "disk", ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS });
			const requests = script(
				h,
				[fauxAssistantMessage("short"), fauxAssistantMessage(BIG_ANSWER), fauxAssistantMessage("after")],
				{ summary: failure.reply },
			);
			await h.session.prompt("first");
			await h.session.prompt("second");

			const ends = h.eventsOfType("compaction_end");
			expect(ends).toEqual([
				expect.objectContaining({ reason: "threshold", result: undefined, aborted: false, willRetry: false }),
			]);
			expect(ends[0]?.errorMessage).toContain(failure.error);
			expect(requests.summaryRequests.length).toBeGreaterThan(0);

			await h.session.prompt("third");
			// Nothing of the failed summary anywhere: not in the request, the live context or the file.
			const last = requests.answerRequests.at(-1)!;
			expect(userTexts(last)).toEqual(["first", "second", "third"]);
			expect(JSON.stringify(last.messages)).not.toContain("stale summary");
			expect(h.session.messages.some((message) => message.role === "compactionSummary")).toBe(false);
			const file = h.sessionManager.getSessionFile()!;
			const lines = readFileSync(file, "utf8").trim().split("\n");
			expect(lines.filter((line) => JSON.parse(line).type === "compaction")).toEqual([]);
			expect(readFileSync(file, "utf8")).not.toContain("stale summary");
			expect(reopenedContext(file).map(comparable)).toEqual(h.session.messages.map(comparable));
		});
	}
});

describe("pi#4666: abort() while the provider client waits out a 429's Retry-After", () => {
	const wireSession = useWireSession();

	it("pi#4666: the OpenAI client's own retry wait (Retry-After: 20) is cut by abort(): the turn ends aborted, nothing is sent again, and the next prompt is answered", async () => {
		// The SDK's default retries (2), as a user has them: the client honours Retry-After itself.
		const w = await wireSession({ api: "openai-completions", sdkMaxRetries: undefined });
		const limited = "Rate limit reached for requests. Please try again in 20s.";
		const tooMany = openAiError(429, limited, "requests", "rate_limit_exceeded", { "retry-after": "20" });
		let delivered!: () => void;
		const sent = new Promise<void>((resolve) => {
			delivered = resolve;
		});
		w.server.reply((request, res, req) => {
			res.on("finish", delivered);
			tooMany(request, res, req);
		});
		const session = w.session;
		const prompt = session.prompt("hello");
		// Abort once the client has the 429 and is waiting: the response sent, the client's I/O read.
		await sent;
		for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
		await session.abort();
		await prompt;

		expect(lastAssistant(w)).toMatchObject({ stopReason: "aborted" });
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(w.eventsOf("agent_settled")).toHaveLength(1);
		expect(session.isIdle).toBe(true);

		w.server.reply(chatReply([{ type: "text", text: "answered" }]));
		await session.prompt("again");
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "answered" }] });
		// The abandoned wait sent nothing: the second request is the new prompt's.
		expect(w.server.requests).toHaveLength(2);
		expect(JSON.stringify(w.server.requests[1]!.body)).toContain("again");
	});
});

describe("pi#6827: an extension's agent_end cannot tell a failure that will be retried from a final one", () => {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});

	it("pi#6827: the extension's agent_end carries willRetry: true before the retry, false once retries are spent and after an answer, as the session's agent_end", async () => {
		const seen: { willRetry: boolean | undefined; stopReason: string | undefined }[] = [];
		h = await createHarness({
			settings: { retry: { baseDelayMs: 1, maxRetries: 1 } },
			extensionFactories: [
				(pi) => {
					pi.on("agent_end", (event) => {
						const last = event.messages.findLast((message) => message.role === "assistant");
						seen.push({
							willRetry: event.willRetry,
							stopReason: last?.role === "assistant" ? last.stopReason : undefined,
						});
					});
				},
			],
		});
		script(h, [errorReply(OVERLOADED), errorReply(OVERLOADED), fauxAssistantMessage("answered")]);
		await h.session.prompt("first");
		await h.session.prompt("second");

		expect(seen).toEqual([
			{ willRetry: true, stopReason: "error" },
			{ willRetry: false, stopReason: "error" },
			{ willRetry: false, stopReason: "stop" },
		]);
		expect(h.eventsOfType("agent_end").map((event) => event.willRetry)).toEqual(seen.map((end) => end.willRetry));
		expect(h.eventsOfType("auto_retry_end")).toEqual([expect.objectContaining({ success: false, attempt: 1 })]);
	});
});
