/**
 * Reports from pi's interactive TUI replayed against `settle -i`, the line-based chat: a real
 * `settle` child process driven through a pipe (the faux model, real extension files, real shell
 * commands). Every wait is on an output marker or a file, never on time.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
} from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-chat-");

function repl(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

function file(name: string, text: string): string {
	const path = join(cli.dir, name);
	writeFileSync(path, text);
	return path;
}

describe("pi#420: an extension command typed while the model streams", () => {
	it("pi#420: runs at once while a tool call runs (no 'Agent is already processing'), and the run goes on to its answer", async () => {
		const log = file("commands.log", "");
		const extension = file(
			"deploy.mjs",
			`import { appendFileSync, writeFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("deploy", {
		description: "deploys",
		handler: async (args) => {
			appendFileSync(${JSON.stringify(log)}, "deploy " + args + "\\n");
			writeFileSync("deployed", "");
		},
	});
}
`,
		);
		const steps = file(
			"script.json",
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "job done"]),
		);
		const chat = repl(["--faux-script", steps, "--no-session", "-e", extension]);
		await chat.idle(0);
		chat.send("start the job");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.send("/deploy now");
		// The command's handler ran while the tool call still waits for its gate.
		await fileAppears(cli.project, "deployed");
		expect(readFileSync(log, "utf8")).toBe("deploy now\n");
		writeFileSync(join(cli.project, "gate"), "");
		const rest = await chat.idle(from, "job done");
		expect(rest).not.toContain("already processing");
		expect(rest).not.toContain("Error");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		expect(readFileSync(log, "utf8")).toBe("deploy now\n");
	});
});

/** An extension that asks a yes/no question in `session_start` and notifies the answer. */
const ASK_AT_SESSION_START = `export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		const yes = await ctx.ui.confirm("Scaffold", "create the folder?");
		ctx.ui.notify("scaffold: " + yes);
	});
}
`;

describe("pi#2035: an extension asks a question in session_start", () => {
	it("pi#2035: the question is shown before the first prompt and the first typed line answers it", async () => {
		const extension = file("ask.mjs", ASK_AT_SESSION_START);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.until("Scaffold: create the folder? [y/N] ");
		const from = chat.mark();
		chat.send("y");
		const after = await chat.idle(from, "[info] scaffold: true");
		expect(after).not.toContain("Scaffold");
		const answer = await chat.say("hello", "hello");
		expect(answer).toContain(`hello\n${PROMPT}`);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});

	it("pi#2035: stdin ending while the session_start question waits cancels it (false) and settle exits 0", async () => {
		const extension = file("ask.mjs", ASK_AT_SESSION_START);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.until("Scaffold: create the folder? [y/N] ");
		expect(await chat.end()).toBe(0);
		expect(chat.stdout).toContain("[info] scaffold: false\n");
		expect(chat.stderr).toBe("");
	});
});

