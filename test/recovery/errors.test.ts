import { readFileSync } from "node:fs";
import { isContextOverflow as piIsContextOverflow } from "@mariozechner/pi-ai";
import { AgentSession } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import {
	classifyAssistantError,
	isContextOverflow,
	isRecoverableLength,
	isRetryableError,
	parseRequestedRetryDelayMs,
} from "../../src/llm/errors.js";
import { assistant, failed, testModel } from "./helpers.js";

interface ProviderErrorFixture {
	id: string;
	provider: string;
	source: string;
	errorMessage: string;
	expected: "overflow" | "retryable" | "fatal";
	requestedDelayMs?: number;
}

const fixture = JSON.parse(
	readFileSync(new URL("../fixtures/recovery/provider-errors.json", import.meta.url), "utf8"),
) as { errors: ProviderErrorFixture[] };

/** Texts where Settle deliberately differs from pi-ai 0.73.1's `isContextOverflow`. */
const OVERFLOW_DIVERGES_FROM_PI = new Set([
	"bedrock-raw-throttling-exception",
	// A plan's refusal typed rate_limit_error: pi retries it; compacting below 200k tokens passes it.
	"anthropic-429-long-context-without-plan",
]);

/** Texts where Settle's retry decision deliberately differs from pi-coding-agent 0.73.1's. */
const RETRY_DIVERGES_FROM_PI = new Set([
	// pi retries these; waiting does not fix them.
	"anthropic-400-with-digits-in-request-id", // "500"/"429" inside a request id
	"anthropic-429-long-context-without-plan", // hermes-agent#4747: compacted instead
	"openai-429-insufficient-quota",
	"google-429-per-day-free-tier",
	"qwen-429-token-plan-exhausted", // qwen-code#7841
	"qwen-429-quota-exhausted-no-reset",
	"kimi-429-quota-reset-at",
	"kimi-429-weekly-usage-limit",
	"kimi-429-weekly-usage-limit-alone",
	"moonshot-429-exceeded-current-quota",
	"pi-ai-server-delay-quota",
	"openrouter-400-upstream-invalid-request", // pi#5117
	"openai-400-schema-names-timeout", // a field named timeout: pi waited ~14 s of retries for the same refusal
	"vllm-400-unknown-field-timeoutMs",
	"fastapi-422-extra-field-timeout",
	"google-400-unknown-field-timeout",
	"google-400-schema-property-timeout", // properties[timeout]: no quotes to tell it from a timeout
	"openai-responses-stream-error-unsupported-timeout", // no status: only the quotes tell a field from a timeout
	"bedrock-validation-extraneous-timeout", // a 400 whose status pi-ai words "Validation error"
	"openai-400-unknown-parameter-request-timeout",
	"responses-stream-error-unsupported-request-timeout",
	// pi gives up on these transient failures.
	"openai-responses-retry-your-request",
	"bedrock-throttling-tokens",
	"bedrock-raw-throttling-exception",
	"bedrock-model-stream-error",
	"bedrock-model-stream-error-documented", // oh-my-pi#12449
	"econnreset",
	"econnrefused",
	"enotfound",
	"eai-again",
	"etimedout",
	"go-proxy-deadline-exceeded",
	"node-request-esockettimedout",
	"openrouter-finish-reason-error", // pi#9002
]);

/** pi 0.73.1's own retry classifier (a private method; it only reads `this.model`). */
const piIsRetryableError = (message: unknown): boolean =>
	(
		AgentSession.prototype as unknown as { _isRetryableError(this: unknown, message: unknown): boolean }
	)._isRetryableError.call({ model: testModel }, message);

