/**
 * The read tool's images through the public API: resized by default exactly as pi 0.73.1's read tool
 * does (compared with pi's own tool), a custom resizer instead, `autoResizeImages: false`, and
 * image files that cannot be decoded.
 */
import { readFileSync } from "node:fs";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import {
	createAllToolDefinitions,
	createReadTool,
	createReadToolDefinition,
	type ImageResizer,
	type ReadToolDetails,
} from "../../src/index.js";
import { fixture, run, tempProject, text } from "./helpers.js";
import { encodeImage, type Format, withExifOrientation } from "./image-resize-helpers.js";

type PiExecute = {
	execute: (id: string, params: Record<string, unknown>) => Promise<AgentToolResult>;
};
const piRead = (cwd: string, options?: { autoResizeImages: boolean }) =>
	pi.createReadToolDefinition(cwd, options) as unknown as PiExecute;

const UNDECODABLE =
	"[Image omitted: the image data could not be decoded (the file may be corrupt or truncated, or use a variant the decoder does not read).]";

describe("read: large images are resized by default, as pi's read tool does", () => {
	const files = {
		"wide.png": encodeImage("png", 2600, 300),
		"small.png": encodeImage("png", 120, 80),
		"tall.jpg": encodeImage("jpeg", 200, 2100),
		"rotated.jpg": withExifOrientation(encodeImage("jpeg", 2300, 100, 3), 8, true),
		"wide.webp": encodeImage("webp", 2100, 50),
	};

	it.each(Object.keys(files))("%s: the same content as pi", async (name) => {
		const cwd = await tempProject(files);
		const ours = await run(createReadToolDefinition(cwd), { path: name });
		const theirs = await piRead(cwd).execute("c", { path: name });
		expect(ours.content).toEqual(theirs.content);
		expect(ours.details).toBeUndefined();
	});

	it("sends the resized image and the dimension note", async () => {
		const cwd = await tempProject(files);
		const result = await run(createReadToolDefinition(cwd), { path: "wide.png" });
		expect(text(result)).toBe(
			"Read image file [image/png]\n[Image: original 2600x300, displayed at 2000x231. Multiply coordinates by 1.30 to map to original image.]",
		);
		const image = result.content[1];
		expect(image?.type).toBe("image");
		expect(image?.type === "image" && image.data).not.toBe(files["wide.png"].toString("base64"));
	});

	it("every way of making the read tool resizes: createAllToolDefinitions, createReadTool", async () => {
		const cwd = await tempProject(files);
		for (const tool of [createAllToolDefinitions(cwd).read, createReadTool(cwd)]) {
			const result = await tool.execute("c", { path: "tall.jpg" }, undefined, undefined, undefined as never);
			expect((result.content[0] as { text: string }).text).toContain("displayed at 190x2000");
		}
	});

	it("puts the non-vision note after the dimension note", async () => {
		const cwd = await tempProject(files);
		const result = await createReadToolDefinition(cwd).execute("c", { path: "wide.webp" }, undefined, undefined, {
			model: { input: ["text"] },
		} as never);
		expect(text(result)).toBe(
			"Read image file [image/png]\n[Image: original 2100x50, displayed at 2000x48. Multiply coordinates by 1.05 to map to original image.]\n[Current model does not support images. The image will be omitted from this request.]",
		);
	});

	it("on random images and limits' edges, the same content as pi", async () => {
		const side = fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1995, max: 2300 }));
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom<Format>("png", "jpeg", "webp"),
				side,
				side,
				fc.integer({ min: 0, max: 8 }),
				async (format, width, height, orientation) => {
					fc.pre(width * height <= 200_000);
					let bytes = encodeImage(format, width, height, width + height);
					if (format === "jpeg" && orientation > 0) bytes = withExifOrientation(bytes, orientation);
					const cwd = await tempProject({ [`f.${format}`]: bytes });
					const ours = await run(createReadToolDefinition(cwd), { path: `f.${format}` });
					const theirs = await piRead(cwd).execute("c", { path: `f.${format}` });
					expect(ours.content).toEqual(theirs.content);
				},
			),
			{ numRuns: 25 },
		);
	});
});

