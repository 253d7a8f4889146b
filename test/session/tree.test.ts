/**
 * Tree navigation (behavior C.13) through the public API: leaf and editorText rules, the branch
 * summary of the abandoned branch, `session_before_tree` (cancel, supplied summary, overridden
 * instructions and label) and `session_tree`, `abortBranchSummary()`, pi's error texts,
 * `isCompacting` meanwhile, the tool loadout restored from the branch, the extension command
 * context's `navigateTree`, and the reopened JSONL file.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { estimateMessageTokens } from "../../src/llm/tokens.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, roles, tick } from "./helpers.js";
import { gate, script, userTexts } from "./recovery-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** The message entries of the log, by role and text, for picking navigation targets. */
function messageEntry(role: string, text?: string): SessionEntry {
	const found = h.sessionManager.getEntries().find((entry) => {
		if (entry.type !== "message" || entry.message.role !== role) return false;
		if (text === undefined) return true;
		const content = (entry.message as { content?: unknown }).content;
		return JSON.stringify(content).includes(text);
	});
	if (!found) throw new Error(`no ${role} entry with ${text}`);
	return found;
}

/** Two exchanges: "first" → "answer one", "second" → "answer two". */
async function twoExchanges(
	options: Parameters<typeof createHarness>[0] = {},
	more: Parameters<typeof script>[1] = [],
) {
	h = await createHarness({ persistence: "disk", ...options });
	const scripted = script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two"), ...more]);
	await h.session.prompt("first");
	await h.session.prompt("second");
	return scripted;
}

describe("navigateTree without a summary", () => {
	it("an assistant target becomes the leaf; the next prompt branches from it; the file reopens to the same context", async () => {
		const seen: unknown[] = [];
		const { answerRequests } = await twoExchanges(
			{ extensionFactories: [(pi: ExtensionAPI) => void pi.on("session_tree", (event) => void seen.push(event))] },
			[fauxAssistantMessage("answer three")],
		);
		const oldLeaf = h.sessionManager.getLeafId();
		const target = messageEntry("assistant", "answer one");
		const result = await h.session.navigateTree(target.id);
		expect(result).toEqual({ cancelled: false });
		expect(h.sessionManager.getLeafId()).toBe(target.id);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant"]);
		expect(seen).toEqual([{ type: "session_tree", newLeafId: target.id, oldLeafId: oldLeaf }]);
		expect(h.session.isCompacting).toBe(false);

		await h.session.prompt("third");
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["first", "third"]);
		expect(h.sessionManager.getEntry(messageEntry("user", "third").id)?.parentId).toBe(target.id);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("a user message target: the leaf goes to its parent and its text comes back as editorText", async () => {
		await twoExchanges();
		const second = messageEntry("user", "second");
		const result = await h.session.navigateTree(second.id, { label: "retry here" });
		expect(result).toEqual({ cancelled: false, editorText: "second" });
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "answer one" }] });
		// Without a summary the label goes on the target.
		expect(h.sessionManager.getLabel(second.id)).toBe("retry here");
	});

	it("the first user message: the leaf is reset (null) and the context is empty", async () => {
		await twoExchanges();
		const first = messageEntry("user", "first");
		const result = await h.session.navigateTree(first.id);
		expect(result.editorText).toBe("first");
		expect(h.sessionManager.getLeafId()).toBe(first.parentId);
		expect(h.session.messages.filter((m) => m.role !== "system")).toEqual([]);
	});

	it("a custom message target behaves like a user message", async () => {
		h = await createHarness();
		script(h, [fauxAssistantMessage("ok"), fauxAssistantMessage("ok again")]);
		await h.session.prompt("hello");
		await h.session.sendCustomMessage({
			customType: "note",
			content: [{ type: "text", text: "remember this" }],
			display: true,
		});
		await h.session.prompt("after the note");
		const custom = h.sessionManager.getEntries().find((entry) => entry.type === "custom_message")!;
		const result = await h.session.navigateTree(custom.id);
		expect(result).toEqual({ cancelled: false, editorText: "remember this" });
		expect(h.sessionManager.getLeafId()).toBe(custom.parentId);
	});

	it("restores the tool loadout the branch recorded", async () => {
		await twoExchanges({}, [fauxAssistantMessage("read-only answer"), fauxAssistantMessage("back")]);
		const before = messageEntry("assistant", "answer two");
		h.session.setActiveToolsByName(["read"]);
		await h.session.prompt("read only now");
		expect(h.session.getActiveToolNames()).toEqual(["read"]);
		await h.session.navigateTree(before.id);
		expect(h.session.getActiveToolNames()).toEqual(["read", "bash", "edit", "write"]);
		await h.session.prompt("all tools again");
		const request = h.faux.requests.at(-1)!;
		expect((request.tools ?? []).map((tool) => tool.name)).toEqual(["read", "bash", "edit", "write"]);
	});
});

