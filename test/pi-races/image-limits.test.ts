/**
 * Images against a provider's per-request limits and image types no model takes, replayed from
 * agent harnesses' reports through a whole session against a local Anthropic-shaped server that
 * refuses what Anthropic refuses; session files on disk, real PNG bytes.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionFactory } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { blockImagesAwareConverter, capRequestImages, MAX_REQUEST_IMAGE_BYTES } from "../../src/session/images.js";
import { readImageDimensions } from "../../src/tools/image.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";
import { encodeImage } from "../tools/image-resize-helpers.js";

const wireSession = useWireSession();

/** The base64 `data` of every image a request carries, in order. */
function sentImageData(request: RecordedRequest): string[] {
	return (JSON.stringify(request.body).match(/"data":"[^"]*"/g) ?? []).map((field) => field.slice(8, -1));
}

/** The stop reasons of the session's answers, in order. */
function stops(session: WireSession): string[] {
	return session.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
}

/** The tool results in the session's file, as saved. */
function savedResults(session: WireSession) {
	return session
		.entries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
}

/** A tool `name` whose every call returns the next `perCall` of `shots` as PNG images (a screenshot burst). */
function screenshotTool(name: string, shots: readonly string[], perCall: number): ExtensionFactory {
	let calls = 0;
	return (pi) => {
		pi.registerTool({
			name,
			label: name,
			description: `captures the screen ${perCall} times`,
			parameters: { type: "object", properties: {} } as never,
			execute: async () => {
				const batch = shots.slice(calls * perCall, ++calls * perCall);
				return { content: batch.map((data) => ({ type: "image", data, mimeType: "image/png" })), details: {} };
			},
		});
	};
}

/** Two `screenshots` calls, then `answer`, then "Still here." to the prompt after. */
function twoBurstsThen(w: WireSession, answer: string): void {
	w.server.reply(
		anthropicReply([{ type: "tool_use", id: "toolu_a", name: "screenshots", input: {} }], { stopReason: "tool_use" }),
		anthropicReply([{ type: "tool_use", id: "toolu_b", name: "screenshots", input: {} }], { stopReason: "tool_use" }),
		anthropicReply([{ type: "text", text: answer }]),
		anthropicReply([{ type: "text", text: "Still here." }]),
	);
}

describe("claude-code#24541, opencode#47721: screenshots piled up past the provider's per-request image limit and every later request failed", () => {
	/** Anthropic's check: more than 100 images in one request fails it as a whole with 400. */
	function refuseOver100Images(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
		const count = sentImageData(request).length;
		if (count <= 100) return next();
		return anthropicError(400, "invalid_request_error", `too many images and documents: ${count} + 0 > 100`);
	}

	it("claude-code#24541: two screenshot calls of 60 images each: every request carries the newest 100, the older 20 as notes; the file keeps all 120; the next prompt is answered", async () => {
		// 120 distinct small PNGs (widths 4…123), 60 per call, as a screenshot tool returning a burst.
		const shots = Array.from({ length: 120 }, (_, i) => encodeImage("png", 4 + i, 4).toString("base64"));
		const burst = screenshotTool("screenshots", shots, 60);
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseOver100Images,
			extensionFactories: [burst],
		});
		twoBurstsThen(w, "The animation stutters at frame 90.");
		await w.session.prompt("record the animation");
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["toolUse", "toolUse", "stop", "stop"]);
		expect(w.server.requests).toHaveLength(4);
		const newest = shots.slice(20);
		expect(sentImageData(w.server.requests[2]!)).toEqual(newest);
		expect(sentImageData(w.server.requests[3]!)).toEqual(newest);
		const body = JSON.stringify(w.server.requests[3]!.body);
		expect(
			body.split("[Image omitted: a request carries at most the conversation's newest 100 images").length - 1,
		).toBe(20);
		const saved = savedResults(w).flatMap((result) => result.content);
		expect(saved.filter((block) => block.type === "image")).toHaveLength(120);
	});
});

