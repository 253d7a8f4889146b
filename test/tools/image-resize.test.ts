/**
 * The default image resizer (src/tools/image-resize.ts) on real images encoded by photon: pi's
 * limits, format and quality steps, shrink loop, EXIF orientation, undecodable input; and that
 * photon-node is loaded on the first resize only, with images sent as they are when it is missing.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
	formatDimensionNote,
	MAX_IMAGE_DIMENSION,
	MAX_INLINE_IMAGE_BYTES,
	prepareImageForPrompt,
	type ResizedImage,
	resizeImage,
	resizeImageDetailed,
} from "../../src/index.js";
import { exifOrientation } from "../../src/tools/image-resize-photon.js";
import { fixture, tempProject } from "./helpers.js";
import { decodedSize, encodeImage, pixelAt, withExifOrientation } from "./image-resize-helpers.js";

type PiResize = (image: { type: "image"; data: string; mimeType: string }) => Promise<ResizedImage | null>;
let piResizeImage: PiResize;
beforeAll(async () => {
	const url = new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/utils/image-resize.js", import.meta.url);
	piResizeImage = ((await import(url.href)) as { resizeImage: PiResize }).resizeImage;
});

const base64 = (bytes: Buffer) => bytes.toString("base64");
const png = (width: number, height: number, seed = 1, noise = 40) => ({
	data: base64(encodeImage("png", width, height, seed, noise)),
	mimeType: "image/png",
});

describe("resizeImage: limits", () => {
	it("returns an image within every limit unchanged, with no note", async () => {
		const image = png(300, 200);
		const result = await resizeImage(image);
		expect(result).toEqual({
			...image,
			originalWidth: 300,
			originalHeight: 200,
			width: 300,
			height: 200,
			wasResized: false,
		});
		expect(formatDimensionNote(result!)).toBeUndefined();
	});

	it("fits a wide image to 2000 pixels, keeping the aspect ratio, as PNG when it fits", async () => {
		const result = await resizeImage(png(2500, 300));
		expect(result).toMatchObject({
			mimeType: "image/png",
			originalWidth: 2500,
			width: 2000,
			height: 240,
			wasResized: true,
		});
		expect(decodedSize(Buffer.from(result!.data, "base64"))).toEqual({ width: 2000, height: 240 });
		expect(formatDimensionNote(result!)).toBe(
			"[Image: original 2500x300, displayed at 2000x240. Multiply coordinates by 1.25 to map to original image.]",
		);
	});

	it("fits a tall image to 2000 pixels high (width rounded)", async () => {
		const result = await resizeImage(png(300, 2600));
		expect(result).toMatchObject({ width: 231, height: 2000, originalHeight: 2600, wasResized: true });
		expect(MAX_IMAGE_DIMENSION).toBe(2000);
	});

	it("applies the width limit, then the height limit", async () => {
		const result = await resizeImage(png(400, 300), { maxWidth: 200, maxHeight: 100 });
		// 400x300 → 200x150 (width) → 133x100 (height).
		expect(result).toMatchObject({ width: 133, height: 100, wasResized: true });
	});

	it("re-encodes an image under the pixel limits whose base64 is not under maxBytes", async () => {
		const image = png(60, 40);
		const atLimit = await resizeImage(image, { maxBytes: image.data.length });
		expect(atLimit).toMatchObject({ width: 60, height: 40, wasResized: true });
		const over = await resizeImage(image, { maxBytes: image.data.length + 1 });
		expect(over).toMatchObject({ data: image.data, wasResized: false });
		expect(MAX_INLINE_IMAGE_BYTES).toBe(4.5 * 1024 * 1024);
	});

	it("switches to JPEG when the PNG is too big, then shrinks by a quarter per step", async () => {
		const noisy = png(200, 200, 7, 255);
		const pngSize = Buffer.byteLength(noisy.data);
		const jpeg = await resizeImage(noisy, { maxBytes: pngSize - 1 });
		expect(jpeg).toMatchObject({ mimeType: "image/jpeg", width: 200, height: 200, wasResized: true });
		expect(jpeg!.data.length).toBeLessThan(pngSize - 1);
		const shrunk = await resizeImage(noisy, { maxBytes: 2000 });
		expect(shrunk?.mimeType).toBe("image/jpeg");
		// 200 → 150 → 112 → 84 → 63 → 47 → 35 → 26 → 19 → 14 → 10 → 7 → 5 → 3 → 2 → 1: one of these.
		const steps = [200];
		while (steps.at(-1)! > 1) steps.push(Math.max(1, Math.floor(steps.at(-1)! * 0.75)));
		expect(steps).toContain(shrunk!.width);
		expect(shrunk!.width).toBeLessThan(200);
		expect(shrunk!.height).toBe(shrunk!.width);
		expect(shrunk!.data.length).toBeLessThan(2000);
	});

	it("returns null (pi) when not even 1x1 fits, and says so in the detailed outcome", async () => {
		expect(await resizeImage(png(50, 50), { maxBytes: 10 })).toBeNull();
		expect(await resizeImageDetailed(png(50, 50), { maxBytes: 10 })).toEqual({ kind: "too-large" });
	});

	it("returns null (pi) when a side would round to 0 pixels", async () => {
		const image = png(4001, 1);
		expect(await resizeImage(image)).toBeNull();
		expect(await piResizeImage({ type: "image", ...image })).toBeNull();
		expect((await resizeImageDetailed(image)).kind).toBe("failed");
	});
});

describe("resizeImage: EXIF orientation", () => {
	const jpeg = encodeImage("jpeg", 40, 20, 1, 0);

	it("reads the orientation tag in either byte order", () => {
		for (let orientation = 1; orientation <= 8; orientation++) {
			expect(exifOrientation(withExifOrientation(jpeg, orientation, false))).toBe(orientation);
			expect(exifOrientation(withExifOrientation(jpeg, orientation, true))).toBe(orientation);
		}
		expect(exifOrientation(jpeg)).toBe(1);
		expect(exifOrientation(withExifOrientation(jpeg, 9))).toBe(1);
	});

	it("measures the image upright: a rotated image within limits is sent as is with swapped sizes", async () => {
		const rotated = withExifOrientation(jpeg, 6);
		const result = await resizeImage({ data: base64(rotated), mimeType: "image/jpeg" });
		expect(result).toMatchObject({ data: base64(rotated), originalWidth: 20, originalHeight: 40, wasResized: false });
	});

	it("turns the pixels upright when it resizes (6: clockwise, 8: counter-clockwise, 3: half turn)", async () => {
		// Source 80x40, red growing to the right, green growing downwards; resized to 39 pixels wide.
		const source = encodeImage("jpeg", 80, 40, 1, 0);
		const corner = async (orientation: number) => {
			const data = base64(withExifOrientation(source, orientation));
			const result = await resizeImage({ data, mimeType: "image/jpeg" }, { maxWidth: 39 });
			return { result, topLeft: pixelAt(Buffer.from(result!.data, "base64"), 0, 0) };
		};
		const upright = await corner(1);
		expect(upright.result).toMatchObject({ width: 39, height: 20, wasResized: true });
		expect(upright.topLeft[0]).toBeLessThan(60);
		expect(upright.topLeft[1]).toBeLessThan(60);
		const six = await corner(6);
		// Clockwise: the new top-left was the bottom-left (red low, green high).
		expect(six.result).toMatchObject({ originalWidth: 40, originalHeight: 80, width: 39, height: 78 });
		expect(six.topLeft[0]).toBeLessThan(60);
		expect(six.topLeft[1]).toBeGreaterThan(190);
		const eight = await corner(8);
		// Counter-clockwise: the new top-left was the top-right (red high, green low).
		expect(eight.result).toMatchObject({ width: 39, height: 78 });
		expect(eight.topLeft[0]).toBeGreaterThan(190);
		expect(eight.topLeft[1]).toBeLessThan(60);
		const three = await corner(3);
		expect(three.result).toMatchObject({ width: 39, height: 20 });
		expect(three.topLeft[0]).toBeGreaterThan(190);
		expect(three.topLeft[1]).toBeGreaterThan(190);
	});

	it("does not hang on a WebP whose chunk size is negative (pi loops forever on it)", () => {
		const webp = Buffer.from("RIFF\0\0\0\0WEBPJUNK\xf8\xff\xff\xff", "latin1");
		expect(exifOrientation(webp)).toBe(1);
	});
});

describe("resizeImage: input it cannot decode, as pi", () => {
	const inputs: [string, { data: string; mimeType: string }][] = [
		["a truncated PNG", { data: base64(encodeImage("png", 30, 30).subarray(0, 60)), mimeType: "image/png" }],
		["JPEG markers only", { data: base64(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), mimeType: "image/jpeg" }],
		[
			"SVG (a format photon does not read)",
			{ data: base64(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")), mimeType: "image/svg+xml" },
		],
		["the blank GIF fixture", { data: base64(readFileSync(fixture("images/green-2x7.gif"))), mimeType: "image/gif" }],
	];

	it.each(inputs)("%s: null, and the outcome says it is undecodable", async (_name, image) => {
		expect(await resizeImage(image)).toBeNull();
		expect(await piResizeImage({ type: "image", ...image })).toBeNull();
		expect((await resizeImageDetailed(image)).kind).toBe("undecodable");
	});

	it("keeps working after photon trapped on bad input", async () => {
		await resizeImage(inputs[1]![1]);
		expect(await resizeImage(png(2100, 10))).toMatchObject({ width: 2000, wasResized: true });
	});

	it("a format photon reads but the model may not (BMP) within limits comes back unchanged, as pi", async () => {
		const bmp = bmpBytes(3, 2);
		const image = { data: base64(bmp), mimeType: "image/bmp" };
		const ours = await resizeImage(image);
		expect(ours).toEqual(await piResizeImage({ type: "image", ...image }));
		expect(ours).toMatchObject({ data: image.data, mimeType: "image/bmp", width: 3, height: 2, wasResized: false });
	});
});

describe("prepareImageForPrompt", () => {
	it("resizes and notes by default; with autoResize false attaches as is, and leaves out only what is too big", async () => {
		const wide = png(2100, 10);
		const resized = await prepareImageForPrompt(wide.data, "image/png");
		expect(resized.note).toBe(
			"[Image: original 2100x10, displayed at 2000x10. Multiply coordinates by 1.05 to map to original image.]",
		);
		expect(resized.image).toMatchObject({ type: "image", mimeType: "image/png" });
		expect(resized.image?.data).not.toBe(wide.data);
		expect(await prepareImageForPrompt(wide.data, "image/png", { autoResize: false })).toEqual({
			image: { type: "image", data: wide.data, mimeType: "image/png" },
			note: "",
		});
		const huge = "A".repeat(MAX_INLINE_IMAGE_BYTES);
		expect(await prepareImageForPrompt(huge, "image/png", { autoResize: false })).toEqual({
			note: "[Image omitted: over the inline image size limit; attach a smaller copy.]",
		});
	});
});

/** A 24-bit BMP of `width`×`height` grey pixels. */
function bmpBytes(width: number, height: number): Buffer {
	const row = Math.ceil((width * 3) / 4) * 4;
	const size = 54 + row * height;
	const bytes = Buffer.alloc(size, 0x80);
	bytes.write("BM", 0, "latin1");
	bytes.writeUInt32LE(size, 2);
	bytes.writeUInt32LE(0, 6);
	bytes.writeUInt32LE(54, 10);
	bytes.writeUInt32LE(40, 14);
	bytes.writeInt32LE(width, 18);
	bytes.writeInt32LE(height, 22);
	bytes.writeUInt16LE(1, 26);
	bytes.writeUInt16LE(24, 28);
	bytes.writeUInt32LE(0, 30);
	bytes.writeUInt32LE(row * height, 34);
	bytes.fill(0, 38, 54);
	return bytes;
}

