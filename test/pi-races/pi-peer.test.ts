/**
 * Peer evidence for the race table: the same scenario run against pi 0.73.1 itself (its own
 * `createAgentSession` / `createAgentSessionRuntime` on pi-ai's faux provider, through the parity
 * peers) and against Settle, asserting what each one actually does — so "pi 0.73.1 has it" is an
 * observation, not a reading of its source. A few rows run on pi alone (a pi peer by itself):
 * Settle's side of those needs its simulated clock and is in liveness.test.ts or switching.test.ts.
 */
import {
	copyFileSync,
	existsSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { emptyUsage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createBashToolDefinition } from "../../src/tools/bash.js";
import type { RpcClient } from "../cli/helpers.js";
import { makeDiffDirs, runPiCli, runSettleCli } from "../cli/pi-diff-process.js";
import { startPeer, startPeers } from "../cli/rpc-differential.helpers.js";
import { programTools } from "../extensions/pi-differential-program.js";
import {
	type AnyEvent,
	createPiPeer,
	FAUX_KEY,
	fauxModels,
	type ModelRequest,
	onBothPeers,
	type Peer,
	type PeerName,
	type ReplySpec,
	readFileEntries as readEntries,
	type SessionLike,
	type SharedTool,
	type Step,
} from "../parity/peers.js";
import { createRuntimePeer, onBothRuntimes } from "../parity/tree-peers.js";
import { hungTool } from "./disk-harness.js";
import {
	ABORT_COMPACT_CONTINUE,
	BIG_ANSWER,
	gate,
	LIFECYCLE_LOG,
	openSdkSession,
	THRESHOLD_SETTINGS,
} from "./helpers.js";
import {
	ORPHAN_RESULT_TEXT,
	STALE_SUMMARY_TEXT,
	writeOrphanSessionFile,
	writeStaleCompactionSessionFile,
} from "./orphan-file.js";
import { killMarked, markedProcesses, markedSleepCommand, processMarker, wedgingCommand } from "./processes.js";

const cleanups: (() => void)[] = [];
/** What the pi#1717 / pi#2113 scenario's tool_call handler saw (one peer at a time). */
const toolCallsSaw: string[] = [];
/** The pi-powerline-footer#198 scenario's handler state (one peer at a time). */
const idleInHandler: boolean[] = [];
let handlerRunning = gate();
let releaseHandler = gate();
/** Releases of the pi#5886 scenario's compaction holds, one per peer (taken in peer order). */
const releaseHolds: (() => void)[] = [];
/** The gsd-2#1439 and pi#7253 scenarios' tool starts, one per peer. */
const toolStarts: ReturnType<typeof gate>[] = [];
/** A tool named `slow` that runs until its signal aborts; each call's start releases a gate pushed on `toolStarts`. */
function slowUntilAborted(): SharedTool {
	const started = gate();
	toolStarts.push(started);
	return {
		name: "slow",
		label: "Slow",
		description: "Runs until aborted",
		parameters: { type: "object", properties: {} },
		execute: (_id, _params, signal) =>
			new Promise((resolve) => {
				started.release();
				signal?.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "stopped" }], details: {} }));
			}),
	};
}
/** The pinet#941 scenario's `ctx.isIdle()` readings (one peer at a time). */
const idleWhileCompacting: boolean[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A temporary folder, removed after the test. */
function tempDir(prefix: string): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** An RPC peer's client, killed after the test (when the test ends before it stops it). */
function killedAfterTest(client: RpcClient): RpcClient {
	cleanups.push(() => client.child.kill("SIGKILL"));
	return client;
}

/** pi 0.73.1's RPC server does not end with its stdin: stopped here (both, alike). */
async function stopRpc(client: RpcClient): Promise<void> {
	client.child.kill("SIGKILL");
	await client.exited;
}

/** Both RPC peers in `dir`: a long command ({@link startSlowCommand}), then both faux models echo the last user message. */
function slowCommandPeers(dir: string): ReturnType<typeof startPeers> {
	return startPeers(dir, [{ toolCalls: [{ name: "bash", arguments: { command: "echo started; sleep 60" } }] }]);
}

/** Prompts the long command of {@link slowCommandPeers}; resolves once it has started (it runs on). */
async function startSlowCommand(client: RpcClient): Promise<void> {
	const started = client.next(
		(line) => line.type === "tool_execution_update" && JSON.stringify(line).includes("started"),
	);
	await client.request({ id: "1", type: "prompt", message: "run the slow thing" });
	await started;
}

/** The model's answers: a batch of two tool calls (`first`, `second`), then `text`. */
function twoCallBatchThen(text: string): ReplySpec[] {
	return [
		{
			toolCalls: [
				{ id: "call-1", name: "first", args: {} },
				{ id: "call-2", name: "second", args: {} },
			],
		},
		{ text },
	];
}

/**
 * A report's session file written once by `write`, and a function giving each peer its own copy: pi
 * runs first and appends to what it opens, so sharing one file would hand Settle pi's appends.
 */
function reportFileForEachPeer(prefix: string, write: (file: string, dir: string) => void): (name: PeerName) => string {
	const dir = tempDir(prefix);
	const original = join(dir, "report.jsonl");
	write(original, dir);
	return (name) => {
		const copy = join(dir, `${name}.jsonl`);
		copyFileSync(original, copy);
		return copy;
	};
}

describe("pi 0.73.1 against Settle: the replayed races", () => {
	it("oh-my-pi#8829 / pi#9460: after abort, pi 0.73.1 leaves the command's processes in timeout's group running; Settle leaves none", async () => {
		const runs = await onBothPeers({}, async (peer) => {
			const mark = processMarker();
			cleanups.push(() => killMarked(mark));
			peer.script([
				{ toolCalls: [{ id: "call-b", name: "bash", args: { command: wedgingCommand(mark) } }] },
				{ text: "not reached" },
			]);
			const ready = new Promise<void>((resolve) => {
				peer.session.subscribe((event: AnyEvent) => {
					if (event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes("ready")) {
						resolve();
					}
				});
			});
			const prompt = peer.prompt("run the test watcher");
			await ready;
			const running = markedProcesses(mark).length;
			await peer.session.abort();
			await prompt;
			await peer.quiesce();
			const left = markedProcesses(mark).length;
			killMarked(mark);
			return { running: running >= 3, left: left > 0 };
		});
		expect(runs.pi).toEqual({ running: true, left: true });
		expect(runs.settle).toEqual({ running: true, left: false });
	});

	it("pi#4570: continuing the report's session file, pi 0.73.1 sends the orphaned tool result to the model; Settle leaves it out", async () => {
		const copyFor = reportFileForEachPeer("settle-pi4570-peer-", writeOrphanSessionFile);
		const runs = await onBothPeers(
			(name) => ({ openFile: copyFor(name) }),
			async (peer) => {
				peer.script([{ text: "Continuing from the summary." }]);
				await peer.prompt("continue");
				await peer.quiesce();
				const request = peer.requests[0]!;
				return {
					orphanSent: request.messages.some((message) => message.includes(ORPHAN_RESULT_TEXT)),
					itsCallSent: request.messages.some((message) => message.includes("[call bash")),
					answered: peer.requests.length === 1,
				};
			},
		);
		expect(runs.pi).toEqual({ orphanSent: true, itsCallSent: false, answered: true });
		expect(runs.settle).toEqual({ orphanSent: false, itsCallSent: false, answered: true });
	});

	it("oh-my-pi#10287: a fork during a compaction — pi 0.73.1 finishes the compaction into the old file after the switch; Settle ends it and writes nothing", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [], settings: { compaction: { keepRecentTokens: 10 } } }),
			async (peer) => {
				const summaryAsked = gate();
				const answerSummary = gate();
				const step: Step = async (request) => {
					if (request.system !== "summarizer") return { text: `answer ${"words ".repeat(30)}` };
					summaryAsked.release();
					await answerSummary.promise;
					return { text: "## Goal\nlate summary" };
				};
				peer.script(Array.from({ length: 8 }, () => step));
				for (const text of ["one", "two", "three"]) await peer.session.prompt(`question ${text} `.repeat(20));
				const old = peer.session;
				const oldFile = old.sessionFile!;
				const answers = old.sessionManager
					.getEntries()
					.filter((entry) => entry.type === "message" && (entry.message as { role: string }).role === "assistant");
				const compacting = old.compact().then(
					() => "resolved",
					(error: unknown) => (error as { code?: string }).code ?? "rejected",
				);
				await summaryAsked.promise;
				const linesAtFork = peer.fileEntries(oldFile).length;
				await peer.runtime.fork(String(answers[1]!.id), { position: "at" });
				const switched = peer.session !== old;
				answerSummary.release();
				const outcome = await compacting;
				await peer.quiesce();
				const afterFork = peer.fileEntries(oldFile).slice(linesAtFork);
				return {
					switched,
					compact: outcome,
					oldFileWrittenAfterFork: afterFork.map((entry) => entry.type),
					forkHasCompaction: peer.fileEntries(peer.session.sessionFile!).some((e) => e.type === "compaction"),
				};
			},
		);
		expect(runs.pi).toEqual({
			switched: true,
			compact: "resolved",
			oldFileWrittenAfterFork: ["compaction"],
			forkHasCompaction: false,
		});
		expect(runs.settle).toEqual({
			switched: true,
			compact: "SESSION_CLOSED",
			oldFileWrittenAfterFork: [],
			forkHasCompaction: false,
		});
	});

	it("pi-powerline-footer#198: inside a session_compact handler still running — what ctx.isIdle() says, and what a prompt sent then gets", async () => {
		const runs = await onBothPeers(
			() => ({
				settings: { compaction: { keepRecentTokens: 10 } },
				extensions: [
					(api) => {
						api.on("session_compact", async (_event, ctx) => {
							idleInHandler.push(ctx.isIdle());
							handlerRunning.release();
							await releaseHandler.promise;
						});
					},
				],
			}),
			async (peer) => {
				peer.script(Array.from({ length: 8 }, () => ({ text: `answer ${"words ".repeat(30)}` })));
				for (const text of ["one", "two"]) await peer.session.prompt(`question ${text} `.repeat(20));
				const compacting = peer.session.compact().then(
					() => "resolved",
					(error: unknown) => (error as { code?: string }).code ?? "rejected",
				);
				await handlerRunning.promise;
				const typed = peer.session.prompt("typed while session_compact runs").then(
					() => "resolved",
					(error: unknown) => (error as { code?: string }).code ?? (error as Error).message,
				);
				await new Promise<void>((resolve) => setImmediate(resolve));
				const outcome = await Promise.race([typed, Promise.resolve("pending")]);
				releaseHandler.release();
				await compacting;
				const finalOutcome = await typed;
				await peer.quiesce();
				const persisted = peer
					.fileEntries()
					.filter((entry) => JSON.stringify(entry).includes("typed while session_compact runs")).length;
				const answered = peer.requests.some((request) =>
					request.messages.some((message) => message.includes("typed while session_compact runs")),
				);
				const result = { ctxIdle: idleInHandler[0], promptAtOnce: outcome, finalOutcome, answered, persisted };
				idleInHandler.length = 0;
				handlerRunning = gate();
				releaseHandler = gate();
				return result;
			},
		);
		// pi 0.73.1: idle while its handler runs; a prompt then is answered at once but never saved (pinet#941).
		expect(runs.pi).toEqual({
			ctxIdle: true,
			promptAtOnce: "resolved",
			finalOutcome: "resolved",
			answered: true,
			persisted: 0,
		});
		// Settle: busy until the handlers are done, and says so to the prompt.
		expect(runs.settle).toEqual({
			ctxIdle: false,
			promptAtOnce: "BUSY",
			finalOutcome: "BUSY",
			answered: false,
			persisted: 0,
		});
	});
});

/** How a session call ended: `resolved`, the error's code, or its message. */
function outcomeOf(promise: Promise<unknown>): Promise<string> {
	return promise.then(
		() => "resolved",
		(error: unknown) => (error as { code?: string }).code ?? (error as Error).message,
	);
}

/**
 * `pending` if `outcome` has not settled once the event loop has run dry: these scenarios hold
 * their work on gates and signals, with no timers, so a bounded number of turns is enough.
 */
async function stillPending(outcome: Promise<string>): Promise<string> {
	for (let turn = 0; turn < 50; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
	return Promise.race([outcome, Promise.resolve("pending")]);
}

/** A request that gets no answer: it stays open until its abort signal fires (as a real request does). */
function stalledUntilAbort(signal: AbortSignal | undefined): Promise<ReplySpec> {
	return new Promise((resolve) => {
		if (signal?.aborted) resolve({ stopReason: "aborted" });
		signal?.addEventListener("abort", () => resolve({ stopReason: "aborted" }));
	});
}

/** Answers by request: the summarizer with a summary, the agent with `answer to <last user text>`. */
const answerer = (request: ModelRequest): ReplySpec =>
	request.system === "summarizer"
		? { text: "## Goal\nsummary" }
		: { text: `answer to ${request.messages.at(-1)?.replace(/^user: /, "")}` };

function messagesOf(entries: Record<string, unknown>[]): { role: string; stopReason?: string; text: string }[] {
	return entries.flatMap((entry) => {
		const message = entry.message as { role: string; stopReason?: string; content: unknown };
		if (entry.type !== "message" || message.role === "system") return [];
		return [
			{
				role: message.role,
				...(message.stopReason ? { stopReason: message.stopReason } : {}),
				text: JSON.stringify(message.content),
			},
		];
	});
}

/**
 * Makes the session's next request stall mid-answer: its stream passes the first text delta on, then
 * sends nothing until the request's signal fires, and ends as a real provider does on abort (an
 * `aborted` error carrying the partial answer). Works on both peers (each agent's `streamFn`).
 */
function stallAfterFirstDelta(session: SessionLike, onStalled: () => void): void {
	type StreamEvent = { type: string; delta?: string; partial?: Record<string, unknown> };
	const agent = (session as unknown as { agent: { streamFn: (...args: unknown[]) => unknown } }).agent;
	const original = agent.streamFn;
	agent.streamFn = async (model, context, options) => {
		// Only the first request stalls; the next ones stream as the model answers.
		agent.streamFn = original;
		const signal = (options as { signal?: AbortSignal }).signal;
		const inner = (await original(model, context, options)) as AsyncIterable<StreamEvent>;
		let finish!: (message: unknown) => void;
		const final = new Promise((resolve) => (finish = resolve));
		return {
			async *[Symbol.asyncIterator]() {
				for await (const event of inner) {
					yield event;
					if (event.type !== "text_delta") continue;
					onStalled();
					await new Promise<void>((resolve) => {
						if (signal?.aborted) resolve();
						signal?.addEventListener("abort", () => resolve());
					});
					// The answer so far is that one delta (pi's faux goes on filling its partial in place).
					const error = {
						...event.partial,
						content: [{ type: "text", text: event.delta }],
						stopReason: "aborted",
						errorMessage: "Request was aborted",
					};
					finish(error);
					yield { type: "error", reason: "aborted", error };
					return;
				}
			},
			result: () => final,
		};
	};
}

/** A pi 0.73.1 peer alone, cleaned up after the test. */
async function piPeer(options: Parameters<typeof createPiPeer>[0]): Promise<Peer> {
	const peer = await createPiPeer(options);
	cleanups.push(() => peer.cleanup());
	return peer;
}

/** The saved messages' roles, an assistant's with its stop reason (`assistant aborted`). */
function savedRoles(entries: Record<string, unknown>[]): string[] {
	return messagesOf(entries).map((m) => (m.stopReason ? `${m.role} ${m.stopReason}` : m.role));
}

describe("pi 0.73.1 against Settle: session switches and extensions", () => {
	it("pi#1700: /new — both tell the old extensions session_shutdown before the new ones start, and refuse the old instance's late delivery", async () => {
		const lifecycle: string[] = [];
		const deliverers: (() => string)[] = [];
		const runs = await onBothRuntimes(
			() => ({
				customTools: [],
				extensions: [
					(api) => {
						api.on("session_start", (event) => void lifecycle.push(`session_start ${event.reason}`));
						api.on("session_shutdown", (event) => void lifecycle.push(`session_shutdown ${event.reason}`));
						deliverers.push(() => {
							try {
								api.sendMessage(
									{ customType: "subagent", content: "subagent result", display: true },
									{ triggerTurn: true },
								);
								return "delivered";
							} catch (error) {
								return /stale after session replacement/.test((error as Error).message) ? "refused: stale" : "threw";
							}
						});
					},
				],
			}),
			async (peer) => {
				lifecycle.length = 0;
				peer.script([{ text: "hello back" }, { text: "not asked" }]);
				await peer.session.prompt("hello");
				const oldFile = peer.session.sessionFile!;
				const linesBefore = peer.fileEntries(oldFile).length;
				// This session's extension instance (the factory ran when the runtime started).
				const deliverLate = deliverers.at(-1)!;
				await peer.runtime.newSession();
				const late = deliverLate();
				await peer.quiesce();
				return {
					lifecycle: [...lifecycle],
					late,
					requests: peer.requests.length,
					oldFileWrittenAfter: peer.fileEntries(oldFile).length - linesBefore,
					newSessionMessages: peer.session.messages.filter((m) => (m as { role: string }).role !== "system").length,
				};
			},
		);
		const held = {
			lifecycle: ["session_shutdown new", "session_start new"],
			late: "refused: stale",
			requests: 1,
			oldFileWrittenAfter: 0,
			newSessionMessages: 0,
		};
		expect(runs).toEqual({ pi: held, settle: held });
	});

	it("oh-my-pi#5809: /new while a steer waits on an idle session — neither starts a turn; the new session's first request holds nothing of the old one", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "old answer" }, { text: "fresh answer" }, { text: "not asked" }]);
				await peer.session.prompt("old question");
				const old = peer.session as unknown as { steer(text: string): Promise<void>; getSteeringMessages(): string[] };
				await old.steer("hidden device notice");
				const listed = [...old.getSteeringMessages()];
				const oldFile = peer.session.sessionFile!;
				const linesBefore = peer.fileEntries(oldFile).length;
				await peer.runtime.newSession();
				await peer.quiesce();
				const requestsAtSwitch = peer.requests.length;
				await peer.session.prompt("new question");
				await peer.quiesce();
				return {
					listed,
					requestsAtSwitch,
					oldFileWrittenAfter: peer.fileEntries(oldFile).length - linesBefore,
					nextRequest: peer.requests.at(-1)?.messages,
				};
			},
		);
		const held = {
			listed: ["hidden device notice"],
			requestsAtSwitch: 1,
			oldFileWrittenAfter: 0,
			nextRequest: ["user: new question"],
		};
		expect(runs).toEqual({ pi: held, settle: held });
	});

	it("pi#1242: a fork — both make the fork file the active one and leave the old file as it was; pi 0.73.1's fork before the first message names no parent session", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script(Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i}` })));
				await peer.session.prompt("one");
				await peer.session.prompt("two");
				const oldFile = peer.session.sessionFile!;
				const users = peer.session.sessionManager
					.getEntries()
					.filter((entry) => entry.type === "message" && (entry.message as { role: string }).role === "user");
				const results: Record<string, unknown>[] = [];
				for (const target of [users[1]!, users[0]!]) {
					const oldBytes = readFileSync(oldFile);
					await peer.runtime.fork(String(target.id));
					const forkFile = peer.session.sessionFile!;
					await peer.session.prompt("continue in the fork");
					await peer.quiesce();
					results.push({
						activeIsFork: forkFile !== oldFile,
						oldFileUnchanged: readFileSync(oldFile).equals(oldBytes),
						parentIsOld: peer.fileEntries(forkFile)[0]?.parentSession === oldFile,
						forkTail: savedRoles(peer.fileEntries(forkFile)).slice(-2),
					});
					await peer.runtime.switchSession(oldFile);
				}
				return results;
			},
		);
		const held = {
			activeIsFork: true,
			oldFileUnchanged: true,
			parentIsOld: true,
			forkTail: ["user", "assistant stop"],
		};
		// pi 0.73.1 still has the report's second half: a fork before the first message names no parent.
		expect(runs).toEqual({ pi: [held, { ...held, parentIsOld: false }], settle: [held, held] });
	});

	it("pi#4799: forks of a resumed session from its first and a later message — pi 0.73.1 has the report: the fork from the first message is named after neither its session's id nor its header's, and names no parent; Settle's forks are aligned", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script(Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i}` })));
				await peer.session.prompt("one");
				await peer.session.prompt("two");
				const oldFile = peer.session.sessionFile!;
				// Resumed: away to a new session and back.
				await peer.runtime.newSession();
				await peer.runtime.switchSession(oldFile);
				const users = peer.session.sessionManager
					.getEntries()
					.filter((entry) => entry.type === "message" && (entry.message as { role: string }).role === "user");
				const results: Record<string, unknown>[] = [];
				for (const target of [users[0]!, users[1]!]) {
					await peer.runtime.fork(String(target.id));
					const forkFile = peer.session.sessionFile!;
					const nameHoldsSessionId = basename(forkFile).endsWith(
						`_${peer.session.sessionManager.getSessionId()}.jsonl`,
					);
					await peer.session.prompt("continue in the fork");
					await peer.quiesce();
					const header = peer.fileEntries(forkFile)[0]!;
					results.push({
						nameHoldsSessionId,
						nameHoldsHeaderId: basename(forkFile).endsWith(`_${String(header.id)}.jsonl`),
						parentIsOld: header.parentSession === oldFile,
					});
					await peer.runtime.switchSession(oldFile);
				}
				return results;
			},
		);
		const aligned = { nameHoldsSessionId: true, nameHoldsHeaderId: true, parentIsOld: true };
		const misnamed = { nameHoldsSessionId: false, nameHoldsHeaderId: false, parentIsOld: false };
		expect(runs).toEqual({ pi: [misnamed, aligned], settle: [aligned, aligned] });
	});
});

