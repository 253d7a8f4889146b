/**
 * Reports about the terminal a chat leaves behind when it ends badly, replayed against the real
 * `settle` in a real pseudo-terminal (util-linux `script`, test/cli/interactive.helpers.ts). A shell
 * runs settle, then reads the terminal's modes with `stty` in the same terminal, as the user's
 * shell would find them.
 *
 * pi#4426 (PR): an uncaught exception (an extension's throw from a child process's `exit` callback)
 * ended pi with its stack but left the terminal in raw mode with the cursor hidden: no echo, no
 * line editing, until `stty sane && reset`.
 *
 * pi#6648: Ctrl+C at the wrong moment while pi started left the terminal in a mode the TUI had just
 * turned on (kitty keyboard): every key after the exit printed escape sequences. Replayed, Settle
 * gave the terminal back, but `settle -r` lost the key: once a session was picked, the chat's input
 * (raw mode, for the picker) took Ctrl+C while the extensions loaded, and readline closed it. Settle
 * waited on a load that never ended; a load that did end started a chat that quit at once, exit 0.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { fileAppears, RESUME_QUESTION, Terminal } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-terminal-restored-");

const PASTE_MARKS_ON = "\x1b[?2004h";
const PASTE_MARKS_OFF = "\x1b[?2004l";
/** Printed by the shell once settle has ended, before the terminal's modes. */
const AFTER = "settle ended:";

/**
 * A shell script that runs its arguments (settle), then prints {@link AFTER}, settle's exit code
 * and the terminal's modes. Its `trap` keeps the shell itself alive through a Ctrl+C (a trap with
 * a command is not inherited: settle gets SIGINT as usual).
 */
function shellAfterSettle(): string[] {
	const script = join(cli.dir, "then-stty.sh");
	writeFileSync(script, `trap 'true' INT\n"$@"\ncode=$?\nprintf '\\n${AFTER} %s\\n' "$code"\nstty -a\nexit "$code"\n`);
	return ["sh", script];
}

function terminal(args: string[]): Terminal {
	return new Terminal(args, {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { NO_COLOR: "1" },
		wrapper: shellAfterSettle(),
	});
}

/** settle's exit code and the terminal's line-discipline flags as the shell found them after settle. */
async function terminalAfter(term: Terminal): Promise<{ code: string; modes: string[] }> {
	expect(await term.exited).not.toBeNull();
	const after = term.output.slice(term.output.lastIndexOf(AFTER));
	const code = /settle ended: (\d+)/.exec(after)![1]!;
	const flags = after.split(/\s+/).filter((word) => /^-?(icanon|echo|isig|icrnl|opost)$/.test(word));
	return { code, modes: flags.sort() };
}

/** The modes of a terminal given back as it was lent: line editing, echo, Ctrl+C as a signal, CR as Enter. */
const SANE = ["echo", "icanon", "icrnl", "isig", "opost"];

/** Whether the terminal was asked for paste marks and not asked to stop afterwards. */
function pasteMarksLeftOn(output: string): boolean {
	const on = output.lastIndexOf(PASTE_MARKS_ON);
	return on !== -1 && output.indexOf(PASTE_MARKS_OFF, on) === -1;
}

/** A module that says it is loading (a file), then waits for a file nobody creates. */
function slowExtension(): string {
	const extension = join(cli.dir, "slow.mjs");
	writeFileSync(
		extension,
		`import { existsSync, writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(join(cli.dir, "loading"))}, "");
await new Promise((resolve) => { const timer = setInterval(() => { if (existsSync(${JSON.stringify(join(cli.dir, "never"))})) { clearInterval(timer); resolve(); } }, 50); });
export default function () {}
`,
	);
	return extension;
}

