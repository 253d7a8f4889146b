/**
 * Reports about what happens around a real provider request, replayed against Settle over HTTP:
 * pi-ai's own provider clients (OpenAI and Anthropic SDKs) talk to a local server that streams as
 * the provider does (`test/llm/wire`), through a whole session from `createAgentSession`, with the
 * built-in tools running on a real folder.
 *
 * pi#6284: streamed tool-call arguments are finished with a salvage parser (`partial-json`). When
 * the stream stops early — a proxy closes the body mid-call, or the model writes malformed
 * JSON — the parser keeps the last parseable prefix, and the call still
 * ran: a truncated shell command, a partial edit. What the user should see: a call whose
 * arguments did not arrive as complete JSON is not run; the model gets an error result saying so
 * and can re-issue the call.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicEvents, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { type SseEvent, sse, useWireServer } from "../llm/wire/server.js";
import { abortAtFirstDelta, lastAssistant, useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

/** A chat-completion chunk carrying `delta`, no finish reason. */
function chatDelta(delta: Record<string, unknown>): SseEvent {
	return {
		data: {
			id: "chatcmpl-WireTest",
			object: "chat.completion.chunk",
			created: 1_764_000_000,
			model: "gpt-wire-1",
			choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
		},
	};
}

/**
 * A `bash` call whose arguments stream as `pieces`, then `finish_reason: "tool_calls"` and the end
 * of the body (no [DONE]). A body that ends with no finish_reason at all is now a failed attempt,
 * retried before any call is read (`local-openai-servers`, pi#8496).
 */
function bashCallCutAfter(...pieces: string[]): SseEvent[] {
	const finish = chatDelta({});
	(finish.data as { choices: { finish_reason: string | null }[] }).choices[0]!.finish_reason = "tool_calls";
	return [
		chatDelta({ role: "assistant", content: "", refusal: null }),
		chatDelta({
			tool_calls: [{ index: 0, id: "call_cut", type: "function", function: { name: "bash", arguments: "" } }],
		}),
		...pieces.map((piece) => chatDelta({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
		finish,
	];
}

describe("pi#6284: a tool call whose arguments were cut off or malformed is not run", () => {
	it("pi#6284: a bash call whose arguments end mid-JSON is not run; the model gets an error result and answers", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		// The whole command would be `touch ran-truncated-and-more && rm ran-truncated-and-more`; the
		// salvage parser turns the cut prefix into `touch ran-truncated`.
		w.server.reply(
			sse(bashCallCutAfter('{"command":"touch ran-', "truncated"), "end"),
			chatReply([{ type: "text", text: "I will send the call again." }]),
		);
		await w.session.prompt("create the marker");

		expect(existsSync(join(w.dir, "ran-truncated"))).toBe(false);
		const results = w.session.messages.filter((message) => message.role === "toolResult");
		expect(results).toEqual([
			expect.objectContaining({
				toolCallId: "call_cut",
				isError: true,
				content: [{ type: "text", text: expect.stringContaining("not valid JSON") }],
			}),
		]);
		// The model saw the error and answered.
		expect(w.server.requests).toHaveLength(2);
		const sent = w.server.requests[1]!.body.messages as { role: string; content: unknown }[];
		expect(sent.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("not valid JSON") });
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "I will send the call again." }] });
	});

	it("pi#6284: a call whose complete arguments are valid JSON runs as before (control)", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(
			sse(bashCallCutAfter('{"command":"touch ran-', 'complete"}'), "end"),
			chatReply([{ type: "text", text: "Done." }]),
		);
		await w.session.prompt("create the marker");
		expect(existsSync(join(w.dir, "ran-complete"))).toBe(true);
		const results = w.session.messages.filter((message) => message.role === "toolResult");
		expect(results).toEqual([expect.objectContaining({ toolCallId: "call_cut", isError: false })]);
	});
});

describe("oh-my-pi#11104, hermes-agent#35151: a write cut mid-content at the output cap, finish_reason tool_calls", () => {
	it("oh-my-pi#11104: the cut write is not run; every later request replays the call as parseable JSON with its error result, none refused", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		const cut = bashCallCutAfter('{"path":"report.md","content":"# Report\\n\\nThe first fin').map((event) => {
			const text = JSON.stringify(event.data).replace('"name":"bash"', '"name":"write"');
			return { data: JSON.parse(text) } as SseEvent;
		});
		w.server.reply(
			sse(cut, "end"),
			chatReply([{ type: "text", text: "I will write it in parts." }]),
			chatReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("write the report");
		await w.session.prompt("go on");

		// Nothing written from the cut arguments (hermes-agent#35151 ran it with `{}` and said it succeeded).
		expect(existsSync(join(w.dir, "report.md"))).toBe(false);
		expect(w.server.requests).toHaveLength(3);
		for (const request of w.server.requests.slice(1)) {
			const sent = request.body.messages as {
				role: string;
				tool_call_id?: string;
				content?: unknown;
				tool_calls?: { id: string; function: { arguments: string } }[];
			}[];
			const calls = sent.flatMap((message) => message.tool_calls ?? []);
			expect(calls.map((call) => call.id)).toEqual(["call_cut"]);
			// What goes back to the provider parses: no raw cut string a strict endpoint refuses with 400.
			expect(JSON.parse(calls[0]!.function.arguments)).toEqual({
				path: "report.md",
				content: "# Report\n\nThe first fin",
			});
			expect(sent.filter((message) => message.role === "tool")).toEqual([
				expect.objectContaining({ tool_call_id: "call_cut", content: expect.stringContaining("not valid JSON") }),
			]);
		}
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "Still here." }] });
	});
});