describe("pi 0.73.1 against Settle: RPC mode", () => {
	it("oh-my-pi#69: over RPC, abort while a command runs, then prompt at once — pi 0.73.1 refuses the prompt (Agent is already processing); Settle answers it after the abort", async () => {
		const dir = tempDir("settle-omp69-peer-");
		const peers = slowCommandPeers(dir);
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			[peers.pi, peers.settle].map(async (peer) => {
				const client = killedAfterTest(peer.client);
				await startSlowCommand(client);
				const isAnswer = (line: Record<string, unknown>) =>
					line.type === "message_end" &&
					(line.message as { role?: string }).role === "assistant" &&
					JSON.stringify(line.message).includes("and now this");
				// Every waiter is registered before its line can come (one read chunk may hold them all).
				const answer = client.next(isAnswer);
				const aborted = client.next((line) => line.type === "response" && line.id === "2");
				const promptResponse = client.next((line) => line.type === "response" && line.id === "3");
				// Right behind the abort: both lines in one write, so the server reads them together.
				client.child.stdin.write(
					`${JSON.stringify({ id: "2", type: "abort" })}\n${JSON.stringify({ id: "3", type: "prompt", message: "and now this" })}\n`,
				);
				const prompted = await promptResponse;
				await aborted;
				if (prompted.success) await answer;
				runs[peer.name] = {
					prompt: prompted.success ? "accepted" : String(prompted.error).split(".")[0],
					responseOrder: client.lines.filter((line) => line.type === "response").map((line) => line.id),
					answered: client.lines.some(isAnswer),
				};
				await stopRpc(client);
			}),
		);
		expect(runs).toEqual({
			pi: { prompt: "Agent is already processing", responseOrder: ["1", "3", "2"], answered: false },
			settle: { prompt: "accepted", responseOrder: ["1", "2", "3"], answered: true },
		});
	});

	it("gsd-2#1414: over RPC, abort while a command whose processes ignore SIGTERM runs — both end the run (agent_end before abort's answer) and go idle; pi 0.73.1 leaves the command's processes running", async () => {
		const dir = tempDir("settle-gsd1414-peer-");
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			(["pi", "settle"] as const).map(async (name) => {
				const mark = processMarker();
				cleanups.push(() => killMarked(mark));
				// Each peer its own marked command (one script file per start).
				const peer = startPeer(name, join(dir, name), [
					{ toolCalls: [{ name: "bash", arguments: { command: wedgingCommand(mark) } }] },
				]);
				const client = killedAfterTest(peer.client);
				const ready = client.next(
					(line) => line.type === "tool_execution_update" && JSON.stringify(line.partialResult).includes("ready"),
				);
				await client.request({ id: "1", type: "prompt", message: "find the config" });
				await ready;
				const aborted = await client.request({ id: "2", type: "abort" });
				const types = client.lines.map((line) => (line.type === "response" ? `response ${line.id}` : line.type));
				const state = (await client.request({ id: "3", type: "get_state" })) as { data: Record<string, unknown> };
				runs[name] = {
					abortAnswered: aborted.success,
					endsBeforeAnswer: types
						.slice(0, types.indexOf("response 2"))
						.filter((type) => type === "agent_end" || type === "agent_settled"),
					streamingAfter: state.data.isStreaming,
					processesLeft: markedProcesses(mark).length > 0,
				};
				killMarked(mark);
				await stopRpc(client);
			}),
		);
		expect(runs).toEqual({
			pi: { abortAnswered: true, endsBeforeAnswer: ["agent_end"], streamingAfter: false, processesLeft: true },
			settle: {
				abortAnswered: true,
				endsBeforeAnswer: ["agent_end", "agent_settled"],
				streamingAfter: false,
				processesLeft: false,
			},
		});
	});
});

