/**
 * Tool call ids one provider wrote, replayed to another model after `setModel`, over HTTP through
 * pi-ai's own clients to a local server that checks ids as OpenAI (at most 40 characters, one id
 * per call) and Anthropic (one id per `tool_use` in a request) do, a whole session from
 * `createAgentSession`, its JSONL on disk.
 *
 * openclaw#31934, litellm#17343: a session whose earlier answers carry tool call ids over 40
 * characters (a proxy's, a gateway's), switched to OpenAI behind a proxy (OpenRouter, LiteLLM,
 * Copilot): "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum
 * length 40" on every request. pi-ai 0.73.1 shortens ids only for the provider named `openai`.
 * What the user should see: the answer, each call under an id of at most 40 characters with its
 * result under the same id, and the same ids on the next request.
 *
 * pi-ai 0.73.1 shortens by cutting at 40, so two calls of one answer whose ids share their first 40
 * characters (Gemini names calls `<tool>_<time>_<n>`) went to OpenAI under one id, two results
 * with it. What the user should see: two ids, each result under its own call's.
 *
 * NVIDIA-NeMo/Switchyard#502, opencode#1150: a model that numbers its calls anew in every answer
 * (Grok over OpenAI Chat: `call_0` each time), then Claude: Anthropic refuses two `tool_use` blocks
 * under one id ("`tool_use` ids must be unique") on every request. What the user should see: the
 * answer, each call under an id of its own, each result under its call's.
 *
 * dyad#4304, Future-House/ldp#479: LiteLLM names Gemini's calls `call_<uuid>__thought__<signature>`
 * (391 characters); a switch to GPT on the Responses API: "Invalid 'input[2].call_id': string too
 * long. Expected a string with maximum length 64". maple-proxy#18: a chat-completions model's ids off
 * Anthropic's pattern, then Claude: "tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'" on
 * every request. What the user should see in both: the answer, each call under an id the API takes.
 *
 * hermes-agent#102629: a chat-completions model that numbers its calls anew each turn
 * (`terminal:0`), then a Responses model: "Duplicate function_call_output for call_id" on every
 * request. What the user should see: the answer, each call under a `call_id` of its own.
 *
 * pi#9057: a Responses server that leaves out the optional item `id` of its `function_call`s: pi-ai
 * sends `undefined` as the item id of each, "Duplicate item found with id undefined" after two calls.
 * What the user should see: the answer, each call under its own `call_id` and no made-up item id.
 *
 * github/copilot-cli#994: a switch from gpt-5.1-codex-mini to gpt-4.1 after a stopped tool run: "An
 * assistant message with 'tool_calls' must be followed by tool messages" on every request. What the
 * user should see: the answer, the stopped call with a result under its id.
 */
import { describe, expect, it } from "vitest";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { responsesEvents, responsesReply } from "../llm/wire/responses.js";
import { type RecordedRequest, type Reply, type Router, sse } from "../llm/wire/server.js";
import {
	anthropicIdRefusal,
	chatBashCall,
	replayedChatCalls,
	resultsUnder,
	type SentChatMessage,
	sentBlocks,
	type WireModelSpec,
	wireProjectsPerTest,
} from "./helpers.js";

const wireProject = wireProjectsPerTest("settle-tool-ids-", "off");

/**
 * The providers' checks on replayed tool calls, as 400s: OpenAI's, an id over 40 characters or one id
 * for two calls of a message; Anthropic's, an id off its pattern or one id for two `tool_use` blocks
 * anywhere in the request.
 */
const idRules: Router = (request, next) => {
	if (request.path.endsWith("/v1/messages")) return anthropicIdRefusal(request) ?? next();
	if (!request.path.endsWith("/chat/completions")) return next();
	const messages = request.body.messages as SentChatMessage[];
	for (const [i, message] of messages.entries()) {
		const ids = (message.tool_calls ?? []).map((call) => call.id);
		for (const [j, id] of ids.entries()) {
			if (id.length > 40) {
				return openAiError(
					400,
					`Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length 40, but got a string with length ${id.length} instead.`,
					"invalid_request_error",
					"string_above_max_length",
				);
			}
		}
		if (new Set(ids).size !== ids.length) {
			return openAiError(400, `messages[${i}].tool_calls: duplicate id`, "invalid_request_error");
		}
	}
	return next();
};