describe("provider error table", () => {
	it("covers every class with real texts", () => {
		const classes = new Set(fixture.errors.map((entry) => entry.expected));
		expect(classes).toEqual(new Set(["overflow", "retryable", "fatal"]));
		expect(fixture.errors.length).toBeGreaterThan(60);
	});

	it.each(fixture.errors.map((entry) => [entry.id, entry] as const))("%s", (_id, entry) => {
		const message = failed(entry.errorMessage);
		expect(classifyAssistantError(message, testModel)).toBe(entry.expected);
		expect(isRetryableError(message)).toBe(entry.expected === "retryable");
		expect(isContextOverflow(message, testModel.contextWindow)).toBe(entry.expected === "overflow");
		expect(parseRequestedRetryDelayMs(entry.errorMessage)).toBe(entry.requestedDelayMs);
	});

	it("agrees with pi-ai 0.73.1 on overflow for every text except documented divergences", () => {
		const disagreements = fixture.errors
			.filter((entry) => {
				const message = failed(entry.errorMessage);
				return isContextOverflow(message) !== piIsContextOverflow(message as never);
			})
			.map((entry) => entry.id);
		expect(new Set(disagreements)).toEqual(OVERFLOW_DIVERGES_FROM_PI);
	});

	it("agrees with pi-coding-agent 0.73.1 on retrying except for documented divergences", () => {
		const disagreements = fixture.errors
			.filter((entry) => {
				const message = failed(entry.errorMessage);
				return isRetryableError(message) !== piIsRetryableError(message);
			})
			.map((entry) => entry.id);
		expect(new Set(disagreements)).toEqual(RETRY_DIVERGES_FROM_PI);
	});
});

describe("isContextOverflow", () => {
	const c5Texts = [
		"prompt is too long",
		"input is too long for requested model",
		"exceeds the context window",
		"input token count (5) exceeds the maximum",
		"maximum prompt length is 42",
		"reduce the length of the messages",
		"maximum context length is 42 tokens",
		"exceeds the limit of 42",
		"exceeds the available context size",
		"greater than the context length",
		"context window exceeds limit",
		"exceeded model token limit",
		"too large for model with 42 maximum context length",
		"model_context_window_exceeded",
		"context_length_exceeded",
		"context length exceeded",
		"too many tokens",
		"token limit exceeded",
		"400 (no body)",
		"413 status code (no body)",
	];

	it.each(c5Texts)("recognises %s in any case", (text) => {
		expect(isContextOverflow(failed(text))).toBe(true);
		expect(isContextOverflow(failed(text.toUpperCase()))).toBe(true);
	});

	it("never treats rate-limit or throttling texts as overflow", () => {
		expect(isContextOverflow(failed("Too many requests: too many tokens"))).toBe(false);
		expect(isContextOverflow(failed("rate limit: token limit exceeded"))).toBe(false);
		expect(isContextOverflow(failed("Throttling error: Too many tokens, please wait"))).toBe(false);
	});

	it("only matches the Cerebras no-body text at the start", () => {
		expect(isContextOverflow(failed("upstream said 400 (no body)"))).toBe(false);
	});

	it("needs stopReason error for text matches", () => {
		expect(isContextOverflow(assistant({ stopReason: "stop", errorMessage: "prompt is too long" }))).toBe(false);
	});

	it("detects a successful answer whose input + cacheRead exceeded the window", () => {
		const over = assistant({ usage: { input: 150_000, cacheRead: 50_001 } });
		expect(isContextOverflow(over, 200_000)).toBe(true);
		expect(isContextOverflow(assistant({ usage: { input: 150_000, cacheRead: 50_000 } }), 200_000)).toBe(false);
		// Without a window only the text rule applies.
		expect(isContextOverflow(over)).toBe(false);
		// Output tokens do not count toward the input side.
		expect(isContextOverflow(assistant({ usage: { input: 199_000, output: 5_000 } }), 200_000)).toBe(false);
	});

	it("detects a zero-output length stop that filled the window (silent input truncation)", () => {
		expect(isContextOverflow(assistant({ stopReason: "length", usage: { input: 199_000 } }), 200_000)).toBe(true);
		expect(isContextOverflow(assistant({ stopReason: "length", usage: { input: 100_000 } }), 200_000)).toBe(false);
		expect(isContextOverflow(assistant({ stopReason: "length", usage: { input: 199_000, output: 3 } }), 200_000)).toBe(
			false,
		);
	});
});

describe("isRecoverableLength", () => {
	it("is a length stop that ended below the output cap", () => {
		expect(isRecoverableLength(assistant({ stopReason: "length", usage: { output: 1_200 } }), testModel)).toBe(true);
		expect(isRecoverableLength(assistant({ stopReason: "length", usage: { output: 32_000 } }), testModel)).toBe(false);
		expect(isRecoverableLength(assistant({ stopReason: "stop", usage: { output: 10 } }), testModel)).toBe(false);
	});

	it("uses the cap the request asked for when given", () => {
		const hitRequestCap = assistant({ stopReason: "length", usage: { output: 16_000 } });
		expect(isRecoverableLength(hitRequestCap, testModel)).toBe(true);
		expect(isRecoverableLength(hitRequestCap, testModel, { requestedMaxTokens: 16_000 })).toBe(false);
	});
});

