/** Types of image-resize-photon.js (plain JavaScript, so the resizer's worker thread needs no TypeScript loader). */
import type * as Photon from "@silvia-odwyer/photon-node";
import type { ImageResizeLimits, ImageResizeOutcome } from "./image-resize.js";

/** pi's resizing steps on photon-node; never throws (failures are outcomes, never `unavailable`). */
export function resizeWithPhoton(
	photon: typeof Photon,
	image: { data: string; mimeType?: string },
	limits: ImageResizeLimits,
): Exclude<ImageResizeOutcome, { kind: "unavailable" }>;

/** EXIF orientation (1–8) of a JPEG or WebP; 1 when absent or unreadable. Read like pi reads it. */
export function exifOrientation(bytes: Uint8Array): number;
