/**
 * Reports about agents run where the environment is unusual (containers, CI, editors' shells),
 * replayed against real `settle` processes with a modified environment and temp home folders.
 *
 * copilot-cli#3372: in a dumb terminal (`TERM=dumb`: Emacs' `M-x shell`, Acme's win) the chat wrote
 * escape sequences the terminal shows as text. claude-code#34799: with `$HOME` mounted read-only in a
 * container, claude showed nothing and hung. pi#6652: with the agent folder moved by its variable, a
 * log still went to `~/.pi`, creating it in the home folder. aws/agentcore-cli#1391: ANSI codes in
 * output redirected to a file, `NO_COLOR` ignored. local-operator#665: a configured shell that is a
 * folder or not executable failed with a bare error. claude-code#9026, claude-code#21506,
 * ralph-claude-code#170: `-p` without a terminal, or as a background job, hung with no output.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, runSettle, trackChild, useCliProject } from "../cli/helpers.js";
import { quote, Terminal } from "../cli/interactive.helpers.js";
import { sessionFilesUnder, writeProtect } from "./helpers.js";

const cli = useCliProject("settle-pi-races-odd-env-");
const ESC = String.fromCharCode(27);

/** An extension whose `/later` command, once `gate` exists, notifies and sets the window title while the prompt waits. */
function lateNotifier(gate: string): string {
	const path = join(cli.dir, "late.mjs");
	writeFileSync(
		path,
		`import { existsSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("later", {
		description: "notifies once the gate file exists",
		handler: async (_args, ctx) => {
			const timer = setInterval(() => {
				if (!existsSync(${JSON.stringify(gate)})) return;
				clearInterval(timer);
				ctx.ui.setTitle("late title");
				ctx.ui.notify("late note", "info");
			}, 10);
		},
	});
}
`,
	);
	return path;
}

describe("copilot-cli#3372: TERM=dumb: the chat writes escape sequences a dumb terminal shows as text", () => {
	it("copilot-cli#3372: under TERM=dumb the chat writes no escape sequence: no bracketed paste, no line clearing, no title; /copy says why it copies nothing", async () => {
		const gate = join(cli.dir, "gate");
		const term = new Terminal(["--faux", "--no-session", "-e", lateNotifier(gate)], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { TERM: "dumb" },
		});
		await term.until("> ", 0);
		let from = term.mark();
		term.type("hello there\r");
		await term.until("hello there\r\n", term.output.indexOf("hello there", from) + 1);
		await term.until("> ", term.output.lastIndexOf("hello there"));

		from = term.mark();
		term.type("/later\r");
		await term.until("/later\r", from);
		await term.until("> ", term.output.indexOf("/later\r", from));
		from = term.mark();
		writeFileSync(gate, "");
		await term.until("late note", from);
		await term.until("> ", term.output.indexOf("late note", from));

		from = term.mark();
		term.type("/copy\r");
		await term.until("/copy\r", from);
		await term.until("> ", term.output.indexOf("/copy\r", from));
		expect(term.output.slice(from)).toContain(
			"Error: /copy writes to the clipboard through the terminal (OSC 52), and the output is not a terminal that takes escape sequences (TERM=dumb shows them as text): nothing copied.",
		);

		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(term.output).toContain("settle interactive");
		// The late note ended the prompt's line instead of clearing it.
		expect(term.output).toContain("> \r\n[info] late note");
		expect(term.output.includes(ESC)).toBe(false);
	});
});

