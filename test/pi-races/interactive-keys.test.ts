/**
 * Reports about keys and pastes reaching a chat's input line, replayed against `settle` in a real
 * pseudo-terminal (util-linux `script`, test/cli/interactive.helpers.ts). Keys are the bytes a
 * terminal sends (Enter "\r", Ctrl+A "\x01", Ctrl+C "\x03", Ctrl+D "\x04"); a paste comes between
 * the bracketed-paste marks settle asks the terminal for. Every wait is on screen text or the
 * process's end.
 *
 * codex#37302: a paste with Windows line ends (CRLF), forwarded as is by the terminal (Zed, WSL),
 * put two line breaks in the message for each one. Held: readline takes the LF after a CR for the
 * same line end.
 *
 * qwen-code#3045 (PR): tab-separated cells pasted from a spreadsheet lost their tabs (the input
 * stripped control characters and took Tab for completion): `13354→2945→58` became `133542945 58`.
 * Held: Settle's line editor has no completion; the tabs reach the model.
 *
 * copilot-cli#938, codex#1443: Ctrl+D typed to delete the character under the cursor exited the CLI
 * and lost the session. Held on a line with text (readline deletes); fixed on a message's next line
 * (after `\` + Enter or a pasted line break): that line is empty, so readline ended the input and
 * the message's earlier lines were lost with the chat.
 *
 * opencode#36612: Ctrl+C to clear the input, then a reflexive second Ctrl+C on the now empty prompt
 * quit the app. Held for that sequence (the second press only says how to exit); fixed when a first
 * press on an empty prompt came just before: the clearing press did not restart the count, so the
 * press after it exited.
 *
 * copilot-cli#1727: a pasted block that began with `//` (a code comment) was taken for a slash
 * command and refused. Held: a line whose first word holds a second `/` (`// foo`, a path) is a
 * message; a block starting with an unknown `/word` is refused without a request, and Up brings it
 * back whole to edit and send.
 *
 * claude-code#67421: pasted Korean (multi-byte UTF-8) turned into mojibake (the bytes read as
 * Latin-1), and the garbled text was what the session got. Held: the bytes cut inside characters
 * across reads are decoded whole; CJK, emoji, a flag and a combining accent reach the session file
 * as pasted.
 *
 * claude-code#1282, pi#7257: Shift+Enter set up to send a line feed (Ghostty's
 * `keybind = shift+enter=text:\n`, Zed's terminal), as pi's editor takes it for a new line. Fixed:
 * readline (CRLF read as one line end) dropped the first line feed after any Enter and took the
 * next for Enter, so the message went half typed, its lines run together; now a line feed typed on
 * its own (Ctrl+J too) is a line break, and one right after Enter in the same read (CRLF) is not.
 *
 * pi#7257 (ESC + Enter): the reporter's Shift+Enter sent ESC + Enter (a stale Claude Code Zed
 * keymap), which pi reads as Alt+Enter, its follow-up key. Fixed: Settle's chat dropped ESC + Enter
 * without a word (readline has no Alt+Enter); now it is pi's follow-up key: a follow-up during a run,
 * Enter when idle.
 *
 * dreb#262: Esc during a retry's backoff did nothing though the screen said
 * "ESC to cancel". Fixed: Settle's chat ignored Esc everywhere (readline drops it), so a pi user's
 * Esc during an answer, a tool or a retry's wait was lost; now it aborts the run as Ctrl+C does
 * and keeps the line being typed.
 *
 * codex#16178: a prompt whose request failed was gone: not back on the input line, not in Up's
 * history. Held: the error is shown, the prompt comes back, and Up brings the failed message back
 * whole (its line breaks too) to send again.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { fileAppears, GATED_COMMAND, Terminal, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-interactive-keys-");

/** What a terminal in bracketed-paste mode sends for a paste of `text`, its bytes as given. */
const paste = (text: string) => `\x1b[200~${text}\x1b[201~`;

function terminal(args: string[]): Terminal {
	return new Terminal(args, { cwd: cli.project, agentDir: cli.agentDir, env: { NO_COLOR: "1" } });
}