describe("pi#1936, pi#8351: screenshots piled up past the provider's request size (413), and compacting kept them", () => {
	/** Anthropic's check: a request body over 32 MB is refused as a whole with 413. */
	function refuseOver32MB(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
		if (JSON.stringify(request.body).length <= 32_000_000) return next();
		return anthropicError(413, "request_too_large", "Request exceeds the maximum size");
	}

	it("pi#1936: two screenshot calls of 4 images of ~4 MB each (32 MB of base64): every request carries at most 20 MB of the newest, notes for the older; the file keeps all 8; the turn and the next prompt are answered", async () => {
		// Small PNGs padded to ~4 MB (a screenshot under the 4.5 MB inline limit, which no resize touches).
		const shots = Array.from({ length: 8 }, (_, i) =>
			Buffer.concat([encodeImage("png", 4 + i, 4), Buffer.alloc(3_000_000, i)]).toString("base64"),
		);
		const burst = screenshotTool("screenshots", shots, 4);
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseOver32MB,
			extensionFactories: [burst],
		});
		twoBurstsThen(w, "The layout breaks on the last screen.");
		await w.session.prompt("record the screens");
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["toolUse", "toolUse", "stop", "stop"]);
		expect(w.eventsOf("compaction_start")).toEqual([]);
		expect(w.server.requests).toHaveLength(4);
		// 32 MB is 12 MB over: the oldest go until 12.6 MB (three fifths of the cap) are gone, 4 images.
		const newest = shots.slice(-4);
		expect(sentImageData(w.server.requests[2]!)).toEqual(newest);
		expect(sentImageData(w.server.requests[3]!)).toEqual(newest);
		expect(newest.join("").length).toBeLessThanOrEqual(MAX_REQUEST_IMAGE_BYTES);
		const body = JSON.stringify(w.server.requests[3]!.body);
		expect(body.split("[Image omitted: a request carries at most the newest 20.0MB").length - 1).toBe(4);
		const saved = savedResults(w).flatMap((result) => result.content);
		expect(saved.filter((block) => block.type === "image")).toHaveLength(8);
	});
});

/** A real PNG padded to 180 bytes (240 base64 characters). */
function paddedPng(seed: number): string {
	const png = encodeImage("png", 4, 4, seed + 1);
	return Buffer.concat([png, Buffer.alloc(180 - png.length)]).toString("base64");
}