describe("agegr/pi-web#174: `!command` and `!!command` typed in the chat", () => {
	it("agegr/pi-web#174: `!cmd` runs in the project and shows its output instead of going to the model; `!!cmd` is recorded kept out of the context; escape sequences in the output are made visible", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		const ran = await chat.say("!touch made-by-bang && echo made");
		expect(ran).toContain("$ touch made-by-bang && echo made\n  made\n");
		expect(ran).not.toContain("full output");
		expect(existsSync(join(cli.project, "made-by-bang"))).toBe(true);
		const hidden = await chat.say('!!printf "x\\033]0;title\\007y\\n"');
		expect(hidden).toContain("(not sent to the model)");
		expect(hidden).toContain("  x\u241b]0;title\u2407y\n");
		expect(hidden).not.toContain("\u001b]0;");
		expect(await chat.say("!exit 3")).toContain("(exit 3)");
		// Neither reached the model as a prompt: the faux model, which echoes prompts, never answered.
		expect(await chat.say("hello", "hello")).toContain(`hello\n${PROMPT}`);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		const messages = readEntries(bannerSessionFile(chat.stdout))
			.filter((entry) => entry.type === "message")
			.map(
				(entry) => entry.message as { role: string; command?: string; excludeFromContext?: boolean; output?: string },
			)
			.filter((message) => message.role !== "system");
		expect(messages.map((message) => message.role)).toEqual([
			"bashExecution",
			"bashExecution",
			"bashExecution",
			"user",
			"assistant",
		]);
		expect(messages[0]).toMatchObject({ command: "touch made-by-bang && echo made", output: "made\n" });
		expect(messages[0]!.excludeFromContext).not.toBe(true);
		expect(messages[1]).toMatchObject({ excludeFromContext: true });
		// The raw bytes (the escape left out of the output) are kept in the full-output file the entry names.
		const kept = (messages[1] as { fullOutputPath?: string }).fullOutputPath ?? "";
		expect(readFileSync(kept, "utf8")).toBe("x\x1b]0;title\x07y\n");
		// The chat names it too: the output it showed is not all the command printed.
		expect(hidden).toContain(`(the full output is in ${kept})\n`);
		rmSync(kept);
	});

	it("agegr/pi-web#174: a `!` command's output cut for the model: the chat names the full-output file the entry names", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		const shown = await chat.say("!seq 1 2500", "full output is in");
		// The file is written once the model has answered.
		await chat.say("hello", "hello");
		expect(await chat.end()).toBe(0);
		const [entry] = readEntries(bannerSessionFile(chat.stdout)).flatMap((e) =>
			e.type === "message" && (e.message as { role: string }).role === "bashExecution"
				? [e.message as { truncated?: boolean; fullOutputPath?: string }]
				: [],
		);
		expect(entry?.truncated).toBe(true);
		expect(shown).toContain(`(output cut for the model; the full output is in ${entry!.fullOutputPath})\n`);
		expect(readFileSync(entry!.fullOutputPath!, "utf8").split("\n")).toHaveLength(2501);
		rmSync(entry!.fullOutputPath!);
	});

	it("wave-agent#1753: a `!` command printing Latin-1 bytes: the chat says they are shown as U+FFFD and names the file that keeps them", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		const shown = await chat.say("!printf 'caf\\351\\n'", "full output is in");
		await chat.say("hello", "hello");
		expect(await chat.end()).toBe(0);
		const [entry] = readEntries(bannerSessionFile(chat.stdout)).flatMap((e) =>
			e.type === "message" && (e.message as { role: string }).role === "bashExecution"
				? [e.message as { notUtf8?: boolean; fullOutputPath?: string }]
				: [],
		);
		expect(entry?.notUtf8).toBe(true);
		expect(shown).toContain("  caf\ufffd\n");
		expect(shown).toContain("(bytes that are not UTF-8 text are shown as \ufffd)\n");
		expect(shown).toContain(`(the full output is in ${entry!.fullOutputPath})\n`);
		expect(readFileSync(entry!.fullOutputPath!)).toEqual(Buffer.from("caf\xe9\n", "latin1"));
		rmSync(entry!.fullOutputPath!);
	});

	it("agegr/pi-web#174: Ctrl+C while a `!` command runs cancels it and the chat goes on", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		chat.send(`!${GATED_COMMAND}`);
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.child.kill("SIGINT");
		expect(await chat.idle(from, "(cancelled)")).not.toContain("opened");
		expect(await chat.say("hello", "hello")).toContain(`hello\n${PROMPT}`);
		expect(await chat.end()).toBe(0);
	});
});

describe("cursor/cursor#3842: a progress bar in a `!` command's output, in the chat", () => {
	it("cursor/cursor#3842: 200 frames redrawn with \\r show as the bar's last frame between the lines around it, not glued into one line; a shorter frame after an erase (`\\r\\e[K`) leaves no rest of the longer one", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		const bar = "echo start; for i in $(seq 1 200); do printf '\\rprogress %3d/200' $i; done; echo; echo done";
		const shown = await chat.say(`!${bar}`);
		expect(shown).toContain("  start\n  progress 200/200\n  done\n");
		expect(shown).not.toContain("progress 199/200");
		const erased = await chat.say("!printf 'downloading 99%%\\r\\033[Kdone\\n'");
		expect(erased).toContain("\n  done\n");
		expect(erased).not.toContain("  downloading");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

describe("opencode#46053: a `!` command typed while the agent works", () => {
	it("opencode#46053: runs at once, not after the run: the model's bash call waiting for the file it makes ends with it, its output is shown, and its record joins the session once the run has settled", async () => {
		const steps = file(
			"script.json",
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND, timeout: 15 } }] },
				"job done",
			]),
		);
		const chat = repl(["--faux-script", steps]);
		await chat.idle(0);
		chat.send("start the job");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		// Had the `!` command waited for the run, the call would have waited for the gate until its timeout.
		chat.send("!touch gate && echo gate-opened");
		const shown = await chat.idle(from, "job done");
		expect(shown).toContain("$ touch gate && echo gate-opened\n  gate-opened\n");
		expect(shown).not.toContain("Queued");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		const messages = readEntries(bannerSessionFile(chat.stdout))
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message as { role: string; content?: { text?: string }[]; output?: string })
			.filter((message) => message.role !== "system");
		// Held until the run settles, as pi does: never between a tool call and its result.
		expect(messages.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"bashExecution",
		]);
		expect(messages[2]!.content?.[0]?.text).toBe("opened\n");
		expect(messages[4]!.output).toBe("gate-opened\n");
	});
});

