/**
 * Reports about self-hosted OpenAI-compatible servers (Ollama, OpenVINO Model Server, mlx servers,
 * LM Studio), replayed with real `settle -p` processes against a local server that streams as that
 * software does, the provider declared in `models.json` as its users declare it.
 *
 * ollama#15457: Ollama streams each tool call of an answer in one chunk, every one at `index: 0`
 * (distinct ids); OpenAI-compatible clients joined them by index into one call whose arguments were
 * two JSON objects end to end. LangBot#2261 / continue#13225: Ollama (gpt-oss) sends a tool call
 * with an `index` and no `id`; clients that keyed calls by id dropped it, and the tool never ran.
 * model_server#3927 / mlx-vlm#990: servers that end a tool-calling answer `finish_reason: "stop"`;
 * agents that waited for `tool_calls` stopped there. pi#4497: local servers report no usage, so pi's
 * context count stayed 0 and auto-compaction never fired. vllm-mlx#101: a stream that sends its
 * `finish_reason` chunk, then closes without `data: [DONE]`. lemonade#2826: a proxy in front of
 * llama-server forwarded its refusal (a context overflow) as a bare JSON body inside a `200`
 * event stream; clients saw an empty stream, the reason lost. pi#8496 / command-code#785: a server
 * that stops mid-answer or mid-call and closes the stream with neither `finish_reason` nor
 * `[DONE]`: a truncated turn that looked finished.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { chatEvents, chatReply, openAiError } from "../llm/wire/openai.js";
import { responsesReply } from "../llm/wire/responses.js";
import {
	encodeSse,
	type RecordedRequest,
	type Reply,
	type SseEvent,
	sse,
	startWireServer,
	text,
	type WireServer,
} from "../llm/wire/server.js";

const cli = useCliProject("settle-local-servers-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** How Ollama ends an answer with tool calls: the `tool_calls` finish, the usage chunk, `[DONE]`. */
function ollamaCallsEnd(): SseEvent[] {
	return [ollamaChunk({}, "tool_calls"), usageChunk, { data: "[DONE]" }];
}

/** One `chat.completion.chunk` as Ollama's `/v1/chat/completions` writes it. */
function ollamaChunk(delta: Record<string, unknown>, finishReason: string | null = null): SseEvent {
	return {
		data: {
			id: "chatcmpl-412",
			object: "chat.completion.chunk",
			created: 1_775_700_000,
			model: "coder",
			system_fingerprint: "fp_ollama",
			choices: [{ index: 0, delta: { role: "assistant", content: "", ...delta }, finish_reason: finishReason }],
		},
	};
}

