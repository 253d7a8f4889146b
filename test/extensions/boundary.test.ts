import { describe, expect, it } from "vitest";
import { validateBoundaryEntries } from "../../src/extensions/boundary.js";
import type {
	AgentBeforeSettleBase,
	BoundaryContextPreview,
	BoundaryEntryDraft,
	TurnEndBoundaryBase,
} from "../../src/extensions/types.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import { runnerWith, withoutStacks } from "./helpers.js";

const assistant: AssistantMessage = {
	role: "assistant",
	content: [{ type: "text", text: "done" }],
	api: "faux",
	provider: "faux",
	model: "m",
	usage: emptyUsage(),
	stopReason: "stop",
	timestamp: 1,
};

const turnEnd: TurnEndBoundaryBase = {
	type: "turn_end",
	turnIndex: 0,
	message: assistant,
	toolResults: [],
	messageEntryId: "a1",
	toolResultEntryIds: [],
	outcome: "completed",
};

const beforeSettle: AgentBeforeSettleBase = { type: "agent_before_settle", outcome: "completed" };

const note = (text: string): BoundaryEntryDraft => ({
	type: "custom_message",
	customType: "note",
	content: text,
	display: true,
});

/**
 * A preview builder that records every call: the context "contains" the drafts as messages; it
 * can continue when the last draft is a custom message; it rejects context edits of unknown ids.
 */
function previewRecorder(knownIds: string[] = ["a1"]) {
	const calls: BoundaryEntryDraft[][] = [];
	const build = (entries: readonly BoundaryEntryDraft[]): BoundaryContextPreview => {
		calls.push(structuredClone([...entries]));
		for (const draft of entries) {
			if (draft.type === "context_edit" && !knownIds.includes(draft.targetId)) {
				throw new Error(`context_edit target ${draft.targetId} is not on the branch`);
			}
		}
		const last = entries.at(-1);
		return {
			contextEntries: [],
			contextMessages: entries.map((d) => ({ role: "user", content: JSON.stringify(d), timestamp: 0 })),
			llmMessages: [],
			pendingMessages: [],
			canContinue: last?.type === "custom_message",
		};
	};
	return { calls, build };
}