describe("oh-my-pi#6805: an extension's confirm with a timeout, in the chat", () => {
	it("oh-my-pi#6805: the question is withdrawn when its timeout ends: the tool call is blocked, the prompt comes back and a later `y` is a prompt, not an answer", async () => {
		const extension = file(
			"gate.mjs",
			`export default function (pi) {
	pi.on("tool_call", async (event, ctx) => {
		const ok = await ctx.ui.confirm("Allow bash", event.input.command, { timeout: 50 });
		if (!ok) return { block: true, reason: "not confirmed" };
	});
}
`,
		);
		const steps = file(
			"script.json",
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "touch ran" } }] }, "gave up"]),
		);
		const chat = repl(["--faux-script", steps, "--no-session", "-e", extension]);
		await chat.idle(0);
		const run = await chat.say("go", "gave up");
		expect(run).toContain("Allow bash: touch ran [y/N] ");
		expect(run).toContain("  not confirmed\n");
		expect(existsSync(join(cli.project, "ran"))).toBe(false);
		// The faux model echoes a prompt: "y" reached the model, no stale question took it.
		expect(await chat.say("y")).toBe(`y\ny\n${PROMPT}`);
		expect(await chat.end()).toBe(0);
		expect(existsSync(join(cli.project, "ran"))).toBe(false);
	});
});

describe("pi#8273: a large pasted prompt", () => {
	it("pi#8273: a 5,000-character line reaches the model and the session file whole, not as a paste marker", async () => {
		const long = Array.from({ length: 700 }, (_, index) => `word${index}`).join(" ");
		expect(long.length).toBeGreaterThan(5000);
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say(long, "word699");
		expect(await chat.end()).toBe(0);
		const messages = readEntries(bannerSessionFile(chat.stdout))
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message as { role: string; content: unknown });
		const user = messages.find((message) => message.role === "user")!;
		const text = typeof user.content === "string" ? user.content : (user.content as { text: string }[])[0]!.text;
		expect(text).toBe(long);
		// The faux model echoes the prompt it was sent: the whole text came back.
		const answer = messages.find((message) => message.role === "assistant")!;
		expect((answer.content as { text: string }[])[0]!.text).toBe(long);
	});
});

describe("xing-shuyin/pi-web-ui#16: escape sequences in an extension's UI text", () => {
	it("xing-shuyin/pi-web-ui#16: a notification, a select's title and options and a confirm's text print with colour codes dropped and other escapes made visible; the answer still picks the option", async () => {
		const log = file("picked.log", "");
		const extension = file(
			"escapes.mjs",
			`import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("esc", {
		description: "escapes",
		handler: async (_args, ctx) => {
			ctx.ui.notify("note \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 \\x1b[2J end");
			const picked = await ctx.ui.select("Pick \\x1b[1mone\\x1b[0m", ["a\\x1b]52;c;aGk=\\x07", "b"]);
			const yes = await ctx.ui.confirm("Sure \\x1b]8;;http://x\\x07link", "ok?");
			writeFileSync(${JSON.stringify(log)}, JSON.stringify({ picked, yes }));
		},
	});
}
`,
		);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.idle(0);
		const from = chat.mark();
		chat.send("/esc");
		await chat.until("Choose 1-2 (empty to cancel): ", from);
		chat.send("1");
		await chat.until("[y/N] ", from);
		chat.send("y");
		const shown = await chat.idle(from);
		expect(shown).toContain("[info] note red \u241b]0;title\u2407  end\n");
		expect(shown).toContain("Pick one\n  1. a\u241b]52;c;aGk=\u2407\n  2. b\n");
		expect(shown).toContain("Sure \u241b]8;;http://x\u2407link: ok? [y/N] ");
		expect(chat.stdout).not.toContain("\u001b");
		expect(await chat.end()).toBe(0);
		expect(JSON.parse(readFileSync(log, "utf8"))).toEqual({ picked: "a\u001b]52;c;aGk=\u0007", yes: true });
	});
});
