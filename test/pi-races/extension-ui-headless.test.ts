/**
 * Reports about extension UI calls where nobody can answer them, replayed against real `settle -p`
 * / `settle --rpc` child processes on the faux model with real extension files.
 *
 * pi_agent_rust#224, antigravity-cli#548, prime-agent#1806: a headless one-shot run (`-p`) with a
 * permission gate. The tool call that would prompt either stalled for good (antigravity: the process
 * never exited) or was denied with exit code 0 and no word on stderr (pi_agent_rust), and the gate
 * could not tell it had no one to ask (prime-agent: `hasUI` true under `-p`). What the user should
 * see: `hasUI` false, the gate's question answered with the no-UI default at once, the tool blocked
 * with the gate's reason, and stderr saying which question went unasked.
 *
 * pi#9951, percho#36, prime-agent#680: under `--mode rpc` (`hasUI` true) `ctx.ui.custom()` resolves
 * `undefined` without building its component: an extension waiting for the component looked hung,
 * and the host's log had no trace of why.
 *
 * pilish#80: an RPC host (Emacs) sent its own request id (`req_N`) with the answer instead of the
 * `extension_ui_request`'s: pi matched no dialog and dropped the answer without a word, so the
 * extension waited for good and the user saw nothing follow.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RPC_CUSTOM_WARNING } from "../../src/cli/rpc-ui.js";
import { type CliRun, runSettle, useCliProject } from "../cli/helpers.js";
import { makeDiffDirs, runPiCli, writeScript } from "../cli/pi-diff-process.js";
import { rpcOnExtension, toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-extension-ui-headless-");

/** A guard against a hang only: a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

/** Writes the extension `source` as `name` in `cli.dir` and runs `settle --faux --no-session -e <it> -p <prompt>`. */
function printOnExtension(name: string, source: string, prompt: string): CliRun {
	const extension = join(cli.dir, name);
	writeFileSync(extension, source);
	return runSettle(["--faux", "--no-session", "-e", extension, "-p", prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		timeoutMs: HANG_GUARD_MS,
	});
}

/** The permission gate of pi's extension docs, plus what it sees on session_start. */
const GATE_EXTENSION = `export default function (pi) {
	pi.on("session_start", (_event, ctx) => {
		ctx.ui.notify(JSON.stringify({ mode: ctx.mode, hasUI: ctx.hasUI }), "info");
	});
	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName === "bash" && event.input.command?.includes("rm -rf")) {
			const ok = await ctx.ui.confirm("Dangerous!", "Allow rm -rf?");
			if (!ok) return { block: true, reason: "Blocked by user" };
		}
	});
}
`;

describe("pi_agent_rust#224, antigravity-cli#548, prime-agent#1806: a permission gate in a headless -p run", () => {
	it("pi_agent_rust#224, antigravity-cli#548, prime-agent#1806: settle -p: hasUI false, the gate's confirm is not asked (false at once), the rm is blocked, the run answers and exits 0, stderr names the unasked question", () => {
		const gate = join(cli.dir, "gate.mjs");
		writeFileSync(gate, GATE_EXTENSION);
		mkdirSync(join(cli.project, "build"));
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] }, "build was kept."]),
		);
		const args = ["--faux-script", script, "--tools", "bash", "-e", gate, "--no-session"];
		const options = { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS };

		const text = runSettle([...args, "-p", "clean up"], options);
		expect(text).toEqual({
			code: 0,
			stdout: "build was kept.\n",
			stderr:
				'[info] gate.mjs: {"mode":"print","hasUI":false}\n' +
				'[dialog] gate.mjs: confirm "Dangerous!" not asked (no UI): false; run settle -i or --rpc to answer it, or make the extension check ctx.hasUI\n',
		});
		expect(existsSync(join(cli.project, "build"))).toBe(true);

		// --mode json: the same run, the question an event in the stream, the block in the tool's result.
		const json = runSettle([...args, "--mode", "json", "-p", "clean up"], options);
		expect([json.code, json.stderr]).toEqual([0, ""]);
		const lines = json.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(lines.filter((line) => line.type === "extension_dialog")).toEqual([
			{ type: "extension_dialog", kind: "confirm", title: "Dangerous!", answer: false, extensionPath: gate },
		]);
		const ends = toolEnds(json.stdout);
		expect(ends.map((end) => [end.toolName, end.isError, end.result.content[0]?.text])).toEqual([
			["bash", true, "Blocked by user"],
		]);
		expect(existsSync(join(cli.project, "build"))).toBe(true);
	});

	it("pi_agent_rust#224 (pi-peer): pi 0.73.1 -p blocks the same rm and exits 0 with not a word on stderr about the question", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "gate-peer"));
		const gate = join(cli.dir, "gate-peer", "gate.mjs");
		writeFileSync(gate, GATE_EXTENSION);
		mkdirSync(join(dirs.project, "build"));
		const script = writeScript(dirs, [
			{ toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] },
			"build was kept.",
		]);
		const run = await runPiCli(dirs, ["--no-session", "-e", gate, "-p", "clean up"], { script });
		expect([run.code, run.stdout]).toEqual([0, "build was kept.\n"]);
		expect(run.stderr).not.toContain("Dangerous");
		expect(existsSync(join(dirs.project, "build"))).toBe(true);
	});
});

