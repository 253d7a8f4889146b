/**
 * Invariants of `/tree`'s renderer on random session trees built through a real SessionManager
 * (random branch points, entry kinds, labels, current position): the output stays within the
 * bound, the current position is always shown, the current branch is shown whole when it fits in
 * half the lines, every entry left out is counted in exactly one `… N entries` line, and the
 * unbounded output lists every entry of the tree view (every entry at all with `all`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstLine, oneLineText, terminalSafe } from "../../src/cli/interactive-render.js";
import { describeEntry, matchEntryIds, renderSessionTree } from "../../src/cli/interactive-tree.js";
import { emptyUsage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { releaseAll, tempDir, track } from "../store/helpers.js";

type Step =
	| { kind: "user" | "assistant" | "toolOnly" | "model" | "thinking"; parent: number; text: string }
	| { kind: "label"; target: number; text: string };

const usage = emptyUsage();

/** Mostly after the entry appended last (a conversation goes on), sometimes after any earlier one. */
const parent = fc.oneof({ weight: 3, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() });

const step: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 8,
		arbitrary: fc.record({
			kind: fc.constantFrom("user", "assistant", "toolOnly", "model", "thinking") as fc.Arbitrary<"user">,
			parent,
			text: fc.string({ maxLength: 30 }),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("label" as const), target: fc.nat(), text: fc.string({ maxLength: 10 }) }),
	},
);

/**
 * A session built from `steps`: each entry is appended after a random earlier one (or the first
 * position: a new root), so the tree has random branches; then the leaf moves to `leaf`.
 */
function buildSession(steps: Step[], leaf: number | null): SessionManager {
	const manager = SessionManager.inMemory("/tmp/project");
	const ids: string[] = [];
	for (const item of steps) {
		if (item.kind === "label") {
			if (ids.length === 0) continue;
			manager.appendLabelChange(ids[item.target % ids.length]!, item.text.trim() || undefined);
			continue;
		}
		const parentIndex = item.parent === -1 ? ids.length - 1 : item.parent % (ids.length + 1);
		if (parentIndex === -1 || parentIndex === ids.length) manager.resetLeaf();
		else manager.branch(ids[parentIndex]!);
		const timestamp = Date.now();
		let id: string;
		switch (item.kind) {
			case "user":
				id = manager.appendMessage({ role: "user", content: item.text, timestamp });
				break;
			case "assistant":
			case "toolOnly":
				id = manager.appendMessage({
					role: "assistant",
					content:
						item.kind === "assistant"
							? [{ type: "text", text: item.text }]
							: [{ type: "toolCall", id: `call-${ids.length}`, name: "bash", arguments: { command: item.text } }],
					api: "faux",
					provider: "faux",
					model: "faux-1",
					usage,
					stopReason: item.kind === "assistant" ? "stop" : "toolUse",
					timestamp,
				});
				break;
			case "model":
				id = manager.appendModelChange("faux", item.text || "m");
				break;
			default:
				id = manager.appendThinkingLevelChange("high");
		}
		ids.push(id);
	}
	const all = manager.getEntries();
	if (leaf === null) manager.resetLeaf();
	else if (all.length > 0) manager.branch(all[leaf % all.length]!.id);
	return manager;
}

/** The `… N entries` counts of rendered lines. */
function gapCounts(lines: string[]): number[] {
	return lines.flatMap((line) => {
		const match = /^[│├└─ ⋯]*… (\d+) entr(?:y|ies)(?: in \d+ branches)?$/.exec(line);
		return match ? [Number(match[1])] : [];
	});
}

const session = fc.record({
	steps: fc.array(step, { minLength: 1, maxLength: 150, size: "large" }),
	leaf: fc.option(fc.nat(), { nil: null, freq: 8 }),
	maxLines: fc.integer({ min: 3, max: 40 }),
});

