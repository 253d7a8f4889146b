/**
 * The default image resizer of the `read` tool and of `@file` prompt images, with pi 0.73.1's
 * behavior: at most 2000×2000 pixels and under 4.5 MB of base64, PNG or JPEG (whichever fits first),
 * JPEG quality stepped down, then the size shrunk by a quarter per step. Decoding and encoding use
 * `@silvia-odwyer/photon-node` (Rust compiled to WASM), required on the first resize only: importing
 * Settle never loads it. When it cannot be loaded, callers send images as they are (see
 * {@link imageResizingUnavailable}).
 */
import { createRequire } from "node:module";
import type * as Photon from "@silvia-odwyer/photon-node";
import { errorMessage } from "../errors.js";
import type { ImageContent } from "../llm/types.js";
import type { ResizedImage } from "./read.js";

/** Largest base64 payload sent inline (headroom below the 5 MB limit of common providers). */
export const MAX_INLINE_IMAGE_BYTES = 4.5 * 1024 * 1024;
/** Side length above which images are downsized. */
export const MAX_IMAGE_DIMENSION = 2000;

/** Limits of {@link resizeImage} (pi's `ImageResizeOptions`). */
export interface ImageResizeOptions {
	/** Default 2000. */
	maxWidth?: number;
	/** Default 2000. */
	maxHeight?: number;
	/** Base64 size the result must stay under. Default {@link MAX_INLINE_IMAGE_BYTES}. */
	maxBytes?: number;
	/** First JPEG quality tried (then 85, 70, 55, 40). Default 80. */
	jpegQuality?: number;
}

type PhotonModule = typeof Photon;

const PHOTON_PACKAGE = "@silvia-odwyer/photon-node";

let photon: PhotonModule | undefined;
let photonFailure: string | undefined;

/** photon-node, required once; `undefined` (and the reason kept) when it cannot be loaded. */
function loadPhoton(): PhotonModule | undefined {
	if (photon || photonFailure !== undefined) return photon;
	try {
		photon = createRequire(import.meta.url)(PHOTON_PACKAGE) as PhotonModule;
	} catch (error) {
		photonFailure = `${PHOTON_PACKAGE} could not be loaded: ${errorMessage(error).split("\n")[0]}`;
	}
	return photon;
}

/**
 * Why the default resizer cannot work in this process (photon-node missing or broken), or
 * `undefined` when it can. Loads photon-node on the first call. Must not throw.
 *
 * @example
 * ```ts
 * const reason = await imageResizingUnavailable();
 * if (reason) console.warn(`images will be sent unresized: ${reason}`);
 * ```
 */
export async function imageResizingUnavailable(): Promise<string | undefined> {
	return loadPhoton() ? undefined : photonFailure;
}

/** What {@link resizeImageDetailed} found; `resized` is the only outcome with an image to send. */
export type ImageResizeOutcome =
	| { kind: "resized"; image: ResizedImage }
	/** photon could not decode the data (corrupt, truncated, or a variant it does not read). */
	| { kind: "undecodable"; reason: string }
	/** Not even a 1×1 image fits under `maxBytes`. */
	| { kind: "too-large" }
	/** photon failed while resizing or encoding (it traps on a side that rounds to 0 pixels). */
	| { kind: "failed"; reason: string }
	/** photon-node could not be loaded. */
	| { kind: "unavailable"; reason: string };

/**
 * Fits an image within `maxWidth`×`maxHeight` (after applying its EXIF orientation) and under
 * `maxBytes` of base64, pi's way (same sizes, formats, qualities, so the same result). An image
 * already within every limit comes back unchanged (`wasResized: false`). Otherwise it is resized
 * (Lanczos3) to fit the box, then encoded as PNG, or if that is too big as JPEG at `jpegQuality`,
 * 85, 70, 55, 40; if none fits, width and height shrink to 3/4 and the encodings are tried again,
 * down to 1×1. Must not throw: failures are outcomes.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { join } from "node:path";
 *
 * const data = readFileSync(join(cwd, "screenshot.png")).toString("base64");
 * const outcome = await resizeImageDetailed({ data, mimeType: "image/png" });
 * if (outcome.kind === "resized") console.log(`${outcome.image.width}x${outcome.image.height}`);
 * else console.log(`left out: ${outcome.kind}`);
 * ```
 */
