/**
 * Kit for the pi-races regression tests: a session on disk (real JSONL under a temp dir) whose
 * model is a hand-driven stream, so a test can stall it mid-response, plus readers of the file.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import {
	type AgentSession,
	type AgentSessionEvent,
	type AgentSessionRuntime,
	type AgentTool,
	type AssistantMessage,
	type AssistantMessageEventStream,
	type CreateAgentSessionOptions,
	createAgentSession,
	createAgentSessionRuntime,
	createAgentSessionRuntimeFactory,
	createAssistantMessageEventStream,
	DefaultResourceLoader,
	type ExtensionError,
	type ExtensionFactory,
	InMemoryModelRuntime,
	type Model,
	SessionManager,
	SettingsManager,
	type StreamFn,
	type ToolCall,
} from "../../src/index.js";
import { fauxAssistantMessage, fauxToolCall, SimulatedClock } from "../../src/testing/index.js";

/** A model request the test answers by hand: push events, finish it, or let it hang. */
export interface ManualRequest {
	stream: AssistantMessageEventStream;
	signal: AbortSignal | undefined;
	/** `start` plus one text delta: the reply has begun and then goes silent. */
	beginText(text: string): void;
	/** Ends the reply with `message` (a `done` or `error` event). */
	finish(message: AssistantMessage): void;
}

/** A provider whose every request waits for the test (`next()` resolves when one arrives). */
export class ManualProvider {
	readonly model: Model;
	readonly requests: ManualRequest[] = [];
	private waiters: ((request: ManualRequest) => void)[] = [];
	/** Called as each request arrives, before the caller sees its stream (a transport's own abort listener goes here). */
	onRequest: ((request: ManualRequest) => void) | undefined;
	/** Replies given at once, before requests are handed to the test. */
	private readonly canned: AssistantMessage[] = [];

	constructor() {
		this.model = {
			id: "manual-1",
			name: "Manual",
			api: "manual",
			provider: "manual",
			baseUrl: "http://localhost",
			reasoning: false,
			input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 200_000,
			maxTokens: 8192,
		};
	}

	/** Answer the next requests at once with these messages (then hand requests to the test again). */
	answer(...messages: (AssistantMessage | string)[]): void {
		for (const message of messages) this.canned.push(typeof message === "string" ? this.reply(message) : message);
	}

	readonly streamFn: StreamFn = (_model, _context, options) => {
		const stream = createAssistantMessageEventStream();
		const canned = this.canned.shift();
		if (canned) {
			stream.push({ type: "start", partial: { ...canned, content: [] } });
			stream.push({ type: "done", reason: canned.stopReason as "stop", message: canned });
			stream.end(canned);
			return stream;
		}
		const model = this.model;
		const request: ManualRequest = {
			stream,
			signal: options?.signal,
			beginText(text) {
				const partial = { ...fauxAssistantMessage(""), api: model.api, provider: model.provider, model: model.id };
				stream.push({ type: "start", partial: { ...partial, content: [] } });
				const withText = { ...partial, content: [{ type: "text" as const, text }] };
				stream.push({
					type: "text_start",
					contentIndex: 0,
					partial: { ...withText, content: [{ type: "text", text: "" }] },
				});
				stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: withText });
			},
			finish(message) {
				if (message.stopReason === "error" || message.stopReason === "aborted") {
					stream.push({ type: "error", reason: message.stopReason, error: message });
				} else {
					stream.push({ type: "done", reason: message.stopReason, message });
				}
				stream.end(message);
			},
		};
		this.requests.push(request);
		this.onRequest?.(request);
		const waiter = this.waiters.shift();
		waiter?.(request);
		return stream;
	};

	/** The next request not yet handed out (resolves when it arrives). */
	next(): Promise<ManualRequest> {
		const taken = this.taken;
		if (this.requests.length > taken) {
			this.taken++;
			return Promise.resolve(this.requests[taken]!);
		}
		return new Promise((resolve) =>
			this.waiters.push((request) => {
				this.taken++;
				resolve(request);
			}),
		);
	}
	private taken = 0;

	/** A finished text reply stamped with this provider's model. */
	reply(text: string): AssistantMessage {
		return this.stamped(fauxAssistantMessage(text));
	}

	/** A reply that calls these tools (`stopReason: "toolUse"`), stamped with this provider's model. */
	toolCallReply(...calls: ToolCall[]): AssistantMessage {
		return this.stamped(fauxAssistantMessage(calls, { stopReason: "toolUse" }));
	}

	/** A reply that runs `command` with the built-in bash tool as call `id` (`extra`: more arguments). */
	bashCallReply(command: string, id: string, extra: Record<string, unknown> = {}): AssistantMessage {
		return this.toolCallReply(fauxToolCall("bash", { command, ...extra }, { id }));
	}

	private stamped(message: AssistantMessage): AssistantMessage {
		const model = this.model;
		return { ...message, api: model.api, provider: model.provider, model: model.id };
	}
}