/** A whole tool call in one delta, the way Ollama sends it (arguments complete, not streamed). */
function wholeCall(name: string, args: Record<string, unknown>, fields: { id?: string; index?: number }) {
	return { ...fields, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

const usageChunk: SseEvent = {
	data: {
		id: "chatcmpl-412",
		object: "chat.completion.chunk",
		created: 1_775_700_000,
		model: "coder",
		choices: [],
		usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
	},
};

type SentMessage = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: { id: string }[] };
const sentAfterPrompt = (request: RecordedRequest) =>
	(request.body as { messages: SentMessage[] }).messages.filter((m) => m.role === "assistant" || m.role === "tool");

type Entry = { type: string; message?: { role: string; content: unknown; toolCallId?: string } };
function sessionEntries(sessionDir: string): Entry[] {
	const [file] = readdirSync(sessionDir);
	return readFileSync(join(sessionDir, file!), "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Entry);
}

async function start(fields: Record<string, unknown> = {}): Promise<WireServer> {
	server = await startWireServer();
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, fields);
	return server;
}

/**
 * The checks Anthropic and OpenAI Responses make on a history's tool calls: Anthropic's `tool_use.id`
 * matches `^[a-zA-Z0-9_-]+$` and each `tool_result` names one; a Responses `function_call` has a
 * `call_id` and each output names one. Anything else is refused with a 400, as they do.
 */
function refuseEmptyToolIds(request: RecordedRequest, next: () => Reply): Reply {
	type Block = { type: string; id?: string; tool_use_id?: string };
	if (request.path.endsWith("/messages")) {
		const messages = (request.body?.messages ?? []) as { content: Block[] | string }[];
		const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
		const ids = blocks.flatMap((b) => (b.type === "tool_use" ? [b.id ?? ""] : []));
		const bad = ids.find((id) => !/^[a-zA-Z0-9_-]+$/.test(id));
		if (bad !== undefined) {
			return anthropicError(
				400,
				"invalid_request_error",
				`tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$' (${JSON.stringify(bad)})`,
			);
		}
		const orphan = blocks.find((b) => b.type === "tool_result" && !ids.includes(b.tool_use_id ?? ""));
		if (orphan)
			return anthropicError(
				400,
				"invalid_request_error",
				`unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphan.tool_use_id}`,
			);
	}
	if (request.path.endsWith("/responses")) {
		const items = (request.body?.input ?? []) as { type?: string; call_id?: string }[];
		const calls = items.flatMap((i) => (i.type === "function_call" ? [i.call_id ?? ""] : []));
		if (calls.some((id) => !id)) {
			return openAiError(
				400,
				"Invalid 'input[].call_id': empty string. Expected a string with minimum length 1.",
				"invalid_request_error",
				"empty_string",
			);
		}
		const orphan = items.find((i) => i.type === "function_call_output" && !calls.includes(i.call_id ?? ""));
		if (orphan)
			return openAiError(
				400,
				`No tool call found for function call output with call_id ${orphan.call_id}.`,
				"invalid_request_error",
			);
	}
	return next();
}

/** `models.json` with the local Chat Completions provider and an Anthropic and a Responses one, all at `url`. */
function writeSwitchProviders(url: string): void {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({
			providers: {
				local: { baseUrl: `${url}/v1`, api: "openai-completions", apiKey: "local-key", models: [{ id: "coder" }] },
				claude: { baseUrl: url, api: "anthropic-messages", apiKey: "k", models: [{ id: "sonnet" }] },
				gpt: { baseUrl: `${url}/v1`, api: "openai-responses", apiKey: "k", models: [{ id: "gpt-wire-1" }] },
			},
		}),
	);
}