export async function resizeImageDetailed(
	image: { data: string; mimeType?: string },
	options: ImageResizeOptions = {},
): Promise<ImageResizeOutcome> {
	const maxWidth = options.maxWidth ?? MAX_IMAGE_DIMENSION;
	const maxHeight = options.maxHeight ?? MAX_IMAGE_DIMENSION;
	const maxBytes = options.maxBytes ?? MAX_INLINE_IMAGE_BYTES;
	const jpegQuality = options.jpegQuality ?? 80;
	const codec = loadPhoton();
	if (!codec) return { kind: "unavailable", reason: photonFailure ?? PHOTON_PACKAGE };
	const bytes = new Uint8Array(Buffer.from(image.data, "base64"));
	let source: Photon.PhotonImage;
	try {
		source = orient(codec, codec.PhotonImage.new_from_byteslice(bytes), exifOrientation(bytes));
	} catch (error) {
		return { kind: "undecodable", reason: errorMessage(error).split("\n")[0] ?? "decode failed" };
	}
	try {
		const originalWidth = source.get_width();
		const originalHeight = source.get_height();
		const base = { originalWidth, originalHeight };
		if (originalWidth <= maxWidth && originalHeight <= maxHeight && Buffer.byteLength(image.data) < maxBytes) {
			const mimeType = image.mimeType ?? "image/png";
			const unchanged = { data: image.data, mimeType, width: originalWidth, height: originalHeight };
			return { kind: "resized", image: { ...unchanged, ...base, wasResized: false } };
		}
		let width = originalWidth;
		let height = originalHeight;
		if (width > maxWidth) {
			height = Math.round((height * maxWidth) / width);
			width = maxWidth;
		}
		if (height > maxHeight) {
			width = Math.round((width * maxHeight) / height);
			height = maxHeight;
		}
		const qualities = [...new Set([jpegQuality, 85, 70, 55, 40])];
		for (;;) {
			const encoded = encodeFirstFitting(codec, source, width, height, qualities, maxBytes);
			if (encoded) return { kind: "resized", image: { ...encoded, ...base, width, height, wasResized: true } };
			const nextWidth = Math.max(1, Math.floor(width * 0.75));
			const nextHeight = Math.max(1, Math.floor(height * 0.75));
			if (nextWidth === width && nextHeight === height) return { kind: "too-large" };
			width = nextWidth;
			height = nextHeight;
		}
	} catch (error) {
		return { kind: "failed", reason: errorMessage(error).split("\n")[0] ?? "resize failed" };
	} finally {
		source.free();
	}
}

/** The first encoding under `maxBytes` of base64: PNG, then JPEG at each quality in turn. */
function encodeFirstFitting(
	codec: PhotonModule,
	source: Photon.PhotonImage,
	width: number,
	height: number,
	qualities: readonly number[],
	maxBytes: number,
): { data: string; mimeType: string } | undefined {
	const resized = codec.resize(source, width, height, codec.SamplingFilter.Lanczos3);
	try {
		const encodings: [string, () => Uint8Array][] = [
			["image/png", () => resized.get_bytes()],
			...qualities.map((quality): [string, () => Uint8Array] => ["image/jpeg", () => resized.get_bytes_jpeg(quality)]),
		];
		for (const [mimeType, encode] of encodings) {
			const data = Buffer.from(encode()).toString("base64");
			if (data.length < maxBytes) return { data, mimeType };
		}
		return undefined;
	} finally {
		resized.free();
	}
}

/**
 * pi's `resizeImage`: the resized image, or `null` when it cannot be decoded, cannot be made small
 * enough, or photon-node cannot be loaded. See {@link resizeImageDetailed} for the steps and for why.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { join } from "node:path";
 *
 * const data = readFileSync(join(cwd, "screenshot.png")).toString("base64");
 * const resized = await resizeImage({ type: "image", data, mimeType: "image/png" });
 * if (resized) console.log(formatDimensionNote(resized) ?? "sent as is");
 * ```
 */
export async function resizeImage(
	image: { type?: "image"; data: string; mimeType?: string },
	options?: ImageResizeOptions,
): Promise<ResizedImage | null> {
	const outcome = await resizeImageDetailed(image, options);
	return outcome.kind === "resized" ? outcome.image : null;
}

