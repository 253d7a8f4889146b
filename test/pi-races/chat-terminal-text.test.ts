/**
 * What `settle -i` draws from text it does not control: a tool's name as the model called it, a
 * tool's output with a terminal's escape sequences in it, a narrow terminal. A real `settle` child
 * process through a pipe (its bytes as written) or in a pseudo-terminal ({@link Terminal}), the faux
 * model and real extension files and shell commands; every wait is on an output marker.
 *
 * - handochan/aelix-ai#177: tool-call headers passed the model's control characters (ESC, an OSC
 *   title, CR, LF) straight to the terminal. Fixed: Settle made the arguments safe but printed the
 *   tool's name as given; a model calling a tool that does not exist could set the terminal's title
 *   or clipboard, or return the cursor and overwrite the line.
 * - opencode#16193 (held): a PTY-reading extension tool's output, shown in the chat, messed up the
 *   terminal with its colors, cursor moves and screen clears.
 * - kimi-code#2915 (held): `printf '\033[?1049h'` in a bash tool call switched tmux to the
 *   alternate screen and lost its scrollback.
 * - claude-code#83138 (held): a call to a tool that does not exist was refused to the model but
 *   never shown to the user.
 * - handochan/aelix-ai#181: a truncated line cut a grapheme: half a flag showed as another letter.
 *   Fixed: Settle's clip kept surrogate pairs whole, not graphemes (a flag, a joined emoji).
 * - pi#941 (held): pi's TUI crashed in a terminal under 40 columns showing a tool's output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { fileAppears, Repl, Terminal } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-chat-terminal-text-");

function file(name: string, text: string): string {
	const path = join(cli.dir, name);
	writeFileSync(path, text);
	return path;
}

/** Runs one prompt in `settle -i` (stdout a pipe: no colors) and returns the output up to the answer's next prompt. */
async function chatRun(steps: unknown[], extra: string[] = []): Promise<string> {
	const script = file("steps.json", JSON.stringify(steps));
	const chat = new Repl(["--faux-script", script, "--no-session", ...extra], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	await chat.idle(0);
	const output = await chat.say("go", "done");
	expect(await chat.end()).toBe(0);
	return output;
}

describe("handochan/aelix-ai#177: the model's tool name reaches the terminal", () => {
	it("handochan/aelix-ai#177: a called tool named with an OSC title, CR and LF is shown with them visible, on one line; no escape is written", async () => {
		const output = await chatRun([
			{ toolCalls: [{ name: "read\r\x1b]0;PWNED\x07\nNEXT", arguments: { path: "a.txt" } }] },
			"done",
		]);
		expect(output).not.toContain("\x1b");
		expect(output).not.toContain("\r");
		expect(output).toContain("→ read␍␛]0;PWNED␇ NEXT a.txt\n");
	});
});

describe("claude-code#83138: a call to a tool that does not exist", () => {
	it("claude-code#83138: is shown as a call and its failure, then the answer goes on", async () => {
		const output = await chatRun([
			{ toolCalls: [{ name: "web_fetch", arguments: { url: "https://example.com" } }] },
			"done",
		]);
		expect(output).toContain("→ web_fetch https://example.com\n  Tool web_fetch not found\n");
		expect(output).toContain("done");
	});
});

describe("opencode#16193: a tool's output with a terminal's escape sequences in it", () => {
	it("opencode#16193: an extension tool's PTY output (a title, colors, a hyperlink, a screen clear) reaches the terminal as text: colors and cursor moves dropped, other escapes visible", async () => {
		const extension = file(
			"pty.mjs",
			`export default function (pi) {
	pi.registerTool({
		name: "pty_read",
		label: "pty_read",
		description: "Reads the PTY",
		parameters: { type: "object", properties: {} },
		execute: async () => ({
			content: [{ type: "text", text: "\\x1b]0;vim\\x07\\x1b[1;32mREADY\\x1b(B\\x1b[m see \\x1b]8;;https://example.com/docs\\x1b\\\\docs\\x1b]8;;\\x1b\\\\\\n\\x1b[2J\\x1b[Hline two" }],
			details: {},
		}),
	});
}
`,
		);
		const output = await chatRun([{ toolCalls: [{ name: "pty_read", arguments: {} }] }, "done"], ["-e", extension]);
		expect(output).toContain(
			"→ pty_read\n  ␛]0;vim␇READY␛(B see ␛]8;;https://example.com/docs␛\\docs␛]8;;␛\\\n  line two\n",
		);
		expect(output).not.toContain("\x1b");
	});

	it("kimi-code#2915: a bash call printing the alternate-screen switch shows its text; the switch never reaches the terminal", async () => {
		const output = await chatRun([
			{ toolCalls: [{ name: "bash", arguments: { command: "printf '\\033[?1049hREPRO\\n'" } }] },
			"done",
		]);
		expect(output).toContain("  REPRO\n");
		expect(output).not.toContain("\x1b");
	});
});

describe("handochan/aelix-ai#181: a clipped line cuts a grapheme", () => {
	it("handochan/aelix-ai#181: a tool output line of flags or joined emoji, clipped at 200 characters, ends on whole ones: no lone letter of a flag, no part of a family", async () => {
		const flag = "\u{1F1F0}\u{1F1F7}";
		const family = "\u{1F468}\u200d\u{1F469}\u200d\u{1F467}";
		const output = await chatRun([
			{
				toolCalls: [
					{
						name: "bash",
						arguments: { command: `printf '${flag}%.0s' $(seq 150); echo; printf '${family}%.0s' $(seq 60); echo` },
					},
				],
			},
			"done",
		]);
		// 200 characters: 49 flags and a half (a lone U+1F1F0 shows as a boxed K), 24 families and two of three people.
		expect(output).toContain(`\n  ${flag.repeat(49)}…\n  ${family.repeat(24)}…\n`);
	});
});

describe("pi#941: a terminal under 40 columns", () => {
	it("pi#941: at 35 columns a long tool output line is shown whole (the terminal wraps it) and the chat goes on", async () => {
		const witness = file(
			"columns.mjs",
			`import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_start", () => writeFileSync(${JSON.stringify(join(cli.dir, "columns"))}, String(process.stdout.columns)));
}
`,
		);
		const long = "drwxr-xr-x 12 root root 4096 Jan  1 00:00 share-with-a-long-name";
		const steps = file(
			"narrow.json",
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: `echo '${long}'; seq 1 20` } }] }, "done"]),
		);
		const term = new Terminal(["--faux-script", steps, "--no-session", "-e", witness], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
			wrapper: ["sh", "-c", 'stty cols 35 rows 24 && exec "$@"', "sh"],
		});
		await term.until("> ", 0);
		await fileAppears(cli.dir, "columns");
		expect(readFileSync(join(cli.dir, "columns"), "utf8")).toBe("35");
		const from = term.mark();
		term.type("list it\r");
		await term.until("done\r\n", from);
		const shown = term.output.slice(from);
		expect(shown).toContain(`  ${long}\r\n  1\r\n  2\r\n  3\r\n  … 17 more lines\r\n`);
		await term.until("> ", term.output.indexOf("done\r\n", from));
		term.type("\x04");
		expect(await term.exited).toBe(0);
	});
});
