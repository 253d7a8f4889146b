/**
 * hermes-agent#43059, picoclaw#1049: a model's `read` of a PDF came back as the file's raw bytes
 * decoded as text: the binary check sampled only the ASCII start of the file (a PDF's header,
 * metadata and uncompressed page text hold no NUL byte), so the compressed streams further on
 * reached the model as mojibake. What the user should see: the PDF is named as one, with how to
 * get its text, and nothing of it is sent.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/**
 * A valid one-page PDF as word processors write it: the binary-marker comment, an uncompressed XMP
 * metadata packet (with its usual whitespace padding) and page text first, then a compressed
 * embedded-font stream, so the first NUL byte lies past the first 8,000 bytes.
 */
function wordProcessorPdf(): Buffer {
	const xmp = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Quarterly report</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>\n${`${" ".repeat(99)}\n`.repeat(80)}<?xpacket end="w"?>`;
	const page = "BT /F1 12 Tf 72 720 Td (Revenue grew 12% in Q3.) Tj ET";
	// Font bytes: deflate of a binary table, NUL bytes and all.
	const font = deflateSync(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
	const objects: Buffer[] = [
		Buffer.from("<< /Type /Catalog /Pages 2 0 R /Metadata 3 0 R >>"),
		Buffer.from("<< /Type /Pages /Kids [4 0 R] /Count 1 >>"),
		Buffer.concat([
			Buffer.from(`<< /Type /Metadata /Subtype /XML /Length ${Buffer.byteLength(xmp)} >>\nstream\n`),
			Buffer.from(xmp),
			Buffer.from("\nendstream"),
		]),
		Buffer.from(
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
		),
		Buffer.from(`<< /Length ${page.length} >>\nstream\n${page}\nendstream`),
		Buffer.from("<< /Type /Font /Subtype /TrueType /BaseFont /Calibri /FontDescriptor 7 0 R >>"),
		Buffer.from("<< /Type /FontDescriptor /FontName /Calibri /Flags 32 /FontFile2 8 0 R >>"),
		Buffer.concat([
			Buffer.from(`<< /Length ${font.length} /Filter /FlateDecode >>\nstream\n`),
			font,
			Buffer.from("\nendstream"),
		]),
	];
	const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xb5\xb5\xb5\xb5\n", "latin1")];
	const offsets: number[] = [];
	let size = parts[0]!.length;
	objects.forEach((body, index) => {
		offsets.push(size);
		const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
		parts.push(object);
		size += object.length;
	});
	const xref = [
		"xref",
		`0 ${objects.length + 1}`,
		"0000000000 65535 f ",
		...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n `),
		`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`,
	].join("\n");
	return Buffer.concat([...parts, Buffer.from(xref)]);
}

describe("hermes-agent#43059, picoclaw#1049: read returns a PDF's bytes as text", () => {
	it("hermes-agent#43059: the PDF is refused as a PDF with how to get its text; nothing of it reaches the model or the session file; a text file read beside it works", async () => {
		const pdf = wordProcessorPdf();
		expect(pdf.subarray(0, 8000).includes(0)).toBe(false);
		expect(pdf.includes(0)).toBe(true);
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		writeFileSync(join(h.tempDir, "report.pdf"), pdf);
		writeFileSync(join(h.tempDir, "notes.md"), "see report.pdf\n");
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "report.pdf" }), fauxToolCall("read", { path: "notes.md" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("what does the report say?");
		const [report, notes] = toolResultTexts(h);
		expect(report?.isError).toBe(true);
		expect(report?.text).toContain("report.pdf is a PDF document");
		expect(report?.text).toContain("pdftotext");
		expect(report?.text).not.toContain("Quarterly report");
		expect(report?.text).not.toContain("\uFFFD");
		expect(notes).toEqual({ isError: false, text: "see report.pdf\n" });
		const file = readFileSync(h.session.sessionFile!, "utf8");
		expect(file).not.toContain("FontFile2");
		expect(file).not.toContain("\\u0000");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("hermes-agent#43059: a text file that merely starts with the letters %PDF (a note about the format) is read", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		writeFileSync(join(h.tempDir, "pdf-notes.md"), "%PDF is how every PDF starts\n");
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "pdf-notes.md" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("read it");
		expect(toolResultTexts(h)).toEqual([{ isError: false, text: "%PDF is how every PDF starts\n" }]);
	});

	it("hermes-agent#43059 (pi-peer): pi 0.73.1 returns the PDF as text: the font's compressed bytes, NUL bytes and all", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-hermes-43059-"));
		try {
			await writeFile(join(cwd, "report.pdf"), wordProcessorPdf());
			const tool = pi.createReadToolDefinition(cwd);
			const result = await tool.execute("c", { path: "report.pdf" }, undefined, undefined, undefined as never);
			const text = result.content[0]?.type === "text" ? result.content[0].text : "";
			expect(text).toContain("%PDF-1.7");
			expect(text).toContain("/FontFile2");
			expect(text).toContain("\u0000");
			expect(text).toContain("\uFFFD");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
