/**
 * Automatic compaction paths wired through the machine (behavior C.5): overflow recovery (omit
 * the failed turn, compact, continue — `prompt()` resolves only after it, unlike pi 0.73), the
 * "once per request" rule, threshold compaction, extension cancel, and manual `compact()`.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context, Message } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, roles, startGatedCompaction } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
// A factory: the reply is stamped when the request arrives, after any compaction (like a real provider).
const overflow = () => () => fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW });
const summary = (text: string) => (context: Context) => {
	expect(context.systemPrompt).toMatch(/^You are a context summarization assistant/);
	expect(context.tools ?? []).toEqual([]);
	return fauxAssistantMessage(`## Goal\n${text}`);
};

/** A request's messages as `role: text` lines (tool calls as `[name]`). */
function requestTexts(messages: readonly Message[]): string[] {
	return messages.map((message) => {
		if (typeof message.content === "string") return `${message.role}: ${message.content}`;
		const parts = message.content.map((part) =>
			part.type === "text" ? part.text : part.type === "toolCall" ? `[${part.name}]` : `[${part.type}]`,
		);
		return `${message.role}: ${parts.join(" ")}`;
	});
}

function labels(h: Harness): string[] {
	return h.events
		.filter((event) => event.type !== "message_update")
		.map((event) => {
			if (event.type === "compaction_start") return `compaction_start(${event.reason})`;
			if (event.type === "compaction_end") {
				return `compaction_end(${event.reason},willRetry=${event.willRetry},${event.result ? "result" : event.errorMessage})`;
			}
			if (event.type === "entry_appended") return `entry_appended(${event.entry.type})`;
			return event.type;
		});
}

describe("overflow recovery", () => {
	it("omits the failed turn, compacts, continues; prompt() resolves after the answer (pi's S4)", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		h.setResponses([
			fauxAssistantMessage("first answer"),
			overflow(),
			summary("earlier work"),
			(context) => fauxAssistantMessage(`Answer after compaction (${context.messages.length} messages)`),
		]);
		await h.session.prompt("one");
		h.events.length = 0;
		await h.session.prompt("two");
		expect(labels(h).join(" ")).toBe(
			[
				"agent_start turn_start message_start message_end message_start message_end turn_end agent_end",
				"entry_appended(context_edit) compaction_start(overflow) compaction_end(overflow,willRetry=true,result)",
				"agent_start turn_start message_start message_end turn_end agent_end agent_settled",
			].join(" "),
		);
		expect(roles(h.session.messages)).toEqual(["system", "compactionSummary", "user", "assistant"]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "Answer after compaction (2 messages)" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.session.isCompacting).toBe(false);
	});

	it("a second overflow in the same request fails recovery with pi's text (S4b), once", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		const failed: string[] = [];
		h.setResponses([fauxAssistantMessage("first"), overflow(), summary("s"), overflow()]);
		await h.session.prompt("one");
		h.session.subscribe((event) => {
			if (event.type === "compaction_end" && event.errorMessage) failed.push(event.errorMessage);
		});
		await h.session.prompt("two");
		expect(failed).toEqual([
			"Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.",
		]);
		expect(h.faux.callCount).toBe(4);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});

	it("an overflow with compaction disabled is just a failed answer", async () => {
		h = await createHarness({ settings: { compaction: { enabled: false } } });
		h.setResponses([overflow()]);
		await h.session.prompt("one");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: OVERFLOW });
	});
});

describe("threshold compaction", () => {
	it("compacts after an answer that fills the window, without re-running it", async () => {
		// Threshold: more than 1000 tokens in use (window 5000 − reserve 4000), far from an overflow.
		h = await createHarness({
			faux: { models: [{ id: "small", contextWindow: 5000 }] },
			settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 1 } },
		});
		h.setResponses([
			fauxAssistantMessage("x".repeat(400)),
			fauxAssistantMessage("y".repeat(4000)),
			summary("compacted"),
			summary("turn prefix"),
		]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		expect(labels(h).filter((label) => label.startsWith("compaction"))).toEqual([
			"compaction_start(threshold)",
			"compaction_end(threshold,willRetry=false,result)",
		]);
		const answers = h.faux.requests.filter(
			(request) => !request.systemPrompt?.startsWith("You are a context summarization"),
		);
		expect(answers).toHaveLength(2);
		expect(roles(h.session.messages)).toContain("compactionSummary");
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});
});

