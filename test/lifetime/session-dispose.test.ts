/**
 * What a disposed AgentSession leaves behind: nothing reachable from the session (after a forced
 * GC), no timers, child processes or descriptors, no session-file lock; handles a host keeps (an
 * inspect subscription, a trace recorder, an unsubscribe function) don't keep the session alive.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import {
	createFauxProvider,
	type FauxResponseFactory,
	fauxAssistantMessage,
	fauxToolCall,
} from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { BASH_DISPOSED } from "../../src/session/bash-runner.js";
import { convertToLlm } from "../../src/session/convert-to-llm.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness } from "../../src/testing/harness.js";
import { waitForProcessGroupExit } from "../../src/tools/shell.js";
import { CollectionTracker, openFilePaths, tick, trackTimers } from "./helpers.js";

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-lifetime-"));
});
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/** Host-side handles kept after dispose, the way a long-lived host might keep them. */
interface KeptHandles {
	off?: () => void;
	subscription?: { unsubscribe(): void };
	trace?: { stop(): void };
}

/**
 * A session on disk that ran a tool, an extension handler, listeners, an inspection and a trace;
 * disposed and its log closed. Registers its parts in `tracker`; returns only what the host keeps.
 */
async function runAndDispose(tracker: CollectionTracker, label: string, keep: (keyof KeptHandles)[]) {
	const h = await createHarness({
		persistence: "disk",
		extensionFactories: [(pi: ExtensionAPI) => pi.on("agent_start", () => {})],
	});
	const kept: KeptHandles = {};
	const off = h.session.subscribe(() => {});
	const subscription = h.session.inspect(() => {});
	const trace = h.session.trace();
	if (keep.includes("off")) kept.off = off;
	if (keep.includes("subscription")) kept.subscription = subscription;
	if (keep.includes("trace")) kept.trace = trace;
	h.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage("done")]);
	await h.session.prompt("list the files");
	tracker.track(h.session, `${label}.session`);
	tracker.track(h.session.agent, `${label}.agent`);
	tracker.track(h.session.extensionRunner, `${label}.runner`);
	tracker.track(h.sessionManager, `${label}.sessionManager`);
	h.cleanup();
	return kept;
}

