import { describe, expect, it } from "vitest";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import {
	CHECKPOINT_PROMPT,
	CHECKPOINT_UPDATE_PROMPT,
	SUMMARIZATION_SYSTEM_PROMPT,
	TURN_PREFIX_PROMPT,
} from "../../src/compaction/prompts.js";
import { compact, generateSummary } from "../../src/compaction/summarize.js";
import {
	type CompactionPreparation,
	DEFAULT_COMPACTION_SETTINGS,
	type SummarizationRetryOptions,
} from "../../src/compaction/types.js";
import { SettleError } from "../../src/errors.js";
import { type AgentMessage, emptyUsage, type Model } from "../../src/llm/types.js";
import { testModel } from "../recovery/helpers.js";
import { call, EntryLog, requestText, scriptedStream } from "./builders.js";

const t = (tokens: number) => "x".repeat(tokens * 4);
const conversation: AgentMessage[] = [
	{ role: "user", content: "Fix the failing test in src/math.ts", timestamp: 1 },
	{
		role: "assistant",
		content: [{ type: "text", text: "Looking." }],
		api: "faux",
		provider: "faux",
		model: "test-model",
		usage: emptyUsage(),
		stopReason: "stop",
		timestamp: 2,
	},
];

async function rejection(promise: Promise<unknown>): Promise<SettleError> {
	const error = await promise.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(SettleError);
	return error as SettleError;
}

describe("generateSummary request", () => {
	it("sends our system prompt and one user message with the conversation in <conversation> tags, no tools", async () => {
		const { streamFn, requests } = scriptedStream([{ text: "## Goal\nfix" }]);
		const signal = new AbortController().signal;
		const result = await generateSummary(conversation, {
			model: testModel,
			streamFn,
			apiKey: "key-1",
			headers: { "x-test": "1" },
			signal,
			reserveTokens: 10_000,
		});
		expect(result.text).toBe("## Goal\nfix");
		expect(requests).toHaveLength(1);
		const [request] = requests;
		expect(request!.context.systemPrompt).toBe(SUMMARIZATION_SYSTEM_PROMPT);
		expect(SUMMARIZATION_SYSTEM_PROMPT).toMatch(/context summarization assistant/);
		expect(request!.context.tools).toBeUndefined();
		expect(request!.context.messages).toHaveLength(1);
		expect(request!.context.messages[0]!.role).toBe("user");
		expect(requestText(request!)).toBe(
			`<conversation>\n[User]: Fix the failing test in src/math.ts\n\n[Assistant]: Looking.\n</conversation>\n\n${CHECKPOINT_PROMPT}`,
		);
		expect(request!.options).toMatchObject({ maxTokens: 8000, apiKey: "key-1", headers: { "x-test": "1" }, signal });
		expect(request!.options?.reasoning).toBeUndefined();
	});

	it("asks for the structured checkpoint sections", () => {
		for (const heading of [
			"## Goal",
			"## Constraints & Preferences",
			"## Progress",
			"### Done",
			"### In Progress",
			"### Blocked",
			"## Key Decisions",
			"## Next Steps",
			"## Critical Context",
		]) {
			expect(CHECKPOINT_PROMPT).toContain(heading);
			expect(CHECKPOINT_UPDATE_PROMPT).toContain(heading);
		}
	});

	it("uses update mode with the previous summary when there is one, and appends custom instructions", async () => {
		const { streamFn, requests } = scriptedStream([{ text: "updated" }]);
		await generateSummary(conversation, {
			model: testModel,
			streamFn,
			reserveTokens: 16_384,
			previousSummary: "## Goal\nold goal",
			customInstructions: "focus on the test names",
		});
		const text = requestText(requests[0]!);
		expect(text).toContain("</conversation>\n\n<previous-summary>\n## Goal\nold goal\n</previous-summary>\n\n");
		expect(text.endsWith(`${CHECKPOINT_UPDATE_PROMPT}\n\nAdditional focus: focus on the test names`)).toBe(true);
		expect(text).not.toContain(CHECKPOINT_PROMPT);
	});

	it("asks reasoning models to reason at the session's thinking level", async () => {
		const reasoningModel: Model = { ...testModel, reasoning: true };
		const { streamFn, requests } = scriptedStream([{ text: "a" }, { text: "b" }, { text: "c" }]);
		await generateSummary(conversation, {
			model: reasoningModel,
			streamFn,
			reserveTokens: 100,
			thinkingLevel: "medium",
		});
		await generateSummary(conversation, { model: reasoningModel, streamFn, reserveTokens: 100, thinkingLevel: "off" });
		await generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 100, thinkingLevel: "high" });
		expect(requests.map((request) => request.options?.reasoning)).toEqual(["medium", undefined, undefined]);
	});
});

