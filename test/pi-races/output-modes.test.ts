/**
 * pi's reports about what its one-shot modes print, replayed against real `settle` child processes
 * on the faux model, and where cheap against pi 0.73.1's own CLI on the same faux script
 * (test/cli/pi-diff-process.ts): a run whose last answer holds no text after the model's report
 * came with a tool call printed nothing and exited 0 (pi PR#8094, cited as pi#8094 here), and one
 * that answered only in its thinking (DeepSeek-Reasonix#10301) printed nothing with no word of it; an
 * extension that appends a context message from `agent_end` (pi-mesh) left `-p` printing nothing
 * (pi#9379) — in Settle it made the model be called forever. What the user should see: the run's
 * last words on stdout, never an empty success without a word; one run per prompt, then the exit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { makeDiffDirs, runPiCli, runSettleCli, writeScript } from "../cli/pi-diff-process.js";

const cli = useCliProject("settle-pi-races-output-modes-");

describe("pi#8094: print mode misses the final output on a tool-call tail", () => {
	const REPORT = "Build report: 3 packages built, all tests pass.";
	/** The model writes its report with a last tool call, then ends the run with an empty answer. */
	const tailScript = [
		{ text: REPORT, toolCalls: [{ name: "bash", arguments: { command: "true" }, id: "call-1" }] },
		{ text: "" },
	];

	it("pi#8094: settle -p: the run's last answer is empty after a tool call; stdout holds the report the model wrote with that call, exit 0", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "tail"));
		const script = writeScript(dirs, tailScript);
		const run = await runSettleCli(dirs, ["--no-session", "-p", "build it"], { script });
		expect(run).toEqual({ code: 0, stdout: `${REPORT}\n`, stderr: "" });
	});

	it("pi#8094, DeepSeek-Reasonix#10301: settle -p: a run none of whose answers holds text, only thinking, says so on stderr (the thinking's length, where to read it) instead of exiting 0 without a word", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "empty"));
		const script = writeScript(dirs, [
			{ toolCalls: [{ name: "bash", arguments: { command: "true" }, id: "call-1" }] },
			{ thinking: "nothing to add", text: "" },
		]);
		const run = await runSettleCli(dirs, ["--no-session", "-p", "build it"], { script });
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe(
			"Warning: the model answered only in its thinking (14 characters), with no text; nothing to print. settle --json shows the thinking (its thinking_delta events).\n",
		);
	});

	it("pi#8094: an empty reply with no tool call: settle -p exits 0 as pi 0.73.1 does (an empty answer is no failure), stdout empty, the warning on stderr; pi prints one empty line", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "empty-reply"));
		const script = writeScript(dirs, [{ text: "" }]);
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "say nothing"], { script });
		expect(settle).toEqual({
			code: 0,
			stdout: "",
			stderr: "Warning: the model's answer holds no text; nothing to print.\n",
		});
		const pi = await runPiCli(dirs, ["--no-session", "-p", "say nothing"], { script });
		expect({ code: pi.code, stdout: pi.stdout }).toEqual({ code: 0, stdout: "\n" });
	});

	it("pi#8094 (pi-peer): pi 0.73.1 prints one empty line (the empty answer's text) and exits 0 on the same script: the report is lost", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "peer"));
		const script = writeScript(dirs, tailScript);
		const run = await runPiCli(dirs, ["--no-session", "-p", "build it"], { script });
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("\n");
	});
});

/** pi-mesh's habit (pi#9379): at the end of each run, a context message for the next one, sent without triggerTurn. */
const MESH_EXTENSION = `export default function (pi) {
	pi.on("agent_end", () => {
		pi.sendMessage({ customType: "mesh-context", content: "2 peers online", display: false });
	});
}
`;

/** A guard against a hang only (each run takes a few seconds): a hung run is killed, its code null. */
const HANG_GUARD_MS = 20_000;

