/**
 * Real provider clients (pi-ai → the openai SDK → fetch) against a local OpenAI-compatible HTTP
 * server, offline: the listeners the SDK adds to a request's abort signal must not pile up on the
 * run's signal across the model calls of one run, and an abort still reaches the request.
 */
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPiAiModelRuntime } from "../../src/llm/pi-ai.js";
import type { Model } from "../../src/llm/types.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness } from "../../src/testing/harness.js";

type Handler = (call: number, res: ServerResponse, req: IncomingMessage) => void;

let dir: string;
let server: Server;
let handler: Handler;
let calls: number;
let warnings: string[];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

beforeEach(async () => {
	dir = mkdtempSync(join(tmpdir(), "settle-lifetime-provider-"));
	calls = 0;
	warnings = [];
	process.on("warning", onWarning);
	server = createServer((req, res) => {
		req.resume();
		req.on("end", () => handler(++calls, res, req));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
	process.off("warning", onWarning);
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
	rmSync(dir, { recursive: true, force: true });
});

/** One streamed chat-completion chunk (OpenAI's SSE wire format). */
function chunk(delta: Record<string, unknown>, finishReason: string | null): string {
	const body = {
		id: "c",
		object: "chat.completion.chunk",
		created: 0,
		model: "m",
		choices: [{ index: 0, delta, finish_reason: finishReason }],
	};
	return `data: ${JSON.stringify(body)}\n\n`;
}

function answerToolCall(call: number, res: ServerResponse): void {
	res.writeHead(200, { "content-type": "text/event-stream" });
	const toolCall = { index: 0, id: `call_${call}`, type: "function", function: { name: "ls", arguments: "{}" } };
	res.write(chunk({ role: "assistant", tool_calls: [toolCall] }, null));
	res.write(chunk({}, "tool_calls"));
	res.end("data: [DONE]\n\n");
}

function answerText(res: ServerResponse, text: string): void {
	res.writeHead(200, { "content-type": "text/event-stream" });
	res.write(chunk({ role: "assistant", content: text }, null));
	res.write(chunk({}, "stop"));
	res.end("data: [DONE]\n\n");
}

async function openAiSession(): Promise<AgentSession> {
	const port = (server.address() as AddressInfo).port;
	const modelRuntime = await createPiAiModelRuntime({
		useEnvironment: false,
		providers: [],
		credentials: { getApiKey: () => "test-key" },
	});
	const model = {
		id: "local-model",
		name: "local model",
		api: "openai-completions",
		provider: "local",
		baseUrl: `http://127.0.0.1:${port}/v1`,
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 128_000,
		maxTokens: 4096,
	} as Model;
	modelRuntime.registerPiAiProvider("local", [model]);
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		modelRuntime,
		settingsManager: SettingsManager.inMemory({ retry: { enabled: false } }),
		sessionManager: SessionManager.inMemory(dir),
		model: modelRuntime.getModel("local", "local-model")!,
	});
	return session;
}

/** The most abort listeners the run's signal had at any session event. */
function watchRunSignal(session: AgentSession): () => number {
	let most = 0;
	session.subscribe(() => {
		const signal = session.agent.signal;
		if (signal) most = Math.max(most, getEventListeners(signal, "abort").length);
	});
	return () => most;
}

describe("provider requests on the run's abort signal", () => {
	it("openai SDK listeners piled up on the run signal: MaxListenersExceededWarning at the 11th model call of a run", async () => {
		const toolTurns = 14;
		handler = (call, res) => (call <= toolTurns ? answerToolCall(call, res) : answerText(res, "done"));
		const session = await openAiSession();
		const mostListeners = watchRunSignal(session);
		await session.prompt("list the files again and again");
		expect(calls).toBe(toolTurns + 1);
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		// The run's own abort wait, and the link to the one request in flight.
		expect(mostListeners()).toBeLessThanOrEqual(2);
		expect(warnings).toEqual([]);
		session.dispose();
	});

	it("an abort still reaches the request in flight: the HTTP request is closed, the run settles aborted", async () => {
		let requestClosed!: () => void;
		const closed = new Promise<void>((resolve) => {
			requestClosed = resolve;
		});
		handler = (_call, res) => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.write(chunk({ role: "assistant", content: "thinking about it" }, null));
			res.on("close", requestClosed);
		};
		const session = await openAiSession();
		const streaming = new Promise<void>((resolve) =>
			session.subscribe((event) => {
				if (event.type === "message_update") resolve();
			}),
		);
		const done = session.prompt("take your time");
		await streaming;
		await session.abort();
		await done;
		await closed;
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		session.dispose();
	});

	it("an extension's provider wrapping pi-ai's streamSimple piled up listeners the same way", async () => {
		const toolTurns = 12;
		handler = (call, res) => (call <= toolTurns ? answerToolCall(call, res) : answerText(res, "done"));
		const port = (server.address() as AddressInfo).port;
		const h = await createHarness({
			settings: { retry: { enabled: false } },
			extensionFactories: [
				(pi) =>
					pi.registerProvider("ext-local", {
						api: "openai-completions",
						baseUrl: `http://127.0.0.1:${port}/v1`,
						apiKey: "test-key",
						models: [{ id: "ext-model", name: "extension model", contextWindow: 128_000, maxTokens: 4096 }],
						streamSimple: piAi.streamSimple,
					}),
			],
		});
		await h.session.setModel(h.modelRuntime.getModel("ext-local", "ext-model")!);
		const mostListeners = watchRunSignal(h.session);
		await h.session.prompt("list the files again and again");
		expect(calls).toBe(toolTurns + 1);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(mostListeners()).toBeLessThanOrEqual(2);
		expect(warnings).toEqual([]);
		h.cleanup();
	});
});
