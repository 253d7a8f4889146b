/**
 * What a host hands the session's input calls when the types are not there to stop it (plain
 * JavaScript, a request body without the field): `prompt`, `steer`, `followUp` and
 * `sendUserMessage` with a text that is not a string, or images that are not image blocks, and an
 * extension's `pi.sendUserMessage` with such content; a custom message (`sendCustomMessage`,
 * `pi.sendMessage`) whose content is no string or block list. Each is refused with a typed error that
 * says what to pass; nothing is written, and the session answers the next prompt.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionError } from "../../src/extensions/types.js";
import { closeSession, diskRoles, expectSettleError, lastAssistant, openSession, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

/** Values a JavaScript caller can pass where a string belongs. */
const NOT_STRINGS: [string, unknown][] = [
	["a number", 42],
	["undefined", undefined],
	["null", null],
	["an object", { text: "hi" }],
];

describe("input calls given a text that is not a string", () => {
	it.each(NOT_STRINGS)(
		"regression: prompt() with %s rejects with INVALID_ARGUMENT instead of crashing the process and leaving the session in preflight",
		async (_label, value) => {
			const session = await openSession(ws);
			try {
				const error = await session.prompt(value as string).then(
					() => undefined,
					(e: unknown) => e,
				);
				expectSettleError(error, "INVALID_ARGUMENT", "session.prompt", "must be a string");
				expect(session.lifecycle).toBe("idle");
				ws.reply("still here");
				await session.prompt("hello");
				expect(lastAssistant(session).text).toBe("still here");
				expect(diskRoles(session.sessionFile!).filter((role) => role === "user")).toHaveLength(1);
			} finally {
				closeSession(session);
			}
		},
	);

	it.each(NOT_STRINGS)(
		"regression: steer() and followUp() with %s reject with INVALID_ARGUMENT and queue nothing",
		async (_label, value) => {
			const session = await openSession(ws);
			try {
				for (const [name, call] of [
					["session.steer", () => session.steer(value as string)],
					["session.followUp", () => session.followUp(value as string)],
				] as const) {
					const error = await call().then(
						() => undefined,
						(e: unknown) => e,
					);
					expectSettleError(error, "INVALID_ARGUMENT", name, "must be a string");
				}
				expect(session.getSteeringMessages()).toEqual([]);
				expect(session.getFollowUpMessages()).toEqual([]);
			} finally {
				closeSession(session);
			}
		},
	);

	it("prompt() with images that are not image blocks rejects with INVALID_ARGUMENT naming the shape", async () => {
		const session = await openSession(ws);
		try {
			for (const images of ["screenshot.png", [{ type: "image", url: "https://example.invalid/a.png" }]]) {
				const error = await session.prompt("look", { images: images as never }).then(
					() => undefined,
					(e: unknown) => e,
				);
				expectSettleError(error, "INVALID_ARGUMENT", "session.prompt", 'type: "image"');
			}
			expect(session.lifecycle).toBe("idle");
			expect(session.messages).toEqual([]);
		} finally {
			closeSession(session);
		}
	});
});