describe("claude-code#34799: HOME mounted read-only in a container: claude showed nothing and hung", () => {
	it("claude-code#34799: with a read-only HOME and no agent folder given, settle -p exits 1 at once with one line naming the folder and the ways out; --no-session and --agent-dir answer; HOME stays as it was", () => {
		const home = join(cli.dir, "home");
		mkdirSync(home);
		const restore = writeProtect(home);
		try {
			// agentDir "": no SETTLE_AGENT_DIR, so the agent folder is ~/.settle/agent.
			const env = { HOME: home };
			const refused = runSettle(["--faux", "-p", "hi"], { cwd: cli.project, agentDir: "", env });
			expect(refused.code).toBe(1);
			expect(refused.stdout).toBe("");
			expect(refused.stderr).toBe(
				`Error: Cannot keep sessions in ${join(home, ".settle", "agent", "sessions")}/${sessionFolderName(cli.project)}: ${home} is not writable. Pass --session-dir <folder> (or --agent-dir <folder>), or --no-session to keep the session in memory.\n`,
			);
			expect(runSettle(["--faux", "--no-session", "-p", "hi"], { cwd: cli.project, agentDir: "", env })).toEqual({
				code: 0,
				stdout: "hi\n",
				stderr: "",
			});
			const elsewhere = join(cli.dir, "agent-elsewhere");
			const answered = runSettle(["--faux", "--agent-dir", elsewhere, "-p", "hi"], {
				cwd: cli.project,
				agentDir: "",
				env,
			});
			expect(answered).toMatchObject({ code: 0, stdout: "hi\n" });
			expect(existsSync(join(elsewhere, "sessions"))).toBe(true);
			expect(readdirSync(home)).toEqual([]);
		} finally {
			restore();
		}
	});
});

/** The folder name Settle keeps a project's sessions under (pi's `--<path with dashes>--`). */
function sessionFolderName(cwd: string): string {
	return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

describe("pi#6652: the agent folder moved by its variable, yet a log still created ~/.pi in the home folder", () => {
	it("pi#6652: with SETTLE_AGENT_DIR set, a run, a continued run, the chat, an export and the model list write nothing in HOME", () => {
		const home = join(cli.dir, "home");
		mkdirSync(home);
		const env = { HOME: home };
		const run = (args: string[], input?: string) =>
			runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, env, ...(input === undefined ? {} : { input }) });
		expect(run(["--faux", "-p", "first"])).toMatchObject({ code: 0, stdout: "first\n" });
		expect(run(["--faux", "-c", "-p", "again"])).toMatchObject({ code: 0, stdout: "again\n" });
		expect(run(["--faux", "-i"], "hello\n/nope\n").code).toBe(0);
		const sessions = readdirSync(join(cli.agentDir, "sessions"), { recursive: true, encoding: "utf8" }).filter((name) =>
			name.endsWith(".jsonl"),
		);
		expect(sessions).toHaveLength(2);
		const page = join(cli.dir, "page.html");
		expect(run(["--export", join(cli.agentDir, "sessions", sessions[0]!), page]).code).toBe(0);
		expect(existsSync(page)).toBe(true);
		expect(run(["--list-models"]).code).toBe(0);
		expect(readdirSync(home)).toEqual([]);
	});
});

