/**
 * Reports about the working folder and the folders sessions live in, replayed against real `settle`
 * processes on real folders, links and session files.
 *
 * hapi#890: resuming a session whose recorded folder is a symbolic link to a deleted worktree said
 * the folder could not be made (`EEXIST`): the link is right there, nothing said its target is gone.
 * claude-code#59393: the project's folder under the sessions folder was a symlink (kept on other
 * storage): the `/resume` picker found no conversation while `--continue` loaded it.
 * pi#5040: with `PI_CODING_AGENT_SESSION_DIR` (flat storage) "Current folder" listed every
 * project's sessions and "All" none. claude-code#73428, gemini-cli#20537: started from a shell whose
 * folder had been deleted, the CLI died of `uv_cwd` (even `--version`). cli-sub-agent#2979: the
 * session folder was read-only; the run failed after it had started instead of before. gops#60,
 * sh1pt#695: an empty `HOME` read as none though the user has one; a `HOME` that is no absolute path
 * put the config folder in the current folder.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, symlinkSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// pi 0.73.1's own agent-folder lookup, for the side-by-side check (the module alone).
import { getAgentDir as piGetAgentDir } from "../../node_modules/@mariozechner/pi-coding-agent/dist/config.js";
import { SettleError } from "../../src/errors.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { getDefaultAgentDir } from "../../src/settings/paths.js";
import { cliCommand, runSettle, useCliProject } from "../cli/helpers.js";
import { RESUME_QUESTION } from "../cli/interactive.helpers.js";
import { sessionFilesUnder, writeProtect } from "./helpers.js";

const cli = useCliProject("settle-pi-races-folder-links-");

function settleIn(cwd: string, args: string[], env?: Record<string, string | undefined>): ReturnType<typeof runSettle> {
	return runSettle(args, { cwd, agentDir: cli.agentDir, env });
}

/** The id `settle --json` printed in its session header. */
function sessionId(stdout: string): string {
	return (JSON.parse(stdout.split("\n")[0]!) as { id: string }).id;
}

describe("hapi#890: a session whose folder is a link to a deleted worktree: the error hides the link", () => {
	it("hapi#890: --session, --cwd and the SDK's cwd name the link's missing target; with the target back the session continues", async () => {
		const worktree = join(cli.dir, "worktrees", "feature");
		mkdirSync(worktree, { recursive: true });
		const link = join(cli.dir, "proj-feature");
		symlinkSync(worktree, link);
		const first = settleIn(cli.project, ["--faux", "--json", "--cwd", worktree, "work in feature"]);
		expect(first.code).toBe(0);
		const [file] = sessionFilesUnder(cli.agentDir);
		// The header holds the link, as pi writes it for a session started with that path.
		const lines = readFileSync(file!, "utf8").split("\n");
		const header = JSON.parse(lines[0]!) as { cwd: string };
		expect(header.cwd).toBe(worktree);
		writeFileSync(file!, [JSON.stringify({ ...header, cwd: link }), ...lines.slice(1)].join("\n"));
		const bytes = readFileSync(file!, "utf8");

		rmdirSync(worktree);
		const resumed = settleIn(cli.project, ["--faux", "--session", file!, "-p", "again"]);
		expect(resumed.code).toBe(3);
		expect(resumed.stdout).toBe("");
		expect(resumed.stderr.split("\n")[0]).toBe(
			`Error: Stored session working directory does not exist: ${link} (a symbolic link to ${worktree}, which does not exist)`,
		);
		expect(resumed.stderr).toContain("Pass --cwd <dir> to continue the session in another directory.");
		expect(readFileSync(file!, "utf8")).toBe(bytes);

		const there = settleIn(cli.project, ["--faux", "--cwd", link, "-p", "again"]);
		expect(there.code).toBe(2);
		expect(there.stderr.split("\n")[0]).toBe(
			`Error: --cwd: ${link} does not exist (a symbolic link to ${worktree}, which does not exist). Pass the project's directory (or leave --cwd out to work in the current one).`,
		);

		await expect(createAgentSession({ cwd: link, agentDir: cli.agentDir })).rejects.toThrow(
			`Working directory does not exist: ${link} (a symbolic link to ${worktree}, which does not exist). Pass an existing project directory as \`cwd\`.`,
		);

		// A folder that is simply gone still says only that.
		const gone = join(cli.dir, "gone");
		expect(settleIn(cli.project, ["--faux", "--cwd", gone, "-p", "x"]).stderr.split("\n")[0]).toBe(
			`Error: --cwd: ${gone} does not exist. Pass the project's directory (or leave --cwd out to work in the current one).`,
		);

		mkdirSync(worktree);
		expect(settleIn(cli.project, ["--faux", "--session", file!, "-p", "again"])).toMatchObject({
			code: 0,
			stdout: "again\n",
		});
	});
});

