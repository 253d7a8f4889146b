/**
 * Reports about one model answer with several tool calls run as a parallel batch, replayed over
 * HTTP: pi-ai's own Anthropic client talks to a local server answering as the Messages API does
 * (`test/llm/wire`), through a whole session with the real `bash` tool and the session file on disk.
 *
 * pi#3468, oh-my-pi#11179: the results went back in completion order, not the calls' order (a call
 * blocked by a `tool_call` hook first of all), so a model reading them by position paired them with
 * the wrong calls. pi#3503: a call that had finished stayed "running" until its slowest sibling did.
 * What the user should see: each call shown done when it is; the results saved and sent in the
 * order of the calls.
 *
 * claude-code#22264, claude-code#64346: one call of a batch failing (a `grep` that matched nothing, a
 * read of a missing file) cancelled every sibling ("Sibling tool call errored"), even `echo hello`;
 * the model took it for a broken shell. What the user should see: each call fails or succeeds on
 * its own. oh-my-pi#5302: a `tool_result` handler could not rewrite a failed call's text and keep it
 * a failure: the rewrite was dropped. What the user should see: the model gets the handler's text as
 * that call's error, its siblings untouched.
 *
 * oh-my-pi#2055: some models and proxies (MiMo, Kimi) give two tool calls of one answer the same
 * id; the ids went back as they came, one result paired with the wrong call, and the provider
 * refused every later request (`tool_use ids must be unique`, "tool call result does not follow
 * tool call"). What the user should see: both calls run, each result reaches its own call, and the
 * session goes on.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { type RecordedRequest, type Reply, startWireServer, type WireServer } from "../llm/wire/server.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";
import { gate } from "./helpers.js";

const wireSession = useWireSession();

/** The `tool_result` blocks of the last user message of a recorded Anthropic request: [tool_use_id, is_error, text]. */
function sentResults(body: { messages: { role: string; content: unknown }[] }): [string, boolean, string][] {
	const last = body.messages.at(-1)!;
	const blocks = last.content as { type: string; tool_use_id?: string; is_error?: boolean; content?: unknown }[];
	return blocks
		.filter((block) => block.type === "tool_result")
		.map((block) => [
			block.tool_use_id!,
			block.is_error === true,
			typeof block.content === "string"
				? block.content
				: (block.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join(""),
		]);
}

/** The tool results in the session file, in file order: [toolCallId, isError]. */
function savedResults(session: WireSession): [string, boolean][] {
	return session.entries().flatMap((entry) => {
		const message = (entry as { message?: { role: string; toolCallId?: string; isError?: boolean } }).message;
		return entry.type === "message" && message?.role === "toolResult"
			? [[message.toolCallId!, message.isError === true] as [string, boolean]]
			: [];
	});
}

describe("pi#3468, oh-my-pi#11179, pi#3503: results of a parallel batch and the calls' order", () => {
	it("pi#3468: a slow first call, a blocked second and a fast third: ends shown as each finishes (2, 3, 1), results saved and sent as 1, 2, 3", async () => {
		const slow = gate();
		const reports = (pi: ExtensionAPI) => {
			// The first call finishes only once the third is shown done: a completion order unlike the calls'.
			pi.registerTool({
				name: "fetch_report",
				label: "fetch_report",
				description: "Fetch the nightly report",
				parameters: { type: "object", properties: {} },
				execute: async () => {
					await slow.promise;
					return { content: [{ type: "text", text: "report: 3 failures" }], details: {} };
				},
			});
			pi.on("tool_call", (event) => {
				const command = (event.input as { command?: string }).command ?? "";
				if (command.startsWith("rm ")) return { block: true, reason: "rm is not allowed here" };
				return undefined;
			});
		};
		const w = await wireSession({ api: "anthropic-messages", extensionFactories: [reports] });
		const session = w;
		session.session.subscribe((event) => {
			if (event.type === "tool_execution_end" && event.toolCallId === "toolu_03fast") slow.release();
		});
		session.server.reply(
			anthropicReply(
				[
					{ type: "tool_use", id: "toolu_01slow", name: "fetch_report", input: {} },
					{ type: "tool_use", id: "toolu_02blocked", name: "bash", input: { command: "rm -rf build" } },
					{ type: "tool_use", id: "toolu_03fast", name: "bash", input: { command: "echo fast" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "done" }]),
		);
		await session.session.prompt("fetch the report, clean the build and say fast, all at once");

		expect(session.eventsOf("tool_execution_end").map((event) => event.toolCallId)).toEqual([
			"toolu_02blocked",
			"toolu_03fast",
			"toolu_01slow",
		]);
		expect(savedResults(session)).toEqual([
			["toolu_01slow", false],
			["toolu_02blocked", true],
			["toolu_03fast", false],
		]);
		expect(session.server.requests).toHaveLength(2);
		expect(sentResults(session.server.requests[1]!.body)).toEqual([
			["toolu_01slow", false, "report: 3 failures"],
			["toolu_02blocked", true, "rm is not allowed here"],
			["toolu_03fast", false, "fast\n"],
		]);
	});
});

describe("claude-code#22264, claude-code#64346: one failing call cancels its siblings", () => {
	it("claude-code#64346: a read with a wrong argument, a grep matching nothing (exit 1) and a read of a missing file fail; pwd, echo hello and a write in the same answer still run and report their own results", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		const session = w;
		writeFileSync(join(session.dir, "plans.md"), "# Plans\n- ship it\n");
		session.server.reply(
			anthropicReply(
				[
					{ type: "tool_use", id: "toolu_00args", name: "read", input: { file: "plans.md" } },
					{ type: "tool_use", id: "toolu_01grep", name: "bash", input: { command: "grep -i rollback plans.md" } },
					{ type: "tool_use", id: "toolu_02pwd", name: "bash", input: { command: "pwd" } },
					{ type: "tool_use", id: "toolu_03read", name: "read", input: { path: "missing.md" } },
					{ type: "tool_use", id: "toolu_04echo", name: "bash", input: { command: "echo hello" } },
					{ type: "tool_use", id: "toolu_05write", name: "write", input: { path: "out.txt", content: "kept\n" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "done" }]),
		);
		await session.session.prompt("look around");

		const sent = sentResults(session.server.requests[1]!.body);
		expect(sent.map(([id, isError]) => [id, isError])).toEqual([
			["toolu_00args", true],
			["toolu_01grep", true],
			["toolu_02pwd", false],
			["toolu_03read", true],
			["toolu_04echo", false],
			["toolu_05write", false],
		]);
		expect(sent[0]![2]).toMatch(/path/);
		expect(sent[1]![2]).toMatch(/exited with code 1/);
		expect(sent[2]![2]).toBe(`${session.dir}\n`);
		expect(sent[3]![2]).toMatch(/missing\.md/);
		expect(sent[4]![2]).toBe("hello\n");
		expect(sent[5]![2]).toBe("Successfully wrote 5 bytes to out.txt");
		expect(JSON.stringify(sent)).not.toMatch(/sibling|cancel/i);
		expect(readFileSync(join(session.dir, "out.txt"), "utf8")).toBe("kept\n");
		expect(savedResults(session).map(([, isError]) => isError)).toEqual([true, true, false, true, false, false]);
	});
});

describe("oh-my-pi#5302: a tool_result handler cannot rewrite a thrown failure", () => {
	it("oh-my-pi#5302: a handler replaces a failed read's text and keeps isError: the model gets that text as the read's error; the sibling bash result is untouched", async () => {
		const guidance = (pi: ExtensionAPI) => {
			pi.on("tool_result", (event) => {
				if (!event.isError) return undefined;
				return {
					content: [{ type: "text", text: `No ${String(event.input.path)} here: list the folder with ls first.` }],
					isError: true,
				};
			});
		};
		const w = await wireSession({ api: "anthropic-messages", extensionFactories: [guidance] });
		const session = w;
		session.server.reply(
			anthropicReply(
				[
					{ type: "tool_use", id: "toolu_01read", name: "read", input: { path: "notes.md" } },
					{ type: "tool_use", id: "toolu_02echo", name: "bash", input: { command: "echo ok" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "done" }]),
		);
		await session.session.prompt("read the notes and say ok");

		expect(existsSync(join(session.dir, "notes.md"))).toBe(false);
		expect(sentResults(session.server.requests[1]!.body)).toEqual([
			["toolu_01read", true, "No notes.md here: list the folder with ls first."],
			["toolu_02echo", false, "ok\n"],
		]);
		expect(savedResults(session)).toEqual([
			["toolu_01read", true],
			["toolu_02echo", false],
		]);
		expect(session.eventsOf("tool_execution_end").find((event) => event.toolCallId === "toolu_01read")).toMatchObject({
			isError: true,
			result: { content: [{ type: "text", text: "No notes.md here: list the folder with ls first." }] },
		});
	});
});

/** Anthropic's check on a request: every `tool_use` id of a message is unique (else a 400, as the API answers). */
function refuseRepeatedToolUseIds(request: RecordedRequest, next: () => Reply): Reply {
	const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
	for (const [index, message] of messages.entries()) {
		if (!Array.isArray(message.content)) continue;
		const ids = (message.content as { type: string; id?: string }[])
			.filter((block) => block.type === "tool_use")
			.map((block) => block.id);
		if (new Set(ids).size !== ids.length)
			return anthropicError(400, "invalid_request_error", `messages.${index}.content: \`tool_use\` ids must be unique`);
	}
	return next();
}

describe("oh-my-pi#2055: two tool calls of one answer with the same id", () => {
	/** A session whose prompt got two bash calls both `toolu_dup` (echo A, echo B), then "A then B". */
	async function promptedWithRepeatedIds(): Promise<WireSession> {
		const w = await wireSession({ api: "anthropic-messages", route: refuseRepeatedToolUseIds });
		w.server.reply(
			anthropicReply(
				[
					{ type: "tool_use", id: "toolu_dup", name: "bash", input: { command: "echo A" } },
					{ type: "tool_use", id: "toolu_dup", name: "bash", input: { command: "echo B" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "A then B" }]),
		);
		await w.session.prompt("say A and B");
		return w;
	}

	it("oh-my-pi#2055: a proxy answers with two bash calls both toolu_dup: both run, the second gets toolu_dup_2, each result pairs with its call, and the next request is answered", async () => {
		const session = await promptedWithRepeatedIds();

		const body = session.server.requests[1]!.body as { messages: { role: string; content: unknown }[] };
		const calls = (body.messages.at(-2)!.content as { type: string; id: string; input: unknown }[]).map((block) => [
			block.id,
			block.input,
		]);
		expect(calls).toEqual([
			["toolu_dup", { command: "echo A" }],
			["toolu_dup_2", { command: "echo B" }],
		]);
		expect(sentResults(body)).toEqual([
			["toolu_dup", false, "A\n"],
			["toolu_dup_2", false, "B\n"],
		]);
		expect(session.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(savedResults(session)).toEqual([
			["toolu_dup", false],
			["toolu_dup_2", false],
		]);
		const saved = session.entries().flatMap((entry) => {
			const message = (entry as { message?: { role: string; content: { type: string; id?: string }[] } }).message;
			return message?.role === "assistant" ? message.content.filter((block) => block.type === "toolCall") : [];
		});
		expect(saved.map((block) => block.id)).toEqual(["toolu_dup", "toolu_dup_2"]);
	});

	it("regression: streamed message_updates carry the same unique ids as the saved answer, so a host keying calls by id sees two calls while they stream", async () => {
		const session = await promptedWithRepeatedIds();

		// The first answer's updates: those whose message holds a call.
		const updates = session
			.eventsOf("message_update")
			.filter(
				({ message }) =>
					"content" in message &&
					Array.isArray(message.content) &&
					message.content.some((block) => block.type === "toolCall"),
			);
		const last = updates.at(-1)!.message as { content: { type: string; id?: string }[] };
		const lastCalls = last.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
		expect(lastCalls).toEqual(["toolu_dup", "toolu_dup_2"]);
		const ended = updates.flatMap(({ assistantMessageEvent: event }) =>
			event.type === "toolcall_end" ? [event.toolCall.id] : [],
		);
		expect(ended).toEqual(["toolu_dup", "toolu_dup_2"]);
		const partialIds = updates.map(({ assistantMessageEvent: event }) =>
			"partial" in event ? event.partial.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])) : [],
		);
		expect(partialIds.at(-1)).toEqual(["toolu_dup", "toolu_dup_2"]);
	});
});

describe("oh-my-pi#2055 in a session pi wrote: one answer's two calls both call_0, reopened for an Anthropic model", () => {
	const cli = useCliProject("settle-pi-races-repeated-ids-file-");
	let wire: WireServer | undefined;
	afterEach(async () => {
		await wire?.close();
		wire = undefined;
	});

	it("oh-my-pi#2055: settle --session on pi's file: the request gives the two calls distinct ids, each once and in order, and each tool_result follows its own call's id", async () => {
		const file = join(cli.project, "pi-session.jsonl");
		const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
		const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
		const at = (second: number) => `2026-09-08T10:00:0${second}.000Z`;
		const lines = [
			{ type: "session", version: 3, id: "omp-2055", timestamp: at(0), cwd: cli.project },
			{
				type: "message",
				id: "u1",
				parentId: null,
				timestamp: at(1),
				message: { role: "user", content: "say A and B", timestamp: 1 },
			},
			{
				type: "message",
				id: "a1",
				parentId: "u1",
				timestamp: at(2),
				message: {
					role: "assistant",
					content: [
						{ type: "toolCall", id: "call_0", name: "bash", arguments: { command: "echo A" } },
						{ type: "toolCall", id: "call_0", name: "bash", arguments: { command: "echo B" } },
					],
					api: "openai-completions",
					provider: "mimo",
					model: "mimo-v2",
					usage: { ...usage, cost },
					stopReason: "toolUse",
					timestamp: 2,
				},
			},
			...["A", "B"].map((letter, index) => ({
				type: "message",
				id: `r${index}`,
				parentId: index === 0 ? "a1" : "r0",
				timestamp: at(3 + index),
				message: {
					role: "toolResult",
					toolCallId: "call_0",
					toolName: "bash",
					content: [{ type: "text", text: `${letter}\n` }],
					isError: false,
					timestamp: 3 + index,
				},
			})),
		];
		writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
		wire = await startWireServer();
		writeLocalProvider(cli.agentDir, wire.url, { api: "anthropic-messages" });
		wire.reply(anthropicReply([{ type: "text", text: "A then B" }]));

		const run = await runSettleAsync(["--session", file, "--model", "local/coder", "-p", "go on"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const body = wire.requests[0]!.body as { messages: { role: string; content: unknown }[] };
		const blocks = body.messages.flatMap((message) =>
			Array.isArray(message.content) ? (message.content as { type: string; id?: string; input?: unknown }[]) : [],
		);
		const calls = blocks.filter((block) => block.type === "tool_use").map((block) => [block.id, block.input]);
		expect(calls).toEqual([
			["call_0", { command: "echo A" }],
			[expect.not.stringMatching(/^call_0$/), { command: "echo B" }],
		]);
		const [first, second] = calls.map(([id]) => id as string);
		expect(new Set([first, second]).size).toBe(2);
		const results = body.messages.find((message) =>
			(message.content as { type: string }[]).some?.((block) => block.type === "tool_result"),
		)!;
		expect(sentResults({ messages: [results] })).toEqual([
			[first, false, "A\n"],
			[second, false, "B\n"],
		]);
	});
});
