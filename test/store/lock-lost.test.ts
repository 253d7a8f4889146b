/**
 * A write lock lost while held: this process stalled past the stale timeout (simulated by ageing its
 * lock directory, as a blocked event loop or a suspended process would leave it) and another process
 * took the lock over. The next append fails with SESSION_LOCKED and writes nothing — at once, not
 * when proper-lockfile's 5 s refresh timer next runs — and neither closing the manager nor the
 * process exiting removes the new holder's lock. Real child processes and real lock directories; no
 * waiting on time.
 */
import { existsSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
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

	it("regression: the next append still wrote (until a 5 s refresh timer noticed); now it throws SESSION_LOCKED at once and writes nothing", async () => {
		const file = sessionFile();
		const lockPath = `${file}.lock`;
		const ours = track(SessionManager.open(file));
		ours.appendMessage(user("while it is ours"));
		age(lockPath);
		const { pid } = await takeOver(file);
		expect(holderPid(lockPath)).toBe(pid);

		const size = statSync(file).size;
		let error: unknown;
		try {
			ours.appendMessage(user("after the takeover"));
		} catch (thrown) {
			error = thrown;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("SESSION_LOCKED");
		// Named by what noticed first: the held directory gone (usually), or a refresh timer that ran meanwhile.
		const message = (error as SettleError).message;
		expect(message.startsWith(`Lost the write lock on ${file} (`)).toBe(true);
		expect([
			message.includes(`(the lock directory was removed, process ${pid} on `),
			message.includes("(Unable to update lock within the stale threshold)"),
		]).toContain(true);
		expect(message).toContain(
			"another writer may have taken over. Nothing was written. Open the session again to continue.",
		);
		expect(statSync(file).size).toBe(size);
		// Every later append fails the same way; nothing reaches the file.
		expect(() => ours.appendMessage(user("again"))).toThrow(/Lost the write lock/);
		expect(statSync(file).size).toBe(size);
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
