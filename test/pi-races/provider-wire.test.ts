/**
 * Reports about what goes to and comes back from providers, replayed against Settle over HTTP:
 * pi-ai's own provider clients (OpenAI and Anthropic SDKs) talk to a local server that answers as
 * the provider does (`test/llm/wire`), through a whole session from `createAgentSession`.
 *
 * pi#7134: a provider's 429 carried its cool-down in the error body (`retry_after_seconds: 59`,
 * Cerebras), and the session retried on its blind exponential schedule (2 s, 4 s, 8 s): every
 * retry landed inside the cool-down, re-paid the prompt, and the turn failed. What the user should
 * see: the session waits what the provider asked for, or, when that is longer than
 * `retry.maxAgentDelayMs`, ends at once with the provider's error instead of re-hammering it.
 *
 * oh-my-pi#6379: a session switched onto Anthropic while its latest assistant turn came from
 * another `anthropic-messages` provider (Kimi) replayed that turn's thinking signature verbatim;
 * Anthropic rejected it (`400 Invalid signature in thinking block`) on every retry. What the user
 * should see: a signature minted by another provider or model never reaches the new one; the
 * thinking text still does, as text; Anthropic's own signed turns are replayed to Anthropic intact.
 *
 * pi#9048: the same handoff from OpenAI's Responses API (Codex): its tool call ids are
 * `call_…|fc_…`, and replayed to Anthropic unchanged they fail
 * `tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`; its reasoning signatures (JSON
 * with `encrypted_content`) fail as thinking signatures. What the user should see: the switched
 * session answers; each call and its result reach Anthropic under one id it accepts.
 *
 * pi#8499: an OpenRouter model that fails on tool payloads ends the stream with
 * `finish_reason: "stop"`, `content: null` and `native_finish_reason: "network_error"`, 0 tokens:
 * `pi -p` printed nothing and exited 0, the failure silent. What the user should see: a word that
 * the answer holds no text, on stderr, with stdout left empty for scripts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { responsesReply } from "../llm/wire/responses.js";
import { json, sse, startWireServer, useWireServer, type WireServer } from "../llm/wire/server.js";
import { API_KEY, lastAssistant, useWireSession, type WireApi, wireModel } from "../llm/wire/session.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
// After-hooks run last first: the session is disposed before the cleanups run.
const wireSession = useWireSession();

/** A 429 whose error object names its cool-down only as a snake_case field (no message text). */
function coolDown429(seconds: number) {
	return json(429, {
		error: { type: "too_many_requests_error", code: "request_quota_exceeded", retry_after_seconds: seconds },
	});
}

describe("pi#7134: a 429 that names its cool-down in the body (retry_after_seconds)", () => {
	it("pi#7134: retry_after_seconds 59 above retry.maxAgentDelayMs: no retry inside the cool-down, the turn ends with the provider's error", async () => {
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off", retry: { baseDelayMs: 1, maxAgentDelayMs: 1000 } },
		});
		w.server.reply(coolDown429(59), chatReply([{ type: "text", text: "too early" }]));
		await w.session.prompt("hello");

		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("auto_retry_start")).toEqual([]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "error",
			errorMessage: expect.stringContaining('"retry_after_seconds":59'),
		});
	});

	it("pi#7134: retry_after_seconds 0.05 is waited (delayMs 50, not the 1 ms backoff), then the answer arrives", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(coolDown429(0.05), chatReply([{ type: "text", text: "after the cool-down" }]));
		await w.session.prompt("hello");

		expect(w.eventsOf("auto_retry_start").map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
			{ attempt: 1, delayMs: 50 },
		]);
		expect(w.server.requests).toHaveLength(2);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "after the cool-down" }],
		});
	});
});

/**
 * Two providers on one local server — `first` and `anthropic` (`claude-wire-1`) — and a session
 * starting on `first`, its JSONL on disk, the built-in tools running in a temp folder.
 */
