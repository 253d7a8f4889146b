/**
 * Servers and bots that embed the SDK (many sessions in one process, a session per user created
 * and disposed, a host's own timeout aborting a run), replayed from reports by such hosts: each
 * session a real file, real child processes, a real local HTTP provider through pi-ai's client.
 *
 * pi#3001, pi#4150: a tool's child process wrote more output after the run had ended; the tool's
 * `onUpdate` for it threw "Agent listener invoked outside active run" as an unhandled rejection,
 * which took the whole gateway down (every ~6.5 h). What the host should see: the late update
 * dropped, nothing thrown, the session prompting on.
 *
 * openclaw#5865: a host's run timeout called `void session.abort()` while the provider request
 * streamed; the aborted fetch surfaced as an unhandled `AbortError` and the gateway exited. What
 * the host should see: `prompt()` returns, the request is closed, no rejection escapes.
 *
 * claude-agent-sdk-typescript#425: a host's `interrupt()` while the Messages API request was in
 * flight (the SSE stream stalled after its start, or still flowing) never settled, and the query's
 * iterator never ended: the host hung. What the host should see: `abort()` and `prompt()` resolve,
 * the request is closed and not sent again, the partial answer saved as aborted.
 *
 * pi#5029: `dispose()` of a session whose answer still streamed left the provider's HTTP request
 * open (an orphan socket, still billed, minutes on slow APIs). What the host should see: the
 * request closed by the client as the session is disposed.
 *
 * opencode#5627: a host loading the same session again (and creating sessions beside it) in one
 * process got every event N times, and another session's events. What the host should see: each
 * listener hears its own session only, once; a second writer of an open file is refused.
 *
 * None filed (dispose from agent_settled): a bot that replies and disposes the session from its
 * `agent_settled` listener (the operation's last event) had its `await session.prompt()` reject
 * with "disposed before this prompt settled", though the answer was in and saved. What the host
 * should see: `prompt()` ends as it would have without the dispose.
 *
 * openclaw#77327: a gateway creating a session per request leaked ~14,000 descriptors in 7 h
 * (skills' SKILL.md, memory files) until every spawn failed with EBADF. What the host should see:
 * descriptors and active handles back where they were after each create + prompt + dispose.
 *
 * claude-code#45782: each Agent SDK query added its own `process.on("exit")` listener; a host with
 * eleven at once got MaxListenersExceededWarning. What the host should see: twelve sessions running
 * at once add no process-wide listener and no warning (held).
 *
 * opencode#14565: callers waiting behind a busy session hung for good once it was cancelled or
 * disposed. What the host should see: every waiting prompt settles with SESSION_CLOSED (held).
 */
import { spawn } from "node:child_process";
import type { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { type CreateAgentSessionOptions, createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { activeResources, openFilePaths, resourcesAddedSince } from "../lifetime/helpers.js";
import { anthropicEvents, anthropicReply } from "../llm/wire/anthropic.js";
import { chatPartial, chatReply } from "../llm/wire/openai.js";
import { encodeSse, json, type Reply, sse } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

let dir: string;
let rejections: unknown[];
const onRejection = (reason: unknown) => rejections.push(reason);

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "settle-sdk-hosts-")));
	rejections = [];
	process.on("unhandledRejection", onRejection);
});

// After-hooks run last first: the listener goes, then the session is disposed, then the folder is removed.
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});
const wireSession = useWireSession();
afterEach(() => {
	process.off("unhandledRejection", onRejection);
});

/** Turns of the event loop, so a rejection left unhandled is reported. */
async function settleLoop(): Promise<void> {
	for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A file-backed SDK session in `cwd` on its own faux model, recording its events. */
async function hostSession(
	cwd: string,
	options: Partial<CreateAgentSessionOptions> & { agentDir?: string; sessionDir?: string } = {},
) {
	const faux: FauxProvider = createFauxProvider({ models: [{ id: "faux-1" }] });
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const agentDir = options.agentDir ?? join(cwd, ".agent");
	mkdirSync(agentDir, { recursive: true });
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		settingsManager: SettingsManager.inMemory(),
		sessionManager: SessionManager.create(cwd, options.sessionDir ?? join(cwd, ".sessions")),
		...options,
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => {
		events.push(event);
	});
	return { session, faux, events };
}