describe("aws/agentcore-cli#1391: ANSI codes in output redirected to a file; NO_COLOR ignored", () => {
	it("aws/agentcore-cli#1391: redirected, settle writes no escape sequence even with FORCE_COLOR=1 (as CI runners set it); in a terminal, NO_COLOR turns the colors off", async () => {
		const env = { FORCE_COLOR: "1", TERM: "xterm-256color" };
		const failed = runSettle(["--model", "nope/x", "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir, env });
		expect(failed.code).not.toBe(0);
		expect(failed.stderr).toContain("Error: Model not found: nope/x.");
		const chat = runSettle(["--faux", "-i"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env,
			input: "hello\n/nope\n",
		});
		expect(chat.code).toBe(0);
		expect(chat.stdout).toContain("Error: unknown command /nope.");
		for (const text of [failed.stdout, failed.stderr, chat.stdout, chat.stderr]) expect(text.includes(ESC)).toBe(false);

		const term = new Terminal(["--faux", "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		const from = term.mark();
		term.type("/nope\r");
		await term.until("for the commands.", from);
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(term.output).toContain("settle interactive");
		expect(term.output).toContain("Error: unknown command /nope.");
		// Colors (SGR, ESC [ … m) are off; the line editor's own sequences stay (the terminal takes them).
		expect(term.output).not.toMatch(new RegExp(`${ESC}\\[[0-9;]*m`));
	});
});

describe("local-operator#665: a configured shell that is a folder or not executable: the bash tool failed with a bare error", () => {
	it("local-operator#665: shellPath naming a folder or a file without execute permission fails the model's call and a ! command with what is wrong and how to fix it, not Node's `spawn … EACCES`; the chat goes on", () => {
		const folder = join(cli.dir, "shells");
		mkdirSync(folder);
		const plain = join(folder, "plain-file");
		writeFileSync(plain, "#!/bin/sh\necho hi\n", { mode: 0o644 });
		const steps = join(cli.dir, "steps.json");
		writeFileSync(steps, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "echo hello" } }] }]));
		mkdirSync(cli.agentDir, { recursive: true });
		const cases = [
			[
				folder,
				`Custom shell path is a folder, not a shell: ${folder}. Fix the shellPath setting (the shell's own file, such as /bin/bash) or remove it to use /bin/bash.`,
			],
			[
				plain,
				`Custom shell path is not executable: ${plain}. Make it executable (chmod +x), fix the shellPath setting, or remove it to use /bin/bash.`,
			],
		] as const;
		for (const [shellPath, message] of cases) {
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ shellPath }));
			const run = runSettle(["--faux-script", steps, "--no-session", "--json", "-p", "go"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(run.code).toBe(0);
			const ends = run.stdout
				.split("\n")
				.filter((line) => line.includes('"tool_execution_end"'))
				.map((line) => JSON.parse(line) as { isError: boolean; result: { content: { text: string }[] } });
			expect(ends.map((end) => [end.isError, end.result.content[0]!.text])).toEqual([[true, message]]);

			const chat = runSettle(["--faux", "--no-session", "-i"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				input: "!echo hi\nstill here\n",
			});
			expect(chat.code).toBe(0);
			// "still here" may be read while the ! command runs: then it is shown queued first.
			const shown = chat.stdout.replace("Queued (after !echo hi): still here\n", "");
			expect(shown).toContain(`$ echo hi\nError: ${message}\n`);
			expect(chat.stdout).toContain("still here\n");
			expect(chat.stdout).not.toContain("EACCES");
		}
	});
});

describe("claude-code#9026, claude-code#21506, ralph-claude-code#170: -p with no terminal, or as a background job: hung with no output", () => {
	it("claude-code#9026, claude-code#21506: with no controlling terminal (setsid), stdin /dev/null and stdout a file, settle -p writes the answer to the file, exits 0 and keeps the session", () => {
		const out = join(cli.dir, "out.txt");
		const input = openSync("/dev/null", "r");
		const output = openSync(out, "w");
		try {
			const run = spawnSync("setsid", ["-w", process.execPath, ...cliCommand(), "--faux", "-p", "what is 2+2"], {
				cwd: cli.project,
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
				stdio: [input, output, output],
			});
			expect(run.status).toBe(0);
		} finally {
			closeSync(input);
			closeSync(output);
		}
		expect(readFileSync(out, "utf8")).toBe("what is 2+2\n");
		expect(sessionFilesUnder(cli.agentDir)).toHaveLength(1);
	});

	it("ralph-claude-code#170: started in the background of a job-control shell in a terminal, settle -p never reads the terminal (which would stop it with SIGTTIN): the job ends 0 with the answer in its file", async () => {
		const out = join(cli.dir, "bg.txt");
		const settle = [process.execPath, ...cliCommand(), "--faux", "-p", "hi"].map(quote).join(" ");
		// `set -m`: the job gets a process group of its own; `wait` returns 149 (128 + SIGTTIN) if it is stopped.
		const script = `set -m; ${settle} > ${quote(out)} 2>&1 & wait $!; status=$?; kill -9 $! 2>/dev/null; echo "job exit $status"`;
		const child = spawn("script", ["-qfec", `bash -c ${quote(script)}`, "/dev/null"], {
			cwd: cli.project,
			env: { ...process.env, TERM: "xterm", SETTLE_AGENT_DIR: cli.agentDir },
		});
		let shown = "";
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			shown += chunk;
		});
		expect(await trackChild(child)).toBe(0);
		expect(shown).toContain("job exit 0");
		expect(readFileSync(out, "utf8")).toBe("hi\n");
	});
});