describe("pi 0.73.1 against Settle: the fixed rows", () => {
	it("pi#9577: a bash command whose shell is killed by SIGKILL: pi's tool resolves with the partial output, Settle's fails with exit code 137", async () => {
		const dir = tempDir("settle-pi9577-");
		const command = "printf 'before-kill\\n'; kill -KILL $$";
		const piResult = await pi.createBashTool(dir).execute("call-1", { command });
		expect(piResult.content).toEqual([{ type: "text", text: "before-kill\n" }]);
		const settle = createBashToolDefinition(dir);
		await expect(settle.execute("call-1", { command }, undefined, undefined, undefined as never)).rejects.toThrow(
			"before-kill\n\n\nCommand exited with code 137",
		);
	});

	it("pi#5886: a line typed during threshold compaction, an async input hook still running when the compaction ends", async () => {
		const runs = await onBothPeers(
			() => {
				const hold = gate();
				releaseHolds.push(hold.release);
				return {
					contextWindow: 8000,
					settings: THRESHOLD_SETTINGS,
					extensions: [
						(api) => {
							api.on("session_before_compact", async () => {
								await hold.promise;
								return undefined;
							});
							api.on("input", async () => {
								await Promise.resolve();
								return { action: "continue" };
							});
						},
					],
				};
			},
			async (peer) => {
				peer.script(
					Array.from(
						{ length: 8 },
						(): Step => (request) => (request.messages.at(-1) === "user: b" ? { text: BIG_ANSWER } : answerer(request)),
					),
				);
				const compacting = new Promise<void>((resolve) =>
					peer.session.subscribe((event) => {
						if (event.type === "compaction_start") resolve();
					}),
				);
				await peer.session.prompt("a");
				const second = outcomeOf(peer.session.prompt("b"));
				await compacting;
				const typed = outcomeOf(peer.session.prompt("typed while compacting", { streamingBehavior: "steer" }));
				const steered = outcomeOf(peer.session.steer("steered while compacting"));
				// The compaction ends while the typed line's input hook is still awaiting (the report's order).
				for (const release of releaseHolds.splice(0)) release();
				const outcomes = [await typed, await steered, await second];
				await peer.quiesce();
				const session = peer.session as unknown as { getSteeringMessages(): string[] };
				return {
					outcomes,
					stillListed: [...session.getSteeringMessages()],
					answered: peer.requests
						.filter((request) => request.system === "agent")
						.flatMap((request) => request.messages.filter((message) => /^user: .* while compacting$/.test(message)))
						.filter((message, index, all) => all.indexOf(message) === index),
					persisted: messagesOf(peer.fileEntries())
						.filter((message) => message.role === "user" && message.text.includes("while compacting"))
						.map((message) => JSON.parse(message.text)[0].text),
					idle: !peer.session.isStreaming,
				};
			},
		);
		// pi 0.73.1 does not have it: both lines reach the model once and are saved once.
		const delivered = {
			outcomes: ["resolved", "resolved", "resolved"],
			stillListed: [],
			answered: ["user: typed while compacting", "user: steered while compacting"],
			persisted: ["typed while compacting", "steered while compacting"],
			idle: true,
		};
		expect(runs).toEqual({ pi: delivered, settle: delivered });
	});

	// pi only: Settle's side (the 1 s grace on its simulated clock) is pi-races/liveness.test.ts.
	it("pi#5778: a tool whose execute never resolves and ignores its signal — pi 0.73.1's abort() never returns and the session stays busy", async () => {
		const toolStarted = gate();
		const peer = await piPeer({ customTools: [hungTool(() => toolStarted.release()) as unknown as SharedTool] });
		peer.script([{ toolCalls: [{ id: "call-h", name: "mcp_call", args: {} }] }, { text: "not reached" }]);
		const running = outcomeOf(peer.session.prompt("use the MCP tool"));
		await toolStarted.promise;
		const aborted = await stillPending(outcomeOf(peer.session.abort()));
		const next = await outcomeOf(peer.session.prompt("anything else?"));
		const messages = messagesOf(peer.fileEntries());
		expect({
			aborted,
			running: await stillPending(running),
			streaming: peer.session.isStreaming,
			next,
			lastSaved: messages.at(-1)?.role,
		}).toEqual({
			aborted: "pending",
			running: "pending",
			streaming: true,
			next: expect.stringMatching(/^Agent is already processing/),
			lastSaved: "assistant",
		});
	});

	it("pi#2381: a stream that ends without a final message — pi 0.73.1's abort() never returns and the session stays busy", async () => {
		const peer = await piPeer({});
		peer.script([{ text: "half an answer" }]);
		const resultAsked = gate();
		const agent = (peer.session as unknown as { agent: { streamFn: (...args: unknown[]) => Promise<unknown> } }).agent;
		const original = agent.streamFn;
		// The provider's iterator finishes without its final event, and its result() never resolves.
		agent.streamFn = async (...args) => {
			const inner = (await original(...args)) as AsyncIterable<{ type: string }>;
			return {
				async *[Symbol.asyncIterator]() {
					for await (const event of inner) {
						if (event.type === "done" || event.type === "error") return;
						yield event;
					}
				},
				result: () => {
					resultAsked.release();
					return new Promise(() => {});
				},
			};
		};
		const running = outcomeOf(peer.session.prompt("hi"));
		await resultAsked.promise;
		const aborted = await stillPending(outcomeOf(peer.session.abort()));
		expect({ aborted, running: await stillPending(running), streaming: peer.session.isStreaming }).toEqual({
			aborted: "pending",
			running: "pending",
			streaming: true,
		});
	});

	it("oh-my-pi#528: resuming a file pi wrote: pi 0.73.1 appends a thinking-level entry to one without it; Settle writes nothing until new activity", async () => {
		const dir = tempDir("settle-omp528-peer-");
		const writer = await piPeer({});
		writer.script([{ text: "hello back" }]);
		await writer.session.prompt("hello");
		const entries = readEntries(writer.session.sessionFile!);
		// As pi 0.73.1 writes it, and without the model / thinking-level entries (the Settle test's file).
		const variants = {
			asWritten: entries,
			bare: entries.filter((entry) => entry.type !== "model_change" && entry.type !== "thinking_level_change"),
		};
		const old = new Date("2024-01-02T03:04:05Z");
		const runs: Record<string, unknown> = {};
		for (const [variant, lines] of Object.entries(variants)) {
			const original = Buffer.from(`${lines.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
			const copyFor = (name: PeerName) => {
				const copy = join(dir, `${variant}-${name}.jsonl`);
				writeFileSync(copy, original);
				utimesSync(copy, old, old);
				return copy;
			};
			runs[variant] = await onBothPeers(
				(name) => ({ openFile: copyFor(name) }),
				async (peer) => {
					const file = join(dir, `${variant}-${peer.name}.jsonl`);
					const onResume = readFileSync(file);
					const resumed = {
						oldBytesKept: onResume.subarray(0, original.length).equals(original),
						addedOnResume: readEntries(file)
							.slice(lines.length)
							.map((entry) => entry.type),
						mtimeKept: statSync(file).mtime.getTime() === old.getTime(),
					};
					peer.script([{ text: "more" }]);
					await peer.session.prompt("and now?");
					const after = readFileSync(file);
					return { ...resumed, appendedAfterOldBytes: after.subarray(0, original.length).equals(original) };
				},
			);
		}
		const kept = { oldBytesKept: true, addedOnResume: [], mtimeKept: true, appendedAfterOldBytes: true };
		expect(runs).toEqual({
			asWritten: { pi: kept, settle: kept },
			// pi 0.73.1 writes a thinking-level entry into a file it only resumed (the report's symptom).
			bare: { pi: { ...kept, addedOnResume: ["thinking_level_change"], mtimeKept: false }, settle: kept },
		});
	});

	it("pi#8331: a stream that stalls mid-answer — neither product cuts it by itself; abort() ends it, the partial answer is saved as aborted, the session answers again", async () => {
		const runs = await onBothPeers({}, async (peer) => {
			const stalled = gate();
			stallAfterFirstDelta(peer.session, stalled.release);
			peer.script([{ text: "Here is the first half of the report" }, { text: "second try worked" }]);
			const running = outcomeOf(peer.session.prompt("write the report"));
			await stalled.promise;
			const whileStalled = { running: await stillPending(running), streaming: peer.session.isStreaming };
			await peer.session.abort();
			const afterAbort = { running: await running, streaming: peer.session.isStreaming };
			const partial = messagesOf(peer.fileEntries()).at(-1)?.text;
			await peer.prompt("try again");
			await peer.quiesce();
			return { whileStalled, afterAbort, partial, saved: savedRoles(peer.fileEntries()) };
		});
		// Held in both: no timer cuts the silence (Settle's streamIdleTimeoutMs is opt-in), abort does.
		const held = {
			whileStalled: { running: "pending", streaming: true },
			afterAbort: { running: "resolved", streaming: false },
			partial: JSON.stringify([{ type: "text", text: "Here" }]),
			saved: ["user", "assistant aborted", "user", "assistant stop"],
		};
		expect(runs).toEqual({ pi: held, settle: held });
	});

	it("pi-desktop#46: a new session while the answer streams — pi 0.73.1 leaves the old run going and never saves its end; Settle aborts and saves it first", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				const asked = gate();
				let signal: AbortSignal | undefined;
				peer.script([
					{ text: "first answer" },
					(_request, _peer, requestSignal) => {
						signal = requestSignal;
						asked.release();
						return stalledUntilAbort(requestSignal);
					},
					{ text: "fresh" },
				]);
				const old = peer.session;
				await old.prompt("first question");
				const running = outcomeOf(old.prompt("long answer"));
				await asked.promise;
				const oldFile = old.sessionFile!;
				const switched = await outcomeOf(peer.runtime.newSession());
				const atSwitch = {
					switched,
					oldRun: await stillPending(running),
					oldStreaming: old.isStreaming,
					requestAborted: signal?.aborted ?? false,
				};
				// pi leaves the old run going: end it here (as its host's Esc would) so nothing leaks.
				if (old.isStreaming) await old.abort();
				await running;
				await peer.session.prompt("hello new session");
				await peer.quiesce();
				return {
					...atSwitch,
					oldFile: savedRoles(peer.fileEntries(oldFile)),
					newSessionAsked: peer.requests.at(-1)?.messages,
				};
			},
		);
		// pi 0.73.1 has it: the old run keeps streaming past the switch, and its end is never saved.
		expect(runs.pi).toEqual({
			switched: "resolved",
			oldRun: "pending",
			oldStreaming: true,
			requestAborted: false,
			oldFile: ["user", "assistant stop", "user"],
			newSessionAsked: ["user: hello new session"],
		});
		// Settle: the switch aborts and settles the old run first; its file ends with the aborted answer.
		expect(runs.settle).toEqual({
			switched: "resolved",
			oldRun: "SESSION_CLOSED",
			oldStreaming: false,
			requestAborted: true,
			oldFile: ["user", "assistant stop", "user", "assistant aborted"],
			newSessionAsked: ["user: hello new session"],
		});
	});

	it("pinet#941: while a compaction summarizes — pi 0.73.1 says idle and answers a prompt it then saves nowhere; Settle says busy and refuses it", async () => {
		const runs = await onBothPeers(
			{
				settings: { compaction: { keepRecentTokens: 10 } },
				extensions: [
					(api) => api.on("session_before_compact", (_event, ctx) => void idleWhileCompacting.push(ctx.isIdle())),
				],
			},
			async (peer) => {
				const summaryAsked = gate();
				const answerSummary = gate();
				let summaries = 0;
				const step: Step = async (request) => {
					if (request.system !== "summarizer") {
						return {
							text: request.messages.at(-1)?.includes("new task")
								? "done with the new task"
								: `answer ${"words ".repeat(30)}`,
						};
					}
					if (summaries++ === 0) {
						summaryAsked.release();
						await answerSummary.promise;
					}
					return { text: "## Goal\nsummary" };
				};
				peer.script(Array.from({ length: 8 }, () => step));
				for (const text of ["one", "two", "three"]) await peer.session.prompt(`question ${text} `.repeat(20));
				const linesBefore = peer.fileEntries().length;
				const compacting = outcomeOf(peer.session.compact());
				await summaryAsked.promise;
				const late = outcomeOf(peer.session.prompt("new task from the broker"));
				const lateBeforeSummary = await stillPending(late);
				answerSummary.release();
				const outcomes = { compact: await compacting, late: await late, lateBeforeSummary };
				await peer.quiesce();
				const written = peer
					.fileEntries()
					.slice(linesBefore)
					.map((entry) => {
						if (entry.type !== "message") return String(entry.type);
						const [message] = messagesOf([entry]);
						return `${message!.role}: ${message!.text.includes("new task") ? "new task" : "…"}`;
					});
				const live = JSON.stringify(peer.session.messages).includes("new task from the broker");
				const reopened = JSON.stringify(peer.openContext(peer.session.sessionFile!)).includes(
					"new task from the broker",
				);
				const answered = peer.requests.some((request) => request.messages.at(-1) === "user: new task from the broker");
				const result = { ctxIdle: idleWhileCompacting[0], ...outcomes, answered, written, live, reopened };
				idleWhileCompacting.length = 0;
				return result;
			},
		);
		// pi 0.73.1 has it: idle while compacting, so the prompt runs at once and is answered, but the
		// compaction's context replaces it: it is in neither the file nor the live context afterwards.
		expect(runs.pi).toEqual({
			ctxIdle: true,
			compact: "resolved",
			late: "resolved",
			lateBeforeSummary: "resolved",
			answered: true,
			written: ["compaction"],
			live: false,
			reopened: false,
		});
		// Settle: busy while compacting, and says so to the prompt (a typed BUSY); nothing half-done.
		expect(runs.settle).toEqual({
			ctxIdle: false,
			compact: "resolved",
			late: "BUSY",
			lateBeforeSummary: "BUSY",
			answered: false,
			written: ["compaction"],
			live: false,
			reopened: false,
		});
	});
});

/**
 * A first answer that streams until `release`: `streaming` opens when the request is being answered,
 * so a test can act mid-run (steer, switch the model) before the answer ends.
 */
function heldFirstAnswer() {
	const streaming = gate();
	const release = gate();
	const answer = async () => {
		streaming.release();
		await release.promise;
		return { text: "first answer" };
	};
	return { streaming, release, answer };
}

/** The pi#9178 / pi#9155 scenarios' hook gates (one peer at a time; renewed after each). */
const treeRace = { entered: gate(), release: gate(), hold: false };
function renewTreeRace(): void {
	treeRace.entered = gate();
	treeRace.release = gate();
	treeRace.hold = false;
}

/** The ids from `id` up to the root, through the file's `parentId` links. */
function ancestry(entries: Record<string, unknown>[], id: string | undefined): string[] {
	const byId = new Map(entries.map((entry) => [entry.id as string, entry]));
	const ids: string[] = [];
	for (let entry = id ? byId.get(id) : undefined; entry; entry = byId.get(entry.parentId as string)) {
		ids.push(entry.id as string);
	}
	return ids;
}

/** The file's assistant messages, in file order: `{id, text}`. */
function assistantsOf(entries: Record<string, unknown>[]): { id: string; text: string }[] {
	return entries.flatMap((entry) => {
		const message = entry.message as { role?: string; content?: unknown } | undefined;
		if (entry.type !== "message" || message?.role !== "assistant") return [];
		return [{ id: entry.id as string, text: JSON.stringify(message.content) }];
	});
}

type TreeSession = SessionLike & {
	navigateTree(targetId: string, options?: { summarize?: boolean }): Promise<unknown>;
};

describe("pi 0.73.1 against Settle: tree navigation", () => {
	it("oh-my-pi#4011: a branch summary of a branch that learned a fact only from a tool result — pi 0.73.1's summarizer never sees the fact; Settle's request carries it", async () => {
		const runs = await onBothPeers({}, async (peer) => {
			writeFileSync(join(peer.dirs.cwd, ".env"), "PORT=8417\n");
			peer.script([
				{ toolCalls: [{ id: "call-r", name: "read", args: { path: ".env" } }] },
				{ text: "Found it." },
				{ text: "## Goal\nbranch summary" },
			]);
			await peer.session.prompt("which port does the server use?");
			const [question] = peer
				.fileEntries()
				.filter((entry) => entry.type === "message" && (entry.message as { role: string }).role === "user");
			await (peer.session as TreeSession).navigateTree(question!.id as string, { summarize: true });
			const summarizer = peer.requests.filter((request) => request.system === "summarizer");
			return {
				summaryRequests: summarizer.length,
				toolCallSummarized: summarizer.some((request) => request.messages.some((m) => m.includes("read("))),
				factSummarized: summarizer.some((request) => request.messages.some((m) => m.includes("PORT=8417"))),
			};
		});
		expect(runs.pi).toEqual({ summaryRequests: 1, toolCallSummarized: true, factSummarized: false });
		expect(runs.settle).toEqual({ summaryRequests: 1, toolCallSummarized: true, factSummarized: true });
	});

	it("pi#9178: navigateTree while compact() waits in session_before_compact — pi 0.73.1 moves the leaf and the summary lands on the other branch, keeping none of it; Settle refuses the navigation", async () => {
		const runs = await onBothPeers(
			() => ({
				settings: { compaction: { keepRecentTokens: 10 } },
				extensions: [
					(api) => {
						api.on("session_before_compact", async () => {
							treeRace.entered.release();
							await treeRace.release.promise;
						});
					},
				],
			}),
			async (peer) => {
				const answers = ["assistant A", "assistant B", "after"];
				peer.script(
					Array.from(
						{ length: 6 },
						() => (request: ModelRequest) =>
							request.system === "summarizer"
								? { text: "## Goal\nsummary" }
								: { text: `${answers.shift()} ${"words ".repeat(40)}` },
					),
				);
				await peer.session.prompt(`first ${"question ".repeat(30)}`);
				await peer.session.prompt(`second ${"question ".repeat(30)}`);
				const [a, b] = assistantsOf(peer.fileEntries());
				const compacting = outcomeOf(peer.session.compact());
				await treeRace.entered.promise;
				const navigated = await outcomeOf((peer.session as TreeSession).navigateTree(a!.id, { summarize: false }));
				treeRace.release.release();
				const compacted = await compacting;
				await peer.quiesce();
				const entries = peer.fileEntries();
				const compaction = entries.find((entry) => entry.type === "compaction");
				const parent =
					compaction?.parentId === b!.id ? "assistant B" : compaction?.parentId === a!.id ? "assistant A" : "?";
				const keptOnItsBranch = ancestry(entries, compaction?.id as string).includes(
					compaction?.firstKeptEntryId as string,
				);
				const context = JSON.stringify(peer.openContext(peer.session.sessionFile!));
				renewTreeRace();
				return {
					navigated: navigated === "resolved" ? "resolved" : navigated.split(" ")[0],
					compacted,
					compactionAfter: parent,
					keptOnItsBranch,
					assistantBInContext: context.includes("assistant B"),
				};
			},
		);
		expect(runs.pi).toEqual({
			navigated: "resolved",
			compacted: "resolved",
			compactionAfter: "assistant A",
			keptOnItsBranch: false,
			assistantBInContext: false,
		});
		expect(runs.settle).toEqual({
			navigated: "BUSY",
			compacted: "resolved",
			compactionAfter: "assistant B",
			keptOnItsBranch: true,
			assistantBInContext: true,
		});
	});

	it("pi#9155: a prompt while session_before_tree runs — pi 0.73.1 answers and saves it on the branch being left, then moves away from it (a reopened file is back on it); Settle refuses it", async () => {
		const runs = await onBothPeers(
			() => ({
				extensions: [
					(api) => {
						api.on("session_before_tree", async () => {
							if (!treeRace.hold) return;
							treeRace.entered.release();
							await treeRace.release.promise;
						});
					},
				],
			}),
			async (peer) => {
				peer.script(Array.from({ length: 6 }, () => answerer));
				await peer.session.prompt("question one");
				await peer.session.prompt("question two");
				const [answerOne] = assistantsOf(peer.fileEntries());
				treeRace.hold = true;
				const navigating = outcomeOf((peer.session as TreeSession).navigateTree(answerOne!.id));
				await treeRace.entered.promise;
				const typed = outcomeOf(peer.session.prompt("typed while navigating"));
				const atOnce = await stillPending(typed);
				treeRace.release.release();
				const navigated = await navigating;
				const finalOutcome = await typed;
				await peer.quiesce();
				const entries = peer.fileEntries();
				const typedEntry = entries.find((entry) => JSON.stringify(entry).includes("typed while navigating"));
				const live = JSON.stringify(peer.session.messages);
				const reopened = JSON.stringify(peer.openContext(peer.session.sessionFile!));
				renewTreeRace();
				return {
					navigated,
					prompt: atOnce === "pending" ? finalOutcome : atOnce,
					answered: peer.requests.some((request) =>
						request.messages.some((message) => message.includes("typed while navigating")),
					),
					saved: typedEntry !== undefined,
					inLiveContext: live.includes("typed while navigating"),
					inReopenedContext: reopened.includes("typed while navigating"),
				};
			},
		);
		expect(runs.pi).toEqual({
			navigated: "resolved",
			prompt: "resolved",
			answered: true,
			saved: true,
			inLiveContext: false,
			inReopenedContext: true,
		});
		expect(runs.settle).toEqual({
			navigated: "resolved",
			prompt: "BUSY",
			answered: false,
			saved: false,
			inLiveContext: false,
			inReopenedContext: false,
		});
	});
});

/**
 * Opens `file` as each product's SDK user resumes a session (no `model`, no `thinkingLevel`): the
 * faux provider with `faux-1` and the reasoning `faux-2` in each model registry, `faux-1` the
 * settings' default model. Resolves with the model and thinking level the session starts on.
 */
async function resumeWithoutModel(
	name: PeerName,
	file: string,
	dir: string,
): Promise<{ model?: string; thinking: string }> {
	const settings = { defaultProvider: "faux", defaultModel: "faux-1" };
	const agentDir = join(dir, `${name}-agent`);
	const sessionDir = join(dir, `${name}-sessions`);
	if (name === "pi") {
		const faux = piAi.registerFauxProvider({ provider: "faux", models: fauxModels(undefined, true) });
		try {
			const authStorage = pi.AuthStorage.inMemory();
			authStorage.setRuntimeApiKey("faux", FAUX_KEY);
			const modelRegistry = pi.ModelRegistry.inMemory(authStorage);
			const { baseUrl } = faux.getModel();
			modelRegistry.registerProvider("faux", {
				api: faux.api,
				baseUrl,
				apiKey: FAUX_KEY,
				models: fauxModels(undefined, true),
			} as never);
			const settingsManager = pi.SettingsManager.inMemory(settings);
			const resourceLoader = new pi.DefaultResourceLoader({ cwd: dir, agentDir, settingsManager, noExtensions: true });
			await resourceLoader.reload();
			const { session } = await pi.createAgentSession({
				cwd: dir,
				agentDir,
				authStorage,
				modelRegistry,
				settingsManager,
				resourceLoader,
				sessionManager: pi.SessionManager.open(file, sessionDir),
			});
			const result = { model: session.model?.id, thinking: session.thinkingLevel as string };
			session.dispose();
			return result;
		} finally {
			faux.unregister();
		}
	}
	const faux = createFauxProvider({ models: fauxModels(undefined, true) });
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const sessionManager = SessionManager.open(file, sessionDir);
	const { session } = await openSdkSession({ dir, agentDir }, modelRuntime, sessionManager, { settings });
	const result = { model: session.model?.id, thinking: session.thinkingLevel as string };
	session.dispose();
	sessionManager.close();
	return result;
}

/** Session file entries: a user "hi" (id `u1`, after `parentId`) answered "hello" on faux-2 (id `a1`). */
function helloExchangeOnFaux2(parentId: string, timestamp: string): Record<string, unknown>[] {
	return [
		{
			type: "message",
			id: "u1",
			parentId,
			timestamp,
			message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 },
		},
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			timestamp,
			message: {
				role: "assistant",
				content: [{ type: "text", text: "hello" }],
				api: "faux",
				provider: "faux",
				model: "faux-2",
				usage: emptyUsage(),
				stopReason: "stop",
				timestamp: 2,
			},
		},
	];
}

describe("pi 0.73.1 against Settle: resuming a session", () => {
	it("pi#6822: a file that records a model and thinking level but no message yet — pi 0.73.1 starts on the settings' default model; Settle on the recorded one", async () => {
		const dir = tempDir("settle-pi6822-peer-");
		const timestamp = "2026-07-19T10:00:00.000Z";
		const lines = [
			{ type: "session", version: 3, id: "0199ffff-0000-7000-8000-000000000002", timestamp, cwd: dir },
			{ type: "model_change", id: "m1", parentId: null, timestamp, provider: "faux", modelId: "faux-1" },
			{ type: "thinking_level_change", id: "t1", parentId: "m1", timestamp, thinkingLevel: "off" },
			{ type: "model_change", id: "m2", parentId: "t1", timestamp, provider: "faux", modelId: "faux-2" },
			{ type: "thinking_level_change", id: "t2", parentId: "m2", timestamp, thinkingLevel: "high" },
		];
		// The control: the same file with one exchange on faux-2, which both restore.
		const exchange = helloExchangeOnFaux2("t2", timestamp);
		const runs: Record<string, unknown> = {};
		for (const name of ["pi", "settle"] as const) {
			const promptless = join(dir, `${name}-promptless.jsonl`);
			writeFileSync(promptless, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
			const answered = join(dir, `${name}-answered.jsonl`);
			writeFileSync(answered, `${[...lines, ...exchange].map((line) => JSON.stringify(line)).join("\n")}\n`);
			runs[name] = {
				promptless: await resumeWithoutModel(name, promptless, dir),
				withExchange: await resumeWithoutModel(name, answered, dir),
			};
		}
		expect(runs).toEqual({
			pi: { promptless: { model: "faux-1", thinking: "off" }, withExchange: { model: "faux-2", thinking: "high" } },
			settle: {
				promptless: { model: "faux-2", thinking: "high" },
				withExchange: { model: "faux-2", thinking: "high" },
			},
		});
	});
});

describe("pi 0.73.1 against Settle: a session at newer pi's max thinking level", () => {
	it("pi-dynamic-workflows#59: a file at `max` on a reasoning model resumes at off in pi 0.73.1, at the model's highest level (high) in Settle", async () => {
		const dir = tempDir("settle-max-thinking-peer-");
		const timestamp = "2026-12-01T10:00:00.000Z";
		const lines = [
			{ type: "session", version: 3, id: "0199ffff-0000-7000-8000-000000000059", timestamp, cwd: dir },
			{ type: "model_change", id: "m1", parentId: null, timestamp, provider: "faux", modelId: "faux-2" },
			{ type: "thinking_level_change", id: "t1", parentId: "m1", timestamp, thinkingLevel: "max" },
			...helloExchangeOnFaux2("t1", timestamp),
		];
		const runs: Record<string, unknown> = {};
		for (const name of ["pi", "settle"] as const) {
			const file = join(dir, `${name}-max.jsonl`);
			writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
			runs[name] = await resumeWithoutModel(name, file, dir);
		}
		expect(runs).toEqual({ pi: { model: "faux-2", thinking: "off" }, settle: { model: "faux-2", thinking: "high" } });
	});
});

describe("pi 0.73.1 against Settle: a send from session_compact", () => {
	it("pi#9647: pi.sendUserMessage() from session_compact after a manual compaction — both run it after the compaction and save it with its answer (the report is against a later pi; Settle refused it until this test)", async () => {
		const runs = await onBothPeers(
			() => ({
				settings: { compaction: { keepRecentTokens: 10 } },
				extensions: [
					(api) => {
						api.on("session_compact", () => {
							api.sendUserMessage("continue after the compaction");
						});
					},
				],
			}),
			async (peer) => {
				peer.script(Array.from({ length: 8 }, () => answerer));
				for (const text of ["one", "two"]) await peer.session.prompt(`question ${text} `.repeat(20));
				const compacted = await outcomeOf(peer.session.compact());
				const asked = () =>
					peer.requests.some((request) =>
						request.messages.some((message) => message.includes("continue after the compaction")),
					);
				for (let turn = 0; turn < 2000 && (!asked() || peer.session.isStreaming); turn++) {
					await new Promise<void>((resolve) => setImmediate(resolve));
				}
				await peer.quiesce();
				const entries = peer.fileEntries();
				const compactionAt = entries.findIndex((entry) => entry.type === "compaction");
				const savedAt = entries.findIndex((entry) => JSON.stringify(entry).includes('"continue after the compaction"'));
				return {
					compacted,
					answered: asked(),
					saved: savedAt !== -1,
					savedAfterCompaction: savedAt > compactionAt && compactionAt !== -1,
					answerSaved: entries.some((entry) =>
						JSON.stringify(entry).includes("answer to continue after the compaction"),
					),
				};
			},
		);
		// pi 0.73.1 has no compaction guard on prompt() yet (the report is against a later pi): it runs the
		// message once its handler returns, as Settle now does instead of refusing it.
		const expected = {
			compacted: "resolved",
			answered: true,
			saved: true,
			savedAfterCompaction: true,
			answerSaved: true,
		};
		expect(runs.pi).toEqual(expected);
		expect(runs.settle).toEqual(expected);
	});
});

describe("pi 0.73.1 against Settle: the first prompt after a compaction", () => {
	it("pi#1860: a note an extension appends after a threshold compaction — neither product compacts again on the next prompt (the report is against an earlier pi)", async () => {
		const apis: ExtensionAPI[] = [];
		const runs = await onBothPeers(
			() => ({
				contextWindow: 8000,
				settings: THRESHOLD_SETTINGS,
				extensions: [
					(api) => {
						apis.push(api);
					},
				],
			}),
			async (peer) => {
				// Short answers: after the compaction the context is small again.
				const short: Step = (request) =>
					request.system === "summarizer" ? { text: "## Goal\nsummary" } : { text: "noted" };
				peer.script(Array.from({ length: 8 }, () => short));
				const reasons: string[] = [];
				peer.session.subscribe((event: AnyEvent) => {
					if (event.type === "compaction_start") reasons.push(String((event as { reason?: unknown }).reason));
				});
				await peer.session.prompt(`read this log: ${BIG_ANSWER}`);
				await peer.quiesce();
				const afterFirst = [...reasons];
				apis.at(-1)!.sendMessage({ customType: "recovery", content: "session recovery payload", display: false });
				await peer.session.prompt("what next?");
				await peer.quiesce();
				return {
					afterFirst,
					afterSecond: reasons,
					summaries: peer.requests.filter((request) => request.system === "summarizer").length,
					nextAnswered: peer.requests.some((request) => request.messages.at(-1) === "user: what next?"),
					compactionsSaved: peer.fileEntries().filter((entry) => entry.type === "compaction").length,
				};
			},
		);
		const expected = {
			afterFirst: ["threshold"],
			afterSecond: ["threshold"],
			summaries: 1,
			nextAnswered: true,
			compactionsSaved: 1,
		};
		expect(runs).toEqual({ pi: expected, settle: expected });
	});

	it("pi#7253: compact() while a tool runs, after an answer over the threshold — what compacts, and what compact() returns (the report is against a later pi)", async () => {
		const runs = await onBothPeers(
			() => {
				return { contextWindow: 8000, settings: THRESHOLD_SETTINGS, customTools: [slowUntilAborted()] };
			},
			async (peer) => {
				const started = toolStarts.at(-1)!;
				let asked = 0;
				const step: Step = (request) => {
					if (request.system === "summarizer") return { text: "## Goal\nsummary" };
					asked++;
					// The second answer is over the threshold and asks for the tool: the run goes on.
					return asked === 2
						? { text: BIG_ANSWER.repeat(3).slice(0, 18_000), toolCalls: [{ id: "call-slow", name: "slow", args: {} }] }
						: { text: `answer ${asked}` };
				};
				peer.script(Array.from({ length: 12 }, () => step));
				const reasons: string[] = [];
				peer.session.subscribe((event: AnyEvent) => {
					if (event.type === "compaction_start") reasons.push(String((event as { reason?: unknown }).reason));
				});
				await peer.session.prompt("a");
				const running = peer.session.prompt("b");
				await started.promise;
				// The race's precondition: the answer before the tool is over the threshold (8000 - 4000).
				const overThreshold = (peer.session.getContextUsage()?.tokens ?? 0) > 4000;
				const outcome = await peer.session.compact("keep the plan").then(
					(result) => (String((result as { summary?: unknown }).summary).includes("## Goal") ? "summary" : "other"),
					(error: unknown) => `error: ${error instanceof Error ? error.message : String(error)}`,
				);
				await running;
				await peer.quiesce();
				return {
					overThreshold,
					outcome,
					compactions: reasons,
					compactionsSaved: peer.fileEntries().filter((entry) => entry.type === "compaction").length,
					requestsAfterTool: peer.requests.filter((request) => request.system !== "summarizer").length - 2,
				};
			},
		);
		const held = {
			overThreshold: true,
			outcome: "summary",
			compactions: ["manual"],
			compactionsSaved: 1,
			requestsAfterTool: 0,
		};
		expect(runs).toEqual({ pi: held, settle: held });
	});
});

describe("pi 0.73.1 against Settle: input while an abort winds down", () => {
	for (const how of ["followUp", "steer"] as const) {
		it(`gsd-2#1439: a ${how}() sent after abort() was called, while the aborted tool still runs — neither product drops it; the next prompt carries it once`, async () => {
			const runs = await onBothPeers(
				() => {
					return { customTools: [slowUntilAborted()] };
				},
				async (peer) => {
					peer.script([
						{ toolCalls: [{ id: "call-s", name: "slow", args: {} }] },
						{ text: "answered the next prompt" },
						{ text: "answered the follow-up" },
						{ text: "not asked" },
					]);
					const running = outcomeOf(peer.session.prompt("long task"));
					await toolStarts.at(-1)!.promise;
					const aborting = peer.session.abort();
					const session = peer.session as unknown as {
						steer(text: string): Promise<void>;
						followUp(text: string): Promise<void>;
						getSteeringMessages(): string[];
						getFollowUpMessages(): string[];
					};
					await session[how]("typed right after esc");
					await aborting;
					await running;
					await peer.quiesce();
					const requestsAfterAbort = peer.requests.length;
					const listed = [...session.getSteeringMessages(), ...session.getFollowUpMessages()];
					await peer.session.prompt("next");
					await peer.quiesce();
					const carrying = peer.requests.filter((request) =>
						request.messages.some((message) => message.includes("typed right after esc")),
					);
					return {
						requestsAfterAbort,
						listed,
						nextRequestsCarryIt: carrying.length > 0,
						timesInLastRequest: peer.requests
							.at(-1)!
							.messages.filter((message) => message.includes("typed right after esc")).length,
						saved: messagesOf(peer.fileEntries()).filter((message) => message.text.includes("typed right after esc"))
							.length,
					};
				},
			);
			// The same in both: a follow-up stays listed; a steer is taken at the tool boundary the abort
			// stopped at and saved there, unanswered. Either way the next prompt's request carries it once.
			const kept = {
				requestsAfterAbort: 1,
				listed: how === "followUp" ? ["typed right after esc"] : [],
				nextRequestsCarryIt: true,
				timesInLastRequest: 1,
				saved: 1,
			};
			expect(runs).toEqual({ pi: kept, settle: kept });
		});
	}
});

describe("pi 0.73.1 against Settle: extension handlers that never return or run slow", () => {
	it("pi#9910: a tool_call handler whose promise never settles — pi 0.73.1's abort() never returns and the session stays busy (pi alone: Settle's side needs its simulated clock, in liveness.test.ts)", async () => {
		const entered = gate();
		const lookup: SharedTool = {
			name: "lookup",
			label: "Lookup",
			description: "looks something up",
			parameters: { type: "object", properties: {} },
			execute: async () => ({ content: [{ type: "text", text: "found it" }], details: {} }),
		};
		const peer = await piPeer({
			customTools: [lookup],
			extensions: [
				(api) =>
					api.on("tool_call", () => {
						entered.release();
						return new Promise<never>(() => {});
					}),
			],
		});
		peer.script([{ toolCalls: [{ id: "call-h", name: "lookup", args: {} }] }, { text: "not reached" }]);
		const running = outcomeOf(peer.session.prompt("look it up"));
		await entered.promise;
		const aborted = await stillPending(outcomeOf(peer.session.abort()));
		const next = await outcomeOf(peer.session.prompt("anything else?"));
		expect({
			aborted,
			running: await stillPending(running),
			streaming: peer.session.isStreaming,
			next,
		}).toEqual({
			aborted: "pending",
			running: "pending",
			streaming: true,
			next: expect.stringMatching(/^Agent is already processing/),
		});
	});

	for (const mode of ["parallel", "sequential"] as const) {
		it(`pi#1717 / pi#2113: a slow async message_end handler during a ${mode} batch of two calls — both products write the file in conversation order${mode === "sequential" ? ", and the second call's tool_call handler sees the first result" : ""}`, async () => {
			const runs = await onBothPeers(
				() => {
					const lookup = (name: string): SharedTool => ({
						name,
						label: name,
						description: `looks up ${name}`,
						parameters: { type: "object", properties: {} },
						...(mode === "sequential" && name === "first" ? { executionMode: "sequential" as const } : {}),
						execute: async () => ({ content: [{ type: "text", text: `${name} found` }], details: {} }),
					});
					return {
						customTools: [lookup("first"), lookup("second")],
						extensions: [
							(api) => {
								api.on("message_end", async (event) => {
									const turns = event.message.role === "assistant" ? 50 : 5;
									for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
								});
								api.on("tool_call", (event, ctx) => {
									const results = ctx.sessionManager.getBranch().flatMap((entry) => {
										const message = (entry as { message?: { role: string; toolName?: string } }).message;
										return entry.type === "message" && message?.role === "toolResult" ? [message.toolName] : [];
									});
									toolCallsSaw.push(`${event.toolName} after [${results.join(", ")}]`);
									return undefined;
								});
							},
						],
					};
				},
				async (peer) => {
					peer.script(twoCallBatchThen("both found"));
					await peer.session.prompt("look both up");
					await peer.quiesce();
					const result = { file: savedRoles(peer.fileEntries()), toolCallsSaw: [...toolCallsSaw] };
					toolCallsSaw.length = 0;
					return result;
				},
			);
			const expected = {
				file: ["user", "assistant toolUse", "toolResult", "toolResult", "assistant stop"],
				// Parallel calls are all prepared (their tool_call handlers run) before any of them runs.
				toolCallsSaw:
					mode === "sequential" ? ["first after []", "second after [first]"] : ["first after []", "second after []"],
			};
			expect(runs).toEqual({ pi: expected, settle: expected });
		});
	}
});

describe("pi 0.73.1 against Settle: abort during a compaction", () => {
	it("pi#8920: abort() — what RPC abort runs — while a manual compaction summarizes: pi 0.73.1 returns but leaves the summary running and the compaction lands after it; Settle cancels the summary and writes no compaction, only the cancelled request's usage", async () => {
		const runs = await onBothPeers({ settings: { compaction: { keepRecentTokens: 10 } } }, async (peer) => {
			const summaryAsked = gate();
			const answerSummary = gate();
			const summarySignals: (AbortSignal | undefined)[] = [];
			const step: Step = async (request, _peer, signal) => {
				if (request.system !== "summarizer") return { text: `answer ${"words ".repeat(30)}` };
				summarySignals.push(signal);
				summaryAsked.release();
				// The report's held summary stream: answered when the test says so, or cut by its signal.
				return Promise.race([
					answerSummary.promise.then((): ReplySpec => ({ text: "## Goal\nsummary" })),
					stalledUntilAbort(signal),
				]);
			};
			peer.script(Array.from({ length: 8 }, () => step));
			for (const text of ["one", "two", "three"]) await peer.session.prompt(`question ${text} `.repeat(20));
			const linesBefore = peer.fileEntries().length;
			const compacting = outcomeOf(peer.session.compact());
			await summaryAsked.promise;
			const aborted = await outcomeOf(peer.session.abort());
			const afterAbort = {
				compacting: peer.session.isCompacting,
				compact: await stillPending(compacting),
				summaryCancelled: summarySignals.every((signal) => signal?.aborted === true),
			};
			answerSummary.release();
			const compactInTheEnd = await compacting;
			await peer.quiesce();
			const written = peer
				.fileEntries()
				.slice(linesBefore)
				.map((entry) => String(entry.type));
			return { aborted, ...afterAbort, compactInTheEnd, written };
		});
		// pi 0.73.1 has it: abort() stops the agent only; the summary goes on and is written once answered.
		expect(runs.pi).toEqual({
			aborted: "resolved",
			compacting: true,
			compact: "pending",
			summaryCancelled: false,
			compactInTheEnd: "resolved",
			written: ["compaction"],
		});
		// Settle: abort() ends whatever runs, the compaction too; compact() rejects ABORTED; only what the
		// cut summary request reported is saved, as a `usage` entry (mindroom#2151).
		expect(runs.settle).toEqual({
			aborted: "resolved",
			compacting: false,
			compact: "ABORTED",
			summaryCancelled: true,
			compactInTheEnd: "ABORTED",
			written: ["usage"],
		});
	});
});

/** The pi#8680 scenario's tool_call handler state (one peer at a time; renewed after each). */
const batchAfterSwitch = { invocations: [] as string[], entered: gate(), release: gate() };

describe("pi 0.73.1 against Settle: a tool batch when the session is replaced", () => {
	it("pi#8680: newSession() while the first call of a batch waits in its tool_call handler — pi 0.73.1 runs the next call's handler on a stale ctx and the tools after the switch; Settle runs neither", async () => {
		const runs = await onBothRuntimes(
			() => {
				const lookup = (name: string): SharedTool => ({
					name,
					label: name,
					description: `looks up ${name}`,
					parameters: { type: "object", properties: {} },
					execute: async () => {
						batchAfterSwitch.invocations.push(`${name} ran`);
						return { content: [{ type: "text", text: `${name} found` }], details: {} };
					},
				});
				return {
					customTools: [lookup("first"), lookup("second")],
					extensions: [
						(api) =>
							api.on("tool_call", async (event, ctx) => {
								try {
									void ctx.sessionManager.getBranch();
									batchAfterSwitch.invocations.push(`${event.toolName} handler: live ctx`);
								} catch (error) {
									const stale = /stale/i.test(String((error as Error).message ?? error));
									batchAfterSwitch.invocations.push(`${event.toolName} handler: ${stale ? "stale ctx" : "error"}`);
									return undefined;
								}
								if (event.toolName !== "first") return undefined;
								batchAfterSwitch.entered.release();
								// A confirmation: answered by the test, or closed by the run's abort.
								const signal = ctx.signal;
								await Promise.race([
									batchAfterSwitch.release.promise,
									new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true })),
								]);
								return undefined;
							}),
					],
				};
			},
			async (peer) => {
				peer.script(twoCallBatchThen("both found"));
				const old = peer.session;
				const running = outcomeOf(old.prompt("look both up"));
				await batchAfterSwitch.entered.promise;
				await peer.runtime.newSession();
				batchAfterSwitch.invocations.push("switched");
				batchAfterSwitch.release.release();
				await running;
				await peer.quiesce();
				const result = { invocations: [...batchAfterSwitch.invocations], prompt: await running };
				batchAfterSwitch.invocations.length = 0;
				batchAfterSwitch.entered = gate();
				batchAfterSwitch.release = gate();
				return result;
			},
		);
		// pi 0.73.1 has it: the old batch drains after the switch, the next handler on a dead runner's ctx.
		expect(runs.pi).toEqual({
			invocations: ["first handler: live ctx", "switched", "second handler: stale ctx", "first ran", "second ran"],
			prompt: "resolved",
		});
		// Settle: the switch aborts and settles the old run first; nothing of its batch runs afterwards.
		expect(runs.settle).toEqual({ invocations: ["first handler: live ctx", "switched"], prompt: "SESSION_CLOSED" });
	});
});