/** The user and assistant messages that ended, as `role: text`. */
function endedMessages(events: AgentSessionEvent[]): string[] {
	return events.flatMap((event) => {
		if (event.type !== "message_end") return [];
		const message = event.message as { role: string; content: string | { type: string; text?: string }[] };
		if (message.role !== "user" && message.role !== "assistant") return [];
		const text =
			typeof message.content === "string" ? message.content : message.content.map((b) => b.text ?? "").join("");
		return [`${message.role}: ${text}`];
	});
}

describe("pi#3001, pi#4150: a tool's child wrote output after the run ended; its onUpdate crashed the host with an unhandled rejection", () => {
	it("the late update is dropped: onUpdate does not throw, nothing is rejected, no event after agent_settled, and the session prompts on", async () => {
		const onUpdateThrew: unknown[] = [];
		const outputs: string[] = [];
		let child: ReturnType<typeof spawn> | undefined;
		const { session, faux, events } = await hostSession(dir, {
			customTools: [
				{
					name: "exec_bg",
					label: "Exec",
					description: "starts a program and returns once it has started",
					parameters: { type: "object", properties: {} } as never,
					execute: (_id, _params, _signal, onUpdate) =>
						new Promise((resolve) => {
							// Prints "started", then one more line once told to (after the run).
							child = spawn(
								process.execPath,
								[
									"-e",
									'process.stdout.write("started\\n"); process.stdin.once("data", () => process.stdout.write("trailing\\n"));',
								],
								{ stdio: ["pipe", "pipe", "ignore"] },
							);
							child.stdout!.on("data", (chunk: Buffer) => {
								// As openclaw's exec supervisor: every chunk goes to onUpdate, with no try.
								outputs.push(chunk.toString());
								try {
									onUpdate?.({ content: [{ type: "text", text: chunk.toString() }], details: {} });
								} catch (error) {
									onUpdateThrew.push(error);
								}
								if (chunk.toString().includes("started"))
									resolve({ content: [{ type: "text", text: "started in background" }], details: {} });
							});
						}),
				},
			],
		});
		faux.setResponses([
			fauxAssistantMessage(fauxToolCall("exec_bg", {}, { id: "bg1" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("it runs"),
			fauxAssistantMessage("still here"),
		]);
		await session.prompt("start the watcher");
		const afterRun = events.length;
		expect(events.at(-1)?.type).toBe("agent_settled");

		const exited = new Promise((resolve) => child!.once("close", resolve));
		child!.stdin!.end("go\n");
		await exited;
		await settleLoop();

		expect(outputs).toEqual(["started\n", "trailing\n"]);
		expect(onUpdateThrew).toEqual([]);
		expect(rejections).toEqual([]);
		expect(events.slice(afterRun).map((event) => event.type)).toEqual([]);
		await session.prompt("are you there?");
		expect(endedMessages(events).at(-1)).toBe("assistant: still here");
		expect(events.filter((event) => event.type === "agent_settled")).toHaveLength(2);
		await session.dispose();
	});
});

describe("openclaw#5865: a host's run timeout called `void session.abort()` mid-stream; the aborted fetch crashed the gateway", () => {
	it("prompt() returns, the HTTP request is closed, no rejection escapes, the next prompt is answered; a late `void abort()` on the disposed session rejects nothing", async () => {
		const w = await wireSession({ api: "openai-completions" });
		const session = w.session;
		w.server.reply(chatPartial([{ type: "text", text: "a long answer that never ends" }], 2, "hang"));
		session.subscribe((event) => {
			// The host's timeout handler: fire and forget, as openclaw's abortRun did.
			if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") void session.abort();
		});
		await session.prompt("take your time");
		await w.server.waitForClientClose(1);
		await settleLoop();

		expect(rejections).toEqual([]);
		expect(w.eventsOf("agent_settled")).toHaveLength(1);
		expect(w.eventsOf("message_end").at(-1)?.message).toMatchObject({ role: "assistant", stopReason: "aborted" });

		w.server.reply(chatReply([{ type: "text", text: "back" }]));
		await session.prompt("again");
		expect(endedMessages(w.events).at(-1)).toBe("assistant: back");
		expect(w.server.requests).toHaveLength(2);

		// The host's timeout firing late, after the bot disposed the session.
		await session.dispose();
		void session.abort();
		await settleLoop();
		expect(rejections).toEqual([]);
	});
});

/** An Anthropic stream that sends a text delta each `everyMs` until the client closes the request. */
function endlessAnswer(everyMs: number): Reply {
	return (_request, res) => {
		const [start, ping, blockStart] = anthropicEvents([{ type: "text", text: "" }]);
		res.writeHead(200, { "content-type": "text/event-stream" });
		res.write(encodeSse([start!, ping!, blockStart!]));
		const delta = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "counting " } };
		const timer = setInterval(() => res.write(encodeSse([{ event: "content_block_delta", data: delta }])), everyMs);
		res.on("close", () => clearInterval(timer));
	};
}

describe("claude-agent-sdk-typescript#425: interrupt() while the request was in flight never settled; the host hung", () => {
	async function abortMidRequest(reply: Reply, when: (event: AgentSessionEvent) => boolean) {
		const w = await wireSession({ api: "anthropic-messages" });
		const session = w.session;
		w.server.reply(reply);
		const reached = new Promise<void>((resolve) => session.subscribe((event) => (when(event) ? resolve() : undefined)));
		const prompt = session.prompt("count slowly from 1 to 50");
		await reached;
		await session.abort();
		await prompt;
		await w.server.waitForClientClose(1);
		await settleLoop();
		expect(rejections).toEqual([]);
		expect(session.isStreaming).toBe(false);
		expect(w.server.requests).toHaveLength(1);
		expect(w.eventsOf("agent_settled")).toHaveLength(1);
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		expect(saved.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });

		w.server.reply(anthropicReply([{ type: "text", text: "ok" }]));
		await session.prompt("stop counting");
		expect(endedMessages(w.events).at(-1)).toBe("assistant: ok");
		return saved.at(-1)!;
	}

	it("the stream stalled after message_start: abort() and prompt() resolve, the request is closed, nothing is sent again, the next prompt is answered", async () => {
		const [start] = anthropicEvents([{ type: "text", text: "never sent" }]);
		await abortMidRequest(
			sse([start!], "hang"),
			(event) => event.type === "message_start" && event.message.role === "assistant",
		);
	});

	it("the stream still flowing (a delta every 10 ms): abort() at the first delta resolves, the partial answer is saved as aborted", async () => {
		const saved = await abortMidRequest(
			endlessAnswer(10),
			(event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
		);
		expect(JSON.stringify(saved)).toContain("counting");
	});
});

describe("pi#5029: dispose() mid-stream left the provider's HTTP request open", () => {
	it("the request still streaming (a delta every 10 ms) is closed by the client on dispose(); prompt() rejects SESSION_CLOSED; nothing is sent again", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		const session = w.session;
		w.server.reply(endlessAnswer(10));
		const streaming = new Promise<void>((resolve) =>
			session.subscribe((event) => {
				if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") resolve();
			}),
		);
		const prompt = session.prompt("count slowly").catch((error: unknown) => error);
		await streaming;
		await session.dispose();

		expect(await prompt).toMatchObject({ code: "SESSION_CLOSED" });
		await w.server.waitForClientClose(1);
		await settleLoop();
		expect(w.server.closedByClient).toHaveLength(1);
		expect(w.server.requests).toHaveLength(1);
		expect(rejections).toEqual([]);
	});
});

