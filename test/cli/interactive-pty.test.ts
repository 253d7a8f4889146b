/**
 * `settle` in a real terminal: a pseudo-terminal made by util-linux `script` (Debian package
 * bsdutils, which is essential: always installed). Started without -i, as a user does; keys are
 * the bytes a terminal sends (Enter "\r", Ctrl+C "\x03", Ctrl+D "\x04"). Waits are on output
 * markers and files, never on time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import { fileAppears, GATED_COMMAND, readEntries, Terminal } from "./interactive.helpers.js";

const cli = useCliProject("settle-interactive-pty-");

const ESC = String.fromCharCode(27);

function terminal(args: string[], env: Record<string, string | undefined> = {}): Terminal {
	return new Terminal(args, { cwd: cli.project, agentDir: cli.agentDir, env });
}

describe("settle in a terminal", () => {
	it("starts the chat without -i, in color; Ctrl+C aborts a run and the chat goes on; Ctrl+C twice on an empty prompt exits 0", async () => {
		const steps = join(cli.dir, "steps.json");
		writeFileSync(
			steps,
			JSON.stringify(["plain answer", { toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }]),
		);
		const term = terminal(["--faux-script", steps, "--no-session"]);
		await term.until("> ", 0);
		expect(term.output).toContain("\x1b[1msettle interactive\x1b[22m");

		let from = term.mark();
		term.type("hello\r");
		await term.until("plain answer\r\n", from);
		await term.until("> ", term.output.indexOf("plain answer\r\n", from));

		from = term.mark();
		term.type("go\r");
		await fileAppears(cli.project, "started");
		term.type("\x03");
		await term.until("Aborted.", from);
		await term.until("> ", term.output.indexOf("Aborted.", from));

		from = term.mark();
		term.type("again\r");
		// Readline echoes the line ("again\r\r\n"), the model's echo follows, then the prompt.
		await term.until("again\r\n", from);
		await term.until("> ", term.output.indexOf("again\r\n", from));

		// Both presses reach an idle prompt: the first says how to exit, the second exits.
		term.type("\x03\x03");
		expect(await term.exited).toBe(0);
	});

	it("/copy puts the last answer on the clipboard through the terminal (OSC 52) and counts its characters as a reader does: an emoji is one, not two UTF-16 units", async () => {
		const term = terminal(["--faux", "--no-session"], { NO_COLOR: "1" });
		await term.until("> ", 0);
		let from = term.mark();
		// 9 characters on screen; 13 UTF-16 units (👍🏽 takes 4, 🎉 2), 10 code points. Short enough
		// for the faux model's first chunk: its chunks are cut in UTF-16 units.
		const answer = "👍🏽🎉 copy ✓";
		term.type(`${answer}\r`);
		await term.until(`${answer}\r\n`, term.output.indexOf(answer, from) + 1);
		from = term.mark();
		term.type("/copy\r");
		await term.until("Copied the last answer to the clipboard", from);
		const encoded = Buffer.from(answer, "utf8").toString("base64");
		expect(term.output.slice(from)).toContain(`${ESC}]52;c;${encoded}\x07`);
		expect(term.output.slice(from)).toContain("Copied the last answer to the clipboard (9 characters;");
		term.type("\x04");
		expect(await term.exited).toBe(0);
	});

	it("/tree <your message> puts the message back on the input line: Enter sends it again from there", async () => {
		const term = terminal(["--faux"], { NO_COLOR: "1" });
		await term.until("> ", 0);
		const file = /session: (\S+\.jsonl)/.exec(term.output)![1]!;
		for (const text of ["first", "second"]) {
			const from = term.mark();
			term.type(`${text}\r`);
			await term.until(`${text}\r\n`, term.output.indexOf(text, from) + 1);
			await term.until("> ", term.output.indexOf(`${text}\r\n`, term.output.indexOf(text, from) + 1));
		}
		const entries = readEntries(file);
		const byText = (role: string, text: string) =>
			entries.filter((entry) => {
				const message = entry.message as { role: string; content: unknown } | undefined;
				return message?.role === role && JSON.stringify(message.content).includes(`"${text}"`);
			});
		const second = byText("user", "second")[0]!;
		let from = term.mark();
		term.type(`/tree ${second.id}\r`);
		await term.until("Choose 1-3 (empty to cancel): ", from);
		from = term.mark();
		term.type("1\r");
		await term.until("Send it again, edited, or type another one.", from);
		await term.until("> second", from);
		from = term.mark();
		term.type("\r");
		await term.until("second\r\n", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		const seconds = readEntries(file).filter(
			(entry) =>
				(entry.message as { role?: string } | undefined)?.role === "user" &&
				JSON.stringify((entry.message as { content: unknown }).content).includes('"second"'),
		);
		expect(seconds).toHaveLength(2);
		expect(seconds[1]!.parentId).toBe(second.parentId);
	});

	it("Ctrl+C in a retry's backoff: the cancellation is yellow, as an abort (was red, as a failure); the model's error stays red", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 30_000 } }));
		const steps = join(cli.dir, "steps.json");
		writeFileSync(steps, JSON.stringify([{ stopReason: "error", errorMessage: "503 service unavailable" }]));
		const term = terminal(["--faux-script", steps, "--no-session"]);
		await term.until("> ", 0);
		const from = term.mark();
		term.type("go\r");
		await term.until("Retrying in 30.0 s", from);
		term.type("\x03");
		await term.until("Aborted", from);
		await term.until("> ", term.output.indexOf("Aborted", from));
		const shown = term.output.slice(from);
		expect(shown).toContain(`${ESC}[31mError: 503 service unavailable${ESC}[39m`);
		expect(shown).toContain(`${ESC}[33mAborted after 1 retry attempt.${ESC}[39m`);
		expect(shown).not.toContain("Retry failed");
		term.type("\x04");
		expect(await term.exited).toBe(0);
	});

	it("NO_COLOR: no color codes even in a terminal; Ctrl+D exits 0", async () => {
		const term = terminal(["--faux", "--no-session"], { NO_COLOR: "1" });
		await term.until("> ", 0);
		const from = term.mark();
		term.type("echo me\r");
		await term.until("echo me\r\n", term.output.indexOf("echo me", from) + 1);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(term.output).toContain("settle interactive\r\n");
		// Line editing still moves the cursor (ESC [ n G); colors (ESC [ n m) are gone.
		expect(term.output).not.toMatch(new RegExp(`${ESC}\\[[0-9;]*m`));
	});
});
