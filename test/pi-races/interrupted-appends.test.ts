/**
 * claude-code#49876 (and its duplicate claude-code#50347), replayed with real `settle` processes on a
 * local OpenAI-compatible endpoint: a crash during an append left a block of NUL bytes where a line
 * should be (ext4 / WSL delayed allocation: the file grew, its data never reached the disk). Resuming
 * loaded the history only up to that line, with no word; the user typed on, and the model answered
 * from a much earlier point. What the user should see: what could not be read named, in text a
 * terminal or a log shows, and every readable turn in the next request — after the next append,
 * nothing more lost.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { persistedUserTexts, sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-interrupted-appends-");
const server = useWireServer();
beforeEach(() => {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`);
});

const settle = (args: string[]) =>
	runSettleAsync(["--model", "local/coder", ...args], { cwd: cli.project, agentDir: cli.agentDir });

/** A session of two answered turns; its file. */
async function twoTurns(): Promise<string> {
	server.reply(chatReply([{ type: "text", text: "noted ALPHA" }]));
	expect((await settle(["-p", "the first task is ALPHA"])).code).toBe(0);
	server.reply(chatReply([{ type: "text", text: "noted BETA" }]));
	expect((await settle(["-c", "-p", "the second task is BETA"])).code).toBe(0);
	const files = sessionFilesUnder(cli.agentDir);
	expect(files).toHaveLength(1);
	return files[0]!;
}

/** Turns the bytes of the line holding `marker` into NUL bytes (its newline too when `withNewline`). */
function zeroLine(file: string, marker: string, withNewline: boolean): void {
	const bytes = readFileSync(file);
	const at = bytes.indexOf(marker);
	const start = bytes.lastIndexOf(10, at) + 1;
	const end = bytes.indexOf(10, at) + (withNewline ? 1 : 0);
	bytes.fill(0, start, end);
	writeFileSync(file, bytes);
}

/** What the model was sent in request `index`. */
const sent = (index: number) => JSON.stringify(server.requests[index]!.body?.messages);

describe("claude-code#49876: a crash turned an appended line into NUL bytes", () => {
	it("claude-code#49876: the last append zeroed (newline and all): settle -c names the cut line and where its bytes went, sends every readable turn, and the next run reads all that followed", async () => {
		const file = await twoTurns();
		zeroLine(file, "noted BETA", true);

		server.reply(chatReply([{ type: "text", text: "ALPHA and BETA" }]));
		const resumed = await settle(["-c", "-p", "which tasks?"]);
		expect(resumed.code).toBe(0);
		expect(resumed.stderr).toMatch(/Line 8 \(the last, \d+ bytes\) was cut off mid-write and not loaded\./);
		expect(resumed.stderr).toContain(".torn");
		expect(resumed.stderr).not.toContain("\u0000");
		for (const text of ["the first task is ALPHA", "noted ALPHA", "the second task is BETA", "which tasks?"]) {
			expect(sent(2)).toContain(text);
		}
		expect(sent(2)).not.toContain("noted BETA");

		server.reply(chatReply([{ type: "text", text: "done" }]));
		const next = await settle(["-c", "-p", "anything else?"]);
		expect(next.code).toBe(0);
		expect(next.stderr).toBe("");
		for (const text of ["the first task is ALPHA", "the second task is BETA", "which tasks?", "ALPHA and BETA"]) {
			expect(sent(3)).toContain(text);
		}
		expect(readFileSync(file).includes(0)).toBe(false);
		expect(persistedUserTexts(file)).toEqual([
			"the first task is ALPHA",
			"the second task is BETA",
			"which tasks?",
			"anything else?",
		]);
	}, 60_000);

	it("claude-code#49876: a zeroed line in the middle (its newline kept): settle -c names it and the entry that lost its parent in printable text (no NUL byte on stderr), sends the turns before it, and keeps the file's bytes", async () => {
		const file = await twoTurns();
		zeroLine(file, "the second task is BETA", false);
		const damaged = readFileSync(file);

		server.reply(chatReply([{ type: "text", text: "ok" }]));
		const resumed = await settle(["-c", "-p", "which tasks?"]);
		expect(resumed.code).toBe(0);
		expect(resumed.stderr).not.toContain("\u0000");
		expect(resumed.stderr).toContain("Line 7 skipped: not valid JSON (");
		expect(resumed.stderr).toContain("\\u0000\\u0000");
		// The answer whose question was on the zeroed line joins the turn before it (pi 0.73.1 started there).
		expect(resumed.stderr).toMatch(
			/Entry \w+, whose parent \w+ is not in the file, was attached to \w+, the last entry before line 7 \(in memory; the file is unchanged\)\./,
		);
		for (const text of ["the first task is ALPHA", "noted ALPHA", "noted BETA", "which tasks?"]) {
			expect(sent(2)).toContain(text);
		}
		expect(readFileSync(file).subarray(0, damaged.length).equals(damaged)).toBe(true);
	}, 60_000);
});
