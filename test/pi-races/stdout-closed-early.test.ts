/**
 * letta-code#804, replayed: `letta -p "…" | head` crashed with an EPIPE stack trace once `head` had
 * its line and closed the pipe. Against Settle: a real `settle -p` whose answer is far longer than a
 * pipe holds, piped by bash into a real `head -1`: the line reaches the user, settle exits 0 with
 * nothing on stderr, and the session file holds the whole answer: the closed pipe cost only output.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, useCliProject } from "../cli/helpers.js";
import { fileMessages } from "./disk-harness.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-stdout-closed-early-");

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

describe("letta-code#804: -p piped into head crashed with an EPIPE stack trace", () => {
	it("letta-code#804: settle -p | head -1 with an answer of 2000 lines: head prints the first, settle exits 0 with nothing on stderr, and the file holds the whole answer", () => {
		// The faux model answers with the prompt's text: 2000 lines, about 200 KB (a pipe holds 64 KB).
		const lines = Array.from({ length: 2000 }, (_, index) => `line ${index + 1} ${"x".repeat(90)}`);
		writeFileSync(join(cli.project, "notes.txt"), `${lines.join("\n")}\n`);
		const settle = [process.execPath, ...cliCommand(), "--faux", "-p", "@notes.txt"].map(quote).join(" ");
		const run = spawnSync(
			"bash",
			["-c", `${settle} </dev/null 2>settle.err | head -1; echo "\${PIPESTATUS[0]}" >settle.status`],
			{ cwd: cli.project, env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir }, encoding: "utf8", timeout: 60_000 },
		);
		expect(run.status).toBe(0);
		expect(run.stdout).toMatch(/^<file name="[^"]*notes\.txt">\n$/);
		expect(readFileSync(join(cli.project, "settle.err"), "utf8")).toBe("");
		expect(readFileSync(join(cli.project, "settle.status"), "utf8")).toBe("0\n");
		const [file] = sessionFilesUnder(cli.agentDir);
		const answer = fileMessages(file!).find((message) => message.role === "assistant");
		expect(answer).toMatchObject({ stopReason: "stop" });
		expect(JSON.stringify(answer)).toContain("line 2000 ");
	});
});
