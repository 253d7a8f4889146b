/**
 * Differential: Settle's default resizer against pi 0.73.1's own `resizeImage` (from node_modules) on
 * random real images — PNG, JPEG (some with an EXIF orientation), WebP — of random sizes, with
 * random limits (small `maxBytes` so the JPEG quality steps and the shrink loop run on small images).
 * Everything must match: dimensions, MIME type, `wasResized`, the dimension note, and the bytes
 * (photon's encoders are deterministic: the same pixels give the same bytes, checked below).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ResizedImage } from "../../src/index.js";
import { formatDimensionNote, resizeImage } from "../../src/index.js";
import { encodeImage, type Format, MIME, withExifOrientation } from "./image-resize-helpers.js";

interface PiResize {
	resizeImage(
		image: { type: "image"; data: string; mimeType: string },
		options?: Record<string, number>,
	): Promise<ResizedImage | null>;
	formatDimensionNote(image: ResizedImage): string | undefined;
}

let pi: PiResize;
beforeAll(async () => {
	const url = new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/utils/image-resize.js", import.meta.url);
	pi = (await import(url.href)) as PiResize;
});

const side = fc.oneof(
	{ weight: 3, arbitrary: fc.integer({ min: 1, max: 120 }) },
	{ weight: 2, arbitrary: fc.integer({ min: 1990, max: 2600 }) },
	{ weight: 1, arbitrary: fc.integer({ min: 4000, max: 4100 }) },
);

const imageCase = fc
	.record({
		format: fc.constantFrom<Format>("png", "jpeg", "webp"),
		width: side,
		height: side,
		seed: fc.integer({ min: 1, max: 1 << 30 }),
		noise: fc.constantFrom(0, 40, 255),
		orientation: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
		littleEndian: fc.boolean(),
		options: fc.record(
			{
				maxWidth: fc.integer({ min: 1, max: 300 }),
				maxHeight: fc.integer({ min: 1, max: 300 }),
				maxBytes: fc.integer({ min: 300, max: 60_000 }),
				jpegQuality: fc.integer({ min: 1, max: 100 }),
			},
			{ requiredKeys: [] },
		),
	})
	// Keep every image small (≤ ~300k pixels) so a run stays fast: one long side, the other short.
	.filter(({ width, height }) => width * height <= 300_000);

describe("resizeImage: the same result as pi's on random images", () => {
	it("same dimensions, MIME type, wasResized, note and bytes", async () => {
		await fc.assert(
			fc.asyncProperty(
				imageCase,
				async ({ format, width, height, seed, noise, orientation, littleEndian, options }) => {
					let bytes = encodeImage(format, width, height, seed, noise);
					if (format === "jpeg" && orientation !== undefined)
						bytes = withExifOrientation(bytes, orientation, littleEndian);
					const input = { type: "image" as const, data: bytes.toString("base64"), mimeType: MIME[format] };
					const ours = await resizeImage(input, options);
					const theirs = await pi.resizeImage(input, options);
					expect(ours).toEqual(theirs);
					if (ours && theirs) expect(formatDimensionNote(ours)).toBe(pi.formatDimensionNote(theirs));
				},
			),
			{ numRuns: 60 },
		);
	});

	it("photon's encoders are deterministic (so comparing bytes is fair)", () => {
		for (const format of ["png", "jpeg", "webp"] as const) {
			expect(encodeImage(format, 37, 23, 5).equals(encodeImage(format, 37, 23, 5))).toBe(true);
		}
	});

	it("the dimension note is pi's for any sizes", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 100_000 }),
				fc.integer({ min: 1, max: 100_000 }),
				fc.integer({ min: 1, max: 5000 }),
				fc.integer({ min: 1, max: 5000 }),
				fc.boolean(),
				(originalWidth, originalHeight, width, height, wasResized) => {
					const image = { data: "", mimeType: "image/png", originalWidth, originalHeight, width, height, wasResized };
					expect(formatDimensionNote(image)).toBe(pi.formatDimensionNote(image));
				},
			),
			{ numRuns: 200 },
		);
	});
});
