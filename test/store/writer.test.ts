import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { acquireSessionLock } from "../../src/store/lock.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { SessionWriter } from "../../src/store/writer.js";
import { tempDir, track, user } from "./helpers.js";

// /dev/full accepts opens and fails every write with ENOSPC: a full disk, on demand (Linux).
const FULL_DEVICE = "/dev/full";

describe("a failing write", () => {
	it("throws a typed IO error and the manager keeps nothing of the entry", () => {
		expect(existsSync(FULL_DEVICE)).toBe(true);
		const dir = tempDir();
		const sm = track(SessionManager.create("/cwd", dir));
		sm.appendMessage(user("kept"));
		const before = { entries: sm.getEntries(), leaf: sm.getLeafId(), context: sm.buildSessionContext() };
		const lock = acquireSessionLock(join(dir, "other.jsonl"));
		// Swap the manager's writer for one whose every write fails.
		const internals = sm as unknown as { writer: SessionWriter };
		const original = internals.writer;
		internals.writer = SessionWriter.openExisting(FULL_DEVICE, lock);
		let error: unknown;
		try {
			sm.appendMessage(user("lost"));
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("IO");
		expect((error as SettleError).message).toMatch(
			/Could not append to session file \/dev\/full: ENOSPC: .*The entry was not added; the file holds the session up to the last entry saved\. Free disk space/,
		);
		expect(sm.getEntries()).toEqual(before.entries);
		expect(sm.getLeafId()).toBe(before.leaf);
		expect(sm.buildSessionContext()).toEqual(before.context);
		internals.writer.close();
		internals.writer = original;
		sm.appendMessage(user("after"));
		expect(sm.getEntries()).toHaveLength(2);
	});

	it("creating a session file that already exists is refused with a pointer to open()", () => {
		const dir = tempDir();
		const sm = SessionManager.create("/cwd", dir);
		sm.appendMessage(user("x"));
		sm.close();
		const file = sm.getSessionFile()!;
		const lock = acquireSessionLock(`${file}.copy`);
		expect(() => SessionWriter.create(file, lock, "{}\n")).toThrow(
			/already exists; open it with SessionManager\.open\(\)/,
		);
		expect(existsSync(`${file}.copy.lock`)).toBe(false);
	});
});