describe("a disposed session", () => {
	it("becomes collectable: session, agent, extension runner and session manager", async () => {
		const tracker = new CollectionTracker();
		for (let i = 0; i < 3; i++) await runAndDispose(tracker, `s${i}`, []);
		expect(await tracker.alive()).toEqual([]);
	});

	it("inspect subscription or trace recorder kept by the host retained the whole disposed session", async () => {
		const tracker = new CollectionTracker();
		const kept: KeptHandles[] = [];
		for (let i = 0; i < 3; i++) kept.push(await runAndDispose(tracker, `s${i}`, ["off", "subscription", "trace"]));
		expect(await tracker.alive()).toEqual([]);
		// The handles still work: unsubscribing after dispose is a no-op.
		for (const handles of kept) {
			handles.off?.();
			handles.subscription?.unsubscribe();
			handles.trace?.stop();
		}
	});

	it("an inspect() after dispose reports the final state once and holds nothing", async () => {
		const tracker = new CollectionTracker();
		const seen: string[] = [];
		const subscribeAfterDispose = async () => {
			const h = await createHarness();
			h.cleanup();
			const subscription = h.session.inspect((event) => seen.push(event.kind));
			tracker.track(h.session, "session");
			return subscription;
		};
		const subscription = await subscribeAfterDispose();
		expect(await tracker.alive()).toEqual([]);
		subscription.unsubscribe();
		expect(seen).toEqual(["state"]);
	});

	it("listeners are detached: a listener subscribed before dispose hears nothing after it", async () => {
		const h = await createHarness();
		const heard: string[] = [];
		h.session.subscribe((event) => heard.push(event.type));
		h.session.dispose();
		await expect(h.session.prompt("hello?")).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		expect(heard).toEqual([]);
		h.cleanup();
	});

	it("the SESSION_CLOSED error a pending compact() got from dispose retained the disposed session (V8 keeps stack frames' receivers until .stack is read)", async () => {
		const tracker = new CollectionTracker();
		const outcome = await (async () => {
			const h = await createHarness({
				persistence: "disk",
				settings: { compaction: { enabled: true, reserveTokens: 16_384, keepRecentTokens: 100 } },
			});
			for (let i = 0; i < 3; i++) {
				h.setResponses([fauxAssistantMessage(`answer ${i} ${"words ".repeat(300)}`)]);
				await h.session.prompt(`question ${i} ${"words ".repeat(300)}`);
			}
			const abortedRequests: string[] = [];
			let bothRequested!: () => void;
			const requested = new Promise<void>((resolve) => {
				bothRequested = resolve;
			});
			// The summary requests (history and turn prefix) hang until their signal fires.
			const hang: FauxResponseFactory = (_context, options) =>
				new Promise((resolve) => {
					options?.signal?.addEventListener("abort", () => {
						abortedRequests.push("aborted");
						resolve(fauxAssistantMessage("", { stopReason: "aborted" }));
					});
					if (h.getPendingResponseCount() === 0) bothRequested();
				});
			h.setResponses([hang, hang]);
			const compacting = h.session.compact().catch((error: unknown) => error);
			await requested;
			tracker.track(h.session, "session");
			h.session.dispose();
			const error = await compacting;
			h.cleanup();
			return { error, abortedRequests };
		})();
		expect(outcome.error).toMatchObject({ code: "SESSION_CLOSED" });
		expect(outcome.abortedRequests).toEqual(["aborted", "aborted"]);
		expect(await tracker.alive()).toEqual([]);
	});

	it("dispose during a retry backoff clears the backoff timer", async () => {
		const h = await createHarness({ persistence: "disk" });
		// Only timers made in this test: one an earlier test left (a kill fallback) may fire meanwhile.
		const timers = trackTimers();
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage("ok"),
		]);
		const done = h.session.prompt("hi").catch((error: unknown) => error);
		await h.nextEvent("auto_retry_start");
		expect(timers.pendingRefed()).toBe(1);
		h.session.dispose();
		expect(await done).toMatchObject({ code: "SESSION_CLOSED" });
		await tick();
		expect(timers.pendingRefed()).toBe(0);
		timers.stop();
		h.cleanup();
	});

	it("dispose while the bash tool runs kills the command and its background children", async () => {
		const h = await createHarness({ persistence: "disk" });
		const pidFile = join(h.tempDir, "pgid");
		// Resolves at the first output of the command: the shell has written its pid and started both sleeps.
		const started = new Promise<void>((resolve) => {
			h.session.subscribe((event) => {
				if (event.type === "tool_execution_update" && JSON.stringify(event.partialResult).includes("up")) resolve();
			});
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("bash", { command: `echo $$ > ${pidFile}; sleep 60 & echo up; sleep 60` })]),
			fauxAssistantMessage("done"),
		]);
		const done = h.session.prompt("run it").catch((error: unknown) => error);
		await started;
		const pgid = Number(readFileSync(pidFile, "utf8").trim());
		h.session.dispose();
		expect(await done).toMatchObject({ code: "SESSION_CLOSED" });
		expect(await waitForProcessGroupExit(pgid)).toBe(true);
		h.cleanup();
	});
});

describe("createAgentSession", () => {
	it("own session manager kept its lock, file descriptor and refresh timer after dispose", async () => {
		const cwd = join(dir, "project");
		const agentDir = join(dir, "agent");
		mkdirSync(cwd);
		const files: string[] = [];
		const timers = trackTimers();
		for (let i = 0; i < 3; i++) {
			const faux = createFauxProvider();
			const modelRuntime = new InMemoryModelRuntime();
			modelRuntime.registerFauxProvider(faux);
			const { session } = await createAgentSession({ cwd, agentDir, modelRuntime, model: faux.getModel()! });
			faux.setResponses([fauxAssistantMessage("ok")]);
			await session.prompt("hi");
			const file = session.sessionFile!;
			expect(existsSync(`${file}.lock`)).toBe(true);
			session.dispose();
			files.push(file);
		}
		await tick();
		// proper-lockfile refreshes a held lock on an unref'd timer: none may be left.
		expect(timers.pending()).toBe(0);
		timers.stop();
		for (const file of files) {
			expect(existsSync(`${file}.lock`)).toBe(false);
			expect(openFilePaths()).not.toContain(file);
			// The host can open the session again for writing (resume) in the same process.
			const reopened = SessionManager.open(file);
			reopened.close();
		}
	});

	it("a session manager the caller passed stays open after dispose (the caller closes it)", async () => {
		const cwd = join(dir, "project");
		mkdirSync(cwd);
		const faux = createFauxProvider();
		const modelRuntime = new InMemoryModelRuntime();
		modelRuntime.registerFauxProvider(faux);
		const sessionManager = SessionManager.create(cwd, join(dir, "sessions"));
		const { session } = await createAgentSession({
			cwd,
			agentDir: join(dir, "agent"),
			modelRuntime,
			sessionManager,
			model: faux.getModel()!,
		});
		faux.setResponses([fauxAssistantMessage("ok")]);
		await session.prompt("hi");
		session.dispose();
		expect(sessionManager.isClosed()).toBe(false);
		expect(existsSync(`${session.sessionFile}.lock`)).toBe(true);
		sessionManager.close();
		expect(existsSync(`${session.sessionFile}.lock`)).toBe(false);
	});
});

