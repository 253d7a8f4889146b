import { describe, expect, it, vi } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { AgentMessage } from "../../src/llm/types.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { buildSessionContext, buildSessionProjection, getLatestCompactionEntry } from "../../src/store/projection.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, toolResult, user } from "./helpers.js";

const roles = (messages: AgentMessage[]) => messages.map((m) => m.role);
const texts = (messages: AgentMessage[]) =>
	messages.map((m) => {
		if (m.role === "compactionSummary" || m.role === "branchSummary") return `${m.role}:${m.summary}`;
		const content = (m as { content: unknown }).content;
		if (typeof content === "string") return content;
		return (content as { type: string; text?: string }[]).map((b) => b.text ?? b.type).join("+");
	});

/** The manager's incremental result must equal the pure function over its entries. */
function expectConsistent(sm: SessionManager) {
	const pure = buildSessionProjection(sm.getEntries(), sm.getLeafId());
	expect(sm.buildSessionProjection()).toEqual(pure);
	expect(sm.buildSessionContext()).toEqual({
		messages: pure.messages,
		thinkingLevel: pure.thinkingLevel,
		model: pure.model,
	});
	expect(sm.buildContextEntries()).toEqual(pure.entries.map((e) => e.sourceEntry));
}

describe("settings along the path (D.4 step 2)", () => {
	it("thinking level defaults to off; the last change on the path wins", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("1"));
		expect(sm.buildSessionContext().thinkingLevel).toBe("off");
		const low = sm.appendThinkingLevelChange("low");
		sm.appendThinkingLevelChange("high");
		expect(sm.buildSessionContext().thinkingLevel).toBe("high");
		sm.branch(low);
		expect(sm.buildSessionContext().thinkingLevel).toBe("low");
		expectConsistent(sm);
	});

	it("model: the latest of model_change and assistant message on the path; null without either", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("1"));
		expect(sm.buildSessionContext().model).toBeNull();
		sm.appendModelChange("openai", "gpt");
		expect(sm.buildSessionContext().model).toEqual({ provider: "openai", modelId: "gpt" });
		const a = sm.appendMessage(assistant("x", { provider: "anthropic", model: "claude" }));
		expect(sm.buildSessionContext().model).toEqual({ provider: "anthropic", modelId: "claude" });
		sm.appendModelChange("google", "gemini");
		expect(sm.buildSessionContext().model).toEqual({ provider: "google", modelId: "gemini" });
		sm.branch(a);
		expect(sm.buildSessionContext().model).toEqual({ provider: "anthropic", modelId: "claude" });
		expectConsistent(sm);
	});

	it("the returned model is a copy", () => {
		const sm = SessionManager.inMemory();
		sm.appendModelChange("p", "m");
		sm.buildSessionContext().model!.modelId = "changed";
		expect(sm.buildSessionContext().model).toEqual({ provider: "p", modelId: "m" });
	});
});