describe("hermes-agent#113517 by size: past the request's image bytes each new screenshot retired one more cached image", () => {
	it("hermes-agent#113517: 40 turns of one screenshot, a 5000-character cap: past it the oldest are left out a fifth of the cap at a time, so few requests change what an earlier one sent; none carries more than the cap", () => {
		// 240 characters each: 4 make a fifth of the cap.
		const shots = Array.from({ length: 40 }, (_, i) => paddedPng(i));
		const cap = capRequestImages(
			blockImagesAwareConverter(() => false),
			100,
			5000,
		);
		const transcript: AgentMessage[] = [{ role: "user", content: "record the screen", timestamp: 0 }];
		const requests: string[][] = [];
		for (const [i, data] of shots.entries()) {
			transcript.push(
				fauxAssistantMessage([fauxToolCall("screenshot", {}, { id: `call_${i}` })], { stopReason: "toolUse" }),
				{
					role: "toolResult",
					toolCallId: `call_${i}`,
					toolName: "screenshot",
					content: [{ type: "image", data, mimeType: "image/png" }],
					isError: false,
					timestamp: i,
				},
			);
			requests.push(cap(transcript).map((message) => JSON.stringify(message)));
		}
		const sent = (request: string[]) =>
			request
				.join("")
				.match(/"data":"[^"]*"/g)
				?.map((field) => field.slice(8, -1));
		expect(Math.max(...requests.map((request) => sent(request)!.join("").length))).toBeLessThanOrEqual(5000);
		// A request that does not begin with everything the previous one sent is a cache miss.
		const rewrites = requests.flatMap((request, i) =>
			i > 0 && request.slice(0, requests[i - 1]!.length).join("\n") !== requests[i - 1]!.join("\n") ? [i] : [],
		);
		// Over 5000 at the 21st image (index 20): the oldest 5 go (1200 characters, the first 1000 over);
		// then more each time the excess passes the next 1000 (the 26th, 30th, 34th and 38th image).
		expect(rewrites).toEqual([20, 25, 29, 33, 37]);
		expect(sent(requests[39]!)).toEqual(shots.slice(21));
	});
	it("hermes-agent#113517: past both caps, the byte cap counts only the images the count cap leaves: 12 images, at most 10 and 2000 characters, the newest 8 are sent", () => {
		const shots = Array.from({ length: 12 }, (_, i) => paddedPng(i));
		const cap = capRequestImages(
			blockImagesAwareConverter(() => false),
			10,
			2000,
		);
		const transcript: AgentMessage[] = [
			{
				role: "user",
				content: [
					{ type: "text", text: "compare these" },
					...shots.map((data) => ({ type: "image" as const, data, mimeType: "image/png" })),
				],
				timestamp: 0,
			},
		];
		const body = JSON.stringify(cap(transcript));
		// The count cap leaves 10 (2400 characters); 400 over goes with the oldest 2 of them.
		expect(body.match(/"data":"[^"]*"/g)?.map((field) => field.slice(8, -1))).toEqual(shots.slice(4));
	});
});

describe("hermes-agent#113517: past the image limit each new screenshot retired one more cached image, so nearly every request missed the prompt cache", () => {
	/** The request's messages as the provider's cache compares them (breakpoints aside). */
	function cachedMessages(request: RecordedRequest): string[] {
		const messages = request.body.messages as unknown[];
		return messages.map((message) =>
			JSON.stringify(message, (key, value) => (key === "cache_control" ? undefined : value)),
		);
	}

	it("hermes-agent#113517: 32 screenshot calls of 4 images: past 100 the oldest are left out 20 at a time, so only 2 of the 32 requests change what an earlier one sent; none carries more than 100", async () => {
		const shots = Array.from({ length: 128 }, (_, i) => encodeImage("png", 4 + i, 4).toString("base64"));
		const screenshot = screenshotTool("screenshot", shots, 4);
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			extensionFactories: [screenshot],
		});
		for (let i = 0; i < 32; i++) {
			w.server.reply(
				anthropicReply([{ type: "tool_use", id: `toolu_${i}`, name: "screenshot", input: {} }], {
					stopReason: "tool_use",
				}),
			);
		}
		w.server.reply(anthropicReply([{ type: "text", text: "Recorded." }]));
		await w.session.prompt("record the screen");
		expect(stops(w).at(-1)).toBe("stop");
		const requests = w.server.requests;
		expect(requests).toHaveLength(33);
		expect(Math.max(...requests.map((request) => sentImageData(request).length))).toBeLessThanOrEqual(100);
		// A request that does not begin with everything the previous one sent is a cache miss.
		const rewrites = requests.flatMap((request, i) => {
			if (i === 0) return [];
			const before = cachedMessages(requests[i - 1]!);
			return cachedMessages(request).slice(0, before.length).join("\n") === before.join("\n") ? [] : [i];
		});
		// At 104 images (request 26) the oldest 20 go; at 124 (request 31) 20 more.
		expect(rewrites).toEqual([26, 31]);
		expect(sentImageData(requests[30]!)).toEqual(shots.slice(20, 120));
		expect(sentImageData(requests[32]!)).toEqual(shots.slice(40, 128));
		expect(savedResults(w).flatMap((result) => result.content.filter((block) => block.type === "image"))).toHaveLength(
			128,
		);
	});
});

