/**
 * Reports about the chat's input line, replayed against `settle` in a real pseudo-terminal
 * (util-linux `script`, test/cli/interactive.helpers.ts): keys are the bytes a terminal sends
 * (Enter "\r", Up "ESC [ A", Ctrl+D "\x04"). Every wait is on screen text or the process's end.
 *
 * pi#6066: after `/resume`, Up no longer browsed the input history (an extension's editor replaced
 * pi's after pi had filled it). Replayed, Settle had no history at all on a resumed session: pi
 * fills its editor's history with the session's prompts when it shows a session, Settle did not.
 *
 * hermes-agent#10994, herdr#4302: a multi-line paste became one message per line (the first sent,
 * the rest steering the run it started). pi asks the terminal for bracketed paste; Settle's line
 * editor did not, and took every pasted line break for Enter.
 *
 * atomic#2152: Esc while queued messages waited aborted the run and left them stuck in the queue's
 * display instead of giving them back to the input box, as pi does. Settle's Ctrl+C listed them as
 * "Not sent": the user had to type them again.
 *
 * pi#502 / pi#503 (PR): text typed in the editor while the agent worked was wiped when a queued
 * steering message was delivered (pi cleared the editor on every user message's start). Held in
 * Settle: what is being typed stays on the line until Enter.
 *
 * dreb#469: quitting the TUI (or the terminal going away) while the model was mid-run exited at
 * once: the in-flight reply was never written, and a resumed session had the prompts without it.
 * Held for Ctrl+D in Settle: the chat ends once the run has settled, every entry written.
 *
 * pi#240: Backspace after an emoji did not delete all of it and left the editor broken. Settle's
 * line editor (readline) stepped one code point: an emoji outside the BMP went whole, but one with a
 * skin tone, a flag or a ZWJ sequence lost one piece per press. Backspace, Delete, Left and Right now
 * take a whole grapheme cluster, as pi's editor does.
 *
 * claude-code#6029: text typed after moving the cursor into the prompt went to its end. Replayed,
 * Settle did the same whenever the keys came in one read (typed ahead while settle was busy, sent by
 * tmux or over SSH at once): node's readline takes such a read for a paste and appends each key.
 *
 * A multi-line message recalled with Up printed its line breaks raw (the terminal's cursor left the
 * prompt's line) though Enter sent it whole; it now shows on the one line, a \u21b5 for each break.
 *
 * pi#4520, pi#4918: Shift+Enter sent the prompt in terminals that send it as Enter; `\` + Enter is
 * pi's way to a new line there. Settle's chat had no way to type a line break at all.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { fileAppears, GATED_COMMAND, Terminal, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-interactive-input-");

const UP = "\x1b[A";
/** What a terminal in bracketed-paste mode sends for a paste of `text` (its line breaks as CR). */
const paste = (text: string) => `\x1b[200~${text.replaceAll("\n", "\r")}\x1b[201~`;

function terminal(args: string[]): Terminal {
	return new Terminal(args, { cwd: cli.project, agentDir: cli.agentDir, env: { NO_COLOR: "1" } });
}

/** A scripted model taking `answers` (texts or steps) in turn. */
function script(name: string, answers: unknown[]): string {
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

describe("hermes-agent#10994: a multi-line paste", () => {
	it("hermes-agent#10994: a pasted block (a blank line inside) is one message with its line breaks; Enter sends it", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		// The terminal was asked to mark pastes.
		expect(term.output).toContain("\x1b[?2004h");
		const from = term.mark();
		term.type(paste("first line\nsecond line\n\nthird"));
		term.type(" end\r");
		// The echo model answers the whole message; its last line ends the answer.
		await term.until("third end\r\n", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		// The terminal is given back without paste marks.
		expect(term.output.slice(term.output.lastIndexOf("\x1b[?2004h"))).toContain("\x1b[?2004l");
		expect(transcript(sessionFile(term))).toEqual([
			"user: first line\nsecond line\n\nthird end",
			"assistant: first line\nsecond line\n\nthird end",
		]);
	});

	it("hermes-agent#10994: a block pasted while a tool call runs steers the run as one message, not one per line", async () => {
		const steps = script("steps.json", [
			{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
			"read it",
		]);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		// A paste ending in a line break: Enter after it sends what was pasted.
		term.type(`${paste("stop\nuse the other branch\n")}\r`);
		await term.until("Queued", from);
		writeFileSync(join(cli.project, "gate"), "");
		await term.until("read it", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: run it",
			"user: stop\nuse the other branch",
		]);
	});
});

describe("pi#4520: a line break typed in the chat", () => {
	it("pi#4520: a line ended with `\\` goes on on the next line: Enter after it sends one message; Ctrl+C drops the held lines", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type("dropped\\\r");
		await term.until(". ", from);
		term.type("\x03");
		await term.until("> ", term.mark());
		from = term.mark();
		term.type("one\\\r");
		await term.until(". ", from);
		term.type("two\r");
		await term.until("two\r\n", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term))).toEqual(["user: one\ntwo", "assistant: one\ntwo"]);
	});
});

