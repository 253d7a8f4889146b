/**
 * Counts the tools print say "1 match", "1 byte", "1 second", not pi's "1 matches", "1 bytes",
 * "1 seconds" (the pi differential tests rewrite pi's words to these).
 */
import { describe, expect, it } from "vitest";
import { createBashToolDefinition } from "../../src/tools/bash.js";
import { createFindToolDefinition } from "../../src/tools/find.js";
import { createGrepToolDefinition } from "../../src/tools/grep.js";
import { createLsToolDefinition } from "../../src/tools/ls.js";
import { listingResult } from "../../src/tools/truncate.js";
import { createWriteToolDefinition } from "../../src/tools/write.js";
import { failure, run, tempProject, text } from "./helpers.js";

describe("a count of one is singular", () => {
	it("grep, find and ls at limit 1 say '1 match', '1 result', '1 entry'; at 2 the plural", async () => {
		const cwd = await tempProject({ "a.txt": "hit\nhit\nhit\n", "b.txt": "x", "c.txt": "y" });
		const grep = (limit: number) => run(createGrepToolDefinition(cwd), { pattern: "hit", limit });
		expect(text(await grep(1))).toContain("[1 match limit reached. Use limit=2 for more, or refine pattern]");
		expect(text(await grep(2))).toContain("[2 matches limit reached. Use limit=4 for more, or refine pattern]");
		const find = (limit: number) => run(createFindToolDefinition(cwd), { pattern: "*.txt", limit });
		expect(text(await find(1))).toContain("[1 result limit reached. Use limit=2 for more, or refine pattern]");
		expect(text(await find(2))).toContain("[2 results limit reached. Use limit=4 for more, or refine pattern]");
		const ls = (limit: number) => run(createLsToolDefinition(cwd), { limit });
		expect(text(await ls(1))).toContain("[1 entry limit reached. Use limit=2 for more]");
		expect(text(await ls(2))).toContain("[2 entries limit reached. Use limit=4 for more]");
	});

	it("write of one byte says '1 byte'", async () => {
		const cwd = await tempProject();
		const write = (content: string) => run(createWriteToolDefinition(cwd), { path: "f.txt", content });
		expect(text(await write("x"))).toBe("Successfully wrote 1 byte to f.txt");
		expect(text(await write("xy"))).toBe("Successfully wrote 2 bytes to f.txt");
	});

	it("a bash command given timeout 1 'timed out after 1 second'", async () => {
		const cwd = await tempProject();
		const message = await failure(run(createBashToolDefinition(cwd), { command: "sleep 30", timeout: 1 }));
		expect(message).toBe("Command timed out after 1 second");
	});

	it("a listing of one line over the byte limit shows 'the first 0 of 1 line'", () => {
		const { content } = listingResult(["x".repeat(60 * 1024)], []);
		expect(content[0]!.text).toContain("showing the first 0 of 1 line. A higher limit");
	});
});