describe("claude-code#49720, microsoft/vscode#297841: with many images in the history, one over 2000 px made every later request fail", () => {
	/** Anthropic's check: in a request with more than 20 images, any image with a side over 2000 px fails it. */
	function refuseLargeInManyImages(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
		const sent = sentImageData(request);
		const large = sent.some((data) => {
			const size = readImageDimensions(Buffer.from(data.slice(0, 64), "base64"), "image/png");
			return size !== undefined && (size.width > 2000 || size.height > 2000);
		});
		if (sent.length <= 20 || !large) return next();
		return anthropicError(
			400,
			"invalid_request_error",
			"messages.5.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels",
		);
	}

	it("claude-code#49720: with images.autoResize off, 20 small screenshots then a 2400 px wide one: the requests carry the 20 and a note for the wide one; the file keeps it; the next prompt is answered", async () => {
		const small = Array.from({ length: 20 }, (_, i) => encodeImage("png", 100 + i, 8).toString("base64"));
		const wide = encodeImage("png", 2400, 8).toString("base64");
		let calls = 0;
		const screenshots: ExtensionFactory = (pi) => {
			pi.registerTool({
				name: "screenshots",
				label: "screenshots",
				description: "captures the screen",
				parameters: { type: "object", properties: {} } as never,
				execute: async () => {
					const batch = calls++ === 0 ? small : [wide];
					return { content: batch.map((data) => ({ type: "image", data, mimeType: "image/png" })), details: {} };
				},
			});
		};
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			settings: { images: { autoResize: false } },
			route: refuseLargeInManyImages,
			extensionFactories: [screenshots],
		});
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_a", name: "screenshots", input: {} }], { stopReason: "tool_use" }),
			anthropicReply([{ type: "tool_use", id: "toolu_b", name: "screenshots", input: {} }], { stopReason: "tool_use" }),
			anthropicReply([{ type: "text", text: "The wide one did not come through." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("capture the pages");
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["toolUse", "toolUse", "stop", "stop"]);
		expect(sentImageData(w.server.requests[1]!)).toEqual(small);
		expect(sentImageData(w.server.requests[2]!)).toEqual(small);
		expect(JSON.stringify(w.server.requests[3]!.body)).toContain(
			"[Image omitted: 2400x8 is over the 2000 px a request with more than 20 images allows. Make a copy at most 2000 px on each side (for example with ImageMagick via bash) to see it.]",
		);
		const saved = savedResults(w).flatMap((result) => result.content);
		expect(saved.at(-1)).toEqual({ type: "image", data: wide, mimeType: "image/png" });
	});
});

describe("gemini-cli#3054, open-webui#30100: an SVG was sent as an image and refused (`Unsupported MIME type: image/svg+xml`)", () => {
	const SVG =
		'<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><circle cx="12" cy="12" r="10" fill="#111"/></svg>\n';

	/** The providers' check: an image of another type than PNG, JPEG, GIF or WebP fails the request. */
	function refuseOtherImageTypes(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
		const types = JSON.stringify(request.body).match(/"media_type":"[^"]*"/g) ?? [];
		const other = types.find((type) => !/image\/(png|jpeg|gif|webp)"$/.test(type));
		if (other === undefined) return next();
		return anthropicError(400, "invalid_request_error", `Unsupported MIME type: ${other.slice(14, -1)}`);
	}

	it("gemini-cli#3054: `read` of logo.svg gives the model its markup as text, no image; this turn and the next prompt are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseOtherImageTypes,
		});
		writeFileSync(join(w.dir, "logo.svg"), SVG);
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_read", name: "read", input: { path: "logo.svg" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "A dark circle; here is its light twin." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("make a light-theme version of logo.svg");
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["toolUse", "stop", "stop"]);
		expect(sentImageData(w.server.requests[1]!)).toEqual([]);
		expect(JSON.stringify(w.server.requests[1]!.body)).toContain(JSON.stringify(SVG).slice(1, -1));
		const [saved] = savedResults(w);
		expect(saved?.content).toEqual([{ type: "text", text: SVG }]);
	});

	it("open-webui#30100: an SVG sent with a prompt as image/svg+xml (SDK images) is left out with a hint in the text; no request carries it; both prompts are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseOtherImageTypes,
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "I got no image, only the note." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		const data = Buffer.from(SVG).toString("base64");
		await w.session.prompt("what is in this image?", { images: [{ type: "image", data, mimeType: "image/svg+xml" }] });
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["stop", "stop"]);
		for (const request of w.server.requests) expect(sentImageData(request)).toEqual([]);
		const [first] = w
			.entries()
			.flatMap((entry) => (entry.type === "message" && entry.message.role === "user" ? [entry.message] : []));
		expect(first?.content).toEqual([
			{
				type: "text",
				text: "what is in this image?\n\n[Image 1 omitted: image/svg+xml is not a supported image type (image/png, image/jpeg, image/gif, image/webp).]",
			},
		]);
	});
});

