/**
 * `settle … @image` (a real CLI child process with the faux provider): prompt images are resized
 * like the read tool's, with the same `<file>` text as pi's `processFileArguments`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ImageContent } from "../../src/llm/types.js";
import { UNDECODABLE_IMAGE_NOTE } from "../../src/tools/image-resize.js";
import { useCliProject } from "../cli/helpers.js";
import { encodeImage } from "./image-resize-helpers.js";

type PiProcess = (
	files: string[],
	options?: { autoResizeImages?: boolean },
) => Promise<{ text: string; images: ImageContent[] }>;
const piProcessFileArguments = async (files: string[], options?: { autoResizeImages?: boolean }) => {
	const url = new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/cli/file-processor.js", import.meta.url);
	return ((await import(url.href)) as { processFileArguments: PiProcess }).processFileArguments(files, options);
};

const cli = useCliProject("settle-image-cli-");

/** The content of the user message `settle --faux --json <args>` sent. */
function userContent(args: string[]): unknown {
	const run = cli.settle(["--faux", "--no-session", "--json", ...args]);
	expect(run.code, run.stderr).toBe(0);
	return run.stdout
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } })
		.find((event) => event.type === "message_end" && event.message?.role === "user")?.message?.content;
}

describe("CLI @file images", () => {
	it("a large image is resized and its <file> tag carries the dimension note, as pi", async () => {
		const path = join(cli.project, "wide.png");
		writeFileSync(path, encodeImage("png", 2100, 20, 1, 0));
		const pi = await piProcessFileArguments([path]);
		expect(pi.text).toContain("displayed at 2000x19");
		expect(userContent(["@wide.png", "see?"])).toEqual([
			{ type: "text", text: `${pi.text}see?` },
			...pi.images.map((image) => ({ type: "image", mimeType: image.mimeType, data: image.data })),
		]);
	});

	it("with the images.autoResize setting off, a large image is attached as it is, as pi", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ images: { autoResize: false } }));
		const path = join(cli.project, "wide.png");
		const bytes = encodeImage("png", 2100, 20, 1, 0);
		writeFileSync(path, bytes);
		const pi = await piProcessFileArguments([path], { autoResizeImages: false });
		expect(pi.images.map((image) => image.data)).toEqual([bytes.toString("base64")]);
		expect(userContent(["@wide.png", "see?"])).toEqual([
			{ type: "text", text: `${pi.text}see?` },
			{ type: "image", mimeType: "image/png", data: bytes.toString("base64") },
		]);
	});

	it("an image that cannot be decoded is left out, and the <file> tag says why", () => {
		writeFileSync(join(cli.project, "broken.png"), encodeImage("png", 30, 30).subarray(0, 70));
		expect(userContent(["@broken.png", "see?"])).toEqual([
			{ type: "text", text: `<file name="${join(cli.project, "broken.png")}">${UNDECODABLE_IMAGE_NOTE}</file>\nsee?` },
		]);
	});
});