function settle(args: string[]) {
	return runSettleAsync(["--session-dir", join(cli.dir, "sessions"), "--model", "local/coder", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

describe("ollama#15457: every streamed tool call of an answer at index 0", () => {
	it("ollama#15457: two writes with distinct ids at index 0 both run; each result goes back under its own call's id", async () => {
		const wire = await start();
		wire.reply(
			sse([
				ollamaChunk({
					tool_calls: [
						wholeCall("write", { path: "hello.py", content: 'print("hello")\n' }, { id: "call_lyywui55", index: 0 }),
					],
				}),
				ollamaChunk({
					tool_calls: [
						wholeCall("write", { path: "world.py", content: 'print("world")\n' }, { id: "call_0scw2dos", index: 0 }),
					],
				}),
				...ollamaCallsEnd(),
			]),
			chatReply([{ type: "text", text: "Created both files." }], { model: "coder" }),
		);

		const run = await settle(["-p", 'Create hello.py with print("hello") and world.py with print("world").']);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Created both files.\n");
		expect(run.code).toBe(0);
		expect(readFileSync(join(cli.project, "hello.py"), "utf8")).toBe('print("hello")\n');
		expect(readFileSync(join(cli.project, "world.py"), "utf8")).toBe('print("world")\n');
		const sent = sentAfterPrompt(wire.requests[1]!);
		expect(sent.map((m) => (m.role === "tool" ? m.tool_call_id : m.tool_calls?.map((c) => c.id)))).toEqual([
			["call_lyywui55", "call_0scw2dos"],
			"call_lyywui55",
			"call_0scw2dos",
		]);
		const results = sessionEntries(join(cli.dir, "sessions"))
			.filter((e) => e.message?.role === "toolResult")
			.map((e) => e.message!.toolCallId);
		expect(results).toEqual(["call_lyywui55", "call_0scw2dos"]);
	});

	it("ollama#15457: two writes at index 0 with no ids both run with their own arguments; each result goes back under its own call's id", async () => {
		const wire = await start();
		wire.reply(
			sse([
				ollamaChunk({
					tool_calls: [wholeCall("write", { path: "hello.py", content: 'print("hello")\n' }, { index: 0 })],
				}),
				ollamaChunk({
					tool_calls: [wholeCall("write", { path: "world.py", content: 'print("world")\n' }, { index: 0 })],
				}),
				...ollamaCallsEnd(),
			]),
			chatReply([{ type: "text", text: "Created both files." }], { model: "coder" }),
		);

		const run = await settle(["-p", 'Create hello.py with print("hello") and world.py with print("world").']);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Created both files.\n");
		expect(run.code).toBe(0);
		expect(readFileSync(join(cli.project, "hello.py"), "utf8")).toBe('print("hello")\n');
		expect(readFileSync(join(cli.project, "world.py"), "utf8")).toBe('print("world")\n');
		const [assistant, ...tools] = sentAfterPrompt(wire.requests[1]!);
		const ids = assistant!.tool_calls!.map((c) => c.id);
		expect(ids).toHaveLength(2);
		expect(ids[0]).not.toBe(ids[1]);
		expect(tools.map((m) => m.tool_call_id)).toEqual(ids);
	});

	it("ollama#15457 (control): an OpenAI-style stream, one call's arguments in pieces at its own index, is left as sent", async () => {
		const wire = await start();
		wire.reply(
			chatReply(
				[
					{ type: "tool_call", id: "call_a", name: "bash", arguments: { command: "echo first" } },
					{ type: "tool_call", id: "call_b", name: "bash", arguments: { command: "echo second" } },
				],
				{ model: "coder", finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "Both ran." }], { model: "coder" }),
		);
		const run = await settle(["-p", "run both"]);
		expect(run.stdout).toBe("Both ran.\n");
		const tools = sentAfterPrompt(wire.requests[1]!).filter((m) => m.role === "tool");
		expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
			["call_a", "first\n"],
			["call_b", "second\n"],
		]);
	});
});