describe("generateSummary failures", () => {
	it("surfaces a provider error with its text", async () => {
		const { streamFn } = scriptedStream([{ error: '529 {"type":"error","error":{"type":"overloaded_error"}}' }]);
		const error = await rejection(generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 100 }));
		expect(error.code).toBe("PROVIDER");
		expect(error.message).toBe('Summarization failed: 529 {"type":"error","error":{"type":"overloaded_error"}}');
		expect(error.details).toMatchObject({ stopReason: "error" });
	});

	it("surfaces a throwing stream function", async () => {
		const { streamFn } = scriptedStream([{ throws: "No API key for provider: faux" }]);
		const error = await rejection(generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 100 }));
		expect(error).toMatchObject({ code: "PROVIDER", message: "Summarization failed: No API key for provider: faux" });
	});

	it("refuses an empty summary", async () => {
		const { streamFn } = scriptedStream([{ text: "  " }]);
		const error = await rejection(generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 100 }));
		expect(error.code).toBe("PROVIDER");
		expect(error.message).toMatch(/no summary text/);
	});

	it("reports an aborted answer as ABORTED", async () => {
		const { streamFn } = scriptedStream([{ aborted: true }]);
		const error = await rejection(generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 100 }));
		expect(error.code).toBe("ABORTED");
	});

	it("does not call the model when the signal is already aborted", async () => {
		const { streamFn, requests } = scriptedStream([{ text: "never" }]);
		const controller = new AbortController();
		controller.abort();
		const error = await rejection(
			generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 100, signal: controller.signal }),
		);
		expect(error.code).toBe("ABORTED");
		expect(requests).toHaveLength(0);
	});

	it("settles when aborted mid-request, even if the stream ignores the signal", async () => {
		const controller = new AbortController();
		const ignoring = scriptedStream([{ hangUntilAborted: true }]);
		const pending = generateSummary(conversation, {
			model: testModel,
			// Drop the signal so the stream never ends by itself.
			streamFn: (model, context, options) => ignoring.streamFn(model, context, { ...options, signal: undefined }),
			reserveTokens: 100,
			signal: controller.signal,
		});
		controller.abort();
		expect((await rejection(pending)).code).toBe("ABORTED");
	});
});

function splitTurnPreparation(): CompactionPreparation {
	const log = new EntryLog();
	log.user("Earlier request");
	log.assistant("Earlier answer");
	log.user("Refactor src/app.ts");
	log.assistant("", [call("c1", "read", { path: "src/app.ts" })]);
	log.toolResult("c1", "read", "contents");
	log.assistant("", [call("c2", "edit", { path: "src/app.ts" }), call("c3", "write", { path: "src/new.ts" })]);
	log.toolResult("c2", "edit", "ok");
	log.toolResult("c3", "write", "ok");
	log.assistant(t(500));
	const preparation = prepareCompaction(log.entries, { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 500 })!;
	expect(preparation.isSplitTurn).toBe(true);
	return preparation;
}

