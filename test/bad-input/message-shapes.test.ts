/**
 * Messages of the wrong shape handed to the SDK's public edges: `sessionManager.appendMessage`
 * (user content `42`, an assistant without a content list, a tool result without `toolCallId`…),
 * `session.recordBashResult` and `session.sendCustomMessage` with wrong fields. Each is refused with
 * `INVALID_ARGUMENT` naming the field and what to pass, before anything is written: the file keeps
 * its bytes and the session goes on. Shapes pi writes (the real fixtures) are stored as before. And
 * a stored message whose content could not be read (reported on open) is left out of the request
 * instead of being sent as an empty user message.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { closeSession, expectSettleError, lastAssistant, openSession, thrown, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
const assistant = (content: unknown) => ({
	role: "assistant",
	content,
	provider: "faux",
	model: "faux-1",
	api: "faux",
	stopReason: "stop",
	usage: { ...usage, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
	timestamp: 1,
});
const toolResult = (fields: Record<string, unknown>) => ({
	role: "toolResult",
	toolCallId: "call-1",
	toolName: "read",
	content: [{ type: "text", text: "ok" }],
	isError: false,
	timestamp: 1,
	...fields,
});

/** A session file with one exchange written by a real session; returns its manager, reopened. */
async function writtenSession(): Promise<{ file: string; manager: SessionManager }> {
	const session = await openSession(ws);
	ws.reply("one");
	await session.prompt("first");
	const file = session.sessionFile!;
	closeSession(session);
	return { file, manager: SessionManager.open(file) };
}

describe("sessionManager.appendMessage given a message of the wrong shape", () => {
	const USER_CONTENT = 'must be a string or an array of { type: "text", text } and';
	it.each<[string, unknown, ...string[]]>([
		[
			"a user message whose content is 42",
			{ role: "user", content: 42, timestamp: 1 },
			"the user message's content",
			USER_CONTENT,
			"(got number 42)",
		],
		[
			"a user message whose content is null",
			{ role: "user", content: null, timestamp: 1 },
			"the user message's content",
			"(got null)",
		],
		[
			"a user message whose content is an object",
			{ role: "user", content: { text: "hi" }, timestamp: 1 },
			"the user message's content",
			"(got an object)",
		],
		[
			"a user message whose content list holds a string",
			{ role: "user", content: ["hi"], timestamp: 1 },
			"the user message's content",
			"(got an array)",
		],
		[
			"a user message with a block of unknown type",
			{ role: "user", content: [{ type: "video", url: "u" }], timestamp: 1 },
			"the user message's content",
			USER_CONTENT,
		],
		[
			"an assistant message without content",
			{ ...assistant(undefined) },
			"the assistant message's content must be an array of content blocks (got undefined)",
			'Pass a list of { type: "text", text }',
		],
		[
			"an assistant message whose content is text",
			assistant("hello"),
			'the assistant message\'s content must be an array of content blocks (got "hello")',
		],
		[
			"an assistant message whose content holds 42",
			assistant([{ type: "text", text: "a" }, 42]),
			"the assistant message's content[1] is number 42, not a text, image, thinking or toolCall block",
		],
		[
			"a tool result without toolCallId",
			toolResult({ toolCallId: undefined }),
			"the toolResult message's toolCallId must be a string (got undefined)",
			"Pass the id and name of the toolCall block it answers.",
		],
		[
			"a tool result whose toolName is 7",
			toolResult({ toolName: 7 }),
			"the toolResult message's toolName must be a string (got number 7)",
		],
		[
			"a tool result with a block of unknown type",
			toolResult({ content: [{ type: "audio" }] }),
			'the toolResult message\'s content[0] is a block of type "audio"',
		],
		[
			"a custom message whose customType is 42",
			{ role: "custom", customType: 42, content: "x", display: true, timestamp: 1 },
			"the custom message's customType must be a string (got number 42)",
		],
		[
			"a custom message whose content is 42",
			{ role: "custom", customType: "note", content: 42, display: true, timestamp: 1 },
			"the custom message's content",
			USER_CONTENT,
		],
		[
			"a bash execution whose output is 42",
			{
				role: "bashExecution",
				command: "ls",
				output: 42,
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: 1,
			},
			"the bashExecution message's output must be a string (got number 42)",
		],
		["null", null, "the message must be an object with a string role (got null)"],
	])(
		"regression: %s was written to the file (and reported on every open) — now INVALID_ARGUMENT naming the field, nothing written",
		async (_label, message, ...mentions) => {
			const { file, manager } = await writtenSession();
			const bytes = readFileSync(file);
			const leaf = manager.getLeafId();
			try {
				const error = thrown(() => manager.appendMessage(message as unknown as AgentMessage));
				expectSettleError(
					error,
					"INVALID_ARGUMENT",
					"sessionManager.appendMessage: ",
					...mentions,
					"Nothing was written.",
				);
				expect(readFileSync(file).equals(bytes)).toBe(true);
				expect(manager.getLeafId()).toBe(leaf);
				// The session goes on: a good message is stored after the refused one, the file reopens clean.
				manager.appendMessage({ role: "user", content: "next", timestamp: 2 });
			} finally {
				manager.close();
			}
			const reopened = SessionManager.open(file);
			try {
				expect(reopened.getDiagnostics()).toEqual([]);
				expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual([
					"system",
					"user",
					"assistant",
					"user",
				]);
			} finally {
				reopened.close();
			}
		},
	);

	it("every message of pi's own session files (the real fixtures) is stored as it is", () => {
		const folder = join(import.meta.dirname, "../fixtures/store");
		const files = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
		expect(files.length).toBeGreaterThanOrEqual(4);
		const roles = new Set<string>();
		for (const name of files) {
			const manager = SessionManager.inMemory();
			const stored = readFileSync(join(folder, name), "utf8")
				.split("\n")
				.filter(Boolean)
				.map((line) => JSON.parse(line) as { type: string; message?: AgentMessage })
				.flatMap((entry) => (entry.type === "message" && entry.message ? [entry.message] : []));
			for (const message of stored) {
				manager.appendMessage(message);
				roles.add(message.role);
			}
			expect(manager.getEntries().map((entry) => (entry as { message?: unknown }).message)).toEqual(stored);
		}
		expect([...roles].sort()).toEqual(["assistant", "bashExecution", "toolResult", "user"]);
	});
});

