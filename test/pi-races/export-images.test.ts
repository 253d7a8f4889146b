/**
 * element-web#22059, element-web#23309: an exported chat history showed every message but its
 * images: blank squares, or the images only as separate files beside the page, out of context.
 *
 * Replayed against Settle: a real `settle -p` whose model, a local server speaking OpenAI's chat
 * completions, reads a PNG of the project with the `read` tool; `settle --export` writes one page,
 * opened in real headless Chromium from file:// (its policy allows data: images only). What the user
 * should see: the screenshot drawn in the tool's result, at its size, from the page alone.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { onExportedPage } from "../inspect/chromium.js";
import { chatReply } from "../llm/wire/openai.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { useExportReplay } from "./exported-page.js";

const { cli, serve, printAndExport } = useExportReplay("settle-export-images-");

describe("element-web#22059, element-web#23309: images on the exported page", () => {
	it("element-web#22059: a PNG the model read is drawn in the tool's result on the page, at its size, with nothing beside the page", async () => {
		const server = await serve({ models: [{ id: "coder", input: ["text", "image"] }] });
		writeFileSync(join(cli.project, "screen.png"), encodeImage("png", 120, 80));
		server.reply(
			chatReply([{ type: "tool_call", id: "call_read", name: "read", arguments: { path: "screen.png" } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "A screenshot." }]),
		);
		const page = await printAndExport("what is on screen.png?");
		const images = await onExportedPage(page, (tab) =>
			// decode() waits for the image, and fails on one the page cannot draw.
			tab.locator("#entries .tool img.attachment").evaluateAll((found) =>
				Promise.all(
					found.map(async (img) => {
						const image = img as unknown as { decode(): Promise<void>; naturalWidth: number; naturalHeight: number };
						await image.decode();
						return { width: image.naturalWidth, height: image.naturalHeight };
					}),
				),
			),
		);
		expect(images).toEqual([{ width: 120, height: 80 }]);
		expect(readdirSync(cli.project).sort()).toEqual(["page.html", "screen.png"]);
	}, 60_000);
});
