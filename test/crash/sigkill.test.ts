/**
 * Crash safety with real processes: a child appends entries of every kind as fast as it can and is
 * killed with SIGKILL after a random number of acknowledged appends, many times over. After each
 * kill the file is reopened: every complete line is there (and every append the child saw return),
 * a torn last line is reported and set aside, and appending after the reopen gives a clean file.
 *
 * A write(2) to a regular file is not interrupted half-way by a signal, so SIGKILL alone almost
 * never tears a line (that is the point of writing each line with one write). To also exercise a
 * tear as a power loss or full disk would leave it, every third round cuts the file inside its
 * last line after the kill, at a random byte.
 */
import { readFileSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir, user } from "../store/helpers.js";
import { spawnSessionChild } from "./children.js";
import { compiledStore } from "./compile-store.js";

const ROUNDS = 25;

afterAll(() => rmSync(compiledStore().dir, { recursive: true, force: true }));

/** Deterministic random numbers (mulberry32), so a failing seed can be replayed. */
function rng(seed: number) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Ids of the complete lines of the file (all must parse) and the bytes after the last newline. */
function completeLines(file: string) {
	const raw = readFileSync(file);
	const end = raw.lastIndexOf(10) + 1;
	const lines = raw.toString("utf8", 0, end).split("\n").filter(Boolean);
	const parsed = lines.map((line) => JSON.parse(line) as { type: string; id: string });
	return { ids: parsed.slice(1).map((e) => e.id), lineStarts: lineStarts(raw, end), tail: raw.subarray(end) };
}

function lineStarts(raw: Buffer, end: number): number[] {
	const starts = [0];
	for (let i = raw.indexOf(10); i >= 0 && i + 1 < end; i = raw.indexOf(10, i + 1)) starts.push(i + 1);
	return starts;
}

function expectTree(entries: SessionEntry[]) {
	const seen = new Set<string>();
	for (const entry of entries) {
		expect(entry.parentId === null || seen.has(entry.parentId)).toBe(true);
		expect(seen.has(entry.id)).toBe(false);
		seen.add(entry.id);
	}
}

describe("SIGKILL while appending", () => {
	it(`loses nothing that was complete, over ${ROUNDS} kills`, async () => {
		const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
		const random = rng(seed);
		const dir = tempDir("settle-crash-");
		const file = join(dir, "crash.jsonl");
		const first = SessionManager.open(file, undefined, "/crash-test");
		first.appendMessage(user("start"));
		first.close();
		let known = first.getEntries().map((e) => e.id);
		let naturalTears = 0;
		let simulatedTears = 0;

		for (let round = 0; round < ROUNDS; round++) {
			const context = `seed ${seed}, round ${round}`;
			const child = spawnSessionChild("append", file, Math.floor(random() * 2 ** 31) + 1);
			await child.ready;
			const target = Math.floor(random() * 80);
			await new Promise<void>((resolve) => {
				const check = () => {
					if (child.acks.length >= target) {
						child.process.stdout!.off("data", check);
						resolve();
					}
				};
				child.process.stdout!.on("data", check);
				check();
			});
			child.process.kill("SIGKILL");
			const { signal } = await child.exited;
			expect(signal, context).toBe("SIGKILL");

			const disk = completeLines(file);
			// Everything known before this round is still there, in order, and every append the
			// child saw return is on disk.
			expect(disk.ids.slice(0, known.length), context).toEqual(known);
			const onDisk = new Set(disk.ids);
			for (const id of child.acks) expect(onDisk.has(id), `${context}: acked ${id}`).toBe(true);

			let expectedIds = disk.ids;
			let tornBytes = disk.tail;
			if (tornBytes.length > 0) naturalTears++;
			else if (round % 3 === 1 && disk.ids.length > known.length) {
				// Cut inside the last line: keep at least one byte and drop at least its newline.
				const start = disk.lineStarts[disk.lineStarts.length - 1]!;
				const raw = readFileSync(file);
				const cut = start + 1 + Math.floor(random() * (raw.length - start - 2));
				tornBytes = raw.subarray(start, cut);
				truncateSync(file, cut);
				expectedIds = disk.ids.slice(0, -1);
				simulatedTears++;
			}

			const reopened = SessionManager.open(file);
			expect(
				reopened.getEntries().map((e) => e.id),
				context,
			).toEqual(expectedIds);
			expectTree(reopened.getEntries());
			const diagnostics = reopened.getDiagnostics();
			if (tornBytes.length > 0) {
				expect(
					diagnostics.map((d) => d.kind),
					context,
				).toEqual(["torn_line"]);
				expect(readFileSync(diagnostics[0]!.setAsidePath!), context).toEqual(Buffer.from(tornBytes));
			} else {
				expect(diagnostics, context).toEqual([]);
			}
			const after = reopened.appendMessage(user(`after kill ${round}`));
			reopened.close();

			const clean = SessionManager.open(file, undefined, undefined, { readOnly: true });
			expect(clean.getDiagnostics(), context).toEqual([]);
			expect(
				clean.getEntries().map((e) => e.id),
				context,
			).toEqual([...expectedIds, after]);
			expect(clean.getLeafId()).toBe(after);
			known = [...expectedIds, after];
		}
		// The simulated tears must actually have happened, or the torn-line path went untested.
		expect(simulatedTears + naturalTears).toBeGreaterThan(0);
	}, 60_000);
});