describe("LangBot#2261 / continue#13225: Ollama's tool call with an index and no id", () => {
	it("LangBot#2261: the id-less call runs and its result goes back paired with it; the answer is printed", async () => {
		const wire = await start();
		wire.reply(
			sse([
				ollamaChunk({ tool_calls: [wholeCall("bash", { command: "echo from-gpt-oss" }, { index: 0 })] }),
				...ollamaCallsEnd(),
			]),
			chatReply([{ type: "text", text: "It printed from-gpt-oss." }], { model: "coder" }),
		);
		const run = await settle(["-p", "run echo"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("It printed from-gpt-oss.\n");
		expect(run.code).toBe(0);
		const [assistant, tool] = sentAfterPrompt(wire.requests[1]!);
		expect(tool).toMatchObject({ role: "tool", content: "from-gpt-oss\n" });
		expect(tool!.tool_call_id).toBe(assistant!.tool_calls![0]!.id);
	});

	it("LangBot#2261: the id-less call gets an id of its own, kept in the file, so the session goes on under an Anthropic and then a Responses model (they refuse an empty id)", async () => {
		server = await startWireServer(refuseEmptyToolIds);
		const wire = server;
		writeSwitchProviders(wire.url);
		wire.reply(
			sse([
				ollamaChunk({ tool_calls: [wholeCall("bash", { command: "echo from-gpt-oss" }, { index: 0 })] }),
				...ollamaCallsEnd(),
			]),
			chatReply([{ type: "text", text: "It printed from-gpt-oss." }], { model: "coder" }),
			anthropicReply([{ type: "text", text: "Claude read it." }]),
			responsesReply([{ type: "message", text: "GPT read it." }]),
		);
		expect((await settle(["-p", "run echo"])).stdout).toBe("It printed from-gpt-oss.\n");
		const claude = await settle(["-c", "--model", "claude/sonnet", "-p", "what did it print?"]);
		expect(claude.stderr).toBe("");
		expect(claude.stdout).toBe("Claude read it.\n");
		const gpt = await settle(["-c", "--model", "gpt/gpt-wire-1", "-p", "and now?"]);
		expect(gpt.stderr).toBe("");
		expect(gpt.stdout).toBe("GPT read it.\n");

		// The file holds the id the call ran under, its result under the same one: a reopen sends the same ids.
		const entries = sessionEntries(join(cli.dir, "sessions"));
		const call = entries
			.flatMap((e) => (e.message?.role === "assistant" ? (e.message.content as { type: string; id?: string }[]) : []))
			.find((block) => block.type === "toolCall");
		expect(call?.id).toMatch(/^[a-zA-Z0-9_-]+$/);
		expect(entries.find((e) => e.message?.role === "toolResult")?.message?.toolCallId).toBe(call!.id);
		const [chat] = sentAfterPrompt(wire.requests[1]!);
		expect(chat!.tool_calls![0]!.id).toBe(call!.id);
	});

	it("LangBot#2261: a file that already holds such a call with an empty id (pi 0.73.1, or Settle before) still goes on under an Anthropic and then a Responses model", async () => {
		server = await startWireServer(refuseEmptyToolIds);
		writeSwitchProviders(server.url);
		const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
		sm.appendMessage({ role: "user", content: "run echo", timestamp: 1 });
		const call = fauxAssistantMessage([fauxToolCall("bash", { command: "echo from-gpt-oss" })], {
			stopReason: "toolUse",
		});
		const stored = { type: "toolCall" as const, id: "", name: "bash", arguments: { command: "echo from-gpt-oss" } };
		sm.appendMessage({ ...call, provider: "local", api: "openai-completions", model: "coder", content: [stored] });
		sm.appendMessage({
			role: "toolResult",
			toolCallId: "",
			toolName: "bash",
			content: [{ type: "text", text: "from-gpt-oss\n" }],
			isError: false,
			timestamp: 3,
		});
		sm.appendMessage({
			...fauxAssistantMessage("It printed from-gpt-oss."),
			provider: "local",
			api: "openai-completions",
			model: "coder",
		});
		const file = sm.getSessionFile()!;
		sm.close();
		server.reply(
			anthropicReply([{ type: "text", text: "Claude read it." }]),
			responsesReply([{ type: "message", text: "GPT read it." }]),
		);

		const claude = await settle(["--session", file, "--model", "claude/sonnet", "-p", "what did it print?"]);
		expect(claude.stderr).toBe("");
		expect(claude.stdout).toBe("Claude read it.\n");
		const gpt = await settle(["--session", file, "--model", "gpt/gpt-wire-1", "-p", "and now?"]);
		expect(gpt.stderr).toBe("");
		expect(gpt.stdout).toBe("GPT read it.\n");
		const sent = (
			server.requests[0]!.body.messages as { content: { type: string; id?: string; tool_use_id?: string }[] | string }[]
		)
			.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
			.filter((b) => b.type === "tool_use" || b.type === "tool_result");
		expect(sent[0]!.id).toMatch(/^call_\d+_0$/);
		expect(sent[1]!.tool_use_id).toBe(sent[0]!.id);
	});
});

describe('model_server#3927 / mlx-vlm#990: a tool call ended with finish_reason "stop"', () => {
	it("model_server#3927: the call runs and the loop goes on to the answer", async () => {
		const wire = await start();
		wire.reply(
			sse([
				ollamaChunk({ tool_calls: [wholeCall("bash", { command: "echo ovms" }, { id: "call_ovms_1", index: 0 })] }),
				ollamaChunk({}, "stop"),
				usageChunk,
				{ data: "[DONE]" },
			]),
			chatReply([{ type: "text", text: "bash said ovms." }], { model: "coder" }),
		);
		const run = await settle(["-p", "run echo"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("bash said ovms.\n");
		expect(sentAfterPrompt(wire.requests[1]!)[1]).toMatchObject({ tool_call_id: "call_ovms_1", content: "ovms\n" });
	});
});

describe("vllm-mlx#101: a finished stream closed without data: [DONE]", () => {
	it("vllm-mlx#101: the answer after finish_reason is taken whole; exit 0, no retry", async () => {
		const wire = await start();
		const events = chatEvents([{ type: "text", text: "The scene shows a harbor." }], { model: "coder" });
		wire.reply(sse(events.slice(0, -1)));
		const run = await settle(["-p", "Describe this scene in detail"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("The scene shows a harbor.\n");
		expect(run.code).toBe(0);
		expect(wire.requests).toHaveLength(1);
	});
});

describe("pi#4497: a local server that reports no usage", () => {
	const isSummaryRequest = (request: RecordedRequest) =>
		JSON.stringify(request.body?.messages ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));
	/** A completion without the usage chunk (what the reporter's Ollama and LM Studio sent). */
	const withoutUsage = (text: string) =>
		sse(
			chatEvents([{ type: "text", text }], { model: "coder" }).filter(
				(event) => !(typeof event.data === "object" && event.data !== null && "usage" in event.data),
			),
		);

	it("pi#4497: past the threshold of the model's 8k window, the session compacts from its estimate; the next request no longer carries the long prompt", async () => {
		server = await startWireServer((request, next) =>
			isSummaryRequest(request) ? chatReply([{ type: "text", text: "## Goal\nread a long text" }]) : next(),
		);
		const wire = server;
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { models: [{ id: "coder", contextWindow: 8192 }] });
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ compaction: { reserveTokens: 2048, keepRecentTokens: 1 } }),
		);
		wire.reply(withoutUsage("Read it."), withoutUsage("Still here."));
		const long = "lorem ipsum dolor ".repeat(1800);

		const first = await settle(["-p", `read this: ${long}`]);
		expect(first.stdout).toBe("Read it.\n");
		expect(wire.requests.filter(isSummaryRequest)).toHaveLength(1);
		const again = await settle(["-c", "-p", "and now?"]);
		expect(again.stderr).toBe("");
		expect(again.stdout).toBe("Still here.\n");
		const last = wire.requests.at(-1)!;
		expect(isSummaryRequest(last)).toBe(false);
		expect(JSON.stringify(last.body)).toContain("read a long text");
		expect(JSON.stringify(last.body)).not.toContain(long);
		expect(sessionEntries(join(cli.dir, "sessions")).filter((e) => e.type === "compaction")).toHaveLength(1);
	});
});

describe("lemonade#2826: llama-server's refusal forwarded as a bare JSON body inside a 200 event stream", () => {
	const isSummaryRequest = (request: RecordedRequest) =>
		JSON.stringify(request.body?.messages ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));
	const overflow = {
		error: {
			code: 400,
			message: "request (19185 tokens) exceeds the available context size (16384 tokens), try increasing it",
			type: "exceed_context_size_error",
			n_prompt_tokens: 19185,
			n_ctx: 16384,
		},
	};
	/** What lemond sent: `200 text/event-stream`, the backend's error body without `data: `, no [DONE]. */
	const unframed: Reply = (_request, res) => {
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
		res.end(JSON.stringify(overflow));
	};

	it("lemonade#2826: the refusal is read as llama.cpp's context overflow: the session compacts and the request is answered", async () => {
		server = await startWireServer((request, next) =>
			isSummaryRequest(request) ? chatReply([{ type: "text", text: "## Goal\nanswer two questions" }]) : next(),
		);
		const wire = server;
		// The window the user declared is larger than the context llama-server was started with.
		writeLocalProvider(cli.agentDir, `${wire.url}/v1`, { models: [{ id: "coder", contextWindow: 32_768 }] });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		wire.reply(
			chatReply([{ type: "text", text: "first answer" }], { model: "coder" }),
			unframed,
			chatReply([{ type: "text", text: "answer after compaction" }], { model: "coder" }),
		);
		expect((await settle(["-p", "first question"])).stdout).toBe("first answer\n");

		const second = await settle(["-c", "-p", "second question"]);
		expect(second.stdout).toBe("answer after compaction\n");
		expect(second.stderr).not.toContain("no text");
		expect(second.code).toBe(0);
		expect(wire.requests.filter(isSummaryRequest)).toHaveLength(1);
		expect(sessionEntries(join(cli.dir, "sessions")).filter((e) => e.type === "compaction")).toHaveLength(1);
	});

	it("lemonade#2826: a bare error body that is no overflow ends the run with the server's own message, exit 1", async () => {
		const wire = await start();
		const refusal = { error: { code: 500, message: "llama-server: model failed to load", type: "server_error" } };
		wire.reply((_request, res) => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.end(`${JSON.stringify(refusal)}\n`);
		});
		const run = await settle(["-p", "hello"]);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("llama-server: model failed to load");
		expect(run.code).toBe(1);
	});
});

