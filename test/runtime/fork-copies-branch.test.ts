/**
 * `runtime.fork(entryId)` of a long session with abandoned branches, labels and a compaction: the
 * forked file holds exactly what `createBranchedSession` writes for that entry's parent (the
 * branch only, labels of path entries re-emitted, the compaction re-pointed), under a new header
 * naming the source; the source file is untouched. File-backed and in memory.
 */
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FileEntry, SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, user } from "../store/helpers.js";
import { loggingFactory, startRuntime } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();

/** A session with an abandoned branch, labels (one on a label-less path, one off it) and a compaction keeping a label entry. */
function writeLongSession(manager: SessionManager): { forkAt: string } {
	// Recorded model and thinking level: the sessions resumed here append nothing of their own.
	manager.appendModelChange("faux", "faux-1");
	manager.appendThinkingLevelChange("off");
	const first = manager.appendMessage(user("first"));
	manager.appendMessage(assistant("one"));
	const second = manager.appendMessage(user("second"));
	manager.appendMessage(assistant("two"));
	const abandoned = manager.appendMessage(user("abandoned attempt"));
	manager.appendLabelChange(abandoned, "off the fork's path");
	manager.branch(second);
	const label = manager.appendLabelChange(first, "start");
	manager.appendMessage(assistant("two again"));
	manager.appendCompaction("summary so far", label, 5000);
	const third = manager.appendMessage(user("third"));
	manager.appendLabelChange(third, "third");
	manager.appendMessage(assistant("three"));
	const forkAt = manager.appendMessage(user("fork here"));
	manager.appendMessage(assistant("four"));
	return { forkAt };
}

const lines = (file: string) =>
	readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as FileEntry);

/** Re-emitted label entries get fresh random ids: name them by position. */
function canonical(entries: readonly FileEntry[]): unknown[] {
	const names = new Map<string, string>();
	for (const entry of entries) if (entry.type === "label") names.set(entry.id, `label-${names.size}`);
	return entries.map((entry) => {
		if (entry.type === "session") return { type: "session" };
		const rename = (id: string | null) => (id !== null && names.has(id) ? names.get(id)! : id);
		return { ...entry, id: rename(entry.id), parentId: rename(entry.parentId) };
	});
}

describe("fork copies the branch only", () => {
	it("file-backed: the forked file is what createBranchedSession writes; the source file is untouched", async () => {
		const dir = t.ws.sessionDir(t.ws.alpha);
		const source = SessionManager.create(t.ws.alpha, dir);
		const { forkAt } = writeLongSession(source);
		const sourceFile = source.getSessionFile()!;
		const parentOfForkAt = source.getEntry(forkAt)!.parentId!;
		source.close();
		// The reference: the same file opened elsewhere and branched by the store itself.
		const referenceFile = join(t.ws.root, "reference.jsonl");
		copyFileSync(sourceFile, referenceFile);
		const reference = SessionManager.open(referenceFile, join(t.ws.root, "reference-out"));
		const expectedFile = reference.createBranchedSession(parentOfForkAt)!;
		reference.close();
		const sourceBytes = readFileSync(sourceFile, "utf8");

		t.runtime = await startRuntime(
			loggingFactory(t.faux, []).factory,
			t.ws,
			t.ws.alpha,
			SessionManager.open(sourceFile),
		);
		const { selectedText } = await t.runtime.fork(forkAt);
		expect(selectedText).toBe("fork here");
		const forkedFile = t.runtime.session.sessionFile!;
		expect(forkedFile).not.toBe(sourceFile);
		const forked = lines(forkedFile);
		const header = forked[0] as Extract<FileEntry, { type: "session" }>;
		expect(header.parentSession).toBe(sourceFile);
		expect(header.cwd).toBe(t.ws.alpha);
		expect(header.id).toBe(t.runtime.session.sessionId);
		expect(Object.keys(header)).toEqual(["type", "version", "id", "timestamp", "cwd", "parentSession"]);
		expect(canonical(forked)).toEqual(canonical(lines(expectedFile)));
		// Nothing of the abandoned branch, and the kept compaction points at the entry after the label it kept.
		const texts = JSON.stringify(forked);
		expect(texts).not.toContain("abandoned attempt");
		expect(texts).not.toContain("off the fork's path");
		const compaction = forked.find((entry) => entry.type === "compaction") as Extract<
			SessionEntry,
			{ type: "compaction" }
		>;
		expect(forked.some((entry) => entry.type !== "session" && entry.id === compaction.firstKeptEntryId)).toBe(true);
		expect(readFileSync(sourceFile, "utf8")).toBe(sourceBytes);
	});

	it("in memory: the forked session holds the same entries under a new session id", async () => {
		const manager = SessionManager.inMemory(t.ws.alpha);
		const { forkAt } = writeLongSession(manager);
		const expected = SessionManager.inMemory(t.ws.alpha, undefined, [manager.getHeader()!, ...manager.getEntries()]);
		expected.createBranchedSession(manager.getEntry(forkAt)!.parentId!);
		const before = JSON.stringify(manager.getEntries());

		t.runtime = await startRuntime(loggingFactory(t.faux, []).factory, t.ws, t.ws.alpha, manager);
		const sourceId = t.runtime.session.sessionId;
		await t.runtime.fork(forkAt);
		const forked = t.runtime.session.sessionManager;
		expect(forked.getSessionId()).not.toBe(sourceId);
		expect(forked.getHeader()?.parentSession).toBeUndefined();
		expect(canonical(forked.getEntries())).toEqual(canonical(expected.getEntries()));
		expect(forked.getTree().length).toBe(1);
		// The fork is a copy: the source's entries are unchanged and not shared.
		expect(JSON.stringify(manager.getEntries())).toBe(before);
		expect(forked.getEntries()[0]).not.toBe(manager.getEntries()[0]);
	});
});