export interface DiskSession {
	session: AgentSession;
	provider: ManualProvider;
	clock: SimulatedClock;
	events: AgentSessionEvent[];
	dir: string;
	cleanup(): void;
}

const dirs: string[] = [];

/** Removes every temp dir made by {@link diskSession} (call in `afterEach`). */
export function removeTempDirs(): void {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * For a test file's top level: `session()` opens a {@link diskSession} that is cleaned up, with
 * every temp dir, after the test; `open` lists the ones still to clean up.
 */
export function diskSessionsPerTest() {
	const open: DiskSession[] = [];
	afterEach(() => {
		for (const s of open.splice(0)) s.cleanup();
		removeTempDirs();
	});
	return {
		open,
		async session(options: Parameters<typeof diskSession>[0] = {}): Promise<DiskSession> {
			const s = await diskSession(options);
			open.push(s);
			return s;
		},
	};
}

/** A tool whose execute never returns and ignores its abort signal (an MCP bridge whose server went away). */
export function hungTool(onStart: () => void, name = "mcp_call"): AgentTool {
	return {
		name,
		label: "MCP",
		description: "calls an MCP server that stopped answering",
		parameters: { type: "object", properties: {} } as never,
		execute: () =>
			new Promise(() => {
				onStart();
			}),
	};
}

/**
 * A session through `createAgentSession` on the {@link ManualProvider}, persisted to a real JSONL
 * file in a temp dir, timers on a `SimulatedClock`.
 */
export async function diskSession(
	options: {
		settings?: Parameters<typeof SettingsManager.inMemory>[0];
		/** Inline extensions (bound: `session_start` is sent). */
		extensionFactories?: ExtensionFactory[];
	} & Partial<CreateAgentSessionOptions> = {},
): Promise<DiskSession> {
	const dir = mkdtempSync(join(tmpdir(), "settle-pi-races-"));
	dirs.push(dir);
	const provider = new ManualProvider();
	const modelRuntime = new InMemoryModelRuntime([
		{ provider: "manual", models: [provider.model], streamFn: provider.streamFn, requiresAuth: false },
	]);
	const settingsManager = SettingsManager.inMemory(options.settings ?? {});
	const agentDir = join(dir, "agent");
	const { extensionFactories, ...sessionOptions } = options;
	const resourceLoader = new DefaultResourceLoader({
		cwd: dir,
		agentDir,
		settingsManager,
		noExtensions: true,
		...(extensionFactories ? { extensionFactories } : {}),
	});
	await resourceLoader.reload();
	const clock = new SimulatedClock();
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir,
		modelRuntime,
		model: provider.model,
		settingsManager,
		resourceLoader,
		sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		clock,
		...sessionOptions,
	});
	if (extensionFactories) await session.bindExtensions();
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => events.push(event));
	return {
		session,
		provider,
		clock,
		events,
		dir,
		cleanup() {
			session.dispose();
			session.sessionManager.close();
		},
	};
}

/**
 * An `AgentSessionRuntime` over a new session file in a temp folder (`<dir>/sessions`), its model a
 * {@link ManualProvider}, no extensions: for tests that replace the session (fork, switch) or read
 * the session list.
 */
export async function manualDiskRuntime(): Promise<{
	dir: string;
	sessionDir: string;
	provider: ManualProvider;
	runtime: AgentSessionRuntime;
}> {
	const { dir, cleanup } = await diskSession();
	cleanup();
	const provider = new ManualProvider();
	const modelRuntime = new InMemoryModelRuntime([
		{ provider: "manual", models: [provider.model], streamFn: provider.streamFn, requiresAuth: false },
	]);
	const factory = createAgentSessionRuntimeFactory({
		modelRuntime,
		model: provider.model,
		clock: new SimulatedClock(),
		resourceLoaderOptions: { noExtensions: true },
	});
	const sessionDir = join(dir, "sessions");
	const runtime = await createAgentSessionRuntime(factory, {
		cwd: dir,
		agentDir: join(dir, "agent"),
		sessionManager: SessionManager.create(dir, sessionDir),
	});
	return { dir, sessionDir, provider, runtime };
}

