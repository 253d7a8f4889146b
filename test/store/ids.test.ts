import { describe, expect, it } from "vitest";
import { generateEntryId } from "../../src/store/ids.js";

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
