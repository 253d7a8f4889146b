/**
 * pi#3514 (also pi#2986): a `~` in a session folder was taken literally — JSON has no tilde
 * expansion, and neither has a quoted flag or a value set from a file — so sessions went to a folder
 * named `~` inside the project, and a later lookup in the home folder found none. pi expands `~` in
 * the `sessionDir` setting; Settle does too, and expanded it for `--agent-dir`, but not for
 * `--session-dir`. What the user should see: `~` is the home folder wherever a session folder is
 * named. Real `settle` processes, with `HOME` pointing at a temp folder.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-session-dir-tilde-");

/** `settle --faux --json <args> <prompt>` in the project with `HOME` = `home`; the session id. */
function start(home: string, args: string[], prompt: string): string {
	const run = runSettle(["--faux", "--json", ...args, prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { HOME: home },
	});
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	return (JSON.parse(run.stdout.split("\n")[0]!) as { id: string }).id;
}

describe("pi#3514: a `~` in the session folder is taken literally", () => {
	it("pi#3514: --session-dir '~/kept-sessions' (quoted, so no shell expanded it) keeps the session in the home folder, not in a `~` folder of the project", () => {
		const home = join(cli.dir, "home");
		mkdirSync(home);
		const id = start(home, ["--session-dir", "~/kept-sessions"], "hello");
		expect(existsSync(join(cli.project, "~")), "a folder named ~ in the project").toBe(false);
		expect(readdirSync(join(home, "kept-sessions")).some((name) => name.endsWith(`_${id}.jsonl`))).toBe(true);
	});

	it("pi#3514: a `sessionDir` setting of `~/kept-sessions` keeps the session in the home folder", () => {
		const home = join(cli.dir, "home");
		mkdirSync(home);
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ sessionDir: "~/kept-sessions" }));
		const id = start(home, [], "hello");
		expect(existsSync(join(cli.project, "~"))).toBe(false);
		expect(readdirSync(join(home, "kept-sessions")).some((name) => name.endsWith(`_${id}.jsonl`))).toBe(true);
	});
});
