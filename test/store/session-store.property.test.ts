import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { buildSessionContext as piBuildSessionContext } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { AgentMessage, ThinkingLevel } from "../../src/llm/types.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { buildSessionContext, buildSessionProjection } from "../../src/store/projection.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, toolResult, usage, user } from "./helpers.js";

/**
 * A fraction in [0, 1) that picks an item from whatever list exists when the op runs. Uniform: an
 * `fc.double` in [0, 1) is spread over float representations, so ~90% of its draws are below 1e-10
 * and nearly every pick would be the first item.
 */
const pick = fc.integer({ min: 0, max: 999_999 }).map((n) => n / 1_000_000);
const text = fc.string({ maxLength: 12 });

const op = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ kind: fc.constant("user" as const), text }) },
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant("assistant" as const),
			text,
			model: fc.constantFrom("m1", "m2"),
			toolCall: fc.boolean(),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("toolResult" as const), text }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("bash" as const), text }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const), text }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("customMessage" as const), text, display: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("custom" as const), text }) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant("thinking" as const),
			level: fc.constantFrom<ThinkingLevel>("off", "low", "medium", "high"),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("model" as const), modelId: fc.constantFrom("a", "b") }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("compaction" as const), keep: fc.option(pick), text }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("label" as const), target: pick, label: fc.option(text) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("sessionInfo" as const), text }) },
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("contextEdit" as const),
			target: pick,
			anyEntry: fc.boolean(),
			replacement: fc.oneof(fc.constant(null), text, fc.constant("blocks")),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("usage" as const) }) },
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant("branch" as const), target: pick }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("resetLeaf" as const) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("branchSummary" as const), target: fc.option(pick), text }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("branchedSession" as const), target: pick }) },
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

const PI_MESSAGES = [
	"Context edit replacement must be null or contain string/array content",
	/^Entry \S+ is not on the active branch$/,
	/^Entry \S+ does not contribute editable model content$/,
];

function choose<T>(items: readonly T[], at: number): T | undefined {
	return items.length === 0 ? undefined : items[Math.floor(at * items.length)];
}

function apply(sm: SessionManager, o: Op, step: number): void {
	const entries = sm.getEntries();
	switch (o.kind) {
		case "user":
			sm.appendMessage(user(o.text, step));
			return;
		case "assistant":
			sm.appendMessage(assistant(o.text, { model: o.model, toolCall: o.toolCall ? `call${step}` : undefined }));
			return;
		case "toolResult":
			sm.appendMessage(toolResult(`call${step}`, o.text));
			return;
		case "bash":
			sm.appendMessage({
				role: "bashExecution",
				command: o.text,
				output: "out",
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: step,
			});
			return;
		case "system":
			sm.appendMessage({ role: "system", content: `prompt ${o.text}`, timestamp: step });
			return;
		case "customMessage":
			sm.appendCustomMessageEntry("prop", o.text, o.display, { step });
			return;
		case "custom":
			sm.appendCustomEntry("prop", { text: o.text });
			return;
		case "thinking":
			sm.appendThinkingLevelChange(o.level);
			return;
		case "model":
			sm.appendModelChange("prov", o.modelId);
			return;
		case "compaction": {
			const keep = o.keep === null ? null : (choose(sm.getBranch(), o.keep)?.id ?? null);
			sm.appendCompaction(`summary ${o.text}`, keep, step, { readFiles: [], modifiedFiles: [] });
			return;
		}
		case "label": {
			const target = choose(entries, o.target);
			if (target) sm.appendLabelChange(target.id, o.label ?? undefined);
			return;
		}
		case "sessionInfo":
			sm.appendSessionInfo(o.text);
			return;
		case "contextEdit": {
			const candidates = o.anyEntry
				? entries
				: sm
						.getBranch()
						.filter(
							(e) =>
								e.type === "custom_message" ||
								(e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)),
						);
			const target = choose(candidates, o.target);
			if (!target) return;
			const replacement =
				o.replacement === null
					? null
					: o.replacement === "blocks"
						? { content: [{ type: "text" as const, text: `block ${step}` }] }
						: { content: o.replacement };
			const before = sm.getEntries().length;
			try {
				sm.appendContextEdit(target.id, replacement);
			} catch (error) {
				// Only the "any entry" variant may pick an invalid target; it must fail with pi's text and append nothing.
				expect(o.anyEntry).toBe(true);
				expect(error).toBeInstanceOf(SettleError);
				const message = (error as Error).message;
				expect(PI_MESSAGES.some((m) => (typeof m === "string" ? m === message : m.test(message)))).toBe(true);
				expect(sm.getEntries().length).toBe(before);
			}
			return;
		}
		case "usage":
			sm.appendUsage("summary", "prov", "a", usage);
			return;
		case "branch": {
			const target = choose(entries, o.target);
			if (target) sm.branch(target.id);
			return;
		}
		case "resetLeaf":
			sm.resetLeaf();
			return;
		case "branchSummary": {
			const target = o.target === null ? null : (choose(entries, o.target)?.id ?? null);
			sm.branchWithSummary(target, o.text);
			return;
		}
		case "branchedSession": {
			const target = choose(entries, o.target);
			if (target) sm.createBranchedSession(target.id);
			return;
		}
	}
}

