/**
 * A write lock lost while held: this process stalled past the stale timeout and another process
 * took the lock over. The next append fails with SESSION_LOCKED and writes nothing — at once, not
 * when proper-lockfile's refresh timer next runs — and neither closing the manager nor the process
 * exiting removes the new holder's lock. Appends check the held lock directory only once the lock
 * could have been taken over (our last refresh older than the stale timeout less a quarter), so the
 * stall is real: a holder process blocked (a read of a FIFO) past a 2 s stale timeout
 * (SETTLE_TEST_LOCK_STALE_MS) while another takes its lock over. Where only the release side is
 * tested, the lock is aged instead (its mtime set back, as a stalled holder would leave it). A lock
 * removed while fresh (against the protocol) is noticed by the refresh timer; that test runs the
 * timer on fake time. Real child processes and real lock directories; no waiting on time beyond
 * the stall itself.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SettleError } from "../../src/errors.js";
import { LOCK_STALE_MS } from "../../src/store/lock.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { type SessionChild, spawnSessionChild } from "../crash/children.js";
import { compiledStore } from "../crash/compile-store.js";
import { tempDir, track, user } from "./helpers.js";

afterAll(() => rmSync(compiledStore().dir, { recursive: true, force: true }));

const children: SessionChild[] = [];
afterAll(async () => {
	for (const child of children) {
		child.process.kill("SIGKILL");
		await child.exited;
	}
});

function sessionFile(): string {
	const sm = SessionManager.create("/cwd", tempDir());
	sm.appendMessage(user("hello"));
	sm.close();
	return sm.getSessionFile()!;
}

/** Makes the lock look abandoned: not refreshed for a minute (its holder stalled). */
function age(lockPath: string): void {
	const then = new Date(Date.now() - 60_000);
	utimesSync(lockPath, then, then);
}

/** A child process that takes the (stale) lock over and holds it; resolves with its pid. */
async function takeOver(file: string): Promise<{ child: SessionChild; pid: number }> {
	const child = spawnSessionChild("hold", file);
	children.push(child);
	return { child, pid: await child.ready };
}

/** The holder and the taker of the stall tests: proper-lockfile's shortest stale timeout. */
const STALE_2S = { SETTLE_TEST_LOCK_STALE_MS: "2000" };

/** Another writer's owner file (a process on another machine). */
const THEIRS = { pid: 1, hostname: "ci-2", acquiredAt: "", token: "theirs" };

const holderPid = (lockPath: string) =>
	(JSON.parse(readFileSync(join(lockPath, "owner.json"), "utf8")) as { pid: number }).pid;

