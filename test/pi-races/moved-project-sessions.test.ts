/**
 * Sessions of a project folder that was moved or renamed, replayed against Settle with real `settle`
 * child processes on real session files.
 * maka#2529: after the project's folder moved, `maka --resume <id>` refused ("Session cwd no longer
 * exists"), and the only way to go on was inside the session, which would not open; the fix asked
 * for `--resume <id> --cwd <new path>`. claude-code#37954: sessions are keyed by the folder's path,
 * so after `mv my-project my-project-v2` resuming by id found nothing. Settle's `--session <id>` in
 * the new folder names the old project's session and the command that resumes it here; but given
 * `--cwd <new folder>` with that id, it refused with the same advice (`--cwd` and the file's path),
 * the user's `--cwd` ignored. What the user should see: the id and an explicit `--cwd` resume the
 * session in that folder, appending to its own file; without `--cwd` it still only says how.
 */
import { mkdirSync, readFileSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { transcript } from "../cli/interactive.helpers.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-moved-project-");

function settleIn(cwd: string, ...args: string[]) {
	return runSettle(["--faux", ...args], { cwd, agentDir: cli.agentDir });
}

describe("maka#2529, claude-code#37954: resuming by id a session of a project folder that was moved", () => {
	it("maka#2529: `settle -p --session <id> --cwd <new folder>` continues the moved project's session in its own file; without --cwd it refuses, naming the way", () => {
		expect(settleIn(cli.project, "-p", "remember the word heron").code).toBe(0);
		const [file] = sessionFilesUnder(cli.agentDir);
		const id = basename(file!, ".jsonl").split("_")[1]!;
		const moved = join(cli.dir, "project-v2");
		renameSync(cli.project, moved);

		// Without --cwd: nothing resumed, nothing written, the way out named.
		const before = readFileSync(file!, "utf8");
		const refused = settleIn(moved, "-p", "--session", id, "what was the word?");
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain("that folder no longer exists");
		expect(refused.stderr).toContain(`--cwd ${moved}`);
		expect(readFileSync(file!, "utf8")).toBe(before);

		// With --cwd, as that advice says: the same session goes on in the new folder.
		const resumed = settleIn(moved, "-p", "--session", id, "--cwd", moved, "what was the word?");
		expect(resumed.stderr).toBe("");
		expect(resumed.code).toBe(0);
		expect(sessionFilesUnder(cli.agentDir)).toEqual([file]);
		expect(transcript(file!)).toEqual([
			"user: remember the word heron",
			"assistant: remember the word heron",
			"user: what was the word?",
			"assistant: what was the word?",
		]);
	});

	it("claude-code#37954: `--session <id> --cwd <another folder>` of a session whose folder still exists is not taken over: it names the way to resume it there", () => {
		expect(settleIn(cli.project, "-p", "first").code).toBe(0);
		const [file] = sessionFilesUnder(cli.agentDir);
		const id = basename(file!, ".jsonl").split("_")[1]!;
		const other = join(cli.dir, "other");
		const before = readFileSync(file!, "utf8");
		mkdirSync(other);
		const run = settleIn(other, "-p", "--session", id, "--cwd", other, "next");
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(`To resume it there: settle --cwd ${cli.project}`);
		expect(readFileSync(file!, "utf8")).toBe(before);
	});
});
