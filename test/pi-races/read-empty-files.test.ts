/**
 * pi#4884: a model reading an empty file (a new `new-file.txt` saved with nothing in it) told the
 * user it "currently contains: (see attached image)". pi's `read` returned empty text, and pi-ai
 * sends a tool result without text to a Chat Completions (or Responses) model as that placeholder:
 * the model took the empty file for an image.
 *
 * Replayed against Settle: a real session whose model, a local server speaking OpenAI's chat
 * completions, reads an empty file of the project. What the user should see: the model told the
 * file is empty, in words, whatever offset it asks for; a file with text still reads as before.
 *
 * Zoo-Code#1728: the converse. A `read_file` with an offset past the end of a file that had been
 * shortened said "Note: File is empty" for a file with content, and the model could regenerate it
 * from memory over the user's text. What the user should see: an error naming the file's real
 * line count; the file is not called empty.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { type SentChatMessage, type WireModelSpec, wireProjectsPerTest } from "./helpers.js";

const wireProject = wireProjectsPerTest("settle-read-empty-", "off");
const CODER: WireModelSpec = { api: "openai-completions", provider: "local", id: "coder" };

/** The content of each tool result a Chat Completions request sends, in order. */
function sentToolResults(request: RecordedRequest): unknown[] {
	return (request.body.messages as SentChatMessage[])
		.filter((message) => message.role === "tool")
		.map((message) => message.content);
}

describe("pi#4884: an empty file read by a Chat Completions model", () => {
	it("pi#4884: the model is told `new-file.txt` is empty, not sent pi-ai's '(see attached image)'; also at an offset past its end; a file with text reads as before", async () => {
		const { server, dir, open } = await wireProject([CODER]);
		writeFileSync(join(dir, "new-file.txt"), "");
		writeFileSync(join(dir, "notes.txt"), "one line\n");
		const read = (id: string, args: Record<string, unknown>) =>
			chatReply([{ type: "tool_call", id, name: "read", arguments: args }], { finishReason: "tool_calls" });
		server.reply(
			read("call_1", { path: "new-file.txt" }),
			read("call_2", { path: "new-file.txt", offset: 20 }),
			read("call_3", { path: "notes.txt" }),
			chatReply([{ type: "text", text: "new-file.txt is empty." }]),
		);
		const session = await open(CODER);
		await session.prompt("what do you see inside new-file.txt?");

		expect(sentToolResults(server.requests.at(-1)!)).toEqual([
			"[new-file.txt is empty.]",
			"[new-file.txt is empty.]",
			"one line\n",
		]);
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});

describe("pi#4884: a file holding only a UTF-8 byte-order mark", () => {
	it("pi#4884: `notes.txt` as Notepad saves a new file in 'UTF-8 with BOM' (the 3 mark bytes, no text): the model is told it is empty, as for 0 bytes or a UTF-16 mark alone, not sent the invisible mark; also at an offset", async () => {
		const { server, dir, open } = await wireProject([CODER]);
		writeFileSync(join(dir, "notes.txt"), Buffer.from([0xef, 0xbb, 0xbf]));
		const read = (id: string, args: Record<string, unknown>) =>
			chatReply([{ type: "tool_call", id, name: "read", arguments: args }], { finishReason: "tool_calls" });
		server.reply(
			read("call_1", { path: "notes.txt" }),
			read("call_2", { path: "notes.txt", offset: 3 }),
			chatReply([{ type: "text", text: "notes.txt is empty." }]),
		);
		const session = await open(CODER);
		await session.prompt("what is in notes.txt?");

		expect(sentToolResults(server.requests.at(-1)!)).toEqual(["[notes.txt is empty.]", "[notes.txt is empty.]"]);
	});
});

describe("Zoo-Code#1728: an offset past the end of a shortened file", () => {
	it("Zoo-Code#1728: a file shortened to 5 lines, read at offset 30 (the model's line numbers from before): refused naming the 5 lines, not called empty", async () => {
		const { server, dir, open } = await wireProject([CODER]);
		const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");
		writeFileSync(join(dir, "todo.md"), `${lines(5)}\n`);
		server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "read", arguments: { path: "todo.md", offset: 30 } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "todo.md has only 5 lines now." }]),
		);
		const session = await open(CODER);
		await session.prompt("continue reading todo.md from line 30");

		expect(sentToolResults(server.requests.at(-1)!)).toEqual(["Offset 30 is beyond end of file (5 lines total)"]);
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});
