/**
 * `runtime.dispose()` waits for the extensions' `session_shutdown` handlers at most
 * `shutdownTimeoutMs`, then reports the ones still running and goes on. In a real process that must
 * hold even when nothing else keeps Node alive — a script awaiting `dispose()` at top level, whose
 * handler waits on a promise nothing resolves: the bounded wait is what the script is waiting for,
 * so it keeps the process alive until it ends. With `Infinity` (no bound, as pi) there is nothing to
 * wait for, and the process ends as pi's does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diskRoles } from "../bad-input/helpers.js";
import { ROOT } from "../cli/helpers.js";
import { runScript, type ScriptRun } from "./script-process.js";

const SCRIPT = join(ROOT, "test/fixtures/lifetime/dispose-stuck-shutdown-handler.ts");

let dir: string | undefined;
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
	dir = undefined;
});

function runDisposeScript(shutdownTimeoutMs: string): Promise<ScriptRun> {
	dir = mkdtempSync(join(tmpdir(), "settle-dispose-wait-"));
	return runScript(SCRIPT, [dir, join(dir, "agent"), shutdownTimeoutMs], { cwd: dir });
}

describe("runtime.dispose() in a real process, a session_shutdown handler waiting on nothing", () => {
	it("regression: a script awaiting runtime.dispose() gets past it after shutdownTimeoutMs with the handler reported, instead of Node exiting inside dispose() with the rest of the script never run", async () => {
		const { code, stdout, stderr } = await runDisposeScript("300");

		expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
		// The line after `await runtime.dispose()` ran (cut off, the script ends silently, exit 0).
		expect(stdout).toContain('"sessionFile"');
		const { sessionFile, errors, lifecycle } = JSON.parse(stdout) as {
			sessionFile: string;
			errors: string[];
			lifecycle: string;
		};
		expect(lifecycle).toBe("disposed");
		expect(errors).toEqual([expect.stringMatching(/^session_shutdown: .*300 ms/)]);
		expect(diskRoles(sessionFile).slice(-2)).toEqual(["user", "assistant"]);
	});

	it("with shutdownTimeoutMs Infinity (wait as long as the handlers take, as pi) the process ends as pi's: nothing keeps it alive", async () => {
		const { code, stdout, stderr } = await runDisposeScript("Infinity");

		expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
	});
});