describe("isRetryableError", () => {
	it("needs stopReason error and an error text", () => {
		expect(isRetryableError(assistant({ stopReason: "error" }))).toBe(false);
		expect(isRetryableError(assistant({ stopReason: "aborted", errorMessage: "503 overloaded" }))).toBe(false);
		expect(isRetryableError(assistant({ stopReason: "stop", errorMessage: "503 overloaded" }))).toBe(false);
	});

	it("never retries an overflow even when it carries a 5xx-looking status", () => {
		expect(isRetryableError(failed("500 prompt is too long: 300000 tokens > 200000 maximum"))).toBe(false);
	});

	it("rejects quota and credential texts before matching transient ones", () => {
		expect(isRetryableError(failed("429 insufficient_quota"))).toBe(false);
		expect(isRetryableError(failed("503 billing account suspended"))).toBe(false);
		expect(isRetryableError(failed("502 invalid_api_key"))).toBe(false);
		expect(isRetryableError(failed("The usage limit has been reached (429)"))).toBe(false);
	});
});

describe("classifyAssistantError", () => {
	const otherModel = { provider: "faux", id: "smaller-model" };

	it("maps each stop reason", () => {
		expect(classifyAssistantError(assistant({ stopReason: "stop" }), testModel)).toBe("none");
		expect(classifyAssistantError(assistant({ stopReason: "toolUse" }), testModel)).toBe("none");
		expect(classifyAssistantError(assistant({ stopReason: "aborted" }), testModel)).toBe("none");
		expect(classifyAssistantError(assistant({ stopReason: "error" }), testModel)).toBe("fatal");
		expect(classifyAssistantError(assistant({ stopReason: "length", usage: { output: 10 } }), testModel)).toBe(
			"length_overflow",
		);
		expect(classifyAssistantError(assistant({ stopReason: "length", usage: { output: 32_000 } }), testModel)).toBe(
			"none",
		);
	});

	it("classifies a successful over-window answer as overflow", () => {
		expect(classifyAssistantError(assistant({ usage: { input: 250_000 } }), testModel)).toBe("overflow");
	});

	it("ignores overflow signals from another model (C.5 step 3)", () => {
		expect(classifyAssistantError(failed("prompt is too long", otherModel), testModel)).toBe("fatal");
		expect(classifyAssistantError(assistant({ usage: { input: 250_000 }, model: otherModel }), testModel)).toBe("none");
		expect(
			classifyAssistantError(assistant({ stopReason: "length", usage: { output: 1 }, model: otherModel }), testModel),
		).toBe("none");
		// Retry classification does not depend on the model.
		expect(classifyAssistantError(failed("fetch failed", otherModel), testModel)).toBe("retryable");
	});
});

describe("parseRequestedRetryDelayMs", () => {
	it.each([
		["Please retry in 23s", 23_000],
		["please retry in 1.5 seconds", 1_500],
		["retry after 2 seconds", 2_000],
		["Retry after 1 minute", 60_000],
		['retryDelay: "30s"', 30_000],
		['{"retryDelay":"45s"}', 45_000],
		["Please try again in 6m0s.", 360_000],
		["Please try again in 250ms.", 250],
		["Your quota will reset after 5h.", 18_000_000],
		["Retry-After: 30", 30_000],
		['"retry-after-ms":"1500"', 1_500],
		// pi#7134: an error body's snake_case fields (Cerebras' retry_after_seconds).
		['429 {"type":"too_many_requests_error","retry_after_seconds":59}', 59_000],
		['{"retry_after":2}', 2_000],
		['{"retry_after_ms":750}', 750],
		["Server requested 120s retry delay (max: 60s). slow down", 120_000],
		["Server requested 90s retry delay (max: 60s). Please retry in 89s.", 90_000],
	])("%s → %d ms", (text, expected) => {
		expect(parseRequestedRetryDelayMs(text)).toBe(expected);
	});

	it.each([undefined, "", "fetch failed", "retry later", "529 overloaded", "max: 60s"])(
		"returns undefined for %s",
		(text) => {
			expect(parseRequestedRetryDelayMs(text)).toBeUndefined();
		},
	);
});
