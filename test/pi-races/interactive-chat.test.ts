/**
 * Reports from pi's interactive TUI replayed against `settle -i`, the line-based chat: a real
 * `settle` child process driven through a pipe (the faux model, real extension files, real shell
 * commands). Every wait is on an output marker or a file, never on time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { fileAppears, GATED_COMMAND, PROMPT, Repl } from "../cli/interactive.helpers.js";

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

describe("pi#2035: an extension asks a question in session_start", () => {
	it("pi#2035: the question is shown before the first prompt and the first typed line answers it", async () => {
		const extension = file(
			"ask.mjs",
			`export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		const yes = await ctx.ui.confirm("Scaffold", "create the folder?");
		ctx.ui.notify("scaffold: " + yes);
	});
}
`,
		);
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
		const extension = file(
			"ask.mjs",
			`export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		const yes = await ctx.ui.confirm("Scaffold", "create the folder?");
		ctx.ui.notify("scaffold: " + yes);
	});
}
`,
		);
		const chat = repl(["--faux", "--no-session", "-e", extension]);
		await chat.until("Scaffold: create the folder? [y/N] ");
		expect(await chat.end()).toBe(0);
		expect(chat.stdout).toContain("[info] scaffold: false\n");
		expect(chat.stderr).toBe("");
	});
});
