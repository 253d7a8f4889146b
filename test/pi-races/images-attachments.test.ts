/**
 * Images and attachments, replayed from pi's reports (and projects built on it): images tools
 * return, images the read tool reads, through a whole session against a local Anthropic-shaped
 * server that refuses what Anthropic refuses; session files on disk, real PNG bytes.
 */

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as Photon from "@silvia-odwyer/photon-node";
import { describe, expect, it } from "vitest";
import { detectImageMimeType, readImageDimensions } from "../../src/tools/image.js";
import { cliCommand, trackChild, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, useWireServer } from "../llm/wire/server.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";
import { decodedSize, encodeImage } from "../tools/image-resize-helpers.js";
import { callToolThenPromptAgain, savedMessages, toolAnswering } from "./tool-turns.js";

const photon = createRequire(import.meta.url)("@silvia-odwyer/photon-node") as typeof Photon;

/** A guard against a hang only (each run takes a few seconds): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

const wireSession = useWireSession();

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

type SavedBlock = { type: string; text?: string; data?: string; mimeType?: string };

/**
 * A vision session behind `route` (a local Anthropic-shaped server refusing what Anthropic refuses):
 * `text` sent with `image`, then "and now?". The answers' stop reasons, and the first user message as
 * the session file holds it.
 */
async function promptImageThenAgain(
	route: typeof refuseImagesOver5MB,
	text: string,
	image: { data: string; mimeType: string },
): Promise<{ stops: string[]; firstUser: SavedBlock[]; w: WireSession }> {
	const w = await wireSession({ api: "anthropic-messages", model: { input: ["text", "image"] }, route });
	w.server.reply(
		anthropicReply([{ type: "text", text: "An image." }]),
		anthropicReply([{ type: "text", text: "Still here." }]),
	);
	await w.session.prompt(text, { images: [{ type: "image", ...image }] });
	await w.session.prompt("and now?");
	const stops = w.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
	const [first] = w
		.entries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role === "user" ? [entry.message] : []));
	return { stops, firstUser: (first?.content ?? []) as SavedBlock[], w };
}

/**
 * 1600×1200 of noise as a PNG: 6.4 MB on disk, 8.5 MB of base64, within 2000 px. Encoded once for the
 * file's three tests that send or read it (photon takes ~0.6 s of CPU for it); no test writes into it.
 */
let noisyShotBytes: Buffer | undefined;
function noisyShot(): Buffer {
	noisyShotBytes ??= encodeImage("png", 1600, 1200, 3, 255);
	return noisyShotBytes;
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
		const shot = noisyShot().toString("base64");
		expect(shot.length).toBeGreaterThan(ANTHROPIC_IMAGE_BYTES);
		const w = await wireSession({
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
		const [saved] = savedMessages(w, "toolResult");
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
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseImagesOver5MB,
			extensionFactories: [toolAnswering("screenshot", [{ type: "image", data, mimeType: "image/png" }])],
		});
		const stops = await callToolThenPromptAgain(w, "screenshot");
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		const [saved] = savedMessages(w, "toolResult");
		expect(saved?.content).toEqual([
			{
				type: "text",
				text: "[Image omitted: 8.0MB encoded is over the 4.5MB inline image limit and it could not be resized (the image data could not be decoded). Make a smaller copy (for example with ImageMagick via bash) and send that instead.]",
			},
		]);
	});
});