describe("opencode#5627: sessions loaded beside each other (and the same one again) in one process got each other's events, N times over", () => {
	it("two sessions on one session folder hear only their own events; the same file opened again while open is refused with SESSION_LOCKED; reopened three times after dispose, one prompt is heard once", async () => {
		const agentDir = join(dir, "agent");
		const sessionDir = join(dir, "sessions");
		const a = await hostSession(dir, { agentDir, sessionDir });
		const b = await hostSession(dir, { agentDir, sessionDir });
		a.faux.setResponses([fauxAssistantMessage("answer for A")]);
		b.faux.setResponses([fauxAssistantMessage("answer for B")]);
		await Promise.all([a.session.prompt("question A"), b.session.prompt("question B")]);

		expect(endedMessages(a.events)).toEqual(["user: question A", "assistant: answer for A"]);
		expect(endedMessages(b.events)).toEqual(["user: question B", "assistant: answer for B"]);
		const fileB = b.session.sessionFile!;
		expect(a.session.sessionFile).not.toBe(fileB);

		let refused: unknown;
		try {
			SessionManager.open(fileB, sessionDir);
		} catch (error) {
			refused = error;
		}
		expect(refused).toBeInstanceOf(SettleError);
		expect((refused as SettleError).code).toBe("SESSION_LOCKED");
		await b.session.dispose();
		b.session.sessionManager.close();

		for (let i = 0; i < 3; i++) {
			const again = await hostSession(dir, { agentDir, sessionManager: SessionManager.open(fileB, sessionDir) });
			await again.session.dispose();
			again.session.sessionManager.close();
		}
		const last = await hostSession(dir, { agentDir, sessionManager: SessionManager.open(fileB, sessionDir) });
		last.faux.setResponses([fauxAssistantMessage("B again")]);
		await last.session.prompt("question B2");

		expect(endedMessages(last.events)).toEqual(["user: question B2", "assistant: B again"]);
		expect(last.events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		expect(endedMessages(a.events)).toEqual(["user: question A", "assistant: answer for A"]);
		const saved = readFileSync(fileB, "utf8");
		expect(saved.split('"question B2"').length - 1).toBe(1);
		expect(saved).not.toContain("question A");
		await last.session.dispose();
		last.session.sessionManager.close();
		await a.session.dispose();
		a.session.sessionManager.close();
	});
});

describe("none filed (dispose from agent_settled): a bot disposing the session once it settled had the settled prompt reject", () => {
	it("regression: prompt() rejected SESSION_CLOSED ('disposed before this prompt settled'); now it resolves, the answer heard and saved, the session disposed", async () => {
		const { session, faux, events } = await hostSession(dir);
		faux.setResponses([fauxAssistantMessage("the answer")]);
		session.subscribe((event) => {
			// The bot posts the reply, then frees the session: settled is the last event.
			if (event.type === "agent_settled") void session.dispose();
		});
		const file = session.sessionFile!;
		await session.prompt("question");

		expect(session.isDisposed).toBe(true);
		expect(endedMessages(events)).toEqual(["user: question", "assistant: the answer"]);
		expect(readFileSync(file, "utf8")).toContain("the answer");
	});

	it("with an extension's agent_settled handler (awaited first), the dispose from the host's listener still ends the prompt as settled", async () => {
		const handled: string[] = [];
		const { session, faux } = await hostSession(dir, {
			resourceLoader: createTestResourceLoader({
				extensionFactories: [
					(pi) => {
						pi.on("agent_settled", async () => {
							handled.push("agent_settled");
						});
					},
				],
			}),
		});
		faux.setResponses([fauxAssistantMessage("the answer")]);
		session.subscribe((event) => {
			if (event.type === "agent_settled") void session.dispose();
		});
		await session.prompt("question");

		expect(handled).toEqual(["agent_settled"]);
		expect(session.isDisposed).toBe(true);
	});

	it("a run that ended in a provider error: prompt() ends as it does without the dispose", async () => {
		const { session, faux } = await hostSession(dir, {
			settingsManager: SettingsManager.inMemory({ retry: { enabled: false } }),
		});
		faux.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid_api_key" })]);
		session.subscribe((event) => {
			if (event.type === "agent_settled") void session.dispose();
		});
		const outcome = await session.prompt("question").then(
			() => "resolved",
			(error: unknown) => error,
		);
		const plain = await hostSession(join(dir, "plain"), {
			settingsManager: SettingsManager.inMemory({ retry: { enabled: false } }),
		});
		plain.faux.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid_api_key" })]);
		const without = await plain.session.prompt("question").then(
			() => "resolved",
			(error: unknown) => error,
		);
		await plain.session.dispose();
		expect(outcome).toEqual(without);
	});
});

describe("coming from pi: dispose from an agent_end listener", () => {
	it("rejects that prompt with SESSION_CLOSED 'The AgentSession was disposed before this prompt settled.' (pi 0.73.1 resolves it); the answer is heard and saved", async () => {
		const { session, faux, events } = await hostSession(dir);
		faux.setResponses([fauxAssistantMessage("the answer")]);
		session.subscribe((event) => {
			if (event.type === "agent_end") void session.dispose();
		});
		const file = session.sessionFile!;
		const outcome = await session.prompt("question").then(
			() => "resolved",
			(error: unknown) => error,
		);

		expect(outcome).toBeInstanceOf(SettleError);
		expect(outcome).toMatchObject({
			code: "SESSION_CLOSED",
			message: "The AgentSession was disposed before this prompt settled.",
		});
		expect(session.isDisposed).toBe(true);
		expect(endedMessages(events)).toEqual(["user: question", "assistant: the answer"]);
		expect(events.map((event) => event.type)).not.toContain("agent_settled");
		expect(readFileSync(file, "utf8")).toContain("the answer");
	});

	it("why: an agent_end announcing a retry (willRetry), a dispose there leaves the operation unfinished: no retry is sent, the prompt rejects the same way", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(
			json(529, { error: { type: "overloaded_error", message: "Overloaded" } }),
			chatReply([{ type: "text", text: "never asked" }]),
		);
		const session = w.session;
		session.subscribe((event) => {
			if (event.type === "agent_end" && event.willRetry) void session.dispose();
		});
		const outcome = await session.prompt("question").then(
			() => "resolved",
			(error: unknown) => error,
		);

		expect(outcome).toMatchObject({
			code: "SESSION_CLOSED",
			message: "The AgentSession was disposed before this prompt settled.",
		});
		expect(w.server.requests).toHaveLength(1);
	});
});