describe("executeBash", () => {
	it("a timeout kills the command and its background children, and the result is recorded", async () => {
		const h = await createHarness({ persistence: "disk" });
		const pidFile = join(h.tempDir, "pgid");
		const result = await h.session.executeBash(`echo $$ > ${pidFile}; sleep 60 & sleep 60`, undefined, { timeout: 1 });
		expect(result.cancelled).toBe(true);
		// (A machine too loaded to start the shell within the timeout has no group to check.)
		const pgid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : undefined;
		if (pgid !== undefined) expect(await waitForProcessGroupExit(pgid)).toBe(true);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "bashExecution", cancelled: true, timedOutAfter: 1 });
		// The model reads that it timed out, not that someone cancelled it.
		const sent = convertToLlm(h.session.messages).at(-1)!.content as { text: string }[];
		expect(sent[0]!.text).toMatch(/\n\nCommand timed out after 1 second$/);
		h.cleanup();
	});

	it("a command running when the session is disposed rejects with SESSION_CLOSED and records nothing in the disposed session's log (it used to record its result there)", async () => {
		const h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("hi");
		const running = new Promise<void>((resolve) => h.session.subscribe(() => resolve()));
		const result = h.session.executeBash("echo started; sleep 30").catch((error: unknown) => error);
		await running; // its first output
		h.session.dispose();
		expect(await result).toMatchObject({ code: "SESSION_CLOSED", message: BASH_DISPOSED });
		expect(
			h.sessionManager
				.getEntries()
				.filter((entry) => entry.type === "message")
				.map((e) => e.message.role),
		).toEqual(["system", "user", "assistant"]);
		h.cleanup();
	});

	it("operations that fail after spilling output to a temp file left the temp file open, and on disk", async () => {
		const h = await createHarness();
		const spilled = "x".repeat(200 * 1024);
		let tempFile: string | undefined;
		const error = await h.session
			.executeBash("produce a lot", undefined, {
				operations: {
					exec: async (_command, _cwd, { onData }) => {
						onData(Buffer.from(spilled));
						// The temp file opens asynchronously: fail once it is open.
						while (!tempFile) {
							await tick();
							tempFile = openFilePaths().find((path) => path.includes("settle-user-bash"));
						}
						throw new Error("connection lost");
					},
				},
			})
			.catch((e: unknown) => e);
		expect(error).toMatchObject({ code: "TOOL" });
		// close() is awaited before the rejection: the descriptor is gone now, not later.
		expect(openFilePaths().filter((path) => path.includes("settle-user-bash"))).toEqual([]);
		// No result names it: nobody would ever find it.
		expect(existsSync(tempFile!)).toBe(false);
		h.cleanup();
	});

	it("disposed while its spilled output's temp file cannot be removed: executeBash still rejects with SESSION_CLOSED, not the fs error", async () => {
		const h = await createHarness();
		let tempFile: string | undefined;
		const error = await h.session
			.executeBash("produce a lot", undefined, {
				operations: {
					exec: async (_command, _cwd, { onData }) => {
						onData(Buffer.from("x".repeat(200 * 1024)));
						while (!tempFile) {
							await tick();
							tempFile = openFilePaths().find((path) => path.includes("settle-user-bash"));
						}
						// A non-empty folder now has the file's name: removing the file fails (EISDIR).
						rmSync(tempFile);
						mkdirSync(tempFile);
						writeFileSync(join(tempFile, "kept"), "");
						h.session.dispose();
						return { exitCode: null };
					},
				},
			})
			.catch((e: unknown) => e);
		expect(error).toMatchObject({ code: "SESSION_CLOSED", message: BASH_DISPOSED });
		rmSync(tempFile!, { recursive: true, force: true });
		h.cleanup();
	});
});