describe("session.recordBashResult given wrong fields", () => {
	it.each<[string, unknown, unknown, ...string[]]>([
		["a null result", "ls", null, "the result must be { output: string", "(got null)"],
		[
			"an output of 42",
			"ls",
			{ output: 42, exitCode: 0, cancelled: false, truncated: false },
			"the result's output must be a string (got number 42)",
		],
		[
			'an exitCode of "0"',
			"ls",
			{ output: "", exitCode: "0", cancelled: false, truncated: false },
			'the result\'s exitCode must be a number or undefined (got "0")',
		],
		[
			"no cancelled flag",
			"ls",
			{ output: "", exitCode: 0, truncated: false },
			"the result's cancelled must be a boolean (got undefined)",
		],
		[
			'a timedOutAfter of "5"',
			"ls",
			{ output: "", exitCode: undefined, cancelled: true, truncated: false, timedOutAfter: "5" },
			'the result\'s timedOutAfter must be a positive number of seconds or undefined (got "5")',
		],
		[
			"a command of 42",
			42,
			{ output: "", exitCode: 0, cancelled: false, truncated: false },
			"the command must be a string (got number 42)",
		],
	])(
		"regression: %s was recorded (or threw a bare TypeError) — now INVALID_ARGUMENT, nothing recorded",
		async (_label, command, result, ...mentions) => {
			const session = await openSession(ws);
			try {
				ws.reply("one");
				await session.prompt("first");
				const bytes = readFileSync(session.sessionFile!);
				const count = session.messages.length;
				const error = thrown(() => session.recordBashResult(command as string, result as never));
				expectSettleError(
					error,
					"INVALID_ARGUMENT",
					"session.recordBashResult: ",
					...mentions,
					"Nothing was recorded.",
				);
				expect(readFileSync(session.sessionFile!).equals(bytes)).toBe(true);
				expect(session.messages).toHaveLength(count);
				session.recordBashResult("ls", { output: "a", exitCode: 0, cancelled: false, truncated: false });
				expect(session.messages.at(-1)).toMatchObject({ role: "bashExecution", command: "ls", output: "a" });
			} finally {
				closeSession(session);
			}
		},
	);
});

describe("session.sendCustomMessage given a customType that is not a string", () => {
	it("regression: a queued nextTurn message with customType 42 made the next prompt fail when stored — now refused at once, the prompt answered", async () => {
		const session = await openSession(ws);
		try {
			ws.reply("one");
			await session.prompt("first");
			const bytes = readFileSync(session.sessionFile!);
			const error = await session
				.sendCustomMessage(
					{ customType: 42 as unknown as string, content: "note", display: true },
					{ deliverAs: "nextTurn" },
				)
				.then(
					() => undefined,
					(e: unknown) => e,
				);
			expectSettleError(
				error,
				"INVALID_ARGUMENT",
				"session.sendCustomMessage: ",
				"customType must be a string (got number 42)",
				"Nothing was sent.",
			);
			expect(readFileSync(session.sessionFile!).equals(bytes)).toBe(true);
			ws.reply("two");
			await session.prompt("second");
			expect(lastAssistant(session)).toMatchObject({ text: "two", stopReason: "stop" });
		} finally {
			closeSession(session);
		}
	});
});

describe("a stored message whose content could not be read", () => {
	const message = (content: unknown) => ({ type: "message", message: { role: "user", content, timestamp: 1 } });
	it.each([
		["a user message whose content is 42", message(42)],
		["a user message holding only a block of unknown type", message([{ type: "video" }])],
		[
			"a custom_message whose content is null",
			{ type: "custom_message", customType: "note", content: null, display: true },
		],
	])(
		"regression: %s was sent as an empty user message (Bedrock refuses it; pi 0.73.1 fails every request) — now left out of the request; the file keeps it",
		async (_label, stored) => {
			const session = await openSession(ws);
			ws.reply("one");
			await session.prompt("first");
			const file = session.sessionFile!;
			closeSession(session);
			const lines = readFileSync(file, "utf8").trim().split("\n");
			const parentId = (JSON.parse(lines.at(-1)!) as { id: string }).id;
			const entry = { id: "bad00001", parentId, timestamp: new Date().toISOString(), ...stored };
			writeFileSync(file, `${lines.join("\n")}\n${JSON.stringify(entry)}\n`);
			const bytes = readFileSync(file);

			const manager = SessionManager.open(file);
			expect(manager.getDiagnostics().map((d) => d.kind)).toEqual(["invalid_field"]);
			const reopened = await openSession(ws, { sessionManager: manager });
			try {
				ws.reply("two");
				await reopened.prompt("second");
				expect(lastAssistant(reopened).text).toBe("two");
				const request = ws.faux.requests.at(-1)!;
				expect(request.messages.map((m) => [m.role, m.content])).toEqual([
					["user", [{ type: "text", text: "first" }]],
					["assistant", [{ type: "text", text: "one" }]],
					["user", [{ type: "text", text: "second" }]],
				]);
			} finally {
				closeSession(reopened);
			}
			expect(readFileSync(file).subarray(0, bytes.length).equals(bytes)).toBe(true);
		},
	);
});