function expectWellFormed(entries: SessionEntry[]) {
	const seen = new Set<string>();
	for (const entry of entries) {
		expect(seen.has(entry.id)).toBe(false);
		expect(entry.parentId === null || seen.has(entry.parentId)).toBe(true);
		seen.add(entry.id);
	}
}

const isConversation = (e: SessionEntry) =>
	e.type === "message" && (e.message.role === "user" || e.message.role === "assistant");

describe("session store properties", () => {
	it("reopening from disk yields identical entries, leaf and context; ids unique; parents earlier", () => {
		fc.assert(
			fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
				const dir = tempDir("settle-prop-");
				const sm = SessionManager.create("/prop", dir);
				try {
					ops.forEach((o, step) => {
						apply(sm, o, step);
						// the incrementally maintained context always equals a from-scratch build
						expect(sm.buildSessionProjection()).toEqual(buildSessionProjection(sm.getEntries(), sm.getLeafId()));
					});
				} finally {
					sm.close();
				}
				const entries = sm.getEntries();
				expectWellFormed(entries);
				const file = sm.getSessionFile()!;
				expect(existsSync(file)).toBe(entries.some(isConversation));
				if (!existsSync(file)) return;
				const reopened = SessionManager.open(file);
				try {
					expect(reopened.getDiagnostics()).toEqual([]);
					expect(reopened.getHeader()).toEqual(sm.getHeader());
					expect(reopened.getEntries()).toEqual(entries);
					const last = entries[entries.length - 1]!.id;
					expect(reopened.getLeafId()).toBe(last);
					expect(reopened.buildSessionContext()).toEqual(buildSessionContext(entries, last));
					expect(reopened.getSessionName()).toBe(sm.getSessionName());
					for (const entry of entries) expect(reopened.getLabel(entry.id)).toBe(sm.getLabel(entry.id));
					if (sm.getLeafId() === last) expect(reopened.buildSessionContext()).toEqual(sm.buildSessionContext());
				} finally {
					reopened.close();
				}
			}),
			{ numRuns: 60 },
		);
	});

	it("an unreadable entry line: its children join the entry before it; reopening gives the same tree; appends continue from the leaf", () => {
		let attached = 0;
		fc.assert(
			fc.property(
				fc.array(op, { minLength: 1, maxLength: 30 }),
				pick,
				fc.oneof(
					pick.map((at) => ({ cut: at })),
					fc.constant({ zeros: true as const }),
				),
				(ops, linePick, how) => {
					const dir = tempDir("settle-prop-damage-");
					const sm = SessionManager.create("/prop", dir);
					sm.appendMessage(user("start", -1));
					sm.appendMessage(assistant("ok"));
					try {
						ops.forEach((o, step) => {
							apply(sm, o, step);
						});
					} finally {
						sm.close();
					}
					const entries = sm.getEntries();
					const file = sm.getSessionFile()!;
					// A branched session of entries with no message is not written (lazy persistence): no line to lose.
					expect(existsSync(file)).toBe(entries.some(isConversation));
					if (!existsSync(file)) return;
					// A lost write: the line cut short (its id may survive), or zeros in its place (claude-code#49876).
					const k = Math.floor(linePick * entries.length);
					const lines = readFileSync(file, "utf8").split("\n");
					const line = lines[k + 1]!;
					lines[k + 1] =
						"zeros" in how ? "\u0000".repeat(line.length) : line.slice(0, 1 + Math.floor(how.cut * (line.length - 1)));
					writeFileSync(file, lines.join("\n"));

					// The reference: the entries without the lost one, its children attached to the entry before it.
					const lost = entries[k]!;
					const expected = entries
						.filter((_, i) => i !== k)
						.map((e) => (e.parentId === lost.id && k > 0 ? { ...e, parentId: entries[k - 1]!.id } : e));
					attached += expected.filter((e, i) => e.parentId !== entries[i < k ? i : i + 1]!.parentId).length;
					const reopened = SessionManager.open(file);
					let leaf: string | null;
					try {
						expect(reopened.getEntries()).toEqual(expected);
						leaf = reopened.getLeafId();
						expect(leaf).toBe(expected[expected.length - 1]?.id ?? null);
						expect(reopened.buildSessionContext()).toEqual(buildSessionContext(expected, leaf));
						const id = reopened.appendMessage(user("after", 1));
						expect(reopened.getEntry(id)!.parentId).toBe(leaf);
						expected.push(reopened.getEntry(id)!);
					} finally {
						reopened.close();
					}
					const again = SessionManager.open(file);
					try {
						expect(again.getEntries()).toEqual(expected);
						expect(again.buildSessionContext()).toEqual(buildSessionContext(expected, expected.at(-1)!.id));
					} finally {
						again.close();
					}
				},
			),
			{
				numRuns: 60,
				// Regression (CI, seed -1908965300): the last branched session held only a branch_summary, so no file.
				examples: [
					[
						[
							{ kind: "branchSummary", target: null, text: "" },
							{ kind: "assistant", text: "", model: "m1", toolCall: false },
							{ kind: "branchedSession", target: 0.5 },
							{ kind: "branchedSession", target: 0 },
						],
						0,
						{ zeros: true },
					],
				],
			},
		);
		expect(attached).toBeGreaterThan(0);
	});

	it("builds the same context as pi 0.73.1 for every session pi's format covers (no context edits or system messages)", () => {
		const piOnly = op.filter((o) => o.kind !== "contextEdit" && o.kind !== "system");
		fc.assert(
			fc.property(fc.array(piOnly, { maxLength: 40 }), fc.option(pick), (ops, leafPick) => {
				const sm = SessionManager.inMemory("/prop");
				ops.forEach((o, step) => {
					apply(sm, o, step);
				});
				const entries = sm.getEntries();
				const leaf = leafPick === null ? sm.getLeafId() : (choose(entries, leafPick)?.id ?? null);
				const ours = buildSessionContext(entries, leaf);
				const theirs = piBuildSessionContext(entries as never, leaf);
				expect(JSON.stringify(ours.messages as AgentMessage[])).toBe(JSON.stringify(theirs.messages));
				expect(ours.thinkingLevel).toBe(theirs.thinkingLevel);
				expect(ours.model).toEqual(theirs.model);
			}),
			{ numRuns: 150 },
		);
	});
});
