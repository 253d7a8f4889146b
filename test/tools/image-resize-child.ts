/**
 * Run in a fresh `node --import tsx` process by image-resize.test.ts: imports Settle, reports whether
 * photon-node is loaded, reads the image at argv[2] with the default read tool, reports again.
 * With `--require image-resize-no-photon.cjs`, photon-node cannot be resolved.
 */
import { createRequire } from "node:module";
import { createReadToolDefinition } from "../../src/index.js";

const photonLoaded = () =>
	Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes("photon-node"));

const loadedAtImport = photonLoaded();
const result = await createReadToolDefinition(process.cwd()).execute(
	"c",
	{ path: process.argv[2]! },
	undefined,
	undefined,
	undefined,
);
const second = await createReadToolDefinition(process.cwd()).execute(
	"c",
	{ path: process.argv[2]! },
	undefined,
	undefined,
	undefined,
);
const summary = (r: typeof result) => ({
	content: r.content.map((c) => (c.type === "text" ? c : { type: c.type, mimeType: c.mimeType, bytes: c.data.length })),
	details: r.details,
});
console.log(
	JSON.stringify({ loadedAtImport, loadedAfterRead: photonLoaded(), first: summary(result), second: summary(second) }),
);
