/**
 * Image blocks whose data comes in another shape than plain base64 (a data URL, nothing at all), and
 * an image sent with no text, through a whole session against a local Anthropic-shaped server that
 * refuses what Anthropic refuses; session files on disk, real PNG bytes.
 */

import { describe, expect, it } from "vitest";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";
import { decodedSize, encodeImage } from "../tools/image-resize-helpers.js";
import { callToolThenPromptAgain, savedMessages, stopReasons, toolAnswering } from "./tool-turns.js";

const wireSession = useWireSession();

type Block = { type: string; text?: string; data?: string; mimeType?: string; source?: { data?: string } };
type Route = (
	request: RecordedRequest,
	next: () => ReturnType<typeof anthropicReply>,
) => ReturnType<typeof anthropicReply>;

/** Every block of every message a request carries, tool results' content included. */
function requestBlocks(request: RecordedRequest): Block[] {
	const messages = (request.body as { messages?: { content: string | Block[] }[] }).messages ?? [];
	return messages.flatMap((message) =>
		typeof message.content === "string"
			? []
			: message.content.flatMap((block) =>
					block.type === "tool_result" && Array.isArray((block as { content?: unknown }).content)
						? (block as unknown as { content: Block[] }).content
						: [block],
				),
	);
}

/** Anthropic's check of an image's data: standard base64, else 400 `invalid base64 data`. */
const refuseInvalidBase64: Route = (request, next) => {
	const bad = requestBlocks(request).find(
		(block) => block.type === "image" && !/^[A-Za-z0-9+/]+={0,2}$/.test(block.source?.data ?? ""),
	);
	if (!bad) return next();
	return anthropicError(
		400,
		"invalid_request_error",
		"messages.2.content.0.tool_result.content.0.image.source.base64: invalid base64 data",
	);
};

/** Anthropic's check of text blocks: `messages: text content blocks must be non-empty`. */
const refuseEmptyText: Route = (request, next) => {
	const empty = requestBlocks(request).some((block) => block.type === "text" && block.text === "");
	if (!empty) return next();
	return anthropicError(400, "invalid_request_error", "messages: text content blocks must be non-empty");
};

/** The base64 of every image block the last request carried. */
function lastRequestImages(w: WireSession): string[] {
	const last = w.server.requests.at(-1);
	return last ? requestBlocks(last).flatMap((block) => (block.type === "image" ? [block.source?.data ?? ""] : [])) : [];
}

describe("openai-agents-js#722, gyazo-mcp-server#129: an image whose data was a data URL (`data:image/png;base64,…`) was refused as invalid base64", () => {
	it("openai-agents-js#722: a tool's screenshot as a data URL is saved and sent as its plain base64, typed by its bytes; the turn and the next prompt are answered", async () => {
		const shot = encodeImage("png", 64, 48).toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseInvalidBase64,
			extensionFactories: [
				toolAnswering("get_screenshot", [
					{ type: "image", data: `data:image/png;base64,${shot}`, mimeType: "image/png" },
				]),
			],
		});
		expect(await callToolThenPromptAgain(w, "get_screenshot")).toEqual(["toolUse", "stop", "stop"]);
		expect(savedMessages(w, "toolResult")[0]?.content).toEqual([{ type: "image", data: shot, mimeType: "image/png" }]);
		expect(lastRequestImages(w)).toEqual([shot]);
	});

	it("gyazo-mcp-server#129: a prompt's image from a browser's FileReader (a data URL, its type left blank) is saved and sent as plain base64; both prompts are answered", async () => {
		const photo = encodeImage("jpeg", 64, 48).toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseInvalidBase64,
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "A photo." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("what is this?", {
			images: [{ type: "image", data: `data:image/jpeg;base64,${photo}`, mimeType: "" }],
		});
		await w.session.prompt("and now?");
		expect(stopReasons(w)).toEqual(["stop", "stop"]);
		expect(savedMessages(w, "user")[0]?.content).toEqual([
			{ type: "text", text: "what is this?" },
			{ type: "image", data: photo, mimeType: "image/jpeg" },
		]);
		expect(lastRequestImages(w)).toEqual([photo]);
	});
	it("openai-agents-js#722: a prompt's 2400×600 JPEG as a data URL is resized to 2000×500 as a plain one is, with the dimension note", async () => {
		const wide = encodeImage("jpeg", 2400, 600).toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseInvalidBase64,
		});
		w.server.reply(anthropicReply([{ type: "text", text: "A wide screenshot." }]));
		await w.session.prompt("what is this?", {
			images: [{ type: "image", data: `data:image/jpeg;base64,${wide}`, mimeType: "image/jpeg" }],
		});
		expect(stopReasons(w)).toEqual(["stop"]);
		const [text, image] = (savedMessages(w, "user")[0]?.content ?? []) as Block[];
		expect(text?.text).toBe(
			"what is this?\n\n[Image: original 2400x600, displayed at 2000x500. Multiply coordinates by 1.20 to map to original image.]",
		);
		expect(decodedSize(Buffer.from(image?.data ?? "", "base64"))).toEqual({ width: 2000, height: 500 });
	});
});

