/**
 * `getBranchedEntries` (what a fork writes) copies only the branch, and gives exactly what
 * `createBranchedSession` gives a copy of the whole session (the way forks were made before):
 * the path without label entries, re-chained, a compaction that kept a label entry keeping the
 * next entry, then the labels of path entries in the session's order. The source is left as it is.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, releaseAll, tempDir, track, user } from "./helpers.js";

afterEach(releaseAll);

const pick = fc.integer({ min: 0, max: 999_999 }).map((n) => n / 1_000_000);
const op = fc.oneof(
	{ weight: 5, arbitrary: fc.record({ kind: fc.constant("user" as const), text: fc.string({ maxLength: 8 }) }) },
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant("assistant" as const) }) },
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant("label" as const), target: pick, clear: fc.boolean() }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("compaction" as const), keep: pick }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("branch" as const), target: pick }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("name" as const) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("custom" as const) }) },
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function build(manager: SessionManager, ops: readonly Op[]): void {
	const at = (fraction: number) => {
		const entries = manager.getEntries();
		return entries[Math.floor(fraction * entries.length)]?.id;
	};
	manager.appendMessage(user("start"));
	for (const [index, step] of ops.entries()) {
		switch (step.kind) {
			case "user":
				manager.appendMessage(user(`${step.text} ${index}`));
				break;
			case "assistant":
				manager.appendMessage(assistant(`answer ${index}`));
				break;
			case "label":
				manager.appendLabelChange(at(step.target)!, step.clear ? undefined : `label ${index}`);
				break;
			case "compaction":
				// Any entry, a label entry included: the copy must re-point it.
				manager.appendCompaction(`summary ${index}`, at(step.keep)!, 1000);
				break;
			case "branch":
				manager.branch(at(step.target)!);
				break;
			case "name":
				manager.appendSessionInfo(`name ${index}`);
				break;
			case "custom":
				manager.appendCustomEntry("state", { index });
				break;
		}
	}
}

/** The ids generated for re-emitted labels are random: name them by position. */
function normalized(entries: readonly SessionEntry[]): unknown[] {
	const names = new Map<string, string>();
	const kept = new Set(entries.filter((entry) => entry.type !== "label").map((entry) => entry.id));
	for (const entry of entries) if (!kept.has(entry.id)) names.set(entry.id, `label-${names.size}`);
	const rename = (id: string | null) => (id !== null && names.has(id) ? names.get(id)! : id);
	return entries.map((entry) => ({ ...entry, id: rename(entry.id), parentId: rename(entry.parentId) }));
}

/** How forks were made before: the whole session copied into memory, then branched there. */
function viaWholeCopy(source: SessionManager, leafId: string): SessionEntry[] {
	const copy = SessionManager.inMemory(source.getCwd(), undefined, [source.getHeader()!, ...source.getEntries()]);
	copy.createBranchedSession(leafId);
	return copy.getEntries();
}

describe("getBranchedEntries", () => {
	it("is what createBranchedSession gives a whole copy, for every entry of random trees; the source is unchanged", () => {
		fc.assert(
			fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), pick, (ops, target) => {
				const manager = SessionManager.inMemory("/project");
				build(manager, ops);
				const entries = manager.getEntries();
				const leafId = entries[Math.floor(target * entries.length)]!.id;
				const before = JSON.stringify({ entries, leaf: manager.getLeafId(), labels: manager.getTree() });
				const branched = manager.getBranchedEntries(leafId);
				expect(normalized(branched)).toEqual(normalized(viaWholeCopy(manager, leafId)));
				expect(
					JSON.stringify({ entries: manager.getEntries(), leaf: manager.getLeafId(), labels: manager.getTree() }),
				).toBe(before);
			}),
			{ numRuns: 200 },
		);
	});

	it("re-emits the labels in effect on path entries only, in the session's order, chained after the branch", () => {
		const manager = SessionManager.inMemory("/project");
		const a = manager.appendMessage(user("a"));
		const b = manager.appendMessage(assistant("b"));
		const c = manager.appendMessage(user("c"));
		manager.appendLabelChange(c, "on c");
		manager.appendLabelChange(a, "on a");
		manager.appendLabelChange(b, "first on b");
		manager.appendLabelChange(b, undefined);
		manager.branch(b);
		const off = manager.appendMessage(user("off the path"));
		manager.appendLabelChange(off, "not copied");
		const branched = manager.getBranchedEntries(c);
		expect(branched.map((entry) => entry.type)).toEqual(["message", "message", "message", "label", "label"]);
		expect(branched.slice(0, 3).map((entry) => entry.parentId)).toEqual([null, a, b]);
		const labels = branched.slice(3) as Extract<SessionEntry, { type: "label" }>[];
		expect(labels.map((label) => [label.targetId, label.label])).toEqual([
			[c, "on c"],
			[a, "on a"],
		]);
		expect(labels[0]!.parentId).toBe(c);
		expect(labels[1]!.parentId).toBe(labels[0]!.id);
	});

	it("throws NOT_FOUND for an unknown entry", () => {
		const manager = SessionManager.inMemory("/project");
		manager.appendMessage(user("a"));
		expect(() => manager.getBranchedEntries("nope")).toThrow(SettleError);
		expect(() => manager.getBranchedEntries("nope")).toThrow("Entry nope not found");
	});

	it("leaves a file-backed session's file as it was", () => {
		const dir = tempDir();
		const manager = track(SessionManager.create("/project", join(dir, "sessions")));
		build(manager, [
			{ kind: "user", text: "x" },
			{ kind: "assistant" },
			{ kind: "label", target: 0.5, clear: false },
			{ kind: "compaction", keep: 0.6 },
			{ kind: "user", text: "y" },
		]);
		const file = manager.getSessionFile()!;
		const bytes = readFileSync(file, "utf8");
		const target = manager.getEntries()[1]!.id;
		expect(normalized(manager.getBranchedEntries(target))).toEqual(normalized(viaWholeCopy(manager, target)));
		expect(readFileSync(file, "utf8")).toBe(bytes);
		expect(manager.getSessionFile()).toBe(file);
	});
});