describe("pi 0.73.1 against Settle: RPC abort with a steer queued", () => {
	it("sesori#1157: over RPC, a steer queued while a command runs, then abort — what each answers, and whether a model request follows the abort", async () => {
		const dir = tempDir("settle-sesori1157-peer-");
		const peers = slowCommandPeers(dir);
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			[peers.pi, peers.settle].map(async (peer) => {
				const client = killedAfterTest(peer.client);
				await startSlowCommand(client);
				const steered = await client.request({ id: "2", type: "steer", message: "change of plan" });
				const ended = client.next((line) => line.type === peer.endEvent);
				const aborted = await client.request({ id: "3", type: "abort" });
				await ended;
				const abortAt = client.lines.findIndex((line) => line.type === "response" && line.id === "3");
				const state = (await client.request({ id: "4", type: "get_state" })) as { data: { isStreaming: boolean } };
				const assistants = client.lines.filter(
					(line) => line.type === "message_end" && (line.message as { role?: string }).role === "assistant",
				);
				runs[peer.name] = {
					steer: steered.success,
					abort: aborted.success,
					runEndedBeforeAbortAnswer: client.lines.findIndex((line) => line.type === "agent_end") < abortAt,
					answersAfterAbort: assistants
						.filter((line) => client.lines.indexOf(line) > abortAt)
						.map((line) => (line.message as { stopReason?: string }).stopReason),
					streaming: state.data.isStreaming,
					steerSaved: client.lines.filter(
						(line) =>
							line.type === "message_end" &&
							(line.message as { role?: string }).role === "user" &&
							JSON.stringify(line.message).includes("change of plan"),
					).length,
				};
				await stopRpc(client);
			}),
		);
		// The same in both: abort answers once the run has ended, no answer follows it, and the steer
		// is saved once (after the stopped command's result) for the next prompt.
		const same = {
			steer: true,
			abort: true,
			runEndedBeforeAbortAnswer: true,
			answersAfterAbort: [],
			streaming: false,
			steerSaved: 1,
		};
		expect(runs).toEqual({ pi: same, settle: same });
	});
});

