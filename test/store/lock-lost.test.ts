/**
 * A write lock lost while held: this process stalled past the stale timeout (simulated by ageing its
 * lock directory, as a blocked event loop or a suspended process would leave it) and another process
 * took the lock over. Neither closing the manager nor the process exiting removes the new holder's
 * lock. Real child processes and real lock directories; no waiting on time.
 */
import { existsSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { type SessionChild, spawnSessionChild } from "../crash/children.js";
import { compiledStore } from "../crash/compile-store.js";
import { tempDir, user } from "./helpers.js";

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
