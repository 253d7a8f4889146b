/**
 * Reports about a bash command's full output when it is cut, replayed against Settle through its
 * public API with a real shell. Output past the display limits is spilled to a file in the temp
 * folder; when that folder cannot be written (`TMPDIR` set to a path that is no folder, a full
 * `/tmp`), pi died of an uncaught `EACCES` / `ENOSPC` (pi#5667, pi#2512). What the user should see:
 * the command's result, cut as usual, and no promise of a file that does not exist. A failing command
 * whose output was cut still names its full-output file in the error text the model reads (pi#6609).
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, script, tempFolderForTest } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Points `TMPDIR` at a regular file for this test: nothing can be created "in" it. */
function unwritableTempFolder(): string {
	return tempFolderForTest("settle-pi5667-", { unusable: true });
}

describe("pi#5667 / pi#2512: the bash full-output file cannot be created", () => {
	it("pi#5667: with TMPDIR unusable, a command whose output is cut still answers: the tail is shown, no full-output file is promised, the session goes on", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		const tempFolder = unwritableTempFolder();
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "seq 1 3000" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("count to 3000");
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: false });
		const text = (result as { content: { type: string; text: string }[] }).content[0]!.text;
		expect(text.startsWith("1001\n1002\n")).toBe(true);
		expect(text).toMatch(/\n3000\n\n\[Showing lines 1001-3000 of 3000\. Full output not saved: .+\]$/);
		expect(text).not.toContain("Full output: ");
		expect((result as { details?: { fullOutputPath?: string } }).details?.fullOutputPath).toBeUndefined();
		// Nothing was left where the file was promised.
		expect(readdirSync(dirname(tempFolder))).toEqual(["tmp"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "done" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("pi#2852: output cut by line count (not by bytes) is not saved to the full-output file", () => {
	it("pi#2852: `seq 1 3000` (3,000 lines, 14 KB: over the line limit, under the byte limit) names a full-output file that holds every line", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "seq 1 3000" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("print 3000 lines");
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: false });
		const text = (result as { content: { type: string; text: string }[] }).content[0]!.text;
		const path = /\[Showing lines 1001-3000 of 3000\. Full output: (.+)\]$/.exec(text)?.[1];
		expect(path).toBeDefined();
		expect((result as { details?: { fullOutputPath?: string } }).details?.fullOutputPath).toBe(path);
		const full = readFileSync(path!, "utf8");
		rmSync(path!, { force: true });
		expect(full).toBe(`${Array.from({ length: 3000 }, (_, i) => i + 1).join("\n")}\n`);
		expect(Buffer.byteLength(full)).toBeLessThan(50 * 1024);
	});
});

describe("pi#6609: a failing command whose output was cut", () => {
	it("pi#6609: `seq 1 3000; exit 1` is an error result that still names the full-output file (which holds every line) before the exit code, as the model reads it", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "seq 1 3000; exit 1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("count to 3000, then fail");
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: true });
		const text = (result as { content: { type: string; text: string }[] }).content[0]!.text;
		const path =
			/\n3000\n\n\[Showing lines 1001-3000 of 3000\. Full output: (.+)\]\n\nCommand exited with code 1$/.exec(
				text,
			)?.[1];
		expect(path).toBeDefined();
		const full = readFileSync(path!, "utf8");
		rmSync(path!, { force: true });
		expect(full).toBe(`${Array.from({ length: 3000 }, (_, i) => i + 1).join("\n")}\n`);
	});
});