describe("/tree's renderer", () => {
	it("stays within the bound, always shows the current position, and accounts for every entry left out", () => {
		fc.assert(
			fc.property(session, ({ steps, leaf, maxLines }) => {
				const manager = buildSession(steps, leaf);
				const roots = manager.getTree();
				const leafId = manager.getLeafId();
				const full = renderSessionTree(roots, leafId);
				const bounded = renderSessionTree(roots, leafId, { maxLines });

				expect(bounded.lines.length).toBeLessThanOrEqual(maxLines);
				expect(bounded.total).toBe(full.total);
				expect(full.shown).toBe(full.total);
				// Each entry left out is in exactly one `… N entries` line.
				const gaps = gapCounts(bounded.lines);
				expect(bounded.shown + gaps.reduce((sum, count) => sum + count, 0)).toBe(full.total);
				expect(bounded.lines.length).toBe(bounded.shown + gaps.length);
				// Shown rows keep the tree's order.
				const order = new Map(full.shownIds.map((id, index) => [id, index]));
				const positions = bounded.shownIds.map((id) => order.get(id)!);
				expect(positions).toEqual([...positions].sort((a, b) => a - b));

				if (leafId !== null) {
					const here = bounded.lines.filter((line) => line.endsWith("  ← here"));
					expect(here).toHaveLength(1);
					expect(here[0]).toContain(` ${leafId.slice(0, 8)} `);
				} else {
					expect(bounded.lines.some((line) => line.endsWith("← here"))).toBe(false);
				}

				// The current branch (as the tree view shows it) is shown whole when it fits in half the lines.
				const path = new Set(manager.getBranch().map((entry) => entry.id));
				const visiblePath = full.shownIds.filter((id) => path.has(id));
				if (visiblePath.length <= Math.floor(maxLines / 2)) {
					for (const id of visiblePath) expect(bounded.shownIds).toContain(id);
				}
				// `•` marks exactly the entries of the current branch.
				for (const [index, line] of full.lines.entries()) {
					expect(/^[│├└─ ⋯]*• /.test(line)).toBe(path.has(full.shownIds[index]!));
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("with `all`, every entry of the session is on a line of its own, once", () => {
		fc.assert(
			fc.property(session, ({ steps, leaf }) => {
				const manager = buildSession(steps, leaf);
				const all = renderSessionTree(manager.getTree(), manager.getLeafId(), { all: true });
				const ids = manager.getEntries().map((entry) => entry.id);
				expect([...all.shownIds].sort()).toEqual([...ids].sort());
				expect(all.lines).toHaveLength(ids.length);
				for (const line of all.lines) expect(line).not.toContain("\n");
			}),
			{ numRuns: 150 },
		);
	});

	it("a long single branch: the start, a count, and the lines nearest the current position", () => {
		const manager = SessionManager.inMemory("/tmp/project");
		for (let index = 0; index < 500; index++) {
			manager.appendMessage({ role: "user", content: `message ${index}`, timestamp: Date.now() });
		}
		const tree = renderSessionTree(manager.getTree(), manager.getLeafId(), { maxLines: 10 });
		expect(tree.lines).toHaveLength(10);
		expect(tree.lines[0]).toMatch(/^• \w{8} user: message 0$/);
		expect(tree.lines[1]).toMatch(/^ {2}… \d+ entries$/);
		expect(tree.lines.at(-1)).toMatch(/^• \w{8} user: message 499 {2}← here$/);
	});

	it("entry excerpts are one clipped line; id prefixes match exactly or by start", () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 400 }), (text) => {
				const line = describeEntry({
					type: "message",
					id: "1a2b3c4d",
					parentId: null,
					timestamp: "",
					message: { role: "user", content: text, timestamp: 0 },
				});
				expect(line).not.toContain("\n");
				expect(line.length).toBeLessThanOrEqual("user: ".length + 72);
			}),
		);
		expect(matchEntryIds(["1a2b3c4d", "1a2bffff", "99999999"], "1A2B")).toEqual(["1a2b3c4d", "1a2bffff"]);
		expect(matchEntryIds(["1a2b", "1a2bffff"], "1a2b")).toEqual(["1a2b"]);
		expect(matchEntryIds(["1a2b3c4d"], " ")).toEqual([]);
	});

	it("bug: a line break in a model id, a custom type or a tool name split a /tree row in two (fast-check seed 2099972471, with any characters in names)", () => {
		const manager = SessionManager.inMemory("/tmp/project");
		manager.appendModelChange("faux", "\n");
		manager.appendCustomEntry("notes\nfrom an extension", {});
		manager.appendCustomMessageEntry("reminder\n", "Run the tests.", true);
		// A level outside the union, as a hand-edited file may hold.
		manager.appendThinkingLevelChange("high\n" as "high");
		const id = manager.appendMessage({
			role: "toolResult",
			toolCallId: "no-call",
			toolName: "grep\n-r",
			content: [{ type: "text", text: "found" }],
			isError: false,
			timestamp: 0,
		});
		manager.appendLabelChange(id, "x");
		const tree = renderSessionTree(manager.getTree(), manager.getLeafId(), { all: true });
		expect(tree.lines).toHaveLength(manager.getEntries().length);
		for (const line of tree.lines) expect(line).not.toContain("\n");
		expect(tree.lines.join("\n")).toContain("[model: faux/]");
		expect(tree.lines.join("\n")).toContain("[custom: notes from an extension]");
		expect(tree.lines.join("\n")).toContain("[reminder] Run the tests.");
		expect(tree.lines.join("\n")).toContain("→ grep -r");
	});
});

describe("terminalSafe: text from a session file never drives the terminal", () => {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
	const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
	/** Strings rich in control characters (ESC, BEL, CR, CSI) among any other characters. */
	const hostile = fc.string({
		unit: fc.oneof(
			fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
			fc.string({ unit: "grapheme", maxLength: 1 }),
		),
		maxLength: 200,
	});

	it("regression: no control character survives, one character for one, and other text is unchanged", () => {
		fc.assert(
			fc.property(hostile, (text) => {
				const safe = terminalSafe(text);
				expect(safe).not.toMatch(CONTROL);
				expect(safe.length).toBe(text.length);
				if (!CONTROL.test(text)) expect(safe).toBe(text);
			}),
		);
		expect(terminalSafe("a\x1b]52;c;aGk=\x07\r\x7f\x9b")).toBe("a␛]52;c;aGk=␇␍␡�");
	});

	it("regression: /tree rows of entries and labels made of hostile text hold no control character", () => {
		fc.assert(
			fc.property(hostile, hostile, hostile, (text, label, customType) => {
				const manager = SessionManager.inMemory("/tmp");
				const id = manager.appendMessage({ role: "user", content: text, timestamp: 0 });
				manager.appendCustomEntry(customType, {});
				manager.appendLabelChange(id, label);
				const tree = renderSessionTree(manager.getTree(), manager.getLeafId(), { all: true });
				for (const line of tree.lines) expect(line).not.toMatch(CONTROL);
				expect(oneLineText(label)).not.toMatch(CONTROL);
				expect(firstLine(text)).not.toMatch(CONTROL);
			}),
			{ numRuns: 50 },
		);
	});

	it("regression: ids in a hand-edited session file (an entry's own, a label's or context edit's target) reached /tree's rows raw", () => {
		fc.assert(
			fc.property(hostile, hostile, hostile, (entryId, labelTarget, editTarget) => {
				const file = join(tempDir("settle-tree-ids-"), "edited.jsonl");
				const timestamp = new Date(0).toISOString();
				const lines = [
					{ type: "session", version: 3, id: "session-1", timestamp, cwd: "/tmp/project" },
					{
						type: "message",
						id: `u${entryId}`,
						parentId: null,
						timestamp,
						message: { role: "user", content: "hi", timestamp: 0 },
					},
					{ type: "label", id: "label-1", parentId: `u${entryId}`, timestamp, targetId: labelTarget, label: "x" },
					{ type: "context_edit", id: "edit-1", parentId: "label-1", timestamp, targetId: editTarget },
				];
				writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
				const manager = track(SessionManager.open(file));
				const tree = renderSessionTree(manager.getTree(), manager.getLeafId(), { all: true });
				expect(tree.lines).toHaveLength(3);
				for (const line of tree.lines) expect(line).not.toMatch(CONTROL);
				releaseAll();
			}),
			{ numRuns: 50 },
		);
	});
});
