/**
 * Image sniffing for the read tool: the four formats models accept (PNG, JPEG, GIF, WebP) are
 * recognised by their magic bytes, not by the file name, and their pixel size is read from the
 * header. No decoding: Settle ships no image library, so resizing is delegated to an optional hook.
 */
import { open } from "node:fs/promises";
import { shellWord } from "../shell-word.js";

export type SupportedImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Bytes needed to recognise every supported format. */
const SNIFF_BYTES = 16;

/** The image MIME type of `bytes` (the start of a file), or `undefined` for anything else. */
export function detectImageMimeType(bytes: Uint8Array): SupportedImageMimeType | undefined {
	const at = (offset: number, signature: number[]) => signature.every((value, i) => bytes[offset + i] === value);
	const ascii = (offset: number, text: string) =>
		at(
			offset,
			[...text].map((c) => c.charCodeAt(0)),
		);
	// A PNG must open with its 13-byte IHDR chunk; without it the file is cut short or not a PNG, and
	// a provider would reject it as an image (pi, through file-type, reads it as text too).
	if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) && ascii(12, "IHDR")) return "image/png";
	// SOF55 (0xF7) right after the SOI marker means JPEG-LS, which models' image inputs do not decode.
	if (at(0, [0xff, 0xd8, 0xff]) && bytes[3] !== 0xf7) return "image/jpeg";
	if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
	if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
	return undefined;
}

/**
 * The name of an image format no model takes inline, by its magic bytes: HEIC, HEIF or AVIF (an
 * ISO-BMFF `ftyp` brand: iPhone photos), TIFF, BMP or ICO (a favicon, often saved as `.png`:
 * claude-code#43795); `undefined` for anything else.
 */
export function detectUnsendableImageFormat(
	bytes: Uint8Array,
): "HEIC" | "HEIF" | "AVIF" | "TIFF" | "BMP" | "ICO" | undefined {
	const ascii = (offset: number, length: number) => String.fromCharCode(...bytes.subarray(offset, offset + length));
	if (ascii(4, 4) === "ftyp") {
		const brand = ascii(8, 4);
		if (["heic", "heix", "hevc", "hevx", "heim", "heis"].includes(brand)) return "HEIC";
		if (["mif1", "msf1", "heif"].includes(brand)) return "HEIF";
		if (["avif", "avis"].includes(brand)) return "AVIF";
	}
	const head = ascii(0, 4);
	if (head === "II*\0" || head === "MM\0*") return "TIFF";
	// "BM", the file size, then four reserved bytes that are zero.
	if (ascii(0, 2) === "BM" && bytes.length >= 10 && bytes.subarray(6, 10).every((byte) => byte === 0)) return "BMP";
	// Reserved 0, type 1 (icon), at least one image, and the first entry's reserved byte 0.
	const icon = bytes.length >= 22 && head === "\0\0\x01\0" && (bytes[4] ?? 0) + (bytes[5] ?? 0) > 0 && bytes[9] === 0;
	if (icon) return "ICO";
	return undefined;
}

/**
 * What to tell about a file holding an image of `format`: that nothing of it was sent, and the bash
 * commands that make a JPEG copy (sips on macOS; ImageMagick, or libheif's heif-convert, elsewhere).
 */
export function unsendableImageHint(format: string, path: string, use = "read the copy"): string {
	const from = shellWord(path);
	const to = shellWord(`${path.replace(/\.[^./\\]*$/, "")}.jpg`);
	const heif = format === "HEIC" || format === "HEIF" || format === "AVIF";
	const article = /^[AEIOU]/.test(format) ? "an" : "a";
	return `is ${article} ${format} image, a format models do not take (only jpg/png/gif/webp), so nothing of it was sent. Convert it to JPEG with bash and ${use}: sips -s format jpeg ${from} --out ${to} (macOS), magick ${from} ${to}${heif ? ` or heif-convert ${from} ${to}` : ""}.`;
}

/** Reads the first bytes of a file and sniffs its image type. Rejects when the file cannot be opened. */
export async function detectImageMimeTypeFromFile(absolutePath: string): Promise<SupportedImageMimeType | undefined> {
	const handle = await open(absolutePath, "r");
	try {
		const buffer = Buffer.alloc(SNIFF_BYTES);
		const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
		return detectImageMimeType(buffer.subarray(0, bytesRead));
	} finally {
		await handle.close();
	}
}

/** Pixel size from the image header; `undefined` when the header is truncated or unusual. */
export function readImageDimensions(
	data: Uint8Array,
	mimeType: SupportedImageMimeType,
): { width: number; height: number } | undefined {
	const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
	const fits = (offset: number, length: number) => offset + length <= data.byteLength;
	switch (mimeType) {
		case "image/png":
			// IHDR is always the first chunk: width and height are big-endian u32 at 16 and 20.
			return fits(16, 8) ? { width: view.getUint32(16), height: view.getUint32(20) } : undefined;
		case "image/gif":
			return fits(6, 4) ? { width: view.getUint16(6, true), height: view.getUint16(8, true) } : undefined;
		case "image/webp":
			return webpDimensions(data, view);
		case "image/jpeg":
			return jpegDimensions(data, view);
	}
}

function webpDimensions(data: Uint8Array, view: DataView): { width: number; height: number } | undefined {
	if (data.byteLength < 30) return undefined;
	const chunk = String.fromCharCode(...data.subarray(12, 16));
	if (chunk === "VP8X") {
		const u24 = (offset: number) =>
			(data[offset] ?? 0) | ((data[offset + 1] ?? 0) << 8) | ((data[offset + 2] ?? 0) << 16);
		return { width: u24(24) + 1, height: u24(27) + 1 };
	}
	if (chunk === "VP8 ") {
		return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
	}
	if (chunk === "VP8L") {
		const bits = view.getUint32(21, true);
		return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	return undefined;
}

function jpegDimensions(data: Uint8Array, view: DataView): { width: number; height: number } | undefined {
	let offset = 2;
	while (offset + 9 <= data.byteLength) {
		if (data[offset] !== 0xff) return undefined;
		const marker = data[offset + 1] ?? 0;
		if (marker === 0xff) {
			offset++; // fill byte
			continue;
		}
		// SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
			return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
		}
		offset += 2 + view.getUint16(offset + 2);
	}
	return undefined;
}
