/**
 * Reports from hosts that drive an agent over stdio JSON lines (editors, desktop apps, MCP
 * clients), about the ends of the pipes, replayed against real `settle` child processes.
 *
 * - stackql#668: a Windows host ended each JSON-RPC line with `\r\n`; the stdio server exited 0 at
 *   the first one with nothing said, so the client saw the server die cleanly for no reason.
 * - likec4#3092, email-mcp#60: a stdio server outlived its client: a client that died without a
 *   signal (a crash, SIGKILL, a window reload) closed the pipes, and the server, kept alive by a
 *   timer, lived on under init with its memory (hundreds of them after a week).
 * - pi#4303: `pi -p --mode json` with stdin `/dev/null` printed its answer and never exited.
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, RpcClient, useCliProject } from "../cli/helpers.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-host-ends-");

/** Command lines of the processes running now that contain `marker`. */
function processesWith(marker: string): string[] {
	const found: string[] = [];
	for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
		let cmdline = "";
		try {
			cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
		} catch {
			continue; // gone meanwhile
		}
		if (cmdline.includes(marker)) found.push(cmdline);
	}
	return found;
}

describe("stackql#668: commands ended with \\r\\n by a Windows host", () => {
	it("stackql#668: settle --rpc: get_state, a prompt and set_session_name written with CRLF line ends, and a last command with no line end before stdin closes: each answered under its id, no parse error, no \\r in the text or the name; exit 0", async () => {
		const client = new RpcClient(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = client.next((line) => line.type === "agent_settled");
		client.child.stdin.write(
			[
				{ id: "state", type: "get_state" },
				{ id: "p", type: "prompt", message: "hi from windows" },
				{ id: "name", type: "set_session_name", name: "win" },
			]
				.map((command) => `${JSON.stringify(command)}\r\n`)
				.join(""),
		);
		await settled;
		// The host's last write: a command with no line end, then the pipe closes.
		const last = client.next((line) => line.type === "response" && line.id === "last");
		client.child.stdin.end(JSON.stringify({ id: "last", type: "get_state" }));
		const state = (await last) as { success: boolean; data: { sessionFile: string; sessionName: string } };
		expect(await client.exited).toBe(0);
		const responses = client.lines.filter((line) => line.type === "response");
		expect(responses.map((line) => [line.id, line.success])).toEqual([
			["state", true],
			["p", true],
			["name", true],
			["last", true],
		]);
		expect(state.data.sessionName).toBe("win");
		const users = fileEntries(state.data.sessionFile)
			.map((entry) => entry.message)
			.filter((message) => message?.role === "user");
		expect(users).toMatchObject([{ content: [{ type: "text", text: "hi from windows" }] }]);
		expect(client.stderr).not.toMatch(/parse/i);
	});
});

describe("likec4#3092, email-mcp#60: a stdio server outlives a client that died without a signal", () => {
	it("likec4#3092: settle --rpc: the host's pipes close while the model's bash tool runs; the tool then prints a line: settle ends 141 without waiting out its `sleep`, which is gone; the file holds the call with its output so far and `Command aborted`", async () => {
		const marker = `sleep 3${process.pid % 1000}.25`;
		const gate = join(cli.dir, "gate");
		const script = join(cli.dir, "script.json");
		const command = `echo waiting; while [ ! -e ${gate} ]; do sleep 0.05; done; echo more; ${marker}; echo done`;
		writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }, "finished"]));
		const client = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });
		// The shell printed: it runs.
		const started = client.next((line) => line.type === "tool_execution_update");
		client.send({ id: "p", type: "prompt", message: "wait a while" });
		await started;
		// What a crashed host's kernel does: both ends of the pipes close, no signal is sent.
		client.child.stdout.destroy();
		client.child.stdin.end();
		// The tool goes on and prints: the first line settle writes after that finds nobody reading.
		writeFileSync(gate, "");
		expect(await client.exited).toBe(141);
		expect(processesWith(marker)).toEqual([]);
		const [file] = sessionFilesUnder(cli.agentDir);
		const results = fileEntries(file!)
			.map((entry) => entry.message)
			.filter((message) => message?.role === "toolResult");
		expect(results).toHaveLength(1);
		const text = (results[0]!.content as { text: string }[]).map((part) => part.text).join("");
		expect(text.startsWith("waiting\n")).toBe(true);
		expect(text.endsWith("Command aborted")).toBe(true);
		expect(text).not.toContain("done");
		expect(client.stderr).toBe("");
	});

	it("email-mcp#60: settle --rpc, idle, with an extension holding a timer and a dialog the host never answered: the end of stdin ends the dialog (false) and the process, exit 0", async () => {
		const log = join(cli.dir, "dialog.log");
		const extension = join(cli.dir, "watcher.mjs");
		writeFileSync(
			extension,
			`import { appendFileSync } from "node:fs";
export default function (pi) {
	setInterval(() => {}, 1000);
	pi.on("session_start", (_event, ctx) => {
		void ctx.ui.confirm("Watch the folder?", "keeps a timer").then((answer) => appendFileSync(${JSON.stringify(log)}, String(answer)));
	});
}
`,
		);
		const client = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await client.next((line) => line.type === "extension_ui_request" && line.method === "confirm");
		expect(await client.end()).toBe(0);
		expect(readFileSync(log, "utf8")).toBe("false");
	});
});

describe("pi#4303: -p --mode json with stdin /dev/null never exits", () => {
	it("pi#4303: settle -p --mode json with stdin /dev/null prints its events, agent_settled last, and exits 0", () => {
		const input = openSync("/dev/null", "r");
		try {
			const run = spawnSync(process.execPath, [...cliCommand(), "--faux", "-p", "--mode", "json", "hi"], {
				cwd: cli.project,
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
				stdio: [input, "pipe", "pipe"],
				encoding: "utf8",
				timeout: 60_000,
				killSignal: "SIGKILL",
			});
			expect(run.status).toBe(0);
			const lines = run.stdout.trimEnd().split("\n");
			expect(JSON.parse(lines.at(-1)!)).toEqual({ type: "agent_settled" });
		} finally {
			closeSync(input);
		}
	});
});
