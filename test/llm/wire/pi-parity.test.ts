/**
 * Settle and pi 0.73.1's AgentSession against the same wire, scenario by scenario: what each sends
 * (messages, tool schemas), what it keeps (messages, stop reasons, errors), and its retry and
 * compaction events must match. One known, deliberate difference is asserted as such.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicError, anthropicPartial, anthropicReply, anthropicStreamError } from "./anthropic.js";
import { chatReply, openAiError } from "./openai.js";
import { type PiWireSession, startPiWireSession } from "./pi-session.js";
import type { RecordedRequest, Reply, Router } from "./server.js";
import { startWireSession, type WireApi, type WireSession } from "./session.js";

const open: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.dispose();
});

interface Scenario {
	api: WireApi;
	settings?: Record<string, unknown>;
	replies: () => Reply[];
	prompts: string[];
	/** Abort once the first text delta arrived. */
	abort?: boolean;
}

const isSummary = (request: RecordedRequest) => {
	const system = request.body?.system?.[0]?.text ?? request.body?.messages?.[0]?.content ?? "";
	return String(system).startsWith("You are a context summarization assistant");
};
const summaries: Router = (request, next) =>
	isSummary(request)
		? request.path.includes("chat")
			? chatReply([{ type: "text", text: "## Goal\nwire summary" }])
			: anthropicReply([{ type: "text", text: "## Goal\nwire summary" }])
		: next();

// biome-ignore lint/suspicious/noExplicitAny: both sessions' messages, read structurally
function blocks(message: any): unknown[] {
	if (typeof message.content === "string") return [message.content];
	// biome-ignore lint/suspicious/noExplicitAny: content blocks of either implementation
	return message.content.map((block: any) =>
		block.type === "text"
			? block.text
			: block.type === "thinking"
				? { thinking: block.thinking }
				: block.type === "toolCall"
					? { call: block.name, arguments: block.arguments }
					: block.type,
	);
}

/** What a user can observe of a run, in a form both implementations produce. */

/**
 * DELIBERATE_REFUSED_KEY_NOTE (README "Coming from pi"): after a 401 or 403 Settle's errorMessage goes
 * on with where the refused key came from (codewhale#2665); pi's is the provider's text alone.
 */
function withoutRefusedKeyNote(errorMessage: string | undefined): string | undefined {
	return errorMessage?.replace(/\n\n\S+ answered 40[13] to [^\n]*$/, "");
}

/**
 * DELIBERATE_CUT_STREAM_NAMED (README "Network failures"): a stream cut mid-answer is named with the
 * address and the socket's cause in Settle ("Connection error: <baseUrl> closed the connection in the
 * middle of its answer (UND_ERR_SOCKET: …)"); pi's text is undici's bare "terminated".
 */
