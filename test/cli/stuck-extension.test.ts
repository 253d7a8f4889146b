/**
 * `settle` with an extension handler that never settles (the process must end and say which
 * handler it waited on) or a command that throws (the error names the extension's file): real
 * child processes, real extension files.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, trackChild, useCliProject } from "./helpers.js";
import { fileAppears, Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-stuck-");

function extension(name: string, body: string): string {
	const file = join(cli.dir, name);
	writeFileSync(file, `import { writeFileSync } from "node:fs";\nexport default function (pi) {\n${body}\n}\n`);
	return file;
}

describe("an extension handler that never settles", () => {
	it("regression: a promise nothing can settle ended settle with exit 13 and no word; now exit 1 naming the handler", () => {
		const file = extension("stuck.ts", `\tpi.on("before_agent_start", () => new Promise(() => {}));`);
		const run = cli.settle(["--approve", "--faux", "-e", file, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(`the before_agent_start handler of ${file}`);
		expect(run.stderr).toContain("never settles");
		expect(run.stdout).toBe("");
	});

	it("a slash command that never settles is named as the command", () => {
		const file = extension(
			"stuck-command.ts",
			`\tpi.registerCommand("wait", { handler: () => new Promise(() => {}) });`,
		);
		const run = cli.settle(["--approve", "--faux", "-e", file, "-p", "/wait"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(`the /wait command of ${file}`);
	});

	it("regression: SIGTERM while a handler hung (a timer alive) kept settle running until a second signal; now exit 143 naming it", async () => {
		const file = extension(
			"stuck-timer.ts",
			`\tpi.on("before_agent_start", () => new Promise(() => { setInterval(() => {}, 1000); process.stderr.write("stuck\\n"); }));`,
		);
		const child = spawn(process.execPath, [...cliCommand(), "--approve", "--faux", "-e", file, "-p", "hi"], {
			cwd: cli.project,
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
		});
		child.stdin.end();
		let stderr = "";
		const stuck = new Promise<void>((resolve) =>
			child.stderr.on("data", (chunk) => {
				stderr += String(chunk);
				if (stderr.includes("stuck\n")) resolve();
			}),
		);
		const exited = trackChild(child);
		await stuck;
		child.kill("SIGTERM");
		expect(await exited).toBe(143);
		expect(stderr).toContain(`still waiting after 2 s for:\n  the before_agent_start handler of ${file}\n`);
	});

	it("regression: settle -i said nothing after Ctrl+C while a turn_end handler hung and only kill ended it; now the abort leaves the handler behind after the tools' 1 s grace, names it, and the chat is back at the prompt (oh-my-pi#6489)", async () => {
		const file = extension(
			"stuck-turn-end.ts",
			`\tpi.on("turn_end", () => new Promise(() => { setInterval(() => {}, 1000); writeFileSync("started", ""); }));`,
		);
		const chat = new Repl(["--approve", "--faux", "-e", file], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		chat.send("go");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.child.kill("SIGINT");
		const after = await chat.idle(from);
		expect(after).toContain(
			`Extension error (${file}, turn_end): Operation aborted: a turn_end handler did not return within 1000 ms of the abort`,
		);
		expect(after).not.toContain("Still not stopped");
		expect(await chat.end()).toBe(0);
	});

	it("a handler that settles leaves nothing pending: exit 0 and no stall message", () => {
		const file = extension("slow.ts", `\tpi.on("before_agent_start", () => new Promise((r) => setImmediate(r)));`);
		const run = cli.settle(["--approve", "--faux", "-e", file, "-p", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hi\n");
		expect(run.stderr).not.toContain("never settles");
	});
});

describe("a tool that ignores its abort signal", () => {
	/** An extension with a tool `stubborn` that never returns (and, with `timer`, keeps the loop alive), and a script calling it. */
	function stubbornRun(timer: boolean): string[] {
		const keepAlive = timer ? "setInterval(() => {}, 1000); " : "";
		const file = extension(
			"stubborn.ts",
			`\tpi.registerTool({ name: "stubborn", label: "Stubborn", description: "ignores abort", parameters: { type: "object", properties: {} },
		execute: () => new Promise(() => { ${keepAlive}process.stderr.write("stuck\\n"); writeFileSync("started", ""); }) });`,
		);
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "stubborn", id: "call-1" }] }, "done"]));
		return ["--approve", "--faux-script", script, "-e", file, "-p", "go"];
	}

	it("pi#5778: SIGTERM while it ran waited 2 s and named the tool; now the abort gives up on the tool after its 1 s grace and settle exits 143 with nothing left waiting", async () => {
		const child = spawn(process.execPath, [...cliCommand(), ...stubbornRun(true)], {
			cwd: cli.project,
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
		});
		child.stdin.end();
		let stderr = "";
		const stuck = new Promise<void>((resolve) =>
			child.stderr.on("data", (chunk) => {
				stderr += String(chunk);
				if (stderr.includes("stuck\n")) resolve();
			}),
		);
		const exited = trackChild(child);
		await stuck;
		child.kill("SIGTERM");
		expect(await exited).toBe(143);
		expect(stderr).not.toContain("still waiting");
	});

	it("pi-web#368: settle -i could not be stopped by Ctrl+C while a tool ignored its abort; now the chat is back at the prompt after the tool's grace", async () => {
		const chat = new Repl(
			stubbornRun(true).filter((arg) => arg !== "-p" && arg !== "go"),
			{
				cwd: cli.project,
				agentDir: cli.agentDir,
			},
		);
		await chat.idle(0);
		chat.send("go");
		await fileAppears(cli.project, "started");
		const from = chat.mark();
		chat.child.kill("SIGINT");
		await chat.idle(from);
		expect(chat.stdout.slice(from)).not.toContain("Still not stopped");
		expect(await chat.end()).toBe(0);
	});

	it("regression: a tool promise nothing can settle ended settle naming no one; now exit 1 naming the tool call", () => {
		const run = cli.settle(stubbornRun(false));
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			"settle: the run cannot go on: it waits for a promise that never settles, in\n  the stubborn tool (call call-1)\n",
		);
	});
});

describe("an extension command that throws", () => {
	it("regression: its error said only 'command:crash'; now it names the extension's file too (print and interactive)", () => {
		const file = extension(
			"crash.ts",
			`\tpi.registerCommand("crash", { handler: async () => { throw new Error("command crashed"); } });`,
		);
		const line = `Extension error (command:crash of ${file}, command): command crashed (thrown at crash.ts:3)`;
		const print = cli.settle(["--approve", "--faux", "-e", file, "-p", "/crash"]);
		expect(print.code).toBe(0);
		expect(print.stderr).toContain(`${line}\n`);
		const chat = cli.settle(["--approve", "--faux", "-e", file, "-i"], "/crash\n");
		expect(chat.stdout + chat.stderr).toContain(line);
	});
});