describe("navigateTree with a summary", () => {
	it("summarizes the abandoned branch with the model and puts the summary at the new position", async () => {
		const seen: unknown[] = [];
		const { summaryRequests } = await twoExchanges({
			extensionFactories: [(pi: ExtensionAPI) => void pi.on("session_tree", (event) => void seen.push(event))],
		});
		writeFileSync(join(h.tempDir, "unused.txt"), "");
		const oldLeaf = h.sessionManager.getLeafId()!;
		const target = messageEntry("assistant", "answer one");
		const result = await h.session.navigateTree(target.id, {
			summarize: true,
			customInstructions: "focus on the second question",
			label: "explored",
		});
		expect(result.cancelled).toBe(false);
		expect(result.summaryEntry).toMatchObject({ type: "branch_summary", fromId: oldLeaf, parentId: target.id });
		expect(result.summaryEntry?.summary).toMatch(/^The user explored a different conversation branch/);
		expect(summaryRequests).toHaveLength(1);
		const request = userTexts(summaryRequests[0]!).join("\n");
		expect(request).toContain("Summarize the conversation branch above");
		expect(request).toContain("focus on the second question");
		expect(request).toContain("second");
		expect(request).not.toContain("first");
		expect(h.sessionManager.getLabel(result.summaryEntry!.id)).toBe("explored");
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "branchSummary"]);
		expect(seen).toEqual([
			{
				type: "session_tree",
				newLeafId: h.sessionManager.getLeafId(),
				oldLeafId: oldLeaf,
				summaryEntry: result.summaryEntry,
				fromExtension: false,
			},
		]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("replaceInstructions makes the custom instructions the whole prompt", async () => {
		const { summaryRequests } = await twoExchanges();
		await h.session.navigateTree(messageEntry("assistant", "answer one").id, {
			summarize: true,
			customInstructions: "ONLY THIS PROMPT",
			replaceInstructions: true,
		});
		const request = userTexts(summaryRequests[0]!).join("\n");
		expect(request).toContain("ONLY THIS PROMPT");
		expect(request).not.toContain("Summarize the conversation branch above");
	});

	it("records the files the abandoned branch read", async () => {
		h = await createHarness({ persistence: "disk" });
		writeFileSync(join(h.tempDir, "notes.txt"), "n\n");
		script(h, [
			fauxAssistantMessage("one"),
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("read"),
		]);
		await h.session.prompt("a");
		await h.session.prompt("read notes");
		const result = await h.session.navigateTree(messageEntry("assistant", "one").id, { summarize: true });
		expect(result.summaryEntry?.details).toEqual({ readFiles: ["notes.txt"], modifiedFiles: [] });
	});
});

describe("session_before_tree", () => {
	it("sees the preparation and can cancel: nothing changes", async () => {
		const preparations: unknown[] = [];
		await twoExchanges({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_tree", (event) => {
						preparations.push(event.preparation);
						return { cancel: true };
					});
				},
			],
		});
		const oldLeaf = h.sessionManager.getLeafId();
		const before = h.session.messages.slice();
		const target = messageEntry("assistant", "answer one");
		const result = await h.session.navigateTree(target.id, { summarize: true, label: "x" });
		expect(result).toEqual({ cancelled: true });
		expect(h.sessionManager.getLeafId()).toBe(oldLeaf);
		expect(h.session.messages).toEqual(before);
		const abandoned = h.sessionManager
			.getBranch(oldLeaf!)
			.filter((entry) => !h.sessionManager.getBranch(target.id).includes(entry));
		expect(preparations).toEqual([
			{
				targetId: target.id,
				oldLeafId: oldLeaf,
				commonAncestorId: target.id,
				entriesToSummarize: abandoned,
				userWantsSummary: true,
				label: "x",
			},
		]);
	});

	it("can supply the summary (only when one was asked for) and override instructions and label", async () => {
		let supply = true;
		const { summaryRequests } = await twoExchanges({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_tree", () =>
						supply
							? { summary: { summary: "from the extension", details: { custom: 1 } }, label: "ext label" }
							: { customInstructions: "EXTENSION FOCUS", label: "ext label 2" },
					);
				},
			],
		});
		const oldLeaf = h.sessionManager.getLeafId()!;
		const result = await h.session.navigateTree(messageEntry("assistant", "answer one").id, {
			summarize: true,
			label: "mine",
		});
		expect(result.summaryEntry).toMatchObject({
			summary: "from the extension",
			details: { custom: 1 },
			fromHook: true,
		});
		expect(h.sessionManager.getLabel(result.summaryEntry!.id)).toBe("ext label");
		expect(summaryRequests).toEqual([]);

		supply = false;
		const back = await h.session.navigateTree(oldLeaf, { summarize: true });
		expect(back.summaryEntry?.fromHook).toBe(false);
		expect(userTexts(summaryRequests[0]!).join("\n")).toContain("EXTENSION FOCUS");
		expect(h.sessionManager.getLabel(back.summaryEntry!.id)).toBe("ext label 2");

		// A supplied summary without summarize: ignored; the label still applies to the target.
		supply = true;
		const target = messageEntry("assistant", "answer one");
		const plain = await h.session.navigateTree(target.id);
		expect(plain.summaryEntry).toBeUndefined();
		expect(h.sessionManager.getLabel(target.id)).toBe("ext label");
	});
});

