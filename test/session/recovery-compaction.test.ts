/**
 * Compaction rules (behavior C.5, C.1 step 9, issue 5) through the public API: the threshold
 * predicate and its stale-usage rules, overflow recovery (omit, compact, continue, once per
 * request), the pre-send check, the default summarizer (update mode, file lists),
 * `session_before_compact` / `session_compact` / `session_compact_failed`, exact
 * `compaction_start` / `compaction_end` payloads, manual `compact()` / `abortCompaction()` with
 * pi's texts, and `prompt()` resolving only after the whole recovery.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { formatTrace } from "../../src/inspect/trace.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { estimateMessageTokens } from "../../src/llm/tokens.js";
import type { Usage } from "../../src/llm/types.js";
import type { CompactionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, roles, tick } from "./helpers.js";
import {
	BIG_ANSWER,
	errorReply,
	gate,
	OVERFLOW_TEXT,
	overflowReply,
	RECOVERY_FAILED,
	recoveryLabels,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** An extension that gives the next assistant message exactly `tokens` of usage (a same-role `message_end` replacement). */
function usageSetter() {
	const next: (number | undefined)[] = [];
	const factory = (pi: ExtensionAPI) => {
		pi.on("message_end", (event) => {
			if (event.message.role !== "assistant") return undefined;
			const tokens = next.shift();
			if (tokens === undefined) return undefined;
			const usage: Usage = {
				...event.message.usage,
				input: tokens,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: tokens,
			};
			return { message: { ...event.message, usage } };
		});
	};
	return { factory, next };
}

describe("threshold compaction", () => {
	it("is due when context tokens > contextWindow − reserveTokens (not at equality)", async () => {
		const usage = usageSetter();
		h = await createHarness({ ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS, extensionFactories: [usage.factory] });
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		usage.next.push(4000);
		await h.session.prompt("a");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		usage.next.push(4001);
		await h.session.prompt("b");
		expect(h.eventsOfType("compaction_start")).toEqual([{ type: "compaction_start", reason: "threshold" }]);
	});

	it("never re-triggers on usage from before the latest compaction (stale usage, C.5 step 4 and 6)", async () => {
		const usage = usageSetter();
		h = await createHarness({
			...SMALL_WINDOW,
			settings: { ...THRESHOLD_SETTINGS, retry: { enabled: false } },
			extensionFactories: [usage.factory],
		});
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two"), errorReply("503 Service Unavailable")]);
		await h.session.prompt("a");
		usage.next.push(7000);
		await h.session.prompt("b");
		expect(h.eventsOfType("compaction_start")).toHaveLength(1);
		// The kept answer still reports 7000 tokens, but it predates the compaction: neither the
		// pre-send check nor the error's estimate (which rests on that usage) compacts again.
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", usage: { totalTokens: 7000 } });
		await h.session.prompt("c");
		expect(h.eventsOfType("compaction_start")).toHaveLength(1);
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "error" });
	});

	it("keeps at least keepRecentTokens of recent messages verbatim", async () => {
		h = await createHarness({
			...SMALL_WINDOW,
			settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 500 } },
		});
		script(h, [
			fauxAssistantMessage("x".repeat(2400)),
			fauxAssistantMessage("y".repeat(2400)),
			fauxAssistantMessage(BIG_ANSWER),
		]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		await h.session.prompt("c");
		const compaction = h.sessionManager
			.getEntries()
			.find((entry): entry is CompactionEntry => entry.type === "compaction")!;
		const kept = h.session.messages.filter(
			(message) => message.role !== "system" && message.role !== "compactionSummary",
		);
		expect(kept.reduce((sum, message) => sum + estimateMessageTokens(message), 0)).toBeGreaterThanOrEqual(500);
		expect(h.sessionManager.getEntry(compaction.firstKeptEntryId)).toBeDefined();
		expect(h.session.messages.filter((message) => message.role === "compactionSummary")).toHaveLength(1);
	});

	it("an aborted answer over the threshold does not compact when it ends; the next prompt compacts before sending", async () => {
		const usage = usageSetter();
		h = await createHarness({ ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS, extensionFactories: [usage.factory] });
		// The provider ended the stream as aborted (no session.abort(): nothing marks the operation aborted).
		script(h, [fauxAssistantMessage("partial", { stopReason: "aborted" }), fauxAssistantMessage("two")]);
		usage.next.push(4001);
		await h.session.prompt("a");
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "aborted", usage: { totalTokens: 4001 } });
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		await h.session.prompt("b");
		expect(h.eventsOfType("compaction_start")).toEqual([{ type: "compaction_start", reason: "threshold" }]);
	});
});