describe("sendUserMessage given content that is not a string or blocks", () => {
	it.each([...NOT_STRINGS, ["a block without text", [{ type: "text" }]] as [string, unknown]])(
		"regression: session.sendUserMessage() with %s rejects with INVALID_ARGUMENT",
		async (_label, value) => {
			const session = await openSession(ws);
			try {
				const error = await session.sendUserMessage(value as string).then(
					() => undefined,
					(e: unknown) => e,
				);
				expectSettleError(error, "INVALID_ARGUMENT", "session.sendUserMessage", "must be a string or an array");
				expect(session.lifecycle).toBe("idle");
				expect(session.messages).toEqual([]);
			} finally {
				closeSession(session);
			}
		},
	);

	// sendUserMessage([]) was accepted and sent the model a user message with no text at all.
	it("regression: session.sendUserMessage([]) rejects with INVALID_ARGUMENT; nothing is sent or written", async () => {
		const session = await openSession(ws);
		try {
			for (const deliverAs of [undefined, "steer", "followUp"] as const) {
				const error = await session.sendUserMessage([], deliverAs ? { deliverAs } : {}).then(
					() => undefined,
					(e: unknown) => e,
				);
				expectSettleError(error, "INVALID_ARGUMENT", "session.sendUserMessage", "the content is empty");
			}
			expect(ws.faux.callCount).toBe(0);
			expect(session.messages).toEqual([]);
			expect(session.pendingMessageCount).toBe(0);
			ws.reply("answered");
			await session.sendUserMessage([{ type: "text", text: "hello" }]);
			expect(lastAssistant(session).text).toBe("answered");
			expect(diskRoles(session.sessionFile!).filter((role) => role === "user")).toHaveLength(1);
		} finally {
			closeSession(session);
		}
	});

	it("regression: an extension command's pi.sendUserMessage([]) is reported as that extension's error and sends nothing", async () => {
		const errors: ExtensionError[] = [];
		const session = await openSession(ws, {
			extensions: [
				(pi) =>
					pi.registerCommand("nothing", {
						description: "sends an empty block list",
						handler: async () => pi.sendUserMessage([]),
					}),
			],
		});
		try {
			session.extensionRunner.onError((error) => errors.push(error));
			await session.prompt("/nothing");
			await session.waitForExtensionRuns();
			expect(errors.map((error) => error.error)).toEqual([
				expect.stringContaining("pi.sendUserMessage: the content is empty"),
			]);
			expect(ws.faux.callCount).toBe(0);
			expect(session.messages).toEqual([]);
		} finally {
			closeSession(session);
		}
	});

	it("an extension command's pi.sendUserMessage(42) is reported as that extension's error; the next prompt is answered", async () => {
		const errors: ExtensionError[] = [];
		const session = await openSession(ws, {
			extensions: [
				(pi) =>
					pi.registerCommand("broken", {
						description: "sends a number",
						handler: async () => pi.sendUserMessage(42 as unknown as string),
					}),
			],
		});
		try {
			session.extensionRunner.onError((error) => errors.push(error));
			await session.prompt("/broken");
			await session.waitForExtensionRuns();
			expect(errors.map((error) => error.error)).toEqual([expect.stringContaining("pi.sendUserMessage: the content")]);
			ws.reply("answered");
			await session.prompt("hello");
			expect(lastAssistant(session).text).toBe("answered");
		} finally {
			closeSession(session);
		}
	});

	it("regression: an extension's pi.sendMessage with content 42 is refused and reported, not stored to break every later run", async () => {
		const errors: ExtensionError[] = [];
		const session = await openSession(ws, {
			extensions: [
				(pi) =>
					pi.registerCommand("note", {
						description: "sends a custom message with a number as content",
						handler: async () => pi.sendMessage({ customType: "note", content: 42 as never, display: true }),
					}),
			],
		});
		try {
			session.extensionRunner.onError((error) => errors.push(error));
			ws.reply("first");
			await session.prompt("first");
			await session.prompt("/note");
			await session.waitForExtensionRuns();
			expect(errors.map((error) => [error.event, error.error])).toEqual([
				["send_message", expect.stringContaining("pi.sendMessage: the content must be a string or an array")],
			]);
			ws.reply("answered");
			await session.prompt("hello");
			expect(lastAssistant(session).text).toBe("answered");
			expect(diskRoles(session.sessionFile!)).not.toContain("custom_message");
		} finally {
			closeSession(session);
		}
	});

	it.each([
		["content 42", { customType: "note", content: 42, display: true }, "the content must be a string or an array"],
		["a number as the message", 42, "the message must be an object"],
	])(
		"regression: session.sendCustomMessage with %s rejects with INVALID_ARGUMENT and stores nothing",
		async (_label, message, mention) => {
			const session = await openSession(ws);
			try {
				const error = await session.sendCustomMessage(message as never).then(
					() => undefined,
					(e: unknown) => e,
				);
				expectSettleError(error, "INVALID_ARGUMENT", "session.sendCustomMessage", mention, "Nothing was sent");
				expect(session.messages).toEqual([]);
				ws.reply("answered");
				await session.prompt("hello");
				expect(lastAssistant(session).text).toBe("answered");
			} finally {
				closeSession(session);
			}
		},
	);

	it("an extension's pi.sendMessage with string or block content reports nothing", async () => {
		const errors: ExtensionError[] = [];
		const session = await openSession(ws, {
			extensions: [
				(pi) =>
					pi.registerCommand("note", {
						description: "sends two well-formed custom messages",
						handler: async () => {
							pi.sendMessage({ customType: "note", content: "plain", display: true });
							pi.sendMessage({ customType: "note", content: [{ type: "text", text: "block" }], display: false });
						},
					}),
			],
		});
		try {
			session.extensionRunner.onError((error) => errors.push(error));
			await session.prompt("/note");
			await session.waitForExtensionRuns();
			expect(errors).toEqual([]);
			expect(session.messages.filter((message) => message.role === "custom")).toHaveLength(2);
		} finally {
			closeSession(session);
		}
	});
});
