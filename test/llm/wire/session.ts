/**
 * A whole Settle session against a {@link WireServer}: pi-ai's real provider clients (Anthropic
 * SDK, OpenAI SDK) over HTTP to 127.0.0.1, a model whose `baseUrl` is the server, the key from a
 * credential source, the default built-in tools, and the session JSONL on disk in a temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, expect } from "vitest";
import type { ExtensionFactory } from "../../../src/extensions/types.js";
import { loadPiAi, PiAiModelRuntime, type PiAiModule } from "../../../src/llm/pi-ai.js";
import type { AssistantMessage, Model } from "../../../src/llm/types.js";
import { createTestResourceLoader } from "../../../src/resources/test-loader.js";
import { AuthStorage } from "../../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../../src/runtime/sdk.js";
import type { AgentSession } from "../../../src/session/agent-session.js";
import type { AgentSessionEvent } from "../../../src/session/events.js";
import type { Settings } from "../../../src/settings/schema.js";
import { SettingsManager } from "../../../src/settings/settings-manager.js";
import type { SessionEntry } from "../../../src/store/entries.js";
import { SessionManager } from "../../../src/store/session-manager.js";
import type { SimulatedClock } from "../../../src/testing/index.js";
import { type Router, startWireServer, type WireServer } from "./server.js";

export type WireApi = "anthropic-messages" | "openai-completions" | "openai-responses";

export const API_KEY = "sk-wire-test-key";

/** A model of `api` served by the server at `url` (the path prefix the provider's SDK expects). */
export function wireModel(api: WireApi, url: string, overrides: Partial<Model> = {}): Model {
	const anthropic = api === "anthropic-messages";
	return {
		id: anthropic ? "claude-wire-1" : "gpt-wire-1",
		name: anthropic ? "Claude (wire test)" : "GPT (wire test)",
		api,
		provider: anthropic ? "anthropic" : "openai",
		// The Anthropic SDK appends /v1/messages; the OpenAI SDK appends /chat/completions or /responses.
		baseUrl: anthropic ? url : `${url}/v1`,
		reasoning: true,
		input: ["text"],
		cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
		contextWindow: 200_000,
		maxTokens: 8192,
		...overrides,
	};
}

export interface WireSessionOptions {
	api: WireApi;
	settings?: Partial<Settings>;
	model?: Partial<Model>;
	/**
	 * The provider SDK's own transport retries (`maxRetries` of the Anthropic/OpenAI client).
	 * Default 0: the session's retry is under test. `undefined` keeps the SDK default (2).
	 */
	sdkMaxRetries?: number | undefined;
	route?: Router;
	/** Where the key is read (default: {@link API_KEY} in memory); a test may rotate it. */
	credentials?: AuthStorage;
	/** Inline extensions (then the test resource loader's system prompt is used). */
	extensionFactories?: ExtensionFactory[];
	/** The session's clock (retry backoff, the stream idle timeout); real time when unset. */
	clock?: SimulatedClock;
}

export interface WireSession {
	server: WireServer;
	session: AgentSession;
	model: Model;
	dir: string;
	events: AgentSessionEvent[];
	eventsOf<T extends AgentSessionEvent["type"]>(type: T): Extract<AgentSessionEvent, { type: T }>[];
	/** The session file's entries, parsed from disk. */
	entries(): SessionEntry[];
	dispose(): Promise<void>;
}

/** pi-ai with the SDK retry count forced (pi's `retry.provider.maxRetries`). */
function withSdkRetries(module: PiAiModule, maxRetries: number | undefined): PiAiModule {
	if (maxRetries === undefined) return module;
	return {
		...module,
		streamSimple: (model, context, options) => module.streamSimple(model, context, { ...options, maxRetries }),
	};
}

export async function startWireSession(options: WireSessionOptions): Promise<WireSession> {
	const server = await startWireServer(options.route);
	const dir = mkdtempSync(join(tmpdir(), "settle-wire-"));
	const sdkMaxRetries = "sdkMaxRetries" in options ? options.sdkMaxRetries : 0;
	const module = withSdkRetries(await loadPiAi(async () => piAi), sdkMaxRetries);
	const model = wireModel(options.api, server.url, options.model);
	const modelRuntime = new PiAiModelRuntime(module, {
		providers: [],
		useEnvironment: false,
		credentials: options.credentials ?? AuthStorage.inMemory({ [model.provider]: API_KEY }),
	});
	modelRuntime.registerPiAiProvider(model.provider, [model], { defaultModelId: model.id });
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		modelRuntime,
		model: modelRuntime.getModel(model.provider, model.id)!,
		settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 1 }, ...options.settings }),
		sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		...(options.clock ? { clock: options.clock } : {}),
		...(options.extensionFactories
			? { resourceLoader: createTestResourceLoader({ extensionFactories: options.extensionFactories }) }
			: {}),
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => {
		events.push(event);
	});
	return {
		server,
		session,
		model,
		dir,
		events,
		eventsOf: (type) => events.filter((event) => event.type === type) as never,
		entries: () =>
			readFileSync(session.sessionFile!, "utf8")
				.split("\n")
				.filter((line) => line.trim() !== "")
				.map((line) => JSON.parse(line) as SessionEntry),
		dispose: async () => {
			session.dispose();
			await server.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/**
 * {@link startWireSession} for the tests of one file or `describe`: the session it started last is
 * disposed after each test. Its `afterEach` runs after the hooks registered later in that scope and
 * before those registered earlier (vitest runs after-hooks last first).
 *
 * @example
 * const wireSession = useWireSession();
 * it("answers", async () => {
 *   const w = await wireSession({ api: "anthropic-messages" });
 *   await w.session.prompt("hi");
 * });
 */
export function useWireSession(): (options: WireSessionOptions) => Promise<WireSession> {
	let current: WireSession | undefined;
	afterEach(async () => {
		await current?.dispose();
		current = undefined;
	});
	return async (options) => {
		current = await startWireSession(options);
		return current;
	};
}

/** The session's last assistant message. */
export function lastAssistant(w: WireSession): AssistantMessage {
	return w.session.messages.findLast((m) => m.role === "assistant") as AssistantMessage;
}

/**
 * What a user sees after an overflow on a Chat Completions / Messages session scripted as "first
 * question" … `lastQuestion`, the overflow, a "wire summary" and "answer after compaction": one
 * overflow compaction that re-ran the request, no retry, the answer shown, and a re-run request that
 * starts from the summary and still asks `lastQuestion`.
 */
export function expectOverflowCompactedAndAnswered(w: WireSession, lastQuestion: string): void {
	expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
	expect(w.eventsOf("auto_retry_start")).toEqual([]);
	expect(lastAssistant(w)).toMatchObject({
		stopReason: "stop",
		content: [{ type: "text", text: "answer after compaction" }],
	});
	const rerun = JSON.stringify(w.server.requests.at(-1)!.body.messages);
	expect(rerun).toContain("wire summary");
	expect(rerun).toContain(lastQuestion);
	expect(rerun).not.toContain("first question");
}

/**
 * Prompts `text` and calls `abort()` at the answer's first text delta; resolves once the prompt has
 * returned and the server saw the client close the request.
 */
export async function abortAtFirstDelta(w: WireSession, text: string): Promise<void> {
	const seen = new Promise<void>((resolve) => {
		w.session.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") resolve();
		});
	});
	const prompt = w.session.prompt(text);
	await seen;
	await w.session.abort();
	await prompt;
	await w.server.waitForClientClose(1);
}
