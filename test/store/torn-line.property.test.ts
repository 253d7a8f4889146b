/**
 * DESIGN §8 invariant 7 over random sessions and random crash points: a process that dies while
 * writing a line leaves the file cut anywhere after the header. Reopening it loses at most the line
 * being written (a complete line that only lacks its newline is kept), sets its bytes aside, and the
 * next append starts on a clean line, so a later reopen reads every entry with no diagnostics.
 */
import { readFileSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, user } from "./helpers.js";

const text = fc.oneof(
	fc.string({ maxLength: 24 }),
	fc.string({ unit: "grapheme", maxLength: 12 }),
	fc.constantFrom("é€😀", "日本語のテキスト", "line\nbreak"),
);

/** Byte offsets just after each `\n` of `bytes`. */
function lineEnds(bytes: Buffer): number[] {
	const ends: number[] = [];
	for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) ends.push(at + 1);
	return ends;
}

describe("a torn last line (DESIGN §8 invariant 7)", () => {
	it("loses at most the line being written, and the next append starts on a clean line", () => {
		const dir = tempDir("settle-torn-");
		let n = 0;
		let torn = 0;
		fc.assert(
			fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), fc.nat(), (texts, offset) => {
				const sessionDir = `${dir}/run${n++}`;
				const writer = SessionManager.create("/cwd", sessionDir);
				const messages: AgentMessage[] = texts.map((t, i) => (i % 2 === 0 ? user(t) : assistant(t)));
				for (const message of messages) writer.appendMessage(message);
				const ids = writer.getEntries().map((entry) => entry.id);
				const file = writer.getSessionFile()!;
				writer.close();

				const full = readFileSync(file);
				const ends = lineEnds(full); // ends[0]: end of the header line; ends[i]: end of entry i-1
				const headerEnd = ends[0]!;
				// The crash point: anywhere from just after the header to the whole file.
				const cut = headerEnd + (offset % (full.length - headerEnd + 1));
				const complete = ends.slice(1).filter((end) => end <= cut).length;
				const partial = full.subarray(ends.filter((end) => end <= cut).at(-1)!, cut);
				// A line cut exactly before its newline is complete JSON: it is kept, not lost.
				const keptWithoutNewline = partial.length > 0 && full[cut] === 10;
				const survivors = complete + (keptWithoutNewline ? 1 : 0);
				writeFileSync(file, full.subarray(0, cut));

				const reopened = SessionManager.open(file);
				let id: string;
				try {
					expect(reopened.getEntries().map((entry) => entry.id)).toEqual(ids.slice(0, survivors));
					expect(reopened.getLeafId()).toBe(survivors > 0 ? ids[survivors - 1] : null);
					expect(reopened.buildSessionContext().messages).toEqual(messages.slice(0, survivors));
					const diagnostics = reopened.getDiagnostics();
					if (partial.length === 0) expect(diagnostics).toEqual([]);
					else if (keptWithoutNewline) expect(diagnostics.map((d) => d.kind)).toEqual(["missing_newline"]);
					else {
						torn++;
						expect(diagnostics.map((d) => d.kind)).toEqual(["torn_line"]);
						expect(readFileSync(diagnostics[0]!.setAsidePath!)).toEqual(partial);
					}
					id = reopened.appendMessage(user("after the crash"));
				} finally {
					reopened.close();
				}

				const again = SessionManager.open(file);
				try {
					expect(again.getDiagnostics()).toEqual([]);
					expect(again.getEntries().map((entry) => entry.id)).toEqual([...ids.slice(0, survivors), id]);
					expect(again.buildSessionContext().messages).toEqual([
						...messages.slice(0, survivors),
						user("after the crash"),
					]);
				} finally {
					again.close();
				}
			}),
			{ numRuns: 100 },
		);
		// Most crash points fall inside a line: the torn case must have been exercised.
		expect(torn).toBeGreaterThan(0);
	});
});
