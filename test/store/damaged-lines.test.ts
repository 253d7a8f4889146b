/**
 * Unreadable lines in the middle of a session file: the entries written after them keep the
 * conversation before the damage. An entry whose parent was on an unreadable line is attached (in
 * memory) to the last entry before that line; a whole entry pi appended onto a torn line is loaded.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../src/store/entries.js";
import { readSessionFile } from "../../src/store/session-file.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, track, user } from "./helpers.js";

/** The text of each message in the context of `manager`'s leaf. */
function contextTexts(manager: { buildSessionContext(): { messages: unknown[] } }): string[] {
	return manager.buildSessionContext().messages.map((m) => {
		const content = (m as { content: unknown }).content;
		return typeof content === "string" ? content : (content as { text: string }[])[0]!.text;
	});
}

/** A session of three exchanges written by Settle; its file and entries. */
function threeExchanges(): { file: string; entries: SessionEntry[] } {
	const sm = SessionManager.create("/work/project", tempDir("damaged-"));
	for (const n of [1, 2, 3]) {
		sm.appendMessage(user(`question ${n}`));
		sm.appendMessage(assistant(`answer ${n}`));
	}
	sm.close();
	return { file: sm.getSessionFile()!, entries: sm.getEntries() };
}

/** Cuts line `index` (0 = the header) of `file` short, as a lost write leaves it. */
function damageLine(file: string, index: number): string {
	const lines = readFileSync(file, "utf8").split("\n");
	lines[index] = lines[index]!.slice(0, 40);
	const text = lines.join("\n");
	writeFileSync(file, text);
	return text;
}

function shape(manager: SessionManager) {
	return {
		entries: manager.getEntries(),
		leaf: manager.getLeafId(),
		tree: JSON.stringify(manager.getTree()),
		context: manager.buildSessionContext(),
	};
}

describe("an unreadable line in the middle of a session file", () => {
	it("the entry after it keeps the conversation before it: attached to the last entry before the line, said so, file unchanged", () => {
		const { file, entries } = threeExchanges();
		// Line 4 holds entries[2] ("question 2"); "answer 2" (entries[3]) names it as its parent.
		const text = damageLine(file, 3);

		const settle = track(SessionManager.open(file));
		expect(contextTexts(settle)).toEqual(["question 1", "answer 1", "answer 2", "question 3", "answer 3"]);
		expect(settle.getEntry(entries[3]!.id)!.parentId).toBe(entries[1]!.id);
		const diagnostics = settle.getDiagnostics();
		expect(diagnostics.map((d) => d.kind)).toEqual(["malformed_line"]);
		expect(diagnostics[0]!.line).toBe(4);
		expect(diagnostics[0]!.message).toContain(
			`Entry ${entries[3]!.id}, whose parent ${entries[2]!.id} is not in the file, was attached to ${entries[1]!.id}, the last entry before line 4`,
		);
		expect(readFileSync(file, "utf8")).toBe(text);

		// pi 0.73.1 starts the branch at the orphan: everything before the damaged line leaves the context.
		expect(contextTexts(PiSessionManager.open(file))).toEqual(["answer 2", "question 3", "answer 3"]);
	});

	it("reopening gives the same tree each time; appends continue from the leaf and read back the same", () => {
		const { file, entries } = threeExchanges();
		damageLine(file, 3);
		const first = track(SessionManager.open(file));
		const before = shape(first);
		first.close();
		const second = track(SessionManager.open(file));
		expect(shape(second)).toEqual(before);

		const leaf = second.getLeafId()!;
		const id = second.appendMessage(user("question 4"));
		expect(second.getEntry(id)!.parentId).toBe(leaf);
		const after = shape(second);
		expect(contextTexts(second)).toEqual([
			"question 1",
			"answer 1",
			"answer 2",
			"question 3",
			"answer 3",
			"question 4",
		]);
		second.close();
		const third = track(SessionManager.open(file));
		expect(shape(third)).toEqual(after);
		expect(third.getEntry(entries[3]!.id)!.parentId).toBe(entries[1]!.id);
	});

	it("a branch that also grew from the lost entry is attached too; an entry whose parent was never in the file stays a root", () => {
		const { file, entries } = threeExchanges();
		const lost = entries[2]!;
		const branch = {
			type: "message",
			id: "b0000001",
			parentId: lost.id,
			timestamp: new Date().toISOString(),
			message: assistant("another answer 2"),
		};
		const orphan = { ...branch, id: "b0000002", parentId: "never-written" };
		appendFileSync(file, `${JSON.stringify(branch)}\n${JSON.stringify(orphan)}\n`);
		damageLine(file, 3);

		const settle = track(SessionManager.open(file));
		expect(settle.getEntry("b0000001")!.parentId).toBe(entries[1]!.id);
		settle.branch("b0000001");
		expect(contextTexts(settle)).toEqual(["question 1", "answer 1", "another answer 2"]);
		// Its line held an id (the start survived): not the lost parent of this one.
		expect(settle.getEntry("b0000002")!.parentId).toBe("never-written");
		expect(settle.getDiagnostics().map((d) => d.kind)).toEqual(["malformed_line", "missing_parent"]);
	});
});