describe("openclaw#77327: a gateway creating a session per request leaked descriptors (skills, memory files) until spawn failed with EBADF", () => {
	it("twenty create + prompt (a bash call) + dispose cycles in a project with AGENTS.md, a skill and a prompt template leave the open descriptors and active handles as they were", async () => {
		const project = join(dir, "project");
		const agentDir = join(dir, "agent");
		mkdirSync(join(project, ".pi", "skills", "wiki"), { recursive: true });
		mkdirSync(join(project, ".pi", "prompts"), { recursive: true });
		mkdirSync(agentDir);
		writeFileSync(join(project, "AGENTS.md"), "# Memory\nBe brief.\n");
		writeFileSync(
			join(project, ".pi", "skills", "wiki", "SKILL.md"),
			"---\nname: wiki\ndescription: reads the wiki\n---\nRead index.md.\n",
		);
		writeFileSync(join(project, ".pi", "prompts", "review.md"), "Review $1\n");

		const cycle = async (i: number) => {
			const faux = createFauxProvider({ models: [{ id: "faux-1" }] });
			const modelRuntime = new InMemoryModelRuntime();
			modelRuntime.registerFauxProvider(faux);
			faux.setResponses([
				fauxAssistantMessage(fauxToolCall("bash", { command: `echo request ${i}` }), { stopReason: "toolUse" }),
				fauxAssistantMessage(`done ${i}`),
			]);
			// The session makes (and on dispose closes) its own SessionManager, as a bot would.
			const { session } = await createAgentSession({ cwd: project, agentDir, modelRuntime });
			await session.prompt(`request ${i}`);
			const sawSkill = session.systemPrompt.includes("wiki");
			await session.dispose();
			return sawSkill;
		};

		expect(await cycle(0)).toBe(true);
		await settleLoop();
		// This worker's other descriptors (earlier files' pipes and sockets) may close meanwhile:
		// the test's own files must match, and nothing else may be added.
		const ours = () =>
			openFilePaths()
				.filter((path) => path.startsWith(dir))
				.sort();
		const othersCount = () => openFilePaths().filter((path) => !path.startsWith(dir)).length;
		const descriptorsBefore = ours();
		const othersBefore = othersCount();
		const handlesBefore = activeResources();
		for (let i = 1; i <= 20; i++) await cycle(i);
		await settleLoop();

		expect(ours()).toEqual(descriptorsBefore);
		expect(othersCount()).toBeLessThanOrEqual(othersBefore);
		expect(resourcesAddedSince(handlesBefore)).toEqual({});
		expect(rejections).toEqual([]);
	});
});

