/**
 * AgentSessionRuntime on real session files: the event sequences extensions observe across
 * replacements (behavior E.7), host callback order, cancellation, fork rules, import, missing
 * cwd, stale contexts, extension-driven replacement and disposal.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../../src/extensions/messages.js";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import {
	INVALID_FORK_ENTRY_MESSAGE,
	InvalidForkEntryError,
	MissingSessionCwdError,
	REPLACEMENT_IN_PROGRESS_MESSAGE,
	SessionImportFileNotFoundError,
} from "../../src/runtime/errors.js";
import { createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	assertUsable,
	locksUnder,
	loggingFactory,
	type RecordingFactory,
	sessionFilesUnder,
	startRuntime,
	userEntryId,
	writeClosedSession,
} from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let log: string[];
let rec: RecordingFactory;

function setup(extra: ((pi: ExtensionAPI) => void)[] = []) {
	rec = loggingFactory(t.faux, log, extra);
	return rec;
}

async function start(cwd = t.ws.alpha, manager?: SessionManager) {
	t.runtime = await startRuntime(rec.factory, t.ws, cwd, manager);
	return t.runtime;
}

function writeSession(cwd: string, text: string): Promise<string> {
	return writeClosedSession(rec, t.ws, t.faux, log, cwd, text);
}

beforeEach(() => {
	log = [];
	setup();
});

describe("E.7: what extensions observe", () => {
	it("startup: session_start{startup} once the host binds, not before", async () => {
		const r = await createAgentSessionRuntime(rec.factory, {
			cwd: t.ws.alpha,
			agentDir: t.ws.agentDir,
			sessionManager: SessionManager.create(t.ws.alpha, t.ws.sessionDir(t.ws.alpha)),
		});
		t.runtime = r;
		expect(log).toEqual([]);
		await r.session.bindExtensions();
		expect(log).toEqual(["#1 session_start startup"]);
		expect(r.cwd).toBe(t.ws.alpha);
		expect(r.lifecycle).toBe("active");
	});

	it("newSession: before_switch → shutdown (target = new file) → host callbacks → session_start{new} → withSession", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("one")]);
		await r.session.prompt("first");
		const oldFile = r.session.sessionFile!;
		const oldSession = r.session;
		r.setBeforeSessionInvalidate(() => log.push("host beforeSessionInvalidate"));
		r.setRebindSession(async (session) => {
			log.push("host rebind");
			await session.bindExtensions();
		});
		log.length = 0;
		let withSessionFile: string | undefined;
		const result = await r.newSession({
			withSession: async (ctx) => {
				log.push("withSession");
				withSessionFile = ctx.sessionManager.getSessionFile();
			},
		});
		const newFile = r.session.sessionFile!;
		expect(result).toEqual({ cancelled: false });
		expect(newFile).not.toBe(oldFile);
		expect(log).toEqual([
			"#1 session_before_switch new target=-",
			`#1 session_shutdown new target=${newFile}`,
			"host beforeSessionInvalidate",
			"host rebind",
			`#2 session_start new prev=${oldFile}`,
			"withSession",
		]);
		expect(withSessionFile).toBe(newFile);
		expect(r.session).not.toBe(oldSession);
		expect(oldSession.snapshot.status).toBe("stopped");
		expect(r.session.messages.filter((m) => m.role !== "system")).toEqual([]);
		expect(r.session.sessionManager.getHeader()?.parentSession).toBeUndefined();
		await assertUsable(r.session, t.faux);
	});

	it("switchSession(X): before_switch{resume, X} → shutdown{resume, X} → session_start{resume, previousSessionFile}", async () => {
		const target = await writeSession(t.ws.alpha, "earlier");
		const r = await start();
		const oldFile = r.session.sessionFile!;
		log.length = 0;
		expect(await r.switchSession(target)).toEqual({ cancelled: false });
		expect(log).toEqual([
			`#2 session_before_switch resume target=${target}`,
			`#2 session_shutdown resume target=${target}`,
			`#3 session_start resume prev=${oldFile}`,
		]);
		expect(r.session.sessionFile).toBe(target);
		expect(r.session.messages.filter((m) => m.role === "user" || m.role === "assistant")).toHaveLength(2);
		await assertUsable(r.session, t.faux);
	});

	it("fork: before_fork{entryId, position} → shutdown{fork, newFile} → session_start{fork}; selectedText and the branch", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("a1"), fauxAssistantMessage("a2")]);
		await r.session.prompt("first question");
		await r.session.prompt("second question");
		const oldFile = r.session.sessionFile!;
		const oldText = readFileSync(oldFile, "utf8");
		const second = userEntryId(r.session, "second question");
		log.length = 0;
		const result = await r.fork(second);
		const newFile = r.session.sessionFile!;
		expect(result).toEqual({ cancelled: false, selectedText: "second question" });
		expect(log).toEqual([
			`#1 session_before_fork ${second} before`,
			`#1 session_shutdown fork target=${newFile}`,
			`#2 session_start fork prev=${oldFile}`,
		]);
		// Before the second user message: [user, assistant] of the first exchange.
		expect(r.session.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(r.session.sessionManager.getHeader()?.parentSession).toBe(oldFile);
		expect(readFileSync(oldFile, "utf8")).toBe(oldText);
		// The fork's file is on disk and reopens to the same context.
		const reopened = SessionManager.open(newFile, undefined, undefined, { readOnly: true });
		expect(reopened.buildSessionContext().messages).toEqual(r.session.sessionManager.buildSessionContext().messages);
		reopened.close();
		await assertUsable(r.session, t.faux);
	});

	it("fork before the first user message gives an empty session whose parent is the old file", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("a1")]);
		await r.session.prompt("only question");
		const oldFile = r.session.sessionFile!;
		const result = await r.fork(userEntryId(r.session, "only question"));
		expect(result.selectedText).toBe("only question");
		expect(r.session.messages.filter((m) => m.role !== "system")).toEqual([]);
		expect(r.session.sessionManager.getHeader()?.parentSession).toBe(oldFile);
	});

	it("fork's selectedText joins a user message's text blocks with nothing between them, images left out (pi's extractUserMessageText)", async () => {
		const r = await start();
		await r.newSession({
			setup: async (manager) => {
				manager.appendMessage({
					role: "user",
					content: [
						{ type: "text", text: "look at " },
						{ type: "image", data: "aGk=", mimeType: "image/png" },
						{ type: "text", text: "this\nplease" },
					],
					timestamp: Date.now(),
				});
			},
		});
		const user = r.session.sessionManager.getEntries().find((e) => e.type === "message" && e.message.role === "user")!;
		expect(await r.fork(user.id)).toEqual({ cancelled: false, selectedText: "look at this\nplease" });
	});

	it("fork at an entry keeps it; a bad entry is pi's 'Invalid entry ID for forking' and changes nothing", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("a1")]);
		await r.session.prompt("question");
		const assistant = r.session.sessionManager
			.getEntries()
			.find((e) => e.type === "message" && e.message.role === "assistant")!;
		const before = r.session;
		await expect(r.fork("no-such-entry")).rejects.toThrow(INVALID_FORK_ENTRY_MESSAGE);
		await expect(r.fork(assistant.id, { position: "before" })).rejects.toThrow(INVALID_FORK_ENTRY_MESSAGE);
		expect(r.session).toBe(before);
		const files = sessionFilesUnder(t.ws.agentDir);
		await r.fork(assistant.id, { position: "at" });
		expect(r.session.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(sessionFilesUnder(t.ws.agentDir)).toHaveLength(files.length + 1);
	});

	it("SDK fork errors start with pi's text, then say what to pass instead (InvalidForkEntryError)", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("a1")]);
		await r.session.prompt("question");
		const assistant = r.session.sessionManager
			.getEntries()
			.find((e) => e.type === "message" && e.message.role === "assistant")!;
		const modelChange = r.session.sessionManager.getEntries().find((e) => e.type === "model_change")!;
		const failure = async (entryId: string) => {
			try {
				await r.fork(entryId);
			} catch (error) {
				return error as InvalidForkEntryError;
			}
			throw new Error(`fork(${entryId}) did not throw`);
		};
		const notUser = await failure(assistant.id);
		expect(notUser).toBeInstanceOf(InvalidForkEntryError);
		expect(notUser).toMatchObject({
			code: "INVALID_ARGUMENT",
			entryId: assistant.id,
			reason: "not-user-message",
			details: { entryId: assistant.id, reason: "not-user-message" },
		});
		expect(notUser.message).toBe(
			`${INVALID_FORK_ENTRY_MESSAGE}: entry "${assistant.id}" is an assistant message, and fork (position "before", the default) ` +
				'needs a user message\'s entry id: the new session ends just before it. Pass { position: "at" } to fork at any ' +
				"entry, keeping it, or pick one from runtime.session.getUserMessagesForForking().",
		);
		expect((await failure(modelChange.id)).message).toContain(
			`entry "${modelChange.id}" is a model_change entry, and fork`,
		);
		const unknown = await failure("no-such-entry");
		expect(unknown).toMatchObject({ code: "INVALID_ARGUMENT", entryId: "no-such-entry", reason: "unknown" });
		expect(unknown.message).toBe(
			`${INVALID_FORK_ENTRY_MESSAGE}: this session has no entry "no-such-entry". Pass an id from ` +
				"runtime.session.sessionManager.getEntries() (runtime.session.getUserMessagesForForking() lists the user messages).",
		);
		// What the hint says works: the same entry with { position: "at" }.
		const before = r.session;
		expect(await r.fork(notUser.entryId, { position: "at" })).toMatchObject({ cancelled: false });
		expect(r.session).not.toBe(before);
		expect(r.session.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("a captured old context throws pi's stale-context message after the replacement", async () => {
		const contexts: ExtensionContext[] = [];
		setup([(pi) => pi.on("session_start", (_event, ctx) => void contexts.push(ctx))]);
		const r = await start();
		await r.newSession();
		expect(contexts).toHaveLength(2);
		expect(() => contexts[0]!.cwd).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(contexts[1]!.cwd).toBe(t.ws.alpha);
	});
});

describe("cancellation", () => {
	it("session_before_switch {cancel: true} changes nothing: same session, no teardown, no new file", async () => {
		setup([(pi) => pi.on("session_before_switch", () => ({ cancel: true }))]);
		const target = await writeSession(t.ws.beta, "beta work");
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("one")]);
		await r.session.prompt("first");
		const before = { session: r.session, files: sessionFilesUnder(t.ws.agentDir), built: rec.built.length };
		log.length = 0;
		expect(await r.newSession()).toEqual({ cancelled: true });
		expect(await r.switchSession(target)).toEqual({ cancelled: true });
		expect(log.filter((line) => !line.includes("before_switch"))).toEqual([]);
		expect(r.session).toBe(before.session);
		expect(r.cwd).toBe(t.ws.alpha);
		expect(rec.built).toHaveLength(before.built);
		expect(sessionFilesUnder(t.ws.agentDir)).toEqual(before.files);
		expect(locksUnder(t.ws.agentDir)).toEqual([`${r.session.sessionFile}.lock`]);
		await assertUsable(r.session, t.faux);
	});

	it("session_before_fork {cancel: true} returns exactly {cancelled: true}, before the entry is checked", async () => {
		setup([(pi) => pi.on("session_before_fork", () => ({ cancel: true }))]);
		const r = await start();
		expect(await r.fork("not-an-entry")).toEqual({ cancelled: true });
		expect(r.lifecycle).toBe("active");
	});
});

describe("import and missing cwd", () => {
	it("a missing import file is SessionImportFileNotFoundError and nothing is asked or changed", async () => {
		const r = await start();
		const missing = join(t.ws.root, "nope.jsonl");
		const error = await r.importFromJsonl(missing).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SessionImportFileNotFoundError);
		expect((error as Error).message).toBe(`File not found: ${missing}`);
		expect(log).toEqual(["#1 session_start startup"]);
	});

	it("imports a file into the current session dir and resumes it", async () => {
		const exported = await writeSession(t.ws.beta, "exported work");
		const outside = join(t.ws.root, "shared.jsonl");
		writeFileSync(outside, readFileSync(exported));
		const r = await start();
		log.length = 0;
		expect(await r.importFromJsonl(outside)).toEqual({ cancelled: false });
		const destination = join(t.ws.sessionDir(t.ws.alpha), basename(outside));
		expect(r.session.sessionFile).toBe(destination);
		expect(existsSync(destination)).toBe(true);
		expect(r.cwd).toBe(t.ws.beta); // the imported session's own project
		expect(log[0]).toBe(`#2 session_before_switch resume target=${destination}`);
		expect(JSON.stringify(r.session.messages)).toContain("exported work");
	});

	it("regression: importing a file that is not a session names that file, not the copy that was removed", async () => {
		const notes = join(t.ws.root, "notes.jsonl");
		writeFileSync(notes, "meeting notes, not a session\n");
		const r = await start();
		const before = r.session;
		const error = await r.importFromJsonl(notes).catch((e: unknown) => e);
		const destination = join(t.ws.sessionDir(t.ws.alpha), "notes.jsonl");
		expect(error).toMatchObject({ code: "INVALID_SESSION_FILE", details: { path: notes } });
		expect((error as Error).message).toContain(`not a valid pi session: ${notes}.`);
		expect((error as Error).message).not.toContain(destination);
		expect(existsSync(destination)).toBe(false);
		expect(readFileSync(notes, "utf8")).toBe("meeting notes, not a session\n");
		expect(r.session).toBe(before);
		await assertUsable(r.session, t.faux);
	});

	it("regression: importing a session whose cwd is gone names the file given, and the override imports it", async () => {
		const exported = await writeSession(t.ws.beta, "beta work");
		const outside = join(t.ws.root, "shared.jsonl");
		writeFileSync(outside, readFileSync(exported));
		rmSync(t.ws.beta, { recursive: true });
		const r = await start();
		const error = await r.importFromJsonl(outside).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(MissingSessionCwdError);
		expect((error as MissingSessionCwdError).sessionFile).toBe(outside);
		expect((error as Error).message).toContain(`Session file: ${outside}\n`);
		expect(existsSync(join(t.ws.sessionDir(t.ws.alpha), "shared.jsonl"))).toBe(false);
		await assertUsable(r.session, t.faux);
		expect(await r.importFromJsonl(outside, t.ws.alpha)).toEqual({ cancelled: false });
		expect(r.cwd).toBe(t.ws.alpha);
		expect(JSON.stringify(r.session.messages)).toContain("beta work");
	});

	it("re-importing the file that became the current session is refused: nothing is overwritten", async () => {
		const exported = await writeSession(t.ws.beta, "exported work");
		const outside = join(t.ws.root, "shared.jsonl");
		writeFileSync(outside, readFileSync(exported));
		const r = await start();
		await r.importFromJsonl(outside);
		await assertUsable(r.session, t.faux, "after the import");
		const current = r.session;
		const text = readFileSync(current.sessionFile!, "utf8");
		await expect(r.importFromJsonl(outside)).rejects.toThrow(/would overwrite the current session file/);
		expect(r.session).toBe(current);
		expect(readFileSync(current.sessionFile!, "utf8")).toBe(text);
		await assertUsable(r.session, t.faux);
	});

	it("an unwritable session dir fails the import with an IO error naming it; the session stays", async () => {
		const blocker = join(t.ws.root, "a-file");
		writeFileSync(blocker, "not a directory");
		writeFileSync(join(t.ws.agentDir, "settings.json"), JSON.stringify({ sessionDir: join(blocker, "sessions") }));
		const exported = await writeSession(t.ws.beta, "exported work");
		const r = await start(t.ws.alpha, SessionManager.inMemory(t.ws.alpha));
		const before = r.session;
		const error = await r.importFromJsonl(exported).catch((e: unknown) => e);
		expect(error).toMatchObject({ code: "IO" });
		expect((error as Error).message).toContain(`Cannot create a session file in ${join(blocker, "sessions")}`);
		expect(r.session).toBe(before);
		await assertUsable(r.session, t.faux);
	});

	it("a session whose cwd is gone throws MissingSessionCwdError before any teardown; the override works", async () => {
		const target = await writeSession(t.ws.beta, "beta work");
		rmSync(t.ws.beta, { recursive: true });
		const r = await start();
		await assertUsable(r.session, t.faux, "before the switch");
		const before = r.session;
		log.length = 0;
		const error = (await r.switchSession(target).catch((e: unknown) => e)) as MissingSessionCwdError;
		expect(error).toBeInstanceOf(MissingSessionCwdError);
		expect(error.code).toBe("MISSING_SESSION_CWD");
		expect({ sessionFile: error.sessionFile, sessionCwd: error.sessionCwd, fallbackCwd: error.fallbackCwd }).toEqual({
			sessionFile: target,
			sessionCwd: t.ws.beta,
			fallbackCwd: t.ws.alpha,
		});
		expect(error.message).toContain(`Stored session working directory does not exist: ${t.ws.beta}`);
		expect(log).toEqual([`#2 session_before_switch resume target=${target}`]);
		expect(r.session).toBe(before);
		expect(locksUnder(t.ws.agentDir)).toEqual([`${before.sessionFile}.lock`]);
		await assertUsable(r.session, t.faux);
		await r.switchSession(target, { cwdOverride: t.ws.alpha });
		expect(r.cwd).toBe(t.ws.alpha);
		expect(JSON.stringify(r.session.messages)).toContain("beta work");
	});

	it("createAgentSessionRuntime checks the recorded cwd before calling the factory, and releases the file", async () => {
		const target = await writeSession(t.ws.beta, "beta work");
		rmSync(t.ws.beta, { recursive: true });
		const built = rec.built.length;
		await expect(
			createAgentSessionRuntime(rec.factory, {
				cwd: t.ws.alpha,
				agentDir: t.ws.agentDir,
				sessionManager: SessionManager.open(target),
			}),
		).rejects.toBeInstanceOf(MissingSessionCwdError);
		expect(rec.built).toHaveLength(built);
		expect(locksUnder(t.ws.agentDir)).toEqual([]);
	});
});

describe("session control", () => {
	it("an extension command replaces the session with ctx.newSession; withSession gets a fresh context", async () => {
		const seen: string[] = [];
		let replacedSend: Promise<void> | undefined;
		let commandDone: Promise<unknown> | undefined;
		setup([
			(pi) =>
				pi.registerCommand("restart", {
					description: "new session",
					handler: async (_args, ctx) => {
						const oldFile = ctx.sessionManager.getSessionFile();
						commandDone = ctx.newSession({
							withSession: async (fresh) => {
								seen.push(`fresh ${fresh.sessionManager.getSessionFile() !== oldFile}`);
								replacedSend = fresh.sendMessage({ customType: "note", content: "hello new", display: true });
							},
						});
						await commandDone;
						try {
							void ctx.cwd;
						} catch (error) {
							seen.push((error as Error).message === STALE_EXTENSION_CONTEXT_MESSAGE ? "old ctx stale" : "other");
						}
					},
				}),
		]);
		const r = await start();
		const first = r.session;
		// The command handled the input, so its prompt resolves although the session was replaced under it (as in pi).
		await expect(first.prompt("/restart")).resolves.toBeUndefined();
		await commandDone;
		expect(r.session).not.toBe(first);
		expect(replacedSend).toBeInstanceOf(Promise);
		await replacedSend;
		expect(seen).toEqual(["fresh true", "old ctx stale"]);
		expect(r.session.messages.some((m) => m.role === "custom")).toBe(true);
	});

	it("newSession({setup}) adds messages before the session is bound; parentSession is recorded", async () => {
		const r = await start();
		const oldFile = r.session.sessionFile!;
		await r.newSession({
			parentSession: oldFile,
			setup: async (manager) => {
				manager.appendMessage({ role: "user", content: [{ type: "text", text: "seeded" }], timestamp: Date.now() });
			},
		});
		expect(r.session.messages.filter((m) => m.role === "user")).toHaveLength(1);
		expect(r.session.sessionManager.getHeader()?.parentSession).toBe(oldFile);
		await assertUsable(r.session, t.faux);
	});

	it("one replacement at a time: a second request while one runs is rejected with BUSY", async () => {
		let release!: () => void;
		setup([
			(pi) => pi.on("session_before_switch", () => new Promise<undefined>((done) => (release = () => done(undefined)))),
		]);
		const r = await start();
		const first = r.newSession();
		await expect(r.newSession()).rejects.toThrow(REPLACEMENT_IN_PROGRESS_MESSAGE);
		release();
		expect(await first).toEqual({ cancelled: false });
	});

	it("switching to the file that is open reloads it in place (one writer, one lock)", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("one")]);
		await r.session.prompt("remember me");
		const file = r.session.sessionFile!;
		const old = r.session;
		await r.switchSession(file);
		expect(r.session).not.toBe(old);
		expect(old.snapshot.status).toBe("stopped");
		expect(r.session.sessionFile).toBe(file);
		expect(JSON.stringify(r.session.messages)).toContain("remember me");
		expect(locksUnder(t.ws.agentDir)).toEqual([`${file}.lock`]);
		await assertUsable(r.session, t.faux);
		const lines = readFileSync(file, "utf8").trim().split("\n");
		expect(lines.filter((line) => line.includes('"role":"user"') && line.includes("still there?"))).toHaveLength(1);
	});

	it("an in-memory session stays in memory across new and fork", async () => {
		const r = await start(t.ws.alpha, SessionManager.inMemory(t.ws.alpha));
		t.faux.setResponses([fauxAssistantMessage("a1"), fauxAssistantMessage("a2")]);
		await r.session.prompt("q1");
		await r.session.prompt("q2");
		await r.fork(userEntryId(r.session, "q2"));
		expect(r.session.sessionFile).toBeUndefined();
		expect(r.session.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant"]);
		await r.newSession();
		expect(r.session.sessionFile).toBeUndefined();
		expect(sessionFilesUnder(t.ws.agentDir)).toEqual([]);
	});

	it("dispose: session_shutdown{quit}, beforeSessionInvalidate, locks released; later calls are rejected", async () => {
		const r = await start();
		t.faux.setResponses([fauxAssistantMessage("one")]);
		await r.session.prompt("hi");
		r.setBeforeSessionInvalidate(() => log.push("host beforeSessionInvalidate"));
		log.length = 0;
		await r.dispose();
		await r.dispose();
		expect(log).toEqual(["#1 session_shutdown quit target=-", "host beforeSessionInvalidate"]);
		expect(r.lifecycle).toBe("disposed");
		expect(r.session.snapshot.status).toBe("stopped");
		expect(locksUnder(t.ws.agentDir)).toEqual([]);
		await expect(r.newSession()).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		t.runtime = undefined;
	});
});
