/**
 * Images and attachments, replayed from pi's reports (and projects built on it): images tools
 * return, images the read tool reads, through a whole session against a local Anthropic-shaped
 * server that refuses what Anthropic refuses; session files on disk, real PNG bytes.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionFactory } from "../../src/extensions/types.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { startWireSession, type WireSession } from "../llm/wire/session.js";
import { encodeImage } from "../tools/image-resize-helpers.js";

let w: WireSession | undefined;

afterEach(async () => {
	await w?.dispose();
	w = undefined;
});

/** Anthropic's limit on one image: 5 MB of base64 (`image exceeds 5 MB maximum`). */
const ANTHROPIC_IMAGE_BYTES = 5 * 1024 * 1024;

/** The base64 `data` of every image a request carries. */
function sentImageData(request: RecordedRequest): string[] {
	return (JSON.stringify(request.body).match(/"data":"[^"]*"/g) ?? []).map((field) => field.slice(8, -1));
}

/** Anthropic's check: a request with an image over 5 MB of base64 fails as a whole with 400. */
function refuseImagesOver5MB(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
	const big = sentImageData(request).find((data) => data.length > ANTHROPIC_IMAGE_BYTES);
	if (big === undefined) return next();
	return anthropicError(
		400,
		"invalid_request_error",
		`messages.2.content.0.tool_result.content.0.image.source.base64: image exceeds 5 MB maximum: ${big.length} bytes > ${ANTHROPIC_IMAGE_BYTES} bytes`,
	);
}

/** An extension registering tool `name`, which answers `content`. */
function toolAnswering(name: string, content: unknown[]): ExtensionFactory {
	return (pi) => {
		pi.registerTool({
			name,
			label: name,
			description: `the ${name} tool`,
			parameters: { type: "object", properties: {} } as never,
			execute: async () => ({ content: content as never, details: {} }),
		});
	};
}

/** The model calls `tool`, then answers; a second prompt is answered too. Returns the stop reasons. */
async function callToolThenPromptAgain(session: WireSession, tool: string): Promise<string[]> {
	session.server.reply(
		anthropicReply([{ type: "tool_use", id: `toolu_${tool}`, name: tool, input: {} }], { stopReason: "tool_use" }),
		anthropicReply([{ type: "text", text: "I could not see it." }]),
		anthropicReply([{ type: "text", text: "Still here." }]),
	);
	await session.session.prompt(`use ${tool}`);
	await session.session.prompt("and now?");
	return session.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
}

/** The tool results in the session's file, as saved. */
function savedResults(session: WireSession) {
	return session
		.entries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
}

/** A PNG whose header says 1600×1200 followed by 6 MB that is not a zlib stream: it cannot be decoded. */
function undecodableHugePng(): string {
	const whole = encodeImage("png", 40, 40);
	const header = Buffer.from(whole.subarray(0, 33));
	header.writeUInt32BE(1600, 16);
	header.writeUInt32BE(1200, 20);
	return Buffer.concat([header, randomBytes(6 * 1024 * 1024)]).toString("base64");
}

describe("pi#2055: an image over the provider's 5 MB limit in a tool result made every later request fail", () => {
	it("pi#2055: with images.autoResize off, a tool's 8 MB screenshot is left out with a note: this turn and the next prompt are answered", async () => {
		// 1600×1200 of noise: 8.5 MB of base64, within 2000 px, so only its size is over.
		const shot = encodeImage("png", 1600, 1200, 3, 255).toString("base64");
		expect(shot.length).toBeGreaterThan(ANTHROPIC_IMAGE_BYTES);
		w = await startWireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			settings: { images: { autoResize: false } },
			route: refuseImagesOver5MB,
			extensionFactories: [
				toolAnswering("screenshot", [
					{ type: "text", text: "captured" },
					{ type: "image", data: shot, mimeType: "image/png" },
				]),
			],
		});
		const stops = await callToolThenPromptAgain(w, "screenshot");
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		expect(w.server.requests).toHaveLength(3);
		for (const request of w.server.requests) {
			expect(sentImageData(request).every((data) => data.length <= ANTHROPIC_IMAGE_BYTES)).toBe(true);
		}
		const [saved] = savedResults(w);
		expect(saved?.content).toEqual([
			{ type: "text", text: "captured" },
			{
				type: "text",
				text: "[Image omitted: 8.1MB encoded is over the 4.5MB inline image limit and image resizing is off. Make a smaller copy (for example with ImageMagick via bash) and send that instead.]",
			},
		]);
	});

	it("pi#2055: a tool's 8 MB image that cannot be decoded (so not resized) is left out with a note; the session goes on", async () => {
		const data = undecodableHugePng();
		w = await startWireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseImagesOver5MB,
			extensionFactories: [toolAnswering("screenshot", [{ type: "image", data, mimeType: "image/png" }])],
		});
		const stops = await callToolThenPromptAgain(w, "screenshot");
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		const [saved] = savedResults(w);
		expect(saved?.content).toEqual([
			{
				type: "text",
				text: "[Image omitted: 8.0MB encoded is over the 4.5MB inline image limit and it could not be resized (the image data could not be decoded). Make a smaller copy (for example with ImageMagick via bash) and send that instead.]",
			},
		]);
	});
});
