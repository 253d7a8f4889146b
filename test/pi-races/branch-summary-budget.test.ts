/**
 * Reports about the size of a branch summary request (`/tree` → Summarize), replayed against Settle
 * over HTTP: pi-ai's own OpenAI client talks to a local server that answers as a Chat Completions
 * provider does (`test/llm/wire`), through a whole session from `createAgentSession`, its JSONL on
 * disk.
 *
 * pi#8845: branch summaries asked for 2048 output tokens; a reasoning model spent most of them
 * thinking and the answer stopped at the cap (pi 0.73.1 then records the cut text as the summary).
 * What the user should see: an answer that stops at the cap is not recorded as the summary (its
 * last sections would be missing): the navigation fails with a typed error saying so, the file and
 * the leaf are as before, and navigating again records the complete summary. The cap stays pi
 * 0.73.1's 2048.
 *
 * kdeps#566 (a port of pi's branch summaries): the abandoned branch was sized against the window
 * without the request's own text. On a small window, "Summarize with custom prompt" adds the
 * user's instructions on top of a conversation that already fills its budget, and the provider
 * refuses the request as too long. What the user should see: the request, instructions and answer
 * budget included, fits the window, keeps the newest turns and the instructions, and the summary is
 * recorded; instructions that leave no room for the conversation get a typed error before any
 * request, and nothing is written. The newest turn is always kept: an abandoned answer larger than
 * the whole budget on its own is sent cut to fit, where pi 0.73.1 records "No content to summarize".
 */
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { PNG_1X1 } from "../export/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import type { RecordedRequest, Reply } from "../llm/wire/server.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";
import { isChatSummaryRequest } from "./helpers.js";

const wireSession = useWireSession();

/** Characters of every message's text in a Chat Completions request. */
function requestChars(request: RecordedRequest): number {
	let chars = 0;
	for (const message of request.body.messages as { content: unknown }[]) {
		if (typeof message.content === "string") chars += message.content.length;
		else if (Array.isArray(message.content)) {
			for (const part of message.content as { text?: string }[]) chars += part.text?.length ?? 0;
		}
	}
	return chars;
}

function answerCap(request: RecordedRequest): number {
	return request.body.max_completion_tokens ?? request.body.max_tokens;
}

/** A provider with a `window`-token context: a request whose text and answer cap exceed it is refused, as vLLM does. */
function windowedProvider(
	window: number,
	summary: () => Reply,
): (request: RecordedRequest, next: () => Reply) => Reply {
	return (request, next) => {
		const tokens = Math.ceil(requestChars(request) / 4) + answerCap(request);
		if (tokens > window) {
			return openAiError(
				400,
				`This model's maximum context length is ${window} tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages or completion.`,
				"invalid_request_error",
			);
		}
		return isChatSummaryRequest(request) ? summary() : next();
	};
}

function branchSummaries(entries: SessionEntry[]): SessionEntry[] {
	return entries.filter((entry) => entry.type === "branch_summary");
}

/** The text of every assistant answer on disk, in order (an error answer shows as its error). */
function answerTexts(session: WireSession): string[] {
	return session
		.entries()
		.flatMap((entry) =>
			entry.type === "message" && entry.message.role === "assistant"
				? [
						entry.message.stopReason === "error"
							? `error: ${entry.message.errorMessage}`
							: entry.message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
					]
				: [],
		);
}

function firstAssistantId(session: WireSession["session"]): string {
	return session.sessionManager
		.getEntries()
		.find((entry) => entry.type === "message" && entry.message.role === "assistant")!.id;
}