describe("emitBoundary", () => {
	it("does nothing (and builds no preview) without handlers", async () => {
		const { runner } = await runnerWith((pi) => pi.on("turn_start", () => {}));
		const { calls, build } = previewRecorder();
		expect(await runner.emitBoundary(turnEnd, build)).toEqual({
			entries: [],
			continue: false,
			context: undefined,
			valid: true,
		});
		expect(calls).toEqual([]);
	});

	it("gives each handler the base payload with the drafts, continue flag and preview so far", async () => {
		const seen: unknown[] = [];
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("turn_end", (event) => {
					seen.push({
						turnIndex: event.turnIndex,
						message: event.message,
						messageEntryId: event.messageEntryId,
						outcome: event.outcome,
						entries: structuredClone(event.entries),
						continue: event.continue,
						previewSize: event.context.contextMessages.length,
					});
					event.entries.push(note("one"));
				}),
			(pi) =>
				pi.on("turn_end", (event) => {
					seen.push({
						entries: structuredClone(event.entries),
						continue: event.continue,
						previewSize: event.context.contextMessages.length,
					});
					return { continue: true };
				}),
		);
		const { build } = previewRecorder();
		const result = await runner.emitBoundary(turnEnd, build);
		expect(seen).toEqual([
			{
				turnIndex: 0,
				message: assistant,
				messageEntryId: "a1",
				outcome: "completed",
				entries: [],
				continue: false,
				previewSize: 0,
			},
			{ entries: [note("one")], continue: false, previewSize: 1 },
		]);
		expect(result).toMatchObject({ entries: [note("one")], continue: true, valid: true });
		expect(result.context?.contextMessages).toHaveLength(1);
	});

	it("rebuilds the preview after every handler", async () => {
		const { runner } = await runnerWith(
			(pi) => pi.on("agent_before_settle", (event) => void event.entries.push(note("a"))),
			(pi) => pi.on("agent_before_settle", () => undefined),
			(pi) => pi.on("agent_before_settle", () => ({ entries: [{ type: "custom", customType: "state", data: 1 }] })),
		);
		const { calls, build } = previewRecorder();
		const result = await runner.emitBoundary(beforeSettle, build);
		expect(calls).toEqual([[], [note("a")], [note("a")], [{ type: "custom", customType: "state", data: 1 }]]);
		expect(result.entries).toEqual([{ type: "custom", customType: "state", data: 1 }]);
	});

	it("lets a returned continue:false override an earlier request, and honours in-place assignment", async () => {
		const { runner } = await runnerWith(
			(pi) =>
				pi.on("turn_end", (event) => {
					event.entries = [note("assigned")];
					event.continue = true;
				}),
			(pi) => pi.on("turn_end", (event) => ({ continue: !event.continue })),
		);
		const result = await runner.emitBoundary(turnEnd, previewRecorder().build);
		expect(result).toMatchObject({ entries: [note("assigned")], continue: false, valid: true });
	});

	it("keeps the in-place changes of a handler that then throws", async () => {
		const { runner, errors } = await runnerWith((pi) =>
			pi.on("turn_end", (event) => {
				event.entries.push(note("kept"));
				throw new Error("after pushing");
			}),
		);
		const result = await runner.emitBoundary(turnEnd, previewRecorder().build);
		expect(result.entries).toEqual([note("kept")]);
		expect(result.context?.contextMessages).toHaveLength(1);
		expect(withoutStacks(errors)).toEqual([{ extensionPath: "<inline:1>", event: "turn_end", error: "after pushing" }]);
	});

	it("reports drafts the preview rejects, keeps the last good preview, and accepts a later repair", async () => {
		const previews: number[] = [];
		const { runner, errors } = await runnerWith(
			(pi) => pi.on("turn_end", () => ({ entries: [{ type: "context_edit", targetId: "zz", replacement: null }] })),
			(pi) =>
				pi.on("turn_end", (event) => {
					previews.push(event.context.contextMessages.length);
					return { entries: [{ type: "context_edit", targetId: "a1", replacement: { content: "short" } }] };
				}),
		);
		const result = await runner.emitBoundary(turnEnd, previewRecorder().build);
		expect(withoutStacks(errors)).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "turn_end",
				error: "Invalid boundary entries: context_edit target zz is not on the branch",
			},
		]);
		expect(previews).toEqual([0]);
		expect(result).toMatchObject({
			entries: [{ type: "context_edit", targetId: "a1", replacement: { content: "short" } }],
			valid: true,
		});
		expect(result.error).toBeUndefined();
	});

	it("marks malformed final drafts invalid with the reason, and drops a continue request", async () => {
		const { runner, errors } = await runnerWith((pi) =>
			pi.on("agent_before_settle", () => ({
				entries: [note("fine"), { type: "custom_message", customType: "x", content: 5 } as never],
				continue: true,
			})),
		);
		const result = await runner.emitBoundary(beforeSettle, previewRecorder().build);
		const reason =
			"Invalid boundary entries: entries[1] (custom_message): content must be a string or an array of text/image blocks";
		expect(result.valid).toBe(false);
		expect(result.error).toBe(reason);
		expect(result.continue).toBe(false);
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<inline:1>", event: "agent_before_settle", error: reason },
			{
				extensionPath: "<inline:1>",
				event: "agent_before_settle",
				error: "agent_before_settle requested continuation without runnable model context",
			},
		]);
	});

	it("reports a continue request whose context cannot continue and resolves continue:false", async () => {
		const { runner, errors } = await runnerWith(
			(pi) => pi.on("turn_end", () => ({ continue: true })),
			(pi) => pi.on("turn_end", () => ({ entries: [{ type: "custom", customType: "s" }] })),
		);
		const result = await runner.emitBoundary(turnEnd, previewRecorder().build);
		expect(result).toMatchObject({ continue: false, valid: true });
		expect(withoutStacks(errors)).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "turn_end",
				error: "turn_end requested continuation without runnable model context",
			},
		]);
	});

	it("rejects a turn_end base without the persisted assistant entry id", async () => {
		const { runner } = await runnerWith((pi) => pi.on("turn_end", () => {}));
		await expect(runner.emitBoundary({ ...turnEnd, messageEntryId: "" }, previewRecorder().build)).rejects.toThrow(
			"turn_end could not resolve the persisted assistant entry ID",
		);
	});
});

describe("validateBoundaryEntries", () => {
	it("accepts every well-formed draft type", () => {
		expect(() =>
			validateBoundaryEntries([
				{ type: "custom", customType: "s", data: { a: 1 } },
				note("x"),
				{ type: "custom_message", customType: "n", content: [{ type: "text", text: "t" }], display: false },
				{ type: "context_edit", targetId: "e1", replacement: null },
				{ type: "context_edit", targetId: "e1", replacement: { content: "c" } },
				{ type: "compaction", summary: "s", firstKeptEntryId: null },
				{ type: "compaction", summary: "s", firstKeptEntryId: "e2", details: {}, usage: emptyUsage() },
			]),
		).not.toThrow();
	});

	it.each([
		[{ entries: 1 }, "entries must be an array of entry drafts"],
		[[null], "entries[0] must be an object with a type"],
		[
			[{ type: "label" }],
			'entries[0]: type must be one of custom, custom_message, context_edit, compaction (got "label")',
		],
		[[{ type: "custom", customType: "" }], "entries[0] (custom): customType must be a non-empty string"],
		[
			[{ type: "custom_message", customType: "n", content: "x" }],
			"entries[0] (custom_message): display must be a boolean",
		],
		[[{ type: "context_edit", targetId: 3 }], "entries[0] (context_edit): targetId must be a non-empty string"],
		[
			[{ type: "context_edit", targetId: "e", replacement: { text: "x" } }],
			"entries[0] (context_edit): replacement must be null (omit the target) or { content }",
		],
		[[{ type: "compaction", summary: 1, firstKeptEntryId: null }], "entries[0] (compaction): summary must be a string"],
		[
			[{ type: "compaction", summary: "s", firstKeptEntryId: "" }],
			"entries[0] (compaction): firstKeptEntryId must be an entry id or null",
		],
	])("rejects %j with a message naming the draft", (entries, message) => {
		expect(() => validateBoundaryEntries(entries)).toThrow(message);
	});
});
