/**
 * gajae-code#4061 (review of its streaming `/export`): the export refused an output path that
 * resolved to the session file, but compared paths only (`realpath`): a hard link to the live
 * transcript is another path to the same file, so the check passed and opening the page for
 * writing truncated the session itself. What the user should see: the export refused with an error
 * saying why and what to do, the session file as it was, and the session going on writing to it.
 * Settle compares device and inode too, so it holds — replayed with a real hard link, through
 * `settle --export` and through a live session's `/export` (`exportToHtml`).
 */
import { linkSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-export-session-link-");

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("gajae-code#4061: an export's output path that is a hard link to the session file", () => {
	it("gajae-code#4061: `settle --export <session> <hard link to it>` is refused (exit 1) naming the session file; the session keeps every byte", () => {
		const session = join(cli.project, "session.jsonl");
		const header = {
			type: "session",
			version: 3,
			id: "gajae-4061",
			timestamp: "2026-08-09T10:00:00.000Z",
			cwd: cli.project,
		};
		const prompt = {
			type: "message",
			id: "a1b2c3d4",
			parentId: null,
			timestamp: "2026-08-09T10:00:01.000Z",
			message: { role: "user", content: "GAJAE-4061-PROMPT", timestamp: 1_786_269_601_000 },
		};
		writeFileSync(session, `${JSON.stringify(header)}\n${JSON.stringify(prompt)}\n`);
		const before = readFileSync(session);
		const alias = join(cli.project, "transcript.html");
		linkSync(session, alias);

		const run = cli.settle(["--export", session, alias]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(
			/Not writing the HTML export over the session file .+session\.jsonl itself: .*Give another output path/,
		);
		expect(readFileSync(session)).toEqual(before);
		expect(statSync(alias).ino).toBe(statSync(session).ino);
	});

	it("gajae-code#4061: `/export` of a live session to a hard link of its file is refused with INVALID_ARGUMENT; the session goes on and its file holds every prompt", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("first answer"), fauxAssistantMessage("second answer")]);
		await h.session.prompt("first question");
		const file = h.session.sessionFile!;
		const alias = join(h.tempDir, "transcript.html");
		linkSync(file, alias);

		const refused = await h.session.exportToHtml(alias).catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(SettleError);
		expect((refused as SettleError).code).toBe("INVALID_ARGUMENT");
		expect((refused as SettleError).message).toContain("it would replace the session");

		await h.session.prompt("second question");
		const lines = readFileSync(file, "utf8");
		for (const text of ["first question", "first answer", "second question", "second answer"]) {
			expect(lines).toContain(text);
		}
		expect(statSync(alias).ino).toBe(statSync(file).ino);
	});
});