describe("compact", () => {
	it("returns the compaction entry fields: summary with file lists, kept id, tokensBefore, details, usage", async () => {
		const log = new EntryLog();
		log.user("Read the config");
		log.assistant("", [call("c1", "read", { path: "config.json" }), call("c2", "edit", { path: "src/a.ts" })]);
		log.toolResult("c1", "read", "{}");
		log.toolResult("c2", "edit", "ok");
		log.assistant("done");
		const kept = log.user(t(300));
		const preparation = prepareCompaction(log.entries, { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 300 })!;
		const { streamFn, requests } = scriptedStream([
			{ text: "## Goal\nRead config", usage: { input: 120, output: 30, totalTokens: 150 } },
		]);
		const result = await compact(preparation, { model: testModel, streamFn, customInstructions: "keep paths" });
		expect(result).toEqual({
			summary:
				"## Goal\nRead config\n\n<read-files>\nconfig.json\n</read-files>\n\n<modified-files>\nsrc/a.ts\n</modified-files>",
			firstKeptEntryId: kept.id,
			tokensBefore: preparation.tokensBefore,
			details: { readFiles: ["config.json"], modifiedFiles: ["src/a.ts"] },
			usage: expect.objectContaining({ input: 120, output: 30, totalTokens: 150 }),
		});
		expect(requests).toHaveLength(1);
		expect(requestText(requests[0]!)).toMatch(/Additional focus: keep paths$/);
		expect(requests[0]!.options?.maxTokens).toBe(Math.floor(0.8 * 16_384));
	});

	it("summarizes a split turn's prefix separately and joins it after ---", async () => {
		const preparation = splitTurnPreparation();
		const { streamFn, requests } = scriptedStream([
			{ text: "HISTORY", usage: { input: 10, output: 1, totalTokens: 11 } },
			{ text: "PREFIX", usage: { input: 20, output: 2, totalTokens: 22 } },
		]);
		const result = await compact(preparation, { model: testModel, streamFn });
		expect(requests).toHaveLength(2);
		const prefixRequest = requests.find((request) => requestText(request).endsWith(TURN_PREFIX_PROMPT))!;
		expect(requestText(prefixRequest)).toMatch(/^<conversation>\n\[User\]: Refactor src\/app.ts/);
		expect(prefixRequest.options?.maxTokens).toBe(Math.floor(0.5 * 16_384));
		// src/app.ts was read and edited: it is listed as modified only.
		expect(result.summary).toBe(
			"HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<modified-files>\nsrc/app.ts\nsrc/new.ts\n</modified-files>",
		);
		expect(result.usage).toMatchObject({ input: 30, output: 3, totalTokens: 33 });
	});

	it("keeps the previous summary when a split turn leaves no history to summarize", async () => {
		const preparation: CompactionPreparation = {
			...splitTurnPreparation(),
			messagesToSummarize: [],
			previousSummary: "PREVIOUS",
		};
		const { streamFn, requests } = scriptedStream([{ text: "PREFIX" }]);
		const result = await compact(preparation, { model: testModel, streamFn });
		expect(requests).toHaveLength(1);
		expect(result.summary.startsWith("PREVIOUS\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")).toBe(true);
	});

	it("aborts the other request when one fails, and reports the failure", async () => {
		const preparation = splitTurnPreparation();
		const { streamFn, requests } = scriptedStream([{ hangUntilAborted: true }, { error: "503 Service Unavailable" }]);
		const error = await rejection(compact(preparation, { model: testModel, streamFn }));
		expect(error).toMatchObject({
			code: "PROVIDER",
			message: "Turn prefix summarization failed: 503 Service Unavailable",
		});
		expect(requests[0]!.options?.signal?.aborted).toBe(true);
	});

	it("aborts both requests when the caller aborts", async () => {
		const preparation = splitTurnPreparation();
		const controller = new AbortController();
		const { streamFn, requests } = scriptedStream([{ hangUntilAborted: true }, { hangUntilAborted: true }]);
		const pending = compact(preparation, { model: testModel, streamFn, signal: controller.signal });
		controller.abort();
		expect((await rejection(pending)).code).toBe("ABORTED");
		expect(requests.every((request) => request.options?.signal?.aborted)).toBe(true);
	});
});