describe("messages (D.4 steps 1, 3, 4)", () => {
	it("walks from the leaf to the root; other branches are not in the context", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		sm.appendMessage(assistant("2"));
		sm.branch(u1);
		sm.appendMessage(assistant("2b"));
		expect(texts(sm.buildSessionContext().messages)).toEqual(["1", "2b"]);
		expectConsistent(sm);
	});

	it("non-message entries contribute nothing; custom messages and non-empty branch summaries do", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("1"));
		sm.appendCustomEntry("state", { x: 1 });
		sm.appendSessionInfo("n");
		sm.appendLabelChange(sm.getLeafId()!, "l");
		sm.appendUsage("k", "p", "m", assistant("").usage);
		const custom = sm.appendCustomMessageEntry("note", "remember", false, { d: 1 });
		const u1 = sm.getEntries()[0]!.id;
		sm.branchWithSummary(custom, "");
		sm.branchWithSummary(sm.getLeafId(), "what happened");
		sm.appendMessage({
			role: "bashExecution",
			command: "ls",
			output: "",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 3,
		});
		const { messages } = sm.buildSessionContext();
		expect(roles(messages)).toEqual(["user", "custom", "branchSummary", "bashExecution"]);
		const customEntry = sm.getEntry(custom)!;
		expect(messages[1]).toEqual({
			role: "custom",
			customType: "note",
			content: "remember",
			display: false,
			details: { d: 1 },
			timestamp: Date.parse(customEntry.timestamp),
		});
		const summaryEntry = sm.getLeafEntry()!;
		expect(summaryEntry.parentId).not.toBe(u1);
		const summary = sm.getEntries().find((e) => e.type === "branch_summary" && e.summary === "what happened")!;
		expect(messages[2]).toEqual({
			role: "branchSummary",
			summary: "what happened",
			fromId: (summary as { fromId: string }).fromId,
			timestamp: Date.parse(summary.timestamp),
		});
		expectConsistent(sm);
	});

	it("null content (a stored entry: appendMessage refuses it) is read as [] for user/assistant/toolResult, '' for system", () => {
		const stored = [
			{ role: "user", content: null, timestamp: 1 },
			{ role: "system", content: null, timestamp: 2 },
			{ ...toolResult("c", "x"), content: null },
		];
		const entries = stored.map((message, index) => ({
			type: "message",
			id: `e${index}`,
			parentId: index === 0 ? null : `e${index - 1}`,
			timestamp: new Date(0).toISOString(),
			message,
		})) as unknown as SessionEntry[];
		const { messages } = buildSessionContext(entries);
		expect(messages.map((m) => (m as { content: unknown }).content)).toEqual([[], "", []]);
		expect((entries[0] as { message: { content: unknown } }).message.content).toBeNull();
	});

	it("a compaction: summary first, then kept entries from firstKeptEntryId, then later entries", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("old"));
		sm.appendMessage(assistant("old answer"));
		const kept = sm.appendMessage(user("kept"));
		sm.appendMessage(assistant("kept answer"));
		const c = sm.appendCompaction("the summary", kept, 5000);
		sm.appendMessage(user("new"));
		const ctx = sm.buildSessionContext();
		expect(texts(ctx.messages)).toEqual(["compactionSummary:the summary", "kept", "kept answer", "new"]);
		expect(ctx.messages[0]).toEqual({
			role: "compactionSummary",
			summary: "the summary",
			tokensBefore: 5000,
			timestamp: Date.parse(sm.getEntry(c)!.timestamp),
		});
		expect(sm.buildContextEntries()[0]!.id).toBe(c);
		expectConsistent(sm);
		expect(getLatestCompactionEntry(sm.getEntries())?.id).toBe(c);
		expect(getLatestCompactionEntry([])).toBeNull();
	});

	it("only the latest compaction counts; an older one inside the kept range adds no summary", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("a"));
		const keep = sm.appendMessage(user("b"));
		sm.appendCompaction("first", keep, 1);
		sm.appendMessage(user("c"));
		sm.appendCompaction("second", keep, 2);
		sm.appendMessage(user("d"));
		expect(texts(sm.buildSessionContext().messages)).toEqual(["compactionSummary:second", "b", "c", "d"]);
		const projection = sm.buildSessionProjection();
		expect(projection.entries.map((e) => [e.sourceEntry.type, e.messages.length])).toEqual([
			["compaction", 1],
			["message", 1],
			["compaction", 0],
			["message", 1],
			["message", 1],
		]);
		expectConsistent(sm);
	});

	it("system messages in the kept range are skipped; the compaction carries a snapshot of the system message in effect", () => {
		const sm = SessionManager.inMemory();
		const sys = { role: "system" as const, content: "You are helpful.", timestamp: 1 };
		const first = sm.appendMessage(sys);
		sm.appendMessage(user("1"));
		const c = sm.appendCompaction("sum", first, 10);
		const entry = sm.getEntry(c) as { systemMessage?: AgentMessage };
		expect(entry.systemMessage).toEqual({ ...sys, timestamp: Date.parse(sm.getEntry(c)!.timestamp) });
		expect(roles(sm.buildSessionContext().messages)).toEqual(["system", "compactionSummary", "user"]);
		expectConsistent(sm);
		const plain = SessionManager.inMemory();
		plain.appendMessage(user("1"));
		const c2 = plain.appendCompaction("sum", null, 1);
		expect("systemMessage" in plain.getEntry(c2)!).toBe(false);
	});

	it("the system-message snapshot and its compaction entry share one timestamp even when the clock ticks between reads", () => {
		let now = Date.parse("2025-01-01T00:00:00.000Z");
		const clock = vi.spyOn(Date, "now").mockImplementation(() => (now += 7));
		try {
			const sm = SessionManager.inMemory();
			sm.appendMessage({ role: "system" as const, content: "You are helpful.", timestamp: 1 });
			sm.appendMessage(user("1"));
			const c = sm.appendCompaction("sum", null, 10);
			const entry = sm.getEntry(c) as { timestamp: string; systemMessage?: AgentMessage };
			expect(entry.systemMessage?.timestamp).toBe(Date.parse(entry.timestamp));
		} finally {
			clock.mockRestore();
		}
	});

	it("a compaction whose firstKeptEntryId is not on the path keeps nothing before it", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("a"));
		sm.appendCompaction("s", "not-on-path", 1);
		sm.appendMessage(user("b"));
		expect(texts(sm.buildSessionContext().messages)).toEqual(["compactionSummary:s", "b"]);
	});
});

