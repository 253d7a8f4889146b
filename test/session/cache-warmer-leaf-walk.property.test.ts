/**
 * A cache-warming decision needs the prompt size of the last real request on the branch. Given
 * the leaf (`getLeafId`, as a session gives it), the warmer walks back from it to the last
 * assistant message instead of reading the whole branch: the same decision (differential
 * against the whole-branch reading, on random session trees), reading only the entries between
 * the leaf and that message, however long the session.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import { streamFromMessage } from "../../src/llm/event-stream.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { CacheWarmer, type CacheWarmerOptions } from "../../src/session/cache-warmer.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { drainMicrotasks, usage, WARM_DELAY_MS, warmModel, warmSession } from "./cache-warming-helpers.js";

const model = warmModel("warm-1");

/** A warmer on `manager`, counting what it reads; with the leaf walk or the whole branch. */
function warmerOn(manager: SessionManager, walk: boolean) {
	const reads = { branch: 0, entries: 0 };
	const host: CacheWarmerOptions = {
		stream: () => streamFromMessage(fauxAssistantMessage("")),
		appendUsage: () => "unused",
		getBranch: () => {
			reads.branch++;
			return manager.getBranch();
		},
		getEntry: (id) => {
			reads.entries++;
			return manager.getEntry(id);
		},
		...(walk ? { getLeafId: () => manager.getLeafId() } : {}),
		getMode: () => "idle",
		clock: new SimulatedClock(),
	};
	const warmer = new CacheWarmer(host);
	warmer.start({ model, context: { messages: [] }, options: {} }, () => true);
	return { warmer, reads };
}

type Op =
	| { kind: "user" }
	| { kind: "assistant"; input: number; cacheRead: number; cacheWrite: number }
	| { kind: "custom" }
	| { kind: "label" }
	| { kind: "branch"; to: number }
	| { kind: "resetLeaf" };

const tokens = fc.integer({ min: 0, max: 2_000_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant({ kind: "user" as const }) },
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("assistant" as const),
			input: tokens,
			cacheRead: tokens,
			cacheWrite: tokens,
		}),
	},
	{ weight: 2, arbitrary: fc.constant({ kind: "custom" as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: "label" as const }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant("branch" as const), to: fc.nat() }) },
	{ weight: 1, arbitrary: fc.constant({ kind: "resetLeaf" as const }) },
);

function apply(manager: SessionManager, o: Op): void {
	const entries = manager.getEntries();
	if (o.kind === "user") manager.appendMessage({ role: "user", content: "go", timestamp: 1 });
	else if (o.kind === "assistant") {
		manager.appendMessage({
			...fauxAssistantMessage("done"),
			usage: usage({ input: o.input, cacheRead: o.cacheRead, cacheWrite: o.cacheWrite }),
		});
	} else if (o.kind === "custom") manager.appendCustomEntry("note", { at: entries.length });
	else if (o.kind === "label" && entries.length > 0) manager.appendLabelChange(entries[0]!.id, "first");
	else if (o.kind === "branch" && entries.length > 0) manager.branch(entries[o.to % entries.length]!.id);
	else if (o.kind === "resetLeaf") manager.resetLeaf();
}

/** Entries read walking back from the leaf to the last assistant message (or the root). */
function walkLength(branch: readonly SessionEntry[]): number {
	let index = branch.length - 1;
	while (
		index >= 0 &&
		!(
			branch[index]!.type === "message" && (branch[index] as { message: { role: string } }).message.role === "assistant"
		)
	)
		index--;
	return index < 0 ? branch.length : branch.length - index;
}

describe("cache warmer: the last request's prompt size from the leaf", () => {
	it("the same decision as reading the whole branch, reading only the entries after the last answer", () => {
		fc.assert(
			fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
				const manager = SessionManager.inMemory("/work/project");
				for (const o of ops) apply(manager, o);
				const whole = warmerOn(manager, false);
				const walked = warmerOn(manager, true);
				expect(walked.warmer.status).toEqual(whole.warmer.status);
				expect(walked.reads.branch).toBe(0);
				expect(walked.reads.entries).toBe(walkLength(manager.getBranch()));
			}),
			{ numRuns: 300 },
		);
	});

	it("reads one entry of a 20,000-entry session that ends in an answer", () => {
		const manager = SessionManager.inMemory("/work/project");
		for (let i = 0; i < 10_000; i++) {
			manager.appendMessage({ role: "user", content: `question ${i}`, timestamp: i });
			manager.appendMessage({
				...fauxAssistantMessage(`answer ${i}`),
				usage: usage({ input: i, cacheWrite: 1_000_000 }),
			});
		}
		const { warmer, reads } = warmerOn(manager, true);
		expect(warmer.status.decision).toEqual(warmerOn(manager, false).warmer.status.decision);
		expect(warmer.status.decision?.economicsAvailable).toBe(true);
		expect(reads).toEqual({ branch: 0, entries: 2 }); // one entry per status read
	});

	it("a session's warmer never reads the whole branch: not for a status read, not for a refresh", async () => {
		const env = await warmSession();
		try {
			for (let i = 0; i < 3; i++) await env.session.prompt(`question ${i}`);
			let branchReads = 0;
			const getBranch = env.sessionManager.getBranch.bind(env.sessionManager);
			env.sessionManager.getBranch = (fromId?: string) => {
				branchReads++;
				return getBranch(fromId);
			};
			expect(env.session.cacheWarmingStatus).toMatchObject({ state: "scheduled", decision: { action: "warm" } });
			env.clock.increment(WARM_DELAY_MS);
			await drainMicrotasks();
			expect(env.warmRequests()).toHaveLength(1);
			expect(branchReads).toBe(0);
		} finally {
			env.cleanup();
		}
	});

	it("a parent cycle (a hand-edited file) without an answer ends the walk: no prompt size, as with the branch", () => {
		const entry = (id: string, parentId: string): SessionEntry =>
			({ type: "custom", id, parentId, timestamp: "2025-01-01T00:00:00.000Z", customType: "x" }) as SessionEntry;
		const entries = new Map([
			["a", entry("a", "b")],
			["b", entry("b", "a")],
		]);
		const host = (walk: boolean): CacheWarmerOptions => ({
			stream: () => streamFromMessage(fauxAssistantMessage("")),
			appendUsage: () => "unused",
			getBranch: () => [entries.get("b")!, entries.get("a")!],
			getEntry: (id) => entries.get(id),
			...(walk ? { getLeafId: () => "a" } : {}),
			getMode: () => "idle",
			clock: new SimulatedClock(),
		});
		const statuses = [true, false].map((walk) => {
			const warmer = new CacheWarmer(host(walk));
			warmer.start({ model, context: { messages: [] }, options: {} }, () => true);
			return warmer.status;
		});
		expect(statuses[0]).toEqual(statuses[1]);
		expect(statuses[0]).toMatchObject({ state: "inactive", reason: "cache economics unavailable" });
	});
});