/**
 * A session on `from` that can switch to `to`, both served by one local server that checks ids as
 * the providers do (`route`); the built-in tools run in a temp folder, the JSONL under `sessions/`.
 */
async function switchingSession(from: WireModelSpec, to: WireModelSpec, route: Router = idRules) {
	const { server, model, open } = await wireProject([from, to], { route });
	return { server, session: await open(from), target: model(to) };
}

const RELAY: WireModelSpec = { api: "anthropic-messages", provider: "relay", id: "k3" };

const bash = (id: string, command: string) => ({ type: "tool_use" as const, id, name: "bash", input: { command } });

describe("openclaw#31934, litellm#17343: tool call ids over 40 characters replayed to OpenAI behind a proxy", () => {
	it("openclaw#31934: after setModel(openrouter/openai/gpt-4o) the call goes back under an id of at most 40 characters, its result under the same; the answer arrives, and the next request repeats the ids", async () => {
		const { server, session, target } = await switchingSession(RELAY, {
			api: "openai-completions",
			provider: "openrouter",
			id: "openai/gpt-4o",
		});
		const longId = "fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f";
		server.reply(
			anthropicReply([bash(longId, "echo relayed")], { model: "k3", stopReason: "tool_use" }),
			anthropicReply([{ type: "text", text: "It printed relayed." }], { model: "k3" }),
			chatReply([{ type: "text", text: "Earlier it printed relayed." }], { model: "openai/gpt-4o" }),
			chatReply([{ type: "text", text: "Still relayed." }], { model: "openai/gpt-4o" }),
		);
		await session.prompt("run echo relayed");
		await session.setModel(target);
		await session.prompt("what did the command print?");

		expect(session.messages.at(-1)).toMatchObject({
			role: "assistant",
			provider: "openrouter",
			stopReason: "stop",
			content: [{ type: "text", text: "Earlier it printed relayed." }],
		});
		const pairs = replayedChatCalls(server.requests[2]!);
		expect(pairs).toHaveLength(1);
		expect(pairs[0]!.id.length).toBeLessThanOrEqual(40);
		expect(pairs[0]!.command).toBe("echo relayed");
		expect(pairs[0]!.results).toHaveLength(1);
		expect(pairs[0]!.results[0]).toContain("relayed");

		await session.prompt("and now?");
		expect(session.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ text: "Still relayed." }] });
		expect(replayedChatCalls(server.requests[3]!)).toEqual(pairs);
		// The file keeps the id the relay wrote.
		expect(session.messages.some((m) => m.role === "toolResult" && m.toolCallId === longId)).toBe(true);
	});

	it("openclaw#31934 (pi-ai cuts at 40 for `openai`): two calls of one answer whose ids share 40 characters go back under two ids, each result under its own call's; the answer arrives", async () => {
		const { server, session, target } = await switchingSession(RELAY, {
			api: "openai-completions",
			provider: "openai",
			id: "gpt-4o",
		});
		const first = "summarize_repository_structure_1780000000000_1";
		const second = "summarize_repository_structure_1780000000000_2";
		server.reply(
			anthropicReply([bash(first, "echo first-call"), bash(second, "echo second-call")], {
				model: "k3",
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "Both ran." }], { model: "k3" }),
			chatReply([{ type: "text", text: "The first printed first-call." }], { model: "gpt-4o" }),
		);
		await session.prompt("run both echoes");
		await session.setModel(target);
		await session.prompt("what did each print?");

		expect(session.messages.at(-1)).toMatchObject({
			provider: "openai",
			stopReason: "stop",
			content: [{ type: "text", text: "The first printed first-call." }],
		});
		const pairs = replayedChatCalls(server.requests[2]!);
		expect(pairs.map((pair) => pair.command)).toEqual(["echo first-call", "echo second-call"]);
		expect(new Set(pairs.map((pair) => pair.id)).size).toBe(2);
		for (const pair of pairs) expect(pair.id.length).toBeLessThanOrEqual(40);
		expect(pairs[0]!.results).toHaveLength(1);
		expect(pairs[0]!.results[0]).toContain("first-call");
		expect(pairs[1]!.results).toHaveLength(1);
		expect(pairs[1]!.results[0]).toContain("second-call");
	});
});

