import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { spawnSessionChild } from "../crash/children.js";
import { compiledStore } from "../crash/compile-store.js";
import { tempDir, track, user } from "./helpers.js";

afterAll(() => rmSync(compiledStore().dir, { recursive: true, force: true }));

function sessionFile(): string {
	const dir = tempDir();
	const sm = SessionManager.create("/cwd", dir);
	sm.appendMessage(user("hello"));
	sm.close();
	return sm.getSessionFile()!;
}

function lockedError(fn: () => unknown): SettleError {
	try {
		fn();
	} catch (error) {
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("SESSION_LOCKED");
		return error as SettleError;
	}
	throw new Error("expected SESSION_LOCKED");
}

/** A lock directory as a holder would leave it. */
function plantLock(file: string, owner: object | undefined, ageMs = 0) {
	const lock = `${file}.lock`;
	mkdirSync(lock);
	if (owner) writeFileSync(join(lock, "owner.json"), JSON.stringify(owner));
	if (ageMs !== 0) {
		const t = new Date(Date.now() - ageMs);
		utimesSync(lock, t, t);
	}
}

async function deadPid(): Promise<number> {
	const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
	await new Promise((resolve) => child.on("close", resolve));
	return child.pid!;
}

describe("one writer per session file", () => {
	it("a second manager in the same process gets SESSION_LOCKED until the first closes", () => {
		const file = sessionFile();
		const first = SessionManager.open(file);
		const error = lockedError(() => SessionManager.open(file));
		expect(error.message).toContain(file);
		expect(error.message).toContain("another SessionManager in this process");
		expect(error.message).toContain("close the other one");
		expect(error.details).toMatchObject({ file, holderPid: process.pid });
		first.close();
		const second = track(SessionManager.open(file));
		second.appendMessage(user("mine now"));
		expect(second.getEntries()).toHaveLength(2);
	});

	it("setSessionFile and continueRecent respect the lock too", () => {
		const file = sessionFile();
		const holder = track(SessionManager.open(file));
		const other = track(SessionManager.inMemory());
		void other;
		const fresh = track(SessionManager.create("/cwd", tempDir()));
		lockedError(() => fresh.setSessionFile(file));
		lockedError(() => SessionManager.continueRecent("/cwd", holder.getSessionDir()));
	});

	it("another process holding the file blocks writers; after it is SIGKILLed the file opens at once", async () => {
		const file = sessionFile();
		const child = spawnSessionChild("hold", file);
		const pid = await child.ready;
		const error = lockedError(() => SessionManager.open(file));
		expect(error.message).toContain(`process ${pid} on ${hostname()}`);
		child.process.kill("SIGKILL");
		await child.exited;
		expect(existsSync(`${file}.lock`)).toBe(true);
		// Make the left-over lock look fresh for an hour: only the dead-owner check can clear it.
		const future = new Date(Date.now() + 3_600_000);
		utimesSync(`${file}.lock`, future, future);
		const reopened = track(SessionManager.open(file));
		reopened.appendMessage(user("after the crash"));
		expect(reopened.getEntries()).toHaveLength(2);
	});

	it("a process that exits normally or by SIGTERM removes its lock", async () => {
		const file = sessionFile();
		const normal = spawnSessionChild("exit", file);
		await normal.ready;
		expect((await normal.exited).code).toBe(0);
		expect(existsSync(`${file}.lock`)).toBe(false);
		const terminated = spawnSessionChild("hold", file);
		await terminated.ready;
		terminated.process.kill("SIGTERM");
		await terminated.exited;
		expect(existsSync(`${file}.lock`)).toBe(false);
	});

	it("a lock whose owner process is gone is taken over", async () => {
		const file = sessionFile();
		plantLock(file, { pid: await deadPid(), hostname: hostname(), acquiredAt: "", token: "t" }, -3_600_000);
		track(SessionManager.open(file)).appendMessage(user("ok"));
	});

	it("a lock held by a live process, by an unknown owner, or on another machine blocks until it goes stale", () => {
		for (const owner of [
			{ pid: process.ppid, hostname: hostname(), acquiredAt: "", token: "t" },
			undefined,
			{ pid: 999_999_999, hostname: "another-machine", acquiredAt: "", token: "t" },
		]) {
			const file = sessionFile();
			plantLock(file, owner);
			lockedError(() => SessionManager.open(file));
			// not refreshed for longer than the stale timeout: proper-lockfile considers it abandoned
			const t = new Date(Date.now() - 60_000);
			utimesSync(`${file}.lock`, t, t);
			track(SessionManager.open(file)).appendMessage(user("ok"));
		}
	});

	it("a new session takes the lock when it first writes and releases it on close", () => {
		const dir = tempDir();
		const sm = SessionManager.create("/cwd", dir);
		const file = sm.getSessionFile()!;
		expect(existsSync(`${file}.lock`)).toBe(false);
		sm.appendMessage(user("hi"));
		expect(existsSync(`${file}.lock`)).toBe(true);
		lockedError(() => SessionManager.open(file));
		sm.close();
		expect(existsSync(`${file}.lock`)).toBe(false);
	});

	it("close removes the lock directory with whatever was put in it, and the file opens again", () => {
		const file = sessionFile();
		const sm = SessionManager.open(file);
		expect(existsSync(join(`${file}.lock`, "owner.json"))).toBe(true);
		writeFileSync(join(`${file}.lock`, "stray"), "x");
		sm.close();
		expect(existsSync(`${file}.lock`)).toBe(false);
		track(SessionManager.open(file)).appendMessage(user("again"));
	});
});