/** The pi#4276 scenario's tool_call handler record (one peer at a time). */
const confirmations: string[] = [];

describe("pi 0.73.1 against Settle: ctx.abort() from a tool_call handler", () => {
	it("pi#4276: a confirmation's 'Abort run' (ctx.abort() from tool_call) on the first of two calls — what runs after it, and what is saved", async () => {
		const runs = await onBothPeers(
			() => {
				const edit = (name: string): SharedTool => ({
					name,
					label: name,
					description: `edits ${name}`,
					parameters: { type: "object", properties: {} },
					execute: async () => {
						confirmations.push(`${name} ran`);
						return { content: [{ type: "text", text: `${name} edited` }], details: {} };
					},
				});
				return {
					customTools: [edit("first"), edit("second")],
					extensions: [
						(api) =>
							api.on("tool_call", (event, ctx) => {
								confirmations.push(`confirm ${event.toolName}`);
								if (event.toolName !== "first") return undefined;
								ctx.abort();
								return { block: true, reason: "Aborted by user" };
							}),
					],
				};
			},
			async (peer) => {
				peer.script(twoCallBatchThen("not asked"));
				const prompt = await outcomeOf(peer.session.prompt("edit both"));
				await peer.quiesce();
				const result = {
					prompt,
					confirmations: [...confirmations],
					requests: peer.requests.length,
					saved: messagesOf(peer.fileEntries()).map((m) =>
						m.role === "toolResult"
							? `toolResult ${JSON.parse(m.text)[0]?.text}`
							: `${m.role} ${m.stopReason ?? ""}`.trim(),
					),
				};
				confirmations.length = 0;
				return result;
			},
		);
		// pi 0.73.1 has it: the batch goes on after the abort — the second call is confirmed and run.
		expect(runs.pi).toEqual({
			prompt: "resolved",
			confirmations: ["confirm first", "confirm second", "second ran"],
			requests: 1,
			saved: [
				"user",
				"assistant toolUse",
				"toolResult Aborted by user",
				"toolResult second edited",
				"assistant aborted",
			],
		});
		// Settle: nothing of the batch runs after the abort; the blocked call is saved with the reason it
		// was blocked with (as pi saves it), the call after it with its aborted result.
		expect(runs.settle).toEqual({
			prompt: "resolved",
			confirmations: ["confirm first"],
			requests: 1,
			saved: [
				"user",
				"assistant toolUse",
				"toolResult Aborted by user",
				"toolResult Operation aborted",
				"assistant aborted",
			],
		});
	});
});

/** The UniPi#30 scenario's compaction outcomes, per peer. */
const compactOutcomes: string[] = [];
/** The pi#6162 / pi#2713 scenarios' extension API and context (one peer at a time). */
let midRunApi: ExtensionAPI | undefined;
let midRunCtx: { model: object | undefined } | undefined;
/** An extension that keeps its API and its session_start context in midRunApi / midRunCtx. */
const keepMidRunApiAndCtx = (api: ExtensionAPI) => {
	midRunApi = api;
	api.on("session_start", (_event, ctx) => {
		midRunCtx = ctx as never;
	});
};

describe("pi 0.73.1 against Settle: what changes while a run goes on", () => {
	it("pi#6162 / pi#4147: a tool activated with pi.setActiveTools() from a running tool — pi 0.73.1 leaves it out of the run's next request; Settle offers and runs it", async () => {
		const text = (value: string) => ({ content: [{ type: "text" as const, text: value }], details: {} });
		const runs = await onBothPeers(
			{
				customTools: [
					{
						name: "load_tools",
						label: "load_tools",
						description: "Activates the deploy tools",
						parameters: { type: "object", properties: {} },
						execute: async () => {
							midRunApi!.setActiveTools(["load_tools", "deploy"]);
							return text("deploy tools loaded");
						},
					},
					{
						name: "deploy",
						label: "deploy",
						description: "Deploys",
						parameters: { type: "object", properties: {} },
						execute: async () => text("deployed"),
					},
				],
				extensions: [
					(api: ExtensionAPI) => {
						midRunApi = api;
						api.on("session_start", () => api.setActiveTools(["load_tools"]));
					},
				],
			},
			async (peer) => {
				peer.script([
					{ toolCalls: [{ id: "call-load", name: "load_tools", args: {} }] },
					{ toolCalls: [{ id: "call-deploy", name: "deploy", args: {} }] },
					{ text: "done" },
				]);
				await peer.prompt("load the deploy tools, then deploy");
				await peer.quiesce();
				const results = peer.session.messages.flatMap((message) => {
					const m = message as { role: string; content: { type: string; text?: string }[] };
					return m.role === "toolResult" ? [m.content.map((part) => part.text ?? "").join("")] : [];
				});
				return { tools: peer.requests.map((request) => request.tools.join(",")), results };
			},
		);
		// pi 0.73.1 has it: the run keeps the tools it started with; the model's deploy call fails.
		expect(runs.pi).toEqual({
			tools: ["load_tools", "load_tools", "load_tools"],
			results: ["deploy tools loaded", "Tool deploy not found"],
		});
		expect(runs.settle).toEqual({
			tools: ["load_tools", "load_tools,deploy", "load_tools,deploy"],
			results: ["deploy tools loaded", "deployed"],
		});
	});

	it("pi#2713: a model picked while the answer streams, then a steer — pi 0.73.1 answers the steer on the old model; Settle on the new one", async () => {
		const runs = await onBothPeers(
			{
				reasoningModel: true,
				extensions: [keepMidRunApiAndCtx],
			},
			async (peer) => {
				const { streaming, release, answer } = heldFirstAnswer();
				peer.script([answer, { text: "steer answered" }]);
				const done = peer.prompt("first question");
				await streaming.promise;
				// Built from ctx.model: pi's test registry does not list faux models (pi-ai registers them).
				const reasoning = { ...midRunCtx!.model, id: "faux-2", name: "Faux Reasoning Model", reasoning: true };
				const switched = await midRunApi!.setModel(reasoning as never);
				await peer.session.steer("second question");
				release.release();
				await done;
				await peer.quiesce();
				const answeredBy = peer.session.messages.flatMap((message) => {
					const m = message as { role: string; model?: string };
					return m.role === "assistant" ? [m.model] : [];
				});
				return { switched, answeredBy, requests: peer.requests.length };
			},
		);
		// pi 0.73.1 has it: the run keeps the model it started with for the steer's request.
		expect(runs.pi).toEqual({ switched: true, answeredBy: ["faux-1", "faux-1"], requests: 2 });
		expect(runs.settle).toEqual({ switched: true, answeredBy: ["faux-1", "faux-2"], requests: 2 });
	});

	it("pi#8396: an auto-retried request — pi 0.73.1 keeps the superseded error in the saved branch, so the reopened context differs from the live one; Settle's equals it", async () => {
		const runs = await onBothPeers(
			{ settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } } },
			async (peer) => {
				peer.script([{ stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }, { text: "recovered" }]);
				await peer.prompt("hello");
				await peer.quiesce();
				const stops = (messages: readonly unknown[]) =>
					messages.flatMap((message) => {
						const m = message as { role: string; stopReason?: string };
						return m.role === "assistant" ? [m.stopReason] : [];
					});
				return {
					requests: peer.requests.length,
					live: stops(peer.session.messages),
					reopened: stops(peer.openContext(peer.session.sessionFile!)),
				};
			},
		);
		// pi 0.73.1 has it: the retried error is still on the saved branch.
		expect(runs.pi).toEqual({ requests: 2, live: ["stop"], reopened: ["error", "stop"] });
		expect(runs.settle).toEqual({ requests: 2, live: ["stop"], reopened: ["stop"] });
	});

	it("oh-my-pi#7755: a before_agent_start system prompt, the tools changed mid-run, then an auto-retry — pi 0.73.1 retries on the rebuilt base prompt; Settle keeps the operation's prompt to its end", async () => {
		const pirate = (api: ExtensionAPI) => {
			api.on("before_agent_start", (event) =>
				event.prompt.includes("pirate") ? { systemPrompt: "You are a pirate." } : undefined,
			);
			api.on("tool_result", () => {
				api.setActiveTools(["read", "echo"]);
				return undefined;
			});
		};
		const runs = await onBothPeers(
			{
				extensions: [pirate],
				customTools: programTools(),
				settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } },
			},
			async (peer) => {
				const prompts: string[] = [];
				const seen =
					(reply: ReplySpec): Step =>
					(request, _peer, _signal, context) => {
						prompts.push(`${context.systemPrompt === "You are a pirate." ? "pirate" : "base"}, tools ${request.tools}`);
						return reply;
					};
				peer.script([
					seen({ toolCalls: [{ id: "call-1", name: "echo", args: { text: "ahoy" } }] }),
					seen({ stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }),
					seen({ text: "arr" }),
					seen({ text: "plain answer" }),
				]);
				await peer.prompt("talk like a pirate");
				await peer.quiesce();
				await peer.prompt("plain again");
				await peer.quiesce();
				return prompts;
			},
		);
		// pi 0.73.1 has it: setActiveTools writes the rebuilt base prompt over the override, which the
		// run's own requests do not see, but the retry (a new run of the same prompt) does.
		const all = "read,bash,edit,write,echo,fail";
		expect(runs.pi).toEqual([
			`pirate, tools ${all}`,
			`pirate, tools ${all}`,
			"base, tools read,echo",
			"base, tools read,echo",
		]);
		// Settle applies the tools from the next request (behavior F.1 step 6) and the prompt to the operation's end.
		expect(runs.settle).toEqual([
			`pirate, tools ${all}`,
			"pirate, tools read,echo",
			"pirate, tools read,echo",
			"base, tools read,echo",
		]);
	});

	it("thinkrail#460: a steer and a follow-up that are only an image, sent while the answer streams — pi 0.73.1 delivers both but keeps them listed for good; Settle empties its lists", async () => {
		const screenshot = {
			type: "image",
			data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
			mimeType: "image/png",
		};
		const runs = await onBothPeers({}, async (peer) => {
			const { streaming, release, answer } = heldFirstAnswer();
			peer.script([answer, { text: "steer answered" }, { text: "follow-up answered" }]);
			const done = peer.prompt("fix the layout");
			await streaming.promise;
			const session = peer.session as unknown as {
				steer(text: string, images: unknown[]): Promise<void>;
				followUp(text: string, images: unknown[]): Promise<void>;
				getFollowUpMessages(): readonly string[];
				readonly pendingMessageCount: number;
			};
			await session.steer("", [screenshot]);
			await session.followUp("", [screenshot]);
			release.release();
			await done;
			await peer.quiesce();
			return {
				requests: peer.requests.length,
				steering: [...peer.session.getSteeringMessages()],
				followUp: [...session.getFollowUpMessages()],
				pending: session.pendingMessageCount,
			};
		});
		// pi 0.73.1 has it: a delivered message leaves the lists by its text, and an empty text is skipped.
		expect(runs.pi).toEqual({ requests: 3, steering: [""], followUp: [""], pending: 2 });
		expect(runs.settle).toEqual({ requests: 3, steering: [], followUp: [], pending: 0 });
	});

	it("pi#6462: a model picked during an auto-retry's backoff — both send the retry to the picked model (the report asked for the retry to be cancelled)", async () => {
		const runs = await onBothPeers(
			{
				reasoningModel: true,
				settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } },
				extensions: [keepMidRunApiAndCtx],
			},
			async (peer) => {
				peer.script([{ stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }, { text: "answered" }]);
				let switched: Promise<boolean> | undefined;
				peer.session.subscribe((event: AnyEvent) => {
					if (event.type !== "auto_retry_start") return;
					const reasoning = { ...midRunCtx!.model, id: "faux-2", name: "Faux Reasoning Model", reasoning: true };
					switched = midRunApi!.setModel(reasoning as never);
				});
				await peer.prompt("hello");
				await peer.quiesce();
				const answeredBy = peer.session.messages.flatMap((message) => {
					const m = message as { role: string; model?: string };
					return m.role === "assistant" ? [m.model] : [];
				});
				return { switched: await switched, answeredBy, requests: peer.requests.length };
			},
		);
		expect(runs.pi).toEqual({ switched: true, answeredBy: ["faux-2"], requests: 2 });
		expect(runs.settle).toEqual({ switched: true, answeredBy: ["faux-2"], requests: 2 });
	});

	it("UniPi#30: ctx.compact() from turn_end — pi 0.73.1 aborts the run, losing the turn after the tool result; Settle answers it and compacts afterwards", async () => {
		const runs = await onBothPeers(
			(name) => ({
				settings: { compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 10 } },
				customTools: [
					{
						name: "read_notes",
						label: "read_notes",
						description: "Reads the notes",
						parameters: { type: "object", properties: {} },
						execute: async () => ({ content: [{ type: "text", text: `notes ${"words ".repeat(40)}` }], details: {} }),
					},
				],
				extensions: [
					(api: ExtensionAPI) => {
						let asked = false;
						api.on("turn_end", (_event, ctx) => {
							if (asked) return;
							asked = true;
							ctx.compact({
								onComplete: () => compactOutcomes.push(`${name}: compacted`),
								onError: (error) => compactOutcomes.push(`${name}: ${error.message}`),
							});
						});
					},
				],
			}),
			async (peer) => {
				peer.script([
					{ toolCalls: [{ id: "call-notes", name: "read_notes", args: {} }] },
					{ text: `The notes say ${"things ".repeat(40)}` },
					{ text: "## Goal\nsummary" },
					{ text: "## Goal\nturn prefix" },
				]);
				await peer.prompt(`summarize my notes ${"please ".repeat(40)}`);
				await peer.quiesce();
				for (let i = 0; i < 200 && !compactOutcomes.some((o) => o.startsWith(`${peer.name}:`)); i++) {
					await new Promise<void>((resolve) => setTimeout(resolve, 5));
				}
				await peer.quiesce();
				const saved = peer.fileEntries().flatMap((entry) => {
					const message = entry.message as { role: string; stopReason?: string } | undefined;
					if (entry.type === "compaction") return ["compaction"];
					if (entry.type !== "message" || !message || message.role === "system") return [];
					return [message.role === "assistant" ? `assistant ${message.stopReason}` : message.role];
				});
				return {
					outcome: compactOutcomes.filter((o) => o.startsWith(`${peer.name}:`)),
					answerRequests: peer.requests.filter((request) => request.system !== "summarizer").length,
					saved,
				};
			},
		);
		// pi 0.73.1 has it: compact() aborts the run; the model is never asked again after the tool
		// result, and the file goes from that result straight to the compaction.
		expect(runs.pi).toEqual({
			outcome: ["pi: compacted"],
			answerRequests: 1,
			saved: ["user", "assistant toolUse", "toolResult", "compaction"],
		});
		expect(runs.settle).toEqual({
			outcome: ["settle: compacted"],
			answerRequests: 2,
			saved: ["user", "assistant toolUse", "toolResult", "assistant stop", "compaction"],
		});
	});
});