describe("Switchyard#502, opencode#1150: a model that numbers its calls anew in every answer (`call_0`), then a switch to Anthropic", () => {
	it("Switchyard#502: Grok's two answers both under `call_0` reach Claude under two tool_use ids, each tool_result under its own call's; the answer arrives", async () => {
		const { server, session, target } = await switchingSession(
			{ api: "openai-completions", provider: "xai", id: "grok-wire-4" },
			{ api: "anthropic-messages", provider: "anthropic", id: "claude-wire-1" },
		);
		server.reply(
			chatReply([chatBashCall("call_0", "echo alpha")], { model: "grok-wire-4", finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "Printed alpha." }], { model: "grok-wire-4" }),
			chatReply([chatBashCall("call_0", "echo beta")], { model: "grok-wire-4", finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "Printed beta." }], { model: "grok-wire-4" }),
			anthropicReply([{ type: "text", text: "First alpha, then beta." }]),
		);
		await session.prompt("run echo alpha");
		await session.prompt("run echo beta");
		await session.setModel(target);
		await session.prompt("what did the two commands print?");

		expect(session.messages.at(-1)).toMatchObject({
			provider: "anthropic",
			stopReason: "stop",
			content: [{ type: "text", text: "First alpha, then beta." }],
		});
		const blocks = sentBlocks(server.requests[4]!);
		const uses = blocks.filter((block) => block.type === "tool_use");
		expect(uses.map((use) => use.input?.command)).toEqual(["echo alpha", "echo beta"]);
		expect(new Set(uses.map((use) => use.id)).size).toBe(2);
		for (const use of uses) expect(use.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		const resultOf = (id: string) => resultsUnder(blocks, id);
		expect(resultOf(uses[0]!.id!)).toEqual([expect.stringContaining("alpha")]);
		expect(resultOf(uses[1]!.id!)).toEqual([expect.stringContaining("beta")]);
	});
});

/**
 * The Responses API's checks on replayed calls, as a 400: a `call_id` over 64 characters, a
 * `function_call` with no `function_call_output` under its `call_id`, or two under one.
 */
const responsesIdRules: Router = (request, next) => {
	if (!request.path.endsWith("/responses")) return next();
	const input = (request.body.input ?? []) as { type?: string; call_id?: string }[];
	for (const [i, item] of input.entries()) {
		if (item.call_id !== undefined && item.call_id.length > 64) {
			return openAiError(
				400,
				`Invalid 'input[${i}].call_id': string too long. Expected a string with maximum length 64, but got a string with length ${item.call_id.length} instead.`,
				"invalid_request_error",
				"string_above_max_length",
			);
		}
		if (
			item.type === "function_call" &&
			!input.some((output) => output.type === "function_call_output" && output.call_id === item.call_id)
		) {
			return openAiError(400, `No tool output found for function call ${item.call_id}.`, "invalid_request_error");
		}
		if (
			item.type === "function_call_output" &&
			input.some((other, j) => j !== i && other.type === "function_call_output" && other.call_id === item.call_id)
		) {
			return openAiError(
				400,
				`Duplicate function_call_output for call_id '${item.call_id}'. Each function_call must have exactly one matching function_call_output`,
				"invalid_request_error",
			);
		}
	}
	return next();
};