/** `/btw` opens a custom overlay (as pi-btw does) and reports what came back; a -p run does the same. */
const CUSTOM_EXTENSION = `export default function (pi) {
	pi.registerCommand("btw", {
		description: "side question in an overlay",
		handler: async (_args, ctx) => {
			let built = false;
			const result = await ctx.ui.custom((_tui, _theme, _keys, done) => {
				built = true;
				done("closed");
				return { render: () => ["side answer"], invalidate() {} };
			});
			ctx.ui.notify(JSON.stringify({ mode: ctx.mode, hasUI: ctx.hasUI, result: result ?? null, built }), "info");
		},
	});
}
`;

type Line = Record<string, unknown>;

describe("pi#9951, percho#36, prime-agent#680: ctx.ui.custom() without a terminal", () => {
	it("pi#9951, percho#36, prime-agent#680: settle --rpc: custom() resolves undefined at once without building its component, ctx.mode says rpc, and stderr says why; the next command is served", async () => {
		const client = rpcOnExtension(cli, "btw.mjs", CUSTOM_EXTENSION);
		const report = client.next((line: Line) => line.type === "extension_ui_request" && line.method === "notify");
		expect(await client.request({ id: "p", type: "prompt", message: "/btw what is this?" })).toMatchObject({
			success: true,
		});
		expect(JSON.parse(String((await report).message))).toEqual({
			mode: "rpc",
			hasUI: true,
			result: null,
			built: false,
		});
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe(`${RPC_CUSTOM_WARNING}\n`);
		expect(client.lines.filter((line) => line.type === "extension_error")).toEqual([]);
	});

	it("pi#9951: settle -p: the same /btw gets undefined at once and stderr names the custom dialog as not asked", () => {
		const run = printOnExtension("btw.mjs", CUSTOM_EXTENSION, "/btw what is this?");
		expect(run).toEqual({
			code: 0,
			stdout: "",
			stderr:
				"[dialog] btw.mjs: custom not asked (no UI): undefined; run settle -i or --rpc to answer it, or make the extension check ctx.hasUI\n" +
				'[info] btw.mjs: {"mode":"print","hasUI":false,"result":null,"built":false}\n',
		});
	});
});

/** `/ask` asks a confirm and reports the answer. */
const ASK_EXTENSION = `export default function (pi) {
	pi.registerCommand("ask", {
		description: "asks once",
		handler: async (_args, ctx) => {
			const ok = await ctx.ui.confirm("Deploy?", "to staging");
			ctx.ui.notify("answered " + ok, "info");
		},
	});
}
`;

describe("pilish#80: an answer under an id no dialog was sent with", () => {
	it("pilish#80: settle --rpc: an extension_ui_response with the host's own id gets a failed response naming it and the open dialog's id; the dialog stays open and the answer sent with its id reaches it", async () => {
		const client = rpcOnExtension(cli, "ask.mjs", ASK_EXTENSION);
		const asked = client.next((line: Line) => line.type === "extension_ui_request" && line.method === "confirm");
		// The prompt's response comes once the command is done, after the dialog.
		const prompted = client.request({ id: "p", type: "prompt", message: "/ask" });
		const dialog = await asked;
		client.send({ type: "extension_ui_response", id: "req_1", confirmed: true });
		// Answered in order: the refusal comes before the state.
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		const refusals = client.lines.filter(
			(line) => line.type === "response" && line.command === "extension_ui_response",
		);
		expect(refusals).toEqual([
			{
				id: "req_1",
				type: "response",
				command: "extension_ui_response",
				success: false,
				error: `no dialog has the id "req_1": answer with the "id" of its extension_ui_request, as sent (open dialogs: "${dialog.id}")`,
			},
		]);
		const answered = client.next((line: Line) => line.type === "extension_ui_request" && line.method === "notify");
		client.send({ type: "extension_ui_response", id: dialog.id, confirmed: true });
		expect((await answered).message).toBe("answered true");
		expect(await prompted).toMatchObject({ success: true });
		// A second answer to the dialog now closed is dropped quietly, as a late one is.
		client.send({ type: "extension_ui_response", id: dialog.id, confirmed: false });
		expect(await client.request({ id: "s2", type: "get_state" })).toMatchObject({ success: true });
		expect(client.lines.filter((line) => line.command === "extension_ui_response")).toHaveLength(1);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});

/** A notifier whose message carries what a tool's output can: an OSC 52 clipboard write, colour, a carriage return, lines. */
const ESCAPING_NOTIFIER = `export default function (pi) {
	pi.on("session_start", (_event, ctx) => {
		ctx.ui.notify("copied \\x1b]52;c;cm0gLXJmIH4=\\x07 \\x1b[31mthree\\x1b[0m files\\nsecond line\\x07", "warning");
		ctx.ui.notify("build 10%\\rbuild 100%", "info");
	});
}
`;

describe("jayshah5696/pi-agent-extensions#30: escape sequences in an extension's notification text", () => {
	it("jayshah5696/pi-agent-extensions#30: settle -p prints each notification on stderr with its label and extension name intact: the OSC 52 and a bell made visible, colour codes dropped, a carriage return redrawing the message only, every line kept; the answer on stdout as it was", () => {
		const run = printOnExtension("notifier.mjs", ESCAPING_NOTIFIER, "hello");
		expect(run).toEqual({
			code: 0,
			stdout: "hello\n",
			stderr:
				"[warning] notifier.mjs: copied ␛]52;c;cm0gLXJmIH4=␇ three files\nsecond line␇\n[info] notifier.mjs: build 100%\n",
		});
	});
});
