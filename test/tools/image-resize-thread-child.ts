/**
 * Run in a fresh `node --import tsx` process by image-resize-thread.test.ts: resizes the image at
 * argv[2] in a thread that idles for 10 minutes, prints the outcome and does nothing else. The
 * process must stay alive until the outcome is in, then exit on its own without waiting for the thread.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { ImageResizeThread } from "../../src/tools/image-resize-thread.js";

const photonPath = createRequire(import.meta.url).resolve("@silvia-odwyer/photon-node");
const thread = new ImageResizeThread({ photonPath, idleMs: 600_000 });
const data = readFileSync(process.argv[2]!).toString("base64");
const limits = { maxWidth: 2000, maxHeight: 2000, maxBytes: 4.5 * 1024 * 1024, jpegQuality: 80 };
// No await at the top level: only the worker can keep the process alive until the outcome arrives.
void thread.resize({ data, mimeType: "image/png" }, limits).then((outcome) => {
	const size = outcome.kind === "resized" ? { width: outcome.image.width, height: outcome.image.height } : {};
	console.log(JSON.stringify({ kind: outcome.kind, ...size }));
});