describe("pi 0.73.1 against Settle: a message an extension sends from session_start, then -p", () => {
	it("oh-my-pi#1372: `-p` with an extension that sends a follow-up from session_start — pi 0.73.1 refuses the task (Agent is already processing) and exits 1; settle runs the reminder, then the task", async () => {
		const root = tempDir("settle-omp1372-peer-");
		const dirs = makeDiffDirs(root);
		const extension = join(root, "kickoff.mjs");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("session_start", () => {
		pi.sendUserMessage("Reminder: follow the house rules.", { deliverAs: "followUp" });
	});
}
`,
		);
		const args = ["--no-session", "-e", extension, "-p", "Say exactly: task done"];
		const [piRun, settleRun] = await Promise.all([runPiCli(dirs, args), runSettleCli(dirs, args)]);
		const outcome = (run: { code: number | null; stdout: string; stderr: string }) => ({
			code: run.code,
			stdout: run.stdout,
			refused: run.stderr.includes("Agent is already processing"),
		});
		// pi 0.73.1 has it: the task prompt is refused while the reminder's run goes on.
		expect(outcome(piRun)).toEqual({ code: 1, stdout: "", refused: true });
		expect(outcome(settleRun)).toEqual({ code: 0, stdout: "Say exactly: task done\n", refused: false });
	});
});

/** What the pi#2860 scenario's command heard from the captured pi (one peer at a time). */
const staleSends: string[] = [];

describe("pi 0.73.1 against Settle: pi.sendUserMessage() after ctx.newSession() in a command", () => {
	it("pi#2860: the captured pi is refused with the stale-context error on both, nothing sent; through withSession both run the kickoff in the new session", async () => {
		const KICKOFF = "Hello from the new session!";
		const runs = await onBothRuntimes(
			() => ({
				customTools: [],
				extensions: [
					(api: ExtensionAPI) => {
						api.registerCommand("repro", {
							description: "newSession, then the captured pi",
							handler: async (_args, ctx) => {
								const child = await ctx.newSession({ parentSession: ctx.sessionManager.getSessionFile() });
								if (child.cancelled) return;
								try {
									await api.sendUserMessage(KICKOFF);
									staleSends.push("sent");
								} catch (error) {
									staleSends.push((error as Error).message.split(".")[0]!);
								}
							},
						});
						api.registerCommand("kickoff", {
							description: "newSession with the kickoff in withSession",
							handler: async (_args, ctx) => {
								await ctx.newSession({
									parentSession: ctx.sessionManager.getSessionFile(),
									withSession: async (fresh) => {
										await fresh.sendUserMessage(KICKOFF);
									},
								});
							},
						});
					},
				],
			}),
			async (peer) => {
				staleSends.splice(0);
				peer.script([{ text: "controller ready" }, { text: "kicked off" }]);
				await peer.session.prompt("controller");
				await peer.quiesce();
				await peer.session.prompt("/repro");
				await peer.quiesce();
				const afterRepro = peer.requests.length;
				await peer.session.prompt("/kickoff");
				await peer.quiesce();
				const userTexts = (file: string) =>
					peer.fileEntries(file).flatMap((entry) => {
						const message = entry.message as { role: string; content: unknown } | undefined;
						if (entry.type !== "message" || message?.role !== "user") return [];
						const content = message.content as string | { type: string; text?: string }[];
						return [typeof content === "string" ? content : content.map((part) => part.text ?? "").join("")];
					});
				return {
					heard: [...staleSends],
					requestsAfterRepro: afterRepro,
					requests: peer.requests.length,
					files: peer
						.sessionFiles()
						.map(userTexts)
						.sort((a, b) => a.length - b.length || a.join().localeCompare(b.join())),
				};
			},
		);
		const expected = {
			heard: ["This extension ctx is stale after session replacement or reload"],
			requestsAfterRepro: 1,
			requests: 2,
			// The controller's file, and the kickoff's (the file /repro made holds nothing).
			files: [["controller"], [KICKOFF]],
		};
		expect(runs.pi).toEqual(expected);
		expect(runs.settle).toEqual(expected);
	});
});

describe("pi 0.73.1 against Settle: a session file deleted while -p runs", () => {
	it("pi#8939: `-p --session <file>`, the file deleted by the run's command — pi 0.73.1 exits 0 and writes the rest of the run into a new file without a header, which its next run silently replaces; settle exits 1 saying so and writes nothing", async () => {
		const root = tempDir("settle-pi8939-peer-");
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			(["pi", "settle"] as const).map(async (name) => {
				const dirs = makeDiffDirs(join(root, name));
				const file = join(dirs.project, "run.jsonl");
				const script = join(root, `${name}-script.json`);
				writeFileSync(
					script,
					JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: `rm ${file}` } }] }, "the file is gone"]),
				);
				const run = name === "pi" ? runPiCli : runSettleCli;
				const first = await run(dirs, ["-p", "--session", file, "delete the session file"], { script });
				const firstLine = existsSync(file) ? JSON.parse(readFileSync(file, "utf8").split("\n")[0]!).type : undefined;
				const next = await run(dirs, ["-p", "--session", file, "start again"]);
				runs[name] = {
					code: first.code,
					stdout: first.stdout,
					firstLine,
					nextCode: next.code,
					// What the next run left of the first one's answer on disk.
					answerKept: readFileSync(file, "utf8").includes("the file is gone"),
					nextHeader: JSON.parse(readFileSync(file, "utf8").split("\n")[0]!).type,
				};
			}),
		);
		// pi 0.73.1 has it: a silent success and a headerless file, which the next run silently
		// replaces with a new session (the first run's answer gone from disk).
		expect(runs.pi).toEqual({
			code: 0,
			stdout: "the file is gone\n",
			firstLine: "message",
			nextCode: 0,
			answerKept: false,
			nextHeader: "session",
		});
		expect(runs.settle).toEqual({
			code: 1,
			stdout: "",
			firstLine: undefined,
			nextCode: 0,
			answerKept: false,
			nextHeader: "session",
		});
	});
});

describe("pi 0.73.1 against Settle: an auto-retry seen over RPC", () => {
	it("pi#4314 / pi#4716: a retryable error, then the answer — pi 0.73.1's first agent_end says nothing of the retry to come and no event marks the end; Settle's says willRetry and one agent_settled ends it", async () => {
		const dir = tempDir("settle-pi4314-peer-");
		const peers = startPeers(dir, [
			{ stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" },
			"recovered",
		]);
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			[peers.pi, peers.settle].map(async (peer) => {
				const client = killedAfterTest(peer.client);
				const recovered = client.next(
					(line) =>
						line.type === peer.endEvent &&
						(peer.endEvent === "agent_settled" || JSON.stringify(line).includes("recovered")),
				);
				await client.request({ id: "1", type: "prompt", message: "hello" });
				await recovered;
				// Whatever else the server has to say about the run, read before it is stopped.
				await client.request({ id: "2", type: "get_state" });
				runs[peer.name] = client.lines.flatMap((line) => {
					if (line.type === "agent_end") return [`agent_end willRetry=${line.willRetry}`];
					return line.type === "auto_retry_start" || line.type === "agent_settled" ? [line.type] : [];
				});
				await stopRpc(client);
			}),
		);
		// pi 0.73.1 has it: two agent_end events alike, the first one followed by a retry.
		expect(runs.pi).toEqual(["agent_end willRetry=undefined", "auto_retry_start", "agent_end willRetry=undefined"]);
		expect(runs.settle).toEqual([
			"agent_end willRetry=true",
			"auto_retry_start",
			"agent_end willRetry=false",
			"agent_settled",
		]);
	});
});

describe("pi 0.73.1 against Settle: a steer an extension sends from the context event", () => {
	it("pi#9322: pi.sendMessage(…, { deliverAs: 'steer' }) once from context while the model keeps calling tools — both save it once and send it once in every later request (the report is against a later pi)", async () => {
		const runs = await onBothPeers(
			() => {
				let contexts = 0;
				return {
					customTools: [
						{
							name: "step",
							label: "step",
							description: "one step of the work",
							parameters: { type: "object", properties: {} },
							execute: async () => ({ content: [{ type: "text" as const, text: "stepped" }], details: {} }),
						},
					],
					extensions: [
						(api: ExtensionAPI) => {
							// The report's extension: one reminder, injected from the second request's context.
							api.on("context", () => {
								if (++contexts !== 2) return;
								void api.sendMessage(
									{ customType: "reminder", content: "remember the rule", display: true, details: { rel: 1 } },
									{ deliverAs: "steer" },
								);
							});
						},
					],
				};
			},
			async (peer) => {
				const call = (id: string) => ({ id, name: "step", args: {} });
				peer.script([
					{ toolCalls: [call("c1"), call("c2")] },
					{ toolCalls: [call("c3"), call("c4")] },
					{ toolCalls: [call("c5")] },
					{ text: "done" },
				]);
				await peer.prompt("work through the steps");
				await peer.quiesce();
				return {
					saved: peer.fileEntries().filter((entry) => entry.type === "custom_message").length,
					perRequest: peer.requests.map(
						(request) => request.messages.filter((message) => message.includes("remember the rule")).length,
					),
				};
			},
		);
		const once = { saved: 1, perRequest: [0, 0, 1, 1] };
		expect(runs).toEqual({ pi: once, settle: once });
	});
});

describe("pi 0.73.1 against Settle: a session_shutdown handler that never settles", () => {
	it("senpi#1732: /new with a session_shutdown handler whose promise never settles — pi 0.73.1's newSession() never returns, the handlers after it never run, and the old session stays (pi alone: Settle's side needs its simulated clock, in switching.test.ts)", async () => {
		const heard: string[] = [];
		const peer = await createRuntimePeer("pi", {
			customTools: [],
			extensions: [
				(api) => {
					api.on("session_shutdown", (event) => {
						heard.push(`stuck ${event.reason}`);
						return new Promise<never>(() => {});
					});
				},
				(api) => {
					api.on("session_shutdown", (event) => void heard.push(`cleanup ${event.reason}`));
				},
			],
		});
		// Not disposed: pi's dispose() would wait on the same handler for good.
		cleanups.push(() => rmSync(peer.dirs.root, { recursive: true, force: true }));
		peer.script([{ text: "hello back" }]);
		await peer.session.prompt("hello");
		const oldFile = peer.session.sessionFile;
		const replaced = await stillPending(outcomeOf(peer.runtime.newSession()));
		expect({ replaced, heard, sameSession: peer.session.sessionFile === oldFile }).toEqual({
			replaced: "pending",
			heard: ["stuck new"],
			sameSession: true,
		});
	});
});

describe("pi 0.73.1 against Settle: a compaction entry written mid-pair, kept by a later one", () => {
	it("pi#8667: continuing the report's file — both send the call followed at once by its result and only the latest summary (the report is against a later pi)", async () => {
		const copyFor = reportFileForEachPeer("settle-pi8667-peer-", writeStaleCompactionSessionFile);
		const runs = await onBothPeers(
			(name) => ({ openFile: copyFor(name) }),
			async (peer) => {
				peer.script([{ text: "Continuing." }]);
				await peer.prompt("what next?");
				await peer.quiesce();
				const sent = peer.requests[0]!.messages;
				const callAt = sent.findIndex((message) => message.startsWith("assistant: [call bash"));
				return {
					afterCall: sent[callAt + 1],
					staleSent: sent.some((message) => message.includes(STALE_SUMMARY_TEXT)),
					summaries: sent.filter((message) => message.includes("<summary>")).length,
				};
			},
		);
		const held = { afterCall: "toolResult bash: build finished", staleSent: false, summaries: 1 };
		expect(runs).toEqual({ pi: held, settle: held });
	});
});

/** The oh-my-pi#10311 scenario's extension API (one peer at a time). */
let nextTurnApi: ExtensionAPI | undefined;

describe("pi 0.73.1 against Settle: a nextTurn message sent while the answer streams", () => {
	it("oh-my-pi#10311: pi.sendMessage(…, { deliverAs: 'nextTurn' }) from a running tool, and again on the idle session — both keep the two alike in memory, unsaved, until the next prompt carries them once and saves them", async () => {
		const job = (text: string) => ({ customType: "job", content: text, display: true });
		const runs = await onBothPeers(
			{
				customTools: [
					{
						name: "start_job",
						label: "start_job",
						description: "starts a background job",
						parameters: { type: "object", properties: {} },
						execute: async () => {
							// The report's background-job completion, landing while the turn streams.
							await nextTurnApi!.sendMessage(job("job 1 finished"), { deliverAs: "nextTurn" });
							return { content: [{ type: "text" as const, text: "job started" }], details: {} };
						},
					},
				],
				extensions: [
					(api: ExtensionAPI) => {
						nextTurnApi = api;
					},
				],
			},
			async (peer) => {
				peer.script([
					{ toolCalls: [{ id: "call-job", name: "start_job", args: {} }] },
					{ text: "started" },
					{ text: "noted both" },
				]);
				const saved = () => peer.fileEntries().filter((entry) => entry.type === "custom_message").length;
				await peer.prompt("start the job");
				await peer.quiesce();
				// The same message on the idle session: handled the same way.
				await nextTurnApi!.sendMessage(job("job 2 finished"), { deliverAs: "nextTurn" });
				const savedBefore = saved();
				await peer.prompt("what happened?");
				await peer.quiesce();
				const last = peer.requests.at(-1)!.messages;
				return {
					savedBefore,
					requestsBefore: peer.requests.slice(0, 2).map((r) => r.messages.filter((m) => m.includes("finished")).length),
					lastRequestTail: last.slice(-3),
					savedAfter: saved(),
				};
			},
		);
		// Nothing saved or sent until the next prompt, which carries both after its own text, once.
		const alike = {
			savedBefore: 0,
			requestsBefore: [0, 0],
			lastRequestTail: ["user: what happened?", "user: job 1 finished", "user: job 2 finished"],
			savedAfter: 2,
		};
		expect(runs).toEqual({ pi: alike, settle: alike });
	});
});

describe("pi 0.73.1 against Settle: a turn cut off by a full context", () => {
	it("pi#3612 / pi#7020: a tool loop's answer stopped by length with no output near the window — pi 0.73.1 compacts at the threshold and stops (willRetry false), the work unfinished; Settle compacts for the overflow and continues the turn", async () => {
		const runs = await onBothPeers(
			{
				contextWindow: 8000,
				settings: { compaction: { enabled: true, reserveTokens: 2000, keepRecentTokens: 1 } },
				customTools: [
					{
						name: "read_part",
						label: "read_part",
						description: "reads one part of the codebase",
						parameters: { type: "object", properties: {} },
						execute: async () => ({ content: [{ type: "text" as const, text: "x".repeat(20_000) }], details: {} }),
					},
				],
			},
			async (peer) => {
				peer.script([
					{ toolCalls: [{ id: "c1", name: "read_part", args: {} }] },
					{ stopReason: "length" },
					// The summarizer's answer, then the continued turn's.
					{ text: "## Goal\nsummarize the architecture for poets" },
					{ text: "the poem about the architecture" },
				]);
				await peer.prompt("summarize the architecture for poets");
				await peer.quiesce();
				const compactions = peer.recorded.flatMap((record) =>
					record.kind === "event" && record.event.type === "compaction_end"
						? [`${record.event.reason} willRetry=${record.event.willRetry}`]
						: [],
				);
				const answers = peer.session.messages.flatMap((message) => {
					const m = message as { role: string; stopReason?: string };
					return m.role === "assistant" ? [m.stopReason] : [];
				});
				return {
					firstCompaction: compactions[0],
					answers,
					agentRequests: peer.requests.filter((r) => r.system === "agent").length,
				};
			},
		);
		// pi 0.73.1 has it: the empty length answer is where the session stops.
		expect(runs.pi).toEqual({ firstCompaction: "threshold willRetry=false", answers: ["length"], agentRequests: 2 });
		expect(runs.settle).toEqual({
			firstCompaction: "overflow willRetry=true",
			answers: ["toolUse", "stop"],
			agentRequests: 3,
		});
	});
});

describe("pi 0.73.1 against Settle: a prompt while a compaction runs, over RPC", () => {
	it("pi#7150: over RPC, `compact` and then a `prompt` in one write — pi 0.73.1 answers the prompt success: true and then drops it (no run, in neither get_messages nor the file); Settle refuses it saying to retry", async () => {
		const dir = tempDir("settle-pi7150-peer-");
		// Both faux models echo the last user message (the summary too); keepRecentTokens: 1 (startPeers).
		const peers = startPeers(dir, []);
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			[peers.pi, peers.settle].map(async (peer) => {
				const client = killedAfterTest(peer.client);
				for (const [id, message] of [
					["p1", "first question"],
					["p2", "second question"],
				]) {
					const ended = client.next((line) => line.type === peer.endEvent);
					await client.request({ id, type: "prompt", message });
					await ended;
				}
				const compacted = client.next((line) => line.type === "response" && line.id === "c");
				const prompted = client.next((line) => line.type === "response" && line.id === "p3");
				// Both lines in one write: the prompt is read while the compaction summarizes.
				client.child.stdin.write(
					`${JSON.stringify({ id: "c", type: "compact" })}\n${JSON.stringify({ id: "p3", type: "prompt", message: "probe while compacting" })}\n`,
				);
				const prompt = await prompted;
				await compacted;
				const afterCompact = client.lines.length;
				// Whatever the server still has to say, read before it is asked.
				const state = (await client.request({ id: "s", type: "get_state" })) as {
					data: { sessionFile: string; isStreaming: boolean };
				};
				const messages = await client.request({ id: "m", type: "get_messages" });
				const kinds = client.lines.map((line) => (line.type === "response" ? `response ${line.id}` : line.type));
				runs[peer.name] = {
					prompt: prompt.success ? "accepted" : String(prompt.error).split(".")[0],
					answeredDuringCompaction:
						kinds.indexOf("compaction_start") < kinds.indexOf("response p3") &&
						kinds.indexOf("response p3") < kinds.indexOf("compaction_end"),
					ran: client.lines.slice(afterCompact).some((line) => line.type === "agent_start"),
					streaming: state.data.isStreaming,
					inMessages: JSON.stringify(messages).includes("probe while compacting"),
					inFile: readFileSync(state.data.sessionFile, "utf8").includes("probe while compacting"),
				};
				await stopRpc(client);
			}),
		);
		const lost = { ran: false, streaming: false, inMessages: false, inFile: false, answeredDuringCompaction: true };
		expect(runs).toEqual({
			pi: { prompt: "accepted", ...lost },
			settle: { prompt: "Cannot submit a prompt while compaction is in progress", ...lost },
		});
	});
});

describe("pi 0.73.1 against Settle: a file without an answer yet, reopened and continued", () => {
	it("pi#3930: a session file whose user message has no answer, opened, a model_change, then the first assistant message — pi 0.73.1 writes the header and the old entries a second time (duplicate ids); Settle writes each entry once", () => {
		const dir = tempDir("settle-pi3930-peer-");
		const question = { role: "user", content: [{ type: "text", text: "old question" }], timestamp: 1 };
		const header = { type: "session", version: 3, id: "0199ffff-0000-7000-8000-000000000003", cwd: dir };
		const timestamp = "2026-04-29T10:00:00.000Z";
		const lines = [
			{ ...header, timestamp },
			{ type: "message", id: "u1", parentId: null, timestamp, message: question },
		];
		const answer = {
			role: "assistant",
			content: [{ type: "text", text: "the first answer" }],
			api: "faux",
			provider: "faux",
			model: "faux-1",
			usage: {
				input: 1,
				output: 1,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 2,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "stop",
			timestamp: 2,
		};
		const shapes: Record<string, unknown> = {};
		const managers = {
			pi: (file: string) => pi.SessionManager.open(file, dir),
			settle: (file: string) => SessionManager.open(file, dir),
		};
		for (const [name, open] of Object.entries(managers)) {
			const file = join(dir, `${name}.jsonl`);
			writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
			const manager = open(file);
			manager.appendModelChange("faux", "faux-2");
			manager.appendMessage(answer as never);
			const entries = readEntries(file);
			const ids = entries.filter((entry) => entry.type !== "session").map((entry) => entry.id as string);
			shapes[name] = {
				headers: entries.filter((entry) => entry.type === "session").length,
				duplicated: [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))].length,
				entries: entries.length,
			};
			if ("close" in manager && typeof manager.close === "function") manager.close();
		}
		// pi 0.73.1 writes everything it holds on the first answer: the header and the question a second time.
		expect(shapes.pi).toEqual({ headers: 2, duplicated: 1, entries: 6 });
		expect(shapes.settle).toEqual({ headers: 1, duplicated: 0, entries: 4 });
	});
});

describe("pi 0.73.1 against Settle: session events over RPC when the session is replaced", () => {
	it("pi-lens#2890: over RPC, new_session, switch_session, fork and clone — pi 0.73.1 gives an extension two session_start events for each new session; Settle one, after the old session's one session_shutdown", async () => {
		const dir = tempDir("settle-pilens2890-peer-");
		const logs = { pi: join(dir, "pi.log"), settle: join(dir, "settle.log") };
		const runs: Record<string, unknown> = {};
		// Both peers at once: separate processes and folders, nothing shared but the test's records.
		await Promise.all(
			(["pi", "settle"] as const).map(async (name) => {
				writeFileSync(logs[name], "");
				const extension = join(dir, `${name}-lifecycle.mjs`);
				writeFileSync(extension, LIFECYCLE_LOG(logs[name]));
				const peer = startPeer(name, join(dir, name), [], undefined, [extension]);
				const client = killedAfterTest(peer.client);
				let id = 0;
				const request = (command: Record<string, unknown>) => client.request({ id: String(++id), ...command });
				const sessionFile = async () =>
					((await request({ type: "get_state" })) as { data: { sessionFile: string } }).data.sessionFile;
				const ask = async (message: string) => {
					const ended = client.next((line) => line.type === peer.endEvent);
					await request({ type: "prompt", message });
					await ended;
				};
				await ask("hello");
				const first = await sessionFile();
				await request({ type: "new_session" });
				const second = await sessionFile();
				await ask("in the second session");
				await request({ type: "switch_session", sessionPath: first });
				const forkable = (await request({ type: "get_fork_messages" })) as {
					data: { messages: { entryId: string }[] };
				};
				await request({ type: "fork", entryId: forkable.data.messages[0]!.entryId });
				const forked = await sessionFile();
				await ask("in the fork");
				await request({ type: "clone" });
				const cloned = await sessionFile();
				// Read after one more round trip: every handler of the last replacement has logged.
				await request({ type: "get_state" });
				const names = new Map([first, second, forked, cloned].map((file, index) => [basename(file), `#${index + 1}`]));
				runs[name] = readFileSync(logs[name], "utf8")
					.split("\n")
					.filter(Boolean)
					.map((line) => line.replace(/\S+\.jsonl$/, (file) => names.get(file) ?? "(another file)"));
				await stopRpc(client);
			}),
		);
		const once = [
			"start startup #1",
			"shutdown new #1",
			"start new #2",
			"shutdown resume #2",
			"start resume #1",
			"shutdown fork #1",
			"start fork #3",
			"shutdown fork #3",
			"start fork #4",
		];
		expect(runs.settle).toEqual(once);
		// pi 0.73.1 has it: a second session_start for every new, resumed or forked session. (The
		// "start startup (another file)" pinned here before came from a Settle peer this test started
		// beside pi's and never used, loading pi's log extension; pi starts up once.)
		expect(runs.pi).toEqual([
			"start startup #1",
			"shutdown new #1",
			"start new #2",
			"start new #2",
			"shutdown resume #2",
			"start resume #1",
			"start resume #1",
			"shutdown fork #1",
			"start fork #3",
			"start fork #3",
			"shutdown fork #3",
			"start fork #4",
			"start fork #4",
		]);
	});
});

