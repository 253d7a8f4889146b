/**
 * Images whose file name says another format than their bytes, read by a model in a real session.
 * claude-code#15646: JPEGs saved by an image generator as `.png` went out declared `image/png`: the
 * API refused every later request ("Image does not match the provided media type image/png") and
 * the conversation was dead. llxprt-code#2130: the same with a PNG declared `image/jpeg`.
 * claude-code#43795: a favicon saved as `.png` that is an ICO went out as `image/png`, with the same
 * unrecoverable 400.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const images = join(import.meta.dirname, "../fixtures/tools/images");
/** A 4x3 JPEG photo, as an image generator saves one. */
const jpeg = encodeImage("jpeg", 4, 3);
const png = readFileSync(join(images, "red-3x2.png"));

/** A real ICO holding one 3x2 PNG (as favicons are saved today): header, one directory entry, the PNG. */
const ico = Buffer.concat([
	Buffer.from([0, 0, 1, 0, 1, 0]),
	Buffer.from([3, 2, 0, 0, 1, 0, 32, 0]),
	Buffer.from(Uint32Array.of(png.length).buffer),
	Buffer.from(Uint32Array.of(22).buffer),
	png,
]);

/** The model reads each path in one answer, then says "done"; `files` are laid out in the cwd first. */
async function modelReads(files: Record<string, Buffer>, paths: string[]): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
	for (const [name, content] of Object.entries(files)) writeFileSync(join(harness.tempDir, name), content);
	script(harness, [
		fauxAssistantMessage(
			paths.map((path) => fauxToolCall("read", { path })),
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("look at these");
	return harness;
}

/** The tool results of the second request, as the provider received them: error flag, text, image types. */
function sentResults(harness: Harness): { isError: boolean; text: string; images: string[] }[] {
	const request = harness.faux.requests[1];
	return (request?.messages ?? []).flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						isError: message.isError,
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
						images: message.content.flatMap((block) => (block.type === "image" ? [block.mimeType] : [])),
					},
				]
			: [],
	);
}

describe("claude-code#15646, llxprt-code#2130: an image whose extension names another format", () => {
	it("claude-code#15646: a JPEG saved as .png goes out as image/jpeg, a PNG saved as .jpg as image/png, and the session answers", async () => {
		h = await modelReads({ "piercing-industrial.png": jpeg, "diagram.jpg": png }, [
			"piercing-industrial.png",
			"diagram.jpg",
		]);
		const [first, second] = sentResults(h);
		expect(first).toMatchObject({ isError: false, images: ["image/jpeg"] });
		expect(first?.text).toContain("Read image file [image/jpeg]");
		expect(second).toMatchObject({ isError: false, images: ["image/png"] });
		expect(second?.text).toContain("Read image file [image/png]");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});
});

describe("claude-code#43795: an ICO favicon saved as .png", () => {
	it("claude-code#43795: nothing of it is sent as an image; the model is told it is an ICO and how to convert it, and the session answers", async () => {
		h = await modelReads({ "favicon.png": ico }, ["favicon.png"]);
		expect(sentResults(h)).toEqual([
			{
				isError: true,
				text: "favicon.png is an ICO image, a format models do not take (only jpg/png/gif/webp), so nothing of it was sent. Convert it to JPEG with bash and read the copy: sips -s format jpeg favicon.png --out favicon.jpg (macOS), magick favicon.png favicon.jpg.",
				images: [],
			},
		]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});
});