describe("photon-node: loaded in the resizer's thread on first resize only; missing means images are sent as they are", () => {
	const here = fileURLToPath(new URL(".", import.meta.url));
	const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;
	const child = (cwd: string, preload: string[] = [], env: NodeJS.ProcessEnv = {}) => {
		const out = spawnSync(
			process.execPath,
			[...preload, "--import", tsx, join(here, "image-resize-child.ts"), "wide.png"],
			{ cwd, encoding: "utf8", env: { ...process.env, ...env } },
		);
		if (out.status !== 0) throw new Error(out.stderr);
		return JSON.parse(out.stdout.trim().split("\n").pop()!);
	};
	const sentAsIs = (report: Record<string, { content: unknown; details: { imageResizeUnavailable: string } }>) => {
		for (const result of [report.first!, report.second!]) {
			expect(result.content).toEqual([
				{
					type: "text",
					text: "Read image file [image/png]\n[Image: 2500x40, sent at full size (image resizing unavailable); the provider may scale it down.]",
				},
				{ type: "image", mimeType: "image/png", bytes: base64(encodeImage("png", 2500, 40)).length },
			]);
		}
		// A prompt's @file image is attached as it is too (under the inline limit), with an empty <file> tag.
		expect(report.prompt).toEqual({
			note: "",
			mimeType: "image/png",
			bytes: base64(encodeImage("png", 2500, 40)).length,
		});
		return [report.first!.details.imageResizeUnavailable, report.second!.details.imageResizeUnavailable];
	};

	it("importing Settle does not load it; reading a large image resizes it without loading it in the main thread", async () => {
		const cwd = await tempProject({ "wide.png": encodeImage("png", 2500, 40) });
		const report = child(cwd);
		expect(report.loadedAtImport).toBe(false);
		expect(report.loadedAfterRead).toBe(false);
		expect(report.first.content[0].text).toContain("[Image: original 2500x40, displayed at 2000x32.");
		expect(report.first.details).toBeUndefined();
		expect(report.prompt).toMatchObject({
			note: expect.stringContaining("displayed at 2000x32"),
			mimeType: "image/png",
		});
	});

	it("when it cannot be found, the read tool sends the image as is, notes it, and details say why", async () => {
		const cwd = await tempProject({ "wide.png": encodeImage("png", 2500, 40) });
		const report = child(cwd, ["--require", join(here, "image-resize-no-photon.cjs")]);
		expect(report.loadedAfterRead).toBe(false);
		for (const reason of sentAsIs(report)) {
			expect(reason).toMatch(
				/^@silvia-odwyer\/photon-node could not be loaded: Cannot find module '@silvia-odwyer\/photon-node'/,
			);
		}
	});

	it("when it is found but fails to load in the thread, the same: sent as is, and details say why", async () => {
		const broken = await tempProject({});
		// photon-node's JavaScript without its WebAssembly file next to it.
		copyFileSync(createRequire(import.meta.url).resolve("@silvia-odwyer/photon-node"), join(broken, "photon_rs.js"));
		const cwd = await tempProject({ "wide.png": encodeImage("png", 2500, 40) });
		const preload = ["--require", join(here, "image-resize-broken-photon.cjs")];
		const report = child(cwd, preload, { SETTLE_TEST_BROKEN_PHOTON: join(broken, "photon_rs.js") });
		for (const reason of sentAsIs(report)) {
			expect(reason).toMatch(
				/^@silvia-odwyer\/photon-node could not be loaded: ENOENT: no such file or directory, open '.*photon_rs_bg\.wasm'/,
			);
		}
	});
});