describe("pi 0.73.1 against Settle: a command that waits for its own ctx.compact()", () => {
	it("an extension command awaiting ctx.compact()'s onComplete (found replaying pi#7154) — pi 0.73.1 compacts at once and the command goes on; Settle hung until this test, now the same", async () => {
		const runs = await onBothPeers(
			() => ({
				settings: { compaction: { keepRecentTokens: 10 } },
				extensions: [
					(api) => {
						api.registerCommand("compact-now", {
							description: "compacts and reports",
							handler: async (_args, ctx) => {
								const outcome = await new Promise<string>((resolve) => {
									ctx.compact({ onComplete: () => resolve("completed"), onError: (error) => resolve(error.message) });
								});
								api.sendMessage({ customType: "report", content: `compaction ${outcome}`, display: true });
							},
						});
					},
				],
			}),
			async (peer) => {
				peer.script(Array.from({ length: 8 }, () => answerer));
				for (const text of ["one", "two"]) await peer.session.prompt(`question ${text} `.repeat(20));
				let settled = false;
				const command = outcomeOf(peer.session.prompt("/compact-now")).then((outcome) => {
					settled = true;
					return outcome;
				});
				for (let turn = 0; turn < 2000 && !settled; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
				if (!settled) return { command: "never resolved" };
				await peer.quiesce();
				return {
					command: await command,
					saved: peer
						.fileEntries()
						.map((entry) => entry.type)
						.filter((type) => type === "compaction" || type === "custom_message"),
				};
			},
		);
		const expected = { command: "resolved", saved: ["compaction", "custom_message"] };
		expect(runs.pi).toEqual(expected);
		expect(runs.settle).toEqual(expected);
	});
});

describe("pi 0.73.1 against Settle: two compactions with the same summary text", () => {
	it("pi-continue#34 / openclaw#127436: an extension writes the same summary for two manual compactions — pi 0.73.1's second session_compact names the first entry (its id and details); Settle's names the one just written", async () => {
		const heard: { id: string; continuation: unknown }[] = [];
		const runs = await onBothPeers(
			() => ({
				settings: { compaction: { keepRecentTokens: 10 } },
				extensions: [
					(api) => {
						let written = 0;
						api.on("session_before_compact", (event) => ({
							compaction: {
								summary: "## Checkpoint\nNothing new.",
								firstKeptEntryId: event.preparation.firstKeptEntryId,
								tokensBefore: event.preparation.tokensBefore,
								details: { continuationEventId: `continue-${++written}` },
							},
						}));
						api.on("session_compact", (event) => {
							const details = event.compactionEntry.details as { continuationEventId?: string };
							heard.push({ id: event.compactionEntry.id, continuation: details.continuationEventId });
						});
					},
				],
			}),
			async (peer) => {
				heard.length = 0;
				peer.script(Array.from({ length: 8 }, () => answerer));
				for (const text of ["one", "two"]) await peer.session.prompt(`question ${text} `.repeat(20));
				await peer.session.compact();
				await peer.session.prompt(`question three ${"more ".repeat(20)}`);
				await peer.session.compact();
				await peer.quiesce();
				const saved = peer
					.fileEntries()
					.filter((entry) => entry.type === "compaction")
					.map((entry) => entry.id as string);
				return {
					saved: saved.length,
					heard: heard.map((event) => ({
						entry: saved.indexOf(event.id),
						continuation: event.continuation,
					})),
				};
			},
		);
		expect(runs.pi).toEqual({
			saved: 2,
			heard: [
				{ entry: 0, continuation: "continue-1" },
				{ entry: 0, continuation: "continue-1" },
			],
		});
		expect(runs.settle).toEqual({
			saved: 2,
			heard: [
				{ entry: 0, continuation: "continue-1" },
				{ entry: 1, continuation: "continue-2" },
			],
		});
	});
});

describe("pi 0.73.1 against Settle: an in-memory fork while a tool runs", () => {
	it("pi#8724: no session file, a tool running, fork() before the first user message — pi 0.73.1's fork leaves the old run going (its result reaches no session) and the fork is empty (the report is against a later pi, whose fork aborts the run after switching the manager); Settle ends the run first, the fork is empty", async () => {
		const toolStarted: ReturnType<typeof gate>[] = [];
		const waitForCi: SharedTool = {
			name: "wait_for_ci",
			label: "wait_for_ci",
			description: "waits for the CI run to finish",
			parameters: { type: "object", properties: {} },
			execute: (_id, _params, signal) =>
				new Promise((resolve) => {
					toolStarted.at(-1)!.release();
					const done = () => resolve({ content: [{ type: "text", text: "CI wait stopped" }], details: {} });
					if (!signal || signal.aborted) done();
					else signal.addEventListener("abort", done, { once: true });
				}),
		};
		const runs = await onBothRuntimes(
			() => ({ customTools: [waitForCi], extensions: [], inMemory: true }),
			async (peer) => {
				toolStarted.push(gate());
				peer.script([
					{ text: "the first answer" },
					{ toolCalls: [{ id: "call-ci", name: "wait_for_ci", args: {} }] },
					...Array.from({ length: 4 }, () => answerer),
				]);
				await peer.session.prompt("first question");
				const running = outcomeOf(peer.session.prompt("wait for CI"));
				await toolStarted.at(-1)!.promise;
				const firstUser = peer.session.sessionManager
					.getEntries()
					.find((entry) => entry.type === "message" && (entry.message as { role: string }).role === "user")!;
				const old = peer.session;
				let runEnded = false;
				void running.then(() => {
					runEnded = true;
				});
				await peer.runtime.fork(String(firstUser.id));
				for (let turn = 0; turn < 200 && !runEnded; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
				const forkEndedTheRun = runEnded;
				// What a host does about a run the fork left going: abort it (Settle's has ended already).
				if (!runEnded) await old.abort();
				await running;
				await peer.quiesce();
				const forkRoles = (peer.session.sessionManager.buildSessionContext().messages as { role: string }[])
					.map((message) => message.role)
					.filter((role) => role !== "system");
				await peer.session.prompt("first question, rephrased");
				await peer.quiesce();
				return {
					forkEndedTheRun,
					forkRoles,
					nextRequestStartsWith: peer.requests.at(-1)!.messages[0]!.split(":")[0],
					sessionFiles: peer.sessionFiles().length,
				};
			},
		);
		expect(runs.pi).toEqual({ forkEndedTheRun: false, forkRoles: [], nextRequestStartsWith: "user", sessionFiles: 0 });
		expect(runs.settle).toEqual({
			forkEndedTheRun: true,
			forkRoles: [],
			nextRequestStartsWith: "user",
			sessionFiles: 0,
		});
	});
});

describe("pi 0.73.1 against Settle: reload() after bindExtensions({})", () => {
	it("pi#8832: a session bound without callbacks (bindExtensions({})) reloads — pi 0.73.1 shuts the old extensions down but never starts the new ones (no session_start, no resources_discover); Settle starts them", async () => {
		const log: string[] = [];
		const runs = await onBothPeers(
			() => ({
				extensions: [
					(api) => {
						api.on("session_start", (event) => void log.push(`start:${event.reason}`));
						api.on("session_shutdown", (event) => void log.push(`shutdown:${event.reason}`));
						api.on("resources_discover", (event) => {
							log.push(`discover:${event.reason}`);
							return undefined;
						});
					},
				],
			}),
			async (peer) => {
				log.length = 0;
				await (peer.session as unknown as { reload(): Promise<void> }).reload();
				return [...log];
			},
		);
		expect(runs.pi).toEqual(["shutdown:reload"]);
		expect(runs.settle).toEqual(["shutdown:reload", "start:reload", "discover:reload"]);
	});
});

describe("pi 0.73.1 against Settle: a compaction an extension starts mid-run, then -p", () => {
	it("pi-extensions#31: `-p` with an extension that aborts from turn_end, compacts and continues from onComplete — what runs before the process exits", async () => {
		const root = tempDir("settle-pix31-peer-");
		const dirs = makeDiffDirs(root);
		// Small enough to compact the one exchange the run has.
		for (const agentDir of [dirs.piAgent, dirs.settleAgent]) {
			const settingsFile = join(agentDir, "settings.json");
			const settings = existsSync(settingsFile) ? JSON.parse(readFileSync(settingsFile, "utf8")) : {};
			writeFileSync(settingsFile, JSON.stringify({ ...settings, compaction: { keepRecentTokens: 1 } }));
		}
		const script = join(root, "script.json");
		writeFileSync(
			script,
			// Then both echo the last user message: the summaries, and the continuation's answer.
			JSON.stringify([{ toolCalls: [{ name: "ls", arguments: {} }] }]),
		);
		const outcomes: Record<string, unknown> = {};
		// Both CLIs at once, as oh-my-pi#1372 runs them: one project, each its own agent folder, session file and log.
		await Promise.all(
			(
				[
					["pi", runPiCli],
					["settle", runSettleCli],
				] as const
			).map(async ([name, runCli]) => {
				const log = join(root, `${name}.log`);
				writeFileSync(log, "");
				const extension = join(root, `${name}-ext.mjs`);
				writeFileSync(extension, ABORT_COMPACT_CONTINUE(log));
				const sessionFile = join(root, `${name}.jsonl`);
				const run = await runCli(dirs, ["--session", sessionFile, "-e", extension, "-p", "list the files"], { script });
				const entries = existsSync(sessionFile) ? readEntries(sessionFile) : [];
				outcomes[name] = {
					code: run.code,
					stdout: run.stdout,
					log: readFileSync(log, "utf8")
						.trim()
						.split("\n")
						.map((line) =>
							line.includes("ctx is stale after session replacement") ? "compaction failed: stale ctx" : line,
						),
					compactionSaved: entries.some((entry) => entry.type === "compaction"),
					continuationAnswered: messagesOf(entries).some(
						(message) => message.role === "assistant" && message.text.includes("Compaction completed. Continue."),
					),
				};
			}),
		);
		expect(outcomes).toEqual({
			// pi 0.73.1 returns from -p at the aborted answer and shuts down while the compaction runs; its
			// onComplete's send then hits a stale ctx, and nothing continues.
			pi: {
				code: 1,
				stdout: "",
				log: ["shutdown", "compacted", "compaction failed: stale ctx"],
				compactionSaved: true,
				continuationAnswered: false,
			},
			settle: {
				code: 0,
				stdout: "Compaction completed. Continue.\n",
				log: ["compacted", "shutdown"],
				compactionSaved: true,
				continuationAnswered: true,
			},
		});
	});
});

describe("pi 0.73.1 against Settle: a reload while an extension command runs", () => {
	it("pi#7816: reload() while a command awaits, then the command reads its ctx — pi 0.73.1's old ctx still works (the stale guard on reload is in a later pi, the report's); Settle's throws, reported as the command's error (lost until this test)", async () => {
		const errors: string[] = [];
		const reads: string[] = [];
		let entered = gate();
		let resume = gate();
		const runs = await onBothPeers(
			() => ({
				onError: (error) =>
					void errors.push(
						`${error.extensionPath} ${error.event}: ${error.error.startsWith("This extension ctx is stale") ? "stale ctx" : error.error}`,
					),
				extensions: [
					(api) => {
						api.registerCommand("pause", {
							description: "waits, then reads the branch",
							handler: async (_args, ctx) => {
								entered.release();
								await resume.promise;
								ctx.sessionManager.getBranch();
								reads.push("read the branch");
							},
						});
					},
				],
			}),
			async (peer) => {
				errors.length = 0;
				reads.length = 0;
				entered = gate();
				resume = gate();
				const command = outcomeOf(peer.session.prompt("/pause"));
				await entered.promise;
				const streamingDuringCommand = peer.session.isStreaming;
				await (peer.session as unknown as { reload(): Promise<void> }).reload();
				resume.release();
				return { streamingDuringCommand, outcome: await command, reads: [...reads], errors: [...errors] };
			},
		);
		expect(runs.pi).toEqual({
			streamingDuringCommand: false,
			outcome: "resolved",
			reads: ["read the branch"],
			errors: [],
		});
		expect(runs.settle).toEqual({
			streamingDuringCommand: false,
			outcome: "resolved",
			reads: [],
			errors: ["command:pause command: stale ctx"],
		});
	});
});

describe("pi 0.73.1 against Settle: two user bash commands at once", () => {
	it("oh-my-pi#865: a second executeBash() while the first runs, then abortBash() — pi 0.73.1's one abort handle stops only the second, the first runs on; Settle stops both", async () => {
		const runs = await onBothPeers({}, async (peer) => {
			const session = peer.session as unknown as {
				executeBash(command: string, onChunk?: (chunk: string) => void): Promise<{ cancelled: boolean }>;
				abortBash(): void;
			};
			const marks = [processMarker(), processMarker()];
			for (const mark of marks) cleanups.push(() => killMarked(mark));
			const results = marks.map((mark) => {
				let sawReady!: () => void;
				const ready = new Promise<void>((resolve) => (sawReady = resolve));
				return {
					mark,
					ready,
					start: () =>
						session.executeBash(markedSleepCommand(mark), (chunk) => {
							if (chunk.includes("ready")) sawReady();
						}),
				};
			});
			const first = results[0]!.start();
			await results[0]!.ready;
			const second = results[1]!.start();
			await results[1]!.ready;
			session.abortBash();
			const secondCancelled = (await second).cancelled;
			// Settle's must end with the abort (a hang fails the test); pi's is looked at a second later.
			if (peer.name === "settle") await first;
			let firstEnded: string | undefined;
			void first.then((result) => {
				firstEnded = JSON.stringify(result);
			});
			for (let turn = 0; turn < 200 && firstEnded === undefined; turn++)
				await new Promise<void>((resolve) => setTimeout(resolve, 5));
			const firstCancelled = firstEnded === undefined ? "still running" : JSON.parse(firstEnded).cancelled;
			const firstStillRunning = markedProcesses(marks[0]!).length > 0;
			killMarked(marks[0]!);
			await first;
			return { secondCancelled, firstCancelled, firstStillRunning };
		});
		expect(runs.pi).toEqual({ secondCancelled: true, firstCancelled: "still running", firstStillRunning: true });
		expect(runs.settle).toEqual({ secondCancelled: true, firstCancelled: true, firstStillRunning: false });
	});
});

describe("pi 0.73.1 against Settle: the process signalled while a command runs", () => {
	it("pi#3212 / pi#5080: `-p` sent SIGTERM or SIGHUP by its own bash command — both run the extension's session_shutdown, leave no process of the command and exit 143 / 129", async () => {
		const root = tempDir("settle-pi3212-peer-");
		const outcomes: Record<string, Record<string, unknown>> = { pi: {}, settle: {} };
		// The four runs side by side (each its own folders, marker, log and script): one after the other they
		// took 18 s of the 30 s budget on a loaded machine, and timed out on a busier one.
		const runs = (["TERM", "HUP"] as const).flatMap((signal) =>
			(
				[
					["pi", runPiCli],
					["settle", runSettleCli],
				] as const
			).map(async ([name, runCli]) => {
				const dirs = makeDiffDirs(join(root, `${name}-${signal}`));
				const mark = processMarker();
				cleanups.push(() => killMarked(mark));
				const log = join(root, `${name}-${signal}.log`);
				writeFileSync(log, "");
				const extension = join(root, `${name}-${signal}-ext.mjs`);
				writeFileSync(
					extension,
					`import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_shutdown", (event) => { appendFileSync(${JSON.stringify(log)}, "session_shutdown " + event.reason + "\\n"); });
}
`,
				);
				const script = join(root, `${name}-${signal}-script.json`);
				// The command signals its parent (the CLI) mid-run: a tmux pane closed, a `kill`.
				const command = `export ${mark}=1; kill -${signal} $PPID; sleep 60; echo "not reached"`;
				writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }]));
				const run = await runCli(dirs, ["--no-session", "-e", extension, "-p", "clean up after yourself"], {
					script,
				});
				outcomes[name]![signal] = {
					code: run.code,
					heard: readFileSync(log, "utf8").trim().split("\n").filter(Boolean),
					commandLeft: markedProcesses(mark).length > 0,
				};
				killMarked(mark);
			}),
		);
		await Promise.all(runs);
		const held = {
			TERM: { code: 143, heard: ["session_shutdown quit"], commandLeft: false },
			HUP: { code: 129, heard: ["session_shutdown quit"], commandLeft: false },
		};
		// pi 0.73.1's print mode already has the fix (pi#3212 is against 0.67, pi#5080's SIGHUP bug is interactive).
		expect(outcomes).toEqual({ pi: held, settle: held });
	});
});

