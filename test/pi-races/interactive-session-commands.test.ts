/**
 * Reports about `settle -i`'s session commands (`/reload`, …), replayed against a real `settle`
 * child process driven through a pipe (test/cli/interactive.helpers.ts). Every wait is on an
 * output marker.
 *
 * pi#1325: an extension file added to `~/.pi/agent/extensions/` while pi ran: the first `/reload`
 * did not register its command (`/tworeloadtest` was missing), only a second `/reload` did.
 *
 * pi#3305: `/import "path/to/session.jsonl"` (the path quoted) ended pi. Replayed in a pipe after
 * another command, it found a Settle bug: the `y` piped after `/import` waited behind the command
 * that asked, so the question was cancelled at the end of input and `y` went to the model as a
 * prompt. Settle's own `/resume <path>` did not take a quoted path either.
 *
 * pi#2078 / gsd-2#107: with stdin not a terminal (a pipe from a wrapper, an IDE, CI), pi's
 * interactive mode started its TUI anyway and hung for good with no output.
 *
 * `/name <title>` on a brand-new session before any message. A prompt after it keeps
 * the name (written with the first message); quitting without one writes nothing, name included
 * (pi's lazy-persistence rule, kept), and the confirmation says so.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-interactive-session-commands-");

function repl(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

/** The report's extension, as written there. */
const TWO_RELOAD_EXTENSION = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("tworeloadtest", {
		description: "Command used to reproduce double /reload issue",
		handler: async (_args, ctx) => {
			ctx.ui.notify("tworeloadtest command is active", "info");
		},
	});
}
`;

describe("pi#1325: an extension added while the chat runs, then one /reload", () => {
	it("pi#1325: settle -i: an extension file written to the agent folder's extensions/ after start-up has its command after a single /reload (listed in /help, and it runs)", async () => {
		const extensions = join(cli.agentDir, "extensions");
		mkdirSync(extensions, { recursive: true });
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		expect(await chat.say("/tworeloadtest")).toContain("unknown command /tworeloadtest");

		writeFileSync(join(extensions, "reload-two-step-test.ts"), TWO_RELOAD_EXTENSION);
		await chat.say("/reload", "Reloaded:");
		expect(await chat.say("/help")).toMatch(/\/tworeloadtest\s+Command used to reproduce double \/reload issue/);
		expect(await chat.say("/tworeloadtest")).toContain("tworeloadtest command is active");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

/** A saved session (one prompt, one faux answer) in a folder whose name has a space; its path. */
function savedSession(): string {
	const folder = join(cli.dir, "my sessions");
	const run = runSettle(["--faux", "--session-dir", folder, "-p", "remember the word kiwi"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		timeoutMs: 60_000,
	});
	expect(run.code).toBe(0);
	const [file] = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
	return join(folder, file as string);
}

describe("pi#3305: /import of a quoted path, answered by the line piped after it", () => {
	it('pi#3305: settle -i: /new, /import "<path with a space>" and y piped at once: y answers the question, the session is imported, and y is not sent as a prompt', async () => {
		const file = savedSession();
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		const from = chat.mark();
		// One write, then the end of input: /import and y are read while /new still runs, as when typed ahead.
		chat.child.stdin.end(`/new\n/import "${file}"\ny\n/session\n`);
		expect(await chat.exited).toBe(0);
		const output = chat.stdout.slice(from);
		expect(output).toContain(`Replace the current session with ${file}? [y/N] y\n`);
		expect(output).toContain("Imported into a new session");
		expect(output).not.toContain("Import cancelled");
		// The imported conversation alone: y was an answer, not a prompt.
		expect(output).toMatch(/messages: \d+ in context \(1 yours, 1 answers,/);
		expect(chat.stderr).toBe("");
	});

	it('pi#3305: settle -i: /resume "<path with a space>" (quoted, as /import takes it) resumes that file', async () => {
		const file = savedSession();
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		expect(await chat.say(`/resume "${file}"`)).toContain(`Resumed `);
		expect(await chat.say("/session")).toContain(`file: ${file}`);
		expect(await chat.say(`/resume ""`)).toContain("Usage: /resume [id-prefix|path|all|more]");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("pi#2078 / gsd-2#107: the chat started without a terminal", () => {
	it("pi#2078: settle with no prompt on a pipe says what to do and exits 2 instead of starting a chat; settle -i on a pipe answers its first prompt and exits 0 at the end of input", () => {
		const bare = runSettle(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 60_000 });
		expect(bare.code).toBe(2);
		expect(bare.stdout).toBe("");
		expect(bare.stderr).toContain("Error: no prompt.");
		expect(bare.stderr).toContain("-i starts a chat");

		const chat = runSettle(["-i", "--faux", "--no-session", "hello from a pipe"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: 60_000,
		});
		expect(chat.code).toBe(0);
		expect(chat.stdout).toContain("> hello from a pipe\nhello from a pipe\n");
		expect(chat.stderr).toBe("");
	});
});

describe("/name on a brand-new session, before any message", () => {
	const sessionFiles = () => sessionFilesUnder(cli.agentDir);
	/** The names `/name` saved in the one session file there is. */
	const savedNames = (): string[] => {
		const files = sessionFiles();
		expect(files).toHaveLength(1);
		return readFileSync(files[0]!, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((entry) => entry.type === "session_info")
			.map((entry) => entry.name);
	};

	it("settle -i, /name then a prompt: the name is in the session file with the conversation; /name alone then quitting writes no file and the chat said so when naming", async () => {
		const named = repl(["--faux"]);
		await named.idle(0);
		expect(await named.say("/name release notes")).toContain(
			"Session name: release notes (saved with the first message; quitting before one keeps no session)\n",
		);
		await named.say("hello there", "hello there\n>");
		expect(await named.end()).toBe(0);
		expect(savedNames()).toEqual(["release notes"]);
		expect(named.stderr).toBe("");
		rmSync(join(cli.agentDir, "sessions"), { recursive: true, force: true });

		const unnamed = repl(["--faux"]);
		await unnamed.idle(0);
		expect(await unnamed.say("/name only a name")).toContain(
			"Session name: only a name (saved with the first message; quitting before one keeps no session)\n",
		);
		expect(await unnamed.end()).toBe(0);
		// pi's rule: a session with no message is not written, its name neither.
		expect(sessionFiles()).toEqual([]);
		expect(unnamed.stderr).toBe("");
	});

	it("regression: settle -i, /name while the first message's run has started and its message is not written yet: the note said quitting keeps no session, but quitting then kept it; now the plain confirmation", async () => {
		// An agent_start handler holds the run before the user message reaches the file, until `gate`.
		const extension = join(cli.dir, "hold-first-message.mjs");
		writeFileSync(
			extension,
			`import { existsSync, watch } from "node:fs";
