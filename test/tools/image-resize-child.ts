/**
 * Run in a fresh `node --import tsx` process by image-resize.test.ts: imports Settle, reports whether
 * photon-node is loaded in this (the main) thread, reads the image at argv[2] with the default read
 * tool twice, prepares it for a prompt, reports again. With `--require image-resize-no-photon.cjs`,
 * photon-node cannot be resolved; with `--require image-resize-broken-photon.cjs`, it resolves to a
 * copy that fails to load.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createReadToolDefinition, prepareImageForPrompt } from "../../src/index.js";

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
const prompt = await prepareImageForPrompt(readFileSync(process.argv[2]!).toString("base64"), "image/png");
const promptSummary = { note: prompt.note, mimeType: prompt.image?.mimeType, bytes: prompt.image?.data.length };
const report = { first: summary(result), second: summary(second), prompt: promptSummary };
console.log(JSON.stringify({ loadedAtImport, loadedAfterRead: photonLoaded(), ...report }));
