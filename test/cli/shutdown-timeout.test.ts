/**
 * pi#9811 through the real `settle` process: an extension whose `session_shutdown` handler never
 * returns (and holds a live timer, so the process cannot just run out of work) froze `/reload` and
 * the exit for good. Now each waits `SETTLE_SHUTDOWN_TIMEOUT_MS` (default 10 s; 300 ms here), names
 * the handler's extension, and goes on.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-shutdown-timeout-");

function stuckExtension(): string {
	const file = join(cli.dir, "stuck-shutdown.ts");
	writeFileSync(
		file,
		`export default function (pi) {\n\tpi.on("session_shutdown", () => new Promise(() => { setInterval(() => {}, 1000); }));\n}\n`,
	);
	return file;
}

describe("settle: a session_shutdown handler that never returns (pi#9811)", () => {
	it("/reload goes on after the bound and says which extension's handler it gave up on; the exit does too", async () => {
		const file = stuckExtension();
		const chat = new Repl(["--approve", "--faux", "--no-session", "-e", file], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { SETTLE_SHUTDOWN_TIMEOUT_MS: "300" },
		});
		await chat.idle(0);
		const reloaded = await chat.say("/reload");
		expect(reloaded).toMatch(/^Reloaded: 1 extension, /m);
		const said = () => chat.stdout + chat.stderr;
		expect(said()).toContain(
			`Extension error (${file}, session_shutdown): session_shutdown handler did not finish within 300 ms; the reload went on without it`,
		);
		// The reloaded session still answers.
		expect(await chat.say("hello", "hello\n>")).toContain("hello\n");
		expect(await chat.end()).toBe(0);
		expect(said()).toContain(
			`Extension error (${file}, session_shutdown): session_shutdown handler did not finish within 300 ms; the dispose went on without it`,
		);
	});

	it("regression: one waiting on a promise nothing resolves (no live handle) ended settle -p at once with exit 1 naming no one; now the exit waits the bound and names it, exit 0", () => {
		const file = join(cli.dir, "idle-shutdown.ts");
		writeFileSync(
			file,
			`export default function (pi) {\n\tpi.on("session_shutdown", () => new Promise(() => {}));\n}\n`,
		);
		const run = runSettle(["--approve", "--faux", "-e", file, "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { SETTLE_SHUTDOWN_TIMEOUT_MS: "300" },
		});
		expect(run).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr: expect.stringContaining(
				`Extension error (${file}, session_shutdown): session_shutdown handler did not finish within 300 ms; the dispose went on without it`,
			),
		});
		expect(run.stderr).not.toContain("never settles");
	});

	it("a SETTLE_SHUTDOWN_TIMEOUT_MS that is not a duration is a usage error saying what to set", () => {
		const run = runSettle(["--faux", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { SETTLE_SHUTDOWN_TIMEOUT_MS: "soon" },
		});
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(
			"SETTLE_SHUTDOWN_TIMEOUT_MS=soon is not a duration: set it to a number of milliseconds ≥ 0",
		);
	});
});
