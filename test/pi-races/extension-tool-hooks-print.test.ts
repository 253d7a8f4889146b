/**
 * Reports about what an extension's tool hooks change in a headless run, replayed with real
 * `settle -p --mode json` child processes, a real extension file and the scripted faux model.
 *
 * claude-code#32348: a PreToolUse hook that rewrote a Bash command (RTK's rewriter) worked in the
 * interactive app but was silently dropped under `claude -p`: the original command ran. Settle's
 * `tool_call` handler that rewrites `event.input.command` in place (as pi's handlers do) should
 * change the command that runs in `-p` too.
 *
 * opencode#13574: a `tool.execute.after` plugin that annotated a tool's output changed what the
 * model got, but the UI kept showing the original output, read from another field. What the host
 * shows should be what the model gets: a `tool_result` handler's replacement content in the
 * printed `tool_execution_end` event and in the saved tool result alike.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { fileEntries, sessionFilesUnder, toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-tool-hooks-print-");

/** RTK-style rewriter: prefixes every bash command in place, returns nothing. */
const REWRITER = `export default function (pi) {
	pi.on("tool_call", (event) => {
		if (event.toolName === "bash") event.input.command = "echo rewritten by rtk; " + event.input.command;
	});
}
`;

/** A sandbox notice appended to every bash result that says "Operation not permitted". */
const ANNOTATOR = `export default function (pi) {
	pi.on("tool_result", (event) => {
		if (event.toolName !== "bash") return;
		const text = event.content.map((part) => (part.type === "text" ? part.text : "")).join("");
		if (!text.includes("Operation not permitted")) return;
		return { content: [...event.content, { type: "text", text: "[sandbox] the command was blocked." }] };
	});
}
`;

/** `settle --mode json -p go` with `extension`, the faux model calling bash with `command`, then answering "done". */
function runWithBash(extension: string, command: string) {
	const file = join(cli.dir, "extension.mjs");
	writeFileSync(file, extension);
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }, "done"]));
	return runSettle(["--faux-script", script, "-e", file, "--mode", "json", "-p", "go"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		timeoutMs: 60_000,
	});
}

/** The texts of the tool results saved in the run's session file. */
function savedToolResults(): string[][] {
	const [file] = sessionFilesUnder(cli.agentDir);
	return fileEntries(file as string).flatMap((entry) =>
		entry.message?.role === "toolResult"
			? [entry.message.content.map((part) => (part.type === "text" ? part.text : part.type))]
			: [],
	);
}

describe("claude-code#32348, opencode#13574: tool hooks in a headless run", () => {
	it("claude-code#32348: a tool_call handler rewriting the bash command in place under settle -p: the rewritten command runs", () => {
		const run = runWithBash(REWRITER, "echo original");
		expect(run.code).toBe(0);
		expect(toolEnds(run.stdout).map((end) => end.result.content.map((part) => part.text))).toEqual([
			["rewritten by rtk\noriginal\n"],
		]);
		expect(savedToolResults()).toEqual([["rewritten by rtk\noriginal\n"]]);
	});

	it("opencode#13574: a tool_result handler annotating a blocked command: the printed tool_execution_end and the saved result both carry the note", () => {
		const run = runWithBash(ANNOTATOR, "echo 'mkdir: Operation not permitted'");
		expect(run.code).toBe(0);
		const shown = toolEnds(run.stdout).map((end) => end.result.content.map((part) => part.text));
		expect(shown).toEqual([["mkdir: Operation not permitted\n", "[sandbox] the command was blocked."]]);
		expect(savedToolResults()).toEqual(shown);
	});
});
