/**
 * `edit` and `write` on text files Windows tools save with a byte-order mark (PowerShell 5.1's `>`
 * and `Out-File`, Notepad's "Unicode": UTF-16 LE; UTF-16 BE; UTF-8 with a mark). A model's call in
 * a real disk session on a real file; the bytes on disk are checked exactly. What a Windows user
 * expects: the file stays in its encoding with its mark (PowerShell 5.1 reads a `.ps1` without a
 * mark as ANSI, so non-ASCII text changes meaning), its CRLF line endings stay, and a new file is
 * plain UTF-8 as in pi. pi 0.73.1 (`pi-peer`) reads every file as UTF-8 and writes UTF-8 without a
 * mark.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const LE_BOM = Buffer.from([0xff, 0xfe]);
const BE_BOM = Buffer.from([0xfe, 0xff]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function utf16le(text: string): Buffer {
	return Buffer.concat([LE_BOM, Buffer.from(text, "utf16le")]);
}

function utf16be(text: string): Buffer {
	return Buffer.concat([BE_BOM, Buffer.from(text, "utf16le").swap16()]);
}

/** The one tool result as the model received it: its text, error flag and details. */
function toolResult(messages: AgentMessage[]): { isError: boolean; text: string; details: unknown } {
	const result = messages.find((message) => message.role === "toolResult");
	if (result?.role !== "toolResult") throw new Error("no tool result");
	const block = result.content[0];
	return { isError: result.isError, text: block?.type === "text" ? block.text : "", details: result.details };
}