/** The process-wide events a session could listen on: each listener per session counts toward Node's cap of 10. */
const PROCESS_EVENTS = ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "uncaughtException", "unhandledRejection"];

/** Every listener a session could add process-wide, by emitter and event. */
function processListeners(): Record<string, unknown[]> {
	return {
		...Object.fromEntries(
			PROCESS_EVENTS.map((event) => [`process ${event}`, (process as EventEmitter).listeners(event)]),
		),
		"stdout error": process.stdout.listeners("error"),
		"stdin data": process.stdin.listeners("data"),
	};
}

/**
 * The listeners in `now` that were not in `before`, by emitter and event (empty ones left out).
 * Compared by identity, not count: in the shared vitest project another file's leftovers may take
 * theirs off meanwhile (a killed `pi.exec` keeps its SIGKILL's "exit" listener for its 5 s grace),
 * which a count would read as this test's change.
 */
function listenersAdded(before: Record<string, unknown[]>, now: Record<string, unknown[]>): Record<string, number> {
	return Object.fromEntries(
		Object.entries(now)
			.map(([key, listeners]) => [key, listeners.filter((listener) => !before[key]?.includes(listener)).length])
			.filter(([, added]) => added !== 0),
	);
}

describe("claude-code#45782: each SDK query added a process.on('exit') listener; eleven at once printed MaxListenersExceededWarning", () => {
	it("twelve file-backed sessions open at once in one process, each running a bash call: no process, stdout or stdin listener is added, no warning is emitted, every answer lands in its own session", async () => {
		const warnings: Error[] = [];
		const onWarning = (warning: Error) => warnings.push(warning);
		process.on("warning", onWarning);
		try {
			const agentDir = join(dir, "agent");
			const sessionDir = join(dir, "sessions");
			// One session first: what the process keeps once any session ran (a lock library's one handler per signal).
			const warmUp = await hostSession(dir, { agentDir, sessionDir });
			warmUp.faux.setResponses([fauxAssistantMessage("warm")]);
			await warmUp.session.prompt("warm up");
			await warmUp.session.dispose();
			const before = processListeners();
			const hosts = [];
			for (let i = 0; i < 12; i++) {
				const host = await hostSession(dir, { agentDir, sessionDir });
				host.faux.setResponses([
					fauxAssistantMessage(fauxToolCall("bash", { command: `echo from ${i}` }), { stopReason: "toolUse" }),
					fauxAssistantMessage(`answer ${i}`),
				]);
				hosts.push(host);
			}
			let whileRunning: Record<string, unknown[]> = {};
			const running = hosts.map((host, i) => host.session.prompt(`question ${i}`));
			// Every session's bash call has started: all twelve runs are in flight at once.
			await Promise.all(
				hosts.map(
					(host) =>
						new Promise<void>((resolve) => {
							const off = host.session.subscribe((event) => {
								if (event.type !== "tool_execution_start") return;
								off();
								resolve();
							});
						}),
				),
			);
			whileRunning = processListeners();
			await Promise.all(running);
			await settleLoop();

			expect(listenersAdded(before, whileRunning)).toEqual({});
			expect(listenersAdded(before, processListeners())).toEqual({});
			expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
			hosts.forEach((host, i) => {
				expect(endedMessages(host.events)).toEqual([`user: question ${i}`, "assistant: ", `assistant: answer ${i}`]);
			});
			for (const host of hosts) await host.session.dispose();
			expect(listenersAdded(before, processListeners())).toEqual({});
			expect(rejections).toEqual([]);
		} finally {
			process.off("warning", onWarning);
		}
	});
});