describe("pure functions", () => {
	const entries: SessionEntry[] = [
		{ type: "message", id: "a", parentId: null, timestamp: "2024-01-01T00:00:00.000Z", message: user("a") },
		{ type: "message", id: "b", parentId: "a", timestamp: "2024-01-01T00:00:01.000Z", message: user("b") },
		{ type: "message", id: "c", parentId: "missing", timestamp: "2024-01-01T00:00:02.000Z", message: user("c") },
	];

	it("leaf null → empty; unknown or undefined leaf → the last entry; a missing parent ends the walk", () => {
		expect(buildSessionContext(entries, null)).toEqual({ messages: [], thinkingLevel: "off", model: null });
		expect(texts(buildSessionContext(entries).messages)).toEqual(["c"]);
		expect(texts(buildSessionContext(entries, "zzz").messages)).toEqual(["c"]);
		expect(texts(buildSessionContext(entries, "b").messages)).toEqual(["a", "b"]);
		expect(buildSessionContext([])).toEqual({ messages: [], thinkingLevel: "off", model: null });
	});

	it("does not loop on a parent cycle in a hand-edited file", () => {
		const cyclic: SessionEntry[] = [
			{ type: "message", id: "x", parentId: "y", timestamp: "2024-01-01T00:00:00.000Z", message: user("x") },
			{ type: "message", id: "y", parentId: "x", timestamp: "2024-01-01T00:00:01.000Z", message: user("y") },
		];
		expect(buildSessionContext(cyclic, "y").messages.length).toBeLessThanOrEqual(2);
	});
});