describe("pi#8845: a branch summary that hits its output cap", () => {
	it("pi#8845: /tree → Summarize with a reasoning model that stops at the cap: the cut answer is refused with a typed error naming the cap, no summary is written (its cost is), and the next try records the complete summary", async () => {
		const summaries: Reply[] = [
			chatReply(
				[
					{ type: "reasoning", text: "Let me think about what the branch did, at length..." },
					{ type: "text", text: "## Goal\nRename the parser module\n\n## Progress\n### Done\n- [x] renamed par" },
				],
				{ finishReason: "length", usage: { prompt: 900, completion: 2048 } },
			),
			chatReply([{ type: "text", text: "## Goal\nRename the parser module\n\n## Next Steps\n1. Update the imports" }]),
		];
		const w = await wireSession({
			api: "openai-completions",
			model: { maxTokens: 32_768 },
			route: (request, next) => (isChatSummaryRequest(request) ? summaries.shift()! : next()),
		});
		w.server.reply(chatReply([{ type: "text", text: "first answer" }]));
		w.server.reply(chatReply([{ type: "text", text: "renamed the parser module" }]));
		await w.session.prompt("first question");
		await w.session.prompt("rename the parser module");
		const leafBefore = w.session.sessionManager.getLeafId();
		const linesBefore = w.entries().length;

		const failed = await w.session.navigateTree(firstAssistantId(w.session), { summarize: true }).then(
			() => undefined,
			(error: unknown) => error,
		);

		const summaryRequest = w.server.requests.find(isChatSummaryRequest)!;
		expect(answerCap(summaryRequest)).toBe(2048);
		expect(failed).toBeInstanceOf(SettleError);
		expect((failed as SettleError).code).toBe("PROVIDER");
		expect((failed as SettleError).message).toMatch(/Branch summarization failed: .*2048-token cap/);
		// No summary and no move: only the cut answer's cost is recorded, after the old leaf (mindroom#2151).
		expect(w.entries()).toHaveLength(linesBefore + 1);
		expect(w.entries().at(-1)).toMatchObject({ type: "usage", kind: "branch_summary", parentId: leafBefore });
		expect(w.session.sessionManager.getLeafId()).toBe(w.entries().at(-1)?.id);
		expect(branchSummaries(w.entries())).toEqual([]);

		const result = await w.session.navigateTree(firstAssistantId(w.session), { summarize: true });
		expect(result.summaryEntry?.summary).toContain("1. Update the imports");
		expect(branchSummaries(w.entries())).toHaveLength(1);
	});
});

describe("kdeps#566: a branch summary with custom instructions on a small window", () => {
	const WINDOW = 4096;
	/** About 400 tokens of the user's own focus for the summary. */
	const INSTRUCTIONS = `Focus on the migration plan: ${"list every table, its new column types and the order the migrations run in; ".repeat(20)}`;

	async function branchOnSmallWindow(summary: () => Reply) {
		const w = await wireSession({
			api: "openai-completions",
			// Turns ask for 1024 output tokens, so that they fit the window too.
			model: { contextWindow: WINDOW, maxTokens: 1024, reasoning: false },
			settings: { compaction: { enabled: false } },
			route: windowedProvider(WINDOW, summary),
		});
		for (let turn = 1; turn <= 6; turn++) w.server.reply(chatReply([{ type: "text", text: `answer ${turn}` }]));
		await w.session.prompt("first question");
		// Five abandoned turns of about 330 tokens each: more than the branch budget on their own.
		for (let turn = 2; turn <= 6; turn++) {
			await w.session.prompt(`turn ${turn}: ${`migrate table_${turn} to the new schema; `.repeat(32)}`);
		}
		expect(answerTexts(w)).toEqual(["answer 1", "answer 2", "answer 3", "answer 4", "answer 5", "answer 6"]);
		return w;
	}

	it("kdeps#566: /tree → Summarize with a custom prompt on a 4096-token window: the request with the instructions and its answer cap fits the window, carries the newest abandoned turn and the instructions, and the summary is recorded", async () => {
		const session = await branchOnSmallWindow(() => chatReply([{ type: "text", text: "## Goal\nMigrate the tables" }]));

		const result = await session.session.navigateTree(firstAssistantId(session.session), {
			summarize: true,
			customInstructions: INSTRUCTIONS,
		});

		const request = session.server.requests.find(isChatSummaryRequest)!;
		expect(Math.ceil(requestChars(request) / 4) + answerCap(request)).toBeLessThanOrEqual(WINDOW);
		const userText = request.body.messages.find((m: { role: string }) => m.role === "user").content;
		const text = typeof userText === "string" ? userText : userText.map((p: { text: string }) => p.text).join("");
		expect(text).toContain("turn 6: migrate table_6");
		expect(text).toContain(`Additional focus: ${INSTRUCTIONS}`);
		expect(result.summaryEntry?.summary).toContain("Migrate the tables");
		expect(branchSummaries(session.entries())).toHaveLength(1);
	});

	it('kdeps#566: an abandoned answer larger than the whole budget on its own: the request carries its start, cut to fit the window with a note, and the model\'s summary is recorded instead of "No content to summarize"', async () => {
		const summaries: string[] = [];
		const w = await wireSession({
			api: "openai-completions",
			// Turns ask for 1024 output tokens, so that they fit the window too.
			model: { contextWindow: WINDOW, maxTokens: 1024, reasoning: false },
			settings: { compaction: { enabled: false } },
			route: windowedProvider(WINDOW, () => {
				summaries.push("asked");
				return chatReply([{ type: "text", text: "## Goal\nWrite the migration log" }]);
			}),
		});
		w.server.reply(chatReply([{ type: "text", text: "answer 1" }]));
		// About 3000 tokens: more than the 2048-token branch budget of this window on its own.
		w.server.reply(chatReply([{ type: "text", text: `MIGRATION-LOG-START ${"table_x migrated; ".repeat(660)}` }]));
		await w.session.prompt("first question");
		await w.session.prompt("write the full migration log");
		expect(answerTexts(w)[1]).toMatch(/^MIGRATION-LOG-START/);

		const result = await w.session.navigateTree(firstAssistantId(w.session), { summarize: true });

		expect(summaries).toHaveLength(1);
		const request = w.server.requests.find(isChatSummaryRequest)!;
		expect(Math.ceil(requestChars(request) / 4) + answerCap(request)).toBeLessThanOrEqual(WINDOW);
		expect(JSON.stringify(request.body.messages)).toContain("MIGRATION-LOG-START");
		expect(JSON.stringify(request.body.messages)).toMatch(/more characters cut to fit/);
		expect(result.summaryEntry?.summary).toContain("Write the migration log");
		expect(result.summaryEntry?.summary).not.toContain("No content to summarize");
	});

	it("kdeps#566: custom instructions longer than the window leaves room for: navigateTree rejects with a typed INVALID_ARGUMENT saying to shorten them, sends no summary request, and writes nothing", async () => {
		const session = await branchOnSmallWindow(() => chatReply([{ type: "text", text: "## Goal\nnever asked" }]));
		const requestsBefore = session.server.requests.length;
		const linesBefore = session.entries().length;
		const leafBefore = session.session.sessionManager.getLeafId();

		const failed = await session.session
			.navigateTree(firstAssistantId(session.session), {
				summarize: true,
				// About 2400 tokens: with the 2048-token answer, more than the window.
				customInstructions: INSTRUCTIONS.repeat(6),
			})
			.then(
				() => undefined,
				(error: unknown) => error,
			);

		expect(failed).toBeInstanceOf(SettleError);
		expect((failed as SettleError).code).toBe("INVALID_ARGUMENT");
		expect((failed as SettleError).message).toMatch(/shorten the custom instructions/);
		expect(session.server.requests.length).toBe(requestsBefore);
		expect(session.entries()).toHaveLength(linesBefore);
		expect(session.session.sessionManager.getLeafId()).toBe(leafBefore);
	});
});

