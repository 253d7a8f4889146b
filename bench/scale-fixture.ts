/**
 * Long-lived sessions for bench/scale.ts, written by Settle's store: what months of use leave in a
 * session file, and a session folder with many files.
 *
 * A session of `entries` entries cycles user prompt → assistant (text + `read` tool call, usage) →
 * tool result → assistant answer (usage), and along the way, at fixed intervals: custom entries,
 * labels, session renames, model and thinking changes, abandoned branches (the leaf moved back a
 * few entries, sometimes with a branch summary) and compactions — the last one at the middle, so
 * the context (and everything that walks it) grows with the session.
 */
import { utimesSync } from "node:fs";
import { SessionManager } from "../src/store/session-manager.js";

const zeroCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
const filler = (length: number, seed: string) =>
	`${seed} `.repeat(Math.ceil(length / (seed.length + 1))).slice(0, length);

function usage(i: number) {
	const input = 1000 + (i % 500);
	return {
		input,
		output: 200,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: input + 200,
		cost: { ...zeroCost, input: input * 1e-6, output: 200 * 4e-6, total: input * 1e-6 + 800e-6 },
	};
}

const assistant = (content: unknown[], stopReason: "toolUse" | "stop", i: number, timestamp: number) => ({
	role: "assistant" as const,
	content,
	api: "faux",
	provider: "faux",
	model: "faux-1",
	usage: usage(i),
	stopReason,
	timestamp,
});

/** What bench/scale.ts needs to know about a generated session. */
export interface ScaleSession {
	file: string;
	entries: number;
	/** A user message entry about a tenth into the session (far from the leaf): fork and navigate targets. */
	deepUserId: string;
	/** The leaf when written. */
	leafId: string;
}

/** Writes a session of about `entries` entries (file-backed, under `sessionDir`) and closes it. */
export function generateScaleSession(cwd: string, sessionDir: string, entries: number): ScaleSession {
	const manager = SessionManager.create(cwd, sessionDir);
	manager.appendModelChange("faux", "faux-1");
	manager.appendThinkingLevelChange("off");
	const userIds: string[] = [];
	let deepUserId = "";
	let cycle = 0;
	let lastCompactionAt = 0;
	const count = () => manager.getEntries().length;
	let written = 2;
	const base = Date.now() - entries * 1000;
	while (written < entries) {
		const ts = base + written * 1000;
		const userId = manager.appendMessage({
			role: "user",
			content: [{ type: "text", text: `task ${cycle}: ${filler(80, "please")}` }],
			timestamp: ts,
		});
		userIds.push(userId);
		if (!deepUserId && written >= entries / 10) deepUserId = userId;
		manager.appendMessage(
			assistant(
				[
					{ type: "text", text: filler(200, `think${cycle}`) },
					{ type: "toolCall", id: `call_${cycle}`, name: "read", arguments: { path: `src/file_${cycle}.ts` } },
				],
				"toolUse",
				cycle,
				ts,
			) as never,
		);
		manager.appendMessage({
			role: "toolResult",
			toolCallId: `call_${cycle}`,
			toolName: "read",
			content: [{ type: "text", text: filler(1000, `line${cycle}`) }],
			isError: false,
			timestamp: ts,
		} as never);
		manager.appendMessage(
			assistant([{ type: "text", text: filler(300, `answer${cycle}`) }], "stop", cycle, ts) as never,
		);
		written += 4;
		cycle++;
		if (cycle % 250 === 0) {
			manager.appendCustomEntry("bench-state", { cycle, files: [`src/file_${cycle}.ts`] });
			written++;
		}
		if (cycle % 500 === 0) {
			manager.appendLabelChange(userIds[userIds.length - 3]!, `checkpoint ${cycle}`);
			written++;
		}
		if (cycle % 2500 === 0) {
			manager.appendSessionInfo(`long-lived session, cycle ${cycle}`);
			manager.appendThinkingLevelChange(cycle % 5000 === 0 ? "off" : "low");
			written += 2;
		}
		if (cycle % 700 === 0) {
			// An abandoned attempt: back up two exchanges and go on from there (every other time with a summary).
			const back = userIds[userIds.length - 2]!;
			if (cycle % 1400 === 0) {
				manager.branchWithSummary(back, `Abandoned attempt at cycle ${cycle}.`);
				written++;
			} else manager.branch(back);
		}
		// Compactions at a quarter and at the middle (then the context is half the session).
		const compactAt = lastCompactionAt === 0 ? entries / 4 : entries / 2;
		if (written >= compactAt && lastCompactionAt < entries / 2 && written - lastCompactionAt > entries / 8) {
			manager.appendCompaction(`Summary up to cycle ${cycle}.`, userIds[userIds.length - 5]!, 120_000, {
				readFiles: [`src/file_${cycle}.ts`],
				modifiedFiles: [],
			});
			lastCompactionAt = written;
			written++;
		}
	}
	const file = manager.getSessionFile()!;
	const result = { file, entries: count(), deepUserId, leafId: manager.getLeafId()! };
	manager.close();
	return result;
}

/**
 * A session folder with `files` sessions of `cwd` (a few exchanges each, one named), each file's
 * mtime a minute apart (the newest last). Returns the paths, oldest first, and their session ids.
 */
export function generateSessionFolder(
	cwd: string,
	sessionDir: string,
	files: number,
): { paths: string[]; ids: string[] } {
	const paths: string[] = [];
	const ids: string[] = [];
	for (let f = 0; f < files; f++) {
		const manager = SessionManager.create(cwd, sessionDir);
		manager.appendModelChange("faux", "faux-1");
		for (let i = 0; i < 6; i++) {
			const ts = Date.now();
			manager.appendMessage({ role: "user", content: `session ${f} prompt ${i}: ${filler(120, "do")}`, timestamp: ts });
			manager.appendMessage(assistant([{ type: "text", text: filler(400, `answer${i}`) }], "stop", i, ts) as never);
		}
		if (f % 3 === 0) manager.appendSessionInfo(`session ${f}`);
		paths.push(manager.getSessionFile()!);
		ids.push(manager.getSessionId());
		manager.close();
		const mtime = new Date(Date.now() - (files - f) * 60_000);
		utimesSync(paths[f]!, mtime, mtime);
	}
	return { paths, ids };
}