export default function (pi) {
	pi.on("agent_start", async (_event, ctx) => {
		ctx.ui.notify("holding the first message", "info");
		await new Promise((resolve) => {
			const watcher = watch(".", () => {
				if (existsSync("gate")) { watcher.close(); resolve(); }
			});
			if (existsSync("gate")) { watcher.close(); resolve(); }
		});
	});
}
`,
		);
		const chat = repl(["--faux", "-e", extension]);
		await chat.idle(0);
		chat.send("hello there");
		await chat.until("holding the first message");
		const from = chat.mark();
		chat.send("/name release notes");
		await chat.until("Session name: release notes", from);
		// Quitting now: the chat waits for the run, so the message and the name are saved.
		const ended = chat.end();
		writeFileSync(join(cli.project, "gate"), "");
		expect(await ended).toBe(0);
		const named = chat.stdout.slice(from);
		expect(named).toContain("Session name: release notes\n");
		expect(named).not.toContain("saved with the first message");
		expect(savedNames()).toEqual(["release notes"]);
		expect(chat.stderr).toBe("");
	});

	it("settle -i, /name after the first message: the plain confirmation, no note", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("first", "first\n>");
		const named = await chat.say("/name later");
		expect(named).toContain("Session name: later\n");
		expect(named).not.toContain("saved with the first message");
		expect(await chat.end()).toBe(0);
	});
});