describe("read: autoResizeImages false and a custom resizer", () => {
	it("autoResizeImages: false sends the file's bytes, as pi", async () => {
		const wide = encodeImage("png", 2600, 30);
		const cwd = await tempProject({ "wide.png": wide });
		const result = await run(createReadToolDefinition(cwd, { autoResizeImages: false }), { path: "wide.png" });
		expect(result.content).toEqual([
			{
				type: "text",
				text: "Read image file [image/png]\n[Image: 2600x30, sent at full size (image resizing is off); the provider may scale it down.]",
			},
			{ type: "image", data: wide.toString("base64"), mimeType: "image/png" },
		]);
		const theirs = await piRead(cwd, { autoResizeImages: false }).execute("c", { path: "wide.png" });
		expect(result.content[1]).toEqual(theirs.content[1]);
	});

	it("a custom resizer wins over the default one, and gets the file's data and type", async () => {
		const wide = encodeImage("png", 2600, 30);
		const cwd = await tempProject({ "wide.png": wide });
		const calls: { data: string; mimeType: string }[] = [];
		const resizeImage: ImageResizer = async (image) => {
			calls.push(image);
			return {
				data: "QUJD",
				mimeType: "image/webp",
				originalWidth: 2600,
				originalHeight: 30,
				width: 1300,
				height: 15,
				wasResized: true,
			};
		};
		const result = await run(createReadToolDefinition(cwd, { resizeImage }), { path: "wide.png" });
		expect(calls).toEqual([{ data: wide.toString("base64"), mimeType: "image/png" }]);
		expect(result.content).toEqual([
			{
				type: "text",
				text: "Read image file [image/webp]\n[Image: original 2600x30, displayed at 1300x15. Multiply coordinates by 2.00 to map to original image.]",
			},
			{ type: "image", data: "QUJD", mimeType: "image/webp" },
		]);
	});

	it("a custom resizer returning null leaves the image out with pi's note", async () => {
		const cwd = await tempProject({ "a.png": encodeImage("png", 10, 10) });
		const result = await run(createReadToolDefinition(cwd, { resizeImage: async () => null }), { path: "a.png" });
		expect(result.content).toEqual([
			{
				type: "text",
				text: "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]",
			},
		]);
	});

	it("autoResizeImages: false ignores a custom resizer", async () => {
		const cwd = await tempProject({ "a.png": encodeImage("png", 10, 10) });
		const read = createReadToolDefinition(cwd, {
			autoResizeImages: false,
			resizeImage: async () => {
				throw new Error("must not be called");
			},
		});
		expect((await run(read, { path: "a.png" })).content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
	});
});

describe("read: an image file that cannot be decoded", () => {
	const truncated = encodeImage("png", 40, 40).subarray(0, 80);
	const cases: [string, Buffer][] = [
		["a truncated PNG", truncated],
		["a JPEG that is only markers", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46])],
		["the minimal JPEG fixture", readFileSync(fixture("images/white-1x1.jpg"))],
		["a blank GIF", readFileSync(fixture("images/green-2x7.gif"))],
	];

	it.each(cases)("%s: a text result saying it was left out and why, no crash", async (_name, bytes) => {
		const cwd = await tempProject({ "broken.img": bytes });
		const result = await run<ReadToolDetails>(createReadToolDefinition(cwd), { path: "broken.img" });
		expect(result.content).toHaveLength(1);
		expect(text(result)).toMatch(/^Read image file \[image\/(png|jpeg|gif)\]\n/);
		expect(text(result).split("\n")[1]).toBe(UNDECODABLE);
		// pi leaves it out too, with its resize note (deliberate difference: Settle says why).
		const theirs = await piRead(cwd).execute("c", { path: "broken.img" });
		expect(theirs.content).toEqual([
			{
				type: "text",
				text: text(result).replace(
					UNDECODABLE,
					"[Image omitted: could not be resized below the inline image size limit.]",
				),
			},
		]);
	});
});
