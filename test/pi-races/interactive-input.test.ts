/**
 * Reports about the chat's input line, replayed against `settle` in a real pseudo-terminal
 * (util-linux `script`, test/cli/interactive.helpers.ts): keys are the bytes a terminal sends
 * (Enter "\r", Up "ESC [ A", Ctrl+D "\x04"). Every wait is on screen text or the process's end.
 *
 * pi#6066: after `/resume`, Up no longer browsed the input history (an extension's editor replaced
 * pi's after pi had filled it). Replayed, Settle had no history at all on a resumed session: pi
 * fills its editor's history with the session's prompts when it shows a session, Settle did not.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Terminal, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-interactive-input-");

const UP = "\x1b[A";

function terminal(args: string[]): Terminal {
	return new Terminal(args, { cwd: cli.project, agentDir: cli.agentDir, env: { NO_COLOR: "1" } });
}

/** A scripted model answering `answers` in turn. */
function script(name: string, answers: string[]): string {
	const path = join(cli.dir, name);
	writeFileSync(path, JSON.stringify(answers));
	return path;
}

/** The session file the banner names. */
function sessionFile(term: Terminal): string {
	return /session: (\S+\.jsonl)/.exec(term.output)![1]!;
}

/** A first settle that sends `prompts` one after the other and exits with Ctrl+D: the session this project resumes. */
async function sessionWith(...prompts: string[]): Promise<string> {
	const term = terminal([
		"--faux-script",
		script(
			"first.json",
			prompts.map((_, index) => `noted ${index + 1}`),
		),
	]);
	await term.until("> ", 0);
	for (const [index, prompt] of prompts.entries()) {
		const from = term.mark();
		term.type(`${prompt}\r`);
		await term.until(`noted ${index + 1}`, from);
		await term.until("> ", term.output.indexOf(`noted ${index + 1}`, from));
	}
	term.type("\x04");
	expect(await term.exited).toBe(0);
	return sessionFile(term);
}

/** Types `keys` then " again" and Enter; resolves once the echo model has answered the line. */
async function sendAgain(term: Terminal, keys: string): Promise<void> {
	const from = term.mark();
	term.type(`${keys} again\r`);
	// The line editor echoes the typed text followed by "\r\r\n"; the answer ends in "\r\n".
	await term.until("again\r\n", from);
}

describe("pi#6066: the input history of a resumed session", () => {
	it("pi#6066: after --continue, Up recalls the session's last prompt to edit and send again", async () => {
		const file = await sessionWith("remember the milk");
		const term = terminal(["--continue", "--faux"]);
		await term.until("> ", 0);
		// Without a history, Up recalls nothing and the line is " again" alone.
		await sendAgain(term, UP);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(sessionFile(term)).toBe(file);
		expect(transcript(file)).toEqual([
			"user: remember the milk",
			"assistant: noted 1",
			"user: remember the milk again",
			"assistant: remember the milk again",
		]);
	});

	it("pi#6066: after /resume <id> in a running chat, Up recalls the resumed session's prompts, newest first", async () => {
		const file = await sessionWith("water the plants", "feed the cat");
		const id = /_([0-9a-f-]+)\.jsonl$/.exec(file)![1]!;
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type(`/resume ${id.slice(0, 8)}\r`);
		await term.until(`Resumed ${id}`, from);
		await term.until("> ", term.output.indexOf(`Resumed ${id}`, from));
		await sendAgain(term, `${UP}${UP}`);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(file).slice(4)).toEqual(["user: water the plants again", "assistant: water the plants again"]);
	});
});
