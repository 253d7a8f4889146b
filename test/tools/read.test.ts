import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectImageMimeType, readImageDimensions } from "../../src/tools/image.js";
import { resolveToCwd } from "../../src/tools/paths.js";
import { createReadToolDefinition, MAX_INLINE_IMAGE_BYTES } from "../../src/tools/read.js";
import { failure, fixture, run, tempProject, text } from "./helpers.js";

const numbered = (n: number, make = (i: number) => `line ${i}`) =>
	Array.from({ length: n }, (_, i) => make(i + 1)).join("\n");

describe("read: text", () => {
	it("returns a small file whole, relative to the cwd", async () => {
		const cwd = await tempProject({ "src/a.ts": "export const a = 1;\n" });
		const result = await run(createReadToolDefinition(cwd), { path: "src/a.ts" });
		expect(text(result)).toBe("export const a = 1;\n");
		expect(result.details).toBeUndefined();
	});

	it("accepts absolute paths and a leading @", async () => {
		const cwd = await tempProject({ "notes.md": "hi" });
		const read = createReadToolDefinition("/");
		expect(text(await run(read, { path: join(cwd, "notes.md") }))).toBe("hi");
		expect(text(await run(read, { path: `@${join(cwd, "notes.md")}` }))).toBe("hi");
	});

	it("resolves ~ to the home folder and relative paths against the cwd", () => {
		expect(resolveToCwd("~", "/repo")).toBe(homedir());
		expect(resolveToCwd("~/notes.md", "/repo")).toBe(join(homedir(), "notes.md"));
		expect(resolveToCwd("src/a.ts", "/repo")).toBe("/repo/src/a.ts");
		expect(resolveToCwd("/etc/hosts", "/repo")).toBe("/etc/hosts");
		expect(resolveToCwd("a\u00A0b.txt", "/repo")).toBe("/repo/a b.txt");
	});

	it("truncates at 2000 lines with a continuation hint", async () => {
		const cwd = await tempProject({ "big.txt": numbered(2500) });
		const result = await run<{ truncation: { truncatedBy: string } }>(createReadToolDefinition(cwd), {
			path: "big.txt",
		});
		const output = text(result);
		expect(output.startsWith("line 1\nline 2\n")).toBe(true);
		expect(output).toContain("\nline 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]");
		expect(output).not.toContain("line 2001");
		expect(result.details?.truncation.truncatedBy).toBe("lines");
	});

	it("truncates at 50 KB with the byte-limit hint", async () => {
		const cwd = await tempProject({ "wide.txt": numbered(100, () => "x".repeat(1023)) });
		const output = text(await run(createReadToolDefinition(cwd), { path: "wide.txt" }));
		// 1024 bytes per line with its line break: 50 lines fit in 51200 bytes, 51 do not.
		expect(output.endsWith("\n\n[Showing lines 1-50 of 100 (50.0KB limit). Use offset=51 to continue.]")).toBe(true);
		expect(output.split("\n")).toHaveLength(52);
	});

	it("continues from an offset and honours a limit", async () => {
		const cwd = await tempProject({ "f.txt": numbered(10) });
		const read = createReadToolDefinition(cwd);
		expect(text(await run(read, { path: "f.txt", offset: 4, limit: 3 }))).toBe(
			"line 4\nline 5\nline 6\n\n[4 more lines in file. Use offset=7 to continue.]",
		);
		expect(text(await run(read, { path: "f.txt", offset: 9 }))).toBe("line 9\nline 10");
	});

	it("continuation hints count from the offset", async () => {
		const cwd = await tempProject({ "big.txt": numbered(5000) });
		const output = text(await run(createReadToolDefinition(cwd), { path: "big.txt", offset: 2001 }));
		expect(output.startsWith("line 2001\n")).toBe(true);
		expect(output).toContain("[Showing lines 2001-4000 of 5000. Use offset=4001 to continue.]");
	});

	it("points to bash when one line is larger than the byte limit", async () => {
		const cwd = await tempProject({ "min.js": `short\n${"y".repeat(60 * 1024)}\n` });
		const output = text(await run(createReadToolDefinition(cwd), { path: "min.js", offset: 2 }));
		expect(output).toBe("[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' min.js | head -c 51200]");
	});

	it("pi#7523: names the path in the bash hint as the shell must see it: quoted when it has a space or a quote, without a leading @", async () => {
		const cwd = await tempProject({ "my dir/it's.js": `${"y".repeat(60 * 1024)}\n` });
		const read = createReadToolDefinition(cwd);
		for (const path of ["my dir/it's.js", "@my dir/it's.js"]) {
			expect(text(await run(read, { path }))).toBe(
				"[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' 'my dir/it'\\''s.js' | head -c 51200]",
			);
		}
	});

	it("names an image no model takes (BMP, TIFF, AVIF) with the commands that make a JPEG copy, instead of calling it binary", async () => {
		// A 1×1 BMP (file header, BITMAPINFOHEADER, one padded pixel), a TIFF header, an AVIF ftyp box.
		const bmp = Buffer.alloc(58);
		bmp.write("BM", 0, "latin1");
		bmp.writeUInt32LE(58, 2);
		bmp.writeUInt32LE(54, 10);
		bmp.writeUInt32LE(40, 14);
		bmp.writeInt32LE(1, 18);
		bmp.writeInt32LE(1, 22);
		bmp.writeUInt16LE(1, 26);
		bmp.writeUInt16LE(24, 28);
		const tiff = Buffer.concat([Buffer.from("II*\0", "latin1"), Buffer.from([8, 0, 0, 0, 0, 0])]);
		const avif = Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from("ftypavif\0\0\0\0avifmif1miaf", "latin1")]);
		const cwd = await tempProject({ "a.bmp": bmp, "scan 1.tif": tiff, "b.avif": avif });
		const read = createReadToolDefinition(cwd);
		expect(await failure(run(read, { path: "a.bmp" }))).toBe(
			"a.bmp is a BMP image, a format models do not take (only jpg/png/gif/webp), so nothing of it was sent. Convert it to JPEG with bash and read the copy: sips -s format jpeg a.bmp --out a.jpg (macOS), magick a.bmp a.jpg.",
		);
		expect(await failure(run(read, { path: "scan 1.tif" }))).toContain(
			"scan 1.tif is a TIFF image, a format models do not take (only jpg/png/gif/webp), so nothing of it was sent. Convert it to JPEG with bash and read the copy: sips -s format jpeg 'scan 1.tif' --out 'scan 1.jpg' (macOS)",
		);
		expect(await failure(run(read, { path: "b.avif" }))).toContain("or heif-convert b.avif b.jpg.");
		expect(await failure(run(read, { path: "b.avif" }))).toMatch(/^b\.avif is an AVIF image/);
	});

	it("names an ICO (a favicon) only when its header lists an image: a header with none is just binary", async () => {
		const header = (count: number) => Buffer.concat([Buffer.from([0, 0, 1, 0, count, 0]), Buffer.alloc(16)]);
		const cwd = await tempProject({ "icon.png": header(1), "empty.png": header(0) });
		const read = createReadToolDefinition(cwd);
		expect(await failure(run(read, { path: "icon.png" }))).toMatch(
			/^icon\.png is an ICO image, a format models do not take/,
		);
		expect(await failure(run(read, { path: "empty.png" }))).toMatch(/^empty\.png looks like a binary file/);
	});

	it("rejects an offset past the end and a non-positive limit", async () => {
		const cwd = await tempProject({ "f.txt": "a\nb" });
		const read = createReadToolDefinition(cwd);
		expect(await failure(run(read, { path: "f.txt", offset: 5 }))).toBe(
			"Offset 5 is beyond end of file (2 lines total)",
		);
		expect(await failure(run(read, { path: "f.txt", limit: 0 }))).toMatch(/^Invalid limit 0/);
	});

	it("says clearly when the file is missing or is a folder", async () => {
		const cwd = await tempProject({ "dir/x.txt": "" });
		const read = createReadToolDefinition(cwd);
		expect(await failure(run(read, { path: "nope.txt" }))).toBe(`File not found: ${join(cwd, "nope.txt")}`);
		expect(await failure(run(read, { path: "dir" }))).toBe(
			`${join(cwd, "dir")} is a directory, not a file. Use ls to list it.`,
		);
	});

	it("rejects with Operation aborted when the signal is already aborted", async () => {
		const cwd = await tempProject({ "f.txt": "x" });
		const controller = new AbortController();
		controller.abort();
		expect(await failure(run(createReadToolDefinition(cwd), { path: "f.txt" }, { signal: controller.signal }))).toBe(
			"Operation aborted",
		);
	});
});