describe("pi#4426: an uncaught exception left the terminal in raw mode", () => {
	it("pi#4426: settle -i dying of an error no extension owns (a throw from a timer): exit 1 with the stack, and the shell gets its terminal back as lent (echo, line editing, no paste marks)", async () => {
		// JSON.parse called by a timer: the stack runs through no extension file, so nothing owns it.
		const extension = join(cli.dir, "crash.mjs");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.registerCommand("crash", { description: "fail later", handler: async () => { setTimeout(JSON.parse, 0, "{"); } });
}
`,
		);
		const term = terminal(["--faux", "-e", extension]);
		await term.until("> ", 0);
		expect(term.output).toContain(PASTE_MARKS_ON);
		term.type("/crash\r");
		const after = await terminalAfter(term);
		expect(after).toEqual({ code: "1", modes: SANE });
		expect(term.output).toContain("SyntaxError");
		// The stack starts on a line of its own, not after the prompt it interrupted.
		expect(term.output).toMatch(/\nSyntaxError/);
		expect(term.output).not.toMatch(/> SyntaxError/);
		expect(pasteMarksLeftOn(term.output)).toBe(false);
	});
});

/** Ctrl+C once `slowExtension` starts loading in `term`: exit 130, the wait named, the terminal as lent. */
async function expectCtrlCStopsExtensionLoad(term: Terminal): Promise<void> {
	await fileAppears(cli.dir, "loading");
	term.type("\x03");
	const after = await terminalAfter(term);
	expect(after).toEqual({ code: "130", modes: SANE });
	expect(term.output).toContain("stopped while waiting for an extension to load");
	expect(pasteMarksLeftOn(term.output)).toBe(false);
}

describe("pi#6648: Ctrl+C during start-up left the terminal in the TUI's mode", () => {
	it("pi#6648: Ctrl+C while settle -i waits for an extension to load: exit 130, the wait named, the terminal as lent", async () => {
		const extension = slowExtension();
		const term = terminal(["--faux", "-e", extension]);
		await expectCtrlCStopsExtensionLoad(term);
	});

	it("pi#6648: settle -r, a session picked, then Ctrl+C while an extension loads: exit 130, the wait named, the terminal as lent", async () => {
		expect(runSettle(["--faux", "-p", "an earlier question"], { cwd: cli.project, agentDir: cli.agentDir }).code).toBe(
			0,
		);
		const extension = slowExtension();
		const term = terminal(["-r", "--faux", "-e", extension]);
		await term.until(RESUME_QUESTION, 0);
		term.type("1\r");
		await expectCtrlCStopsExtensionLoad(term);
	});

	it("pi#6648: Ctrl+C at the first prompt once only warns (the chat answers the next message); twice quits: exit 0, the terminal as lent", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		term.type("\x03");
		await term.until("Ctrl+C again to exit", 0);
		const asked = term.mark();
		term.type("still here\r");
		// The echo model's answer on a line of its own.
		await term.until("\nstill here\r\n", asked);
		await term.until("> ", term.output.indexOf("\nstill here\r\n", asked));
		term.type("\x03");
		await term.until("Ctrl+C again to exit", asked);
		term.type("\x03");
		const after = await terminalAfter(term);
		expect(after).toEqual({ code: "0", modes: SANE });
		expect(pasteMarksLeftOn(term.output)).toBe(false);
	});
});

describe("settle -r: a signal before the chat takes over its signals", () => {
	it("settle -r, SIGTERM while the session picker waits for an answer: exit 143, and the shell gets its terminal back as lent (no paste marks)", async () => {
		expect(runSettle(["--faux", "-p", "an earlier question"], { cwd: cli.project, agentDir: cli.agentDir }).code).toBe(
			0,
		);
		// The settle process says its pid before anything else runs (the picker asks before any extension loads).
		const pidFile = join(cli.dir, "settle.pid");
		const preload = join(cli.dir, "say-pid.cjs");
		writeFileSync(preload, `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n`);
		const term = new Terminal(["-r", "--faux"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1", NODE_OPTIONS: `--require ${preload}` },
			wrapper: shellAfterSettle(),
		});
		await term.until(RESUME_QUESTION, 0);
		expect(term.output).toContain(PASTE_MARKS_ON);
		process.kill(Number(readFileSync(pidFile, "utf8")), "SIGTERM");
		const after = await terminalAfter(term);
		expect(after).toEqual({ code: "143", modes: SANE });
		expect(pasteMarksLeftOn(term.output)).toBe(false);
	});
});
