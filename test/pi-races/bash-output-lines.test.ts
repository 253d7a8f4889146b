/**
 * The line break that ends a command's output, taken for the start of one more (empty) line:
 *
 * - pi#4818: `seq 1 4000` was said to be 4,001 lines ("Showing lines 2002-4001 of 4001"), and the
 *   2,000 lines shown were 1,999 and an empty one. At exactly 2,000 lines the output was cut for
 *   nothing: line 1 dropped, a full-output file written.
 * - openclaw#133213, opencode#42277: one line over the 50 KB limit, ended by a line break (`cat` of
 *   a minified file, `console.log`, an `rg` match): the empty "line" after the break was the only one
 *   that fit, so the model got "(no output)" and a note; the text was only in the full-output file.
 *
 * What the model should get: the line count the command printed, its last 2,000 lines, and the end
 * of an overlong last line. Replayed through the SDK with real shells and real `node` children.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { BashExecutionMessage } from "../../src/session/messages.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { modelBashCall, tempFolderForTest } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Points `TMPDIR` at a fresh folder for this test, so the full-output files it gets can be listed. */
function freshTempFolder(): string {
	return tempFolderForTest("settle-pi4818-");
}

const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i).join("\n");

describe("pi#4818: the final line break counted as one more line", () => {
	it("pi#4818: `seq 1 4000` shows lines 2001-4000 of 4000: 2,000 printed lines, then the note naming the file with all of them", async () => {
		freshTempFolder();
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const result = await modelBashCall(h, { command: "seq 1 4000" });
		expect(result.isError).toBe(false);
		const path = /\n\n\[Showing lines 2001-4000 of 4000\. Full output: (\S+)\]$/.exec(result.text)?.[1];
		expect(path).toBeDefined();
		expect(result.text).toBe(`${numbers(2001, 4000)}\n\n[Showing lines 2001-4000 of 4000. Full output: ${path}]`);
		expect(result.details).toMatchObject({
			truncation: { truncated: true, truncatedBy: "lines", totalLines: 4000, outputLines: 2000 },
		});
		expect(readFileSync(path!, "utf8")).toBe(`${numbers(1, 4000)}\n`);
	});

	it("pi#4818: `seq 1 2000` (exactly the line limit) is shown whole, line 1 included: no note, no full-output file", async () => {
		const temp = freshTempFolder();
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const result = await modelBashCall(h, { command: "seq 1 2000" });
		expect(result).toEqual({ isError: false, text: `${numbers(1, 2000)}\n`, details: undefined });
		expect(readdirSync(temp).filter((name) => name.startsWith("settle-bash-"))).toEqual([]);
	});

	it("pi#4818: a user `!seq 1 2000` reaches the model whole too, not as cut output", async () => {
		freshTempFolder();
		h = await createHarness();
		const run = await h.session.executeBash("seq 1 2000");
		expect(run).toMatchObject({ output: `${numbers(1, 2000)}\n`, truncated: false, exitCode: 0 });
		expect(run.fullOutputPath).toBeUndefined();
	});
});

/** A `node` child printing one line of `size` characters ending in `END-MARKER` and a line break. */
const longLine = (size: number) => `node -e 'process.stdout.write("x".repeat(${size}) + "END-MARKER\\n")'`;

describe("openclaw#133213 / opencode#42277: a line over the byte limit, ended by a line break, showed as no output", () => {
	it("openclaw#133213: a 244 KB line (250,010 bytes) ending in END-MARKER and a break: the model gets the line's last 50 KB, END-MARKER at its end, and its true size", async () => {
		freshTempFolder();
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const result = await modelBashCall(h, { command: longLine(250_000) });
		expect(result.isError).toBe(false);
		expect(result.text).not.toContain("(no output)");
		const [shown, note] = result.text.split("\n\n[");
		expect(shown).toBe(`${"x".repeat(51_200 - 10)}END-MARKER`);
		const path = /^Showing last 50\.0KB of line 1 \(line is 244\.2KB\)\. Full output: (\S+)\]$/.exec(note!)?.[1];
		expect(path).toBeDefined();
		expect(readFileSync(path!, "utf8")).toBe(`${"x".repeat(250_000)}END-MARKER\n`);
	});

	it("opencode#42277: an 80 KB line after a short one: its end is shown (the short line is not), named as line 2 of 2", async () => {
		freshTempFolder();
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const result = await modelBashCall(h, { command: `echo first; ${longLine(80_000)}` });
		const [shown, note] = result.text.split("\n\n[");
		expect(shown).toBe(`${"x".repeat(51_200 - 10)}END-MARKER`);
		expect(note).toMatch(/^Showing last 50\.0KB of line 2 \(line is 78\.1KB\)\. Full output: \S+\]$/);
	});

	it("openclaw#133213: the break printed apart from its line (a later write, as `printf …; echo` does): the note still gives the line's own size", async () => {
		freshTempFolder();
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const command = `node -e 'process.stdout.write("x".repeat(80000) + "END-MARKER")'; sleep 0.2; echo`;
		const result = await modelBashCall(h, { command });
		const [shown, note] = result.text.split("\n\n[");
		expect(shown).toBe(`${"x".repeat(51_200 - 10)}END-MARKER`);
		expect(note).toMatch(/^Showing last 50\.0KB of line 1 \(line is 78\.1KB\)\. Full output: \S+\]$/);
	});

	it("openclaw#133213: the same line from a user `!` command: what is recorded for the model ends with END-MARKER, not nothing", async () => {
		freshTempFolder();
		h = await createHarness();
		const run = await h.session.executeBash(longLine(250_000));
		expect(run.truncated).toBe(true);
		expect(run.output).toBe(`${"x".repeat(51_200 - 10)}END-MARKER`);
		const recorded = h.session.messages.find((message) => message.role === "bashExecution") as BashExecutionMessage;
		expect(recorded.output).toBe(run.output);
	});
});
