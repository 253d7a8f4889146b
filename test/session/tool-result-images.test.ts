/**
 * Images in tool results (spec F.4, newer pi's `normalizeToolResultImages`): the images a tool
 * returns, or a `tool_result` handler puts in its place, are fitted to the inline limits (2000×2000
 * pixels, 4.5 MB of base64) before the result is saved and sent, with the read tool's dimension
 * note after each resized one. An image that cannot be resized is kept as the tool made it.
 * Real PNG/JPEG bytes (encoded by photon-node), a live session over a project on disk.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ImageContent, TextContent, ToolResultMessage } from "../../src/llm/types.js";
import { readImageDimensions } from "../../src/tools/image.js";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { type LiveProject, openProject } from "./env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

type Block = TextContent | ImageContent;

const png = (width: number, height: number): ImageContent => ({
	type: "image",
	data: encodeImage("png", width, height, 7, 0).toString("base64"),
	mimeType: "image/png",
});

/** A PNG whose header says 3000×3000 but whose pixel data is cut off: it cannot be decoded. */
function brokenPng(): ImageContent {
	const whole = encodeImage("png", 40, 40);
	const header = Buffer.from(whole.subarray(0, 33));
	header.writeUInt32BE(3000, 16);
	header.writeUInt32BE(3000, 20);
	return {
		type: "image",
		data: Buffer.concat([header, Buffer.from("not a zlib stream")]).toString("base64"),
		mimeType: "image/png",
	};
}

/** An extension with a `snap` tool returning `content` as is. */
function snapTool(content: () => Block[]) {
	return (pi: ExtensionAPI) =>
		pi.registerTool({
			name: "snap",
			label: "Snap",
			description: "Takes a screenshot",
			parameters: Type.Object({}),
			execute: async () => ({ content: content(), details: { shots: 1 } }),
		});
}

function size(block: Block | undefined): string {
	if (block?.type !== "image") return `not an image: ${JSON.stringify(block)?.slice(0, 80)}`;
	const dims = readImageDimensions(Buffer.from(block.data, "base64"), block.mimeType as "image/png");
	return `${block.mimeType} ${dims?.width}x${dims?.height}`;
}

async function runSnap(project: LiveProject): Promise<ToolResultMessage> {
	project.faux.setResponses([
		fauxAssistantMessage([fauxToolCall("snap", {})], { stopReason: "toolUse" }),
		fauxAssistantMessage("seen"),
	]);
	await project.session.prompt("take a screenshot");
	const saved = project.sessionManager
		.getEntries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
	expect(saved).toHaveLength(1);
	return saved[0] as ToolResultMessage;
}

/** The tool result the second model request carried. */
function sentResult(project: LiveProject): Block[] {
	const message = project.faux.requests[1]!.messages.find((m) => m.role === "toolResult") as ToolResultMessage;
	return message.content as Block[];
}

const NOTE_2400 =
	"[Image: original 2400x600, displayed at 2000x500. Multiply coordinates by 1.20 to map to original image.]";

