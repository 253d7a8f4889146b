/**
 * The in-use mark of the session lists and the chat's refusal of a held session, when the holder
 * has this process's pid on another machine: containers sharing one sessions folder (a mounted
 * ~/.settle) each number their processes from 1, so two `settle` processes there often have the
 * same pid. The lock names its host, and the store refuses such a session as another process's.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeSession, sessionLockedInChat } from "../../src/cli/session-picker.js";
import { SettleError } from "../../src/errors.js";
import { listSessionsIn } from "../../src/store/discovery.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir, track, user } from "../store/helpers.js";

/** A saved session, not held by anyone. */
function savedSession(): { dir: string; file: string } {
	const dir = tempDir("settle-in-use-");
	const manager = SessionManager.create("/cwd", dir);
	manager.appendMessage(user("the first question"));
	manager.close();
	return { dir, file: manager.getSessionFile()! };
}

function lockedError(open: () => unknown): SettleError {
	try {
		open();
	} catch (error) {
		expect(error).toBeInstanceOf(SettleError);
		return error as SettleError;
	}
	throw new Error("expected SESSION_LOCKED");
}

describe("a session held by a process with this pid on another machine", () => {
	it("the list marks it in use by that process on that machine, and opening it is refused in the chat's terms naming both", async () => {
		const { dir, file } = savedSession();
		// What `settle` in the other container leaves while it writes the file (a fresh lock).
		mkdirSync(`${file}.lock`);
		writeFileSync(
			join(`${file}.lock`, "owner.json"),
			JSON.stringify({ pid: process.pid, hostname: "container-b", acquiredAt: "", token: "t" }),
		);

		const [info] = await listSessionsIn([dir]);
		expect(describeSession(info!)).toMatch(
			new RegExp(`  the first question \\(in use by process ${process.pid} on container-b\\)$`),
		);

		const error = lockedError(() => SessionManager.open(file));
		expect(sessionLockedInChat(error, "so it was not resumed", "Pick another.")).toBe(
			`Session file ${file} is in use by process ${process.pid} on container-b: only one process may write a session at a time, so it was not resumed. Pick another. To carry on from what it holds in a new session, run settle --fork ${file} (a fork only reads it).`,
		);
	});

	it("a fresh lock naming no owner (its owner file not written yet) is marked in use by another writer, as opening it is refused", async () => {
		const { dir, file } = savedSession();
		mkdirSync(`${file}.lock`);

		const [info] = await listSessionsIn([dir]);
		expect(describeSession(info!)).toMatch(/ {2}the first question \(in use by another writer\)$/);
		const error = lockedError(() => SessionManager.open(file));
		expect(sessionLockedInChat(error, "so it was not resumed", "Pick another.")).toMatch(
			/^Session file .* is in use by another writer: only one process may write a session at a time, so it was not resumed\./,
		);
	});

	it("a session this process itself writes is not marked in use, and its refusal keeps the store's own advice", async () => {
		const { dir, file } = savedSession();
		track(SessionManager.open(file));

		const [info] = await listSessionsIn([dir]);
		expect(describeSession(info!)).toMatch(/ {2}the first question$/);
		const error = lockedError(() => SessionManager.open(file));
		expect(error.message).toContain("another SessionManager in this process");
		expect(sessionLockedInChat(error, "so it was not resumed", "Pick another.")).toBeUndefined();
	});
});