/**
 * The note telling the model how a resized image maps to the original (pi's text), or `undefined`
 * when the image was not resized.
 *
 * @example
 * ```ts
 * formatDimensionNote({ data: "", mimeType: "image/png", originalWidth: 4000, originalHeight: 3000, width: 2000, height: 1500, wasResized: true });
 * // "[Image: original 4000x3000, displayed at 2000x1500. Multiply coordinates by 2.00 to map to original image.]"
 * ```
 */
export function formatDimensionNote(image: ResizedImage): string | undefined {
	if (!image.wasResized) return undefined;
	const scale = (image.originalWidth / image.width).toFixed(2);
	return `[Image: original ${image.originalWidth}x${image.originalHeight}, displayed at ${image.width}x${image.height}. Multiply coordinates by ${scale} to map to original image.]`;
}

// EXIF orientation -------------------------------------------------------------------------------
// Cameras store pixels as the sensor saw them and the intended rotation in an EXIF tag; the model
// must see the picture upright, and the dimensions (and the resize decision) are those after it.

/** EXIF orientation (1–8) of a JPEG or WebP; 1 when absent or unreadable. Read like pi reads it. */
export function exifOrientation(bytes: Uint8Array): number {
	const tiff = isJpeg(bytes) ? jpegExifStart(bytes) : isWebp(bytes) ? webpExifStart(bytes) : -1;
	return tiff < 0 ? 1 : tiffOrientation(bytes, tiff);
}

const isJpeg = (b: Uint8Array) => b.length >= 2 && b[0] === 0xff && b[1] === 0xd8;
const isWebp = (b: Uint8Array) => b.length >= 12 && ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP");

function ascii(bytes: Uint8Array, offset: number, text: string): boolean {
	for (let i = 0; i < text.length; i++) if (bytes[offset + i] !== text.charCodeAt(i)) return false;
	return true;
}

const EXIF_HEADER = "Exif\0\0";