describe("read: images", () => {
	const cases = [
		["red-3x2.png", "image/png", { width: 3, height: 2 }],
		["white-1x1.jpg", "image/jpeg", { width: 1, height: 1 }],
		["green-2x7.gif", "image/gif", { width: 2, height: 7 }],
		["lossless-1x1.webp", "image/webp", { width: 1, height: 1 }],
	] as const;

	it.each(cases)("with resizing off, sends %s as an image block of type %s", async (name, mimeType, size) => {
		const path = fixture(`images/${name}`);
		const bytes = readFileSync(path);
		expect(detectImageMimeType(bytes)).toBe(mimeType);
		expect(readImageDimensions(bytes, mimeType)).toEqual(size);
		const result = await run(createReadToolDefinition("/", { autoResizeImages: false }), { path });
		expect(result.content).toEqual([
			{ type: "text", text: `Read image file [${mimeType}]` },
			{ type: "image", data: bytes.toString("base64"), mimeType },
		]);
	});

	it("detects images by content, not by file name", async () => {
		const result = await run(createReadToolDefinition("/"), { path: fixture("images/actually-png.txt") });
		expect(result.content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
	});

	it("with resizing off, sends a large-dimension image as is and says so", async () => {
		const read = createReadToolDefinition("/", { autoResizeImages: false });
		const result = await run(read, { path: fixture("images/wide-2500x4.png") });
		expect(text(result)).toBe(
			"Read image file [image/png]\n[Image: 2500x4, sent at full size (image resizing is off); the provider may scale it down.]",
		);
		expect(result.content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
	});

	it("with resizing off, omits an image over the inline size limit instead of sending it", async () => {
		const png = readFileSync(fixture("images/red-3x2.png"));
		const padding = Buffer.alloc(Math.ceil((MAX_INLINE_IMAGE_BYTES * 3) / 4), 1);
		const cwd = await tempProject({ "huge.png": Buffer.concat([png, padding]) });
		const result = await run(createReadToolDefinition(cwd, { autoResizeImages: false }), { path: "huge.png" });
		expect(result.content).toHaveLength(1);
		expect(text(result)).toMatch(
			/^Read image file \[image\/png\]\n\[Image omitted: 4\.5MB encoded is over the 4\.5MB inline image limit and image resizing is off\./,
		);
	});

	it("by default, re-encodes an image whose file is over the inline size limit (as pi)", async () => {
		const png = readFileSync(fixture("images/red-3x2.png"));
		const padding = Buffer.alloc(Math.ceil((MAX_INLINE_IMAGE_BYTES * 3) / 4), 1);
		const cwd = await tempProject({ "huge.png": Buffer.concat([png, padding]) });
		const result = await run(createReadToolDefinition(cwd), { path: "huge.png" });
		expect(text(result)).toBe(
			"Read image file [image/png]\n[Image: original 3x2, displayed at 3x2. Multiply coordinates by 1.00 to map to original image.]",
		);
		const image = result.content[1];
		expect(image?.type === "image" && image.data.length).toBeLessThan(1000);
	});

	it("uses a configured resizer and reports the scale", async () => {
		const read = createReadToolDefinition("/", {
			resizeImage: async () => ({
				data: "AAAA",
				mimeType: "image/jpeg",
				originalWidth: 2500,
				originalHeight: 4,
				width: 2000,
				height: 3,
				wasResized: true,
			}),
		});
		const result = await run(read, { path: fixture("images/wide-2500x4.png") });
		expect(result.content).toEqual([
			{
				type: "text",
				text: "Read image file [image/jpeg]\n[Image: original 2500x4, displayed at 2000x3. Multiply coordinates by 1.25 to map to original image.]",
			},
			{ type: "image", data: "AAAA", mimeType: "image/jpeg" },
		]);
	});

	it("notes when the session's model cannot see images", async () => {
		const read = createReadToolDefinition("/");
		const result = await read.execute("c", { path: fixture("images/red-3x2.png") }, undefined, undefined, {
			model: { input: ["text"] },
		});
		expect(text(result)).toBe(
			"Read image file [image/png]\n[Current model does not support images. The image will be omitted from this request.]",
		);
	});
});