describe("summarizer retries (options.retry)", () => {
	const retrySettings = { enabled: true, maxRetries: 3, baseDelayMs: 100, maxAgentDelayMs: 250 };

	/** Retry options that record every callback and sleep without waiting (or, with `hold`, until aborted). */
	function recordingRetry(options: { hold?: boolean } = {}) {
		const log: string[] = [];
		const retry: SummarizationRetryOptions = {
			settings: retrySettings,
			sleep: (ms, signal) => {
				log.push(`sleep(${ms})`);
				if (!options.hold) return Promise.resolve();
				return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
			},
			onRetryScheduled: (attempt, max, delayMs, errorMessage) =>
				log.push(`scheduled(${attempt}/${max},${delayMs},${errorMessage})`),
			onRetryAttemptStart: () => log.push("attempt_start"),
			onRetryFinished: (success, attempt, errorMessage) =>
				log.push(`finished(${success},${attempt}${errorMessage ? `,${errorMessage}` : ""})`),
		};
		return { log, retry };
	}

	it("retries transient errors with the capped exponential backoff, then returns the summary", async () => {
		const { log, retry } = recordingRetry();
		const { streamFn, requests } = scriptedStream([
			{ error: "503 Service Unavailable" },
			{ error: "terminated" },
			{ error: "529 overloaded" },
			{ text: "SUMMARY" },
		]);
		const { text } = await generateSummary(conversation, { model: testModel, streamFn, reserveTokens: 1000, retry });
		expect(text).toBe("SUMMARY");
		expect(requests).toHaveLength(4);
		expect(log).toEqual([
			"scheduled(1/3,100,503 Service Unavailable)",
			"sleep(100)",
			"attempt_start",
			"scheduled(2/3,200,terminated)",
			"sleep(200)",
			"attempt_start",
			"scheduled(3/3,250,529 overloaded)",
			"sleep(250)",
			"attempt_start",
			"finished(true,3)",
		]);
	});

	it("a first-attempt success or a non-transient error reports nothing; exhaustion reports the last error", async () => {
		const quiet = recordingRetry();
		const ok = scriptedStream([{ text: "S" }]);
		await generateSummary(conversation, {
			model: testModel,
			streamFn: ok.streamFn,
			reserveTokens: 1000,
			retry: quiet.retry,
		});
		const fatal = scriptedStream([{ error: "401 invalid x-api-key" }]);
		const fatalError = await rejection(
			generateSummary(conversation, {
				model: testModel,
				streamFn: fatal.streamFn,
				reserveTokens: 1000,
				retry: quiet.retry,
			}),
		);
		expect(fatalError.message).toBe("Summarization failed: 401 invalid x-api-key");
		expect(quiet.log).toEqual([]);

		const { log, retry } = recordingRetry();
		const exhausted = scriptedStream([{ error: "503 a" }, { error: "503 b" }, { error: "503 c" }, { error: "503 d" }]);
		const error = await rejection(
			generateSummary(conversation, { model: testModel, streamFn: exhausted.streamFn, reserveTokens: 1000, retry }),
		);
		expect(error.message).toBe("Summarization failed: 503 d");
		expect(log.filter((line) => !line.startsWith("sleep"))).toEqual([
			"scheduled(1/3,100,503 a)",
			"attempt_start",
			"scheduled(2/3,200,503 b)",
			"attempt_start",
			"scheduled(3/3,250,503 c)",
			"attempt_start",
			"finished(false,3,503 d)",
		]);
	});

	it("disabled settings make one attempt; a stream function that throws after a retry still reports finished", async () => {
		const disabled = recordingRetry();
		disabled.retry.settings = { ...retrySettings, enabled: false };
		const once = scriptedStream([{ error: "503 Service Unavailable" }]);
		await rejection(
			generateSummary(conversation, {
				model: testModel,
				streamFn: once.streamFn,
				reserveTokens: 1000,
				retry: disabled.retry,
			}),
		);
		expect(once.requests).toHaveLength(1);
		expect(disabled.log).toEqual([]);

		const { log, retry } = recordingRetry();
		const throwing = scriptedStream([{ error: "503 Service Unavailable" }, { throws: "socket closed by test" }]);
		const error = await rejection(
			generateSummary(conversation, { model: testModel, streamFn: throwing.streamFn, reserveTokens: 1000, retry }),
		);
		expect(error.message).toBe("Summarization failed: socket closed by test");
		expect(log.at(-1)).toBe("finished(false,1,Summarization failed: socket closed by test)");
	});

	it("an abort during the backoff rejects with ABORTED at once and reports finished", async () => {
		const { log, retry } = recordingRetry({ hold: true });
		const controller = new AbortController();
		const { streamFn, requests } = scriptedStream([{ error: "503 Service Unavailable" }, { text: "never" }]);
		const pending = generateSummary(conversation, {
			model: testModel,
			streamFn,
			reserveTokens: 1000,
			signal: controller.signal,
			retry: {
				...retry,
				onRetryScheduled: (...args) => {
					retry.onRetryScheduled?.(...args);
					setImmediate(() => controller.abort());
				},
			},
		});
		expect((await rejection(pending)).code).toBe("ABORTED");
		expect(requests).toHaveLength(1);
		expect(log).toEqual([
			"scheduled(1/3,100,503 Service Unavailable)",
			"sleep(100)",
			"finished(false,1,503 Service Unavailable)",
		]);
	});

	it("a split turn retries each request on its own; one's final failure aborts the other's backoff", async () => {
		const { log, retry } = recordingRetry({ hold: true });
		const { streamFn } = scriptedStream([{ error: "503 history" }, { error: "400 prefix rejected" }]);
		const error = await rejection(compact(splitTurnPreparation(), { model: testModel, streamFn, retry }));
		expect(error.message).toBe("Turn prefix summarization failed: 400 prefix rejected");
		expect(log).toEqual(["scheduled(1/3,100,503 history)", "sleep(100)", "finished(false,1,503 history)"]);
	});
});