describe("overflow recovery", () => {
	it("omits the failed answer (not the previous turn's tool results), compacts, and continues", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		writeFileSync(join(h.tempDir, "notes.txt"), "line one\n");
		const { answerRequests } = script(h, [
			fauxAssistantMessage("warm-up"),
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			overflowReply(),
			fauxAssistantMessage("recovered"),
		]);
		await h.session.prompt("one");
		h.events.length = 0;
		await h.session.prompt("read the notes");
		expect(answerRequests).toHaveLength(4);
		// The retried request: summary, then the kept tail ending with the read's result (the model continues from it).
		expect(answerRequests[3]!.messages.at(-1)).toMatchObject({ role: "toolResult", toolName: "read" });
		expect(answerRequests[3]!.messages.some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(false);
		const edits = h.sessionManager.getEntries().filter((entry) => entry.type === "context_edit");
		expect(edits).toHaveLength(1);
		const target = h.sessionManager.getEntry(edits[0]!.type === "context_edit" ? edits[0]!.targetId : "")!;
		expect(target).toMatchObject({ type: "message", message: { role: "assistant", errorMessage: OVERFLOW_TEXT } });
		expect(h.eventsOfType("compaction_end")).toEqual([
			expect.objectContaining({ reason: "overflow", willRetry: true, aborted: false }),
		]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "recovered" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("a second overflow in the same request ends with pi's text, once", async () => {
		const failedEvents: unknown[] = [];
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => void pi.on("session_compact_failed", (event) => void failedEvents.push(event)),
			],
		});
		const { answerRequests } = script(h, [fauxAssistantMessage("first"), overflowReply(), overflowReply()]);
		await h.session.prompt("one");
		h.events.length = 0;
		await h.session.prompt("two");
		expect(recoveryLabels(h.events).filter((label) => label.startsWith("compaction"))).toEqual([
			"compaction_start(overflow)",
			"compaction_end(overflow,result,aborted=false,willRetry=true)",
			`compaction_end(overflow,none,aborted=false,willRetry=false,${RECOVERY_FAILED})`,
		]);
		expect(failedEvents).toEqual([
			{
				type: "session_compact_failed",
				reason: "overflow",
				aborted: false,
				willRetry: false,
				fromExtension: false,
				errorMessage: RECOVERY_FAILED,
			},
		]);
		expect(answerRequests).toHaveLength(3);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: OVERFLOW_TEXT });
	});

	it("an overflow left in the context is compacted before the next prompt is sent (C.1 step 9)", async () => {
		h = await createHarness({ settings: { compaction: { enabled: false, keepRecentTokens: 1 } } });
		const { answerRequests } = script(h, [
			fauxAssistantMessage("first"),
			overflowReply(),
			fauxAssistantMessage("after the pre-send compaction"),
		]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("compaction_start")).toEqual([]);
		h.session.setAutoCompactionEnabled(true);
		h.events.length = 0;
		await h.session.prompt("three");
		const labels = recoveryLabels(h.events);
		expect(labels.slice(0, 2)).toEqual([
			"compaction_start(overflow)",
			"compaction_end(overflow,result,aborted=false,willRetry=false)",
		]);
		expect(labels.indexOf("agent_start")).toBeGreaterThan(1);
		expect(answerRequests).toHaveLength(3);
		expect(userTexts(answerRequests[2]!)[0]).toMatch(/^The conversation history before this point was compacted/);
		expect(userTexts(answerRequests[2]!).at(-1)).toBe("three");
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "after the pre-send compaction" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("prompt() resolves only after the whole recovery has settled (unlike pi 0.73)", async () => {
		const summaryGate = gate();
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		script(h, [fauxAssistantMessage("first"), overflowReply(), fauxAssistantMessage("recovered")], {
			summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\nsummary")),
		});
		await h.session.prompt("one");
		let resolved = false;
		const second = h.session.prompt("two").then(() => {
			resolved = true;
		});
		while (!h.session.isCompacting) await tick();
		for (let i = 0; i < 10; i++) await tick();
		expect(resolved).toBe(false);
		expect(h.session.isStreaming).toBe(true);
		summaryGate.release();
		await second;
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "recovered" }] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});

	it("abort() during overflow compaction stops it: no retry, aborted compaction_end, one agent_settled", async () => {
		const summaryGate = gate();
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		const { answerRequests } = script(
			h,
			[fauxAssistantMessage("first"), overflowReply(), fauxAssistantMessage("never")],
			{
				summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\nlate")),
			},
		);
		await h.session.prompt("one");
		h.events.length = 0;
		const second = h.session.prompt("two");
		while (!h.session.isCompacting) await tick();
		await h.session.abort();
		await second;
		expect(h.eventsOfType("compaction_end")).toEqual([
			{ type: "compaction_end", reason: "overflow", result: undefined, aborted: true, willRetry: false },
		]);
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		summaryGate.release();
	});
});