describe("dyad#4304, Future-House/ldp#479: Gemini's call ids with its thought signature folded in, replayed to GPT on the Responses API", () => {
	it("dyad#4304: after setModel(openai/gpt-wire-5) each call goes back under a call_id of at most 64 characters, its output under the same; the answer arrives", async () => {
		const { server, session, target } = await switchingSession(
			{ api: "openai-completions", provider: "litellm", id: "gemini-wire-3" },
			{ api: "openai-responses", provider: "openai", id: "gpt-wire-5" },
			// LiteLLM takes Gemini's long ids back; only the Responses API checks them.
			responsesIdRules,
		);
		// LiteLLM names Gemini's calls `call_<uuid>__thought__<base64 thought signature>` (391 characters in the report).
		const signature = Buffer.from("e24830a7-5cd6-42fe-998b-ee539e72b9c3".repeat(7)).toString("base64");
		const geminiId = (uuid: string) => `call_${uuid}__thought__${signature}`;
		server.reply(
			chatReply(
				[
					chatBashCall(geminiId("4498671d257346d4baa6f58c1dbb"), "echo north"),
					chatBashCall(geminiId("7f0c2e91ab"), "echo south"),
				],
				{ model: "gemini-wire-3", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "Printed north and south." }], { model: "gemini-wire-3" }),
			responsesReply([{ type: "message", text: "North first, then south." }]),
		);
		await session.prompt("run echo north and echo south");
		await session.setModel(target);
		await session.prompt("what did they print?");

		expect(session.messages.at(-1)).toMatchObject({
			provider: "openai",
			stopReason: "stop",
			content: [{ type: "text", text: "North first, then south." }],
		});
		const input = server.requests[2]!.body.input as {
			type: string;
			call_id?: string;
			output?: unknown;
			arguments?: string;
		}[];
		const calls = input.filter((item) => item.type === "function_call");
		expect(calls.map((item) => JSON.parse(item.arguments!).command)).toEqual(["echo north", "echo south"]);
		expect(new Set(calls.map((item) => item.call_id)).size).toBe(2);
		for (const [index, word] of ["north", "south"].entries()) {
			const id = calls[index]!.call_id!;
			expect(id.length).toBeLessThanOrEqual(64);
			const outputs = input.filter((item) => item.type === "function_call_output" && item.call_id === id);
			expect(outputs.map((item) => JSON.stringify(item.output))).toEqual([expect.stringContaining(word)]);
		}
	});
});

describe("maple-proxy#18: a chat-completions model's call ids off Anthropic's pattern, then a switch to Claude", () => {
	it("maple-proxy#18: ids with `.` and `:` (`functions.bash:0`) reach Claude as tool_use ids on its pattern, each tool_result under its call's; the answer arrives, and the next request repeats the ids", async () => {
		const { server, session, target } = await switchingSession(
			{ api: "openai-completions", provider: "maple", id: "glm-wire-5" },
			{ api: "anthropic-messages", provider: "anthropic", id: "claude-wire-1" },
		);
		server.reply(
			chatReply(
				[
					{ type: "tool_call", id: "functions.bash:0", name: "bash", arguments: { command: "echo east" } },
					{ type: "tool_call", id: "functions.bash:1", name: "bash", arguments: { command: "echo west" } },
				],
				{ model: "glm-wire-5", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "Printed east and west." }], { model: "glm-wire-5" }),
			anthropicReply([{ type: "text", text: "East, then west." }]),
			anthropicReply([{ type: "text", text: "Still east and west." }]),
		);
		await session.prompt("run echo east and echo west");
		await session.setModel(target);
		await session.prompt("what did they print?");

		expect(session.messages.at(-1)).toMatchObject({
			provider: "anthropic",
			stopReason: "stop",
			content: [{ type: "text", text: "East, then west." }],
		});
		const blocks = sentBlocks(server.requests[2]!);
		const uses = blocks.filter((block) => block.type === "tool_use");
		expect(uses.map((use) => use.input?.command)).toEqual(["echo east", "echo west"]);
		expect(new Set(uses.map((use) => use.id)).size).toBe(2);
		for (const use of uses) expect(use.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		expect(resultsUnder(blocks, uses[0]!.id!)).toEqual([expect.stringContaining("east")]);
		expect(resultsUnder(blocks, uses[1]!.id!)).toEqual([expect.stringContaining("west")]);

		await session.prompt("and now?");
		expect(session.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ text: "Still east and west." }] });
		expect(sentBlocks(server.requests[3]!).filter((block) => block.type === "tool_use")).toEqual(uses);
	});
});