describe("abort, busy states and errors", () => {
	it("abortBranchSummary() cancels the summary: {cancelled, aborted}, nothing changed; isCompacting meanwhile", async () => {
		const summaryRequested = gate();
		const summaryGate = gate();
		h = await createHarness();
		script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")], {
			summary: () => {
				summaryRequested.release();
				return summaryGate.promise.then(() => fauxAssistantMessage("late"));
			},
		});
		await h.session.prompt("first");
		await h.session.prompt("second");
		const oldLeaf = h.sessionManager.getLeafId();
		const states: string[] = [];
		h.session.inspect((event) => {
			if (event.kind === "state") states.push(event.to);
		});
		const navigating = h.session.navigateTree(messageEntry("assistant", "answer one").id, { summarize: true });
		// The summary request is with the model (whose answer is gated) before anything else happens.
		await summaryRequested.promise;
		expect(h.session.isCompacting).toBe(true);
		expect(h.session.lifecycle).toBe("branchSummary.working");
		expect(h.session.isStreaming).toBe(false);
		await expect(h.session.prompt("now")).rejects.toThrow(/being navigated/);
		// The machine refuses a second navigation at once, saying what runs (not "the current response").
		await expect(h.session.navigateTree(oldLeaf!)).rejects.toMatchObject({
			code: "BUSY",
			message:
				"Wait for the compaction (or the tree navigation) in progress to finish before navigating the session tree.",
		});
		h.session.abortBranchSummary();
		// The model never answers (its answer is gated): the abort alone ends the navigation.
		await expect(navigating).resolves.toEqual({ cancelled: true, aborted: true });
		expect(states).toEqual(["idle", "branchSummary.working", "branchSummary.aborting", "idle"]);
		expect(h.sessionManager.getLeafId()).toBe(oldLeaf);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "branch_summary")).toBe(false);
		expect(h.session.isCompacting).toBe(false);
		summaryGate.release();
	});

	it("regression: abortBranchSummary() as the navigation starts (before its summary request) was lost", async () => {
		h = await createHarness();
		const { summaryRequests } = script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
		await h.session.prompt("first");
		await h.session.prompt("second");
		const oldLeaf = h.sessionManager.getLeafId();
		h.session.inspect((event) => {
			if (event.kind === "state" && event.to === "branchSummary.working") h.session.abortBranchSummary();
		});
		const target = messageEntry("assistant", "answer one").id;
		await expect(h.session.navigateTree(target, { summarize: true })).resolves.toEqual({
			cancelled: true,
			aborted: true,
		});
		expect(summaryRequests).toEqual([]);
		expect(h.sessionManager.getLeafId()).toBe(oldLeaf);
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "branch_summary")).toBe(false);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("rejects with pi's texts: streaming, unknown entry, no model; the current leaf is a no-op", async () => {
		const answerGate = gate();
		h = await createHarness();
		script(h, [fauxAssistantMessage("answer one"), () => fauxAssistantMessage("slow")]);
		await h.session.prompt("first");
		const leaf = h.sessionManager.getLeafId()!;
		await expect(h.session.navigateTree(leaf)).resolves.toEqual({ cancelled: false });
		await expect(h.session.navigateTree("nope")).rejects.toMatchObject({
			code: "NOT_FOUND",
			message: "Entry nope not found",
		});
		h.faux.setResponses([
			async () => {
				await answerGate.promise;
				return fauxAssistantMessage("slow");
			},
		]);
		const running = h.session.prompt("second");
		while (!h.session.isStreaming) await tick();
		await expect(h.session.navigateTree(leaf)).rejects.toThrow(
			"Wait for the current response to finish before navigating the session tree.",
		);
		answerGate.release();
		await running;
		h.session.agent.state.model = { ...h.model, provider: "unknown", id: "unknown" };
		await expect(h.session.navigateTree(leaf, { summarize: true })).rejects.toThrow(
			"No model available for summarization",
		);
	});
});