/** Start of the TIFF block in the first APP1 segment, if that segment is EXIF; -1 otherwise. */
function jpegExifStart(bytes: Uint8Array): number {
	let offset = 2;
	while (offset < bytes.length - 1) {
		if (bytes[offset] !== 0xff) return -1;
		const marker = bytes[offset + 1];
		if (marker === 0xff) {
			offset += 1;
			continue;
		}
		if (marker === 0xe1) {
			const payload = offset + 4;
			return payload + 6 <= bytes.length && ascii(bytes, payload, EXIF_HEADER) ? payload + 6 : -1;
		}
		if (offset + 4 > bytes.length) return -1;
		offset += 2 + (((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0));
	}
	return -1;
}

/** Start of the TIFF block of the first `EXIF` chunk of a WebP; -1 when there is none. */
function webpExifStart(bytes: Uint8Array): number {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	let offset = 12;
	while (offset + 8 <= bytes.length) {
		const size = view.getInt32(offset + 4, true);
		const data = offset + 8;
		if (ascii(bytes, offset, "EXIF")) {
			if (data + size > bytes.length) return -1;
			return size >= 6 && ascii(bytes, data, EXIF_HEADER) ? data + 6 : data;
		}
		const next = data + size + (size % 2);
		// A negative size would loop forever (pi hangs on such a file); nothing valid follows it anyway.
		if (next <= offset) return -1;
		offset = next;
	}
	return -1;
}

/** The orientation tag (0x0112) of IFD0 of the TIFF block at `start`; 1 when missing or out of range. */
function tiffOrientation(bytes: Uint8Array, start: number): number {
	if (start + 8 > bytes.length) return 1;
	const little = bytes[start] === 0x49 && bytes[start + 1] === 0x49;
	const u16 = (at: number) =>
		little ? (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) : ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
	const u32 = (at: number) => (little ? u16(at) + u16(at + 2) * 0x10000 : u16(at) * 0x10000 + u16(at + 2));
	// A little-endian offset is read as a signed 32-bit number, as pi does (it matters only for junk).
	const rawOffset = u32(start + 4);
	const ifd = start + (little && rawOffset >= 0x80000000 ? rawOffset - 0x100000000 : rawOffset);
	if (ifd + 2 > bytes.length) return 1;
	const count = u16(ifd);
	for (let i = 0; i < count; i++) {
		const entry = ifd + 2 + i * 12;
		if (entry + 12 > bytes.length) return 1;
		if (u16(entry) === 0x0112) {
			const value = u16(entry + 8);
			return value >= 1 && value <= 8 ? value : 1;
		}
	}
	return 1;
}

/** `image` turned upright for `orientation` (frees `image` when it returns a new one). */
function orient(codec: PhotonModule, image: Photon.PhotonImage, orientation: number): Photon.PhotonImage {
	switch (orientation) {
		case 2:
			codec.fliph(image);
			return image;
		case 3:
			codec.fliph(image);
			codec.flipv(image);
			return image;
		case 4:
			codec.flipv(image);
			return image;
		case 5:
		case 6:
		case 7:
		case 8: {
			const clockwise = orientation === 5 || orientation === 6;
			const rotated = rotateQuarter(codec, image, clockwise);
			image.free();
			if (orientation === 5 || orientation === 7) codec.fliph(rotated);
			return rotated;
		}
		default:
			return image;
	}
}

/** A new image: `image` rotated by 90° clockwise or counter-clockwise. */
function rotateQuarter(codec: PhotonModule, image: Photon.PhotonImage, clockwise: boolean): Photon.PhotonImage {
	const width = image.get_width();
	const height = image.get_height();
	let raw = image.get_raw_pixels();
	if (raw.byteOffset % 4 !== 0) raw = raw.slice();
	const source = new Uint32Array(raw.buffer, raw.byteOffset, width * height);
	const target = new Uint32Array(width * height);
	for (let y = 0; y < height; y++) {
		for (let x = 0; x < width; x++) {
			// The new image is `height` wide: clockwise, (x, y) goes to (height-1-y, x).
			const to = clockwise ? x * height + (height - 1 - y) : (width - 1 - x) * height + y;
			target[to] = source[y * width + x] ?? 0;
		}
	}
	return new codec.PhotonImage(new Uint8Array(target.buffer), height, width);
}

// Prompt attachments (`@file` arguments) ---------------------------------------------------------

/** The read tool's note for an image photon could not decode (pi says it could not be resized). */
export const UNDECODABLE_IMAGE_NOTE =
	"[Image omitted: the image data could not be decoded (the file may be corrupt or truncated, or use a variant the decoder does not read).]";
/** pi's note for an image its resizer returned `null` for. */
export const NOT_RESIZABLE_IMAGE_NOTE = "[Image omitted: could not be resized below the inline image size limit.]";

/**
 * An image file's base64 `data` made ready to attach to a prompt, as pi's `@file` arguments are:
 * the attachment (resized by the default resizer; absent when the image is left out) and the text
 * for its `<file>` tag (the dimension note, the reason it was left out, or ""). With `autoResize:
 * false` (pi's `images.autoResize` setting off), or without photon-node, the image is attached as it
 * is unless it is over the inline limit. Must not throw.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { join } from "node:path";
 *
 * const path = join(cwd, "screenshot.png");
 * const { image, note } = await prepareImageForPrompt(readFileSync(path).toString("base64"), "image/png");
 * await session.prompt(`<file name="${path}">${note}</file>\nWhat is wrong here?`, image ? { images: [image] } : undefined);
 * ```
 */
export async function prepareImageForPrompt(
	data: string,
	mimeType: string,
	options: { autoResize?: boolean } = {},
): Promise<{ image?: ImageContent; note: string }> {
	const outcome: ImageResizeOutcome =
		options.autoResize === false
			? { kind: "unavailable", reason: "resizing is off" }
			: await resizeImageDetailed({ data, mimeType });
	switch (outcome.kind) {
		case "resized": {
			const { data: resized, mimeType: type } = outcome.image;
			return {
				image: { type: "image", data: resized, mimeType: type },
				note: formatDimensionNote(outcome.image) ?? "",
			};
		}
		case "undecodable":
			return { note: UNDECODABLE_IMAGE_NOTE };
		case "too-large":
		case "failed":
			return { note: NOT_RESIZABLE_IMAGE_NOTE };
		case "unavailable":
			return data.length >= MAX_INLINE_IMAGE_BYTES
				? { note: "[Image omitted: over the inline image size limit; attach a smaller copy.]" }
				: { image: { type: "image", data, mimeType }, note: "" };
	}
}
