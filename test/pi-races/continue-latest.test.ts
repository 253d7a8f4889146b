/**
 * Which session is "the latest", replayed against Settle with real `settle` child processes on real
 * session files.
 *
 * claude-code#79572: a background sync rewrote old session files, bumping their modification time
 * without adding a message; `/resume` sorted by that time, so week-old sessions came first. The same
 * happens after a backup restore or a copy of the sessions folder. Settle's lists (`-r`, `/resume`)
 * sort by the last message's time, but `-c` took the file modified last: it continued the old session
 * the list shows second and appended the new prompt to it. `-c` must continue the session `-r` lists
 * first.
 */
import { readFileSync, utimesSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { RESUME_QUESTION, Repl, transcript } from "../cli/interactive.helpers.js";
import { savedSession } from "./helpers.js";

const cli = useCliProject("settle-pi-races-continue-latest-");

describe("claude-code#79572: an old session file whose modification time was bumped without a new message", () => {
	it("claude-code#79572: settle -r lists the session with the newest message first, and settle -c continues that one, not the file touched last; the touched file keeps its bytes", async () => {
		const old = savedSession(cli, "older work");
		const recent = savedSession(cli, "newer work");
		const oldBytes = readFileSync(old.file, "utf8");
		// A sync or backup tool rewrites the old file later: same bytes, a newer mtime.
		const later = new Date(Date.now() + 60_000);
		utimesSync(old.file, later, later);

		const picker = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toMatch(new RegExp(`  1\\. ${recent.id}  .*newer work\n  2\\. ${old.id}  .*older work\n`));
		picker.send("");
		await picker.until(">");
		expect(await picker.end()).toBe(0);

		const continued = savedSession(cli, "carry on", { args: ["-c"] });
		expect(continued.id).toBe(recent.id);
		expect(transcript(recent.file)).toEqual([
			"user: newer work",
			"assistant: newer work",
			"user: carry on",
			"assistant: carry on",
		]);
		expect(readFileSync(old.file, "utf8")).toBe(oldBytes);
	});
});