describe("pi#224: reading an image over 5 MB left the session unrecoverable: no answer, no resume, no compaction", () => {
	it("pi#224: read of an 8 MB screenshot sends a copy under the limit; compact() and the next prompt are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			// Summarization requests (compaction) get a summary; the others the queue, unless refused.
			route: (request, next) =>
				String((request.body as { system?: { text?: string }[] }).system?.[0]?.text ?? "").startsWith(
					"You are a context summarization assistant",
				)
					? refuseImagesOver5MB(request, () => anthropicReply([{ type: "text", text: "## Goal\nLook at photo.png" }]))
					: refuseImagesOver5MB(request, next),
			// Keep only the latest turn; compaction stays manual.
			settings: { compaction: { enabled: false, keepRecentTokens: 1 } },
		});
		// 1600×1200 of noise: 6.4 MB on disk, 8.5 MB of base64.
		writeFileSync(join(w.dir, "photo.png"), noisyShot());
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_read", name: "read", input: { path: "photo.png" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "A noisy photo." }]),
			anthropicReply([{ type: "text", text: "Grey, mostly." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("look at photo.png");
		const sent = sentImageData(w.server.requests[1]!);
		expect(sent).toHaveLength(1);
		expect(sent[0]!.length).toBeLessThan(ANTHROPIC_IMAGE_BYTES);
		await w.session.prompt("what colour is it?");
		await w.session.compact();
		await w.session.prompt("and now?");
		expect(w.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(
			w.server.requests.every((request) => sentImageData(request).every((data) => data.length < ANTHROPIC_IMAGE_BYTES)),
		).toBe(true);
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});
});

/** Anthropic's check of image sides: any image with a side over 8000 pixels fails the request with 400. */
function refuseSidesOver8000(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
	const tall = sentImageData(request).some((data) => {
		const size = readImageDimensions(Buffer.from(data.slice(0, 4096), "base64"), "image/png");
		return size !== undefined && (size.width > 8000 || size.height > 8000);
	});
	if (!tall) return next();
	return anthropicError(
		400,
		"invalid_request_error",
		"messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels",
	);
}

/**
 * A 1440×8570 PNG of one light colour with a dark band at the top: tall, yet a few KB. Encoded once
 * for the file's three tests (photon takes ~1.5 s of CPU for it); the base64 string is immutable.
 */
let pageCapture: string | undefined;
function pagePng(): string {
	pageCapture ??= encodePage(1440, 8570);
	return pageCapture;
}

function encodePage(width: number, height: number): string {
	const rgba = new Uint8Array(width * height * 4).fill(240);
	rgba.fill(20, 0, width * 40 * 4);
	const image = new photon.PhotonImage(rgba, width, height);
	try {
		return Buffer.from(image.get_bytes()).toString("base64");
	} finally {
		image.free();
	}
}

describe("oh-my-pi#10633: a full-page screenshot taller than 8000 px was sent raw and every later request was refused", () => {
	it("oh-my-pi#10633: a tool's 1440×8570 capture is resized to fit 2000 px before it is saved; the turn and the next prompt are answered", async () => {
		const capture = pagePng();
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseSidesOver8000,
			extensionFactories: [toolAnswering("screenshot", [{ type: "image", data: capture, mimeType: "image/png" }])],
		});
		const stops = await callToolThenPromptAgain(w, "screenshot");
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		const [saved] = savedMessages(w, "toolResult");
		const image = saved?.content[0];
		expect(image?.type).toBe("image");
		const size = image?.type === "image" ? decodedSize(Buffer.from(image.data, "base64")) : undefined;
		expect(size).toEqual({ width: 336, height: 2000 });
	});

	it("oh-my-pi#10633: the same capture sent with a prompt (SDK images) is fitted too; this prompt and the next are answered", async () => {
		const { stops, firstUser: content } = await promptImageThenAgain(refuseSidesOver8000, "what is on this page?", {
			data: pagePng(),
			mimeType: "image/png",
		});
		expect(stops).toEqual(["stop", "stop"]);
		// The file holds the fitted copy and the note mapping coordinates back to the page.
		expect(content[0]?.text).toBe(
			"what is on this page?\n\n[Image: original 1440x8570, displayed at 336x2000. Multiply coordinates by 4.29 to map to original image.]",
		);
		expect(decodedSize(Buffer.from(content[1]?.data ?? "", "base64"))).toEqual({ width: 336, height: 2000 });
	});
});

/** `settle --model local/coder <args>` as a child process (the test's server answers meanwhile): its exit code and stdout. */
async function settle(cwd: string, agentDir: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
	const child = spawn(process.execPath, [...cliCommand(), "--model", "local/coder", ...args], {
		cwd,
		env: { ...process.env, SETTLE_AGENT_DIR: agentDir },
		stdio: ["ignore", "pipe", "pipe"],
	});
	const closed = trackChild(child);
	const guard = setTimeout(() => child.kill("SIGKILL"), HANG_GUARD_MS);
	let stdout = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
	});
	child.stderr.resume();
	const code = await closed.finally(() => clearTimeout(guard));
	return { code, stdout };
}

