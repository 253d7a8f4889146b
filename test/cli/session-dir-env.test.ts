/**
 * SETTLE_SESSION_DIR (pi's PI_CODING_AGENT_SESSION_DIR): the `settle` command's session folder from
 * the environment, with pi's precedence — `--session-dir`, then the variable, then the `sessionDir`
 * setting, then `<agent dir>/sessions/--<cwd>--/`. Every way the command picks a session looks
 * there: a new session, `-c`, `--session <id prefix>`, and `--rpc`. Real `settle` processes.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettle, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-session-dir-env-");

/** `settle --faux --json <args> <prompt>` in the project with `env`; the session's id. */
function run(args: string[], prompt: string, env: Record<string, string>): string {
	const result = runSettle(["--faux", "--json", ...args, prompt], { cwd: cli.project, agentDir: cli.agentDir, env });
	expect(result.stderr).toBe("");
	expect(result.code).toBe(0);
	return (JSON.parse(result.stdout.split("\n")[0]!) as { id: string }).id;
}

/** The session files in `folder` (none when it does not exist). */
function sessionFiles(folder: string): string[] {
	try {
		return readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
	} catch {
		return [];
	}
}

describe("SETTLE_SESSION_DIR: the session folder from the environment (pi's PI_CODING_AGENT_SESSION_DIR)", () => {
	it("a new session is written there; -c, --session <id prefix> and --rpc find it there", async () => {
		const folder = join(cli.dir, "env-sessions");
		const env = { SETTLE_SESSION_DIR: folder };
		const id = run([], "first", env);
		expect(sessionFiles(folder)).toEqual([expect.stringMatching(new RegExp(`_${id}\\.jsonl$`))]);
		expect(sessionFiles(join(cli.agentDir, "sessions"))).toEqual([]);

		expect(run(["-c"], "second", env)).toBe(id);
		expect(run(["--session", id.slice(0, 8)], "third", env)).toBe(id);
		expect(sessionFiles(folder)).toHaveLength(1);

		const rpc = new RpcClient(["--faux", "-c"], { cwd: cli.project, agentDir: cli.agentDir, env });
		const state = await rpc.request({ id: "1", type: "get_state" });
		expect(state).toMatchObject({ success: true, data: { sessionId: id } });
		expect(await rpc.end()).toBe(0);
	});

	it("a `~` in it is the home folder", () => {
		const home = join(cli.dir, "home");
		mkdirSync(home);
		const id = run([], "hello", { HOME: home, SETTLE_SESSION_DIR: "~/kept-sessions" });
		expect(sessionFiles(join(home, "kept-sessions"))).toEqual([expect.stringMatching(new RegExp(`_${id}\\.jsonl$`))]);
	});

	it("--session-dir beats it, and it beats the sessionDir setting", () => {
		const fromEnv = join(cli.dir, "env-sessions");
		const fromFlag = join(cli.dir, "flag-sessions");
		const fromSettings = join(cli.dir, "settings-sessions");
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ sessionDir: fromSettings }));
		const env = { SETTLE_SESSION_DIR: fromEnv };

		const flagged = run(["--session-dir", fromFlag], "flag", env);
		expect(sessionFiles(fromFlag)).toEqual([expect.stringMatching(new RegExp(`_${flagged}\\.jsonl$`))]);
		const environment = run([], "env", env);
		expect(sessionFiles(fromEnv)).toEqual([expect.stringMatching(new RegExp(`_${environment}\\.jsonl$`))]);
		expect(sessionFiles(fromSettings)).toEqual([]);
		// Without the variable, the setting applies (and -c there does not see the env folder's session).
		const setting = run(["-c"], "setting", {});
		expect(setting).not.toBe(environment);
		expect(sessionFiles(fromSettings)).toEqual([expect.stringMatching(new RegExp(`_${setting}\\.jsonl$`))]);
	});
});