describe("images returned by tools", () => {
	it("an image over 2000 px is resized before it is saved and sent, with the dimension note after it", async () => {
		const big = png(2400, 600);
		const events: Block[][] = [];
		p = await openProject({ extensionFactories: [snapTool(() => [{ type: "text", text: "shot:" }, big])] });
		p.session.subscribe((event) => {
			if (event.type === "tool_execution_end") events.push(event.result.content as Block[]);
		});
		const saved = await runSnap(p);

		expect(saved.content.map((block) => (block.type === "text" ? block.text : size(block)))).toEqual([
			"shot:",
			"image/png 2000x500",
			NOTE_2400,
		]);
		expect(saved.details).toEqual({ shots: 1 });
		expect(sentResult(p)).toEqual(saved.content);
		expect(events).toEqual([saved.content]);
		// The reopened file holds the resized image too.
		const reopened = await p.reopen();
		p = reopened;
		const restored = p.session.messages.find((m) => m.role === "toolResult") as ToolResultMessage;
		expect(size(restored.content[1] as Block)).toBe("image/png 2000x500");
	});

	it("an image within the limits is saved byte for byte, without a note", async () => {
		const small = png(300, 200);
		p = await openProject({ extensionFactories: [snapTool(() => [small])] });
		const saved = await runSnap(p);
		expect(saved.content).toEqual([small]);
	});

	it("an image a tool_result handler puts in the result is normalized too; the handler's other fields stand", async () => {
		const replacing = (pi: ExtensionAPI) =>
			pi.on("tool_result", () => ({
				content: [png(2400, 600)],
				details: { replaced: true },
			}));
		p = await openProject({ extensionFactories: [snapTool(() => [{ type: "text", text: "plain" }]), replacing] });
		const saved = await runSnap(p);
		expect(saved.content.map((block) => (block.type === "text" ? block.text : size(block)))).toEqual([
			"image/png 2000x500",
			NOTE_2400,
		]);
		expect(saved.details).toEqual({ replaced: true });
	});

	it("the handler sees the tool's own image, before normalization", async () => {
		const seen: string[] = [];
		const watcher = (pi: ExtensionAPI) =>
			pi.on("tool_result", (event) => {
				seen.push(...event.content.map((block) => (block.type === "text" ? block.text : size(block))));
			});
		p = await openProject({ extensionFactories: [snapTool(() => [png(2400, 600)]), watcher] });
		const saved = await runSnap(p);
		expect(seen).toEqual(["image/png 2400x600"]);
		expect(size(saved.content[0] as Block)).toBe("image/png 2000x500");
	});

	it("a model without image input: the image is fitted all the same and kept in the session for the next model", async () => {
		p = await openProject({
			faux: { models: [{ id: "text-only", input: ["text"] }] },
			extensionFactories: [snapTool(() => [png(2400, 600)])],
		});
		const saved = await runSnap(p);
		expect(saved.content.map((block) => (block.type === "text" ? block.text : size(block)))).toEqual([
			"image/png 2000x500",
			NOTE_2400,
		]);
	});

	it("an image that cannot be decoded is kept as the tool made it (newer pi: a tool's output is not deleted)", async () => {
		const broken = brokenPng();
		const fine = png(2400, 600);
		p = await openProject({ extensionFactories: [snapTool(() => [broken, fine])] });
		const saved = await runSnap(p);
		expect(saved.content[0]).toEqual(broken);
		expect(saved.content.slice(1).map((block) => (block.type === "text" ? block.text : size(block)))).toEqual([
			"image/png 2000x500",
			NOTE_2400,
		]);
	});

	it("a result without content (an empty result) is saved as an empty one, not an error", async () => {
		const empty = (pi: ExtensionAPI) =>
			pi.registerTool({
				name: "snap",
				label: "Snap",
				description: "Takes nothing",
				parameters: Type.Object({}),
				execute: async () => ({ details: { shots: 0 } }) as never,
			});
		p = await openProject({ extensionFactories: [empty] });
		const saved = await runSnap(p);
		expect(saved).toMatchObject({ content: [], isError: false, details: { shots: 0 } });
	});

	it("images.autoResize false leaves tool images as they are", async () => {
		const big = png(2400, 600);
		p = await openProject({
			agentFiles: { "settings.json": JSON.stringify({ images: { autoResize: false } }) },
			extensionFactories: [snapTool(() => [big])],
		});
		const saved = await runSnap(p);
		expect(saved.content).toEqual([big]);
	});

	it("the read tool's image passes unchanged (already fitted, its own note only)", async () => {
		p = await openProject();
		writeFileSync(join(p.cwd, "photo.png"), encodeImage("png", 2400, 600, 7, 0));
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("read", { path: "photo.png" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("seen"),
		]);
		await p.session.prompt("look at photo.png");
		const saved = p.session.messages.find((m) => m.role === "toolResult") as ToolResultMessage;
		expect(saved.content.map((block) => (block.type === "text" ? block.text : size(block)))).toEqual([
			`Read image file [image/png]\n${NOTE_2400}`,
			"image/png 2000x500",
		]);
	});
});
