/**
 * openclaw#129518, oh-my-pi#6439: compaction serialized the history's thinking blocks into the
 * summary request (`[Assistant thinking]: …`, as pi does). Claude refuses a request that hands it a
 * turn's reasoning as text (`stop_reason: "refusal"`, category `reasoning_extraction`), every time:
 * each compaction of a history with thinking failed the same way, and a session at its window could
 * no longer recover. What the user should see: the compaction (and a `/tree` branch summary) on a
 * Claude model summarizes the turns' text and tool calls without their thinking, and is written;
 * another model's summary request still reads the thinking, as pi's does.
 *
 * claude-code#12973, opencode#31188: `/compact` right after a thinking tool-use turn replayed the
 * thinking blocks, changed, and Anthropic refused it ("`thinking` or `redacted_thinking` blocks in
 * the latest assistant message cannot be modified"). Settle's summary request is one user message
 * holding the conversation as text, so there is no block to modify.
 *
 * A whole session on pi-ai's Anthropic and OpenAI clients against a local server that refuses as
 * Claude does when a summary request quotes a turn's reasoning.
 */
import { describe, expect, it } from "vitest";
import { anthropicError, anthropicEvents, anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, type Router, type SseEvent, sse } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";
import { isChatSummaryRequest } from "./helpers.js";

const wireSession = useWireSession();

const FIRST_THOUGHT = "The user wants the parser renamed; I should check the imports first.";
const SECOND_THOUGHT = "Two files import it; both need the new name.";

const isClaudeSummaryRequest = (request: RecordedRequest): boolean =>
	JSON.stringify(request.body?.system ?? "").includes("You are a context summarization assistant");

/** Claude's answer to a request quoting a turn's reasoning: a refusal stream (openclaw#129518). */
function reasoningExtractionRefusal(): SseEvent[] {
	const events = anthropicEvents([]);
	const delta = events.find((event) => event.event === "message_delta")!.data as { delta: Record<string, unknown> };
	delta.delta = {
		stop_reason: "refusal",
		stop_sequence: null,
		stop_details: { type: "refusal", category: "reasoning_extraction" },
	};
	return events;
}

/** A Claude summarizer: refuses a summary request holding either turn's thinking, else summarizes. */
const claudeSummarizer: Router = (request, next) => {
	if (!isClaudeSummaryRequest(request)) return next();
	const sent = JSON.stringify(request.body.messages);
	if (sent.includes(FIRST_THOUGHT) || sent.includes(SECOND_THOUGHT)) return sse(reasoningExtractionRefusal());
	return anthropicReply([{ type: "text", text: "## Goal\nRename the parser module" }]);
};

/** A summarizer that refuses, as Anthropic does, a summary request carrying thinking blocks it cannot match to the original. */
const thinkingBlocksUnmodified: Router = (request, next) => {
	if (!isClaudeSummaryRequest(request)) return next();
	const blocks = (request.body.messages as { content: string | { type: string }[] }[]).flatMap((message) =>
		typeof message.content === "string" ? [] : message.content,
	);
	if (blocks.some((block) => block.type === "thinking" || block.type === "redacted_thinking")) {
		return anthropicError(
			400,
			"invalid_request_error",
			"messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
		);
	}
	return anthropicReply([{ type: "text", text: "## Goal\nRename the parser module" }]);
};

async function claudeSessionWithThinking() {
	const w = await wireSession({
		api: "anthropic-messages",
		route: claudeSummarizer,
		settings: { compaction: { keepRecentTokens: 1 } },
	});
	w.server.reply(
		anthropicReply([
			{ type: "thinking", thinking: FIRST_THOUGHT, signature: "sig-first" },
			{ type: "text", text: "I will rename the parser module." },
		]),
		anthropicReply([
			{ type: "thinking", thinking: SECOND_THOUGHT, signature: "sig-second" },
			{ type: "text", text: "Renamed it in both files." },
		]),
	);
	await w.session.prompt("rename the parser module");
	await w.session.prompt("and fix its imports");
	return w;
}

function summaryRequestText(request: RecordedRequest): string {
	return JSON.stringify(request.body.messages);
}

describe("openclaw#129518: a Claude summary request quoting the history's thinking was refused every time", () => {
	it("openclaw#129518: /compact on a Claude model sends the turns' text without their thinking and writes the summary", async () => {
		const w = await claudeSessionWithThinking();

		const result = await w.session.compact();

		expect(result.summary).toContain("Rename the parser module");
		const [summaryRequest] = w.server.requests.filter(isClaudeSummaryRequest);
		expect(summaryRequestText(summaryRequest!)).toContain("I will rename the parser module.");
		expect(summaryRequestText(summaryRequest!)).not.toContain("Assistant thinking");
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});

	it("oh-my-pi#6439: a /tree branch summary on a Claude model leaves the abandoned turn's thinking out and is recorded", async () => {
		const w = await claudeSessionWithThinking();
		const firstAnswer = w.session.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "assistant")!.id;

		const result = await w.session.navigateTree(firstAnswer, { summarize: true });

		expect(result.summaryEntry?.summary).toContain("Rename the parser module");
		const [summaryRequest] = w.server.requests.filter(isClaudeSummaryRequest);
		expect(summaryRequestText(summaryRequest!)).toContain("Renamed it in both files.");
		expect(summaryRequestText(summaryRequest!)).not.toContain(SECOND_THOUGHT);
	});

	it("claude-code#12973, opencode#31188: /compact right after a thinking tool-use turn sends no thinking block to modify; the summary is written", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			route: thinkingBlocksUnmodified,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply(
				[
					{ type: "thinking", thinking: FIRST_THOUGHT, signature: "sig-first" },
					{ type: "tool_use", id: "toolu_01", name: "bash", input: { command: "echo renamed" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([
				{ type: "thinking", thinking: SECOND_THOUGHT, signature: "sig-second" },
				{ type: "text", text: "Renamed it in both files." },
			]),
			anthropicReply([{ type: "text", text: "The imports are fixed." }]),
		);
		await w.session.prompt("rename the parser module");
		await w.session.prompt("and fix its imports");

		const result = await w.session.compact();

		expect(result.summary).toContain("Rename the parser module");
		const [summaryRequest] = w.server.requests.filter(isClaudeSummaryRequest);
		// One user message holding the conversation as text: no thinking block the API would check.
		expect(summaryRequest!.body.messages).toHaveLength(1);
		expect(summaryRequest!.body.messages[0].role).toBe("user");
		expect(summaryRequestText(summaryRequest!)).toContain("bash(command=");
	});

	it("another model's summary request still reads the turns' thinking, as pi's does", async () => {
		const w = await wireSession({
			api: "openai-completions",
			route: (request, next) =>
				isChatSummaryRequest(request)
					? chatReply([{ type: "text", text: "## Goal\nRename the parser module" }])
					: next(),
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			chatReply([
				{ type: "reasoning", text: FIRST_THOUGHT },
				{ type: "text", text: "I will rename the parser module." },
			]),
			chatReply([{ type: "text", text: "Renamed it in both files." }]),
		);
		await w.session.prompt("rename the parser module");
		await w.session.prompt("and fix its imports");

		await w.session.compact();

		const [summaryRequest] = w.server.requests.filter(isChatSummaryRequest);
		expect(summaryRequestText(summaryRequest!)).toContain(`[Assistant thinking]: ${FIRST_THOUGHT}`);
	});
});
