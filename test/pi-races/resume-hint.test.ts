/**
 * pi#8048: with `PI_CODING_AGENT_DIR` set, the command pi printed for resuming a session left the
 * override out, so pasting it looked in the default folder and found no session. Settle's
 * counterpart: `settle --session <id prefix>` of another project's session names the command that
 * resumes it there, built from the id and the project alone — with `--session-dir` (or a
 * `sessionDir` setting) the session is in a folder that command does not look in, and pasting it
 * failed with "No session of this project has an id starting with …". What the user should see: the
 * named command resumes the session, wherever it is kept. Real `settle` processes.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-resume-hint-");
const settle = cli.settle;

/** The words of the `To resume it there:` command (its paths hold no spaces here, so nothing is quoted). */
function namedCommand(stderr: string): string[] {
	const line = /To resume it there: (.+)\n/.exec(stderr)?.[1];
	expect(line, stderr).toBeDefined();
	const words = line!.split(" ");
	expect(words[0]).toBe("settle");
	return words.slice(1);
}

describe("pi#8048: the command named for resuming a session leaves out where sessions are kept", () => {
	it("pi#8048: --session-dir, another project's id prefix: exit 2 naming a command that, pasted (with --session-dir left off as a user would), resumes that session", () => {
		const sessions = join(cli.dir, "kept-sessions");
		const other = join(cli.dir, "other-project");
		mkdirSync(other);
		const there = settle(["--faux", "--json", "--session-dir", sessions, "--cwd", other, "work over there"]);
		expect(there.code).toBe(0);
		const id = (JSON.parse(there.stdout.split("\n")[0]!) as { id: string }).id;

		const run = settle(["--faux", "-p", "--session-dir", sessions, "--session", id.slice(0, 12), "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(`of the project ${other} does.`);

		const resumed = settle([...namedCommand(run.stderr), "--faux", "--json", "again"]);
		expect(resumed.stderr).toBe("");
		expect(resumed.code).toBe(0);
		expect(JSON.parse(resumed.stdout.split("\n")[0]!)).toMatchObject({ id, cwd: other });
	});
});
