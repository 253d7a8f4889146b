/**
 * A terminal resized while `settle` runs, replayed in a real pseudo-terminal (util-linux `script`,
 * test/cli/interactive.helpers.ts): `stty -F <its pts> cols N` resizes it as a window does, and the
 * kernel sends settle SIGWINCH. An extension notes each resize (after readline's own listener) and
 * the terminal's name, so the test waits on files, never on time.
 *
 * pi#4568: resizing the terminal while pi ran left its screen broken. Fixed: Settle's chat let
 * readline redraw its prompt on every resize, even while a run printed with the prompt hidden: the
 * line being printed was wiped and a `> ` was written into the run's output; now only a shown
 * prompt is redrawn (with the line being typed, as before).
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { fileAppears, GATED_COMMAND, Terminal, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-terminal-resize-");

/** Writes its terminal's name to `tty`, then `resized-<n>` on each resize (listening once the chat reads lines). */
const resizeWitness = (dir: string) => `import { readlinkSync, writeFileSync } from "node:fs";
export default function (pi) {
	let resizes = 0;
	pi.on("session_start", () => {
		process.stdout.on("resize", () => writeFileSync(${JSON.stringify(dir)} + "/resized-" + ++resizes, ""));
		writeFileSync(${JSON.stringify(join(dir, "tty"))}, readlinkSync("/proc/self/fd/0"));
	});
}
`;

/** Resizes the pseudo-terminal settle reads (as a window does) and resolves once settle saw resize `n`. */
async function resize(columns: number, n: number): Promise<void> {
	const tty = readFileSync(join(cli.dir, "tty"), "utf8");
	await promisify(execFile)("stty", ["-F", tty, "cols", String(columns), "rows", "24"]);
	await fileAppears(cli.dir, `resized-${n}`);
}

describe("pi#4568: the terminal resized while settle runs", () => {
	it("pi#4568: a resize while a tool runs writes no prompt into the run's output; a resize at the prompt redraws it with the line being typed", async () => {
		const witness = join(cli.dir, "witness.mjs");
		writeFileSync(witness, resizeWitness(cli.dir));
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "done", "typed"]),
		);
		const term = new Terminal(["--faux-script", steps, "-e", witness], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		expect(existsSync(join(cli.dir, "tty"))).toBe(true);
		let from = term.mark();
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		const during = term.mark();
		await resize(60, 1);
		writeFileSync(join(cli.project, "gate"), "");
		await term.until("done\r\n", during);
		const end = term.output.indexOf("done\r\n", during);
		await term.until("> ", end);
		// Before the fix readline wrote its prompt into the run's output at the resize.
		expect(term.output.slice(during, end)).not.toContain("> ");

		term.type("abc");
		await term.until("abc", end);
		from = term.mark();
		await resize(70, 2);
		await term.until("> abc", from);
		from = term.mark();
		term.type("\r");
		await term.until("typed\r\n", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		const file = /session: (\S+\.jsonl)/.exec(term.output)![1]!;
		expect(transcript(file).filter((line) => line.startsWith("user:"))).toEqual(["user: run it", "user: abc"]);
	});
});