describe("session_before_compact", () => {
	it("an extension can cancel an automatic compaction (reported as aborted) or supply the summary", async () => {
		let cancel = true;
		const compacted: boolean[] = [];
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", (event) =>
						cancel
							? { cancel: true }
							: {
									compaction: {
										summary: "from the extension",
										firstKeptEntryId: event.preparation.firstKeptEntryId,
										tokensBefore: event.preparation.tokensBefore,
									},
								},
					);
					pi.on("session_compact", (event) => void compacted.push(event.fromExtension));
				},
			],
		});
		h.setResponses([fauxAssistantMessage("first"), overflow()]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ aborted: true, result: undefined });
		expect(h.faux.callCount).toBe(2);

		cancel = false;
		h.setResponses([overflow(), fauxAssistantMessage("recovered")]);
		await h.session.prompt("three");
		expect(compacted).toEqual([true]);
		expect(h.session.messages).toContainEqual(
			expect.objectContaining({ role: "compactionSummary", summary: "from the extension" }),
		);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "recovered" }] });
	});
});

describe("an overflow compaction cannot recover: agent_settled.errorMessage", () => {
	it("nothing to compact: prompt() resolves, the prompt leaves the context, agent_settled says it got no answer", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([overflow()]);
		await h.session.prompt("hello");
		expect(roles(h.session.messages)).toEqual(["system"]);
		expect(labels(h).filter((label) => label.startsWith("compaction"))).toEqual([]);
		const settled = h.eventsOfType("agent_settled");
		expect(settled).toHaveLength(1);
		expect(settled[0]?.errorMessage).toBe(
			`The prompt got no answer: the context is too long for the model (${OVERFLOW}) and there is nothing to compact (all of it is within compaction.keepRecentTokens). The prompt is left out of the context (the session history keeps it): send it again shorter or with less attached, or switch to a model with a larger context window first.`,
		);
		// The next operation is answered: its agent_settled carries nothing.
		h.setResponses([fauxAssistantMessage("short answer")]);
		await h.session.prompt("shorter");
		expect(h.eventsOfType("agent_settled").at(-1)).toEqual({ type: "agent_settled" });
	});

	/** A model with a small window: refuses any request that carries `huge` (a text without newlines), answers the others. */
	const refusesHuge = (huge: string, answer: string) => (context: Context) =>
		JSON.stringify(context.messages).includes(huge)
			? fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW })
			: fauxAssistantMessage(answer);

	it("regression: the next prompt re-sent the prompt that overflowed and overflowed again (stuck until /compact); now its request has no trace of it and is answered", async () => {
		const huge = `summarize this log: ${"line of a huge log; ".repeat(2000)}`;
		h = await createHarness({ persistence: "disk" });
		h.setResponses([
			fauxAssistantMessage("first answer"),
			refusesHuge(huge, "never: the huge prompt is refused"),
			refusesHuge(huge, "the short prompt's answer"),
		]);
		await h.session.prompt("one");
		await h.session.prompt(huge);
		expect(h.eventsOfType("agent_settled").at(-1)?.errorMessage).toContain("The prompt got no answer");
		// The failed answer and the prompt are out of the context; the log keeps both.
		expect(requestTexts(h.session.messages.filter((m) => m.role !== "system") as Message[])).toEqual([
			"user: one",
			"assistant: first answer",
		]);
		h.events.length = 0;
		await h.session.prompt("a short one");
		expect(h.faux.callCount).toBe(3);
		expect(JSON.stringify(h.faux.requests[2]!.messages)).not.toContain("huge log");
		expect(requestTexts(h.faux.requests[2]!.messages)).toEqual([
			"user: one",
			"assistant: first answer",
			"user: a short one",
		]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "the short prompt's answer" }] });
		expect(h.eventsOfType("agent_settled")).toEqual([{ type: "agent_settled" }]);
		expect(readFileSync(h.session.sessionFile!, "utf8")).toContain("line of a huge log");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("the overflowing request's tool calls, results and custom messages leave the context too; a reopened file builds the same context", async () => {
		const huge = "x".repeat(40_000);
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					void pi.on("tool_execution_end", () => {
						pi.sendMessage({ customType: "note", content: "the tool ran", display: true });
					}),
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
			refusesHuge(huge, "never"),
			refusesHuge(huge, "answered"),
		]);
		await h.session.prompt(`list the files ${huge}`);
		const logged = readFileSync(h.session.sessionFile!, "utf8");
		expect(logged).toContain('"type":"custom_message"');
		expect(logged).toContain('"role":"toolResult"');
		expect(roles(h.session.messages)).toEqual(["system"]);
		await h.session.prompt("short");
		expect(requestTexts(h.faux.requests[2]!.messages)).toEqual(["user: short"]);
		expect(h.eventsOfType("agent_settled").at(-1)).toEqual({ type: "agent_settled" });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(roles(reopenedContext(h.session.sessionFile!))).toEqual(["system", "user", "assistant"]);
	});

	it("regression: a follow-up queued during the unanswerable request re-sent the prompt that overflowed (continue()); now the follow-up goes without it, in the same operation", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("first answer"), overflow(), fauxAssistantMessage("the follow-up's answer")]);
		await h.session.prompt("one");
		const queued: Promise<unknown>[] = [];
		const stop = h.session.subscribe((event) => {
			if (event.type === "turn_start" && queued.length === 0) queued.push(h.session.followUp("then this"));
		});
		h.events.length = 0;
		await h.session.prompt("a prompt too long for the model");
		stop();
		await Promise.all(queued);
		// One operation: the overflow was not compacted (nothing to compact); the queued message ran next.
		expect(labels(h).filter((label) => label.startsWith("compaction"))).toEqual([]);
		expect(h.eventsOfType("agent_start")).toHaveLength(2);
		expect(h.faux.callCount).toBe(3);
		// The follow-up's request: the answered history and the follow-up, not the prompt that overflowed.
		expect(requestTexts(h.faux.requests[2]!.messages)).toEqual([
			"user: one",
			"assistant: first answer",
			"user: then this",
		]);
		expect(h.session.messages.at(-1)).toMatchObject({
			role: "assistant",
			content: [{ type: "text", text: "the follow-up's answer" }],
		});
		expect(h.eventsOfType("agent_settled")).toEqual([{ type: "agent_settled" }]);
		// The log keeps the prompt and its failed answer; the context omits both, also reopened.
		const logged = readFileSync(h.session.sessionFile!, "utf8");
		expect(logged).toContain("a prompt too long for the model");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(
			requestTexts(reopenedContext(h.session.sessionFile!).filter((m) => m.role !== "system") as Message[]),
		).toEqual(["user: one", "assistant: first answer", "user: then this", "assistant: the follow-up's answer"]);
	});

	it("the first request of a session overflows mid-run (after a tool call): the follow-up goes alone", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
			overflow(),
			fauxAssistantMessage("the follow-up's answer"),
		]);
		const queued: Promise<unknown>[] = [];
		const stop = h.session.subscribe((event) => {
			if (event.type === "tool_execution_start" && queued.length === 0) queued.push(h.session.followUp("then this"));
		});
		await h.session.prompt("list and read everything");
		stop();
		await Promise.all(queued);
		expect(h.faux.callCount).toBe(3);
		// The prompt, its tool call and result are left out: the follow-up is all there is.
		expect(requestTexts(h.faux.requests[2]!.messages)).toEqual(["user: then this"]);
		expect(h.eventsOfType("agent_settled")).toEqual([{ type: "agent_settled" }]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("extensions' agent_settled gets the same errorMessage", async () => {
		const seen: (string | undefined)[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => void pi.on("agent_settled", (event) => void seen.push(event.errorMessage)),
			],
		});
		h.setResponses([overflow(), fauxAssistantMessage("ok")]);
		await h.session.prompt("hello");
		await h.session.prompt("again");
		expect(seen).toEqual([expect.stringContaining("there is nothing to compact"), undefined]);
	});
});