async function switchingSession(first: { api: WireApi; provider: string; id: string }) {
	const server: WireServer = await startWireServer();
	const dir = mkdtempSync(join(tmpdir(), "settle-wire-switch-"));
	cleanups.push(async () => {
		await server.close();
		rmSync(dir, { recursive: true, force: true });
	});
	const from = wireModel(first.api, server.url, { id: first.id, name: first.id, provider: first.provider });
	const claude = wireModel("anthropic-messages", server.url);
	const runtime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
		providers: [],
		useEnvironment: false,
		credentials: AuthStorage.inMemory({ [first.provider]: API_KEY, anthropic: API_KEY }),
	});
	runtime.registerPiAiProvider(first.provider, [from], { defaultModelId: first.id });
	runtime.registerPiAiProvider("anthropic", [claude], { defaultModelId: "claude-wire-1" });
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		modelRuntime: runtime,
		model: runtime.getModel(first.provider, first.id)!,
		thinkingLevel: "high",
		settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 1 } }),
		sessionManager: SessionManager.create(dir, join(dir, "sessions")),
	});
	cleanups.push(() => {
		session.dispose();
	});
	return { server, session, dir, claude: runtime.getModel("anthropic", "claude-wire-1")! };
}

const twoAnthropicProviders = () => switchingSession({ api: "anthropic-messages", provider: "kimi-code", id: "k3" });

type SentBlock = { type: string; text?: string; thinking?: string; signature?: string };
const sentAssistants = (server: WireServer, index: number) =>
	(server.requests[index]!.body.messages as { role: string; content: SentBlock[] | string }[]).filter(
		(message) => message.role === "assistant",
	);

describe("oh-my-pi#6379: switching onto Anthropic after another anthropic-messages provider's signed thinking", () => {
	it("oh-my-pi#6379: Kimi's signed thinking in the latest turn is not replayed to Anthropic; its text is, and the answer arrives", async () => {
		const { server, session, claude } = await twoAnthropicProviders();
		server.reply(
			anthropicReply(
				[
					{ type: "thinking", thinking: "Compare 9.11 and 9.9 digit by digit.", signature: "kimi_foreign_sig" },
					{ type: "text", text: "9.9 is larger." },
				],
				{ model: "k3" },
			),
			anthropicReply([{ type: "text", text: "Yes, 9.9." }]),
		);
		await session.prompt("Think step by step: which is larger, 9.11 or 9.9?");
		expect(session.messages.at(-1)).toMatchObject({ provider: "kimi-code", model: "k3", stopReason: "stop" });

		await session.setModel(claude);
		await session.prompt("Are you sure?");

		expect(server.requests).toHaveLength(2);
		expect(JSON.stringify(server.requests[1]!.body)).not.toContain("kimi_foreign_sig");
		expect(sentAssistants(server, 1)).toEqual([
			{
				role: "assistant",
				content: [
					{ type: "text", text: "Compare 9.11 and 9.9 digit by digit." },
					{ type: "text", text: "9.9 is larger." },
				],
			},
		]);
		expect(session.messages.at(-1)).toMatchObject({
			provider: "anthropic",
			stopReason: "stop",
			content: [{ type: "text", text: "Yes, 9.9." }],
		});
	});

	it("oh-my-pi#6379 (control): Anthropic's own signed thinking is replayed to Anthropic with its signature", async () => {
		const { server, session, claude } = await twoAnthropicProviders();
		await session.setModel(claude);
		server.reply(
			anthropicReply([
				{ type: "thinking", thinking: "Digit by digit.", signature: "anthropic_own_sig" },
				{ type: "text", text: "9.9 is larger." },
			]),
			anthropicReply([{ type: "text", text: "Yes." }]),
		);
		await session.prompt("which is larger, 9.11 or 9.9?");
		await session.prompt("sure?");

		expect(sentAssistants(server, 1)).toEqual([
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "Digit by digit.", signature: "anthropic_own_sig" },
					{ type: "text", text: "9.9 is larger." },
				],
			},
		]);
	});
});