describe("pi#9590: resuming a session with several multi-MB image tool results sent one image's base64 cut short", () => {
	const cli = useCliProject("settle-pi-races-images-resume-");
	const server = useWireServer();

	/** The base64 of every `data:image/png` URL an OpenAI chat request carries, in order. */
	const dataUrls = (body: unknown): string[] =>
		[...JSON.stringify(body).matchAll(/data:image\/png;base64,([^"]*)"/g)].map((match) => match[1] ?? "");

	it("pi#9590: settle -p reads four ~2.8 MB screenshots; a fresh settle process resumes the file: its request carries the four images byte for byte", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", input: ["text", "image"] }] });
		const names = ["a", "b", "c", "d"].map((name) => `shot-${name}.png`);
		// 1000×700 of noise: 2.8 MB of base64 each, within every limit, so read sends each file as it is.
		const shots = names.map((name, i) => {
			const bytes = encodeImage("png", 1000, 700, 11 + i, 255);
			writeFileSync(join(cli.project, name), bytes);
			return bytes.toString("base64");
		});
		const sessionFile = join(cli.project, "shots.jsonl");
		server.reply(
			chatReply(
				names.map((path, i) => ({ type: "tool_call" as const, id: `call_${i}`, name: "read", arguments: { path } })),
				{ finishReason: "tool_calls" },
			),
			chatReply([{ type: "text", text: "Four screenshots." }]),
			chatReply([{ type: "text", text: "Still four." }]),
		);
		const first = await settle(cli.project, cli.agentDir, ["--session", sessionFile, "-p", "look at the screenshots"]);
		expect({ code: first.code, stdout: first.stdout }).toEqual({ code: 0, stdout: "Four screenshots.\n" });
		expect(dataUrls(server.requests[1]?.body)).toEqual(shots);
		const resumed = await settle(cli.project, cli.agentDir, ["--session", sessionFile, "-p", "and now?"]);
		expect({ code: resumed.code, stdout: resumed.stdout }).toEqual({ code: 0, stdout: "Still four.\n" });
		expect(server.requests).toHaveLength(3);
		expect(dataUrls(server.requests[2]?.body)).toEqual(shots);
	});
});

/** Anthropic's check: an image whose bytes are of another type than its `media_type` fails the request. */
function refuseMislabelled(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
	const images = (JSON.stringify(request.body).match(/"media_type":"[^"]*","data":"[^"]*"/g) ?? []).map((field) => {
		const [, type, data] = /"media_type":"([^"]*)","data":"([^"]*)"/.exec(field) ?? [];
		return { type, actual: detectImageMimeType(Buffer.from((data ?? "").slice(0, 24), "base64")) };
	});
	const wrong = images.find((image) => image.actual !== undefined && image.actual !== image.type);
	if (wrong === undefined) return next();
	return anthropicError(
		400,
		"invalid_request_error",
		`messages.2.content.0.tool_result.content.0.image.source.base64.data: Image does not match the provided media type ${wrong.type}`,
	);
}

describe("claude-code#12009: an MCP screenshot labelled image/jpeg that was a PNG made every later request fail", () => {
	it("claude-code#12009: a tool's PNG labelled image/jpeg is saved and sent as image/png, its bytes untouched; the turn and the next prompt are answered", async () => {
		const shot = encodeImage("png", 64, 48).toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseMislabelled,
			extensionFactories: [toolAnswering("get_screenshot", [{ type: "image", data: shot, mimeType: "image/jpeg" }])],
		});
		const stops = await callToolThenPromptAgain(w, "get_screenshot");
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		const [saved] = savedMessages(w, "toolResult");
		expect(saved?.content).toEqual([{ type: "image", data: shot, mimeType: "image/png" }]);
	});

	it("claude-code#12009: the same PNG labelled image/jpeg sent with a prompt (SDK images) is saved and sent as image/png; both prompts are answered", async () => {
		const shot = encodeImage("png", 64, 48).toString("base64");
		const { stops, firstUser } = await promptImageThenAgain(refuseMislabelled, "what is this?", {
			data: shot,
			mimeType: "image/jpeg",
		});
		expect(stops).toEqual(["stop", "stop"]);
		expect(firstUser).toEqual([
			{ type: "text", text: "what is this?" },
			{ type: "image", data: shot, mimeType: "image/png" },
		]);
	});
});

