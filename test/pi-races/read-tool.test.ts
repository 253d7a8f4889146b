/**
 * pi's reports about the built-in `read` tool, replayed with a model's `read` call in a real session
 * on real files, and (`pi-peer`) the same call to pi 0.73.1's tool. pi#5289: a `.ods` spreadsheet
 * (a ZIP) read as text sent the model a string of NUL bytes and invalid UTF-8; the conversation was
 * dead for an hour. What the user should see: a binary file is named as such, with what to use instead.
 * pi#783: models send `offset: "500"` for 500; validation refused the read ("offset: must be number",
 * "limit: must be number"). Settle coerces a clean number string; a word is still refused.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Each `read` result the model received, in call order. */
function readResults(harness: Harness): { isError: boolean; text: string }[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						isError: message.isError,
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
					},
				]
			: [],
	);
}

/** Runs one `read` call per path from the model in a real disk session whose cwd holds `files`. */
async function modelReads(files: Record<string, string | Buffer>, paths: string[]): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
	for (const [name, content] of Object.entries(files)) writeFileSync(join(harness.tempDir, name), content);
	script(harness, [
		fauxAssistantMessage(
			paths.map((path) => fauxToolCall("read", { path })),
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("read them");
	return harness;
}

/** The start of a `.ods` file: a ZIP local header, then its stored `mimetype` entry. */
const ods = Buffer.concat([
	Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x08, 0x00, 0x00, 0x9a, 0x51, 0x2f, 0x5c]),
	Buffer.alloc(16),
	Buffer.from("mimetypeapplication/vnd.oasis.opendocument.spreadsheet"),
]);

