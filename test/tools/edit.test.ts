import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { createEditToolDefinition, type EditToolDetails, prepareEditArguments } from "../../src/tools/edit.js";
import { withFileMutationQueue } from "../../src/tools/file-mutation-queue.js";
import { createWriteToolDefinition } from "../../src/tools/write.js";
import { failure, run, tempProject, text } from "./helpers.js";

const source = ["function a() {", "  return 1;", "}", "", "function b() {", "  return 2;", "}", ""].join("\n");

describe("edit", () => {
	it("applies several disjoint edits in one call, each matched against the original", async () => {
		const cwd = await tempProject({ "src.js": source });
		const result = await run<EditToolDetails>(createEditToolDefinition(cwd), {
			path: "src.js",
			edits: [
				{ oldText: "return 2;", newText: "return 20;" },
				{ oldText: "return 1;", newText: "return 10;" },
			],
		});
		expect(text(result)).toBe("Successfully replaced 2 block(s) in src.js.");
		expect(await readFile(join(cwd, "src.js"), "utf-8")).toBe(
			source.replace("return 1;", "return 10;").replace("return 2;", "return 20;"),
		);
		expect(result.details?.firstChangedLine).toBe(2);
		expect(result.details?.diff).toBe(
			[
				" 1 function a() {",
				"-2   return 1;",
				"+2   return 10;",
				" 3 }",
				" 4 ",
				" 5 function b() {",
				"-6   return 2;",
				"+6   return 20;",
				" 7 }",
			].join("\n"),
		);
		// The patch is a standard unified diff that reproduces the change.
		expect(applyPatch(source, result.details?.patch ?? "")).toBe(await readFile(join(cwd, "src.js"), "utf-8"));
	});

	it("accepts the legacy {oldText, newText} form and edits sent as a JSON string", () => {
		expect(prepareEditArguments({ path: "a", oldText: "x", newText: "y" })).toEqual({
			path: "a",
			edits: [{ oldText: "x", newText: "y" }],
		});
		expect(prepareEditArguments({ path: "a", edits: '[{"oldText":"x","newText":"y"}]' })).toEqual({
			path: "a",
			edits: [{ oldText: "x", newText: "y" }],
		});
	});

	it("preserves a UTF-8 BOM and CRLF line endings", async () => {
		const cwd = await tempProject({ "win.txt": "\uFEFFfirst\r\nsecond\r\nthird\r\n" });
		await run(createEditToolDefinition(cwd), {
			path: "win.txt",
			edits: [{ oldText: "second\nthird", newText: "2nd\n3rd" }],
		});
		expect(await readFile(join(cwd, "win.txt"), "utf-8")).toBe("\uFEFFfirst\r\n2nd\r\n3rd\r\n");
	});

	it("reports a missing file", async () => {
		const cwd = await tempProject();
		expect(
			await failure(run(createEditToolDefinition(cwd), { path: "nope.ts", edits: [{ oldText: "a", newText: "b" }] })),
		).toBe(`File not found: ${join(cwd, "nope.ts")}. Use write to create a new file.`);
	});

	it("regression: editing a directory says it is a directory (was Node's raw EISDIR)", async () => {
		const cwd = await tempProject({ "src/index.ts": "x" });
		const error = await run(createEditToolDefinition(cwd), {
			path: "src",
			edits: [{ oldText: "a", newText: "b" }],
		}).catch((e: unknown) => e);
		expect(error).toMatchObject({ name: "SettleError", code: "INVALID_ARGUMENT" });
		expect((error as Error).message).toBe(`${join(cwd, "src")} is a directory, not a file. Use ls to list it.`);
	});

	it("reports text that is not found, naming the edit when there are several", async () => {
		const cwd = await tempProject({ "f.txt": "alpha\nbeta\n" });
		const edit = createEditToolDefinition(cwd);
		expect(await failure(run(edit, { path: "f.txt", edits: [{ oldText: "gamma", newText: "x" }] }))).toBe(
			"Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines.",
		);
		expect(
			await failure(
				run(edit, {
					path: "f.txt",
					edits: [
						{ oldText: "alpha", newText: "A" },
						{ oldText: "gamma", newText: "x" },
					],
				}),
			),
		).toBe("Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines.");
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("alpha\nbeta\n"); // nothing applied
	});

	it("an edit of an empty file says the file is empty, as read does (was only 'must match exactly')", async () => {
		const cwd = await tempProject({ "empty.txt": "", "bom.txt": "\uFEFF" });
		const edit = createEditToolDefinition(cwd);
		expect(await failure(run(edit, { path: "empty.txt", edits: [{ oldText: "alpha", newText: "A" }] }))).toBe(
			"Could not find the exact text in empty.txt: the file is empty. Use the write tool to give it content.",
		);
		expect(
			await failure(
				run(edit, {
					path: "bom.txt",
					edits: [
						{ oldText: "alpha", newText: "A" },
						{ oldText: "beta", newText: "B" },
					],
				}),
			),
		).toBe("Could not find edits[0] in bom.txt: the file is empty. Use the write tool to give it content.");
		expect(await readFile(join(cwd, "empty.txt"), "utf-8")).toBe("");
	});

	it("rejects ambiguous text", async () => {
		const cwd = await tempProject({ "f.txt": "x = 1\nx = 1\n" });
		expect(
			await failure(
				run(createEditToolDefinition(cwd), { path: "f.txt", edits: [{ oldText: "x = 1", newText: "x = 2" }] }),
			),
		).toBe(
			"Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique. They start on lines 1 and 2: read around them and extend the oldText with nearby lines that differ.",
		);
	});

	it("rejects overlapping edits", async () => {
		const cwd = await tempProject({ "f.txt": "one two three\n" });
		const message = await failure(
			run(createEditToolDefinition(cwd), {
				path: "f.txt",
				edits: [
					{ oldText: "one two", newText: "1 2" },
					{ oldText: "two three", newText: "2 3" },
				],
			}),
		);
		expect(message).toBe(
			"edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions.",
		);
	});

	it("rejects edits that share a single character, and applies edits that only touch", async () => {
		const cwd = await tempProject({ "f.txt": "abcdef\n" });
		const edit = createEditToolDefinition(cwd);
		const message = await failure(
			run(edit, {
				path: "f.txt",
				edits: [
					{ oldText: "abc", newText: "1" },
					{ oldText: "cde", newText: "2" },
				],
			}),
		);
		expect(message).toBe(
			"edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions.",
		);
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("abcdef\n");
		await run(edit, {
			path: "f.txt",
			edits: [
				{ oldText: "def", newText: "2" },
				{ oldText: "abc", newText: "1" },
			],
		});
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("12\n");
	});

	it("counts an ambiguous text by its exact occurrences; a typographic variant elsewhere does not make an exact match ambiguous", async () => {
		const cwd = await tempProject({ "f.txt": "say 'hi'\nsay 'hi'\nsay \u2018hi\u2019\n" });
		const edit = createEditToolDefinition(cwd);
		expect(await failure(run(edit, { path: "f.txt", edits: [{ oldText: "say 'hi'", newText: "x" }] }))).toBe(
			"Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique. They start on lines 1 and 2: read around them and extend the oldText with nearby lines that differ.",
		);
		const unique = await tempProject({ "f.txt": "say 'hi'\nsay \u2018hi\u2019\n" });
		await run(createEditToolDefinition(unique), { path: "f.txt", edits: [{ oldText: "say 'hi'", newText: "x" }] });
		expect(await readFile(join(unique, "f.txt"), "utf-8")).toBe("x\nsay \u2018hi\u2019\n");
	});

	it("bug: a tolerantly matched edit whose newText equals its oldText rewrote the file (pi: No changes)", async () => {
		// Differential seed -1803863158 path 3455: `'` → `'` matched the file's `’` and replaced it.
		const cwd = await tempProject({ "f.txt": "-\r\nx\r\n\u2019  \r\n\r\n" });
		const edit = createEditToolDefinition(cwd);
		expect(await failure(run(edit, { path: "f.txt", edits: [{ oldText: "'", newText: "'" }] }))).toBe(
			"No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.",
		);
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("-\r\nx\r\n\u2019  \r\n\r\n");
		// Asking for the curly quote to become a straight one still edits (newText differs from the match).
		await run(edit, { path: "f.txt", edits: [{ oldText: "\u2019", newText: "'" }] });
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("-\r\nx\r\n'  \r\n\r\n");
	});

	it("rejects an edit that changes nothing, and an empty edit list", async () => {
		const cwd = await tempProject({ "f.txt": "same\n" });
		const edit = createEditToolDefinition(cwd);
		expect(await failure(run(edit, { path: "f.txt", edits: [{ oldText: "same", newText: "same" }] }))).toBe(
			"No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.",
		);
		expect(await failure(run(edit, { path: "f.txt", edits: [] }))).toBe(
			"Edit tool input is invalid. edits must contain at least one replacement.",
		);
	});

	it("tolerates trailing whitespace and typographic quotes, touching only the matched region", async () => {
		const original = "const a = “quoted”;   \nconst b = 2;\t\nkeep this trailing   \n";
		const cwd = await tempProject({ "f.js": original });
		await run(createEditToolDefinition(cwd), {
			path: "f.js",
			edits: [{ oldText: 'const a = "quoted";\nconst b = 2;', newText: "const a = 1;\nconst b = 3;" }],
		});
		// The region (including its inner trailing whitespace) was replaced; everything else keeps its bytes.
		expect(await readFile(join(cwd, "f.js"), "utf-8")).toBe("const a = 1;\nconst b = 3;\t\nkeep this trailing   \n");
	});

	it("serializes concurrent edits of one file so both apply", async () => {
		const cwd = await tempProject({ "shared.txt": "alpha\nbeta\n" });
		const edit = createEditToolDefinition(cwd);
		const results = await Promise.all([
			run(edit, { path: "shared.txt", edits: [{ oldText: "alpha", newText: "ALPHA" }] }),
			run(edit, { path: join(cwd, "shared.txt"), edits: [{ oldText: "beta", newText: "BETA" }] }),
		]);
		expect(results.map(text)).toEqual([
			"Successfully replaced 1 block(s) in shared.txt.",
			`Successfully replaced 1 block(s) in ${join(cwd, "shared.txt")}.`,
		]);
		expect(await readFile(join(cwd, "shared.txt"), "utf-8")).toBe("ALPHA\nBETA\n");
	});

	it("serializes an edit queued behind a write of the same file", async () => {
		const cwd = await tempProject({ "f.txt": "old\n" });
		await Promise.all([
			run(createWriteToolDefinition(cwd), { path: "f.txt", content: "fresh value\n" }),
			run(createEditToolDefinition(cwd), { path: "f.txt", edits: [{ oldText: "fresh", newText: "edited" }] }),
		]);
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("edited value\n");
	});

	it("does not write after an abort", async () => {
		const cwd = await tempProject({ "f.txt": "keep\n" });
		const controller = new AbortController();
		controller.abort();
		const message = await failure(
			run(
				createEditToolDefinition(cwd),
				{ path: "f.txt", edits: [{ oldText: "keep", newText: "lost" }] },
				{ signal: controller.signal },
			),
		);
		expect(message).toBe("Operation aborted");
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("keep\n");
	});

	it("an edit aborted while queued behind another never writes", async () => {
		const cwd = await tempProject({ "f.txt": "a\n" });
		const controller = new AbortController();
		const edit = createEditToolDefinition(cwd);
		const first = run(edit, { path: "f.txt", edits: [{ oldText: "a", newText: "b" }] });
		const second = run(edit, { path: "f.txt", edits: [{ oldText: "b", newText: "c" }] }, { signal: controller.signal });
		controller.abort();
		expect(await failure(second)).toBe("Operation aborted");
		await first;
		// Queue behind both: when this runs, the aborted edit's turn has passed.
		await withFileMutationQueue(join(cwd, "f.txt"), async () => {});
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("b\n");
	});
});