/** The entries of a session file, parsed line by line. */
export function readEntries(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The messages of a session file's entries, in file order. */
export function fileMessages(file: string): { role: string; [key: string]: unknown }[] {
	return readEntries(file)
		.filter((entry) => entry.type === "message")
		.map((entry) => entry.message as { role: string });
}

/**
 * Tool calls in the file without a result, and results without a call before them: what makes
 * a provider answer "No tool call found for function call output" (pinet#941, pi#4570).
 */
export function orphanToolMessages(file: string): { callsWithoutResult: string[]; resultsWithoutCall: string[] } {
	const calls = new Set<string>();
	const results = new Set<string>();
	const resultsWithoutCall: string[] = [];
	for (const message of fileMessages(file)) {
		if (message.role === "assistant") {
			for (const block of message.content as { type: string; id?: string }[]) {
				if (block.type === "toolCall" && block.id) calls.add(block.id);
			}
		} else if (message.role === "toolResult") {
			const id = message.toolCallId as string;
			if (!calls.has(id)) resultsWithoutCall.push(id);
			results.add(id);
		}
	}
	return { callsWithoutResult: [...calls].filter((id) => !results.has(id)), resultsWithoutCall };
}

/** Resolves at the first event of `type` on `session` (subscribed now). */
export function nextEvent<T extends AgentSessionEvent["type"]>(
	session: AgentSession,
	type: T,
): Promise<Extract<AgentSessionEvent, { type: T }>> {
	return new Promise((resolve) => {
		const unsubscribe = session.subscribe((event) => {
			if (event.type !== type) return;
			unsubscribe();
			resolve(event as Extract<AgentSessionEvent, { type: T }>);
		});
	});
}

/** Resolves at the first event on `session` (subscribed now) for which `match` holds. */
export function eventWhere(
	session: AgentSession,
	match: (event: AgentSessionEvent) => boolean,
): Promise<AgentSessionEvent> {
	return new Promise((resolve) => {
		const unsubscribe = session.subscribe((event) => {
			if (!match(event)) return;
			unsubscribe();
			resolve(event);
		});
	});
}

/** Resolves once the streamed answer's text delta has reached listeners. */
export function textDelta(session: AgentSession): Promise<AgentSessionEvent> {
	return eventWhere(
		session,
		(event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
	);
}

/**
 * Prompts `turn.prompt` (default "write the report", answered "report written"), aborts once a
 * handler holds it (`held`), and lets the 1 s grace pass once the handler's signal (`signal()`)
 * aborted. Returns the extension errors reported meanwhile.
 */
export async function abortPastGrace(
	d: DiskSession,
	held: Promise<void>,
	signal: () => AbortSignal | undefined,
	turn: { prompt: string; answer: AssistantMessage | string } = {
		prompt: "write the report",
		answer: "report written",
	},
	graceMs = 1000,
): Promise<ExtensionError[]> {
	const errors: ExtensionError[] = [];
	d.session.extensionRunner.onError((error) => errors.push(error));
	d.provider.answer(turn.answer);
	const run = d.session.prompt(turn.prompt);
	await held;
	const stopping = d.session.abort();
	const aborted = signal()!;
	if (!aborted.aborted) await new Promise((resolve) => aborted.addEventListener("abort", resolve, { once: true }));
	d.clock.increment(graceMs);
	await stopping;
	await run;
	return errors;
}

/** A promise with its resolver. */
function openable(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { opened, open };
}

/**
 * An extension whose first `event` handler call keeps its `ctx.signal` (`held()`), says so
 * (`holding`), ignores the abort until `late` opens, then runs `resume`; later calls return at once.
 */
export function holdFirstCall(
	event: "turn_end" | "agent_before_settle" | "tool_call" | "tool_result",
	resume: (pi: ExtensionAPI, ctx: ExtensionContext) => void,
) {
	const late = openable();
	const holding = openable();
	let held: AbortSignal | undefined;
	const factory: ExtensionFactory = (pi) => {
		let calls = 0;
		pi.on(event as "turn_end", async (_event, ctx) => {
			if (calls++ > 0) return; // holds the first call only, ignoring the abort
			held = ctx.signal;
			holding.open();
			await late.opened;
			resume(pi, ctx);
		});
	};
	return { factory, late, holding, held: () => held };
}