describe("pi#9379: -p prints nothing when an extension appends a custom message after the reply", () => {
	it("pi#9379: settle -p with an extension that sends a context message from agent_end: the answer on stdout, exit 0, one model call; the message is saved after the answer", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "mesh"));
		const extension = join(dirs.project, "..", "mesh.mjs");
		writeFileSync(extension, MESH_EXTENSION);
		const script = writeScript(dirs, ["the answer is 2"]);
		const sessionFile = join(dirs.project, "run.jsonl");
		const run = await runSettleCli(dirs, ["--session", sessionFile, "-e", extension, "-p", "1+1?"], {
			script,
			timeoutMs: HANG_GUARD_MS,
		});
		// It was steered into a new run, whose agent_end sent it again: model calls forever, never an exit.
		expect(run).toMatchObject({ code: 0, stdout: "the answer is 2\n" });
		expect(run.stderr).toBe(`Warning: ${sessionFile} does not exist: starting a new session there.\n`);
		const saved = readFileSync(sessionFile, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; customType?: string; message?: { role: string } })
			.filter(
				(entry) => entry.type === "custom_message" || (entry.type === "message" && entry.message?.role !== "system"),
			)
			.map((entry) => entry.customType ?? entry.message!.role);
		expect(saved).toEqual(["user", "assistant", "mesh-context"]);
	});

	it("pi#9379: settle --mode json: one run; the context message follows its agent_end, before agent_settled", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "mesh-json"));
		const extension = join(dirs.project, "..", "mesh.mjs");
		writeFileSync(extension, MESH_EXTENSION);
		const script = writeScript(dirs, ["the answer is 2"]);
		const run = await runSettleCli(dirs, ["--no-session", "-e", extension, "--mode", "json", "-p", "1+1?"], {
			script,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(0);
		const events = run.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string } });
		const outline = events
			.filter((event) => ["agent_start", "agent_end", "message_end", "agent_settled"].includes(event.type))
			.map((event) => (event.type === "message_end" ? `message_end:${event.message!.role}` : event.type));
		expect(outline).toEqual([
			"agent_start",
			"message_end:system",
			"message_end:user",
			"message_end:assistant",
			"agent_end",
			"message_end:custom",
			"agent_settled",
		]);
	});

	it("pi#9379 (pi-peer): pi 0.73.1 prints the answer and exits 0 (the report is against a later pi, which appends the message and prints nothing)", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "mesh-peer"));
		const extension = join(dirs.project, "..", "mesh.mjs");
		writeFileSync(extension, MESH_EXTENSION);
		const script = writeScript(dirs, ["the answer is 2"]);
		const run = await runPiCli(dirs, ["--no-session", "-e", extension, "-p", "1+1?"], {
			script,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run).toEqual({ code: 0, stdout: "the answer is 2\n", stderr: "" });
	});
});

describe("pi#7863: piped stdin and CLI prompts are concatenated without a separator", () => {
	it("pi#7863: printf 'alpha\\n' | settle -p @notes.txt Summarize: stdin, the file and the prompt reach the model as three parts (the faux model echoes them); pi 0.73.1 (peer) glues stdin to the file", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "stdin"));
		writeFileSync(join(dirs.project, "notes.txt"), "beta\n");
		const args = ["--no-session", "-p", "@notes.txt", "Summarize"];
		const [settle, pi] = await Promise.all([
			runSettleCli(dirs, args, { input: "alpha\n", timeoutMs: HANG_GUARD_MS }),
			runPiCli(dirs, args, { input: "alpha\n", timeoutMs: HANG_GUARD_MS }),
		]);
		const file = `<file name="${join(dirs.project, "notes.txt")}">\nbeta\n\n</file>\n`;
		expect(settle).toEqual({ code: 0, stdout: `alpha\n\n${file}Summarize\n`, stderr: "" });
		expect(pi).toEqual({ code: 0, stdout: `alpha${file}Summarize\n`, stderr: "" });
	});
});

describe("pi#351: /copy after an abort says there is nothing to copy", () => {
	it("pi#351: settle --rpc on a session whose last answer was aborted before any text, resumed in a new process: get_last_assistant_text is the answer before it", async () => {
		const dirs = makeDiffDirs(join(cli.dir, "copy"));
		const script = writeScript(dirs, ["the first answer", { stopReason: "aborted" }]);
		const sessionFile = join(dirs.project, "copy.jsonl");
		const rpc = ["--faux-script", script, "--session", sessionFile, "--rpc"];
		const first = new RpcClient(rpc, { cwd: dirs.project, agentDir: cli.agentDir });
		for (const [id, message] of [
			["1", "one"],
			["2", "two"],
		] as const) {
			const settled = first.next((line) => line.type === "agent_settled");
			expect(await first.request({ id, type: "prompt", message })).toMatchObject({ success: true });
			await settled;
		}
		expect(await first.request({ id: "3", type: "get_last_assistant_text" })).toMatchObject({
			success: true,
			data: { text: "the first answer" },
		});
		expect(await first.end()).toBe(0);
		// Resumed, as the report's `--resume`: the aborted empty answer is the file's last message.
		const lines = readFileSync(sessionFile, "utf8").trim().split("\n");
		expect(JSON.parse(lines.at(-1)!)).toMatchObject({
			message: { role: "assistant", stopReason: "aborted", content: [] },
		});
		const resumed = new RpcClient(rpc, { cwd: dirs.project, agentDir: cli.agentDir });
		expect(await resumed.request({ id: "1", type: "get_last_assistant_text" })).toMatchObject({
			success: true,
			data: { text: "the first answer" },
		});
		expect(await resumed.end()).toBe(0);
	});
});