describe("a multi-line message recalled with Up", () => {
	/** Presses Up and resolves with what the terminal showed until `last` (the recalled line's end) came. */
	async function recall(term: Terminal, last: string): Promise<string> {
		const from = term.mark();
		term.type(UP);
		await term.until(last, from);
		return term.output.slice(from, term.output.indexOf(last, from) + last.length);
	}

	it("Up shows a sent multi-line message on the one input line, a \u21b5 for each line break; Enter sends it again with its line breaks", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type("one\\\r");
		await term.until(". ", from);
		term.type("two\r");
		await term.until("two\r\n", from);
		await term.until("> ", term.output.indexOf("two\r\n", from));
		// A raw line break would move the terminal's cursor to a new line ("\r\n" on screen).
		expect(await recall(term, "two")).toMatch(/> one\u21b5two$/);
		const again = term.mark();
		term.type(" again\r");
		await term.until("again\r\n", again);
		await term.until("> ", term.output.indexOf("again\r\n", again));
		// A \u21b5 typed on a line of its own is text, not a line break.
		const typed = term.mark();
		term.type("a \u21b5 b\r");
		await term.until("b\r\n", typed);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: one\ntwo",
			"user: one\ntwo again",
			"user: a \u21b5 b",
		]);
	});

	it("after --continue, Up shows the session's pasted multi-line prompt with a \u21b5 for each break; Enter sends it whole", async () => {
		const file = await sessionWith(paste("water the plants\nfeed the cat"));
		const term = terminal(["--continue", "--faux"]);
		await term.until("> ", 0);
		expect(await recall(term, "the cat")).toMatch(/> water the plants\u21b5feed the cat$/);
		const from = term.mark();
		term.type("\r");
		await term.until("the cat\r\n", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(file).slice(2)).toEqual([
			"user: water the plants\nfeed the cat",
			"assistant: water the plants\nfeed the cat",
		]);
	});
});

describe("atomic#2152: messages queued when the run is aborted", () => {
	it("atomic#2152: Ctrl+C puts the queued steers back on the input line before the text being typed; Enter sends them as one message", async () => {
		const steps = script("steps.json", [
			{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
			"ok",
		]);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		term.type("check the logs\r");
		await term.until("Queued (steer): check the logs", from);
		term.type("then the tests\r");
		await term.until("Queued (steer): then the tests", from);
		term.type("and the docs");
		term.type("\x03");
		await term.until("Aborted.", from);
		const aborted = term.output.indexOf("Aborted.", from);
		expect(term.output.slice(from, aborted)).toContain("> check the logs\r\n. \r\n. then the tests\r\n. \r\n");
		// The text being typed is the line being edited again.
		await term.until("and the docs", aborted);
		term.type(" too\r");
		await term.until("ok\r\n", aborted);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: run it",
			"user: check the logs\n\nthen the tests\n\nand the docs too",
		]);
	});
});

describe("atomic#2152: a steer the run already took for its turn when Ctrl+C aborts", () => {
	it("atomic#2152: Ctrl+C while a turn_start handler holds the turn that took the steer: the chat says it was not put back and stays in the conversation (it was saved, unanswered, and went with the next prompt); the chat said nothing of it", async () => {
		const steps = script("steps.json", [
			{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
			"next answer",
		]);
		// Holds the second turn (the one that took the steer) at its turn_start until `release` exists.
		const hold = join(cli.dir, "hold.mjs");
		writeFileSync(
			hold,
			`import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
let turns = 0;
export default function (pi) {
	pi.on("turn_start", async (_event, ctx) => {
		if (++turns !== 2) return;
		writeFileSync(join(ctx.cwd, "held"), "");
		while (!existsSync(join(ctx.cwd, "release"))) await new Promise((resolve) => setTimeout(resolve, 10));
	});
}
`,
		);
		const term = terminal(["--faux-script", steps, "-e", hold]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		term.type("check the logs\r");
		await term.until("Queued (steer): check the logs", from);
		writeFileSync(join(cli.project, "gate"), "");
		await fileAppears(cli.project, "held");
		const pressed = term.mark();
		term.type("\x03");
		await term.until(
			"Not put back: the run had already taken it for this turn (it stays in the conversation, unanswered): check the logs",
			pressed,
		);
		writeFileSync(join(cli.project, "release"), "");
		await term.until("Aborted.", pressed);
		const aborted = term.output.indexOf("Aborted.", pressed);
		expect(term.output.slice(pressed)).not.toContain("Not sent");
		await term.until("> ", aborted);
		term.type("and now?\r");
		await term.until("next answer\r\n", aborted);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term))).toEqual([
			"user: run it",
			"assistant: \u2192bash [toolUse]",
			"toolResult: opened\n",
			"user: check the logs",
			"assistant:  [aborted]",
			"user: and now?",
			"assistant: next answer",
		]);
	});
});