describe("pi#8496 / command-code#785: a stream that stops mid-answer with neither finish_reason nor [DONE]", () => {
	it("pi#8496: the close is a failed attempt, not an answer: retried once; the cut call never runs and the retry's answer is printed alone", async () => {
		const wire = await start();
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const cut = chatEvents(
			[
				{ type: "text", text: "Let me create the marker file first." },
				{ type: "tool_call", id: "call_cut", name: "bash", arguments: { command: "touch cut-call-ran" } },
			],
			{ model: "coder", finishReason: "tool_calls" },
		);
		// The role chunk, the text, the call's start and the first half of its arguments; then a clean close.
		wire.reply(
			sse(cut.slice(0, 5)),
			chatReply([{ type: "text", text: "Nothing to create after all." }], { model: "coder" }),
		);
		const run = await settle(["-p", "create the marker"]);
		expect(run.stdout).toBe("Nothing to create after all.\n");
		expect(run.code).toBe(0);
		expect(wire.requests).toHaveLength(2);
		expect(readdirSync(cli.project)).not.toContain("cut-call-ran");
		expect(JSON.stringify(wire.requests[1]!.body)).not.toContain("marker file first");
		// The cut attempt is on file as the failed attempt it was; the answer follows it.
		const assistants = sessionEntries(join(cli.dir, "sessions")).filter((e) => e.message?.role === "assistant");
		expect(assistants.map((e) => e.message)).toMatchObject([
			{ stopReason: "error", errorMessage: "Stream ended without finish_reason" },
			{ stopReason: "stop", content: [{ type: "text", text: "Nothing to create after all." }] },
		]);
	});

	it("pi#8496: a stream cut in the middle of a line (no newline after its last bytes) is the same failed attempt, retried; the client no longer prints the cut line and fails on its JSON", async () => {
		const wire = await start();
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1 } }));
		const cut = chatEvents(
			[
				{ type: "text", text: "Let me create the marker file first." },
				{ type: "tool_call", id: "call_cut", name: "bash", arguments: { command: "touch cut-call-ran" } },
			],
			{ model: "coder", finishReason: "tool_calls" },
		);
		const whole = encodeSse(cut.slice(0, 5));
		// The fifth event's line cut in half: the server stopped writing mid-chunk and closed.
		const body = whole.slice(0, whole.lastIndexOf("data: ") + 40);
		wire.reply(
			text(200, body, "text/event-stream"),
			chatReply([{ type: "text", text: "Nothing to create after all." }], { model: "coder" }),
		);
		const run = await settle(["-p", "create the marker"]);
		// Before: the client printed the cut line ("Could not parse message into JSON: …") and failed with
		// "Unexpected end of JSON input".
		expect(run.stderr).toBe("Retrying in 0.0 s, attempt 1/3: Stream ended without finish_reason\n");
		expect(run.stdout).toBe("Nothing to create after all.\n");
		expect(run.code).toBe(0);
		expect(wire.requests).toHaveLength(2);
		const assistants = sessionEntries(join(cli.dir, "sessions")).filter((e) => e.message?.role === "assistant");
		expect(assistants.map((e) => e.message)).toMatchObject([
			{ stopReason: "error", errorMessage: "Stream ended without finish_reason" },
			{ stopReason: "stop", content: [{ type: "text", text: "Nothing to create after all." }] },
		]);
	});
});
