/**
 * The live inspector's event ids, window and resume: whatever the window size, the pushes and the
 * moments a page disconnects and reconnects with its last id, the page ends up with every id
 * exactly once — received, or named as dropped — and the window never holds more than its size.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { createLiveEventWindow, parseLastEventId } from "../../src/inspect/live-window.js";

const event = (n: number): LifecycleInspectionEvent => ({
	seq: n,
	at: n,
	machine: "promptOperation",
	kind: "event",
	type: `E${n}`,
});

/** A page's life: events arrive, it reads part of what it was sent, the connection drops, it reconnects. */
const step = fc.oneof(
	fc.record({ kind: fc.constant("push" as const), count: fc.integer({ min: 1, max: 30 }) }),
	fc.record({ kind: fc.constant("reconnect" as const), read: fc.integer({ min: 0, max: 40 }) }),
);

describe("live event window (property)", () => {
	it("a page that reconnects with its last id gets every id once: received or reported dropped", () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 25 }), fc.array(step, { maxLength: 30 }), (maxEvents, steps) => {
				const window = createLiveEventWindow({ maxEvents });
				let pushed = 0;
				/** What the page has: ids received or told dropped, in order. */
				const had: number[] = [];
				let lastSeen: number | undefined;
				/** Ids sent on the current connection and not read yet (a dropped connection loses them). */
				let inFlight: number[] = [];
				const reconnect = () => {
					const resume = window.since(lastSeen);
					const { dropped } = resume;
					if (dropped) {
						expect(dropped.from).toBe((lastSeen ?? 0) + 1);
						for (let id = dropped.from; id <= dropped.to; id++) had.push(id);
						lastSeen = dropped.to;
					}
					expect(resume.events.length).toBeLessThanOrEqual(maxEvents);
					for (const live of resume.events) expect(live.event).toEqual(event(live.id));
					inFlight = resume.events.map((live) => live.id);
				};
				reconnect();
				for (const s of steps) {
					if (s.kind === "push") {
						for (let i = 0; i < s.count; i++) inFlight.push(window.push(event(++pushed)));
						expect(window.lastId).toBe(pushed);
					} else {
						// The page reads some of what was sent, then the connection drops.
						for (const id of inFlight.slice(0, s.read)) {
							had.push(id);
							lastSeen = id;
						}
						reconnect();
					}
				}
				for (const id of inFlight) had.push(id);
				expect(had).toEqual(Array.from({ length: pushed }, (_, i) => i + 1));
				expect(window.dropped).toBe(Math.max(0, pushed - maxEvents));
			}),
			{ numRuns: 300 },
		);
	});

	it("since(k) for any k: the kept events after k, contiguous up to the newest; beyond the newest counts as nothing seen", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 20 }),
				fc.integer({ min: 0, max: 60 }),
				fc.integer({ min: -5, max: 80 }),
				(maxEvents, pushes, k) => {
					const window = createLiveEventWindow({ maxEvents });
					for (let i = 1; i <= pushes; i++) window.push(event(i));
					const firstKept = Math.max(1, pushes - maxEvents + 1);
					const seen = k > pushes || k < 0 ? 0 : k;
					const resume = window.since(k);
					const from = Math.max(seen + 1, firstKept);
					expect(resume.events.map((e) => e.id)).toEqual(
						Array.from({ length: Math.max(0, pushes - from + 1) }, (_, i) => from + i),
					);
					if (seen + 1 < firstKept) expect(resume.dropped).toEqual({ from: seen + 1, to: firstKept - 1 });
					else expect(resume.dropped).toBeUndefined();
				},
			),
		);
	});

	it("parseLastEventId reads a decimal id and nothing else", () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), (id) => {
				expect(parseLastEventId(String(id))).toBe(id);
				expect(parseLastEventId([String(id)])).toBe(id);
			}),
		);
		fc.assert(
			fc.property(
				fc.string().filter((text) => !/^\d{1,15}$/.test(text.trim())),
				(text) => {
					expect(parseLastEventId(text)).toBeUndefined();
				},
			),
		);
		expect(parseLastEventId(undefined)).toBeUndefined();
		expect(parseLastEventId("1e3")).toBeUndefined();
		expect(parseLastEventId("-1")).toBeUndefined();
	});
});
