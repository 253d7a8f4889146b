/**
 * pi's reports about the built-in `edit` tool's argument checks, replayed against Settle: a model's
 * `edit` call in a real session on a real file, and (`pi-peer`) the same call to pi 0.73.1's tool.
 * What the user should see: an edit that does not name one block is refused and the file is left
 * alone; a well-formed call in any shape pi accepts is applied once, and so is one replacement sent
 * as an object where an array of one belongs (pi#7835).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { comparable, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** The edit call's tool result as the model received it. */
function toolResult(messages: AgentMessage[]): { isError: boolean; text: string } {
	const result = messages.find((message) => message.role === "toolResult");
	if (result?.role !== "toolResult") throw new Error("no tool result");
	const block = result.content[0];
	return { isError: result.isError, text: block?.type === "text" ? block.text : "" };
}

/** Runs one `edit` call from the model in a real disk session whose cwd holds `file` with `content`. */
async function modelEdits(file: string, content: string | Buffer, args: Record<string, unknown>): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["edit"] });
	writeFileSync(join(harness.tempDir, file), content);
	script(harness, [
		fauxAssistantMessage([fauxToolCall("edit", { path: file, ...args })], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("edit it");
	return harness;
}

describe("pi#9697: edit accepts ambiguous targets when matches overlap", () => {
	const content = "foo\nfoo\nfoo\n";
	const edits = [{ oldText: "foo\nfoo\n", newText: "replacement" }];

	it("pi#9697: an oldText found at lines 1–2 and 2–3 is refused as found twice; the file keeps its bytes and the session goes on", async () => {
		h = await modelEdits("edit.txt", content, { edits });
		expect(toolResult(h.session.messages)).toEqual({
			isError: true,
			text: "Found 2 occurrences of the text in edit.txt. The text must be unique. Please provide more context to make it unique. They start on lines 1 and 2: read around them and extend the oldText with nearby lines that differ.",
		});
		expect(readFileSync(join(h.tempDir, "edit.txt"), "utf8")).toBe(content);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("pi#9697: overlapping matches in a multi-edit call name the edit and its count (three places for foo\\nfoo in four foos)", async () => {
		h = await modelEdits("edit.txt", "foo\nfoo\nfoo\nfoo\nbar\n", {
			edits: [
				{ oldText: "bar", newText: "BAR" },
				{ oldText: "foo\nfoo", newText: "x" },
			],
		});
		expect(toolResult(h.session.messages)).toEqual({
			isError: true,
			text: "Found 3 occurrences of edits[1] in edit.txt. Each oldText must be unique. Please provide more context to make it unique. They start on lines 1, 2 and 3: read around them and extend the oldText with nearby lines that differ.",
		});
		expect(readFileSync(join(h.tempDir, "edit.txt"), "utf8")).toBe("foo\nfoo\nfoo\nfoo\nbar\n");
	});

	it("pi#9697 (pi-peer): pi 0.73.1 reports success and replaces the first of the two overlapping blocks", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-9697-"));
		try {
			await writeFile(join(cwd, "edit.txt"), content);
			const tool = pi.createEditToolDefinition(cwd);
			const result = await tool.execute("c", { path: "edit.txt", edits }, undefined, undefined, undefined as never);
			expect(result.content[0]).toMatchObject({ text: "Successfully replaced 1 block(s) in edit.txt." });
			expect(await readFile(join(cwd, "edit.txt"), "utf8")).toBe("replacementfoo\n");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("pi#2949: edit preflight rejects the legacy {path, oldText, newText} form", () => {
	it("pi#2949: a model's edit in the legacy top-level form (no edits array) is applied once and reported as one block", async () => {
		h = await modelEdits("file.md", "model: claude-sonnet-4-6\n", {
			oldText: "model: claude-sonnet-4-6",
			newText: "model: openrouter/google/gemma-4-31b-it",
		});
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 1 block(s) in file.md.",
		});
		expect(readFileSync(join(h.tempDir, "file.md"), "utf8")).toBe("model: openrouter/google/gemma-4-31b-it\n");
	});
});

describe("pi#5797: edits break the encoding of a CP-1252 file", () => {
	// "// äöß Hallo Welt\n" and a constant in Windows-1252 (ä = E4, ö = F6, ß = DF): not valid UTF-8.
	const cp1252 = Buffer.concat([
		Buffer.from("// "),
		Buffer.from([0xe4, 0xf6, 0xdf]),
		Buffer.from(' Hallo Welt\nstatic const char* s = "'),
		Buffer.from([0xe4, 0xf6, 0xdf]),
		Buffer.from('";\n// placeholder: state your version here\n'),
	]);
	const edits = [{ oldText: "// placeholder: state your version here", newText: "// version 1" }];

	it("pi#5797: an ASCII edit to a file that is not valid UTF-8 is refused, naming the encoding problem; every byte stays", async () => {
		h = await modelEdits("legacy.cpp", cp1252, { edits });
		const result = toolResult(h.session.messages);
		expect(result.isError).toBe(true);
		expect(result.text).toContain("legacy.cpp is not valid UTF-8");
		expect(result.text).toContain("Nothing was changed");
		expect(readFileSync(join(h.tempDir, "legacy.cpp")).equals(cp1252)).toBe(true);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("pi#5797: a UTF-8 file with accented text and a BOM is still edited, every other byte kept", async () => {
		const utf8 = "\uFEFF// äöß Hallo Welt\r\n// placeholder: state your version here\r\n";
		h = await modelEdits("modern.cpp", utf8, { edits });
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 1 block(s) in modern.cpp.",
		});
		expect(readFileSync(join(h.tempDir, "modern.cpp"), "utf8")).toBe("\uFEFF// äöß Hallo Welt\r\n// version 1\r\n");
	});

	it("pi#5797 (pi-peer): pi 0.73.1 reports success and rewrites the untouched ä, ö, ß as U+FFFD", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-5797-"));
		try {
			await writeFile(join(cwd, "legacy.cpp"), cp1252);
			const tool = pi.createEditToolDefinition(cwd);
			const result = await tool.execute("c", { path: "legacy.cpp", edits }, undefined, undefined, undefined as never);
			expect(result.content[0]).toMatchObject({ text: "Successfully replaced 1 block(s) in legacy.cpp." });
			const after = await readFile(join(cwd, "legacy.cpp"));
			expect(after.includes(Buffer.from([0xe4, 0xf6, 0xdf]))).toBe(false);
			expect(after.toString("utf8")).toContain("// \uFFFD\uFFFD\uFFFD Hallo Welt");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("pi#2744 / oh-my-pi#3867: edits to CRLF files fail to match; a BOM is lost on write", () => {
	it("pi#2744, oh-my-pi#3867: four LF-only edits (multi-line, tab-indented) to a CRLF file with a UTF-8 BOM all apply; every line keeps CRLF and the BOM stays", async () => {
		const lines = ["using System;", "class A {", "\tvoid F() {", "\t\tif (x) {", "\t\t\ty();", "\t\t}", "\t}", "}", ""];
		const original = `\uFEFF${lines.join("\r\n")}`;
		h = await modelEdits("A.cs", original, {
			edits: [
				{ oldText: "using System;", newText: "using System.IO;" },
				{ oldText: "class A {", newText: "class B {" },
				{ oldText: "\t\tif (x) {\n\t\t\ty();\n\t\t}", newText: "\t\tif (x)\n\t\t\tz();" },
				{ oldText: "\t}\n}", newText: "\t}\n}\n// end" },
			],
		});
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 4 block(s) in A.cs.",
		});
		const after = readFileSync(join(h.tempDir, "A.cs"));
		expect([...after.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
		expect(after.toString("utf8")).toBe(
			"\uFEFFusing System.IO;\r\nclass B {\r\n\tvoid F() {\r\n\t\tif (x)\r\n\t\t\tz();\r\n\t}\r\n}\r\n// end\r\n",
		);
	});
});

describe("pi#3336: models send `edits` as a JSON string; validation rejects it and the model falls back to sed", () => {
	it("pi#3336: an edit whose `edits` is a JSON-encoded array (two replacements) is applied once, as the array would be", async () => {
		const edits = JSON.stringify([
			{ oldText: "const a = 1;", newText: "const a = 2;" },
			{ oldText: "const c = 3;", newText: "const c = 4;" },
		]);
		h = await modelEdits("main.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n", { edits });
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 2 block(s) in main.ts.",
		});
		expect(readFileSync(join(h.tempDir, "main.ts"), "utf8")).toBe("const a = 2;\nconst b = 2;\nconst c = 4;\n");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("pi#7835: models send `edits` as one replacement object, not an array of one", () => {
	it("pi#7835: `edits` as an object, and as a JSON string of one object, are each applied as that one replacement", async () => {
		h = await modelEdits("hello.txt", "hello     world\nbye world\n", {
			edits: JSON.stringify({ newText: "GOODBYE world", oldText: "hello     world" }),
		});
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 1 block(s) in hello.txt.",
		});
		expect(readFileSync(join(h.tempDir, "hello.txt"), "utf8")).toBe("GOODBYE world\nbye world\n");
		h.cleanup();
		h = await modelEdits("bye.txt", "hello world\nbye world\n", {
			edits: { oldText: "bye world", newText: "see you" },
		});
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 1 block(s) in bye.txt.",
		});
		expect(readFileSync(join(h.tempDir, "bye.txt"), "utf8")).toBe("hello world\nsee you\n");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("opencode#45927: an edit that only changes line endings on a CRLF file reports success and does nothing", () => {
	it("opencode#45927: oldText `a\\r\\nb`, newText `a\\nb` on a CRLF file is refused as no change; the file keeps its bytes", async () => {
		h = await modelEdits("crlf.txt", "a\r\nb\r\n", { edits: [{ oldText: "a\r\nb", newText: "a\nb" }] });
		expect(toolResult(h.session.messages)).toEqual({
			isError: true,
			text: "No changes made to crlf.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.",
		});
		expect(readFileSync(join(h.tempDir, "crlf.txt"), "utf8")).toBe("a\r\nb\r\n");
	});
});

describe("pi#8544: edit rewrites the line endings of untouched lines in mixed CRLF/LF files", () => {
	it("pi#8544: editing `c` in `a\\r\\nb\\nc` writes `a\\r\\nb\\nC`: only the matched text changes", async () => {
		h = await modelEdits("f.txt", "a\r\nb\nc", { edits: [{ oldText: "c", newText: "C" }] });
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 1 block(s) in f.txt.",
		});
		expect([...readFileSync(join(h.tempDir, "f.txt"))]).toEqual([0x61, 0x0d, 0x0a, 0x62, 0x0a, 0x43]);
	});

	it("pi#8544: a multi-line edit in the LF part of a mixed file writes LF there, one in the CRLF part writes CRLF, an old-Mac CR elsewhere stays", async () => {
		const original = "crlf 1\r\ncrlf 2\r\nlf 1\nlf 2\nmac\rend\n";
		h = await modelEdits("mixed.txt", original, {
			edits: [
				{ oldText: "crlf 1\ncrlf 2", newText: "CRLF 1\nCRLF 1.5\nCRLF 2" },
				{ oldText: "lf 1\nlf 2", newText: "LF 1\nLF 2" },
			],
		});
		expect(toolResult(h.session.messages)).toEqual({
			isError: false,
			text: "Successfully replaced 2 block(s) in mixed.txt.",
		});
		expect(readFileSync(join(h.tempDir, "mixed.txt"), "utf8")).toBe(
			"CRLF 1\r\nCRLF 1.5\r\nCRLF 2\r\nLF 1\nLF 2\nmac\rend\n",
		);
	});

	it("pi#8544: an old-Mac CR left next to an edit keeps the lines apart (inserting or deleting at it does not merge it into a CRLF)", async () => {
		h = await modelEdits("mac.txt", "one\rX\ntwo\rthree", {
			edits: [
				{ oldText: "X", newText: "" },
				{ oldText: "three", newText: "\nthree" },
			],
		});
		expect(toolResult(h.session.messages).isError).toBe(false);
		expect(readFileSync(join(h.tempDir, "mac.txt"), "utf8")).toBe("one\n\ntwo\n\nthree");
	});

	it("pi#8544 (pi-peer): pi 0.73.1 rewrites the LF after `b` as CRLF", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-8544-"));
		try {
			await writeFile(join(cwd, "f.txt"), "a\r\nb\nc");
			const tool = pi.createEditToolDefinition(cwd);
			await tool.execute(
				"c",
				{ path: "f.txt", edits: [{ oldText: "c", newText: "C" }] },
				undefined,
				undefined,
				undefined as never,
			);
			expect(await readFile(join(cwd, "f.txt"), "utf8")).toBe("a\r\nb\r\nC");
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