describe("codex#24169 (PR): a user image given as an empty data URL (`data:image/png;base64,`) poisoned the thread: every later turn and a resume replayed it and were refused", () => {
	it("codex#24169: a prompt's empty data URL image is dropped with a hint in the text, nothing of it saved or sent; both prompts are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseInvalidBase64,
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "No image came." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("what is this?", {
			images: [{ type: "image", data: "data:image/png;base64,", mimeType: "" }],
		});
		await w.session.prompt("and now?");
		expect(stopReasons(w)).toEqual(["stop", "stop"]);
		expect(savedMessages(w, "user")[0]?.content).toEqual([
			{ type: "text", text: "what is this?\n\n[Image 1 omitted: it has no image data.]" },
		]);
		expect(lastRequestImages(w)).toEqual([]);
	});
});

describe("claude-code#56409, claude-code#57245, claude-code#67261: a screenshot sent with no text made every later request fail (empty text block)", () => {
	it("claude-code#56409: an image sent with empty text carries no empty text block; it and the next prompt are answered, the file keeps the image", async () => {
		const shot = encodeImage("png", 64, 48).toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseEmptyText,
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "A screenshot." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("", { images: [{ type: "image", data: shot, mimeType: "image/png" }] });
		await w.session.prompt("hello");
		expect(stopReasons(w)).toEqual(["stop", "stop"]);
		expect(w.server.requests).toHaveLength(2);
		expect(lastRequestImages(w)).toEqual([shot]);
		const [first] = savedMessages(w, "user");
		expect(((first?.content ?? []) as Block[]).filter((block) => block.type === "image")).toEqual([
			{ type: "image", data: shot, mimeType: "image/png" },
		]);
	});
});

describe("argent#261 (claude-code#60334): a screenshot tool answered an image with no data (a 404's empty body); the provider refused it and every later request", () => {
	it("argent#261: a tool's image with empty data is sent as a note, not an image; the turn and the next prompt are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseInvalidBase64,
			extensionFactories: [toolAnswering("get_screenshot", [{ type: "image", data: "", mimeType: "image/png" }])],
		});
		expect(await callToolThenPromptAgain(w, "get_screenshot")).toEqual(["toolUse", "stop", "stop"]);
		expect(lastRequestImages(w)).toEqual([]);
		const [result] = requestBlocks(w.server.requests.at(-1)!).filter((block) => block.type === "tool_result");
		expect(result).toMatchObject({ content: "[Image omitted: it has no image data.]" });
		expect(savedMessages(w, "toolResult")[0]?.content).toEqual([{ type: "image", data: "", mimeType: "image/png" }]);
	});
});
