/**
 * Reports about extension UI in an interactive chat built on pi, replayed against `settle -i`: a
 * real `settle` child process driven through a pipe (the faux model, real extension files, real
 * shell commands, real session files). Every wait is on an output marker or a file, never on time.
 *
 * pi#2843: an extension command (pi-subagents' `/run`) shows a placeholder with `pi.sendMessage`
 * and then its result; the result never reached the user. paseo#2674: a `display: false` message
 * (pi-time-sense's clock) was printed in the chat. paseo#3170: a `ctx.ui.notify` given during a run
 * never appeared. oh-my-pi#10297: a `session_start` notification was painted, then cleared.
 * narumiruna/pi-extensions#994: after Ctrl+C closed an extension's input, the chat took no line
 * until an extra Enter, and what was typed meanwhile was lost. pi#5620: a `ctx.ui.setEditorText` an
 * extension command gives after its handler returned did not show until the next key (in Settle's
 * chat it never showed: the text was kept aside, and Enter sent nothing); that one runs `settle` in
 * a pseudo-terminal (util-linux `script`). pi#6978: two dialogs open at once (a command's
 * `Promise.all` of two confirms, parallel tool calls each asking one): only the last was usable, the
 * first one's Promise never settled and the session stuck on "Working...".
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import {
	bannerSessionFile,
	fileAppears,
	GATED_COMMAND,
	PROMPT,
	Repl,
	readEntries,
	Terminal,
	transcript,
} from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-extension-ui-");

function repl(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

function file(name: string, text: string): string {
	const path = join(cli.dir, name);
	writeFileSync(path, text);
	return path;
}

describe("pi#2843: an extension command's result sent as a custom message", () => {
	it("pi#2843: the placeholder and the whole multi-line result are printed (not the result's first line with a count), the display: false note is not, and the session file keeps all three", async () => {
		const extension = file(
			"subagent.mjs",
			`export default function (pi) {
	pi.registerCommand("run", {
		description: "runs a subagent",
		handler: async (args) => {
			pi.sendMessage({ customType: "subagent", content: "Running " + args + "...", display: true });
			pi.sendMessage({
				customType: "subagent",
				content: "Result of " + args + ":\\n- found 3 files\\n- fixed \\x1b[31mtwo\\x1b[0m\\n\\nDone.",
				display: true,
			});
			pi.sendMessage({ customType: "subagent-state", content: "internal state 42", display: false });
		},
	});
}
`,
		);
		const chat = repl(["--faux", "-e", extension]);
		await chat.idle(0);
		const shown = await chat.say("/run scout", "Result of scout:");
		expect(shown).toContain(
			"[subagent] Running scout...\n[subagent] Result of scout:\n  - found 3 files\n  - fixed two\n  \n  Done.\n",
		);
		expect(shown).not.toContain("(+");
		expect(shown).not.toContain("internal state");
		// A prompt, so the session file is written (pi writes none before the first answer).
		await chat.say("thanks", "thanks");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		const custom = readEntries(bannerSessionFile(chat.stdout))
			.filter((entry) => entry.type === "custom_message")
			.map((entry) => [entry.customType, entry.display]);
		expect(custom).toEqual([
			["subagent", true],
			["subagent", true],
			["subagent-state", false],
		]);
	});
});

describe("paseo#2674: a display: false custom message an extension adds during a run", () => {
	it("paseo#2674: never printed in the chat, while the run goes on to its answer and the session file keeps the message", async () => {
		const extension = file(
			"time-sense.mjs",
			`export default function (pi) {
	pi.on("tool_execution_end", () => {
		pi.sendMessage(
			{ customType: "pi-time-sense", content: "<automatic-current-time-message>Mon 12:00</automatic-current-time-message>", display: false },
			{ deliverAs: "steer" },
		);
	});
}
`,
		);
		const steps = file(
			"script.json",
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "echo listed" } }] }, "all listed"]),
		);
		const chat = repl(["--faux-script", steps, "-e", extension]);
		await chat.idle(0);
		const run = await chat.say("list", "all listed");
		expect(run).toContain("  listed\n");
		expect(run).not.toContain("automatic-current-time");
		expect(run).not.toContain("pi-time-sense");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		const custom = readEntries(bannerSessionFile(chat.stdout)).filter((entry) => entry.type === "custom_message");
		expect(custom.map((entry) => [entry.customType, entry.display])).toEqual([["pi-time-sense", false]]);
	});
});

describe("paseo#3170: ctx.ui.notify during an active turn", () => {
	it("paseo#3170: a notification given as a tool call starts is printed while the call still runs, and the run goes on to its answer", async () => {
		const extension = file(
			"notify-test.mjs",
			`export default function (pi) {
	pi.on("tool_execution_start", (_event, ctx) => ctx.ui.notify("notify test", "info"));
}
`,
		);
		const steps = file(
			"script.json",
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "that was the job"]),
		);
		const chat = repl(["--faux-script", steps, "--no-session", "-e", extension]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("run the job");
		// Shown while the tool call waits for its gate: the turn is still active.
		await chat.until("[info] notify test\n", from);
		await fileAppears(cli.project, "started");
		writeFileSync(join(cli.project, "gate"), "");
		const run = await chat.idle(from, "that was the job");
		expect(run.split("notify test")).toHaveLength(2);
		expect(run.indexOf("that was the job")).toBeGreaterThan(run.indexOf("[info] notify test\n"));
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("oh-my-pi#10297: ctx.ui.notify in session_start, interactive", () => {
	it("oh-my-pi#10297: the start-up notification stays in the chat's output, before the banner and the first prompt, and later output does not take it away", async () => {
		const extension = file(
			"probe.mjs",
			`export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		ctx.ui.notify("PROBE_STARTUP_NOTIFY", "info");
		ctx.ui.setStatus("probe", "PROBE_STARTUP_STATUS");
	});
}
`,
		);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		const start = await chat.idle(0);
		expect(start.startsWith("[info] PROBE_STARTUP_NOTIFY\n[probe] PROBE_STARTUP_STATUS\nsettle interactive\n")).toBe(
			true,
		);
		await chat.say("hello", "hello");
		expect(await chat.end()).toBe(0);
		expect(chat.stdout.split("PROBE_STARTUP_NOTIFY")).toHaveLength(2);
		expect(chat.stderr).toBe("");
	});
});

describe("narumiruna/pi-extensions#994: Ctrl+C closes an extension's input", () => {
	it("narumiruna/pi-extensions#994: the question is cancelled (the command sees undefined), the prompt comes back at once and the next line typed goes to the model", async () => {
		const log = file("btw.log", "");
		const extension = file(
			"btw.mjs",
			`import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("btw", {
		description: "a side question",
		handler: async (_args, ctx) => {
			const text = await ctx.ui.input("Side question", "ask anything");
			appendFileSync(${JSON.stringify(log)}, JSON.stringify(text ?? null) + "\\n");
		},
	});
}
`,
		);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("/btw");
		await chat.until("Side question (ask anything): ", from);
		const cancelled = chat.mark();
		chat.child.kill("SIGINT");
		expect(await chat.idle(cancelled, "(cancelled)")).toBe(`\n(cancelled)\n${PROMPT}`);
		await fileAppears(cli.dir, "btw.log");
		expect(readFileSync(log, "utf8")).toBe("null\n");
		// No extra Enter: the very next line is a prompt the faux model echoes.
		expect(await chat.say("hello")).toBe(`hello\nhello\n${PROMPT}`);
		expect(await chat.end()).toBe(0);
		expect(readFileSync(log, "utf8")).toBe("null\n");
		expect(chat.stderr).toBe("");
	});
});

describe("pi#5620: ctx.ui.setEditorText from an extension command, in a terminal", () => {
	it("pi#5620: the text set after the command's handler returned is on the input line at once, getEditorText reads it, and Enter sends it to the model", async () => {
		const log = join(cli.dir, "editor.log");
		const extension = file(
			"demofill.mjs",
			`import { renameSync, writeFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("demofill", {
		description: "Fill the editor",
		handler: async (_args, ctx) => {
			setTimeout(() => {
				ctx.ui.setEditorText("bonjour");
				// Written whole, then named: the test reads it once it appears.
				writeFileSync(${JSON.stringify(`${log}.tmp`)}, ctx.ui.getEditorText());
				renameSync(${JSON.stringify(`${log}.tmp`)}, ${JSON.stringify(log)});
			}, 0);
		},
	});
}
`,
		);
		const term = new Terminal(["--faux", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		const sessionFile = /session: (\S+\.jsonl)/.exec(term.output)![1]!;
		const from = term.mark();
		term.type("/demofill\r");
		await fileAppears(cli.dir, "editor.log");
		expect(readFileSync(log, "utf8")).toBe("bonjour");
		// Enter on the line the extension filled (no other key), then Ctrl+D: the line is still sent.
		term.type("\r\x04");
		expect(await term.exited).toBe(0);
		// As the terminal showed it (cursor moves dropped): the prompt with the text on it.
		const cursorMoves = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, "g");
		expect(term.output.slice(from).replace(cursorMoves, "")).toContain("> bonjour");
		// The faux model echoes the prompt it was sent.
		expect(transcript(sessionFile)).toEqual(["user: bonjour", "assistant: bonjour"]);
	});
});

describe("getEditorText while a multi-line message recalled with Up is on the input line", () => {
	it("getEditorText gives the recalled message with its line breaks, not the \u21b5 marks the line shows", async () => {
		const log = join(cli.dir, "editor.log");
		const extension = file(
			"peek.mjs",
			`import { renameSync, writeFileSync } from "node:fs";
export default function (pi) {
	pi.on("tool_result", (_event, ctx) => {
		// Written whole, then named: the test reads it once it appears.
		writeFileSync(${JSON.stringify(`${log}.tmp`)}, ctx.ui.getEditorText());
		renameSync(${JSON.stringify(`${log}.tmp`)}, ${JSON.stringify(log)});
	});
}
`,
		);
		const steps = file(
			"steps.json",
			JSON.stringify([
				"noted",
				{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] },
				"ran",
				"again",
			]),
		);
		const term = new Terminal(["--faux-script", steps, "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		const sessionFile = /session: (\S+\.jsonl)/.exec(term.output)![1]!;
		let from = term.mark();
		term.type("first\\\r");
		await term.until(". ", from);
		term.type("second\r");
		await term.until("noted", from);
		await term.until("> ", term.output.indexOf("noted", from));
		term.type("run it\r");
		await fileAppears(cli.project, "started");
		// Up twice while the tool call runs: past "run it" to the two-line message.
		from = term.mark();
		term.type("\x1b[A\x1b[A");
		await term.until("first\u21b5second", from);
		writeFileSync(join(cli.project, "gate"), "");
		await fileAppears(cli.dir, "editor.log");
		expect(readFileSync(log, "utf8")).toBe("first\nsecond");
		await term.until("ran", from);
		term.type("\r");
		await term.until("again", term.output.indexOf("ran", from));
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(transcript(sessionFile).filter((line) => line.startsWith("user:"))).toEqual([
			"user: first\nsecond",
			"user: run it",
			"user: first\nsecond",
		]);
	});
});

/** An extension command setting a status (twice the same, then cleared), a text widget and the title. */
const STATUS_WIDGET_TITLE = `export default function (pi) {
	pi.registerCommand("show", {
		description: "Set a status, a widget and the title",
		handler: async (_args, ctx) => {
			ctx.ui.setStatus("build", "compiling");
			ctx.ui.setStatus("build", "compiling");
			ctx.ui.setWidget("todo", ["write tests", "fix \x1b[31mbug\x1b[0m"]);
			ctx.ui.setTitle("my \x07project");
			ctx.ui.setStatus("build", undefined);
			ctx.ui.notify("shown", "info");
		},
	});
}
`;