/** Runs one call of `tool` from the model in a real disk session whose cwd holds `file` (when given). */
async function modelCalls(
	tool: "edit" | "write",
	file: string,
	content: Buffer | undefined,
	args: Record<string, unknown>,
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: [tool] });
	if (content) writeFileSync(join(harness.tempDir, file), content);
	script(harness, [
		fauxAssistantMessage([fauxToolCall(tool, { path: file, ...args })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("change it");
	return harness;
}

const script1 = '$name = "Zoë \u{1F600}"\r\nWrite-Host "Grüße"\r\n';

describe("edit on a UTF-16 file with its byte-order mark", () => {
	it("a UTF-16LE CRLF .ps1 is edited as text and saved UTF-16LE with its mark, CRLF and the non-BMP character kept", async () => {
		h = await modelCalls("edit", "greet.ps1", utf16le(script1), {
			edits: [{ oldText: 'Write-Host "Grüße"', newText: 'Write-Host "Grüße, $name"\nexit 0' }],
		});
		const result = toolResult(h.session.messages);
		expect(result.isError).toBe(false);
		expect(result.text).toBe(
			"Successfully replaced 1 block(s) in greet.ps1. It stays UTF-16LE with its byte-order mark.",
		);
		const onDisk = readFileSync(join(h.tempDir, "greet.ps1"));
		expect(onDisk.equals(utf16le('$name = "Zoë \u{1F600}"\r\nWrite-Host "Grüße, $name"\r\nexit 0\r\n'))).toBe(true);
		// The diff the model and the user see is of the decoded text, not of bytes.
		const details = result.details as { diff: string; patch: string; firstChangedLine: number };
		expect(details.firstChangedLine).toBe(2);
		expect(details.diff).toContain('-2 Write-Host "Grüße"');
		expect(details.diff).toContain('+2 Write-Host "Grüße, $name"');
		expect(details.patch).toContain("+exit 0");
	});

	it("a UTF-16BE file is saved UTF-16BE with its mark", async () => {
		h = await modelCalls("edit", "be.txt", utf16be("a = \u{1F600}\r\nb = 2\r\n"), {
			edits: [{ oldText: "b = 2", newText: "b = ä" }],
		});
		expect(toolResult(h.session.messages).text).toBe(
			"Successfully replaced 1 block(s) in be.txt. It stays UTF-16BE with its byte-order mark.",
		);
		expect(readFileSync(join(h.tempDir, "be.txt")).equals(utf16be("a = \u{1F600}\r\nb = ä\r\n"))).toBe(true);
	});

	it("a torn UTF-16LE file (an odd number of bytes) is refused, naming UTF-16LE; every byte stays", async () => {
		const torn = Buffer.concat([utf16le("a = 1\r\n"), Buffer.from([0x62])]);
		h = await modelCalls("edit", "torn.txt", torn, { edits: [{ oldText: "a = 1", newText: "a = 2" }] });
		const result = toolResult(h.session.messages);
		expect(result.isError).toBe(true);
		expect(result.text).toMatch(
			/^torn\.txt starts with a UTF-16LE byte-order mark but is not valid UTF-16LE .*Nothing was changed/,
		);
		expect(readFileSync(join(h.tempDir, "torn.txt")).equals(torn)).toBe(true);
	});

	it("(pi-peer) pi 0.73.1 reads the UTF-16 file as UTF-8: the text the model read is not found", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-utf16-edit-"));
		try {
			await writeFile(join(cwd, "greet.ps1"), utf16le(script1));
			const tool = pi.createEditToolDefinition(cwd);
			const edits = [{ oldText: 'Write-Host "Grüße"', newText: 'Write-Host "Hallo"' }];
			const outcome = await tool
				.execute("c", { path: "greet.ps1", edits }, undefined, undefined, undefined as never)
				.then(
					() => "resolved",
					(error: Error) => error.message,
				);
			expect(outcome).toMatch(/^Could not find/);
			expect((await readFile(join(cwd, "greet.ps1"))).equals(utf16le(script1))).toBe(true);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("write over a file with a byte-order mark", () => {
	it("over a UTF-16LE file: the new content is saved UTF-16LE with its mark (a non-BMP character kept)", async () => {
		h = await modelCalls("write", "greet.ps1", utf16le(script1), { content: 'Write-Host "Tschüss \u{1F44B}"\r\n' });
		const result = toolResult(h.session.messages);
		expect(result.isError).toBe(false);
		const expected = utf16le('Write-Host "Tschüss \u{1F44B}"\r\n');
		expect(result.text).toBe(
			`Successfully wrote ${expected.length - 2} bytes to greet.ps1 (kept as UTF-16LE with its byte-order mark, as the file was)`,
		);
		expect(readFileSync(join(h.tempDir, "greet.ps1")).equals(expected)).toBe(true);
	});

	it("over a UTF-16BE file: saved UTF-16BE with its mark and CRLF; a mark the content brings is not doubled", async () => {
		h = await modelCalls("write", "be.txt", utf16be("old\r\n"), { content: "\uFEFFnew ä\n" });
		expect(readFileSync(join(h.tempDir, "be.txt")).equals(utf16be("new ä\r\n"))).toBe(true);
		expect(toolResult(h.session.messages).text).toBe(
			"Successfully wrote 16 bytes to be.txt (kept as UTF-16BE with its byte-order mark and CRLF line endings, as the file was)",
		);
	});

	it("over a UTF-8 file with a mark: the mark stays", async () => {
		h = await modelCalls("write", "notes.ps1", Buffer.concat([UTF8_BOM, Buffer.from("old\r\n")]), {
			content: 'Write-Host "Grüße"\r\n',
		});
		expect(toolResult(h.session.messages).text).toBe(
			"Successfully wrote 22 bytes to notes.ps1 (kept as UTF-8 with its byte-order mark, as the file was)",
		);
		const expected = Buffer.concat([UTF8_BOM, Buffer.from('Write-Host "Grüße"\r\n')]);
		expect(readFileSync(join(h.tempDir, "notes.ps1")).equals(expected)).toBe(true);
	});

	it("a new file, and one without a mark, are plain UTF-8 as in pi", async () => {
		h = await modelCalls("write", "new.ps1", undefined, { content: 'Write-Host "Grüße"\n' });
		expect(toolResult(h.session.messages).text).toBe("Successfully wrote 21 bytes to new.ps1");
		expect(readFileSync(join(h.tempDir, "new.ps1")).equals(Buffer.from('Write-Host "Grüße"\n'))).toBe(true);
		h.cleanup();
		h = await modelCalls("write", "plain.txt", Buffer.from("old\n"), { content: "ä\n" });
		expect(readFileSync(join(h.tempDir, "plain.txt")).equals(Buffer.from("ä\n"))).toBe(true);
	});

	it("(pi-peer) pi 0.73.1 writes UTF-8 without a mark over a UTF-16LE file", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-utf16-write-"));
		try {
			await writeFile(join(cwd, "greet.ps1"), utf16le(script1));
			const tool = pi.createWriteToolDefinition(cwd);
			await tool.execute("c", { path: "greet.ps1", content: "Grüße\r\n" }, undefined, undefined, undefined as never);
			expect((await readFile(join(cwd, "greet.ps1"))).equals(Buffer.from("Grüße\r\n"))).toBe(true);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