/** The session file the banner names. */
function sessionFile(term: Terminal): string {
	return /session: (\S+\.jsonl)/.exec(term.output)![1]!;
}

/** Ctrl+D at an empty prompt; resolves with the session file's transcript once settle exited 0. */
async function exitAndRead(term: Terminal): Promise<string[]> {
	term.type("\x04");
	expect(await term.exited).toBe(0);
	return transcript(sessionFile(term));
}

describe("codex#37302: a paste with CRLF line ends", () => {
	it("codex#37302: each CRLF is one line break in the message, not two", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type(paste("alpha\r\nbeta\r\n\r\ngamma"));
		term.type(" end\r");
		await term.until("gamma end\r\n", from);
		expect(await exitAndRead(term)).toEqual(["user: alpha\nbeta\n\ngamma end", "assistant: alpha\nbeta\n\ngamma end"]);
	});
});

describe("qwen-code#3045: tabs in a paste", () => {
	it("qwen-code#3045: tab-separated cells pasted from a spreadsheet keep their tabs", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type(paste("id\tcount\tsum\r13354\t2945\t58"));
		term.type("\r");
		await term.until("58\r\n", from);
		expect(await exitAndRead(term)).toEqual([
			"user: id\tcount\tsum\n13354\t2945\t58",
			"assistant: id\tcount\tsum\n13354\t2945\t58",
		]);
	});
});

describe("copilot-cli#938: Ctrl+D while a message is being typed", () => {
	it("copilot-cli#938: Ctrl+D deletes the character under the cursor; at a line's end it does nothing; settle goes on", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		// Ctrl+A to the start, Ctrl+D deletes the x; Ctrl+E to the end, Ctrl+D there does nothing.
		term.type("xabc\x01\x04\x05\x04\r");
		await term.until("abc\r\n", term.output.indexOf("\r\n", from) + 2);
		expect(await exitAndRead(term)).toEqual(["user: abc", "assistant: abc"]);
	});

	it("copilot-cli#938: Ctrl+D on a message's empty next line keeps the lines typed so far; Enter sends them all", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type("first\\\r");
		await term.until(". ", from);
		from = term.mark();
		// Before the fix readline took the empty line for the end of input: exit 0, "first" lost.
		term.type("\x04");
		await term.until("a message is being typed: Enter sends it", from);
		await term.until(". ", term.output.indexOf("a message is being typed", from));
		from = term.mark();
		term.type("second\r");
		await term.until("second\r\n", from);
		expect(await exitAndRead(term)).toEqual(["user: first\nsecond", "assistant: first\nsecond"]);
	});

	it("copilot-cli#938: the same after a paste that ended with a line break", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type(paste("pasted one\rpasted two\r"));
		term.type("\x04");
		await term.until("a message is being typed", from);
		term.type("\r");
		await term.until("pasted two\r\n", term.output.indexOf("a message is being typed", from));
		expect(await exitAndRead(term)).toEqual(["user: pasted one\npasted two", "assistant: pasted one\npasted two"]);
	});
});

describe("opencode#36612: Ctrl+C to clear, then Ctrl+C again", () => {
	it("opencode#36612: the press after the one that cleared the line says how to exit, even right after an earlier press; two more exit", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		let from = term.mark();
		// The report's sequence: text, Ctrl+C clears it, Ctrl+C again.
		term.type("draft\x03\x03");
		await term.until("(Ctrl+C again to exit, or Ctrl+D)", from);
		// A first press on the empty prompt, text typed, cleared, pressed again: all in one read (at
		// once, well within the double-press time). Before the fix the last press exited.
		from = term.mark();
		term.type("x\x03\x03draft\x03\x03hello\r");
		await term.until("hello\r\n", term.output.indexOf("hello", from) + 1);
		from = term.mark();
		term.type("\x03\x03");
		expect(await term.exited).toBe(0);
		expect(term.output.slice(from)).toContain("(Ctrl+C again to exit, or Ctrl+D)");
		expect(transcript(sessionFile(term))).toEqual(["user: hello", "assistant: hello"]);
	});
});