describe("images sent with steer / follow-up skipped the prompt's image checks, so the provider refused the run", () => {
	it("a steer with a 1440×8570 capture is resized, a follow-up's PNG labelled image/jpeg relabelled; a plain steer sent later stays second; every request is answered", async () => {
		const capture = pagePng();
		const shot = encodeImage("png", 64, 48).toString("base64");
		const steerAll = async (): Promise<void> => {
			const session = w.session;
			// Not awaited one by one: the plain steer is sent while the capture is being resized.
			await Promise.all([
				session.steer("look at this page", [{ type: "image", data: capture, mimeType: "image/png" }]),
				session.steer("then stop"),
				session.followUp("and this one?", [{ type: "image", data: shot, mimeType: "image/jpeg" }]),
			]);
		};
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: (request, next) => refuseSidesOver8000(request, () => refuseMislabelled(request, next)),
			extensionFactories: [
				(pi) => {
					pi.registerTool({
						name: "wait",
						label: "wait",
						description: "the wait tool",
						parameters: { type: "object", properties: {} } as never,
						execute: async () => {
							await steerAll();
							return { content: [{ type: "text", text: "waited" }], details: {} };
						},
					});
				},
			],
		});
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_wait", name: "wait", input: {} }], { stopReason: "tool_use" }),
			anthropicReply([{ type: "text", text: "A long page." }]),
			anthropicReply([{ type: "text", text: "Stopping." }]),
			anthropicReply([{ type: "text", text: "A screenshot." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("use wait");
		await w.session.prompt("and now?");
		const stops = w.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
		expect(stops).toEqual(["toolUse", "stop", "stop", "stop", "stop"]);
		const users = w
			.entries()
			.flatMap((entry) => (entry.type === "message" && entry.message.role === "user" ? [entry.message] : []))
			.map((message) => message.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>);
		expect(users.map((content) => content[0]?.text)).toEqual([
			"use wait",
			"look at this page\n\n[Image: original 1440x8570, displayed at 336x2000. Multiply coordinates by 4.29 to map to original image.]",
			"then stop",
			"and this one?",
			"and now?",
		]);
		expect(decodedSize(Buffer.from(users[1]?.[1]?.data ?? "", "base64"))).toEqual({ width: 336, height: 2000 });
		expect(users[3]?.[1]).toEqual({ type: "image", data: shot, mimeType: "image/png" });
	});
});

describe("a prompt image over the 4.5 MB inline limit was dropped with a hint, while @file and tool images were resized", () => {
	it("an 8 MB screenshot sent with a prompt (SDK images) is resized under the limit and sent; no hint; both prompts are answered", async () => {
		// 1600×1200 of noise: 8.5 MB of base64, within 2000 px, so only its size is over.
		const shot = noisyShot().toString("base64");
		const {
			stops,
			firstUser: content,
			w,
		} = await promptImageThenAgain(refuseImagesOver5MB, "what is this?", {
			data: shot,
			mimeType: "image/png",
		});
		expect(stops).toEqual(["stop", "stop"]);
		const sent = sentImageData(w.server.requests[0]!);
		expect(sent).toHaveLength(1);
		expect(sent[0]!.length).toBeLessThan(ANTHROPIC_IMAGE_BYTES);
		expect(content[0]?.text).not.toContain("omitted");
		expect(content[1]?.type).toBe("image");
		expect(content[1]?.data).toBe(sent[0]);
	});
});

/** A server's 404 answer, as `curl -s -o shot.png` saves it from a wrong URL. */
const NOT_FOUND_BODY = '{"error":"Not Found","status":404}\n';

/** Anthropic's check: data whose bytes are no PNG, JPEG, GIF or WebP fails the request as a whole. */
function refuseNonImages(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
	const bad = sentImageData(request).find(
		(data) => detectImageMimeType(Buffer.from(data.slice(0, 24), "base64")) === undefined,
	);
	if (bad === undefined) return next();
	return anthropicError(400, "invalid_request_error", "Could not process image");
}

describe("opencode#48476, cc-haha#907: a .png holding a server's JSON error went out as image/png and every later request was refused", () => {
	it("opencode#48476: `read` of shot.png holding a 404 JSON body gives the model the JSON as text, no image; both prompts are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseNonImages,
		});
		writeFileSync(join(w.dir, "shot.png"), NOT_FOUND_BODY);
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_read", name: "read", input: { path: "shot.png" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "The download failed." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("look at shot.png");
		await w.session.prompt("and now?");
		const stops = w.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		expect(sentImageData(w.server.requests[1]!)).toEqual([]);
		const [saved] = savedMessages(w, "toolResult");
		expect(saved?.content).toEqual([{ type: "text", text: NOT_FOUND_BODY }]);
	});

	it("cc-haha#907: an extension tool's image/png block holding the JSON is sent as a note in its place; both prompts are answered; the file keeps the block", async () => {
		const json = Buffer.from(NOT_FOUND_BODY).toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseNonImages,
			extensionFactories: [toolAnswering("get_screenshot", [{ type: "image", data: json, mimeType: "image/png" }])],
		});
		const stops = await callToolThenPromptAgain(w, "get_screenshot");
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		expect(JSON.stringify(w.server.requests[2]!.body)).toContain(
			"[Image omitted: its data is not a PNG, JPEG, GIF or WebP image",
		);
		const [saved] = savedMessages(w, "toolResult");
		expect(saved?.content).toEqual([{ type: "image", data: json, mimeType: "image/png" }]);
	});

	it("cc-haha#907: the JSON sent as a prompt's image/png (SDK images) is left out with a hint in the prompt's text; the file holds no image; both prompts are answered", async () => {
		const json = Buffer.from(NOT_FOUND_BODY).toString("base64");
		const { stops, firstUser } = await promptImageThenAgain(refuseNonImages, "what is this?", {
			data: json,
			mimeType: "image/png",
		});
		expect(stops).toEqual(["stop", "stop"]);
		expect(firstUser).toEqual([
			{
				type: "text",
				text: "what is this?\n\n[Image 1 omitted: its data is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise); check the file or URL it came from.]",
			},
		]);
	});
});