/** The start of an iPhone photo: its `ftyp` box (brand heic), then a `meta` box and coded data. */
function heicPhoto(): Buffer {
	const ftyp = Buffer.concat([
		Buffer.from([0, 0, 0, 0x18]),
		Buffer.from("ftypheic", "latin1"),
		Buffer.from([0, 0, 0, 0]),
		Buffer.from("mif1heic", "latin1"),
	]);
	const meta = Buffer.concat([Buffer.from([0, 0, 0x0f, 0xf8]), Buffer.from("meta", "latin1"), Buffer.alloc(4088, 7)]);
	return Buffer.concat([ftyp, meta]);
}

describe("claude-plugins-official#2286: an iPhone photo (HEIC) could not be read and the assistant said it could not access the attachment", () => {
	it("claude-plugins-official#2286: `read` of IMG_0412.HEIC tells the model it is a HEIC image and the command that makes a JPEG copy; nothing of it is sent; the next prompt is answered", async () => {
		const w = await wireSession({ api: "anthropic-messages", model: { input: ["text", "image"] } });
		writeFileSync(join(w.dir, "IMG_0412.HEIC"), heicPhoto());
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_read", name: "read", input: { path: "IMG_0412.HEIC" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "I will convert it first." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("what is in the photo IMG_0412.HEIC?");
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["toolUse", "stop", "stop"]);
		const hint =
			"IMG_0412.HEIC is a HEIC image, a format models do not take (only jpg/png/gif/webp), so nothing of it was sent. Convert it to JPEG with bash and read the copy: sips -s format jpeg IMG_0412.HEIC --out IMG_0412.jpg (macOS), magick IMG_0412.HEIC IMG_0412.jpg or heif-convert IMG_0412.HEIC IMG_0412.jpg.";
		const [saved] = savedResults(w);
		expect(saved).toMatchObject({ isError: true, content: [{ type: "text", text: hint }] });
		const sent = JSON.stringify(w.server.requests[1]!.body);
		expect(sent).toContain(JSON.stringify(hint).slice(1, -1));
		expect(sent).not.toContain("ftypheic");
	});
});

describe("VectifyAI/OpenKB#242: a tool's image was put inside a role:tool message, which Chat Completions servers refuse", () => {
	type ChatMessage = { role: string; content: unknown };

	/** Chat Completions' rule, as DashScope/Qwen and LiteLLM enforce it: a tool message's content is text. */
	function refuseImagesInToolMessages(request: RecordedRequest, next: () => ReturnType<typeof chatReply>) {
		const messages = (request.body as { messages: ChatMessage[] }).messages;
		if (messages.every((message) => message.role !== "tool" || typeof message.content === "string")) return next();
		return openAiError(
			400,
			"if content is list. item must be dict and key[type] should in dict",
			"invalid_request_error",
			"invalid_parameter_error",
		);
	}

	it("VectifyAI/OpenKB#242: an extension tool's image reaches an OpenAI-style server as text in the tool message and the image in the user message after it; both prompts are answered", async () => {
		const chart = encodeImage("png", 40, 30).toString("base64");
		const getImage: ExtensionFactory = (pi) => {
			pi.registerTool({
				name: "get_image",
				label: "get_image",
				description: "returns an image of the knowledge base",
				parameters: { type: "object", properties: {} } as never,
				execute: async () => ({
					content: [
						{ type: "text", text: "img_001.png" },
						{ type: "image", data: chart, mimeType: "image/png" },
					],
					details: {},
				}),
			});
		};
		const w = await wireSession({
			api: "openai-completions",
			model: { input: ["text", "image"] },
			route: refuseImagesInToolMessages,
			extensionFactories: [getImage],
		});
		w.server.reply(
			chatReply([{ type: "tool_call", id: "call_img", name: "get_image", arguments: {} }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "A bar chart." }]),
			chatReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("What is shown in this image?");
		await w.session.prompt("and now?");
		expect(stops(w)).toEqual(["toolUse", "stop", "stop"]);
		const messages = (w.server.requests[1]!.body as { messages: ChatMessage[] }).messages;
		const tool = messages.findIndex((message) => message.role === "tool");
		expect(messages[tool]).toMatchObject({ role: "tool", content: "img_001.png" });
		expect(messages[tool + 1]).toMatchObject({
			role: "user",
			content: [
				{ type: "text", text: "Attached image(s) from tool result:" },
				{ type: "image_url", image_url: { url: `data:image/png;base64,${chart}` } },
			],
		});
	});
});