describe("context edits (D.4 step 5)", () => {
	function setup() {
		const sm = SessionManager.inMemory();
		const u = sm.appendMessage(user("question"));
		const a = sm.appendMessage(assistant("bad attempt", { stopReason: "error" }));
		const a2 = sm.appendMessage(assistant("good", { toolCall: "c1" }));
		const t = sm.appendMessage(toolResult("c1", "huge output"));
		const cm = sm.appendCustomMessageEntry("note", "n", true);
		return { sm, u, a, a2, t, cm };
	}

	it("null omits the target; a replacement swaps only its content", () => {
		const { sm, u, a, t, cm } = setup();
		sm.appendContextEdit(a, null);
		sm.appendContextEdit(u, { content: "rephrased" });
		sm.appendContextEdit(t, { content: "[output elided]" });
		sm.appendContextEdit(cm, { content: [{ type: "text", text: "n2" }] });
		const { messages } = sm.buildSessionContext();
		expect(texts(messages)).toEqual(["rephrased", "good+toolCall", "[output elided]", "n2"]);
		// a string for a toolResult becomes one text block, stored that way
		expect(messages[2]).toEqual({ ...toolResult("c1", "x"), content: [{ type: "text", text: "[output elided]" }] });
		expect(sm.getLeafEntry()).toMatchObject({ replacement: { content: [{ type: "text", text: "n2" }] } });
		const userEdit = sm.getEntries().find((e) => e.type === "context_edit" && e.targetId === u);
		expect(userEdit).toMatchObject({ replacement: { content: "rephrased" } });
		// the stored entries are unchanged
		expect((sm.getEntry(u) as { message: AgentMessage }).message).toEqual(user("question"));
		expectConsistent(sm);
	});

	it("a string for an assistant target is stored as a text block; the latest edit wins", () => {
		const { sm, a2 } = setup();
		const e1 = sm.appendContextEdit(a2, { content: "first" });
		expect(sm.getEntry(e1)).toMatchObject({ replacement: { content: [{ type: "text", text: "first" }] } });
		sm.appendContextEdit(a2, { content: "second" });
		expect(texts(sm.buildSessionContext().messages)[2]).toBe("second");
		sm.appendContextEdit(a2, null);
		expect(texts(sm.buildSessionContext().messages)).toEqual(["question", "bad attempt", "huge output", "n"]);
		expectConsistent(sm);
	});

	it("the latest edit of an entry still wins when the session is reopened or the leaf moves back", () => {
		const dir = tempDir("settle-edits-");
		const sm = SessionManager.create("/edits", dir);
		sm.appendMessage(user("question"));
		const a = sm.appendMessage(assistant("answer"));
		sm.appendContextEdit(a, null);
		sm.appendContextEdit(a, { content: "second" });
		const leaf = sm.appendContextEdit(a, { content: "third" });
		sm.close();
		const reopened = SessionManager.open(sm.getSessionFile()!);
		try {
			expect(texts(reopened.buildSessionContext().messages)).toEqual(["question", "third"]);
			reopened.branch(a);
			reopened.branch(leaf); // rebuilt from the entries, not extended one by one
			expect(texts(reopened.buildSessionContext().messages)).toEqual(["question", "third"]);
		} finally {
			reopened.close();
		}
	});

	it("edits are branch-relative: navigating above the edit shows the original", () => {
		const { sm, a, cm } = setup();
		sm.appendContextEdit(a, null);
		expect(texts(sm.buildSessionContext().messages)).not.toContain("bad attempt");
		sm.branch(cm);
		expect(texts(sm.buildSessionContext().messages)).toContain("bad attempt");
		expectConsistent(sm);
	});

	it("an edit kept by a compaction still applies; one summarised away goes with its target", () => {
		const { sm, u, a, a2 } = setup();
		sm.appendContextEdit(a, null);
		sm.appendCompaction("s", u, 1);
		expect(texts(sm.buildSessionContext().messages)).toEqual([
			"compactionSummary:s",
			"question",
			"good+toolCall",
			"huge output",
			"n",
		]);
		sm.appendCompaction("s2", a2, 1);
		expect(texts(sm.buildSessionContext().messages)).toEqual([
			"compactionSummary:s2",
			"good+toolCall",
			"huge output",
			"n",
		]);
		expectConsistent(sm);
	});

	it("validation uses pi's messages, in pi's order, and appends nothing on error", () => {
		const { sm, u, a } = setup();
		const model = sm.appendModelChange("p", "m");
		const before = sm.getEntries().length;
		const cases: [string, unknown, string, string][] = [
			[u, { content: 5 }, "INVALID_ARGUMENT", "Context edit replacement must be null or contain string/array content"],
			[u, {}, "INVALID_ARGUMENT", "Context edit replacement must be null or contain string/array content"],
			[u, "text", "INVALID_ARGUMENT", "Context edit replacement must be null or contain string/array content"],
			[
				"nope1234",
				{ content: 5 },
				"INVALID_ARGUMENT",
				"Context edit replacement must be null or contain string/array content",
			],
			["nope1234", null, "NOT_FOUND", "Entry nope1234 not found"],
			[model, null, "INVALID_ARGUMENT", `Entry ${model} does not contribute editable model content`],
		];
		for (const [target, replacement, code, message] of cases) {
			let error: unknown;
			try {
				sm.appendContextEdit(target, replacement as null);
			} catch (e) {
				error = e;
			}
			expect(error).toBeInstanceOf(SettleError);
			expect((error as SettleError).code).toBe(code);
			expect((error as SettleError).message).toBe(message);
		}
		sm.branch(u);
		const offBranch = a;
		sm.appendMessage(assistant("other branch"));
		expect(() => sm.appendContextEdit(offBranch, null)).toThrow(`Entry ${offBranch} is not on the active branch`);
		const sys = sm.appendMessage({ role: "system", content: "s", timestamp: 1 });
		expect(() => sm.appendContextEdit(sys, null)).toThrow(`Entry ${sys} does not contribute editable model content`);
		const bash = sm.appendMessage({
			role: "bashExecution",
			command: "x",
			output: "",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 1,
		});
		expect(() => sm.appendContextEdit(bash, null)).toThrow(`Entry ${bash} does not contribute editable model content`);
		expect(sm.getEntries().length).toBe(before + 3);
	});
});

describe("incremental context", () => {
	it("stays equal to a from-scratch build through appends, edits, branches and compactions", () => {
		const sm = SessionManager.inMemory();
		const u1 = sm.appendMessage(user("1"));
		expectConsistent(sm);
		const a1 = sm.appendMessage(assistant("2", { toolCall: "c" }));
		sm.buildSessionProjection();
		sm.appendMessage(toolResult("c", "r"));
		expectConsistent(sm);
		sm.appendContextEdit(a1, { content: "short" });
		expectConsistent(sm);
		sm.appendCompaction("s", a1, 1);
		expectConsistent(sm);
		sm.appendThinkingLevelChange("high");
		sm.appendMessage(assistant("3", { model: "other" }));
		expectConsistent(sm);
		sm.branch(u1);
		expectConsistent(sm);
		sm.appendCustomMessageEntry("x", "y", true);
		expectConsistent(sm);
		sm.resetLeaf();
		sm.appendMessage(user("new root"));
		expectConsistent(sm);
	});

	it("hands out fresh arrays; per-entry projection items are frozen", () => {
		const sm = SessionManager.inMemory();
		sm.appendMessage(user("1"));
		const first = sm.buildSessionContext();
		first.messages.push(user("injected"));
		expect(sm.buildSessionContext().messages).toHaveLength(1);
		const projection = sm.buildSessionProjection();
		expect(Object.isFrozen(projection.entries[0])).toBe(true);
		expect(() => projection.entries[0]!.messages.push(user("x"))).toThrow(TypeError);
	});
});
