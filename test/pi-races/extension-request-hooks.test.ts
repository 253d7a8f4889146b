/**
 * Reports about extension hooks on the request path — what the provider receives after
 * `before_provider_request` and `tool_call` handlers ran — replayed against Settle over HTTP: pi-ai's
 * own provider clients talk to a local server that answers as the provider does (`test/llm/wire`),
 * through a whole session from `createAgentSession`, with inline extensions and real tools.
 *
 * pi_agent_rust#219: two extensions each with a `before_provider_request` handler; only the
 * last-registered handler's return value reached the request, the earlier one's edit was lost. What
 * the user should see (pi's documented contract): handlers run in load order, a returned payload
 * replaces the payload for later handlers and for the request, `undefined` keeps it — so every edit
 * arrives, including one made in place on `event.payload`.
 *
 * rtk#3453: rtk's `tool_call` handler rewrote `event.input.command` in place and returned nothing;
 * in the runtime it ran on (oh-my-pi) the tool ran with a separate copy, so no rewrite ever took
 * effect. What the user should see (pi 0.73.1 hands the handler the arguments the tool runs with):
 * the bash tool runs the rewritten command and the model gets its output.
 *
 * pi#3556: a `tool_call` handler that throws (`throw new Error("extension bug")`) was said to crash
 * the agent loop, unlike every other hook. What the user should see: the call is blocked (fail
 * closed: the tool never runs), the model gets an error result naming the throw, and the session
 * answers on.
 *
 * pi#8999, pi#9773: `before_provider_request` never fired for the summarization requests of
 * `/compact` (also automatic compaction) and branch summaries. An extension that rewrote each
 * request to make it valid (a readable model id mapped to a Bedrock inference-profile ARN) worked
 * for every turn, then `/compact` failed with the provider's "The provided model identifier is
 * invalid". What the user should see: every request the session sends to the provider — turns,
 * compaction summaries, branch summaries — goes through the same handlers (pi 0.73.1 and later pi
 * skip them on summaries; Settle's `before_provider_headers` already ran on them).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("pi_agent_rust#219: several extensions' before_provider_request handlers chain", () => {
	it("pi_agent_rust#219: the second handler sees the first one's payload, and both edits reach the provider", async () => {
		const seenBySecond: Record<string, unknown>[] = [];
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				// First extension: returns a replacement payload.
				(pi: ExtensionAPI) => {
					pi.on("before_provider_request", (event) => ({
						...(event.payload as Record<string, unknown>),
						user: "routed-by-first",
					}));
				},
				// Second extension: edits the payload in place and returns nothing.
				(pi: ExtensionAPI) => {
					pi.on("before_provider_request", (event) => {
						const payload = event.payload as Record<string, unknown>;
						seenBySecond.push({ user: payload.user });
						payload.metadata = { trace: "second" };
						return undefined;
					});
				},
				// Third extension: returns a replacement built from what it was given.
				(pi: ExtensionAPI) => {
					pi.on("before_provider_request", (event) => ({
						...(event.payload as Record<string, unknown>),
						temperature: 0.25,
					}));
				},
			],
		});
		w.server.reply(chatReply([{ type: "text", text: "first" }]), chatReply([{ type: "text", text: "second" }]));
		await w.session.prompt("hello");
		await w.session.prompt("again");

		expect(seenBySecond).toEqual([{ user: "routed-by-first" }, { user: "routed-by-first" }]);
		expect(w.server.requests).toHaveLength(2);
		for (const request of w.server.requests) {
			expect(request.body).toMatchObject({
				model: "gpt-wire-1",
				user: "routed-by-first",
				metadata: { trace: "second" },
				temperature: 0.25,
			});
		}
		expect(w.server.requests[1]!.body.messages.at(-1)).toEqual({
			role: "user",
			content: [{ type: "text", text: "again" }],
		});
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "second" }]);
	});
});

describe("rtk#3453: a tool_call handler that rewrites event.input in place", () => {
	it("rtk#3453: bash runs the rewritten command (a real child process) and the model gets its output", async () => {
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", (event) => {
						if (event.toolName !== "bash") return;
						const input = event.input as { command: string };
						input.command = input.command.replaceAll("original.txt", "rewritten.txt");
					});
				},
			],
		});
		w.server.reply(
			chatReply([
				{
					type: "tool_call",
					id: "call_1",
					name: "bash",
					arguments: { command: "echo ran > original.txt && echo wrote original.txt" },
				},
			]),
			chatReply([{ type: "text", text: "done" }]),
		);
		await w.session.prompt("write the file");

		expect(existsSync(join(w.dir, "rewritten.txt"))).toBe(true);
		expect(existsSync(join(w.dir, "original.txt"))).toBe(false);
		expect(readFileSync(join(w.dir, "rewritten.txt"), "utf8")).toBe("ran\n");
		expect(w.server.requests).toHaveLength(2);
		expect(w.server.requests[1]!.body.messages.at(-1)).toEqual({
			role: "tool",
			content: "wrote rewritten.txt\n",
			tool_call_id: "call_1",
		});
		const saved = w.entries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		expect(saved.find((message) => message.role === "toolResult")).toMatchObject({
			isError: false,
			content: [{ type: "text", text: "wrote rewritten.txt\n" }],
		});
	});
});

describe("pi#3556: a tool_call handler that throws", () => {
	it("pi#3556: the call is blocked (the tool never runs), the model gets the throw as an error result, the session answers on", async () => {
		const laterHandler: string[] = [];
		const w = await wireSession({
			api: "anthropic-messages",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", () => {
						throw new Error("extension bug");
					});
				},
				(pi: ExtensionAPI) => {
					pi.on("tool_call", (event) => {
						laterHandler.push(event.toolCallId);
					});
				},
			],
		});
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "touch ran.txt" } }]),
			anthropicReply([{ type: "text", text: "the hook failed" }]),
			anthropicReply([{ type: "text", text: "still here" }]),
		);
		await w.session.prompt("run it");

		expect(existsSync(join(w.dir, "ran.txt"))).toBe(false);
		expect(laterHandler).toEqual([]);
		expect(w.server.requests).toHaveLength(2);
		const resultTurn = w.server.requests[1]!.body.messages.at(-1);
		expect(resultTurn.role).toBe("user");
		expect(resultTurn.content).toEqual([
			expect.objectContaining({
				type: "tool_result",
				tool_use_id: "toolu_1",
				content: "extension bug",
				is_error: true,
			}),
		]);
		expect(w.eventsOf("tool_execution_end")).toMatchObject([{ toolCallId: "toolu_1", isError: true }]);
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "the hook failed" }]);

		await w.session.prompt("and now?");
		expect(w.server.requests).toHaveLength(3);
		expect(lastAssistant(w).content).toEqual([{ type: "text", text: "still here" }]);
		const saved = w
			.entries()
			.flatMap((entry) => (entry.type === "message" && entry.message.role !== "system" ? [entry.message] : []));
		expect(saved.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"user",
			"assistant",
		]);
		expect(saved[2]).toMatchObject({ isError: true, content: [{ type: "text", text: "extension bug" }] });
	});
});

describe("pi#8999, pi#9773: before_provider_request on summarization requests", () => {
	/** An extension mapping the session's readable model id to the id the provider accepts. */
	const remapModel = (pi: ExtensionAPI) => {
		pi.on("before_provider_request", (event) => {
			const payload = event.payload as Record<string, unknown>;
			return payload.model === "gpt-wire-1" ? { ...payload, model: "profile/gpt-wire-1-routed" } : undefined;
		});
	};
	const isSummaryRequest = (body: { messages: { role: string; content: unknown }[] }) =>
		body.messages[0]?.content === SUMMARIZATION_SYSTEM_PROMPT;

	it("pi#8999: /compact's summary request carries the handler's rewrite, as the turns do", async () => {
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off", compaction: { keepRecentTokens: 1 } },
			extensionFactories: [remapModel],
		});
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			chatReply([{ type: "text", text: "second answer" }]),
			chatReply([{ type: "text", text: "## Goal\nthe summary" }]),
			chatReply([{ type: "text", text: "## Goal\nthe summary" }]),
		);
		await w.session.prompt("first");
		await w.session.prompt("second");
		const result = await w.session.compact();

		expect(result.summary).toContain("the summary");
		// The kept tail splits the last turn: a history summary and a turn-prefix summary.
		expect(w.server.requests).toHaveLength(4);
		expect(w.server.requests.map((request) => isSummaryRequest(request.body))).toEqual([false, false, true, true]);
		expect(w.server.requests.map((request) => request.body.model)).toEqual([
			"profile/gpt-wire-1-routed",
			"profile/gpt-wire-1-routed",
			"profile/gpt-wire-1-routed",
			"profile/gpt-wire-1-routed",
		]);
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});

	it("pi#8999: a branch summary's request carries the handler's rewrite", async () => {
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off" },
			extensionFactories: [remapModel],
		});
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			chatReply([{ type: "text", text: "second answer" }]),
			chatReply([{ type: "text", text: "## Goal\nthe branch summary" }]),
		);
		await w.session.prompt("first");
		await w.session.prompt("second");
		const firstUser = w.entries().find((entry) => entry.type === "message" && entry.message.role === "user");
		await w.session.navigateTree(firstUser!.id, { summarize: true });

		expect(w.server.requests).toHaveLength(3);
		expect(isSummaryRequest(w.server.requests[2]!.body)).toBe(true);
		expect(w.server.requests.map((request) => request.body.model)).toEqual([
			"profile/gpt-wire-1-routed",
			"profile/gpt-wire-1-routed",
			"profile/gpt-wire-1-routed",
		]);
		const summaries = w.entries().filter((entry) => entry.type === "branch_summary");
		expect(summaries).toMatchObject([{ summary: expect.stringContaining("the branch summary") }]);
	});
});