describe("the pre-send check", () => {
	it("while it compacts, isCompacting is true (as in pi) and the lifecycle trace says so, in preflight", async () => {
		const summaryGate = gate();
		h = await createHarness({ settings: { compaction: { enabled: false, keepRecentTokens: 1 } } });
		script(h, [fauxAssistantMessage("first"), overflowReply(), fauxAssistantMessage("answer")], {
			summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\nthe summary")),
		});
		await h.session.prompt("one");
		await h.session.prompt("two");
		h.session.setAutoCompactionEnabled(true);
		const trace = h.session.trace();
		const third = h.session.prompt("three");
		while (h.eventsOfType("compaction_start").length === 0) await tick();
		expect(h.session.lifecycle).toBe("preflight");
		expect(h.session.isCompacting).toBe(true);
		expect(h.session.isStreaming).toBe(false); // pi's too: the prompt has not started yet
		summaryGate.release();
		await third;
		expect(h.session.isCompacting).toBe(false);
		trace.stop();
		const lines = formatTrace(trace)
			.split("\n")
			.map((line) => line.slice(9));
		const start = lines.indexOf("event   PRE_SEND_COMPACTION_START reason overflow");
		// What it did: no compaction actor runs in preflight, so its end says it.
		const end = lines.findIndex((line) =>
			/^event {3}PRE_SEND_COMPACTION_END compacted \d+ tokens to ~\d+ \(entry \w+\), first kept entry \w+$/.test(line),
		);
		expect(lines.indexOf("state   idle → preflight (PROMPT (2))")).toBeLessThan(start);
		expect(start).toBeLessThan(end);
		expect(end).toBeLessThan(lines.findIndex((line) => line.startsWith("state   preflight → running.working")));
	});

	it("abort() during a pre-send compaction stops it; the prompt's operation settles without a model call", async () => {
		const summaryGate = gate();
		h = await createHarness({ settings: { compaction: { enabled: false, keepRecentTokens: 1 } } });
		const { answerRequests } = script(
			h,
			[fauxAssistantMessage("first"), overflowReply(), fauxAssistantMessage("never")],
			{
				summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\nlate")),
			},
		);
		await h.session.prompt("one");
		await h.session.prompt("two");
		h.session.setAutoCompactionEnabled(true);
		h.events.length = 0;
		const third = h.session.prompt("three");
		while (h.eventsOfType("compaction_start").length === 0) await tick();
		expect(h.session.lifecycle).toBe("preflight");
		await h.session.abort();
		await third;
		expect(h.eventsOfType("compaction_end")).toEqual([
			{ type: "compaction_end", reason: "overflow", result: undefined, aborted: true, willRetry: false },
		]);
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
		summaryGate.release();
	});
});

