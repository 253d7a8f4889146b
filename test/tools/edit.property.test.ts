import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdits } from "../../src/tools/edit-diff.js";
import { withFileMutationQueue } from "../../src/tools/file-mutation-queue.js";

/** Content made of unique tokens separated by filler, so any token is a unique, non-overlapping edit target. */
const document = fc
	.array(
		fc.tuple(
			fc.string({ maxLength: 6 }).map((s) => s.replace(/[<>]/g, "")),
			fc.string({ maxLength: 8 }),
		),
		{
			minLength: 1,
			maxLength: 12,
		},
	)
	.map((parts) => parts.map(([filler, tag], i) => ({ filler, token: `<${i}:${tag.replace(/[<>]/g, "")}>` })));

describe("edit invariants", () => {
	it("multi-edit equals replacing each chosen region of the original, in any edit order", () => {
		fc.assert(
			fc.property(
				document,
				fc.array(fc.tuple(fc.nat(), fc.string({ maxLength: 10 })), { minLength: 1, maxLength: 6 }),
				(parts, picks) => {
					const original = parts.map((p) => p.filler + p.token).join("\n");
					const chosen = new Map<number, string>();
					for (const [index, replacement] of picks) chosen.set(index % parts.length, replacement);
					const edits = [...chosen].map(([i, newText]) => ({ oldText: parts[i]!.token, newText }));
					const expected = parts.map((p, i) => p.filler + (chosen.has(i) ? chosen.get(i) : p.token)).join("\n");
					if (expected === original) {
						expect(() => applyEdits(original, edits, "f")).toThrow(/^No changes made to f\./);
					} else {
						expect(applyEdits(original, edits, "f")).toBe(expected);
						expect(applyEdits(original, [...edits].reverse(), "f")).toBe(expected);
					}
				},
			),
			{ numRuns: 200 },
		);
	});
});

describe("an oldText that differs from the file only in indentation (claude-code#37403)", () => {
	const indent = fc.constantFrom("", "\t", "\t\t", "  ", "    ", "\t  ");
	it("is refused, naming the first line whose indentation differs and both indentations; copying the file's indentation lands", () => {
		fc.assert(
			fc.property(
				fc.array(indent, { minLength: 1, maxLength: 10 }),
				fc.nat(),
				fc.nat(),
				fc.array(indent, { minLength: 10, maxLength: 10 }),
				(indents, startPick, lengthPick, sent) => {
					const lines = indents.map((ws, i) => `${ws}line${i} = ${i};`);
					const start = startPick % lines.length;
					const length = 1 + (lengthPick % (lines.length - start));
					const block = indents.slice(start, start + length);
					const typed = block.map((_ws, i) => sent[i]!);
					const oldText = typed.map((ws, i) => `${ws}line${start + i} = ${start + i};`).join("\n");
					const file = `${lines.join("\n")}\n`;
					fc.pre(!file.includes(oldText));
					// An unindented first line may start mid-line, so it is not the one named.
					const differs = typed.findIndex((ws, i) => ws !== block[i] && !(i === 0 && ws === ""));
					const edit = { oldText, newText: "x" };
					expect(() => applyEdits(file, [edit], "f.go")).toThrow(
						new RegExp(
							`\\. Line ${start + differs + 1} matches except for indentation: the file has .+? there, the oldText `,
						),
					);
					const copied = lines.slice(start, start + length).join("\n");
					expect(applyEdits(file, [{ oldText: copied, newText: "x" }], "f.go")).toContain("x");
				},
			),
			{ numRuns: 300 },
		);
	});
});

describe("per-file mutation queue", () => {
	it("never overlaps two mutations of one file, runs them in call order, and lets other files interleave", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.array(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 10 }),
				async (s, files) => {
					const active = new Map<string, number>();
					const finished: Record<string, number[]> = {};
					let maxOverall = 0;
					let current = 0;
					const tasks = files.map((file, i) =>
						withFileMutationQueue(`/settle-queue-test/${file}`, async () => {
							active.set(file, (active.get(file) ?? 0) + 1);
							expect(active.get(file)).toBe(1);
							current++;
							maxOverall = Math.max(maxOverall, current);
							await s.schedule(Promise.resolve(), `${file}#${i}`);
							current--;
							active.set(file, 0);
							finished[file] = [...(finished[file] ?? []), i];
						}),
					);
					await s.waitFor(Promise.all(tasks));
					for (const order of Object.values(finished)) expect(order).toEqual([...order].sort((x, y) => x - y));
					expect(maxOverall).toBeLessThanOrEqual(new Set(files).size);
				},
			),
			{ numRuns: 100 },
		);
	});
});