describe("opencode#14565: prompts waiting behind a busy session hung for good when it was cancelled or disposed", () => {
	it("prompts made while the first is in preflight, more (a follow-up too) made behind them mid-run, then dispose() during the run's bash call: every call settles, SESSION_CLOSED, waitForIdle resolves, nothing is sent after", async () => {
		const { session, faux } = await hostSession(dir);
		faux.setResponses([
			fauxAssistantMessage(fauxToolCall("bash", { command: "sleep 30" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("never asked for"),
		]);
		const outcome = (promise: Promise<unknown>) =>
			promise.then(
				(value) => ({ resolved: value }),
				(error: SettleError) => ({ rejected: error.code }),
			);
		const toolStarted = new Promise<void>((resolve) => {
			session.subscribe((event) => {
				if (event.type === "tool_execution_start") resolve();
			});
		});
		// The second and third are made while the first is in its preflight: they wait behind it.
		const first = outcome(session.prompt("first"));
		const second = outcome(session.prompt("second"));
		const third = outcome(session.prompt("third"));
		await toolStarted;
		// Made while the second and third still wait: in line behind them, a follow-up too.
		const fourth = outcome(session.prompt("while busy"));
		const followUp = outcome(session.prompt("then this", { streamingBehavior: "followUp" }));
		const idle = outcome(session.waitForIdle());
		await session.dispose();

		expect(await Promise.all([first, second, third, fourth, followUp])).toEqual(
			Array.from({ length: 5 }, () => ({ rejected: "SESSION_CLOSED" })),
		);
		expect(await idle).toEqual({ resolved: undefined });
		expect(faux.state.callCount).toBe(1);
		await settleLoop();
		expect(rejections).toEqual([]);
	});
});