/**
 * Two extensions for a send between `agent_end` and `agent_settled`: the first holds the first
 * `agent_end` until {@link releaseAgentEnd}, the second's `pi` ({@link sender}) sends from outside any
 * handler meanwhile. `setup()` gives each peer fresh gates; extension errors collect in `errors`.
 */
function agentEndHeldWhileSending() {
	const held = {
		errors: [] as string[],
		inAgentEnd: gate(),
		releaseAgentEnd: gate(),
		sender: undefined as ExtensionAPI | undefined,
		setup: () => {
			held.inAgentEnd = gate();
			held.releaseAgentEnd = gate();
			let holding = false;
			return {
				onError: (error: { error: string }) => void held.errors.push(error.error),
				extensions: [
					(api: ExtensionAPI) => {
						api.on("agent_end", async () => {
							if (holding) return;
							holding = true;
							held.inAgentEnd.release();
							await held.releaseAgentEnd.promise;
						});
					},
					(api: ExtensionAPI) => {
						held.sender = api;
					},
				],
			};
		},
	};
	return held;
}

describe("pi 0.73.1 against Settle: a send between agent_end and agent_settled", () => {
	it("pi-subagents#928: pi.sendUserMessage(…, { deliverAs: \"steer\" }) from outside any handler while another extension's agent_end handler runs — pi 0.73.1 leaves it listed and unanswered (the report's later pi refuses it); Settle answers it in the same operation", async () => {
		const held = agentEndHeldWhileSending();
		const errors = held.errors;
		const runs = await onBothPeers(
			() => held.setup(),
			async (peer) => {
				errors.length = 0;
				peer.script(Array.from({ length: 4 }, (_, i) => ({ text: `answer ${i}` })));
				const done = peer.session.prompt("task");
				await held.inAgentEnd.promise;
				held.sender!.sendUserMessage("inbox request", { deliverAs: "steer" });
				held.releaseAgentEnd.release();
				await done;
				await peer.quiesce();
				return {
					asked: peer.requests.map((request) => request.messages.at(-1)),
					stillListed: [...peer.session.getSteeringMessages()],
					errors: [...errors],
					saved: peer
						.fileEntries()
						.filter((entry) => JSON.stringify(entry).includes("inbox request") && entry.type === "message").length,
				};
			},
		);
		expect(runs).toEqual({
			// pi 0.73.1 takes the steer but its run has stopped polling: listed, unanswered, unsaved, no error.
			pi: { asked: ["user: task"], stillListed: ["inbox request"], errors: [], saved: 0 },
			settle: { asked: ["user: task", "user: inbox request"], stillListed: [], errors: [], saved: 1 },
		});
	});
});

describe("pi 0.73.1 against Settle: a custom message that triggers a turn while agent_end handlers run", () => {
	it("remote_pi#62: pi.sendMessage(…, { triggerTurn: true }) from outside any handler while another extension's agent_end handler runs — pi 0.73.1 queues it as a steer its finished run never takes: unanswered, unsaved, no error (the report's later pi throws); Settle answers it in the same operation", async () => {
		const held = agentEndHeldWhileSending();
		const errors = held.errors;
		const runs = await onBothPeers(
			() => held.setup(),
			async (peer) => {
				errors.length = 0;
				peer.script(Array.from({ length: 4 }, (_, i) => ({ text: `answer ${i}` })));
				const done = peer.session.prompt("task");
				await held.inAgentEnd.promise;
				let threw = "";
				const sent = Promise.resolve(
					held.sender!.sendMessage({ customType: "mesh", content: "envelope", display: true }, { triggerTurn: true }),
				).catch((error: unknown) => {
					threw = String(error);
				});
				held.releaseAgentEnd.release();
				await done;
				await sent;
				await peer.quiesce();
				return {
					asked: peer.requests.map((request) => request.messages.at(-1)),
					threw,
					errors: [...errors],
					saved: peer.fileEntries().filter((entry) => entry.type === "custom_message").length,
				};
			},
		);
		expect(runs).toEqual({
			pi: { asked: ["user: task"], threw: "", errors: [], saved: 0 },
			settle: { asked: ["user: task", "user: envelope"], threw: "", errors: [], saved: 1 },
		});
	});
});

describe("pi 0.73.1 against Settle: overflow recovery after a failed attempt", () => {
	it("oh-my-openagent#8411 / senpi#1780: after a failed compact-and-retry, a custom message that triggers a turn overflows — pi 0.73.1 refuses it at once ('recovery failed', no compaction, no retry: the flag resets only at a user message); Settle compacts and retries it", async () => {
		const overflow: ReplySpec = {
			stopReason: "error",
			errorMessage: "prompt is too long: 213462 tokens > 200000 maximum",
		};
		const runs = await onBothPeers({ settings: { compaction: { keepRecentTokens: 1 } } }, async (peer) => {
			const answers: ReplySpec[] = [
				{ text: "first" },
				overflow,
				overflow,
				overflow,
				{ text: "resumed" },
				{ text: "not reached on pi" },
			];
			peer.script(
				Array.from(
					{ length: 12 },
					(): Step => (request) => (request.system === "summarizer" ? { text: "## Goal\nsummary" } : answers.shift()!),
				),
			);
			const ends: string[] = [];
			peer.session.subscribe((event: AnyEvent) => {
				if (event.type !== "compaction_end") return;
				const end = event as { willRetry?: boolean; errorMessage?: string; result?: unknown };
				ends.push(`${end.willRetry}/${end.errorMessage?.split(" after")[0] ?? (end.result ? "compacted" : "none")}`);
			});
			await peer.prompt("one");
			await peer.prompt("two: a long question about the whole project and its architecture");
			await peer.quiesce();
			const afterFailedAttempt = [...ends];
			ends.length = 0;
			await peer.session.sendCustomMessage(
				{ customType: "goal-continuation", content: "continue the goal", display: true },
				{ triggerTurn: true },
			);
			await peer.quiesce();
			const last = peer.session.messages.at(-1) as { role: string; content?: unknown; stopReason?: string };
			return {
				afterFailedAttempt,
				wake: [...ends],
				summaries: peer.requests.filter((request) => request.system === "summarizer").length,
				lastAnswer: last.stopReason === "error" ? "error" : JSON.stringify(last.content),
			};
		});
		const failedAttempt = ["true/compacted", "false/Context overflow recovery failed"];
		expect(runs).toEqual({
			// pi 0.73.1 has the report for a wake that is no user message.
			pi: {
				afterFailedAttempt: failedAttempt,
				wake: ["false/Context overflow recovery failed"],
				summaries: 1,
				lastAnswer: "error",
			},
			settle: {
				afterFailedAttempt: failedAttempt,
				wake: ["true/compacted"],
				summaries: 2,
				lastAnswer: JSON.stringify([{ type: "text", text: "resumed" }]),
			},
		});
	});
});

describe("pi 0.73.1 against Settle: the active tools across a reload", () => {
	it("pi-code#81: a plan mode's restricted tool set, then reload() — pi 0.73.1 turns every extension tool on again; Settle keeps the set", async () => {
		const tool = (name: string) => ({
			name,
			label: name,
			description: `The ${name} tool`,
			parameters: { type: "object" as const, properties: {} },
			execute: async () => ({ content: [{ type: "text" as const, text: name }], details: {} }),
		});
		const runs = await onBothPeers(
			{
				extensions: [
					(api) => {
						api.registerTool(tool("todo"));
						api.registerTool(tool("memory"));
					},
				],
			},
			async (peer) => {
				const session = peer.session as unknown as {
					setActiveToolsByName(names: string[]): void;
					getActiveToolNames(): string[];
					reload(): Promise<void>;
				};
				session.setActiveToolsByName(["read", "grep", "todo"]);
				const restricted = session.getActiveToolNames();
				await session.reload();
				return { restricted, afterReload: session.getActiveToolNames() };
			},
		);
		expect(runs).toEqual({
			// pi 0.73.1 has the report: the reload adds every extension tool back.
			pi: { restricted: ["read", "grep", "todo"], afterReload: ["read", "grep", "todo", "memory"] },
			settle: { restricted: ["read", "grep", "todo"], afterReload: ["read", "grep", "todo"] },
		});
	});
});

describe("pi 0.73.1 against Settle: the thinking level across model switches", () => {
	it("pi#6329: xhigh, then a model without xhigh, then back — pi 0.73.1 saves the clamped high as the default and stays on high; Settle keeps xhigh in the settings and brings it back", async () => {
		/** `wide` names xhigh, `narrow` stops at high: registered in each product's own model registry. */
		const ladder = [
			{ id: "wide", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } },
			{ id: "narrow", reasoning: true },
		];
		type ModelLike = { provider: string; id: string };
		const runs = await onBothPeers({}, async (peer) => {
			const session = peer.session as unknown as {
				setModel(model: ModelLike): Promise<void>;
				setThinkingLevel(level: string): void;
				readonly thinkingLevel: string;
				readonly settingsManager: { getDefaultThinkingLevel(): string | undefined };
				modelRegistry: { registerProvider(name: string, config: object): void; find(p: string, id: string): ModelLike };
				modelRuntime: InMemoryModelRuntime;
			};
			if (peer.name === "pi") {
				session.modelRegistry.registerProvider("ladder", {
					baseUrl: "http://127.0.0.1:9/v1",
					api: "openai-completions",
					apiKey: "ladder-key",
					models: ladder.map((model) => ({
						...model,
						name: model.id,
						input: ["text"],
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
						contextWindow: 128000,
						maxTokens: 16384,
					})),
				});
			} else {
				session.modelRuntime.registerFauxProvider(createFauxProvider({ provider: "ladder", models: ladder }));
			}
			const model = (id: string) =>
				peer.name === "pi" ? session.modelRegistry.find("ladder", id) : session.modelRuntime.getModel("ladder", id)!;
			const trace: string[] = [];
			const note = (step: string) =>
				trace.push(`${step}: ${session.thinkingLevel}, default ${session.settingsManager.getDefaultThinkingLevel()}`);
			await session.setModel(model("wide"));
			session.setThinkingLevel("xhigh");
			note("wide");
			await session.setModel(model("narrow"));
			note("narrow");
			await session.setModel(model("wide"));
			note("wide again");
			return trace;
		});
		expect(runs).toEqual({
			// pi 0.73.1 has the report: the clamp is saved as the user's default.
			pi: ["wide: xhigh, default xhigh", "narrow: high, default high", "wide again: high, default high"],
			settle: ["wide: xhigh, default xhigh", "narrow: high, default xhigh", "wide again: xhigh, default xhigh"],
		});
	});
});

describe("pi 0.73.1 against Settle: two cwds that share a session folder", () => {
	it("openclaw#96542: `client/app` and `client-app` map to one folder — pi 0.73.1's continueRecent and list() in client/app take client-app's session; Settle's start and list client/app's own", async () => {
		const agentDir = mkdtempSync(join(tmpdir(), "settle-openclaw96542-peer-"));
		const saved = { pi: process.env.PI_CODING_AGENT_DIR, settle: process.env.SETTLE_AGENT_DIR };
		process.env.PI_CODING_AGENT_DIR = agentDir;
		process.env.SETTLE_AGENT_DIR = agentDir;
		cleanups.push(() => {
			for (const [name, value] of [
				["PI_CODING_AGENT_DIR", saved.pi],
				["SETTLE_AGENT_DIR", saved.settle],
			] as const) {
				if (value === undefined) delete process.env[name];
				else process.env[name] = value;
			}
			rmSync(agentDir, { recursive: true, force: true });
		});
		const user = { role: "user", content: "the client-app deploy key is in vault", timestamp: 1 };
		const answer = { ...fauxAssistantMessage("noted"), timestamp: 2 };
		const peers = { pi: pi.SessionManager as unknown as typeof SessionManager, settle: SessionManager };
		const runs: Record<string, { continued: boolean; listed: number }> = {};
		for (const [name, Manager] of Object.entries(peers)) {
			// Each product in its own pair of folders (pi writes the file at its first answer).
			const clientApp = Manager.create(`/${name}/dev/client-app`);
			clientApp.appendMessage(user as never);
			clientApp.appendMessage(answer as never);
			const file = clientApp.getSessionFile();
			(clientApp as { close?: () => void }).close?.();
			const other = Manager.continueRecent(`/${name}/dev/client/app`);
			runs[name] = {
				continued: other.getSessionFile() === file,
				listed: (await Manager.list(`/${name}/dev/client/app`)).length,
			};
			(other as { close?: () => void }).close?.();
		}
		// pi 0.73.1 has it: the newest file of the shared folder is continued and listed as client/app's.
		expect(runs.pi).toEqual({ continued: true, listed: 1 });
		expect(runs.settle).toEqual({ continued: false, listed: 0 });
	});
});

describe("pi 0.73.1 against Settle: a tool that returns { isError: true }", () => {
	it("pi#1881: a custom tool returns { isError: true } without throwing — what tool_execution_end and the saved tool result say", async () => {
		const deploy: SharedTool = {
			name: "deploy",
			label: "Deploy",
			description: "deploys the app",
			parameters: { type: "object", properties: {} },
			execute: async () =>
				({
					content: [{ type: "text", text: "deploy refused: tests failing" }],
					details: {},
					isError: true,
				}) as Awaited<ReturnType<SharedTool["execute"]>>,
		};
		const runs = await onBothPeers({ customTools: [deploy] }, async (peer) => {
			const ends: { isError: unknown; resultIsError: unknown }[] = [];
			peer.session.subscribe((event: AnyEvent) => {
				if (event.type !== "tool_execution_end") return;
				const end = event as { isError?: unknown; result?: { isError?: unknown } };
				ends.push({ isError: end.isError, resultIsError: end.result?.isError });
			});
			peer.script([
				{ toolCalls: [{ id: "call-deploy", name: "deploy", args: {} }], stopReason: "toolUse" },
				{ text: "The deploy failed." },
			]);
			await peer.prompt("deploy it");
			await peer.quiesce();
			const saved = peer.fileEntries().flatMap((entry) => {
				const message = entry.message as { role?: string; isError?: unknown } | undefined;
				return entry.type === "message" && message?.role === "toolResult" ? [message.isError] : [];
			});
			return { ends, saved };
		});
		// pi 0.73.1 keeps the tool's flag inside `result` and calls the call a success everywhere else.
		expect(runs.pi).toEqual({ ends: [{ isError: false, resultIsError: true }], saved: [false] });
		expect(runs.settle).toEqual({ ends: [{ isError: true, resultIsError: true }], saved: [true] });
	});
});

describe("pi 0.73.1 against Settle: pi.exec with a timeout", () => {
	it("pi#7864: a command killed by its timeout — pi 0.73.1 reports exit code 0, as if it succeeded; Settle reports SIGTERM's code (Settle's SIGKILL of a child that ignores SIGTERM: extension-api)", async () => {
		// pi's `pi.exec` is its execCommand with the session cwd (core/extensions/loader.js).
		const { execCommand: piExec } = await import("../../node_modules/@mariozechner/pi-coding-agent/dist/core/exec.js");
		const { execCommand: settleExec } = await import("../../src/extensions/exec.js");
		const onPi = await piExec("sleep", ["30"], tmpdir(), { timeout: 200 });
		const onSettle = await settleExec("sleep", ["30"], tmpdir(), { timeout: 200 });
		expect(onPi).toMatchObject({ killed: true, code: 0 });
		expect(onSettle).toMatchObject({ killed: true, code: 143 });
	});
});