describe("extension commands", () => {
	it("ctx.navigateTree() works from a command (no deadlock with the command's own prompt)", async () => {
		const results: unknown[] = [];
		let target = "";
		const during: unknown[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("back", {
						handler: async (_args, ctx) => {
							results.push(await ctx.navigateTree(target, { summarize: true }));
						},
					});
					pi.on("session_before_tree", () => {
						during.push([h.session.lifecycle, h.session.isCompacting, h.session.isStreaming]);
					});
				},
			],
		});
		script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")]);
		await h.session.prompt("first");
		await h.session.prompt("second");
		target = messageEntry("assistant", "answer one").id;
		await h.session.prompt("/back");
		// The command runs inside its prompt's preflight; the navigation runs beside it and counts as compacting.
		expect(during).toEqual([["preflight", true, false]]);
		expect(results).toEqual([expect.objectContaining({ cancelled: false, summaryEntry: expect.any(Object) })]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "branchSummary"]);
		expect(h.session.lifecycle).toBe("idle");
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
	});

	it("waitForIdle() waits for a navigation a command started and did not await", async () => {
		const summaryGate = gate();
		let target = "";
		let navigation: Promise<unknown> | undefined;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerCommand("back", {
						handler: async (_args, ctx) => {
							navigation = ctx.navigateTree(target, { summarize: true });
						},
					}),
			],
		});
		script(h, [fauxAssistantMessage("answer one"), fauxAssistantMessage("answer two")], {
			summary: () => summaryGate.promise.then(() => fauxAssistantMessage("## Goal\nback to one")),
		});
		await h.session.prompt("first");
		await h.session.prompt("second");
		target = messageEntry("assistant", "answer one").id;
		await h.session.prompt("/back");
		// The command returned; its navigation still runs (its summary is gated) and counts as compacting.
		expect(h.session.lifecycle).toBe("idle");
		expect(h.session.isCompacting).toBe(true);
		let idle = false;
		const waiting = h.session.waitForIdle().then(() => {
			idle = true;
		});
		for (let i = 0; i < 20; i++) await tick();
		expect(idle).toBe(false);
		summaryGate.release();
		await waiting;
		expect(h.session.isCompacting).toBe(false);
		await expect(navigation).resolves.toMatchObject({ cancelled: false });
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "branchSummary"]);
	});
});

describe("branch summary on a tiny window (DELIBERATE_RESERVE_CAPPED_AT_HALF_WINDOW, answer too)", () => {
	it("a 2000-token window: the summary request's maxTokens plus the kept conversation fit the window", async () => {
		h = await createHarness({ persistence: "disk", models: [{ id: "tiny", contextWindow: 2000 }] });
		const texts = ["a", "b", "c", "d"].map((letter) => letter.repeat(1200)); // about 300 tokens each
		script(h, [...texts.map((text) => fauxAssistantMessage(`${text} answer`)), fauxAssistantMessage("unused")]);
		for (const [index, text] of texts.entries()) await h.session.prompt(`${index} ${text}`);
		const abandoned = h.sessionManager.getEntries().flatMap((entry) => (entry.type === "message" ? [entry] : []));
		await h.session.navigateTree(messageEntry("user", "0 a").id, { summarize: true });

		const request = h.faux.requests.find((r) => userTexts(r).join("").includes("Summarize the conversation branch"));
		const conversation = userTexts(request!).join("");
		const kept = abandoned.filter((entry) => {
			const message = entry.message as { content: string | { type: string; text?: string }[] };
			const text = typeof message.content === "string" ? message.content : (message.content[0]?.text ?? "");
			return conversation.includes(text);
		});
		// The budget (window − reserve capped at half: 1000 tokens) kept the newest messages only.
		expect(kept.length).toBeGreaterThan(0);
		expect(kept.length).toBeLessThan(abandoned.length);
		const keptTokens = kept.reduce((sum, entry) => sum + estimateMessageTokens(entry.message), 0);
		expect(request!.options.maxTokens).toBe(1000);
		expect(request!.options.maxTokens! + keptTokens).toBeLessThanOrEqual(2000);
	});
});