function withoutCutStreamNaming(text: unknown): unknown {
	return typeof text === "string" &&
		/^Connection error: \S+ closed the connection in the middle of its answer \(UND_ERR_SOCKET\b/.test(text)
		? "terminated"
		: text;
}

function outcome(
	// biome-ignore lint/suspicious/noExplicitAny: both sessions' messages
	messages: readonly any[],
	events: readonly { type: string; [key: string]: unknown }[],
	requests: readonly RecordedRequest[],
) {
	const tools = (request: RecordedRequest) =>
		// biome-ignore lint/suspicious/noExplicitAny: provider payloads
		(request.body.tools ?? []).map((tool: any) => [
			tool.name ?? tool.function?.name,
			tool.input_schema ?? tool.function?.parameters,
		]);
	const answers = requests.filter((request) => !isSummary(request));
	return {
		messages: messages
			.filter((message) => message.role !== "system" && message.role !== "compactionSummary")
			.map((message) => ({
				role: message.role,
				stopReason: message.stopReason,
				errorMessage: withoutCutStreamNaming(withoutRefusedKeyNote(message.errorMessage)),
				content: blocks(message),
				isError: message.isError,
			})),
		events: events
			.filter((event) => event.type.startsWith("auto_retry") || event.type.startsWith("compaction"))
			.map(
				({ type, reason, attempt, maxAttempts, delayMs, errorMessage, success, finalError, willRetry, aborted }) => ({
					type,
					reason,
					attempt,
					maxAttempts,
					delayMs,
					errorMessage: withoutCutStreamNaming(errorMessage),
					success,
					finalError: withoutCutStreamNaming(finalError),
					willRetry,
					aborted,
				}),
			),
		// The system prompts differ by design (each harness has its own); everything else is compared.
		requests: answers.map((request) => ({
			path: request.path,
			messages: (request.body.messages ?? request.body.input).filter(
				(m: { role?: string }) => m.role !== "system" && m.role !== "developer",
			),
		})),
		summaryRequests: requests.length - answers.length,
		tools: answers.length > 0 ? tools(answers[0]!) : [],
	};
}

async function drive(
	// biome-ignore lint/suspicious/noExplicitAny: either session
	session: any,
	scenario: Scenario,
): Promise<void> {
	for (const text of scenario.prompts) {
		if (!scenario.abort) {
			await session.prompt(text);
			continue;
		}
		const streaming = new Promise<void>((resolve) => {
			session.subscribe((event: { type: string; assistantMessageEvent?: { type: string } }) => {
				if (event.type === "message_update" && event.assistantMessageEvent?.type === "text_delta") resolve();
			});
		});
		const prompt = session.prompt(text);
		await streaming;
		await session.abort();
		await prompt;
	}
}

/** Resolves on the next event of `session` that matches. */
function nextEvent(pi: PiWireSession, match: (event: { type: string }) => boolean): Promise<void> {
	return new Promise((resolve) => {
		const unsubscribe = pi.session.subscribe((event: { type: string }) => {
			if (match(event)) {
				unsubscribe();
				resolve();
			}
		});
	});
}

/**
 * pi's `prompt()` resolves before an overflow recovery has run (its compaction runs from the
 * `agent_end` handler in pi's agent-event queue, its re-run from a timer); Settle's covers the whole
 * recovery. Wait for pi's event queue to drain, its compaction to end and, when it re-runs, for that
 * run's `agent_end` — until nothing is left in flight.
 */
async function piRecovered(pi: PiWireSession): Promise<void> {
	const types = () => pi.events.map((event) => event.type);
	for (;;) {
		const queue = pi.session._agentEventQueue as Promise<void>;
		await queue;
		if (pi.session._agentEventQueue !== queue) continue;
		if (types().lastIndexOf("compaction_start") > types().lastIndexOf("compaction_end")) {
			await nextEvent(pi, (event) => event.type === "compaction_end");
			continue;
		}
		const end = pi.events.findLast((event) => event.type === "compaction_end");
		if (end?.willRetry && types().lastIndexOf("agent_end") < types().lastIndexOf("compaction_end")) {
			await nextEvent(pi, (event) => event.type === "agent_end");
			continue;
		}
		return;
	}
}

async function runBoth(scenario: Scenario) {
	const write = (dir: string) => writeFileSync(join(dir, "notes.txt"), "the secret is 42\n");
	const settle: WireSession = await startWireSession({
		api: scenario.api,
		route: summaries,
		settings: { defaultThinkingLevel: "off", ...scenario.settings },
	});
	open.push(settle);
	write(settle.dir);
	settle.server.reply(...scenario.replies());
	await drive(settle.session, scenario);

	const pi: PiWireSession = await startPiWireSession({
		api: scenario.api,
		route: summaries,
		settings: { defaultThinkingLevel: "off", ...scenario.settings },
		cwd: write,
	});
	open.push(pi);
	pi.server.reply(...scenario.replies());
	await drive(pi.session, scenario);
	await piRecovered(pi);
	if (scenario.abort) {
		await settle.server.waitForClientClose(1);
		await pi.server.waitForClientClose(1);
	}
	const normalize = (value: unknown, dir: string) => JSON.parse(JSON.stringify(value).replaceAll(dir, "<cwd>"));
	return {
		settle: normalize(outcome(settle.session.messages, settle.events, settle.server.requests), settle.dir),
		pi: normalize(outcome(pi.session.messages, pi.events, pi.server.requests), pi.dir),
	};
}

const readCall = { type: "tool_use" as const, id: "toolu_01Wire", name: "read", input: { path: "notes.txt" } };
const COMPACTION = { compaction: { keepRecentTokens: 1 } };

const SAME: Record<string, Scenario> = {
	"Anthropic: a text reply": {
		api: "anthropic-messages",
		replies: () => [anthropicReply([{ type: "text", text: "hello" }])],
		prompts: ["hi"],
	},
	"Anthropic: a read tool call and the follow-up": {
		api: "anthropic-messages",
		replies: () => [
			anthropicReply([readCall], { stopReason: "tool_use" }),
			anthropicReply([{ type: "text", text: "It is 42." }]),
		],
		prompts: ["what is in notes.txt?"],
	},
	"Anthropic: 529 then an answer": {
		api: "anthropic-messages",
		replies: () => [
			anthropicError(529, "overloaded_error", "Overloaded"),
			anthropicReply([{ type: "text", text: "ok" }]),
		],
		prompts: ["hi"],
	},
	"Anthropic: retries exhausted": {
		api: "anthropic-messages",
		settings: { retry: { baseDelayMs: 1, maxRetries: 1 } },
		replies: () => [
			anthropicError(500, "api_error", "Internal server error"),
			anthropicError(500, "api_error", "Internal server error"),
		],
		prompts: ["hi"],
	},
	"Anthropic: 401": {
		api: "anthropic-messages",
		replies: () => [anthropicError(401, "authentication_error", "invalid x-api-key")],
		prompts: ["hi"],
	},
	"Anthropic: SSE error event mid-stream": {
		api: "anthropic-messages",
		replies: () => [
			anthropicStreamError("overloaded_error", "Overloaded", [{ type: "text", text: "partial" }]),
			anthropicReply([{ type: "text", text: "ok" }]),
		],
		prompts: ["hi"],
	},
	"Anthropic: connection cut mid-stream": {
		api: "anthropic-messages",
		replies: () => [
			anthropicPartial([{ type: "text", text: "partial" }], 4, "cut"),
			anthropicReply([{ type: "text", text: "ok" }]),
		],
		prompts: ["hi"],
	},
	"Anthropic: prompt is too long, compaction, re-run": {
		api: "anthropic-messages",
		settings: COMPACTION,
		replies: () => [
			anthropicReply([{ type: "text", text: "one" }]),
			anthropicReply([{ type: "text", text: "two" }]),
			anthropicError(400, "invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum"),
			anthropicReply([{ type: "text", text: "three" }]),
		],
		prompts: ["first", "second", "third"],
	},
	"Anthropic: still too long after compaction, recovery gives up": {
		api: "anthropic-messages",
		settings: COMPACTION,
		replies: () => [
			anthropicReply([{ type: "text", text: "one" }]),
			anthropicReply([{ type: "text", text: "two" }]),
			anthropicError(400, "invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum"),
			anthropicError(400, "invalid_request_error", "prompt is too long: 201000 tokens > 200000 maximum"),
		],
		prompts: ["first", "second", "third"],
	},
	"OpenAI completions: a read tool call and the follow-up": {
		api: "openai-completions",
		replies: () => [
			chatReply([{ type: "tool_call", id: "call_1", name: "read", arguments: { path: "notes.txt" } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "It is 42." }]),
		],
		prompts: ["what is in notes.txt?"],
	},
	"OpenAI completions: context_length_exceeded, compaction, re-run": {
		api: "openai-completions",
		settings: COMPACTION,
		replies: () => [
			chatReply([{ type: "text", text: "one" }]),
			chatReply([{ type: "text", text: "two" }]),
			openAiError(
				400,
				"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
				"invalid_request_error",
				"context_length_exceeded",
			),
			chatReply([{ type: "text", text: "three" }]),
		],
		prompts: ["first", "second", "third"],
	},
};

describe("Settle and pi 0.73.1 on the same wire", () => {
	for (const [name, scenario] of Object.entries(SAME)) {
		it(name, async () => {
			const { settle, pi } = await runBoth(scenario);
			expect(settle).toEqual(pi);
		});
	}

	it("deliberate difference: a stream that ended before message_stop is retried by Settle, fatal in pi (pi #4433)", async () => {
		const { settle, pi } = await runBoth({
			api: "anthropic-messages",
			replies: () => [
				anthropicPartial([{ type: "text", text: "partial" }], 5, "end"),
				anthropicReply([{ type: "text", text: "ok" }]),
			],
			prompts: ["hi"],
		});
		expect(pi.messages.at(-1)).toMatchObject({
			stopReason: "error",
			errorMessage: "Anthropic stream ended before message_stop",
		});
		expect(settle.messages.at(-1)).toMatchObject({ stopReason: "stop", content: ["ok"] });
		expect(settle.events.map((e: { type: string }) => e.type)).toEqual(["auto_retry_start", "auto_retry_end"]);
	});

	it('deliberate difference: abort() keeps the partial answer in both; Settle\'s errorMessage is always "Request was aborted"', async () => {
		// Settle's loop stops waiting for the provider on abort and states the abort itself; pi keeps
		// whichever text the SDK's abort produced (the fetch's "This operation was aborted" here).
		const { settle, pi } = await runBoth({
			api: "anthropic-messages",
			replies: () => [anthropicPartial([{ type: "text", text: "streaming forever" }], 4, "hang")],
			prompts: ["go"],
			abort: true,
		});
		expect(settle.messages.at(-1)).toEqual({
			role: "assistant",
			stopReason: "aborted",
			errorMessage: "Request was aborted",
			content: ["streaming"],
		});
		expect(pi.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted", content: ["streaming"] });
		expect({ ...settle, messages: settle.messages.slice(0, -1) }).toEqual({
			...pi,
			messages: pi.messages.slice(0, -1),
		});
	});

	it("deliberate difference: a 429 that names its wait ('Please try again in 20ms') is retried after that wait in Settle, after the plain backoff in pi", async () => {
		const { settle, pi } = await runBoth({
			api: "openai-completions",
			replies: () => [
				openAiError(429, "Rate limit reached. Please try again in 20ms.", "tokens", "rate_limit_exceeded"),
				chatReply([{ type: "text", text: "ok" }]),
			],
			prompts: ["hi"],
		});
		expect(settle.events[0]).toMatchObject({ type: "auto_retry_start", delayMs: 20 });
		expect(pi.events[0]).toMatchObject({ type: "auto_retry_start", delayMs: 1 });
		const withoutDelay = (o: typeof settle) => ({
			...o,
			events: o.events.map((e: object) => ({ ...e, delayMs: undefined })),
		});
		expect(withoutDelay(settle)).toEqual(withoutDelay(pi));
	});
});