describe("a whole entry pi appended onto a torn last line", () => {
	it("is loaded: the cut-off bytes before it are reported and skipped", () => {
		const { file, entries } = threeExchanges();
		const fragment = '{"type":"message","id":"cut00001","parentId":"x","message":{"role":"user","cont';
		appendFileSync(file, fragment);
		// pi 0.73.1 does not set the torn line aside: its next entry lands on that line, glued to the fragment.
		const pi = PiSessionManager.open(file);
		pi.appendMessage(user("question 4") as never);
		pi.appendMessage(assistant("answer 4") as never);
		const lines = readFileSync(file, "utf8").split("\n");
		expect(lines[7]!.startsWith(`${fragment}{"type":"message"`)).toBe(true);

		const settle = track(SessionManager.open(file));
		expect(contextTexts(settle)).toEqual([
			"question 1",
			"answer 1",
			"question 2",
			"answer 2",
			"question 3",
			"answer 3",
			"question 4",
			"answer 4",
		]);
		const glued = JSON.parse(lines[7]!.slice(fragment.length)) as SessionEntry;
		expect(glued.parentId).toBe(entries[5]!.id);
		const diagnostics = settle.getDiagnostics();
		expect(diagnostics.map((d) => d.kind)).toEqual(["torn_line"]);
		expect(diagnostics[0]!.line).toBe(8);
		expect(diagnostics[0]!.message).toBe(
			`Line 8 starts with ${fragment.length} bytes of a line cut off mid-write (${fragment.slice(0, 60)}…), skipped; ` +
				`the whole entry written after them on the same line (${glued.id}) was loaded.`,
		);
		// Reading changed nothing: the line stays as pi left it.
		expect(readFileSync(file, "utf8")).toBe(lines.join("\n"));
	});

	it("quotes the cut-off bytes up to an emoji, never half of it", () => {
		const { file } = threeExchanges();
		const start = '{"type":"message","id":"cut00001","message":{"content":"';
		// The emoji's halves are the 60th and 61st characters, where the quote is cut.
		const fragment = `${start.padEnd(59, "a")}😀 and more`;
		appendFileSync(file, fragment);
		const pi = PiSessionManager.open(file);
		pi.appendMessage(user("question 4") as never);
		const [diagnostic] = track(SessionManager.open(file)).getDiagnostics();
		expect(diagnostic!.message).toContain(`(${fragment.slice(0, 59)}…), skipped`);
		expect(diagnostic!.message).not.toMatch(/\p{Cs}/u); // no lone half of a surrogate pair
	});

	it("a line holding only a fragment is still skipped, even when a block with an id ends it", () => {
		const { file } = threeExchanges();
		const lines = readFileSync(file, "utf8").split("\n");
		const block = '{"type":"toolCall","id":"k1","name":"read","arguments":{}}';
		lines.splice(3, 0, `{"type":"message","id":"cut00001","message":{"content":[${block}`);
		writeFileSync(file, lines.join("\n"));
		const settle = track(SessionManager.open(file));
		expect(settle.getDiagnostics().map((d) => d.kind)).toEqual(["malformed_line"]);
		expect(settle.getEntries()).toHaveLength(6);
	});
});

describe("reading only", () => {
	it("a read-only open and readSessionFile re-attach the same way (nothing is written)", () => {
		const { file, entries } = threeExchanges();
		const text = damageLine(file, 3);
		const viewer = track(SessionManager.open(file, { readOnly: true }));
		expect(viewer.getEntry(entries[3]!.id)!.parentId).toBe(entries[1]!.id);
		expect(contextTexts(viewer)).toEqual(["question 1", "answer 1", "answer 2", "question 3", "answer 3"]);
		const read = readSessionFile(file)!;
		expect(read.entries.find((e) => e.id === entries[3]!.id)!.parentId).toBe(entries[1]!.id);
		expect(readFileSync(file, "utf8")).toBe(text);
	});
});
