import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLsToolDefinition, type LsToolDetails } from "../../src/tools/ls.js";
import { createWriteToolDefinition } from "../../src/tools/write.js";
import { failure, run, tempProject, text } from "./helpers.js";

describe("write", () => {
	it("creates parent folders and reports the byte count", async () => {
		const cwd = await tempProject();
		const result = await run(createWriteToolDefinition(cwd), { path: "a/b/c.txt", content: "héllo\n" });
		expect(text(result)).toBe("Successfully wrote 7 bytes to a/b/c.txt");
		expect(await readFile(join(cwd, "a/b/c.txt"), "utf-8")).toBe("héllo\n");
	});

	it("overwrites an existing file", async () => {
		const cwd = await tempProject({ "f.txt": "old content that is longer" });
		await run(createWriteToolDefinition(cwd), { path: "f.txt", content: "new" });
		expect(await readFile(join(cwd, "f.txt"), "utf-8")).toBe("new");
	});

	it("says why it cannot write under a file", async () => {
		const cwd = await tempProject({ "file.txt": "x" });
		const message = await failure(run(createWriteToolDefinition(cwd), { path: "file.txt/child.txt", content: "y" }));
		expect(message).toBe(
			`Cannot write ${join(cwd, "file.txt/child.txt")}: ${join(cwd, "file.txt")} or one of its parents is a file, not a folder.`,
		);
	});

	it("does nothing once aborted", async () => {
		const cwd = await tempProject();
		const controller = new AbortController();
		controller.abort();
		expect(
			await failure(
				run(createWriteToolDefinition(cwd), { path: "x.txt", content: "y" }, { signal: controller.signal }),
			),
		).toBe("Operation aborted");
		await expect(readFile(join(cwd, "x.txt"))).rejects.toThrow();
	});
});

describe("ls", () => {
	it("lists entries case-insensitively sorted, folders with a slash, dotfiles included", async () => {
		const cwd = await tempProject({ "b.txt": "", "A.md": "", ".env": "", "src/x.ts": "", "Zed/y": "" });
		expect(text(await run(createLsToolDefinition(cwd), {}))).toBe(".env\nA.md\nb.txt\nsrc/\nZed/");
	});

	it("lists a sub-folder and reports an empty one", async () => {
		const cwd = await tempProject({ "src/x.ts": "", "empty/.keep": "" });
		const ls = createLsToolDefinition(cwd);
		expect(text(await run(ls, { path: "src" }))).toBe("x.ts");
		expect(text(await run(ls, { path: "empty" }))).toBe(".keep");
	});

	it("stops at the entry limit with a hint", async () => {
		const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.txt`, ""]));
		const cwd = await tempProject(files);
		const result = await run<LsToolDetails>(createLsToolDefinition(cwd), { limit: 3 });
		expect(text(result)).toBe("f0.txt\nf1.txt\nf2.txt\n\n[3 entries limit reached. Use limit=6 for more]");
		expect(result.details?.entryLimitReached).toBe(3);
		expect(text(await run(createLsToolDefinition(cwd), { limit: 5 }))).not.toContain("limit reached");
	});

	it("reports missing paths and files", async () => {
		const cwd = await tempProject({ "f.txt": "" });
		const ls = createLsToolDefinition(cwd);
		expect(await failure(run(ls, { path: "nope" }))).toBe(`Path not found: ${join(cwd, "nope")}`);
		expect(await failure(run(ls, { path: "f.txt" }))).toBe(
			`Not a directory: ${join(cwd, "f.txt")}. Use read to see a file.`,
		);
	});
});