describe("claude-code#59393: the project's session folder a symlink: the picker found no session", () => {
	it("claude-code#59393: with the folder moved elsewhere and linked back, -r lists the session, `all` too, and -c continues it there", () => {
		const first = settleIn(cli.project, ["--faux", "--json", "first one"]);
		expect(first.code).toBe(0);
		const id = sessionId(first.stdout);
		const sessions = join(cli.agentDir, "sessions");
		const [folder] = readdirSync(sessions);
		const storage = join(cli.dir, "storage");
		mkdirSync(storage);
		renameSync(join(sessions, folder!), join(storage, folder!));
		symlinkSync(join(storage, folder!), join(sessions, folder!));

		// Answered with an empty line: a new session, nothing written.
		const listed = runSettle(["--faux", "-i", "-r"], { cwd: cli.project, agentDir: cli.agentDir, input: "\n" });
		expect(listed.code).toBe(0);
		expect(listed.stdout).toContain("Sessions of this project, newest first:\n");
		expect(listed.stdout).toMatch(
			new RegExp(`  1\\. ${id}  .*  2 msgs  first one\n${RESUME_QUESTION.replace(/[?()]/g, "\\$&")}`),
		);
		const all = runSettle(["--faux", "-i", "-r"], { cwd: cli.project, agentDir: cli.agentDir, input: "all\n\n" });
		expect(all.stdout).toMatch(
			new RegExp(`Sessions of every project, newest first:\n  1\\. ${id}  .*first one\n     in `),
		);

		expect(settleIn(cli.project, ["--faux", "-c", "-p", "second"])).toMatchObject({ code: 0, stdout: "second\n" });
		const files = readdirSync(join(storage, folder!));
		expect(files).toHaveLength(1);
		expect(readFileSync(join(storage, folder!, files[0]!), "utf8")).toContain('"second"');
	});
});

describe("pi#5040: a session folder from the environment: 'current folder' listed every project's, 'all' none", () => {
	it("pi#5040: SETTLE_SESSION_DIR shared by A and B: -r in A lists A's only, `all` lists both, -c in A continues A's", () => {
		const flat = join(cli.dir, "flat");
		const env = { SETTLE_SESSION_DIR: flat };
		const a = join(cli.dir, "project-a");
		const b = join(cli.dir, "project-b");
		mkdirSync(a);
		mkdirSync(b);
		const fromA = settleIn(a, ["--faux", "--json", "hello from A"], env);
		const fromB = settleIn(b, ["--faux", "--json", "hello from B"], env);
		expect([fromA.code, fromB.code]).toEqual([0, 0]);
		const [idA, idB] = [sessionId(fromA.stdout), sessionId(fromB.stdout)];
		expect(readdirSync(flat)).toHaveLength(2);

		const listed = runSettle(["--faux", "-i", "-r"], { cwd: a, agentDir: cli.agentDir, env, input: "all\n\n" });
		const [mine, every] = listed.stdout.split("Sessions of every project, newest first:\n");
		expect(mine).toMatch(new RegExp(`  1\\. ${idA}  .*hello from A\n`));
		expect(mine).not.toContain(idB);
		expect(every).toContain(`${idB}  `);
		expect(every).toContain(`${idA}  `);
		expect(every).toContain(`     in ${b}\n`);

		expect(settleIn(a, ["--faux", "-c", "-p", "again"], env)).toMatchObject({ code: 0, stdout: "again\n" });
		const fileA = readdirSync(flat).find((name) => name.includes(idA))!;
		expect(readFileSync(join(flat, fileA), "utf8")).toContain('"again"');
	});
});

