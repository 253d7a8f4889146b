/**
 * The image resizer's worker thread (started by image-resize-thread.ts on the first image): photon's
 * decoding, resizing and encoding take seconds on a large photo, and here they do not stop the main
 * thread's event loop. Plain JavaScript, so Node runs it as it is from the sources (under tsx or
 * vitest); the build bundles it with image-resize-photon.js into dist/image-resize-worker.js.
 *
 * `workerData.photonPath`: the photon-node module to require (the main thread resolved it).
 * Messages in: `{ id, image?: { data, mimeType }, limits }` (no image: only load photon);
 * out: `{ id, outcome }` (an `ImageResizeOutcome`), or `{ id, photonFailure }` when photon-node
 * cannot be loaded.
 */
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { resizeWithPhoton } from "./image-resize-photon.js";

/** @type {typeof import("@silvia-odwyer/photon-node") | undefined} */
let photon;
/** @type {string | undefined} */
let photonFailure;

function loadPhoton() {
	if (photon || photonFailure !== undefined) return photon;
	try {
		photon = createRequire(import.meta.url)(workerData.photonPath);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		photonFailure = `@silvia-odwyer/photon-node could not be loaded: ${message.split("\n")[0]}`;
	}
	return photon;
}

parentPort?.on("message", ({ id, image, limits }) => {
	const codec = loadPhoton();
	if (!codec) parentPort?.postMessage({ id, photonFailure });
	else parentPort?.postMessage({ id, outcome: image ? resizeWithPhoton(codec, image, limits) : undefined });
});
