/**
 * Anthropic checks the thinking it signed: a `thinking` block whose text or signature differs from
 * what it sent, or a `redacted_thinking` whose data differs, is refused ("Invalid `signature` in
 * `thinking` block"), and the latest assistant message's thinking must come back exactly as it was
 * sent, in its place ("cannot be modified"). Reports of sessions that then failed on every request:
 *
 * - claude-code#63231: one answer with thinking interleaved between many tool calls; after the tools
 *   ran, every request was refused "thinking blocks in the latest assistant message cannot be modified".
 * - claude-code#63147: resuming such a session failed for good: the transcript kept each signature
 *   but saved the thinking text empty.
 * - gajae-code#107: a turn aborted mid-thinking; every later request was refused, the session stuck.
 *
 * Replayed with real `settle -p` / `settle -c` processes and a real `bash` run (and the SDK's abort),
 * against a local server speaking the Anthropic Messages API that checks the thinking as Anthropic does.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { type AnthropicBlock, anthropicError, anthropicPartial, anthropicReply } from "../llm/wire/anthropic.js";
import { type RecordedRequest, type Reply, type Router, startWireServer, type WireServer } from "../llm/wire/server.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";
import { sessionFilesUnder } from "./helpers.js";

type SentBlock = { type: string; thinking?: string; signature?: string; data?: string; id?: string; text?: string };
type SentMessage = { role: string; content: SentBlock[] | string };

const blocksOf = (message: SentMessage) => (typeof message.content === "string" ? [] : message.content);
const isThinking = (block: { type: string }) => block.type === "thinking" || block.type === "redacted_thinking";
/** A block as the API compares it: thinking by text and signature, redacted by data, tool calls by id. */
const shape = (block: SentBlock) =>
	block.type === "thinking"
		? { type: block.type, thinking: block.thinking, signature: block.signature }
		: block.type === "redacted_thinking"
			? { type: block.type, data: block.data }
			: block.type === "tool_use"
				? { type: block.type, id: block.id }
				: { type: block.type };

