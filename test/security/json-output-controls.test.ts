/**
 * Risk: `settle -p --json` and `settle --rpc` write a model's text into JSON lines. `JSON.stringify`
 * escapes the C0 controls (ESC becomes `\u001b`) but leaves the C1 controls U+0080–U+009F raw, and
 * terminals that honour 8-bit controls take U+009B as CSI and U+009D as OSC: a `--json` stream piped
 * to such a terminal (`settle -p --json … | cat`, a CI log viewer) runs sequences a model chose. U+2028
 * / U+2029 split lines for JavaScript-era line readers. Settle writes all of them as `\uXXXX`
 * escapes: the same JSON (every line parses to the same value), no raw control on the wire. Real
 * `settle` processes with a scripted model answer.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attachJsonLineReader, jsonLine } from "../../src/rpc/jsonl.js";
import { cliCommand, runSettleAsync, trackChild, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-sec-json-controls-");

/** Every C1 control, U+2028 / U+2029, and a few neighbours that stay as they are. */
const C1 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)).join("");
const ANSWER = `red:\u009b31m RED\u009b0m title:\u009d0;owned\u009c next\u0085line sep\u2028par\u2029 all:${C1} é ÿ \u00a0 ✓`;
const RAW = /[\u0080-\u009f\u2028\u2029]/g;
/** The raw C1 / separator characters in `text`, as code points (a short failure message). */
const rawIn = (text: string) => [...text.matchAll(RAW)].map(([c]) => c.charCodeAt(0).toString(16));

function script(): string {
	const file = join(cli.dir, "script.json");
	writeFileSync(file, JSON.stringify([ANSWER]));
	return file;
}

/** `settle <args>` with stdin closed; stdout decoded as a stream (a character split across chunks stays whole). */
const settle = (args: string[]) => runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir });

/** The text of the last assistant message in the parsed lines. */
function answerText(lines: Record<string, unknown>[]): string | undefined {
	const ends = lines.filter(
		(line) => line.type === "message_end" && (line.message as { role?: string } | undefined)?.role === "assistant",
	);
	const content = (ends.at(-1)?.message as { content?: { type: string; text?: string }[] } | undefined)?.content;
	return content?.find((part) => part.type === "text")?.text;
}

describe("C1 controls and U+2028 / U+2029 in --json and RPC output", () => {
	it("settle -p --json writes them as \\u escapes; each line parses to the model's exact text", async () => {
		const run = await settle(["--faux-script", script(), "--no-session", "-p", "--json", "go"]);
		expect(run.code).toBe(0);
		expect(rawIn(run.stdout)).toEqual([]);
		expect(run.stdout).toContain("\\u009b31m RED\\u009b0m");
		expect(run.stdout).toContain("sep\\u2028par\\u2029");
		expect(run.stdout).toContain("é ÿ \u00a0 ✓"); // printable characters stay as they are
		const lines = run.stdout
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(answerText(lines)).toBe(ANSWER);
	});

	it("settle --rpc writes them as \\u escapes too, in events and in responses", async () => {
		const child = spawn(process.execPath, [...cliCommand(), "--rpc", "--faux-script", script(), "--no-session"], {
			cwd: cli.project,
			env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
		});
		const chunks: Buffer[] = [];
		const lines: Record<string, unknown>[] = [];
		let settled: () => void = () => {};
		const settledSeen = new Promise<void>((resolve) => {
			settled = resolve;
		});
		child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
		attachJsonLineReader(child.stdout, (text) => {
			const line = JSON.parse(text) as Record<string, unknown>;
			lines.push(line);
			if (line.type === "agent_settled") settled();
		});
		const exited = trackChild(child);
		child.stdin.write(`${JSON.stringify({ id: "1", type: "prompt", message: "go" })}\n`);
		await settledSeen;
		child.stdin.end(`${JSON.stringify({ id: "2", type: "get_last_assistant_text" })}\n`);
		expect(await exited).toBe(0);
		const stdout = Buffer.concat(chunks).toString("utf8");
		expect(rawIn(stdout)).toEqual([]);
		expect(stdout).toContain("\\u009b31m RED\\u009b0m");
		expect(answerText(lines)).toBe(ANSWER);
		const last = lines.find((line) => line.type === "response" && line.id === "2");
		expect(last).toMatchObject({ success: true, data: { text: ANSWER } });
	});

	it("jsonLine: one line, the same value back, nothing but the escapes added", () => {
		const value = { text: ANSWER, nested: [C1, "\u2028"], plain: 'a\\\u009bb"c' };
		const line = jsonLine(value);
		expect(line.endsWith("\n")).toBe(true);
		expect(line.slice(0, -1)).not.toMatch(/[\n\u0080-\u009f\u2028\u2029]/);
		expect(JSON.parse(line)).toEqual(value);
		// Each raw character became a 6-character escape; nothing else changed.
		const raw = JSON.stringify(value).match(/[\u0080-\u009f\u2028\u2029]/g)?.length ?? 0;
		expect(raw).toBe(2 * 0x20 + 9);
		expect(line.length - 1 - JSON.stringify(value).length).toBe(5 * raw);
	});
});
