/**
 * Bad tool calls and broken providers through a real session (createAgentSession, file-backed):
 * (b) a tool call with invalid arguments ends in an error tool result that names the tool and the
 * problem, and the session continues; (d) a stream function that throws, rejects, emits an error
 * event or returns garbage settles the operation once, with an error assistant message — the
 * session is idle and the next prompt works. Everything is read back from disk.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createAssistantMessageEventStream } from "../../src/llm/event-stream.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage, Model, StreamFn, ToolCall } from "../../src/llm/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import { validateToolCall } from "../../src/llm/validation.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { closeSession, createWorkspace, fileEntries, lastAssistant, openSession, type Workspace } from "./helpers.js";

let ws: Workspace;
let session: AgentSession | undefined;

beforeEach(() => {
	ws = createWorkspace();
});

afterEach(() => {
	if (session) closeSession(session);
	session = undefined;
	ws.cleanup();
});

/** Tool results on disk, in order: `{ toolName, isError, text }`. */
function diskToolResults(file: string): { toolName: string; isError: boolean; text: string }[] {
	return fileEntries(file)
		.filter((entry) => entry.type === "message" && (entry.message as { role: string }).role === "toolResult")
		.map((entry) => {
			const message = entry.message as { toolName: string; isError: boolean; content: { text?: string }[] };
			return {
				toolName: message.toolName,
				isError: message.isError,
				text: message.content.map((block) => block.text ?? "").join(""),
			};
		});
}

function settledCount(events: AgentSessionEvent[]): number {
	return events.filter((event) => event.type === "agent_settled").length;
}

describe("invalid tool calls (b)", () => {
	const cases: [string, ToolCall, string[]][] = [
		[
			"a JSON-schema violation (read without its required path)",
			fauxToolCall("read", { offset: 3 }),
			['Validation failed for tool "read"', "path"],
		],
		[
			"non-object arguments (a string)",
			{ type: "toolCall", id: "call-str", name: "read", arguments: "src/index.ts" as unknown as Record<string, never> },
			['Validation failed for tool "read"', "must be object"],
		],
		["an unknown tool", fauxToolCall("teleport", { to: "mars" }), ["Tool teleport not found"]],
	];

	it.each(cases)(
		"%s: an error tool result names the tool and the problem; the session continues",
		async (_, call, texts) => {
			session = await openSession(ws);
			const events: AgentSessionEvent[] = [];
			session.subscribe((event) => events.push(event));
			ws.faux.appendResponses([
				fauxAssistantMessage(call, { stopReason: "toolUse" }),
				fauxAssistantMessage("recovered"),
			]);
			await session.prompt("use a tool");
			expect(settledCount(events)).toBe(1);
			expect(lastAssistant(session).text).toBe("recovered");
			const [result] = diskToolResults(session.sessionFile!);
			expect(result).toMatchObject({ toolName: call.name, isError: true });
			for (const text of texts) expect(result!.text).toContain(text);
			ws.reply("next");
			await session.prompt("again");
			expect(lastAssistant(session).text).toBe("next");
			expect(session.isIdle).toBe(true);
		},
	);

	it("regression: validateToolCall threw plain Errors — now SettleError (INVALID_ARGUMENT / NOT_FOUND) with pi's texts", () => {
		const tool = {
			name: "read",
			description: "",
			parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
		};
		let error: unknown;
		try {
			validateToolCall([tool], { type: "toolCall", id: "1", name: "read", arguments: {} });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "INVALID_ARGUMENT", details: { tool: "read" } });
		expect((error as Error).message).toContain('Validation failed for tool "read"');
		try {
			validateToolCall([tool], { type: "toolCall", id: "2", name: "nope", arguments: {} });
		} catch (caught) {
			error = caught;
		}
		expect(error).toMatchObject({ code: "NOT_FOUND", message: 'Tool "nope" not found' });
	});
});

describe("a provider that fails (d)", () => {
	const broken: { streamFn: StreamFn } = { streamFn: () => createAssistantMessageEventStream() };

	function brokenModel(): Model {
		return { ...ws.faux.getModel()!, provider: "broken", api: "broken-api", id: "broken-1" };
	}

	function errorMessage(text: string): AssistantMessage {
		return {
			role: "assistant",
			content: [],
			api: "broken-api",
			provider: "broken",
			model: "broken-1",
			usage: emptyUsage(),
			stopReason: "error",
			errorMessage: text,
			timestamp: Date.now(),
		};
	}

	const failures: [string, StreamFn, string][] = [
		[
			"throws synchronously",
			() => {
				throw new Error("socket hang-up in the provider client");
			},
			"socket hang-up in the provider client",
		],
		["rejects", () => Promise.reject(new Error("provider rejected the request")), "provider rejected the request"],
		[
			"emits an error event",
			() => {
				const stream = createAssistantMessageEventStream();
				const error = errorMessage("invalid request: bad field");
				queueMicrotask(() => stream.push({ type: "error", reason: "error", error }));
				return stream;
			},
			"invalid request: bad field",
		],
		[
			"returns garbage (not a stream)",
			(() => ({ hello: "world" })) as unknown as StreamFn,
			"did not return an event stream",
		],
	];

	it.each(failures)(
		"a stream function that %s: settles once with an error message; idle; the next prompt works",
		async (_, streamFn, text) => {
			broken.streamFn = streamFn;
			ws.modelRuntime.registerProvider({
				provider: "broken",
				models: [brokenModel()],
				streamFn: (...args) => broken.streamFn(...args),
				requiresAuth: false,
			});
			session = await openSession(ws, { model: brokenModel() });
			const events: AgentSessionEvent[] = [];
			session.subscribe((event) => events.push(event));
			await session.prompt("hello");
			expect(settledCount(events)).toBe(1);
			expect(session.isIdle).toBe(true);
			const failed = lastAssistant(session);
			expect(failed.stopReason).toBe("error");
			expect(failed.errorMessage).toContain(text);
			const onDisk = fileEntries(session.sessionFile!).filter(
				(entry) => entry.type === "message" && (entry.message as { role: string }).role === "assistant",
			);
			expect((onDisk.at(-1)!.message as { errorMessage?: string }).errorMessage).toContain(text);

			await session.setModel(ws.faux.getModel()!);
			ws.reply("works again");
			await session.prompt("retry by hand");
			expect(lastAssistant(session).text).toBe("works again");
			expect(settledCount(events)).toBe(2);
			expect(session.isIdle).toBe(true);
		},
	);
});
