/**
 * `settle --session <value>` as a user types it: a whole id, a partial id (pi accepts one), an id
 * that matches several sessions or none (the error lists what there is), and a path that does not
 * exist (a new session starts there, as in pi, with a warning: a typo should not pass unnoticed).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-session-arg-");
const settle = cli.settle;

/** Starts a session with one prompt; returns its id and file. */
function newSession(prompt: string): { id: string; file: string } {
	const run = settle(["--faux", "--json", prompt]);
	expect(run.code).toBe(0);
	const header = JSON.parse(run.stdout.split("\n")[0]!) as { id: string };
	const sessionsDir = join(cli.agentDir, "sessions");
	const [folder] = readdirSync(sessionsDir);
	const file = readdirSync(join(sessionsDir, folder!))
		.map((name) => join(sessionsDir, folder!, name))
		.find((path) => readFileSync(path, "utf8").includes(header.id));
	return { id: header.id, file: file! };
}

/** A copy of `file` as another session of the same project, with the header id `id`. */
function copyWithId(file: string, id: string): void {
	const [header, ...rest] = readFileSync(file, "utf8").split("\n");
	const renamed = { ...(JSON.parse(header!) as object), id };
	writeFileSync(
		join(dirname(file), `2020-01-01T00-00-00-000Z_${id}.jsonl`),
		[JSON.stringify(renamed), ...rest].join("\n"),
	);
}

describe("settle --session", () => {
	it("a unique partial id resumes that session", () => {
		const first = newSession("first question");
		const run = settle(["--faux", "--json", "--session", first.id.slice(0, 13), "again"]);
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout.split("\n")[0]!)).toMatchObject({ type: "session", id: first.id });
		expect(readFileSync(first.file, "utf8")).toContain("again");
	});

	it("a partial id of several sessions: exit 2 listing them, nothing written", () => {
		const first = newSession("first question");
		copyWithId(first.file, "0badc0de-0000-7000-8000-000000000001");
		copyWithId(first.file, "0badc0de-0000-7000-8000-000000000002");
		const before = readFileSync(first.file, "utf8");
		const run = settle(["--faux", "-p", "--session", "0badc0de", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(/^Error: 2 sessions of this project have an id starting with 0badc0de: /);
		expect(run.stderr).toContain("0badc0de-0000-7000-8000-000000000001 (");
		expect(run.stderr).toContain("0badc0de-0000-7000-8000-000000000002 (");
		expect(run.stderr).toContain('"first question"');
		expect(run.stderr).toContain("Give more of the id.");
		expect(readFileSync(first.file, "utf8")).toBe(before);
	});

	it("a listed session whose first message is cut at an emoji shows it whole or not at all, never half", () => {
		// The listing keeps 39 characters; the 39th is the first half of the emoji.
		const first = newSession(`${"q".repeat(38)}\u{1F600} and the rest of the question`);
		copyWithId(first.file, "0badc0de-0000-7000-8000-000000000001");
		copyWithId(first.file, "0badc0de-0000-7000-8000-000000000002");
		const run = settle(["--faux", "-p", "--session", "0badc0de", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).not.toContain("\uFFFD");
		expect(run.stderr.split(`"${"q".repeat(38)}…"`)).toHaveLength(3);
	});

	it("more than five matches: five listed and how many more", () => {
		const first = newSession("first question");
		for (let n = 1; n <= 7; n++) copyWithId(first.file, `0badc0de-0000-7000-8000-00000000000${n}`);
		const run = settle(["--faux", "-p", "--session", "0badc0de", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/^Error: 7 sessions of this project have an id starting with 0badc0de: /);
		expect(run.stderr.match(/0badc0de-0000-7000-8000-00000000000\d \(\d{4}-\d\d-\d\dT/g)).toHaveLength(5);
		expect(run.stderr).toContain("; and 2 more. Give more of the id.\n");
	});

	it("an id of another project's session: exit 2 naming that project and the command that resumes it there", () => {
		const other = join(cli.dir, "other project");
		mkdirSync(other);
		const there = settle(["--faux", "--json", "--cwd", other, "work over there"]);
		expect(there.code).toBe(0);
		const id = (JSON.parse(there.stdout.split("\n")[0]!) as { id: string }).id;
		newSession("work here");

		const run = settle(["--faux", "-p", "--session", id.slice(0, 20), "hi"]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			`Error: No session of this project (${cli.project}) has an id starting with ${id.slice(0, 20)}; session ${id} (`,
		);
		expect(run.stderr).toContain(`"work over there") of the project ${other} does.`);
		// The session's file (found by its path wherever sessions are kept, pi#8048), in the other project.
		const named = new RegExp(`To resume it there: settle --cwd '${other}' --session '([^']+_${id}\\.jsonl)'\n`).exec(
			run.stderr,
		);
		expect(named, run.stderr).not.toBeNull();
		// The command it names works (both paths have a space: quoted for the shell).
		const resumed = settle(["--faux", "--json", "--cwd", other, "--session", named![1]!, "again"]);
		expect(resumed.code).toBe(0);
		expect(JSON.parse(resumed.stdout.split("\n")[0]!)).toMatchObject({ id });
	});

	it("an id that matches nothing: exit 2 naming the latest sessions and --continue", () => {
		const first = newSession("first question");
		const run = settle(["--faux", "-p", "--session", "ffffffff", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("No session of this project has an id starting with ffffffff (in ");
		expect(run.stderr).toContain(`The latest: ${first.id} (`);
		expect(run.stderr).toContain("settle --continue resumes the latest");
	});

	it("an id in a project without sessions says so", () => {
		const run = settle(["--faux", "-p", "--session", "ffffffff", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("This project has no sessions yet.");
	});

	it("a path that does not exist: a new session there, with a warning on stderr", () => {
		const path = join(cli.dir, "typo.jsonl");
		const run = settle(["--faux", "-p", "--session", path, "hello"]);
		expect(run).toEqual({
			code: 0,
			stdout: "hello\n",
			stderr: `Warning: ${path} does not exist: starting a new session there.\n`,
		});
		expect(existsSync(path)).toBe(true);
		const resumed = settle(["--faux", "-p", "--session", path, "again"]);
		expect(resumed).toEqual({ code: 0, stdout: "again\n", stderr: "" });
	});
});
