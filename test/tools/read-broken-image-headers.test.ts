/**
 * Regressions found by pi-differential.property.test.ts: files whose first bytes look like an image
 * the model cannot take were sent as image blocks, which providers reject. Like pi, they are now read
 * as text: a PNG signature without its IHDR chunk (cut short, or not a PNG), and JPEG-LS.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectImageMimeType } from "../../src/tools/image.js";
import { createReadToolDefinition } from "../../src/tools/read.js";
import { fixture, run, tempProject } from "./helpers.js";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe("read: a PNG signature without an IHDR chunk is not an image", () => {
	it("reads such a file as text, with the note that its bytes are not UTF-8", async () => {
		const bytes = Buffer.from([...PNG_SIGNATURE, 0x1f, 0x74, 0x8d, 0xb4, 0x53, 0x47]);
		const cwd = await tempProject({ "cut.png": bytes });
		const result = await run(createReadToolDefinition(cwd), { path: "cut.png" });
		expect(result.content).toHaveLength(1);
		const [block] = result.content as [{ type: string; text: string }];
		expect(block.type).toBe("text");
		expect(block.text.startsWith(bytes.toString("utf-8"))).toBe(true);
		expect(block.text).toContain("[cut.png is not UTF-8 text");
	});

	it("needs the 13-byte IHDR chunk right after the signature", () => {
		const png = readFileSync(fixture("images/red-3x2.png"));
		expect(detectImageMimeType(png)).toBe("image/png");
		expect(detectImageMimeType(png.subarray(0, 16))).toBe("image/png");
		expect(detectImageMimeType(png.subarray(0, 15))).toBeUndefined();
		expect(detectImageMimeType(Buffer.from(PNG_SIGNATURE))).toBeUndefined();
		const wrongLength = Buffer.from(png);
		wrongLength[11] = 14;
		expect(detectImageMimeType(wrongLength)).toBeUndefined();
	});
});

describe("read: JPEG-LS (SOI then SOF55) is not sent as image/jpeg", () => {
	it("does not send such a file as an image (it holds a NUL byte: refused as binary, pi#5289), while ordinary JPEG markers stay images", async () => {
		const jpegLs = Buffer.from([0xff, 0xd8, 0xff, 0xf7, 0x00, 0x0b]);
		expect(detectImageMimeType(jpegLs)).toBeUndefined();
		expect(detectImageMimeType(readFileSync(fixture("images/white-1x1.jpg")))).toBe("image/jpeg");
		expect(detectImageMimeType(Buffer.from([0xff, 0xd8, 0xff, 0xe1]))).toBe("image/jpeg");
		const cwd = await tempProject({ "scan.jls": jpegLs });
		await expect(run(createReadToolDefinition(cwd), { path: "scan.jls" })).rejects.toMatchObject({
			code: "INVALID_ARGUMENT",
			message: expect.stringContaining("scan.jls looks like a binary file"),
		});
	});
});