describe("copilot-cli#1727: a paste that starts with a slash", () => {
	it("copilot-cli#1727: a code block starting with `//` and a block starting with a path are sent as messages", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type(paste("// foo\rconst x = 1;\r"));
		term.type("\r");
		await term.until("const x = 1;\r\n", term.output.indexOf("\r\n", from) + 2);
		await term.until("> ", term.output.lastIndexOf("const x = 1;\r\n"));
		from = term.mark();
		term.type(paste("/home/me/app/src/main.ts:12: error\rwhy?"));
		term.type("\r");
		await term.until("why?\r\n", term.output.indexOf("why?", from) + 1);
		expect(await exitAndRead(term)).toEqual([
			"user: // foo\nconst x = 1;",
			"assistant: // foo\nconst x = 1;",
			"user: /home/me/app/src/main.ts:12: error\nwhy?",
			"assistant: /home/me/app/src/main.ts:12: error\nwhy?",
		]);
	});

	it("copilot-cli#1727: a pasted block starting with an unknown `/word` is refused, nothing sent; Up brings it back whole and Enter sends it edited", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type(paste("/tmp is full\rwhat can I delete?"));
		term.type("\r");
		await term.until("Error: unknown command /tmp. Type /help for the commands.", from);
		await term.until("> ", term.output.indexOf("Error: unknown command /tmp", from));
		from = term.mark();
		// Up, Ctrl+A to the start, and a word before the slash: one message with its line break.
		term.type("\x1b[A\x01My \r");
		await term.until("delete?\r\n", term.output.indexOf("\r\n", from) + 2);
		expect(await exitAndRead(term)).toEqual([
			"user: My /tmp is full\nwhat can I delete?",
			"assistant: My /tmp is full\nwhat can I delete?",
		]);
	});
});

describe("claude-code#67421: a multi-byte paste", () => {
	it("claude-code#67421: Korean, CJK, emoji, a flag and a combining accent, cut inside characters across writes, reach the session whole", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		const text = "바로 안녕하세요\n日本語の文 👩‍💻 🇫🇷 cafe\u0301";
		const bytes = Buffer.from(paste(text.replaceAll("\n", "\r")), "utf8");
		// Pieces of 5 bytes: most cut a 3- or 4-byte character in two.
		for (let at = 0; at < bytes.length; at += 5) term.child.stdin.write(bytes.subarray(at, at + 5));
		const from = term.mark();
		term.type("\r");
		await term.until("cafe\u0301\r\n", from);
		expect(term.output).toContain("바로 안녕하세요");
		expect(term.output).not.toContain("\ufffd");
		// Compared code unit for code unit: the accent stays a combining mark after the e (not NFC's é).
		expect(await exitAndRead(term)).toEqual([`user: ${text}`, `assistant: ${text}`]);
	});
});