describe("pi#5289: read decodes non-image binary files as UTF-8", () => {
	it("pi#5289: a .ods (a ZIP) is refused as binary with what to use instead; no NUL byte reaches the model or the session file", async () => {
		h = await modelReads({ "budget.ods": ods }, ["budget.ods"]);
		const [result] = readResults(h);
		expect(result?.isError).toBe(true);
		expect(result?.text).toContain("budget.ods looks like a binary file");
		expect(result?.text).toContain("Use bash");
		expect(result?.text).not.toContain("\u0000");
		expect(readFileSync(h.session.sessionFile!, "utf8")).not.toContain("\\u0000");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("pi#5289: text files are read as before: UTF-8 with accents, a Latin-1 file (no NUL), and an image", async () => {
		const png = readFileSync(join(import.meta.dirname, "../fixtures/tools/images/red-3x2.png"));
		h = await modelReads(
			{ "notes.md": "# Über\nnaïve café\n", "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9]), "red.png": png },
			["notes.md", "latin1.txt", "red.png"],
		);
		const [notes, latin1, image] = readResults(h);
		expect(notes).toEqual({ isError: false, text: "# Über\nnaïve café\n" });
		// Read as before, now with word that the file is not UTF-8 (openclaw#92664, read-legacy-encodings).
		expect(latin1).toEqual({
			isError: false,
			text: "caf\uFFFD\n\n[latin1.txt is not UTF-8 text (each sequence of its bytes that is not shows as \uFFFD), and edit refuses it. To read it, convert it with bash: iconv -f <its encoding> -t UTF-8 latin1.txt (for example GBK, SHIFT_JIS, CP1252).]",
		});
		expect(image?.isError).toBe(false);
		expect(image?.text).toContain("Read image file [image/png]");
	});

	it("pi#5289 (pi-peer): pi 0.73.1 returns the .ods bytes as text, NUL bytes and all", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-5289-"));
		try {
			await writeFile(join(cwd, "budget.ods"), ods);
			const tool = pi.createReadToolDefinition(cwd);
			const result = await tool.execute("c", { path: "budget.ods" }, undefined, undefined, undefined as never);
			const first = result.content[0];
			expect(first?.type === "text" && first.text).toContain("\u0000");
			expect(first?.type === "text" && first.text).toContain("mimetypeapplication/vnd.oasis.opendocument.spreadsheet");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("pi#783: read's offset and limit sent as strings", () => {
	it('pi#783: offset "3" and limit "2" read lines 3–4 of the file; a limit that is no number ("all") is refused saying what is expected', async () => {
		const lines = Array.from({ length: 6 }, (_, index) => `line ${index + 1}`).join("\n");
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		writeFileSync(join(h.tempDir, "log.txt"), `${lines}\n`);
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "log.txt", offset: "3", limit: "2" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage([fauxToolCall("read", { path: "log.txt", limit: "all" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("read the middle of log.txt");
		expect(readResults(h)).toEqual([
			{ isError: false, text: "line 3\nline 4\n\n[2 more lines in file. Use offset=5 to continue.]" },
			{
				isError: true,
				text: 'Validation failed for tool "read":\n  - limit: must be number\n\nReceived arguments:\n{\n  "path": "log.txt",\n  "limit": "all"\n}',
			},
		]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});
});

describe("DesktopCommanderMCP#610, openclaw#133129: a UTF-16 text file from Windows PowerShell", () => {
	/** What Windows PowerShell 5.1's `>` writes: the byte-order mark FF FE, then UTF-16LE. */
	const powershell = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
	/** UTF-16BE with its mark FE FF. */
	const bigEndian = (text: string) => {
		const bytes = Buffer.from(text, "utf16le");
		for (let index = 0; index < bytes.length; index += 2)
			[bytes[index], bytes[index + 1]] = [bytes[index + 1]!, bytes[index]!];
		return Buffer.concat([Buffer.from([0xfe, 0xff]), bytes]);
	};
	const note = (name: string) =>
		`[Decoded from ${name} (the file starts with its byte-order mark). edit and write keep that encoding and its mark when they change this file.]`;

	it("DesktopCommanderMCP#610, openclaw#133129: `> out.txt` in PowerShell 5.1 (UTF-16LE) and a UTF-16BE file read as their text, no NUL and no mark, with a note that edit and write keep their encoding; the session file holds no NUL", async () => {
		h = await modelReads(
			{ "out.txt": powershell("alpha\r\nbeta\r\ngämma 😀\r\n"), "be.txt": bigEndian("Grüße\nzwei\n") },
			["out.txt", "be.txt"],
		);
		expect(readResults(h)).toEqual([
			{ isError: false, text: `alpha\r\nbeta\r\ngämma 😀\r\n\n\n${note("UTF-16LE")}` },
			{ isError: false, text: `Grüße\nzwei\n\n\n${note("UTF-16BE")}` },
		]);
		expect(readFileSync(h.session.sessionFile!, "utf8")).not.toContain("\\u0000");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("DesktopCommanderMCP#610: offset and limit count the decoded lines of a UTF-16 file larger than one read chunk; an emoji split across two chunks stays whole", async () => {
		const lines = Array.from({ length: 30_000 }, (_, index) => `${index % 3 === 0 ? "😀" : "ä"} line ${index + 1}`);
		lines[0] = `${"x".repeat(16)}${lines[0]}`;
		const bytes = powershell(`${lines.join("\n")}\n`);
		// The premise: the first 256 KiB chunk (read-window.ts) ends inside a surrogate pair.
		const chunkEnd = 256 * 1024;
		expect(bytes.readUInt16LE(chunkEnd)).toBeGreaterThanOrEqual(0xdc00);
		expect(bytes.readUInt16LE(chunkEnd)).toBeLessThanOrEqual(0xdfff);
		const splitLine = bytes.subarray(2, chunkEnd).toString("utf16le").split("\n").length;
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		writeFileSync(join(h.tempDir, "big.txt"), bytes);
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "big.txt", offset: splitLine - 1, limit: 3 })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage([fauxToolCall("read", { path: "big.txt", offset: 29_998, limit: 2 })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("read around the split and the end");
		const around = lines.slice(splitLine - 2, splitLine + 1);
		expect(around.join("\n")).toContain("😀");
		expect(readResults(h)).toEqual([
			{
				isError: false,
				text: `${around.join("\n")}\n\n[${30_000 - splitLine - 1} more lines in file. Use offset=${splitLine + 2} to continue.]\n\n${note("UTF-16LE")}`,
			},
			{
				isError: false,
				text: `${lines[29_997]}\n${lines[29_998]}\n\n[1 more line in file. Use offset=30000 to continue.]\n\n${note("UTF-16LE")}`,
			},
		]);
	});

	it("DesktopCommanderMCP#610 (pi-peer): pi 0.73.1 returns the PowerShell file as UTF-8, a NUL byte after every letter", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-dc-610-"));
		try {
			await writeFile(join(cwd, "out.txt"), powershell("alpha\r\n"));
			const tool = pi.createReadToolDefinition(cwd);
			const result = await tool.execute("c", { path: "out.txt" }, undefined, undefined, undefined as never);
			const first = result.content[0];
			expect(first?.type === "text" && first.text).toBe(
				"\uFFFD\uFFFDa\u0000l\u0000p\u0000h\u0000a\u0000\r\u0000\n\u0000",
			);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});

	it("DesktopCommanderMCP#610: a file that starts with the mark but holds NUL characters is still refused as binary", async () => {
		h = await modelReads({ "blob.bin": Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x41, 0x00]) }, ["blob.bin"]);
		const [result] = readResults(h);
		expect(result?.isError).toBe(true);
		expect(result?.text).toContain("blob.bin looks like a binary file");
	});
});
