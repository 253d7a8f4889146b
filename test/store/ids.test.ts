import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EntryIdSet, generateEntryId } from "../../src/store/ids.js";

describe("generateEntryId", () => {
	it("makes 8-hex ids that differ across many calls (the pool is refilled)", () => {
		const ids = new Set<string>();
		// 5,000 ids span ten refills of the random pool.
		for (let i = 0; i < 5000; i++) {
			const id = generateEntryId(ids);
			expect(id).toMatch(/^[0-9a-f]{8}$/);
			ids.add(id);
		}
		expect(ids.size).toBe(5000);
	});

	it("skips ids that are taken", () => {
		const seen: string[] = [];
		let calls = 0;
		const taken = {
			has(id: string) {
				seen.push(id);
				return ++calls <= 3;
			},
		};
		const id = generateEntryId(taken);
		expect(seen).toHaveLength(4);
		expect(id).toBe(seen[3]);
		expect(id).toMatch(/^[0-9a-f]{8}$/);
	});

	it("falls back to a full UUID after 100 collisions", () => {
		let calls = 0;
		const id = generateEntryId({
			has() {
				calls++;
				return true;
			},
		});
		expect(calls).toBe(100);
		expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
	});
});

describe("EntryIdSet", () => {
	it("answers like a Set of the ids generateEntryId could make, across growth", () => {
		const hexId = fc.stringMatching(/^[0-9a-f]{8}$/);
		const otherId = fc.oneof(fc.string({ maxLength: 10 }), fc.uuid(), fc.stringMatching(/^[0-9A-F]{8}$/));
		fc.assert(
			fc.property(
				fc.array(fc.oneof(hexId, otherId, fc.constantFrom("00000000", "ffffffff")), { maxLength: 1500 }),
				fc.array(fc.oneof(hexId, otherId), { maxLength: 50 }),
				(added, probes) => {
					const ids = new EntryIdSet();
					const reference = new Set<string>();
					for (const id of added) {
						const shaped = /^[0-9a-f]{8}$/.test(id);
						expect(ids.add(id)).toBe(shaped && !reference.has(id));
						if (shaped) reference.add(id);
					}
					for (const id of [...added, ...probes]) expect(ids.has(id)).toBe(reference.has(id));
				},
			),
			{ numRuns: 60 },
		);
	});

	it("claimNew makes generated-shape ids, never one it holds, and holds each it made", () => {
		const ids = new EntryIdSet();
		const loaded = Array.from({ length: 2000 }, () => generateEntryId(new Set()));
		for (const id of loaded) ids.add(id);
		const made = new Set<string>();
		for (let i = 0; i < 3000; i++) {
			const id = ids.claimNew();
			expect(id).toMatch(/^[0-9a-f]{8}$/);
			expect(loaded).not.toContain(id);
			expect(made.has(id)).toBe(false);
			made.add(id);
			expect(ids.has(id)).toBe(true);
			// The entry written under the id adds it again: already there.
			expect(ids.add(id)).toBe(false);
		}
	});

	it("keeps generated ids apart from the ids it holds", () => {
		const ids = new EntryIdSet();
		const made = new Set<string>();
		for (let i = 0; i < 3000; i++) {
			const id = generateEntryId(ids);
			expect(made.has(id)).toBe(false);
			expect(ids.add(id)).toBe(true);
			made.add(id);
		}
		for (const id of made) expect(ids.has(id)).toBe(true);
	});
});