describe("pi#8386: a tool call whose arguments are null poisons the session file", () => {
	it('pi#8386: a model streams `"arguments": "null"`: the call is not run, the saved call holds `{}`, and the next request replays an object, not null', async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		const finish: SseEvent = {
			data: {
				id: "chatcmpl-WireTest",
				object: "chat.completion.chunk",
				created: 1_764_000_000,
				model: "gpt-wire-1",
				choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }],
			},
		};
		w.server.reply(
			sse([...bashCallCutAfter("null"), finish, { data: "[DONE]" }]),
			chatReply([{ type: "text", text: "I will send the call again." }]),
		);
		await w.session.prompt("run something");

		const results = w.session.messages.filter((message) => message.role === "toolResult");
		expect(results).toEqual([
			expect.objectContaining({
				toolCallId: "call_cut",
				isError: true,
				content: [
					{
						type: "text",
						text: expect.stringContaining('Validation failed for tool "bash":\n  - root: must be object'),
					},
				],
			}),
		]);
		const saved = w
			.entries()
			.flatMap((entry) => (entry.type === "message" && entry.message.role === "assistant" ? entry.message.content : []))
			.filter((block) => block.type === "toolCall");
		expect(saved).toEqual([expect.objectContaining({ id: "call_cut", name: "bash", arguments: {} })]);
		const replayed = (w.server.requests[1]!.body.messages as { tool_calls?: { function: { arguments: string } }[] }[])
			.flatMap((message) => message.tool_calls ?? [])
			.map((call) => call.function.arguments);
		expect(replayed).toEqual(["{}"]);
		expect(lastAssistant(w)).toMatchObject({ content: [{ type: "text", text: "I will send the call again." }] });
	});
});

describe("pi#9258 / gsd-pi#748: a models.json provider's key and headers on the request (real `settle -p`)", () => {
	const cli = useCliProject("settle-pi-races-providers-");
	const server = useWireServer();

	it('pi#9258: `"apiKey": "$WIRE_GATEWAY_KEY"` (and the braced form in a header) sends the variable\'s value, not the literal `$…` text (a 401 "invalid token")', async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			apiKey: "$WIRE_GATEWAY_KEY",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: pi's braced variable form, literally
			headers: { "x-portkey-api-key": "${WIRE_PORTKEY_KEY}" },
		});
		server.reply(chatReply([{ type: "text", text: "answered with the gateway key" }]));
		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { WIRE_GATEWAY_KEY: "gateway-key", WIRE_PORTKEY_KEY: "portkey-key" },
		});
		expect(run.stdout).toContain("answered with the gateway key");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer gateway-key");
		expect(server.requests[0]?.headers["x-portkey-api-key"]).toBe("portkey-key");
	});

	/** One `settle -p` per auth.json `key` (stored for the local provider) with `env`; each answered. */
	async function promptWithAuthJsonKeys(keys: string[], env: Record<string, string>): Promise<void> {
		for (const key of keys) {
			writeFileSync(join(cli.agentDir, "auth.json"), JSON.stringify({ local: { type: "api_key", key } }), {
				mode: 0o600,
			});
			server.reply(chatReply([{ type: "text", text: `answered with ${key}` }]));
			const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				env,
			});
			expect(run.stdout).toContain(`answered with ${key}`);
		}
	}

	it("pi#9258 in auth.json: a stored key written `$NAME` (or braced) sends that variable's value, as models.json's `apiKey` does", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// biome-ignore lint/suspicious/noTemplateCurlyInString: pi's braced variable form, literally
		await promptWithAuthJsonKeys(["$WIRE_AUTH_KEY", "${WIRE_AUTH_KEY}"], { WIRE_AUTH_KEY: "auth-json-key" });
		expect(server.requests.map((request) => request.headers.authorization)).toEqual([
			"Bearer auth-json-key",
			"Bearer auth-json-key",
		]);
	});

	it("an auth.json key naming a set environment variable in lower or mixed case sends its value, as pi's resolveConfigValue; an unset name stays the literal key", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		await promptWithAuthJsonKeys(["wire_auth_key", "Wire_Auth_Key", "unset_wire_name"], {
			wire_auth_key: "lower-env-key",
			Wire_Auth_Key: "mixed-env-key",
		});
		expect(server.requests.map((request) => request.headers.authorization)).toEqual([
			"Bearer lower-env-key",
			"Bearer mixed-env-key",
			"Bearer unset_wire_name",
		]);
	});

	it("gsd-pi#748: models.json headers (a literal, and a bare variable name as pi resolves it) reach the provider request", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			headers: { "user-agent": "KimiCLI/1.37.0", "x-msh-device": "WIRE_DEVICE_ID" },
		});
		server.reply(chatReply([{ type: "text", text: "answered with the headers" }]));
		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { WIRE_DEVICE_ID: "device-7" },
		});
		expect(run.stdout).toContain("answered with the headers");
		expect(server.requests[0]?.headers["user-agent"]).toBe("KimiCLI/1.37.0");
		expect(server.requests[0]?.headers["x-msh-device"]).toBe("device-7");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer local-key");
	});
});