describe("extension hooks", () => {
	it("session_compact gets the entry, reason and willRetry; a supplied compaction is marked fromHook", async () => {
		const seen: unknown[] = [];
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", (event) => {
						seen.push([
							"before",
							event.reason,
							event.willRetry,
							event.preparation.messagesToSummarize.map((m) => m.role),
						]);
						return {
							compaction: {
								summary: "from the extension",
								firstKeptEntryId: event.preparation.firstKeptEntryId,
								tokensBefore: event.preparation.tokensBefore,
								details: { mine: true },
							},
						};
					});
					pi.on("session_compact", (event) => {
						seen.push(["compact", event.reason, event.willRetry, event.fromExtension, event.compactionEntry.fromHook]);
					});
				},
			],
		});
		const { summaryRequests } = script(h, [fauxAssistantMessage("first"), overflowReply(), fauxAssistantMessage("ok")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(seen).toEqual([
			["before", "overflow", true, ["user", "assistant"]],
			["compact", "overflow", true, true, true],
		]);
		expect(summaryRequests).toEqual([]);
		const end = h.eventsOfType("compaction_end")[0]!;
		expect(end.result).toMatchObject({ summary: "from the extension", details: { mine: true } });
	});

	it("a failing summarizer reports Auto-compaction failed to listeners and session_compact_failed", async () => {
		const failed: unknown[] = [];
		// The summarizer's retries back off 2, 4 and 8 s: on the simulated clock, moved by each backoff.
		h = await createHarness({
			...SMALL_WINDOW,
			simulatedClock: true,
			settings: THRESHOLD_SETTINGS,
			extensionFactories: [
				(pi: ExtensionAPI) => void pi.on("session_compact_failed", (event) => void failed.push(event)),
			],
		});
		script(h, [fauxAssistantMessage("short"), fauxAssistantMessage(BIG_ANSWER)], {
			summary: () => errorReply("529 overloaded_error"),
		});
		await h.settle(h.session.prompt("a"));
		await h.settle(h.session.prompt("b"));
		const end = h.eventsOfType("compaction_end")[0]!;
		expect(end).toEqual({
			type: "compaction_end",
			reason: "threshold",
			result: undefined,
			aborted: false,
			willRetry: false,
			errorMessage: "Auto-compaction failed: Summarization failed: 529 overloaded_error",
		});
		expect(failed).toEqual([
			expect.objectContaining({ reason: "threshold", aborted: false, errorMessage: end.errorMessage }),
		]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		// Every backoff was waited (on the clock) before the failure was reported. The split turn's two
		// summary requests run at once and retry on their own: each report says which one it is.
		const retries = h.events.filter((e) => e.type.startsWith("summarization_retry_"));
		for (const part of ["history", "turnPrefix"]) {
			const mine = retries.filter((e) => (e as { part?: string }).part === part);
			expect(
				mine.map((e) =>
					e.type === "summarization_retry_scheduled" ? `${e.attempt}: ${e.delayMs}ms` : e.type.slice(20),
				),
			).toEqual(["1: 2000ms", "attempt_start", "2: 4000ms", "attempt_start", "3: 8000ms", "attempt_start", "finished"]);
		}
		expect(retries.filter((e) => (e as { part?: string }).part === undefined)).toEqual([]);
	});
});

