/**
 * Real images for the resizer tests: PNG, JPEG and WebP bytes encoded by photon-node itself from
 * generated pixels, and JPEGs carrying an EXIF orientation tag (an APP1 segment spliced in).
 */
import { createRequire } from "node:module";
import type * as Photon from "@silvia-odwyer/photon-node";

const photon = createRequire(import.meta.url)("@silvia-odwyer/photon-node") as typeof Photon;

export type Format = "png" | "jpeg" | "webp";

/** RGBA pixels: a gradient with some seeded noise (so PNG and JPEG sizes are not trivial). */
export function pixels(width: number, height: number, seed = 1, noise = 40): Uint8Array {
	const out = new Uint8Array(width * height * 4);
	let state = seed >>> 0 || 1;
	for (let y = 0; y < height; y++) {
		for (let x = 0; x < width; x++) {
			state ^= state << 13;
			state ^= state >>> 17;
			state ^= state << 5;
			const jitter = noise ? ((state >>> 0) % noise) - noise / 2 : 0;
			const i = (y * width + x) * 4;
			out[i] = Math.max(0, Math.min(255, ((x * 255) / Math.max(1, width - 1) + jitter) | 0));
			out[i + 1] = Math.max(0, Math.min(255, ((y * 255) / Math.max(1, height - 1) + jitter) | 0));
			out[i + 2] = (x ^ y) & 0xff;
			out[i + 3] = 255;
		}
	}
	return out;
}

/** An encoded image of `width`×`height`. */
export function encodeImage(format: Format, width: number, height: number, seed = 1, noise = 40): Buffer {
	const image = new photon.PhotonImage(pixels(width, height, seed, noise), width, height);
	try {
		if (format === "png") return Buffer.from(image.get_bytes());
		if (format === "jpeg") return Buffer.from(image.get_bytes_jpeg(90));
		return Buffer.from(image.get_bytes_webp());
	} finally {
		image.free();
	}
}

export const MIME: Record<Format, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

/** `jpeg` with an EXIF APP1 segment (orientation tag in IFD0) right after its SOI marker. */
export function withExifOrientation(jpeg: Buffer, orientation: number, littleEndian = false): Buffer {
	const tiff = Buffer.alloc(8 + 2 + 12 + 4);
	const u16 = (value: number, at: number) =>
		littleEndian ? tiff.writeUInt16LE(value, at) : tiff.writeUInt16BE(value, at);
	const u32 = (value: number, at: number) =>
		littleEndian ? tiff.writeUInt32LE(value, at) : tiff.writeUInt32BE(value, at);
	tiff.write(littleEndian ? "II" : "MM", 0, "latin1");
	u16(42, 2);
	u32(8, 4); // IFD0 right after the header
	u16(1, 8); // one entry
	u16(0x0112, 10); // Orientation
	u16(3, 12); // SHORT
	u32(1, 14); // count
	u16(orientation, 18);
	const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
	const header = Buffer.from([0xff, 0xe1, 0, 0]);
	header.writeUInt16BE(payload.length + 2, 2);
	return Buffer.concat([jpeg.subarray(0, 2), header, payload, jpeg.subarray(2)]);
}

/** Width and height of encoded image bytes, decoded by photon. */
export function decodedSize(bytes: Uint8Array): { width: number; height: number } {
	const image = photon.PhotonImage.new_from_byteslice(bytes);
	try {
		return { width: image.get_width(), height: image.get_height() };
	} finally {
		image.free();
	}
}

/** The RGBA pixel at (x, y) of encoded image bytes. */
export function pixelAt(bytes: Uint8Array, x: number, y: number): number[] {
	const image = photon.PhotonImage.new_from_byteslice(bytes);
	try {
		const raw = image.get_raw_pixels();
		const i = (y * image.get_width() + x) * 4;
		return [...raw.subarray(i, i + 4)];
	} finally {
		image.free();
	}
}