describe("hermes-agent#102629: a model that numbers its calls anew in every turn (`bash:0`), then a switch to the Responses API", () => {
	it("hermes-agent#102629: two turns' calls both under `bash:0` reach GPT under two call_ids, each output under its own call's; the answer arrives, and the next request repeats the ids", async () => {
		const { server, session, target } = await switchingSession(
			{ api: "openai-completions", provider: "gateway", id: "kimi-wire-2" },
			{ api: "openai-responses", provider: "openai", id: "gpt-wire-5" },
			responsesIdRules,
		);
		server.reply(
			chatReply([chatBashCall("bash:0", "echo alpha")], { model: "kimi-wire-2", finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "Printed alpha." }], { model: "kimi-wire-2" }),
			chatReply([chatBashCall("bash:0", "echo beta")], { model: "kimi-wire-2", finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "Printed beta." }], { model: "kimi-wire-2" }),
			responsesReply([{ type: "message", text: "First alpha, then beta." }]),
			responsesReply([{ type: "message", text: "Still alpha and beta." }]),
		);
		await session.prompt("run echo alpha");
		await session.prompt("run echo beta");
		await session.setModel(target);
		await session.prompt("what did the two commands print?");

		expect(session.messages.at(-1)).toMatchObject({
			provider: "openai",
			stopReason: "stop",
			content: [{ type: "text", text: "First alpha, then beta." }],
		});
		const pairs = (request: RecordedRequest) => {
			const input = request.body.input as { type: string; call_id?: string; output?: unknown; arguments?: string }[];
			return input
				.filter((item) => item.type === "function_call")
				.map((item) => ({
					id: item.call_id,
					command: JSON.parse(item.arguments!).command,
					outputs: input
						.filter((output) => output.type === "function_call_output" && output.call_id === item.call_id)
						.map((output) => JSON.stringify(output.output)),
				}));
		};
		const sent = pairs(server.requests[4]!);
		expect(sent.map((pair) => pair.command)).toEqual(["echo alpha", "echo beta"]);
		expect(new Set(sent.map((pair) => pair.id)).size).toBe(2);
		expect(sent[0]!.outputs).toEqual([expect.stringContaining("alpha")]);
		expect(sent[1]!.outputs).toEqual([expect.stringContaining("beta")]);

		await session.prompt("and now?");
		expect(session.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ text: "Still alpha and beta." }] });
		expect(pairs(server.requests[5]!)).toEqual(sent);
	});
});

/** An OpenAI-compatible Responses server: two input items under one item `id` are refused. */
const uniqueItemIds: Router = (request, next) => {
	if (!request.path.endsWith("/responses")) return next();
	const ids = ((request.body.input ?? []) as { id?: string }[]).flatMap((item) => (item.id ? [item.id] : []));
	const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
	if (repeated === undefined) return next();
	return openAiError(400, `Duplicate item found with id ${repeated}.`, "invalid_request_error");
};

