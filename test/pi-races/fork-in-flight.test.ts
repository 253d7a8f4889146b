/**
 * Forks cut while a tool call is still in flight, replayed against Settle over HTTP: pi-ai's
 * OpenAI client talks to a local server that answers as an OpenAI-compatible Chat Completions
 * endpoint does (`test/llm/wire`), through an `AgentSessionRuntime`, the session files on disk.
 *
 * pi-subagents#1956: a fork-context child cut mid-turn inherited the parent's `tool_calls` whose
 * results had not landed yet; strict OpenAI-compatible servers (Kimi) rejected the child's first
 * request ("tool messages need a resolvable tool name"). oh-my-pi#7474: a branch cut at a leaf
 * captured while a tool ran opened on that dangling call, straight followed by the next user
 * message. What the user should see: the fork answers; its request follows every inherited call at
 * once with a `tool` message for that call id; the session that made the call keeps its result.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentSessionRuntime, createAgentSessionRuntimeFactory, SessionManager } from "../../src/index.js";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { API_KEY, wireModel } from "../llm/wire/session.js";
import { fileMessages } from "./disk-harness.js";
import { blockingTool } from "./helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// biome-ignore lint/suspicious/noExplicitAny: Chat Completions request bodies are asserted field by field
type ChatMessage = { role: string; content?: any; tool_calls?: { id: string }[]; tool_call_id?: string };

/** The call ids of `messages` that are not followed at once (before any other role) by a `tool` message for them. */
function unpairedCalls(messages: ChatMessage[]): string[] {
	const unpaired: string[] = [];
	messages.forEach((message, index) => {
		if (message.role !== "assistant" || !message.tool_calls) return;
		const answered = new Set<string>();
		for (const next of messages.slice(index + 1)) {
			if (next.role !== "tool") break;
			if (next.tool_call_id) answered.add(next.tool_call_id);
		}
		for (const call of message.tool_calls) if (!answered.has(call.id)) unpaired.push(call.id);
	});
	return unpaired;
}

describe("pi-subagents#1956, oh-my-pi#7474: a clone cut while a tool call is in flight", () => {
	it("pi-subagents#1956, oh-my-pi#7474: runtime.fork(leaf, at) during the tool: the fork's first request answers the inherited call at once with a tool message for its id; the old file keeps call and result", async () => {
		const server = await startWireServer();
		cleanups.push(() => server.close());
		const dir = mkdtempSync(join(tmpdir(), "settle-fork-in-flight-"));
		cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
		const model = wireModel("openai-completions", server.url);
		const modelRuntime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
			providers: [],
			useEnvironment: false,
			credentials: AuthStorage.inMemory({ [model.provider]: API_KEY }),
		});
		modelRuntime.registerPiAiProvider(model.provider, [model], { defaultModelId: model.id });
		let started!: () => void;
		const toolStarted = new Promise<void>((resolve) => (started = resolve));
		const factory = createAgentSessionRuntimeFactory({
			modelRuntime,
			model: modelRuntime.getModel(model.provider, model.id)!,
			thinkingLevel: "off",
			customTools: [blockingTool(() => started())],
			resourceLoaderOptions: { noExtensions: true },
		});
		const runtime = await createAgentSessionRuntime(factory, {
			cwd: dir,
			agentDir: join(dir, "agent"),
			sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		});
		cleanups.push(() => runtime.dispose());

		server.reply(
			chatReply([{ type: "tool_call", id: "call_ci1", name: "wait_for_ci", arguments: {} }], {
				finishReason: "tool_calls",
			}),
		);
		const old = runtime.session;
		const running = old
			.prompt("wait for CI, then summarize")
			.catch((error: unknown) => (error as { code?: string }).code);
		await toolStarted;
		const leaf = old.sessionManager.getLeafId()!;
		expect(await runtime.fork(leaf, { position: "at" })).toMatchObject({ cancelled: false });
		expect(await running).toBe("SESSION_CLOSED");
		const fork = runtime.session;
		expect(fork).not.toBe(old);

		// The fork was cut at the call; the session that made it kept the call with its result.
		expect(fileMessages(fork.sessionFile!).map((m) => m.role)).toEqual(["system", "user", "assistant"]);
		const oldRoles = fileMessages(old.sessionFile!).map((m) => m.role);
		expect(oldRoles.slice(0, 4)).toEqual(["system", "user", "assistant", "toolResult"]);

		server.reply(chatReply([{ type: "text", text: "carrying on without the CI result" }]));
		await fork.prompt("carry on");
		expect(server.requests).toHaveLength(2);
		const messages = server.requests[1]!.body.messages as ChatMessage[];
		expect(
			messages
				.filter((m) => m.role === "assistant")
				.flatMap((m) => m.tool_calls ?? [])
				.map((c) => c.id),
		).toEqual(["call_ci1"]);
		expect(unpairedCalls(messages)).toEqual([]);
		const toolMessage = messages.find((m) => m.role === "tool")!;
		expect(toolMessage).toMatchObject({ tool_call_id: "call_ci1", content: "No result provided" });
		expect(messages.at(-1)).toMatchObject({ role: "user" });
		expect(fork.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});
