/**
 * Fault injection under a live session (beyond bad input): the session file deleted, cut,
 * replaced, its folder removed while the session is open. Real files, the public API.
 * The disk-limit, output-target and few-descriptors cases run the `settle` command as a child
 * process: `faults-cli.test.ts`.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { AgentSessionEvent } from "../../src/index.js";
import { failureOf } from "../../src/llm/failures.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { LOCK_STALE_MS } from "../../src/store/lock.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { closeSession, diskRoles, expectSettleError, openSession, thrown, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

/** A session with one exchange on disk; its file and the file's bytes. */
async function liveSession(): Promise<{ session: AgentSession; file: string; bytes: string }> {
	const session = await openSession(ws);
	ws.reply("one");
	await session.prompt("first");
	const file = session.sessionFile!;
	return { session, file, bytes: readFileSync(file, "utf8") };
}

/** Prompts and returns the settled events and the typed failure of the answer. */
async function promptAfterFault(session: AgentSession): Promise<{ settled: number; failure: unknown }> {
	const events: AgentSessionEvent[] = [];
	const unsubscribe = session.subscribe((event) => {
		events.push(event);
	});
	ws.reply("two");
	await session.prompt("second");
	unsubscribe();
	const last = session.messages.at(-1) as AssistantMessage;
	expect(last.role).toBe("assistant");
	expect(last.stopReason).toBe("error");
	return { settled: events.filter((event) => event.type === "agent_settled").length, failure: failureOf(last) };
}

describe("the session file changed by another program while the session is open", () => {
	it("regression: deleted (rm) — appends went to the unlinked file, lost; now IO, nothing recreated, the branch can be saved to a new file", async () => {
		const { session, file } = await liveSession();
		const entries = session.sessionManager.getEntries().length;
		rmSync(file);
		const { settled, failure } = await promptAfterFault(session);
		expect(settled).toBe(1);
		expectSettleError(failure, "IO", file, "was deleted while this session was open", "createBranchedSession");
		expect(existsSync(file)).toBe(false);
		// The entry the failed append carried is not claimed as saved.
		expect(session.sessionManager.getEntries()).toHaveLength(entries);
		// What to do, as said: the conversation so far goes to a new file.
		const saved = session.sessionManager.createBranchedSession(session.sessionManager.getLeafId()!)!;
		closeSession(session);
		const reopened = SessionManager.open(saved);
		expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
		reopened.close();
	});

	it("regression: cut by an editor in place (same inode) — the next entries were chained onto parents no longer there; now IO, the file keeps what the editor wrote", async () => {
		const { session, file, bytes } = await liveSession();
		const headerOnly = `${bytes.split("\n")[0]}\n`;
		writeFileSync(file, headerOnly);
		const { settled, failure } = await promptAfterFault(session);
		expect(settled).toBe(1);
		expectSettleError(failure, "IO", file, "was cut to", "Nothing more is written to it");
		expect(readFileSync(file, "utf8")).toBe(headerOnly);
		closeSession(session);
		// Reopening continues from what the file holds now.
		const reopened = SessionManager.open(file);
		expect(reopened.getEntries()).toEqual([]);
		reopened.close();
	});

	it("regression: written to by another program (same inode, longer) — now IO, nothing appended after its bytes", async () => {
		const { session, file, bytes } = await liveSession();
		const edited = `${bytes}{"type":"custom","id":"x1","parentId":null,"timestamp":"t","customType":"n"}\n`;
		writeFileSync(file, edited);
		const { failure } = await promptAfterFault(session);
		expectSettleError(failure, "IO", "was written to by another program");
		expect(readFileSync(file, "utf8")).toBe(edited);
		closeSession(session);
	});

	it("regression: replaced (git checkout: a new file renamed over it) — appends went to the old unlinked file; now IO, the new file untouched", async () => {
		const { session, file, bytes } = await liveSession();
		const other = `${bytes.split("\n")[0]}\n`;
		writeFileSync(`${file}.new`, other);
		renameSync(`${file}.new`, file);
		const { settled, failure } = await promptAfterFault(session);
		expect(settled).toBe(1);
		expectSettleError(failure, "IO", "was replaced by another file");
		expect(readFileSync(file, "utf8")).toBe(other);
		closeSession(session);
	});

	it("replaced right after its first write (the header and first message, whose check of the file is skipped): the next append is refused, the new file untouched", () => {
		const manager = SessionManager.create(ws.project, ws.sessionDir);
		try {
			manager.appendMessage({ role: "user", content: "first", timestamp: 1 });
			const file = manager.getSessionFile()!;
			const other = `${readFileSync(file, "utf8").split("\n")[0]}\n`;
			writeFileSync(`${file}.new`, other);
			renameSync(`${file}.new`, file);
			const error = thrown(() => manager.appendMessage({ role: "user", content: "second", timestamp: 2 }));
			expectSettleError(error, "IO", "was replaced by another file");
			expect(readFileSync(file, "utf8")).toBe(other);
		} finally {
			manager.close();
		}
	});

	it("regression: the session folder removed — appends went to the unlinked file; now IO naming the folder, nothing recreated", async () => {
		const { session, file } = await liveSession();
		rmSync(dirname(file), { recursive: true });
		const { settled, failure } = await promptAfterFault(session);
		expect(settled).toBe(1);
		expectSettleError(failure, "IO", `was deleted with its folder ${dirname(file)}`);
		expect(existsSync(dirname(file))).toBe(false);
		closeSession(session);
	});

	it("the session folder removed, and the lock's refresh then found its lock folder gone: still IO naming the folder, not a lost lock", () => {
		// The lock folder went with the session folder; proper-lockfile's refresh (every half stale
		// timeout, on fake time here) reports the lock as compromised. What happened is the deletion.
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		const folder = join(ws.root, "removed-sessions");
		const created = SessionManager.create(ws.project, folder);
		created.appendMessage({ role: "user", content: "first", timestamp: 1 });
		created.close();
		const manager = SessionManager.open(created.getSessionFile()!);
		try {
			rmSync(folder, { recursive: true });
			vi.advanceTimersByTime(LOCK_STALE_MS / 2);
			const error = thrown(() => manager.appendMessage({ role: "user", content: "second", timestamp: 2 }));
			expectSettleError(error, "IO", `was deleted with its folder ${folder}`);
			expect(existsSync(folder)).toBe(false);
		} finally {
			manager.close();
			vi.useRealTimers();
		}
	});

	it("an untouched file goes on taking entries (the check costs one stat per append, not a read)", async () => {
		const { session, file } = await liveSession();
		ws.reply("two");
		await session.prompt("second");
		closeSession(session);
		expect(diskRoles(file).filter((role) => role === "user" || role === "assistant")).toEqual([
			"user",
			"assistant",
			"user",
			"assistant",
		]);
	});
});