describe("the default summarizer", () => {
	it("records files read and written, and updates the previous summary in update mode", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		writeFileSync(join(h.tempDir, "notes.txt"), "a note\n");
		const { summaryRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("read it"),
			fauxAssistantMessage([fauxToolCall("write", { path: "out.txt", content: "x" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("wrote it"),
			fauxAssistantMessage("later"),
		]);
		await h.session.prompt("read notes.txt");
		await h.session.prompt("write out.txt");
		const first = await h.session.compact();
		expect(first.details).toEqual({ readFiles: ["notes.txt"], modifiedFiles: ["out.txt"] });
		expect(first.summary).toContain("<read-files>\nnotes.txt\n</read-files>");
		const firstRequest = userTexts(summaryRequests[0]!).join("\n");
		expect(firstRequest).toContain("<conversation>");
		expect(firstRequest).not.toContain("<previous-summary>");

		await h.session.prompt("one more");
		const before = summaryRequests.length;
		await h.session.compact("keep it short");
		const update = userTexts(summaryRequests[before]!).join("\n");
		expect(update).toContain("<previous-summary>");
		expect(update).toContain("keep it short");
		expect(update).toMatch(/NEW messages/);
	});
});

describe("manual compact()", () => {
	it("returns the result with compaction_start/end(manual) payloads as pi's", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		h.events.length = 0;
		const result = await h.session.compact();
		expect(h.events.map((event) => event.type)).toEqual(["compaction_start", "compaction_end"]);
		expect(h.events[0]).toEqual({ type: "compaction_start", reason: "manual" });
		expect(h.events[1]).toEqual({ type: "compaction_end", reason: "manual", result, aborted: false, willRetry: false });
		expect(Object.keys(result).sort()).toEqual(
			["details", "estimatedTokensAfter", "firstKeptEntryId", "summary", "tokensBefore", "usage"].sort(),
		);
		expect(result.estimatedTokensAfter).toBeLessThan(result.tokensBefore);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(roles(h.session.messages)).toContain("compactionSummary");

		await expect(h.session.compact()).rejects.toThrow("Already compacted");
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({
			errorMessage: "Compaction failed: Already compacted",
		});
	});

	it("abortCompaction() rejects with Compaction cancelled and writes nothing; an extension cancel rejects ABORTED too, naming the extension (pi#7492)", async () => {
		let cancel = false;
		const summaryGate = gate();
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) => void pi.on("session_before_compact", () => (cancel ? { cancel: true } : undefined)),
			],
		});
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")], {
			summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\nlate")),
		});
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact();
		while (!h.session.isCompacting) await tick();
		h.session.abortCompaction();
		await expect(compacting).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		expect(h.eventsOfType("compaction_end").at(-1)).toEqual({
			type: "compaction_end",
			reason: "manual",
			result: undefined,
			aborted: true,
			willRetry: false,
		});
		cancel = true;
		await expect(h.session.compact()).rejects.toMatchObject({
			code: "ABORTED",
			message: expect.stringMatching(/^Compaction cancelled by the extension \S+: its session_before_compact handler/),
		});
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
		summaryGate.release();
	});

	it("regression: abortCompaction() as the compaction starts (before its summary request) was lost", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		const { summaryRequests } = script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		h.session.inspect((event) => {
			if (event.kind === "state" && event.to === "compacting.working") h.session.abortCompaction();
		});
		await expect(h.session.compact()).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		expect(summaryRequests).toEqual([]);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("abortCompaction() wins over a summary an extension returns after it: nothing is written", async () => {
		const handlerGate = gate();
		let asked = false;
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi: ExtensionAPI) =>
					void pi.on("session_before_compact", async (event) => {
						asked = true;
						await handlerGate.promise;
						return {
							compaction: {
								summary: "a summary that arrives too late",
								firstKeptEntryId: event.preparation.firstKeptEntryId,
								tokensBefore: event.preparation.tokensBefore,
							},
						};
					}),
			],
		});
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact();
		while (!asked) await tick();
		h.session.abortCompaction();
		handlerGate.release();
		await expect(compacting).rejects.toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		expect(h.eventsOfType("compaction_end").at(-1)).toEqual({
			type: "compaction_end",
			reason: "manual",
			result: undefined,
			aborted: true,
			willRetry: false,
		});
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(roles(h.session.messages)).not.toContain("compactionSummary");
		expect(h.session.lifecycle).toBe("idle");
	});

	it("rejects with pi's no-model and auth texts, still reporting the compaction's end", async () => {
		h = await createHarness({ withConfiguredAuth: false });
		await expect(h.session.compact()).rejects.toThrow(/^No API key found for faux\./);
		expect(h.events.map((event) => event.type)).toEqual(["compaction_start", "compaction_end"]);
		expect(h.eventsOfType("compaction_end")[0]?.errorMessage).toMatch(
			/^Compaction failed: No API key found for faux\./,
		);
	});

	it("prompt() during a manual compaction rejects with pi's text; the compaction goes on", async () => {
		const summaryGate = gate();
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 1 } } });
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")], {
			summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\ndone")),
		});
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact();
		while (!h.session.isCompacting) await tick();
		await expect(h.session.prompt("while compacting")).rejects.toThrow(
			"Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry.",
		);
		summaryGate.release();
		await expect(compacting).resolves.toMatchObject({ summary: expect.stringContaining("done") });
	});

	it("aborts a running operation first and does not resume it", async () => {
		const toolGate = gate();
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			tools: [
				{
					name: "wait",
					label: "Wait",
					description: "waits",
					parameters: { type: "object", properties: {} },
					execute: async () => {
						await toolGate.promise;
						return { content: [{ type: "text", text: "done" }], details: {} };
					},
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);
		await h.session.prompt("a");
		const running = h.session.prompt("b");
		while (answerRequests.length < 2) await tick();
		const compacting = h.session.compact();
		toolGate.release();
		await running;
		await compacting;
		expect(answerRequests).toHaveLength(2);
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(h.session.lifecycle).toBe("idle");
	});
});