describe("ctx.ui.setStatus, setWidget and setTitle in settle -i", () => {
	it("setStatus / setWidget / setTitle: in a terminal a changed status and each widget line print once as [key] lines, a cleared status as (cleared), the title as OSC 0 without its control characters", async () => {
		const term = new Terminal(["--faux", "-e", file("show.mjs", STATUS_WIDGET_TITLE)], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		const from = term.mark();
		term.type("/show\r");
		await term.until("[info] shown", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		const shown = term.output.slice(from);
		expect(shown.split("[build] compiling")).toHaveLength(2);
		const order = [
			"[build] compiling",
			"[todo] write tests",
			"[todo] fix bug",
			"\x1b]0;my project\x07",
			"[build] (cleared)",
			"[info] shown",
		];
		const at = order.map((text) => shown.indexOf(text));
		expect(at.every((index) => index >= 0)).toBe(true);
		expect(at).toEqual([...at].sort((a, b) => a - b));
	});

	it("setTitle on a pipe: no title escape in the output; the status still prints", async () => {
		const chat = repl(["--faux", "-e", file("show.mjs", STATUS_WIDGET_TITLE)]);
		await chat.idle(0);
		const shown = await chat.say("/show", "[info] shown");
		expect(await chat.end()).toBe(0);
		expect(shown).toContain("[build] compiling\n[todo] write tests\n[todo] fix bug\n[build] (cleared)\n[info] shown");
		expect(chat.stdout).not.toContain("\x1b]0;");
	});
});

/**
 * A progress extension: a status with a carriage return and line breaks (pi's footer folds them
 * into spaces), a widget line holding a line break, a notification redrawn with a carriage return,
 * and a multi-line notification (agegr/pi-web#593: cut to its first line there).
 */
const PROGRESS_TEXT = `export default function (pi) {
	pi.registerCommand("progress", {
		description: "Report progress",
		handler: async (_args, ctx) => {
			ctx.ui.setStatus("index", "indexing 10%\\rindexing 80%\\n\\tsrc/");
			ctx.ui.setWidget("plan", ["step 1\\nstep 2", "\\x1b[32mdone\\x1b[0m\\rDONE"]);
			ctx.ui.notify("build 10%\\rbuild 100%", "warning");
			ctx.ui.notify("usage:\\n  context 40%\\n  cost $0.10", "info");
		},
	});
}
`;

describe("nicknisi/pi-extensions#56, agegr/pi-web#593: status, widget and notification text with line breaks and carriage returns in settle -i", () => {
	it("nicknisi/pi-extensions#56, agegr/pi-web#593: a status prints as one [key] line folded as pi's footer folds it, each widget line and each notification keeps its label (a carriage return redraws the text only), a multi-line notification prints whole", async () => {
		const chat = repl(["--faux", "-e", file("progress.mjs", PROGRESS_TEXT)]);
		await chat.idle(0);
		const shown = await chat.say("/progress", "cost $0.10");
		expect(await chat.end()).toBe(0);
		expect(shown).toContain(
			"[index] indexing 10% indexing 80% src/\n" +
				"[plan] step 1\n[plan] step 2\n[plan] DONE\n" +
				"[warning] build 100%\n" +
				"[info] usage:\n  context 40%\n  cost $0.10\n",
		);
	});
});

/** pi#6978's extension: a command opening two confirms at once, and a confirm before each tool call. */
const DIALOG_RACE = `export default function (pi) {
	pi.registerCommand("dialog-race", {
		description: "Open two confirms at once",
		handler: async (_args, ctx) => {
			const results = await Promise.all([
				ctx.ui.confirm("First", "Should settle"),
				ctx.ui.confirm("Second", "Should also settle"),
			]);
			ctx.ui.notify("Both settled: " + results.join(", "), "info");
		},
	});
	pi.on("tool_call", async (event, ctx) => {
		const ok = await ctx.ui.confirm("Allow " + event.toolName, event.input.command);
		if (!ok) return { block: true, reason: "denied " + event.input.command };
	});
}
`;

describe("pi#6978: two extension dialogs open at once", () => {
	it("pi#6978: a command's two confirms are asked one after the other and both settle with their own answer", async () => {
		const extension = file("dialog-race.mjs", DIALOG_RACE);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("/dialog-race");
		await chat.until("First: Should settle [y/N] ", from);
		expect(chat.stdout.slice(from)).not.toContain("Second");
		chat.send("y");
		await chat.until("Second: Should also settle [y/N] ", from);
		chat.send("n");
		expect(await chat.idle(from, "[info] Both settled: true, false\n")).not.toContain("Queued");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});

	it("pi#6978: two tool calls of one answer each ask before they run: each answer reaches its own call, and the run ends", async () => {
		const extension = file("dialog-race.mjs", DIALOG_RACE);
		const steps = file(
			"script.json",
			JSON.stringify([
				{
					toolCalls: [
						{ name: "bash", arguments: { command: "touch one" } },
						{ name: "bash", arguments: { command: "touch two" } },
					],
				},
				"done both",
			]),
		);
		const chat = repl(["--faux-script", steps, "--no-session", "-e", extension]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("go");
		await chat.until("Allow bash: touch one [y/N] ", from);
		chat.send("y");
		await chat.until("Allow bash: touch two [y/N] ", from);
		chat.send("n");
		const run = await chat.idle(from, "done both");
		expect(run).toContain("  denied touch two\n");
		expect(run).not.toContain("denied touch one");
		expect(existsSync(join(cli.project, "one"))).toBe(true);
		expect(existsSync(join(cli.project, "two"))).toBe(false);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("oh-my-pi#6805: an extension's editor with a signal or a timeout, in the chat", () => {
	it("the editor is withdrawn when its signal aborts and when its timeout ends, as select / confirm / input are: the command sees undefined, a later line is a prompt", async () => {
		const extension = file(
			"notes.mjs",
			`export default function (pi) {
	pi.registerCommand("notes", {
		description: "two editors nobody answers",
		handler: async (_args, ctx) => {
			const stop = new AbortController();
			const asked = ctx.ui.editor("Notes", "draft", { signal: stop.signal });
			stop.abort();
			const aborted = await asked;
			const timedOut = await ctx.ui.editor("Summary", undefined, { timeout: 50 });
			ctx.ui.notify("editor: " + JSON.stringify([aborted ?? null, timedOut ?? null]));
		},
	});
}
`,
		);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("/notes");
		const shown = await chat.idle(from, "[info] editor: [null,null]\n");
		expect(shown).toContain("Summary: ");
		// The faux model echoes a prompt: "later" reached the model, no withdrawn editor took it.
		expect(await chat.say("later")).toBe(`later\nlater\n${PROMPT}`);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});