describe("manual compact()", () => {
	it("summarizes, reports compaction_start/end(manual) and returns the result", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two"), summary("manual"), summary("prefix")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const lifecycles: string[] = [];
		h.session.inspect((event) => {
			if (event.kind === "state") lifecycles.push(event.to);
		});
		const result = await h.session.compact("focus on b");
		expect(result.summary).toContain("manual");
		expect(lifecycles).toContain("compacting.working");
		expect(labels(h).filter((label) => label.startsWith("compaction"))).toEqual([
			"compaction_start(manual)",
			"compaction_end(manual,willRetry=false,result)",
		]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		// The cut splits the last turn: its history and turn-prefix requests both carry the focus (pi#9348).
		const instructed = h.faux.requests.filter((request) => JSON.stringify(request.messages).includes("focus on b"));
		expect(instructed).toHaveLength(2);
	});

	it("rejects with pi's texts when there is nothing to compact", async () => {
		h = await createHarness();
		h.setResponses([fauxAssistantMessage("short")]);
		await h.session.prompt("a");
		await expect(h.session.compact()).rejects.toThrow("Nothing to compact (session too small)");
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({
			reason: "manual",
			errorMessage: "Compaction failed: Nothing to compact (session too small)",
		});
		expect(h.session.lifecycle).toBe("idle");
	});

	// Behavior C.1 waitForIdle(): not idle while a compaction runs, even with no operation active.
	it("waitForIdle() during a manual compaction resolves only once the compaction has ended", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		const { compacting: compaction, release } = await startGatedCompaction(h, summary);
		const order: string[] = [];
		h.session.subscribe((event) => {
			if (event.type === "compaction_end") order.push("compaction_end");
		});
		const compacting = compaction.then(() => order.push("compacted"));
		expect([h.session.isCompacting, h.session.isStreaming, h.session.isIdle]).toEqual([true, false, false]);
		const idle = h.session.waitForIdle().then(() => order.push("idle"));
		order.push("release");
		release();
		await Promise.all([compacting, idle]);
		expect(order).toEqual(["release", "compaction_end", "idle", "compacted"]);
		expect(h.session.isIdle).toBe(true);
	});
});
