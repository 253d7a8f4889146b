import { describe, expect, it } from "vitest";
import {
	collectEntriesForBranchSummary,
	EMPTY_BRANCH_SUMMARY,
	generateBranchSummary,
	prepareBranchEntries,
} from "../../src/compaction/branch-summary.js";
import {
	BRANCH_SUMMARY_PREAMBLE,
	BRANCH_SUMMARY_PROMPT,
	SUMMARIZATION_SYSTEM_PROMPT,
} from "../../src/compaction/prompts.js";
import type { SessionTreeReader } from "../../src/compaction/types.js";
import { SettleError } from "../../src/errors.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { assistant, testModel } from "../recovery/helpers.js";
import { call, requestText, scriptedStream } from "./builders.js";

/** A session tree with explicit parents (branches), read through the minimal interface. */
class Tree implements SessionTreeReader {
	private readonly byId = new Map<string, SessionEntry>();
	private n = 0;

	add(parentId: string | null, body: Record<string, unknown>): SessionEntry {
		const entry = {
			...body,
			id: `n${this.n++}`,
			parentId,
			timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, this.n)).toISOString(),
		} as SessionEntry;
		this.byId.set(entry.id, entry);
		return entry;
	}

	user(parentId: string | null, text: string): SessionEntry {
		return this.add(parentId, { type: "message", message: { role: "user", content: text, timestamp: this.n } });
	}

	getEntry(id: string): SessionEntry | undefined {
		return this.byId.get(id);
	}

	getBranch(fromId?: string): SessionEntry[] {
		const path: SessionEntry[] = [];
		let current = fromId ? this.byId.get(fromId) : undefined;
		while (current) {
			path.unshift(current);
			current = current.parentId ? this.byId.get(current.parentId) : undefined;
		}
		return path;
	}
}

/**
 *        root ─ a1 ─┬─ b1 ─ b2 (old leaf)
 *                   └─ c1 (target)
 */
function forkedTree() {
	const tree = new Tree();
	const root = tree.user(null, "start");
	const a1 = tree.add(root.id, { type: "message", message: assistant({ text: "ok" }) });
	const b1 = tree.user(a1.id, "try approach B");
	const b2 = tree.add(b1.id, {
		type: "message",
		message: assistant({ text: "B done", toolCalls: [call("t1", "edit", { path: "b.ts" })] }),
	});
	const c1 = tree.user(a1.id, "try approach C");
	return { tree, root, a1, b1, b2, c1 };
}

describe("collectEntriesForBranchSummary", () => {
	it("collects the old branch below the common ancestor, oldest first", () => {
		const { tree, a1, b1, b2, c1 } = forkedTree();
		expect(collectEntriesForBranchSummary(tree, b2.id, c1.id)).toEqual({ entries: [b1, b2], commonAncestorId: a1.id });
	});

	it("collects what lies after the target when navigating up the same branch", () => {
		const { tree, a1, b1, b2 } = forkedTree();
		expect(collectEntriesForBranchSummary(tree, b2.id, a1.id)).toEqual({ entries: [b1, b2], commonAncestorId: a1.id });
		expect(collectEntriesForBranchSummary(tree, b2.id, b1.id)).toEqual({ entries: [b2], commonAncestorId: b1.id });
	});

	it("collects the whole old path when the target is in another tree", () => {
		const { tree, root, a1, b1, b2 } = forkedTree();
		const other = tree.user(null, "separate root");
		expect(collectEntriesForBranchSummary(tree, b2.id, other.id)).toEqual({
			entries: [root, a1, b1, b2],
			commonAncestorId: null,
		});
	});

	it("has nothing to collect from an empty session", () => {
		const { tree, c1 } = forkedTree();
		expect(collectEntriesForBranchSummary(tree, null, c1.id)).toEqual({ entries: [], commonAncestorId: null });
	});

	it("rejects an unknown target with pi's text", () => {
		const { tree, b2 } = forkedTree();
		expect(() => collectEntriesForBranchSummary(tree, b2.id, "nope")).toThrow(
			expect.objectContaining({ code: "NOT_FOUND", message: "Entry nope not found" }),
		);
	});
});