describe("openclaw#107221: a model switch replays the previous model's signed thinking blocks (400 Invalid `signature`)", () => {
	it("openclaw#107221: after /model to another Claude, the old answer's thinking goes as plain text without its signature; back on the first model, its own signed block is replayed", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "medium" } });
		w.server.reply(
			anthropicReply([
				{ type: "thinking", thinking: "The first model reasons.", signature: "sig-first-model" },
				{ type: "text", text: "first answer" },
			]),
			anthropicReply(
				[
					{ type: "thinking", thinking: "The second model reasons.", signature: "sig-second-model" },
					{ type: "text", text: "second answer" },
				],
				{ model: "claude-wire-2" },
			),
			anthropicReply([{ type: "text", text: "third answer" }]),
		);
		const first = w.model;
		const second = { ...first, id: "claude-wire-2", name: "Claude 2 (wire test)" };
		await w.session.prompt("one");
		await w.session.setModel(second);
		await w.session.prompt("two");
		await w.session.setModel(first);
		await w.session.prompt("three");

		// On the second model: the first model's thinking as text, no thinking block, no signature.
		const onSecond = w.server.requests[1]!.body;
		expect(onSecond.model).toBe("claude-wire-2");
		expect(onSecond.messages[1]).toEqual({
			role: "assistant",
			content: [
				{ type: "text", text: "The first model reasons." },
				{ type: "text", text: "first answer" },
			],
		});
		expect(JSON.stringify(onSecond)).not.toContain("sig-first-model");
		// Back on the first model: its own block signed as it came; the second model's as text.
		const onFirst = w.server.requests[2]!.body;
		expect(onFirst.model).toBe("claude-wire-1");
		expect(onFirst.messages[1].content[0]).toEqual({
			type: "thinking",
			thinking: "The first model reasons.",
			signature: "sig-first-model",
		});
		expect(onFirst.messages[3].content).toEqual([
			{ type: "text", text: "The second model reasons." },
			{ type: "text", text: "second answer" },
		]);
		expect(JSON.stringify(onFirst)).not.toContain("sig-second-model");
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "third answer" }] });
	});
});

describe("pi#6445: an aborted or failed answer drops the tokens already consumed", () => {
	it("pi#6445: aborted mid-answer, the message keeps the prompt's usage from message_start (input, cache read, cost); session stats and the file count it", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "off" } });
		// message_start (input 1,000, cache read 4,000), ping, the text block's start and first delta; then the stream stays open.
		const events = anthropicEvents([{ type: "text", text: "a long answer that is never finished" }], {
			usage: { input: 1000, output: 0, cacheRead: 4000 },
		});
		w.server.reply(sse(events.slice(0, 4), "hang"));
		await abortAtFirstDelta(w, "start a long answer");

		const aborted = lastAssistant(w);
		expect(aborted.stopReason).toBe("aborted");
		expect(aborted.usage).toMatchObject({ input: 1000, cacheRead: 4000 });
		// $3 per million input, $0.30 per million cache-read, $15 per million output (message_start's 1): 0.003 + 0.0012 + 0.000015.
		expect(aborted.usage.cost.total).toBeCloseTo(0.004215, 10);
		const stats = w.session.getSessionStats();
		expect(stats.tokens).toMatchObject({ input: 1000, cacheRead: 4000 });
		expect(stats.cost).toBeCloseTo(0.004215, 10);
		const saved = w.entries().findLast((entry) => entry.type === "message" && entry.message.role === "assistant");
		expect(saved).toMatchObject({ message: { stopReason: "aborted", usage: { input: 1000, cacheRead: 4000 } } });
	});
});