describe("a write lock lost while held", () => {
	it("regression: close() after losing the lock removed the new holder's lock; now it leaves it", async () => {
		const file = sessionFile();
		const lockPath = `${file}.lock`;
		const ours = SessionManager.open(file);
		age(lockPath);
		const { pid } = await takeOver(file);
		ours.close();
		expect(existsSync(lockPath)).toBe(true);
		expect(holderPid(lockPath)).toBe(pid);
		// The new holder is the one writer: this process cannot open the file for writing.
		expect(() => SessionManager.open(file)).toThrow(new RegExp(`already open for writing by process ${pid} on `));
	});

	it("regression: the next append still wrote (until a 5 s refresh timer noticed); now a holder that stalled past the stale timeout gets SESSION_LOCKED at once and writes nothing", async () => {
		const file = sessionFile();
		const lockPath = `${file}.lock`;
		const fifo = join(tempDir(), "go");
		execFileSync("mkfifo", [fifo]);
		// The holder blocks in a read of the FIFO right after opening: its event loop, and with it the
		// lock's refresh, stops until the FIFO is written.
		const holder = spawnSessionChild("stall", file, fifo, STALE_2S);
		children.push(holder);
		const stalledPid = await holder.ready;
		// Waits (in the child) until the holder's last refresh is older than the stale timeout, then opens the file.
		const taker = spawnSessionChild("take-over", file, 1, STALE_2S);
		children.push(taker);
		const pid = await taker.ready;
		expect(pid).not.toBe(stalledPid);
		expect(holderPid(lockPath)).toBe(pid);
		const size = statSync(file).size;

		await writeFile(fifo, "go");
		// Appended in the same tick the stall ended: the refresh timer has not run; the held directory's fstat noticed.
		const result = await holder.said("result");
		expect(result).toBe(
			`SESSION_LOCKED Lost the write lock on ${file} (the lock directory was removed, process ${pid} on ${hostname()} holds it now); ` +
				"another writer may have taken over. Nothing was written. Open the session again to continue.",
		);
		expect((await holder.exited).code).toBe(0);
		expect(statSync(file).size).toBe(size);
		// The stalled holder's exit left the new holder's lock alone.
		expect(holderPid(lockPath)).toBe(pid);
	});

	it("a lock removed while still fresh (against the protocol: rm -rf) is noticed by the next refresh, not by the append: then SESSION_LOCKED, nothing written", () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		try {
			const file = sessionFile();
			const lockPath = `${file}.lock`;
			const ours = track(SessionManager.open(file));
			ours.appendMessage(user("while it is ours"));
			rmSync(lockPath, { recursive: true, force: true });
			mkdirSync(lockPath);
			writeFileSync(join(lockPath, "owner.json"), JSON.stringify(THEIRS));
			// Given up for the per-append cost: no writer keeping to the protocol could have taken a lock
			// refreshed this recently, so the append does not look.
			ours.appendMessage(user("before the refresh"));
			const size = statSync(file).size;
			expect(readFileSync(file, "utf8")).toContain("before the refresh");

			vi.advanceTimersByTime(LOCK_STALE_MS / 2);
			let error: unknown;
			try {
				ours.appendMessage(user("after the refresh"));
			} catch (thrown) {
				error = thrown;
			}
			expect(error).toBeInstanceOf(SettleError);
			expect((error as SettleError).code).toBe("SESSION_LOCKED");
			expect((error as SettleError).message).toBe(
				`Lost the write lock on ${file} (Unable to update lock within the stale threshold); another writer may have taken over. ` +
					"Nothing was written. Open the session again to continue.",
			);
			expect(statSync(file).size).toBe(size);
			ours.close();
			expect(holderPid(lockPath)).toBe(1);
		} finally {
			vi.useRealTimers();
		}
	});

	it("a refresh that lands on another writer's directory (taken over between the refresh's stat and its utimes) does not count: the next append past the margin looks, and fails", () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
		try {
			const file = sessionFile();
			const lockPath = `${file}.lock`;
			const ours = track(SessionManager.open(file));
			// Another writer's directory in our place, with our mtime: to the refresh's stat it looks like ours.
			const { mtime } = statSync(lockPath);
			rmSync(lockPath, { recursive: true, force: true });
			mkdirSync(lockPath);
			writeFileSync(join(lockPath, "owner.json"), JSON.stringify(THEIRS));
			utimesSync(lockPath, mtime, mtime);
			vi.advanceTimersByTime(LOCK_STALE_MS / 2);
			// The refresh wrote its mtime to their directory; proper-lockfile saw nothing wrong.
			expect(statSync(lockPath).mtimeMs).not.toBe(mtime.getTime());
			const size = statSync(file).size;
			// Our own last refresh (taking the lock) is now older than the stale timeout less a quarter.
			vi.advanceTimersByTime(LOCK_STALE_MS / 2 - 1000);
			expect(() => ours.appendMessage(user("after the takeover"))).toThrow(
				`Lost the write lock on ${file} (the lock directory was removed, process 1 on ci-2 holds it now)`,
			);
			expect(statSync(file).size).toBe(size);
		} finally {
			vi.useRealTimers();
		}
	});

	it("regression: a process that lost its lock removed the new holder's lock when it exited; now it leaves it", async () => {
		const file = sessionFile();
		const lockPath = `${file}.lock`;
		const first = await takeOver(file);
		age(lockPath);
		const second = await takeOver(file);
		expect(holderPid(lockPath)).toBe(second.pid);
		// The first holder ends normally (SIGTERM): its exit handler releases the locks it holds.
		first.child.process.kill("SIGTERM");
		await first.child.exited;
		expect(existsSync(lockPath)).toBe(true);
		expect(holderPid(lockPath)).toBe(second.pid);
		// The second one's own exit still removes its lock.
		second.child.process.kill("SIGTERM");
		await second.child.exited;
		expect(existsSync(lockPath)).toBe(false);
	});

	it("a lock still held is not lost: appends go on, close removes it", () => {
		const file = sessionFile();
		const ours = SessionManager.open(file);
		for (let i = 0; i < 3; i++) ours.appendMessage(user(`entry ${i}`));
		expect(ours.getEntries()).toHaveLength(4);
		ours.close();
		expect(existsSync(`${file}.lock`)).toBe(false);
	});
});