describe("claude-code#73428, gemini-cli#20537: started in a folder deleted under the shell: uv_cwd", () => {
	it("claude-code#73428: settle in a deleted folder says so in one line (exit 1), writes nothing; --version still answers", () => {
		const doomed = join(cli.dir, "doomed");
		mkdirSync(doomed);
		const settle = [process.execPath, ...cliCommand()].map((word) => `'${word}'`).join(" ");
		const run = (args: string) =>
			spawnSync("sh", ["-c", `cd '${doomed}' && rmdir '${doomed}' && exec ${settle} ${args}`], {
				encoding: "utf8",
				input: "",
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			});
		const prompt = run("--faux -p hi");
		expect({ code: prompt.status, stdout: prompt.stdout, stderr: prompt.stderr }).toEqual({
			code: 1,
			stdout: "",
			stderr:
				"Error: The current directory no longer exists (deleted or moved): cd into the project again, or give it with --cwd <dir>.\n",
		});
		expect(sessionFilesUnder(cli.agentDir)).toEqual([]);
		mkdirSync(doomed);
		const version = run("--version");
		expect(version.status).toBe(0);
		expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
	});
});

describe("cli-sub-agent#2979: a read-only session folder failed the run after it started", () => {
	it.runIf(process.platform === "linux")(
		"cli-sub-agent#2979: settle -p with the project's session folder write-protected refuses before the request, naming the way out",
		() => {
			expect(settleIn(cli.project, ["--faux", "-p", "first"]).code).toBe(0);
			const [folder] = readdirSync(join(cli.agentDir, "sessions"));
			const sessions = join(cli.agentDir, "sessions", folder!);
			const undo = writeProtect(sessions);
			try {
				const refused = settleIn(cli.project, ["--faux", "-p", "audit this"]);
				expect(refused.code).toBe(1);
				expect(refused.stdout).toBe("");
				expect(refused.stderr).toBe(
					`Error: Cannot keep sessions in ${sessions}: ${sessions} is not writable. Pass --session-dir <folder> (or --agent-dir <folder>), or --no-session to keep the session in memory.\n`,
				);
				expect(settleIn(cli.project, ["--faux", "--no-session", "-p", "audit this"])).toMatchObject({
					code: 0,
					stdout: "audit this\n",
				});
			} finally {
				undo();
			}
			expect(readdirSync(sessions)).toHaveLength(1);
		},
	);
});

describe("gops#60, sh1pt#695: HOME empty or not a path: no home, or the config folder in the current one", () => {
	/** Runs `read` with HOME set to `home` (restored after). */
	function withHome<T>(home: string, read: () => T): T {
		const saved = process.env.HOME;
		process.env.HOME = home;
		try {
			return read();
		} finally {
			process.env.HOME = saved;
		}
	}

	it("gops#60: with HOME empty the agent folder is in the user's home from the passwd entry (pi 0.73.1: `.pi/agent` in the current folder)", () => {
		const passwd = userInfo().homedir;
		expect(withHome("", () => getDefaultAgentDir({}))).toBe(join(passwd, ".settle", "agent"));
		expect(withHome("", () => piGetAgentDir())).toBe(join(".pi", "agent"));
	});

	it("sh1pt#695: with a relative HOME, settle refuses (exit 1) and writes nothing into the project; SETTLE_AGENT_DIR still works", () => {
		// An empty SETTLE_AGENT_DIR is none: the agent folder comes from HOME.
		const relative = runSettle(["--faux", "-p", "hi"], { cwd: cli.project, agentDir: "", env: { HOME: "home" } });
		expect(relative).toEqual({
			code: 1,
			stdout: "",
			stderr:
				'Error: There is no home folder for the agent folder ~/.settle/agent: HOME is "home", not an absolute path (the folder would be inside the current one). Set SETTLE_AGENT_DIR=<folder> (settle --agent-dir <folder>, agentDir in code), or HOME.\n',
		});
		expect(readdirSync(cli.project)).toEqual([]);
		// The sessionDir setting's `~` is the same home folder: refused too, not a folder in the project.
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ sessionDir: "~/kept" }));
		const kept = settleIn(cli.project, ["--faux", "-p", "hi"], { HOME: "home" });
		expect(kept.code).toBe(1);
		expect(kept.stderr).toContain('There is no home folder for ~/kept: HOME is "home", not an absolute path');
		expect(readdirSync(cli.project)).toEqual([]);
		writeFileSync(join(cli.agentDir, "settings.json"), "{}");
		expect(() => withHome("home", () => getDefaultAgentDir({}))).toThrow(SettleError);
		expect(settleIn(cli.project, ["--faux", "-p", "hi"], { HOME: "home" })).toMatchObject({ code: 0, stdout: "hi\n" });
	});
});
