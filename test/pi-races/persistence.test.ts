/**
 * pi's reported persistence bugs, replayed against Settle on real JSONL files: writes paused while
 * compacting (work lost, an orphaned tool result under the compaction entry), a resume that
 * rewrites the file before any activity, and two processes appending to one file.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { SessionManager, SettleError } from "../../src/index.js";
import { cliCommand, trackChild } from "../cli/helpers.js";
import { diskSession, diskSessionsPerTest, fileMessages, orphanToolMessages, readEntries } from "./disk-harness.js";

const { open, session } = diskSessionsPerTest();

/** A session file with one answered exchange (`hello`), its session closed; `dir` is its temp dir. */
async function closedSessionFile(): Promise<{ file: string; dir: string }> {
	const first = await session();
	first.provider.answer("hello back");
	await first.session.prompt("hello");
	const file = first.session.sessionFile!;
	first.cleanup();
	open.splice(0);
	return { file, dir: first.dir };
}

describe("persistence: nothing lost, nothing out of order", () => {
	it("pinet#941: work sent while a compaction runs is neither run unsaved nor lost, and leaves no orphaned tool result", async () => {
		const { session: s, provider } = await session({ settings: { compaction: { keepRecentTokens: 10 } } });
		for (const text of ["one", "two", "three"]) {
			provider.answer(`answer to ${text} `.repeat(20));
			await s.prompt(`question ${text} `.repeat(20));
		}
		const compacting = s.compact();
		const summaryRequest = await provider.next();
		// pi: ctx.isIdle() is true here, so a host delivers new work into the window.
		expect(s.isCompacting).toBe(true);
		expect(s.isIdle).toBe(false);
		const late = s.prompt("new task from the broker").then(
			() => "resolved",
			(error: unknown) => (error instanceof SettleError ? error.code : String(error)),
		);
		// The compaction's summary requests (history, and a split turn's prefix) are answered.
		summaryRequest.finish(provider.reply("## Summary\nearlier questions"));
		let pending = provider.next();
		while (s.isCompacting) {
			const next = await Promise.race([pending, compacting.then(() => undefined)]);
			if (!next) break;
			next.finish(provider.reply("## Summary\nmore"));
			pending = provider.next();
		}
		await compacting;
		// The new task, if it was taken, runs now and is answered.
		const taskRequest = await Promise.race([pending, late.then(() => undefined)]);
		taskRequest?.finish(provider.reply("done with the new task"));
		const outcome = await late;
		await s.waitForIdle();
		const file = s.sessionFile!;
		const entries = readEntries(file);
		const compactionAt = entries.findIndex((e) => e.type === "compaction");
		expect(compactionAt).toBeGreaterThan(0);
		// Either the host is told (a typed refusal) or the work runs after the compaction, saved.
		if (outcome === "resolved") {
			const after = entries.slice(compactionAt + 1).map((e) => JSON.stringify(e));
			expect(after.some((line) => line.includes("new task from the broker"))).toBe(true);
			expect(after.some((line) => line.includes("done with the new task"))).toBe(true);
		} else {
			expect(outcome).toBe("BUSY");
		}
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		s.sessionManager.close();
		const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
		expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual(s.messages.map((m) => m.role));
	});

	it("oh-my-pi#528: resuming a session leaves its file untouched (bytes and mtime) until new activity", async () => {
		// A session written by pi: header, a user question and an answer, no thinking_level_change entry.
		const { file, dir } = await closedSessionFile();
		const piFile = join(dir, "pi-written.jsonl");
		writeFileSync(
			piFile,
			`${readEntries(file)
				.filter((e) => e.type !== "thinking_level_change" && e.type !== "model_change")
				.map((e) => JSON.stringify(e))
				.join("\n")}\n`,
		);
		for (const target of [file, piFile]) {
			const old = new Date("2024-01-02T03:04:05Z");
			utimesSync(target, old, old);
			const before = readFileSync(target);
			const resumed = await diskSession({ sessionManager: SessionManager.open(target) });
			open.push(resumed);
			expect(resumed.session.messages.map((m) => m.role)).toContain("assistant");
			expect(readFileSync(target, "utf8"), target).toBe(before.toString("utf8"));
			expect(statSync(target).mtime.toISOString()).toBe(old.toISOString());
			// New activity appends after the old bytes, which stay as they were.
			resumed.provider.answer("more");
			await resumed.session.prompt("and now?");
			const after = readFileSync(target);
			expect(after.subarray(0, before.length).equals(before)).toBe(true);
			expect(after.length).toBeGreaterThan(before.length);
			expect(fileMessages(target).at(-1)).toMatchObject({ role: "assistant" });
			resumed.cleanup();
			open.splice(0);
			expect(
				SessionManager.open(target, undefined, undefined, { readOnly: true }).buildSessionContext().thinkingLevel,
			).toBe(resumed.session.thinkingLevel);
		}
	});

	it("pi#8334 / pi#8300: a second process resuming a live session file gets SESSION_LOCKED and writes nothing", async () => {
		const { file, dir } = await closedSessionFile();
		// Process A: `settle --rpc --session <file>`, alive and holding the session.
		const child = spawn(process.execPath, [...cliCommand(), "--faux", "--rpc", "--session", file], {
			cwd: dir,
			env: { ...process.env, SETTLE_AGENT_DIR: join(dir, "agent") },
			stdio: ["pipe", "pipe", "pipe"],
		});
		const exited = trackChild(child);
		const lines = createInterface({ input: child.stdout });
		const ready = new Promise<void>((resolve) =>
			lines.on("line", (line) => {
				if (line.includes('"get_state"')) resolve();
			}),
		);
		child.stdin.write(`${JSON.stringify({ id: "1", type: "get_state" })}\n`);
		await ready;
		const before = readFileSync(file);
		try {
			// Process B (here, the SDK) opens the same file to write: refused, with who holds it.
			let error: unknown;
			try {
				SessionManager.open(file);
			} catch (caught) {
				error = caught;
			}
			expect(error).toBeInstanceOf(SettleError);
			expect((error as SettleError).code).toBe("SESSION_LOCKED");
			expect((error as SettleError).message).toContain(file);
			expect((error as SettleError).details).toMatchObject({ holderPid: child.pid });
			// Reading it is still allowed, and changes nothing.
			expect(SessionManager.open(file, undefined, undefined, { readOnly: true }).getEntries().length).toBeGreaterThan(
				0,
			);
			expect(readFileSync(file).equals(before)).toBe(true);
		} finally {
			child.stdin.end();
			child.kill("SIGTERM");
			await exited;
		}
		// Once process A is gone the file can be resumed again.
		const again = SessionManager.open(file);
		again.close();
	});
});
