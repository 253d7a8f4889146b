/**
 * pi 0.73.1's image resizing algorithm on `@silvia-odwyer/photon-node`, as plain JavaScript: it runs
 * in the resizer's worker thread (image-resize-worker.js), which Node loads without a TypeScript
 * loader — from the sources (under tsx or vitest) and from the built package alike. Types:
 * image-resize-photon.d.ts. Callers pass photon in, so nothing here loads it.
 */

/** @typedef {typeof import("@silvia-odwyer/photon-node")} Photon */
/** @typedef {import("@silvia-odwyer/photon-node").PhotonImage} PhotonImage */

/** First line of what was thrown (photon's traps carry a Rust backtrace). */
function firstLine(error, fallback) {
	const message = error instanceof Error ? error.message : String(error);
	return message.split("\n")[0] || fallback;
}

/**
 * Fits `image` (base64 `data`) within `maxWidth`×`maxHeight` after its EXIF orientation and under
 * `maxBytes` of base64: unchanged when already within every limit, else resized (Lanczos3), encoded
 * as PNG or JPEG at each quality in turn, shrunk by a quarter per step until one fits. Never throws:
 * failures are outcomes (`undecodable`, `too-large`, `failed`).
 *
 * @param {Photon} photon
 * @param {{ data: string; mimeType?: string }} image
 * @param {{ maxWidth: number; maxHeight: number; maxBytes: number; jpegQuality: number }} options
 */
export function resizeWithPhoton(photon, image, { maxWidth, maxHeight, maxBytes, jpegQuality }) {
	const bytes = new Uint8Array(Buffer.from(image.data, "base64"));
	let source;
	try {
		source = orient(photon, photon.PhotonImage.new_from_byteslice(bytes), exifOrientation(bytes));
	} catch (error) {
		return { kind: "undecodable", reason: firstLine(error, "decode failed") };
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
			const encoded = encodeFirstFitting(photon, source, width, height, qualities, maxBytes);
			if (encoded) return { kind: "resized", image: { ...encoded, ...base, width, height, wasResized: true } };
			const nextWidth = Math.max(1, Math.floor(width * 0.75));
			const nextHeight = Math.max(1, Math.floor(height * 0.75));
			if (nextWidth === width && nextHeight === height) return { kind: "too-large" };
			width = nextWidth;
			height = nextHeight;
		}
	} catch (error) {
		return { kind: "failed", reason: firstLine(error, "resize failed") };
	} finally {
		source.free();
	}
}

/**
 * The first encoding under `maxBytes` of base64: PNG, then JPEG at each quality in turn.
 *
 * @param {Photon} photon
 * @param {PhotonImage} source
 * @param {number} width
 * @param {number} height
 * @param {readonly number[]} qualities
 * @param {number} maxBytes
 * @returns {{ data: string; mimeType: string } | undefined}
 */
function encodeFirstFitting(photon, source, width, height, qualities, maxBytes) {
	const resized = photon.resize(source, width, height, photon.SamplingFilter.Lanczos3);
	try {
		/** @type {[string, () => Uint8Array][]} */
		const encodings = [
			["image/png", () => resized.get_bytes()],
			...qualities.map((quality) => ["image/jpeg", () => resized.get_bytes_jpeg(quality)]),
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

// EXIF orientation -------------------------------------------------------------------------------
// Cameras store pixels as the sensor saw them and the intended rotation in an EXIF tag; the model
// must see the picture upright, and the dimensions (and the resize decision) are those after it.

/**
 * EXIF orientation (1–8) of a JPEG or WebP; 1 when absent or unreadable. Read like pi reads it.
 *
 * @param {Uint8Array} bytes
 * @returns {number}
 */
export function exifOrientation(bytes) {
	const tiff = isJpeg(bytes) ? jpegExifStart(bytes) : isWebp(bytes) ? webpExifStart(bytes) : -1;
	return tiff < 0 ? 1 : tiffOrientation(bytes, tiff);
}

/** @param {Uint8Array} b */
const isJpeg = (b) => b.length >= 2 && b[0] === 0xff && b[1] === 0xd8;
/** @param {Uint8Array} b */
const isWebp = (b) => b.length >= 12 && ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP");

/**
 * @param {Uint8Array} bytes
 * @param {number} offset
 * @param {string} text
 */
function ascii(bytes, offset, text) {
	for (let i = 0; i < text.length; i++) if (bytes[offset + i] !== text.charCodeAt(i)) return false;
	return true;
}

const EXIF_HEADER = "Exif\0\0";

/**
 * Start of the TIFF block in the first APP1 segment, if that segment is EXIF; -1 otherwise.
 *
 * @param {Uint8Array} bytes
 */
function jpegExifStart(bytes) {
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

/**
 * Start of the TIFF block of the first `EXIF` chunk of a WebP; -1 when there is none.
 *
 * @param {Uint8Array} bytes
 */
function webpExifStart(bytes) {
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

/**
 * The orientation tag (0x0112) of IFD0 of the TIFF block at `start`; 1 when missing or out of range.
 *
 * @param {Uint8Array} bytes
 * @param {number} start
 */
function tiffOrientation(bytes, start) {
	if (start + 8 > bytes.length) return 1;
	const little = bytes[start] === 0x49 && bytes[start + 1] === 0x49;
	/** @param {number} at */
	const u16 = (at) =>
		little ? (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) : ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
	/** @param {number} at */
	const u32 = (at) => (little ? u16(at) + u16(at + 2) * 0x10000 : u16(at) * 0x10000 + u16(at + 2));
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

/**
 * `image` turned upright for `orientation` (frees `image` when it returns a new one).
 *
 * @param {Photon} photon
 * @param {PhotonImage} image
 * @param {number} orientation
 * @returns {PhotonImage}
 */
function orient(photon, image, orientation) {
	switch (orientation) {
		case 2:
			photon.fliph(image);
			return image;
		case 3:
			photon.fliph(image);
			photon.flipv(image);
			return image;
		case 4:
			photon.flipv(image);
			return image;
		case 5:
		case 6:
		case 7:
		case 8: {
			const clockwise = orientation === 5 || orientation === 6;
			const rotated = rotateQuarter(photon, image, clockwise);
			image.free();
			if (orientation === 5 || orientation === 7) photon.fliph(rotated);
			return rotated;
		}
		default:
			return image;
	}
}

/**
 * A new image: `image` rotated by 90° clockwise or counter-clockwise.
 *
 * @param {Photon} photon
 * @param {PhotonImage} image
 * @param {boolean} clockwise
 * @returns {PhotonImage}
 */
function rotateQuarter(photon, image, clockwise) {
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
	return new photon.PhotonImage(new Uint8Array(target.buffer), height, width);
}
