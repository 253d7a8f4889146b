/**
 * Risk: on a shared machine or CI runner, other local users read your conversations. Session files
 * hold every prompt, every file the agent read and every command's output; pi 0.73.1 (and Settle
 * before) made the agent and session folders with the umask's default (0755), so with the usual
 * umask 022 any user could `cat` them. Folders Settle makes for sessions are now the owner's only
 * (0700); folders that already exist keep their permissions. Real `settle` processes; the other
 * user is a real uid (util-linux setpriv) when the tests run as root.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-sec-modes-");

const mode = (path: string) => statSync(path).mode & 0o777;

function onlySessionFile(root: string): string {
	const [name] = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((n) => n.endsWith(".jsonl"));
	expect(name).toBeDefined();
	return join(root, name!);
}

/** `cat <file>` as another user (uid 12345, no groups); its exit code. Root only. */
function catAsOtherUser(file: string): number | null {
	return spawnSync("setpriv", ["--reuid=12345", "--regid=12345", "--clear-groups", "cat", file], { encoding: "utf8" })
		.status;
}

describe("session folders are private to their owner", () => {
	it("the agent folder and session folders settle makes are 0700", () => {
		chmodSync(cli.dir, 0o755); // a world-readable parent, as a home directory often is
		const run = cli.settle(["--faux", "-p", "my token is hunter2"]);
		expect(run.code).toBe(0);
		const file = onlySessionFile(join(cli.agentDir, "sessions"));
		expect(mode(cli.agentDir)).toBe(0o700);
		expect(mode(join(cli.agentDir, "sessions"))).toBe(0o700);
		expect(mode(join(file, ".."))).toBe(0o700);
	});

	it("a --session-dir settle makes is 0700; one that exists keeps its mode", () => {
		chmodSync(cli.dir, 0o755);
		const made = join(cli.dir, "ci-sessions");
		expect(cli.settle(["--faux", "--session-dir", made, "-p", "hi"]).code).toBe(0);
		expect(mode(made)).toBe(0o700);
		const shared = join(cli.dir, "shared");
		spawnSync("mkdir", ["-m", "0755", shared]);
		expect(cli.settle(["--faux", "--session-dir", shared, "-p", "hi"]).code).toBe(0);
		expect(mode(shared)).toBe(0o755);
	});

	it.runIf(process.getuid?.() === 0)("another user cannot read a session file in the default folder", () => {
		chmodSync(cli.dir, 0o755);
		expect(cli.settle(["--faux", "-p", "my token is hunter2"]).code).toBe(0);
		const file = onlySessionFile(join(cli.agentDir, "sessions"));
		expect(catAsOtherUser(file)).not.toBe(0);
	});
});
