/**
 * pi#3745: after forking a session that had compacted twice, the chat showed four compactions at its
 * start: the fork copies the parent's entries and its header also points back at the parent
 * (`parentSession`), so a reader that renders the parent chain and then the child's entries shows
 * each compaction twice. What that user should see: each compaction once. Settle's fork copies the
 * entries (as pi's) and nothing it shows follows `parentSession` into the parent: the child's file,
 * its context and its exported page hold each compaction once, the page naming the parent only as
 * "Forked from". Real JSONL files.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exportSessionToHtml, SessionManager } from "../../src/index.js";
import { assistant } from "../store/helpers.js";

let dir: string | undefined;
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
	dir = undefined;
});

function occurrences(text: string, needle: string): number {
	return text.split(needle).length - 1;
}

function turn(manager: SessionManager, n: number): string {
	const user = manager.appendMessage({ role: "user", content: `question ${n}`, timestamp: n });
	manager.appendMessage(assistant(`answer ${n}`));
	return user;
}

describe("pi#3745: forked sessions can make compactions appear duplicated", () => {
	it("pi#3745: a fork of a twice-compacted session holds, sends and exports each compaction once; the parent is only named", async () => {
		dir = mkdtempSync(join(tmpdir(), "settle-fork-compactions-"));
		const parent = SessionManager.create(dir, dir);
		turn(parent, 1);
		const kept1 = turn(parent, 2);
		parent.appendCompaction("SUMMARY-ONE", kept1, 1000, { readFiles: [], modifiedFiles: [] });
		const kept2 = turn(parent, 3);
		parent.appendCompaction("SUMMARY-TWO", kept2, 2000, { readFiles: [], modifiedFiles: [] });
		turn(parent, 4);
		const parentFile = parent.getSessionFile()!;
		parent.close();

		// `--fork` (every entry copied) and `/fork` (the branch copied, the manager switched to it).
		const branched = SessionManager.open(parentFile, dir);
		branched.createBranchedSession(branched.getLeafId()!);
		for (const child of [SessionManager.forkFrom(parentFile, dir, { sessionDir: dir }), branched]) {
			const childFile = child.getSessionFile()!;
			expect(childFile).not.toBe(parentFile);
			expect(child.getHeader()?.parentSession).toBe(parentFile);

			const text = readFileSync(childFile, "utf8");
			expect(occurrences(text, '"type":"compaction"')).toBe(2);
			const summaries = child
				.buildSessionContext()
				.messages.filter((message) => message.role === "compactionSummary")
				.map((message) => (message as { summary: string }).summary);
			expect(summaries).toEqual(["SUMMARY-TWO"]);

			const page = readFileSync(await exportSessionToHtml(childFile, { outputPath: `${childFile}.html` }), "utf8");
			expect(occurrences(page, "SUMMARY-ONE")).toBe(1);
			expect(occurrences(page, "SUMMARY-TWO")).toBe(1);
			child.close();
		}
	});
});
