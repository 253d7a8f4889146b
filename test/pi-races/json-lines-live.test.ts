/**
 * claude-code#25670, replayed: `claude -p --output-format stream-json` piped into another program
 * (`| head`, `| grep`, a script) held its JSON lines in a block buffer until it filled or the
 * process exited, so a reader saw nothing while the run went on. Against Settle: a real
 * `settle --mode json -p` whose stdout is a pipe runs a bash call that waits until the reader has
 * seen that call's `tool_execution_start` line. Held back until exit, the line would never come and
 * the run would wait for good (ended by the hang guard, the test failing).
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, trackChild, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-json-lines-live-");

/** Guards against a hang only: a run waits for its reader here, and a held-back line would wait forever. */
const HANG_GUARD_MS = 30_000;

describe("claude-code#25670: stream-json piped into another program was block-buffered: nothing came until exit", () => {
	it("claude-code#25670: settle --mode json -p through a pipe: the bash call's tool_execution_start reaches the reader while the call runs, and the call (waiting for the reader) then ends; exit 0, agent_settled last", async () => {
		const seen = join(cli.project, "reader-saw-the-call");
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{ name: "bash", arguments: { command: `while [ ! -f '${seen}' ]; do sleep 0.05; done; echo seen` } },
					],
				},
				"done",
			]),
		);
		const child = spawn(process.execPath, [...cliCommand(), "--faux-script", script, "--mode", "json", "-p", "go"], {
			cwd: cli.project,
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const closed = trackChild(child);
		// SIGTERM: settle then ends the waiting bash call too, which a SIGKILL would orphan.
		const guard = setTimeout(() => child.kill("SIGTERM"), HANG_GUARD_MS);
		const types: string[] = [];
		let pending = "";
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			pending += chunk;
			for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
				const event = JSON.parse(pending.slice(0, end)) as { type: string };
				pending = pending.slice(end + 1);
				types.push(event.type);
				// What a live reader does with the line: here, it lets the call finish.
				if (event.type === "tool_execution_start") writeFileSync(seen, "");
			}
		});
		let stderr = "";
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (text: string) => {
			stderr += text;
		});
		const code = await closed.finally(() => clearTimeout(guard));

		expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
		expect(existsSync(seen)).toBe(true);
		expect(pending).toBe("");
		expect(types.indexOf("tool_execution_start")).toBeLessThan(types.indexOf("tool_execution_end"));
		expect(types.at(-1)).toBe("agent_settled");
	});
});
