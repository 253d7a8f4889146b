import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { applyEdits, MUTANTS } from "./catalog.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// The audit itself is slow (`npm run test:mutants`); this keeps its catalog from rotting as code moves.
describe("mutation catalog", () => {
	it("every mutant still applies to the current code and changes it", () => {
		const stale = MUTANTS.filter((mutant) => {
			const text = readFileSync(`${ROOT}${mutant.file}`, "utf8");
			const mutated = applyEdits(text, mutant);
			return mutated === undefined || mutated === text;
		}).map((mutant) => `${mutant.id} ${mutant.file}: ${mutant.description}`);
		expect(stale).toEqual([]);
	});

	it("ids are unique and every equivalent mutant says why", () => {
		const ids = MUTANTS.map((mutant) => mutant.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(MUTANTS.filter((mutant) => mutant.equivalent !== undefined && mutant.equivalent.trim() === "")).toEqual([]);
	});
});