describe("a branch summary whose newest abandoned message holds only images", () => {
	it("/tree → Summarize, the abandoned branch ending in an images-only user message on a 4096-token window: the request carries the branch's text (the images are never sent, so they take no room) and the model's summary is recorded, not \"No content to summarize\"", async () => {
		const WINDOW = 4096;
		const w = await wireSession({
			api: "openai-completions",
			model: { contextWindow: WINDOW, maxTokens: 1024, reasoning: false, input: ["text", "image"] },
			settings: { compaction: { enabled: false } },
			route: windowedProvider(WINDOW, () => chatReply([{ type: "text", text: "## Goal\nKeep the vault path" }])),
		});
		w.server.reply(chatReply([{ type: "text", text: "answer 1" }]), chatReply([{ type: "text", text: "noted" }]));
		await w.session.prompt("first question");
		await w.session.prompt("the database password lives at vault path secret/prod-db");
		// Two screenshots, no words: estimated at about 2400 tokens, more than this window's branch budget.
		const image = { type: "image" as const, data: PNG_1X1, mimeType: "image/png" };
		w.session.sessionManager.appendMessage({ role: "user", content: [image, image], timestamp: Date.now() });

		const result = await w.session.navigateTree(firstAssistantId(w.session), { summarize: true });

		const request = w.server.requests.find(isChatSummaryRequest);
		expect(JSON.stringify(request?.body.messages)).toContain("secret/prod-db");
		expect(JSON.stringify(request?.body.messages)).not.toContain(PNG_1X1);
		expect(result.summaryEntry?.summary).toContain("Keep the vault path");
		expect(result.summaryEntry?.summary).not.toContain("No content to summarize");
	});
});