describe("claude-code#1282, pi#7257: Shift+Enter sent as a line feed", () => {
	it("claude-code#1282: a line feed typed on its own (Ghostty's Shift+Enter, Ctrl+J) is a line break in the message, after an earlier Enter too; CRLF is still one Enter", async () => {
		const term = terminal(["--faux"]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type("hello\r");
		await term.until("hello\r\n", term.output.indexOf("\r\n", from) + 2);
		await term.until("> ", term.output.indexOf("hello\r\n", term.output.indexOf("\r\n", from) + 2));
		// Before the fix the first line feed was dropped and the second sent "alphabeta".
		from = term.mark();
		term.type("alpha\n");
		await term.until(". ", from);
		term.type("beta\n");
		term.type("\n");
		term.type("gamma\r");
		await term.until("gamma\r\n", term.output.indexOf("gamma", from) + 1);
		await term.until("> ", term.output.indexOf("gamma\r\n", term.output.indexOf("gamma", from) + 1));
		// A terminal sending CRLF for Enter: one message, and nothing held for the next.
		from = term.mark();
		term.type("delta\r\n");
		await term.until("delta\r\n", term.output.indexOf("delta", from) + 1);
		await term.until("> ", term.output.indexOf("delta\r\n", term.output.indexOf("delta", from) + 1));
		from = term.mark();
		term.type("epsilon\r");
		await term.until("epsilon\r\n", term.output.indexOf("epsilon", from) + 1);
		expect((await exitAndRead(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: hello",
			"user: alpha\nbeta\n\ngamma",
			"user: delta",
			"user: epsilon",
		]);
	});
});

describe("pi#7257: Alt+Enter (ESC + Enter)", () => {
	it("pi#7257: Alt+Enter during a run queues the line as a follow-up, answered after the run; idle it sends as Enter does", async () => {
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
				"done",
				"after",
				"idle answer",
			]),
		);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type("go\r");
		await fileAppears(cli.project, "started");
		// Before the fix the key did nothing: the text stayed on the line, nothing queued.
		term.type("later\x1b\r");
		await term.until("Queued (follow-up): later", from);
		writeFileSync(join(cli.project, "gate"), "");
		await term.until("after\r\n", from);
		await term.until("> ", term.output.indexOf("after\r\n", from));
		from = term.mark();
		term.type("idle\x1b\r");
		await term.until("idle answer\r\n", from);
		expect((await exitAndRead(term)).filter((line) => !line.startsWith("toolResult:"))).toEqual([
			"user: go",
			"assistant: →bash [toolUse]",
			"assistant: done",
			"user: later",
			"assistant: after",
			"user: idle",
			"assistant: idle answer",
		]);
	});
});

describe("dreb#262: Esc during a run", () => {
	it("dreb#262: Esc in a retry's backoff aborts it, as Ctrl+C does; the next prompt is answered", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 30_000 } }));
		const steps = join(cli.dir, "steps.json");
		writeFileSync(steps, JSON.stringify([{ stopReason: "error", errorMessage: "503 service unavailable" }, "after"]));
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type("go\r");
		await term.until("Retrying in 30.0 s", from);
		term.type("\x1b");
		await term.until("Aborted after 1 retry attempt.", from);
		await term.until("> ", term.output.indexOf("Aborted after 1 retry attempt.", from));
		from = term.mark();
		term.type("next\r");
		await term.until("after\r\n", from);
		expect(await exitAndRead(term)).toEqual(["user: go", "assistant:  [error]", "user: next", "assistant: after"]);
	});

	it("dreb#262: Esc while a tool runs stops it and the run; the line being typed stays and Enter sends it", async () => {
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "done"]),
		);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		term.type("half typed");
		term.type("\x1b");
		await term.until("Aborted.", from);
		await term.until("half typed", term.output.indexOf("Aborted.", from));
		from = term.mark();
		term.type("\r");
		await term.until("done\r\n", from);
		expect(await exitAndRead(term)).toEqual([
			"user: run it",
			"assistant: →bash [toolUse]",
			"toolResult: Command aborted",
			"assistant:  [aborted]",
			"user: half typed",
			"assistant: done",
		]);
	});
});

describe("codex#16178: the prompt after a failed request", () => {
	it("codex#16178: the error shows, the prompt comes back, and Up brings the failed multi-line message back whole; Enter sends it again", async () => {
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify([{ stopReason: "error", errorMessage: "400 Not available for this thread" }, "answered"]),
		);
		const term = terminal(["--faux-script", steps]);
		await term.until("> ", 0);
		let from = term.mark();
		term.type(paste("fix the tests\rthen push"));
		term.type("\r");
		await term.until("400 Not available for this thread", from);
		await term.until("> ", term.output.indexOf("400 Not available for this thread", from));
		from = term.mark();
		term.type("\x1b[A");
		await term.until("then push", from);
		const recalled = term.output.slice(from, term.output.indexOf("then push", from) + "then push".length);
		expect(recalled).toMatch(/> fix the tests\u21b5then push$/);
		from = term.mark();
		term.type("\r");
		await term.until("answered\r\n", from);
		expect((await exitAndRead(term)).filter((line) => line.startsWith("user:"))).toEqual([
			"user: fix the tests\nthen push",
			"user: fix the tests\nthen push",
		]);
	});
});