/** A server checking thinking as Anthropic does, over the answers it has sent. */
function signingServer() {
	const sent: AnthropicBlock[][] = [];
	const issued = (block: SentBlock) =>
		sent.some((answer) => answer.some((own) => JSON.stringify(shape(own)) === JSON.stringify(shape(block))));
	const route: Router = (request: RecordedRequest, next) => {
		const messages = (request.body?.messages ?? []) as SentMessage[];
		for (const [index, message] of messages.entries()) {
			if (message.role !== "assistant") continue;
			const at = blocksOf(message).findIndex((block) => isThinking(block) && !issued(block));
			if (at >= 0) {
				return anthropicError(
					400,
					"invalid_request_error",
					`messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`,
				);
			}
		}
		const latest = messages.findLastIndex((message) => message.role === "assistant");
		if (latest >= 0) {
			const blocks = blocksOf(messages[latest]!);
			const calls = blocks.filter((block) => block.type === "tool_use").map((block) => block.id);
			const original = sent.find((answer) =>
				calls.length > 0
					? JSON.stringify(answer.filter((b) => b.type === "tool_use").map((b) => b.id)) === JSON.stringify(calls)
					: answer.some((b) => b.type === "text" && blocks.some((own) => own.text === b.text)),
			);
			// The thinking blocks and the tool calls, in their order: text may go, nothing else may move.
			const outline = (list: readonly SentBlock[]) => JSON.stringify(list.filter((b) => b.type !== "text").map(shape));
			if (original?.some(isThinking) && outline(original) !== outline(blocks)) {
				return anthropicError(
					400,
					"invalid_request_error",
					`messages.${latest}.content.0: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
				);
			}
		}
		return next();
	};
	/** An answer the server signs (its blocks become checkable once sent). */
	const answer =
		(blocks: AnthropicBlock[], options: Parameters<typeof anthropicReply>[1] = {}): Reply =>
		(request, res, req) => {
			sent.push(blocks);
			return anthropicReply(blocks, options)(request, res, req);
		};
	return { route, answer };
}

describe("claude-code#63231, claude-code#63147: thinking interleaved between tool calls, then the session resumed", () => {
	const cli = useCliProject("settle-thinking-unmodified-");
	const signing = signingServer();
	let started: WireServer | undefined;
	afterEach(async () => {
		await started?.close();
	});

	it("claude-code#63231: every thinking block goes back unchanged in its place after the real bash runs, and again after `settle -c`; each answer is printed", async () => {
		const server = await startWireServer(signing.route);
		started = server;
		writeLocalProvider(cli.agentDir, server.url, {
			api: "anthropic-messages",
			models: [{ id: "claude-interleaved", reasoning: true }],
		});
		const model = { model: "claude-interleaved" };
		const interleaved: AnthropicBlock[] = [
			{ type: "thinking", thinking: "First the date.", signature: "EqQBCkgIBhABGAIiQFirst" },
			{ type: "text", text: "Let me look." },
			{ type: "tool_use", id: "toolu_01Date", name: "bash", input: { command: "echo one-ran" } },
			{ type: "thinking", thinking: "Now the second.\n  Keep spacing.  ", signature: "EqQBCkgIBhABGAIiQSecond" },
			{ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/RedactedMiddle==" },
			{ type: "tool_use", id: "toolu_01Second", name: "bash", input: { command: "echo two-ran" } },
			{ type: "thinking", thinking: "And a third.", signature: "EqQBCkgIBhABGAIiQThird" },
			{ type: "tool_use", id: "toolu_01Third", name: "bash", input: { command: "echo three-ran" } },
		];
		const final: AnthropicBlock[] = [
			{ type: "thinking", thinking: "All three ran.", signature: "EqQBCkgIBhABGAIiQFinal" },
			{ type: "text", text: "one, two and three ran." },
		];
		server.reply(
			signing.answer(interleaved, { ...model, stopReason: "tool_use" }),
			signing.answer(final, model),
			signing.answer([{ type: "text", text: "Still here." }], model),
		);
		const sessionDir = join(cli.dir, "sessions");
		const run = (args: string[]) =>
			runSettleAsync(["--session-dir", sessionDir, ...args], { cwd: cli.project, agentDir: cli.agentDir });

		const first = await run(["--thinking", "high", "-p", "run the three commands"]);
		expect(first.stderr).toBe("");
		expect(first.stdout).toBe("one, two and three ran.\n");
		expect(first.code).toBe(0);
		const assistantTurns = (index: number) =>
			((server.requests[index]!.body as { messages: SentMessage[] }).messages ?? [])
				.filter((message) => message.role === "assistant")
				.map((message) => blocksOf(message).map(shape));
		const sentShape = (blocks: AnthropicBlock[]) => blocks.map((block) => shape(block as SentBlock));
		expect(assistantTurns(1)).toEqual([sentShape(interleaved)]);
		const results = JSON.stringify(server.requests[1]!.body);
		for (const output of ["one-ran", "two-ran", "three-ran"]) expect(results).toContain(output);

		// The file keeps each thinking text whole beside its signature (what `-c` sends back).
		const [file] = sessionFilesUnder(cli.dir);
		const saved = readFileSync(file!, "utf8");
		expect(saved).toContain(
			JSON.stringify({ type: "thinking", thinking: "Now the second.\n  Keep spacing.  " }).slice(1, -1),
		);

		const again = await run(["-c", "-p", "still there?"]);
		expect(again.stderr).toBe("");
		expect(again.stdout).toBe("Still here.\n");
		expect(again.code).toBe(0);
		expect(server.requests).toHaveLength(3);
		expect(assistantTurns(2)).toEqual([sentShape(interleaved), sentShape(final)]);
	});
});

const wireSession = useWireSession();

describe("gajae-code#107: a turn aborted mid-thinking, after a signed tool call", () => {
	it("gajae-code#107: the next requests leave the cut thinking out, keep the signed turn unchanged, and are answered; the file keeps what was cut", async () => {
		const signing = signingServer();
		const w = await wireSession({
			api: "anthropic-messages",
			route: signing.route,
			settings: { defaultThinkingLevel: "high" },
		});
		const signedTurn: AnthropicBlock[] = [
			{ type: "thinking", thinking: "List the folder.", signature: "EqQBCkgIBhABGAIiQList" },
			{ type: "tool_use", id: "toolu_01List", name: "bash", input: { command: "echo listed" } },
		];
		const cut: AnthropicBlock[] = [
			{ type: "thinking", thinking: "The listing shows a long story to think through.", signature: "EqQBNeverSent" },
			{ type: "text", text: "never reached" },
		];
		// message_start, ping, the thinking's start and its first delta; then nothing more.
		w.server.reply(
			signing.answer(signedTurn, { stopReason: "tool_use" }),
			anthropicPartial(cut, 4, "hang"),
			signing.answer([{ type: "text", text: "Picking up again." }]),
			signing.answer([{ type: "text", text: "And again." }]),
		);
		const thinkingStarted = new Promise<void>((resolve) => {
			w.session.subscribe((event) => {
				if (event.type === "message_update" && event.assistantMessageEvent.type === "thinking_delta") {
					if (w.server.requests.length === 2) resolve();
				}
			});
		});
		const prompt = w.session.prompt("list the folder, then think it over");
		await thinkingStarted;
		await w.session.abort();
		await prompt;
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "aborted",
			content: [{ type: "thinking", thinking: expect.stringMatching(/^The listing shows a long/) }],
		});

		await w.session.prompt("go on");
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "Picking up again." }],
		});
		await w.session.prompt("and then?");
		expect(lastAssistant(w)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "And again." }] });

		expect(w.server.requests).toHaveLength(4);
		for (const request of w.server.requests.slice(2)) {
			const body = JSON.stringify(request.body);
			expect(body).not.toContain("The listing shows");
			const assistants = (request.body.messages as SentMessage[]).filter((message) => message.role === "assistant");
			expect(assistants[0]!.content).toEqual(signedTurn.map((block) => expect.objectContaining(block)));
		}
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		expect(saved.find((message) => message.role === "assistant" && message.stopReason === "aborted")).toMatchObject({
			content: [{ type: "thinking", thinking: expect.stringMatching(/^The listing shows a long/) }],
		});
	});
});
