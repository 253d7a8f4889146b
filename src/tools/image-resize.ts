/**
 * The default image resizer of the `read` tool and of `@file` prompt images, with pi 0.73.1's
 * behavior: at most 2000×2000 pixels and under 4.5 MB of base64, PNG or JPEG (whichever fits first),
 * JPEG quality stepped down, then the size shrunk by a quarter per step. Decoding and encoding use
 * `@silvia-odwyer/photon-node` (Rust compiled to WASM) in a worker thread started on the first
 * resize (image-resize-thread.ts), so a large photo does not stop the event loop for seconds and its
 * WASM memory is given back when the thread stops. Importing Settle loads neither. When photon-node
 * cannot be loaded, callers send images as they are (see {@link imageResizingUnavailable}).
 */
import { createRequire } from "node:module";
import { errorMessage } from "../errors.js";
import type { ImageContent } from "../llm/types.js";
import { ImageResizeThread } from "./image-resize-thread.js";
import type { ResizedImage } from "./read.js";

/** Largest base64 payload sent inline (headroom below the 5 MB limit of common providers). */
export const MAX_INLINE_IMAGE_BYTES = 4.5 * 1024 * 1024;
/** Side length above which images are downsized. */
export const MAX_IMAGE_DIMENSION = 2000;

/** Limits of {@link resizeImage} (pi's `ImageResizeOptions`), and a signal to stop waiting. */
export interface ImageResizeOptions {
	/** Default 2000. */
	maxWidth?: number;
	/** Default 2000. */
	maxHeight?: number;
	/** Base64 size the result must stay under. Default {@link MAX_INLINE_IMAGE_BYTES}. */
	maxBytes?: number;
	/** First JPEG quality tried (then 85, 70, 55, 40). Default 80. */
	jpegQuality?: number;
	/** Stops the resize: the call rejects with `Operation aborted` (SettleError `ABORTED`) at once. */
	signal?: AbortSignal;
}

/** Every limit of {@link ImageResizeOptions}, defaults filled in (what the worker thread gets). */
export type ImageResizeLimits = Required<Omit<ImageResizeOptions, "signal">>;

const PHOTON_PACKAGE = "@silvia-odwyer/photon-node";

/** The process's resizer thread and photon-node's path, or why photon-node cannot be found. */
let resizer: { thread: ImageResizeThread } | { failure: string } | undefined;

/** The resizer thread (not started until it gets a job), created once photon-node is found. */
function defaultResizer(): { thread: ImageResizeThread } | { failure: string } {
	if (resizer) return resizer;
	try {
		// Resolved here, loaded in the thread: a missing package is known without starting one.
		const photonPath = createRequire(import.meta.url).resolve(PHOTON_PACKAGE);
		resizer = { thread: new ImageResizeThread({ photonPath }) };
	} catch (error) {
		resizer = { failure: `${PHOTON_PACKAGE} could not be loaded: ${errorMessage(error).split("\n")[0]}` };
	}
	return resizer;
}

/** The default resizer's thread once an image was resized (tests watch it), else `undefined`. Internal. */
export function defaultImageResizeThread(): ImageResizeThread | undefined {
	return resizer && "thread" in resizer ? resizer.thread : undefined;
}

/**
 * Why the default resizer cannot work in this process (photon-node missing or broken), or
 * `undefined` when it can. Loads photon-node (in the resizer's thread) on the first call. Must not
 * throw.
 *
 * @example
 * ```ts
 * const reason = await imageResizingUnavailable();
 * if (reason) console.warn(`images will be sent unresized: ${reason}`);
 * ```
 */
export async function imageResizingUnavailable(): Promise<string | undefined> {
	const found = defaultResizer();
	return "failure" in found ? found.failure : found.thread.unavailable();
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
	/** photon-node could not be loaded, or the resizer's thread stopped or could not start. */
	| { kind: "unavailable"; reason: string };

/**
 * Fits an image within `maxWidth`×`maxHeight` (after applying its EXIF orientation) and under
 * `maxBytes` of base64, pi's way (same sizes, formats, qualities, so the same result). An image
 * already within every limit comes back unchanged (`wasResized: false`). Otherwise it is resized
 * (Lanczos3) to fit the box, then encoded as PNG, or if that is too big as JPEG at `jpegQuality`,
 * 85, 70, 55, 40; if none fits, width and height shrink to 3/4 and the encodings are tried again,
 * down to 1×1. The work runs in a worker thread; the event loop stays free. Failures are outcomes;
 * it rejects only when `options.signal` fires (`Operation aborted`, and the work is stopped).
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { join } from "node:path";
 *
 * const data = readFileSync(join(cwd, "screenshot.png")).toString("base64");
 * const outcome = await resizeImageDetailed({ data, mimeType: "image/png" }, { signal: AbortSignal.timeout(30_000) });
 * if (outcome.kind === "resized") console.log(`${outcome.image.width}x${outcome.image.height}`);
 * else console.log(`left out: ${outcome.kind}`);
 * ```
 */
export async function resizeImageDetailed(
	image: { data: string; mimeType?: string },
	options: ImageResizeOptions = {},
): Promise<ImageResizeOutcome> {
	const limits: ImageResizeLimits = {
		maxWidth: options.maxWidth ?? MAX_IMAGE_DIMENSION,
		maxHeight: options.maxHeight ?? MAX_IMAGE_DIMENSION,
		maxBytes: options.maxBytes ?? MAX_INLINE_IMAGE_BYTES,
		jpegQuality: options.jpegQuality ?? 80,
	};
	const found = defaultResizer();
	if ("failure" in found) return { kind: "unavailable", reason: found.failure };
	return found.thread.resize({ data: image.data, mimeType: image.mimeType }, limits, options.signal);
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
