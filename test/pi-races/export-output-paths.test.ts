/**
 * engram#1085: a session export (`engram obsidian-export`) did not make the missing folders of its
 * output path, printed its errors on stderr and still exited 0, so a wrapper reading the summary
 * saw a clean export that had not been written.
 *
 * Replayed against a real `settle --export <session> <page>` on a session file: what the user should
 * see is the page written under folders that did not exist yet (exit 0), and, where the page cannot
 * be written, exit 1 with one error naming the path given and what to do, nothing written, the file
 * in the way kept as it was.
 *
 * oh-my-pi#11484: `omp --export /tmp/missing.jsonl out.html` of a session file that does not exist
 * exited 0 saying "Exported to", made an empty session file at the missing path and wrote a page
 * with no conversation: the export path shared `--session`'s way of starting a new session there.
 * What the user should see: exit 1 naming the missing file, and neither it nor the page made.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-export-output-paths-");

/** A one-prompt session file in the project folder. */
function sessionFile(): string {
	const file = join(cli.project, "session.jsonl");
	const header = {
		type: "session",
		version: 3,
		id: "engram-1085",
		timestamp: "2026-09-08T10:00:00.000Z",
		cwd: cli.project,
	};
	const prompt = {
		type: "message",
		id: "a1b2c3d4",
		parentId: null,
		timestamp: "2026-09-08T10:00:01.000Z",
		message: { role: "user", content: "ENGRAM-1085-PROMPT", timestamp: 1_788_861_601_000 },
	};
	writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(prompt)}\n`);
	return file;
}

describe("engram#1085: where `settle --export` writes its page", () => {
	it("engram#1085: folders of the output path that do not exist are made, and the page is written (exit 0)", () => {
		const page = join(cli.project, "exports", "2026", "09", "page.html");
		const run = cli.settle(["--export", sessionFile(), page]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(readFileSync(page, "utf8")).toContain("ENGRAM-1085-PROMPT");
	});

	it("engram#1085: an output path under a file is refused (exit 1) saying that file is a file, not a folder, and what to do; nothing is written, the file keeps its bytes", () => {
		const session = sessionFile();
		writeFileSync(join(cli.project, "notes"), "my notes\n");
		const page = join(cli.project, "notes", "page.html");
		const run = cli.settle(["--export", session, page]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe(
			`Error: Cannot write the HTML export to ${page}: ${join(cli.project, "notes")} is a file, not a folder. Choose a path outside it, or move that file away.\n`,
		);
		expect(readFileSync(join(cli.project, "notes"), "utf8")).toBe("my notes\n");
		expect(existsSync(join(cli.project, "page.html"))).toBe(false);
	});
});

describe("oh-my-pi#11484: `settle --export` of a session file that does not exist", () => {
	it("oh-my-pi#11484: exit 1 naming the missing file; no session file is made at its path and no page is written", () => {
		const missing = join(cli.project, "missing.jsonl");
		const page = join(cli.project, "page.html");
		const run = cli.settle(["--export", missing, page]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe(`Error: File not found: ${missing}\n`);
		expect(existsSync(missing)).toBe(false);
		expect(existsSync(page)).toBe(false);
	});
});