describe("pi#9057: a Responses server whose function_call items carry a call_id but no item id", () => {
	it("pi#9057: after two calls in one answer, the next request sends no made-up item id (`undefined`), each call under its own call_id with its output; the answer arrives", async () => {
		const compat: WireModelSpec = { api: "openai-responses", provider: "compat", id: "qwen-wire-responses" };
		const { server, session } = await switchingSession(compat, compat, uniqueItemIds);
		// The server leaves out the optional item `id` of each function_call.
		const withoutItemIds: Reply = (request, res, req) => {
			const events = responsesEvents([
				{ type: "function_call", callId: "call_north", name: "bash", arguments: { command: "echo north" } },
				{ type: "function_call", callId: "call_south", name: "bash", arguments: { command: "echo south" } },
			]);
			for (const { data } of events) {
				const item = (data as { item?: { type?: string; id?: string } }).item;
				if (item?.type === "function_call") delete item.id;
			}
			return sse(events)(request, res, req);
		};
		server.reply(withoutItemIds, responsesReply([{ type: "message", text: "North and south." }]));
		await session.prompt("run echo north and echo south");

		expect(session.messages.at(-1)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "North and south." }],
		});
		const input = server.requests[1]!.body.input as { type: string; id?: string; call_id?: string; output?: unknown }[];
		const calls = input.filter((item) => item.type === "function_call");
		expect(calls.map((item) => item.call_id)).toEqual(["call_north", "call_south"]);
		expect(calls.map((item) => item.id)).toEqual([undefined, undefined]);
		for (const [index, word] of ["north", "south"].entries()) {
			const outputs = input.filter(
				(item) => item.type === "function_call_output" && item.call_id === calls[index]!.call_id,
			);
			expect(outputs.map((item) => JSON.stringify(item.output))).toEqual([expect.stringContaining(word)]);
		}
	});
});

/** OpenAI Chat Completions: an assistant message's `tool_calls` each need a `tool` message after it. */
const answeredCalls: Router = (request, next) => {
	if (!request.path.endsWith("/chat/completions")) return next();
	const messages = request.body.messages as SentChatMessage[];
	const unanswered = messages
		.flatMap((message) => message.tool_calls ?? [])
		.filter((call) => !messages.some((message) => message.role === "tool" && message.tool_call_id === call.id));
	if (unanswered.length === 0) return next();
	return openAiError(
		400,
		`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.map((call) => call.id).join(", ")}`,
		"invalid_request_error",
	);
};

describe("github/copilot-cli#994: a tool run stopped by the user, then a switch to another model", () => {
	it("copilot-cli#994: after abort() mid-tool and setModel(gpt-4.1), the call goes to the new model with a tool message under its id; the answer arrives", async () => {
		const { server, session, target } = await switchingSession(
			{ api: "openai-responses", provider: "openai", id: "gpt-wire-codex-mini" },
			{ api: "openai-completions", provider: "copilot", id: "gpt-wire-4.1" },
			answeredCalls,
		);
		server.reply(
			responsesReply([
				{
					type: "function_call",
					callId: "call_zQrinFA8BbV4W8OqWnwmaCLg",
					name: "bash",
					arguments: { command: "sleep 30" },
				},
			]),
			chatReply([{ type: "text", text: "The sleep was stopped." }], { model: "gpt-wire-4.1" }),
		);
		const started = new Promise<void>((resolve) => {
			session.subscribe((event) => {
				if (event.type === "tool_execution_start") resolve();
			});
		});
		const prompt = session.prompt("run sleep 30");
		await started;
		await session.abort();
		await prompt;
		await session.setModel(target);
		await session.prompt("what happened?");

		expect(session.messages.at(-1)).toMatchObject({
			provider: "copilot",
			stopReason: "stop",
			content: [{ type: "text", text: "The sleep was stopped." }],
		});
		const pairs = replayedChatCalls(server.requests[1]!);
		expect(pairs.map((pair) => pair.command)).toEqual(["sleep 30"]);
		expect(pairs[0]!.results).toHaveLength(1);
		expect(
			session.messages.find((m) => m.role === "toolResult" && m.toolCallId.startsWith("call_zQrinFA8BbV4W8OqWnwmaCLg")),
		).toMatchObject({ isError: true });
	});
});