describe("pi#240: Backspace after an emoji", () => {
	it("pi#240: Backspace deletes a whole emoji and a whole wide character: the message sent has no half character", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		// DEL (0x7f) is what a terminal sends for Backspace.
		term.type("a\u{1F600}\x7fb \u6F22\u5B57\x7f \u{1F3C3}\x7fend\r");
		await term.until("end\r\n", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term))).toEqual(["user: ab \u6F22 end", "assistant: ab \u6F22 end"]);
	});

	it("pi#240: Backspace, Delete, Left and Right take a whole grapheme cluster (a skin tone, a flag, a ZWJ sequence): the messages sent have no half emoji", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const [thumb, flag, coder] = ["\u{1F44D}\u{1F3FB}", "\u{1F1EB}\u{1F1F7}", "\u{1F469}\u200D\u{1F4BB}"];
		const [left, right, del, home] = ["\x1b[D", "\x1b[C", "\x1b[3~", "\x01"];
		let from = term.mark();
		term.type(`a${thumb}\x7fb${flag}\x7fc${coder}\x7fd\r`);
		await term.until("abcd\r\n", from);
		await term.until("> ", term.output.indexOf("abcd\r\n", from));
		// Two Lefts land before the thumb, and Delete takes it whole.
		from = term.mark();
		term.type(`x${thumb}y${left}${left}${del}\r`);
		await term.until("xy\r\n", from);
		await term.until("> ", term.output.indexOf("xy\r\n", from));
		// One Right from the start passes the whole thumb: Delete takes the "n" after it.
		from = term.mark();
		term.type(`${thumb}n${home}${right}${del}\r`);
		await term.until(`${thumb}\r\n`, term.output.indexOf(`${thumb}\r`, from) + 1);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term))).toEqual([
			"user: abcd",
			"assistant: abcd",
			"user: xy",
			"assistant: xy",
			`user: ${thumb}`,
			`assistant: ${thumb}`,
		]);
	});
});

describe("claude-code#6029: typing in the middle of the line", () => {
	const [left, right, home, end] = ["\x1b[D", "\x1b[C", "\x1b[H", "\x1b[F"];
	it("claude-code#6029: text typed after Left, Ctrl+A/Home + Right, Ctrl+E/End, or past a wide character goes in at the cursor, not at the end", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		// Each line's keys come in one read, as when typed ahead or sent by tmux.
		const typed = [
			`ab${left}m`,
			`ab\x01${right}m`,
			`xy${home}${right}m${end}z`,
			`cd${left}${left}m\x05n`,
			`\u00e9\u6f22${left}m`,
			`\u{1F600}b${left}m${left}${left}s`,
		];
		for (const keys of typed) {
			const from = term.mark();
			term.type(`${keys}\r`);
			// The echo model's answer ends in "\r\n" after the line editor's own "\r\r\n".
			await term.until("\r\r\n", from);
			await term.until("> ", term.output.indexOf("\r\r\n", from));
		}
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: amb",
			"user: amb",
			"user: xmyz",
			"user: mcdn",
			"user: \u00e9m\u6f22",
			"user: s\u{1F600}mb",
		]);
	});
});

describe("pi#503: the text being typed when a queued message is delivered", () => {
	it("pi#503: a line typed while a queued steer is delivered and answered stays on the input line; Enter sends it", async () => {
		const steps = script("steps.json", [
			{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
			"logs read",
			"ok",
		]);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		term.type("check the logs\r");
		await term.until("Queued (steer): check the logs", from);
		term.type("half typed");
		// Read by the line editor (its echo) before the run goes on.
		await term.until("half typed", from);
		writeFileSync(join(cli.project, "gate"), "");
		// The steer is delivered and answered; the prompt comes back with the line as it was.
		await term.until("logs read", from);
		await term.until("> half typed", term.output.indexOf("logs read", from));
		term.type(" more\r");
		await term.until("ok\r\n", term.output.indexOf("logs read", from));
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: run it",
			"user: check the logs",
			"user: half typed more",
		]);
	});
});

describe("dreb#469: Ctrl+D while a run is in flight", () => {
	it("dreb#469: Ctrl+D during a tool call ends the chat only after the run's tool result and answer are in the session file; exit 0", async () => {
		const steps = script("steps.json", [
			{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
			"all done",
		]);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		const from = term.mark();
		term.type("\x04");
		// Ctrl+D was read while the tool call runs (the input closed: paste mode handed back).
		await term.until("\x1b[?2004l", from);
		writeFileSync(join(cli.project, "gate"), "");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile(term))).toEqual([
			"user: run it",
			"assistant: →bash [toolUse]",
			"toolResult: opened\n",
			"assistant: all done",
		]);
	});
});