describe("pi#8499: an OpenAI-compatible stream that ends 'stop' with no content (OpenRouter native_finish_reason network_error)", () => {
	const cli = useCliProject("settle-pi-races-provider-wire-");
	const server = useWireServer();

	it("pi#8499: `settle -p` says on stderr that the answer holds no text; stdout stays empty", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
			data: {
				id: "gen-wire",
				object: "chat.completion.chunk",
				created: 1_764_000_000,
				model: "coder",
				...extra,
				choices: [choice],
			},
		});
		server.reply(
			sse([
				chunk({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }),
				chunk({
					index: 0,
					delta: { content: null },
					finish_reason: "stop",
					native_finish_reason: "network_error",
				}),
				{
					data: {
						id: "gen-wire",
						object: "chat.completion.chunk",
						created: 1_764_000_000,
						model: "coder",
						choices: [],
						usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
					},
				},
				{ data: "[DONE]" },
			]),
		);
		const run = await runSettleAsync(["--model", "local/coder", "-p", "list the files"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(server.requests).toHaveLength(1);
		// The request carried the tools (the payload the upstream failed on).
		expect(server.requests[0]!.body.tools).toEqual(
			expect.arrayContaining([expect.objectContaining({ type: "function" })]),
		);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("Warning: the model's answer holds no text; nothing to print.");
		expect(run.code).toBe(0);
	});
});

describe("pi#9048: switching from OpenAI Responses (call_…|fc_… tool ids, encrypted reasoning) onto Anthropic", () => {
	it("pi#9048: the call and its result reach Anthropic under one id matching ^[a-zA-Z0-9_-]+$, no OpenAI reasoning signature; the answer arrives", async () => {
		const { server, session, dir, claude } = await switchingSession({
			api: "openai-responses",
			provider: "openai",
			id: "gpt-wire-1",
		});
		const callId = "call_Q1JuaH3v7ZNL4Gk8y0BJ5N9I";
		server.reply(
			responsesReply([
				{ type: "reasoning", summary: "List the folder first." },
				{
					type: "function_call",
					callId,
					name: "bash",
					arguments: { command: "echo handoff > marker.txt && cat marker.txt" },
				},
			]),
			responsesReply([{ type: "message", text: "Wrote marker.txt." }]),
			anthropicReply([{ type: "text", text: "The marker says handoff." }]),
		);
		await session.prompt("write a marker file");
		const call = session.messages
			.flatMap((message) => (message.role === "assistant" ? message.content : []))
			.find((block) => block.type === "toolCall");
		// pi-ai keeps the Responses item id in the call id: the shape the report saw in its file.
		expect(call).toMatchObject({ id: expect.stringMatching(/^call_Q1JuaH3v7ZNL4Gk8y0BJ5N9I\|fc_/) });
		expect(readFileSync(join(dir, "marker.txt"), "utf8")).toBe("handoff\n");

		await session.setModel(claude);
		await session.prompt("what does the marker say?");

		expect(server.requests).toHaveLength(3);
		const sent = server.requests[2]!.body.messages as { role: string; content: SentBlock[] | string }[];
		const blocks = sent.flatMap((message) => (typeof message.content === "string" ? [] : message.content));
		const toolUses = blocks.filter((block) => block.type === "tool_use") as unknown as { id: string }[];
		const toolResults = blocks.filter((block) => block.type === "tool_result") as unknown as {
			tool_use_id: string;
			content: unknown;
		}[];
		expect(toolUses).toHaveLength(1);
		expect(toolUses[0]!.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		expect(toolResults).toEqual([
			expect.objectContaining({ tool_use_id: toolUses[0]!.id, content: expect.stringContaining("handoff") }),
		]);
		expect(blocks.filter((block) => block.type === "thinking")).toEqual([]);
		expect(JSON.stringify(server.requests[2]!.body)).not.toContain("rs_wire");
		expect(session.messages.at(-1)).toMatchObject({
			provider: "anthropic",
			stopReason: "stop",
			content: [{ type: "text", text: "The marker says handoff." }],
		});
	});
});