describe("prepareBranchEntries", () => {
	it("keeps tool results (oh-my-pi#4011) and collects file operations, also from earlier branch summaries", () => {
		const tree = new Tree();
		const s = tree.add(null, {
			type: "branch_summary",
			fromId: "x",
			summary: "earlier",
			details: { readFiles: ["r.ts"], modifiedFiles: ["m.ts"] },
		});
		const hook = tree.add(s.id, {
			type: "branch_summary",
			fromId: "y",
			summary: "from an extension",
			fromHook: true,
			details: { readFiles: ["ext.ts"], modifiedFiles: [] },
		});
		const a = tree.add(hook.id, {
			type: "message",
			message: assistant({ toolCalls: [call("t", "read", { path: "q.ts" })] }),
		});
		const r = tree.add(a.id, {
			type: "message",
			message: { role: "toolResult", toolCallId: "t", toolName: "read", content: [], isError: false, timestamp: 1 },
		});
		const prepared = prepareBranchEntries([s, hook, a, r]);
		expect(prepared.messages.map((message) => message.role)).toEqual([
			"branchSummary",
			"branchSummary",
			"assistant",
			"toolResult",
		]);
		expect([...prepared.fileOps.read].sort()).toEqual(["q.ts", "r.ts"]);
		expect([...prepared.fileOps.edited]).toEqual(["m.ts"]);
		// As pi 0.73.1 (pi-compat's prepareBranchEntries): without the tool results.
		const asPi = prepareBranchEntries([s, hook, a, r], 0, undefined, false);
		expect(asPi.messages.map((message) => message.role)).toEqual(["branchSummary", "branchSummary", "assistant"]);
	});

	it("sizes a long tool result as the cut text the request carries, so it does not push older messages out", () => {
		const tree = new Tree();
		const u = tree.user(null, "find the port");
		const a = tree.add(u.id, {
			type: "message",
			message: assistant({ toolCalls: [call("t", "read", { path: "server.log" })] }),
		});
		const huge = "x".repeat(400_000);
		const r = tree.add(a.id, {
			type: "message",
			message: {
				role: "toolResult",
				toolCallId: "t",
				toolName: "read",
				content: [{ type: "text", text: huge }],
				isError: false,
				timestamp: 1,
			},
		});
		// A 100k-token output, but the request carries 2,000 characters of it: all three fit 1,000 tokens.
		const prepared = prepareBranchEntries([u, a, r], 1000);
		expect(prepared.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
		expect(prepared.totalTokens).toBeLessThan(1000);
	});

	it("keeps the newest messages within the budget, still squeezing in a summary", () => {
		const tree = new Tree();
		const summary = tree.add(null, {
			type: "compaction",
			summary: "x".repeat(40),
			firstKeptEntryId: "n0",
			tokensBefore: 1,
		});
		const old = tree.user(summary.id, "x".repeat(400));
		const recent = tree.user(old.id, "x".repeat(40));
		expect(prepareBranchEntries([old, recent], 50).messages).toEqual([(recent as { message: unknown }).message]);
		const withSummary = prepareBranchEntries([summary, recent], 15);
		expect(withSummary.messages.map((message) => message.role)).toEqual(["compactionSummary", "user"]);
		expect(withSummary.totalTokens).toBe(20);
	});
});

describe("generateBranchSummary", () => {
	it("asks the model with the branch prompt and returns preamble + summary + files", async () => {
		const { b1, b2 } = forkedTree();
		const { streamFn, requests } = scriptedStream([
			{ text: "## Goal\nApproach B", usage: { input: 50, output: 5, totalTokens: 55 } },
		]);
		const result = await generateBranchSummary([b1, b2], { model: testModel, streamFn, apiKey: "k" });
		expect(result).toEqual({
			summary: `${BRANCH_SUMMARY_PREAMBLE}## Goal\nApproach B\n\n<modified-files>\nb.ts\n</modified-files>`,
			details: { readFiles: [], modifiedFiles: ["b.ts"] },
			usage: expect.objectContaining({ totalTokens: 55 }),
		});
		const [request] = requests;
		expect(request!.context.systemPrompt).toBe(SUMMARIZATION_SYSTEM_PROMPT);
		expect(request!.context.tools).toBeUndefined();
		expect(requestText(request!)).toBe(
			`<conversation>\n[User]: try approach B\n\n[Assistant]: B done\n\n[Assistant tool calls]: edit(path="b.ts")\n</conversation>\n\n${BRANCH_SUMMARY_PROMPT}`,
		);
		expect(request!.options).toMatchObject({ maxTokens: 2048, apiKey: "k" });
	});

	it("oh-my-pi#4011: a fact the abandoned branch learned only from a tool result reaches the request", async () => {
		const tree = new Tree();
		const root = tree.user(null, "which port does the server use?");
		const call1 = tree.add(root.id, {
			type: "message",
			message: assistant({ toolCalls: [call("t1", "bash", { command: "grep PORT .env" })] }),
		});
		const result = tree.add(call1.id, {
			type: "message",
			message: {
				role: "toolResult",
				toolCallId: "t1",
				toolName: "bash",
				content: [{ type: "text", text: "PORT=8417" }],
				isError: false,
				timestamp: 1,
			},
		});
		const answer = tree.add(result.id, { type: "message", message: assistant({ text: "Found it." }) });
		const { streamFn, requests } = scriptedStream([{ text: "## Goal\nport" }, { text: "## Goal\nport" }]);
		await generateBranchSummary([call1, result, answer], { model: testModel, streamFn });
		expect(requestText(requests[0]!)).toContain(
			'[Assistant tool calls]: bash(command="grep PORT .env")\n\n[Tool result]: PORT=8417\n\n[Assistant]: Found it.',
		);
		// pi 0.73.1's request (and pi-compat's generateBranchSummary) has the call but not the port.
		await generateBranchSummary([call1, result, answer], { model: testModel, streamFn, toolResults: false });
		expect(requestText(requests[1]!)).not.toContain("8417");
	});

	it("appends custom instructions, or uses them alone with replaceInstructions", async () => {
		const { b1 } = forkedTree();
		const { streamFn, requests } = scriptedStream([{ text: "a" }, { text: "b" }]);
		await generateBranchSummary([b1], { model: testModel, streamFn, customInstructions: "only the decisions" });
		await generateBranchSummary([b1], {
			model: testModel,
			streamFn,
			customInstructions: "One line, please.",
			replaceInstructions: true,
		});
		expect(requestText(requests[0]!).endsWith(`${BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: only the decisions`)).toBe(
			true,
		);
		expect(requestText(requests[1]!)).toBe(
			"<conversation>\n[User]: try approach B\n</conversation>\n\nOne line, please.",
		);
	});

	it("does not call the model when there is nothing to summarize", async () => {
		const { streamFn, requests } = scriptedStream([]);
		const tree = new Tree();
		const label = tree.add(null, { type: "label", targetId: "n0", label: "x" });
		expect(await generateBranchSummary([label], { model: testModel, streamFn })).toEqual({
			summary: EMPTY_BRANCH_SUMMARY,
			details: { readFiles: [], modifiedFiles: [] },
		});
		expect(requests).toHaveLength(0);
	});

	it("regression: a branch of nothing but tool results (the user went back to the call) asks no model, as pi (tree-differential seed -1620587218)", async () => {
		const { streamFn, requests } = scriptedStream([]);
		const tree = new Tree();
		const call1 = tree.add(null, {
			type: "message",
			message: assistant({ toolCalls: [call("t1", "read", { path: "a.ts" })] }),
		});
		const result = tree.add(call1.id, {
			type: "message",
			message: {
				role: "toolResult",
				toolCallId: "t1",
				toolName: "read",
				content: [{ type: "text", text: "x" }],
				isError: false,
				timestamp: 1,
			},
		});
		const label = tree.add(result.id, { type: "label", targetId: result.id, label: "checkpoint" });
		expect(await generateBranchSummary([result, label], { model: testModel, streamFn })).toMatchObject({
			summary: EMPTY_BRANCH_SUMMARY,
		});
		expect(requests).toHaveLength(0);
	});

	it("throws typed errors for provider failures and aborts", async () => {
		const { b1 } = forkedTree();
		const failing = scriptedStream([{ error: "429 rate_limit_error" }]);
		await expect(generateBranchSummary([b1], { model: testModel, streamFn: failing.streamFn })).rejects.toMatchObject({
			code: "PROVIDER",
			message: "Branch summarization failed: 429 rate_limit_error",
		});
		const controller = new AbortController();
		const hanging = scriptedStream([{ hangUntilAborted: true }]);
		const pending = generateBranchSummary([b1], {
			model: testModel,
			streamFn: hanging.streamFn,
			signal: controller.signal,
		});
		controller.abort();
		await expect(pending).rejects.toBeInstanceOf(SettleError);
		await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
	});
});