/** Anthropic's check, as far as a PNG cut short goes: one without its IEND trailer cannot be processed. */
function refuseTruncatedPngs(request: RecordedRequest, next: () => ReturnType<typeof anthropicReply>) {
	const iend = Buffer.from("0000000049454e44ae426082", "hex");
	const cut = sentImageData(request).find((data) => !Buffer.from(data, "base64").subarray(-12).equals(iend));
	if (cut === undefined) return next();
	return anthropicError(400, "invalid_request_error", "Could not process image");
}

describe("claude-code#56016: a malformed small PNG read with the Read tool was refused, and every later turn with it", () => {
	it("claude-code#56016: `read` of a 64×48 PNG cut short after its header gives the model a note, no image; both prompts are answered", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: refuseTruncatedPngs,
		});
		const whole = encodeImage("png", 64, 48);
		writeFileSync(join(w.dir, "thumb.png"), whole.subarray(0, Math.floor(whole.length * 0.6)));
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_read", name: "read", input: { path: "thumb.png" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "The thumbnail is broken." }]),
			anthropicReply([{ type: "text", text: "Still here." }]),
		);
		await w.session.prompt("look at thumb.png");
		await w.session.prompt("and now?");
		const stops = w.session.messages.flatMap((message) => (message.role === "assistant" ? [message.stopReason] : []));
		expect(stops).toEqual(["toolUse", "stop", "stop"]);
		expect(sentImageData(w.server.requests[2]!)).toEqual([]);
		const [saved] = savedMessages(w, "toolResult");
		expect(saved?.content).toEqual([
			{
				type: "text",
				text: "Read image file [image/png]\n[Image omitted: the image data could not be decoded (the file may be corrupt or truncated, or use a variant the decoder does not read).]",
			},
		]);
	});
});
