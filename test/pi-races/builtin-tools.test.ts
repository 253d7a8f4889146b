/**
 * pi's reports about the results of the built-in `read`, `ls`, `grep`, `edit` and `write` tools (and one
 * from another agent about file modes), replayed against
 * Settle: a model's calls in a real session on real files (a real dangling symlink), checked in what
 * the model received and in what the session file keeps; and (`pi-peer`) the same call to pi 0.73.1's
 * own tool. What the user should see: line counts and hints that match the file, every entry of a
 * folder, and an edit that changes the line it names and nothing else.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
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

/** Every tool result the model received, in order: error flag and text. */
function toolResults(messages: AgentMessage[]): { isError: boolean; text: string }[] {
	return messages.flatMap((message) => {
		if (message.role !== "toolResult") return [];
		const block = message.content[0];
		return [{ isError: message.isError, text: block?.type === "text" ? block.text : "" }];
	});
}

/** One model turn calling `tool` once per args (one call per turn, in order), in a real disk session. */
async function modelCalls(
	tool: string,
	calls: Record<string, unknown>[],
	setup: (cwd: string) => void,
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: [tool] });
	setup(harness.tempDir);
	script(harness, [
		...calls.map((args) => fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("go");
	expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	expect(reopenedContext(harness.session.sessionFile!).map(comparable)).toEqual(
		harness.session.messages.map(comparable),
	);
	return harness;
}

/** Runs pi 0.73.1's own tool once in a fresh folder prepared by `setup`. */
async function piCall(
	make: (cwd: string) => { execute: (...args: never[]) => Promise<{ content: { type: string; text?: string }[] }> },
	args: Record<string, unknown>,
	setup: (cwd: string) => Promise<void>,
): Promise<{ text?: string; error?: string; cwd: string }> {
	const cwd = await mkdtemp(join(tmpdir(), "settle-pi-tools-"));
	await setup(cwd);
	const tool = make(cwd) as unknown as {
		execute: (...args: unknown[]) => Promise<{ content: { type: string; text?: string }[] }>;
	};
	try {
		const result = await tool.execute("c", args, undefined, undefined, undefined);
		return { text: result.content[0]?.text, cwd };
	} catch (error) {
		return { error: (error as Error).message, cwd };
	}
}

const tenLines = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("pi#7329: read counts the break that ends a file as one more line", () => {
	it("pi#7329: a 10-line file (ending in a line break) read in windows: the hints count 10 lines, the window at the end has none, offset 11 is past the end", async () => {
		h = await modelCalls(
			"read",
			[
				{ path: "ten.txt", limit: 5 },
				{ path: "ten.txt", offset: 6, limit: 5 },
				{ path: "ten.txt", offset: 11 },
				{ path: "ten.txt" },
			],
			(cwd) => writeFileSync(join(cwd, "ten.txt"), tenLines),
		);
		expect(toolResults(h.session.messages)).toEqual([
			{
				isError: false,
				text: "line 1\nline 2\nline 3\nline 4\nline 5\n\n[5 more lines in file. Use offset=6 to continue.]",
			},
			{ isError: false, text: "line 6\nline 7\nline 8\nline 9\nline 10\n" },
			{ isError: true, text: "Offset 11 is beyond end of file (10 lines total)" },
			{ isError: false, text: tenLines },
		]);
	});

	it("pi#7329: a file of exactly 2000 lines ending in a line break is read whole, with no 'Showing lines 1-2000 of 2001'", async () => {
		const lines = `${Array.from({ length: 2000 }, (_, i) => `${i + 1}`).join("\n")}\n`;
		h = await modelCalls("read", [{ path: "2000.txt" }], (cwd) => writeFileSync(join(cwd, "2000.txt"), lines));
		expect(toolResults(h.session.messages)).toEqual([{ isError: false, text: lines }]);
	});

	it("pi#7329 (pi-peer): pi 0.73.1 says 6 more lines after line 5, reads offset 11 as an empty line, and cuts a 2000-line file at 'of 2001'", async () => {
		const setup = (cwd: string) => writeFile(join(cwd, "ten.txt"), tenLines);
		const first = await piCall(pi.createReadToolDefinition, { path: "ten.txt", limit: 5 }, setup);
		expect(first.text).toBe(
			"line 1\nline 2\nline 3\nline 4\nline 5\n\n[6 more lines in file. Use offset=6 to continue.]",
		);
		const past = await piCall(pi.createReadToolDefinition, { path: "ten.txt", offset: 11 }, setup);
		expect(past).toMatchObject({ text: "" });
		const lines = `${Array.from({ length: 2000 }, (_, i) => `${i + 1}`).join("\n")}\n`;
		const whole = await piCall(pi.createReadToolDefinition, { path: "2000.txt" }, (cwd) =>
			writeFile(join(cwd, "2000.txt"), lines),
		);
		expect(whole.text?.endsWith("1999\n2000\n\n[Showing lines 1-2000 of 2001. Use offset=2001 to continue.]")).toBe(
			true,
		);
		for (const { cwd } of [first, past, whole]) await rm(cwd, { recursive: true, force: true });
	});
});

describe("pi#7977: ls drops entries it cannot stat", () => {
	it("pi#7977: a dangling symlink is listed (without '/'), beside a file and a folder; a folder holding only one is not '(empty directory)'", async () => {
		h = await modelCalls("ls", [{ path: "proj" }, { path: "only-link" }], (cwd) => {
			mkdirSync(join(cwd, "proj", "sub"), { recursive: true });
			writeFileSync(join(cwd, "proj", "real.txt"), "x");
			symlinkSync("/nonexistent/target", join(cwd, "proj", "broken-link"));
			mkdirSync(join(cwd, "only-link"));
			symlinkSync(join(cwd, "gone"), join(cwd, "only-link", "dangling"));
		});
		expect(toolResults(h.session.messages)).toEqual([
			{ isError: false, text: "broken-link\nreal.txt\nsub/" },
			{ isError: false, text: "dangling" },
		]);
	});

	it("pi#7977 (pi-peer): pi 0.73.1 leaves the dangling link out, and calls a folder holding only one empty", async () => {
		const setup = async (cwd: string) => {
			await mkdir(join(cwd, "sub"));
			await writeFile(join(cwd, "real.txt"), "x");
			await symlink("/nonexistent/target", join(cwd, "broken-link"));
			await mkdir(join(cwd, "only-link"));
			await symlink("/nonexistent/target", join(cwd, "only-link", "dangling"));
		};
		const listing = await piCall(pi.createLsToolDefinition, { path: "." }, setup);
		expect(listing.text).toBe("only-link/\nreal.txt\nsub/");
		const onlyLink = await piCall(pi.createLsToolDefinition, { path: "only-link" }, setup);
		expect(onlyLink.text).toBe("(empty directory)");
		await rm(listing.cwd, { recursive: true, force: true });
		await rm(onlyLink.cwd, { recursive: true, force: true });
	});
});

describe("pi#8628: edit counts a curly-quote twin of an exact match as a second occurrence", () => {
	const content = 'greeting = "hi"\ngreeting = \u201Chi\u201D\n';
	const args = { path: "g.py", edits: [{ oldText: 'greeting = "hi"', newText: 'greeting = "hello"' }] };

	it("pi#8628: the straight-quote line, found exactly once, is edited on the first call; its curly twin keeps its bytes", async () => {
		h = await modelCalls("edit", [args], (cwd) => writeFileSync(join(cwd, "g.py"), content));
		expect(toolResults(h.session.messages)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in g.py." },
		]);
		expect(readFileSync(join(h.tempDir, "g.py"), "utf8")).toBe('greeting = "hello"\ngreeting = \u201Chi\u201D\n');
	});

	it("pi#8628 (pi-peer): pi 0.73.1 refuses the unique exact match as found twice", async () => {
		const result = await piCall(pi.createEditToolDefinition, args, (cwd) => writeFile(join(cwd, "g.py"), content));
		expect(result.error).toBe(
			"Found 2 occurrences of the text in g.py. The text must be unique. Please provide more context to make it unique.",
		);
		expect(await readFile(join(result.cwd, "g.py"), "utf8")).toBe(content);
		await rm(result.cwd, { recursive: true, force: true });
	});
});

describe("pi#3554: a tolerantly matched edit normalizes the whole file", () => {
	// The report's file: smart quotes and an em dash in a comment, a non-breaking space, trailing spaces.
	const content = [
		'const greeting = "Hello, World!";',
		"// This comment has \u201Csmart quotes\u201D and an em-dash \u2014 for style",
		'const name = "Alice";',
		"// Non-breaking\u00A0space here   ",
		'const result = "done";',
		"",
	].join("\n");
	const args = {
		path: "test.ts",
		edits: [{ oldText: "const name = \u201CAlice\u201D;", newText: 'const name = "Bob";' }],
	};

	it("pi#3554: an oldText with smart quotes where the file has straight ones changes that line; every other line keeps its bytes", async () => {
		h = await modelCalls("edit", [args], (cwd) => writeFileSync(join(cwd, "test.ts"), content));
		expect(toolResults(h.session.messages)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in test.ts." },
		]);
		expect(readFileSync(join(h.tempDir, "test.ts"), "utf8")).toBe(
			content.replace('const name = "Alice";', 'const name = "Bob";'),
		);
	});

	it("pi#3554 (pi-peer): pi 0.73.1 rewrites the untouched comment's quotes and dash, the non-breaking space and the trailing spaces", async () => {
		const result = await piCall(pi.createEditToolDefinition, args, (cwd) => writeFile(join(cwd, "test.ts"), content));
		expect(result.text).toBe("Successfully replaced 1 block(s) in test.ts.");
		expect(await readFile(join(result.cwd, "test.ts"), "utf8")).toBe(
			[
				'const greeting = "Hello, World!";',
				'// This comment has "smart quotes" and an em-dash - for style',
				'const name = "Bob";',
				"// Non-breaking space here",
				'const result = "done";',
				"",
			].join("\n"),
		);
		await rm(result.cwd, { recursive: true, force: true });
	});
});

describe("pi#7971: grep repeats context lines when windows overlap", () => {
	// Five lines, `aaa` on 1, 3 and 5: with context 2 every window overlaps the next.
	const file = "aaa\nbbb\naaa\nccc\naaa\n";

	it("pi#7971: grep with context 2 shows each of the 5 lines once, each match marked as one, as `rg -C` does", async () => {
		h = await modelCalls("grep", [{ pattern: "aaa", path: "f.txt", context: 2 }], (cwd) =>
			writeFileSync(join(cwd, "f.txt"), file),
		);
		expect(toolResults(h.session.messages)).toEqual([
			{ isError: false, text: "f.txt:1: aaa\nf.txt-2- bbb\nf.txt:3: aaa\nf.txt-4- ccc\nf.txt:5: aaa" },
		]);
	});

	it("pi#7971 (pi-peer): pi 0.73.1 prints 12 lines for the 5-line file, matches repeated as context (and a phantom line 6)", async () => {
		const result = await piCall(pi.createGrepToolDefinition, { pattern: "aaa", context: 2 }, (cwd) =>
			writeFile(join(cwd, "f.txt"), file),
		);
		expect(result.text?.split("\n")).toEqual([
			"f.txt:1: aaa",
			"f.txt-2- bbb",
			"f.txt-3- aaa",
			"f.txt-1- aaa",
			"f.txt-2- bbb",
			"f.txt:3: aaa",
			"f.txt-4- ccc",
			"f.txt-5- aaa",
			"f.txt-3- aaa",
			"f.txt-4- ccc",
			"f.txt:5: aaa",
			"f.txt-6- ",
		]);
		await rm(result.cwd, { recursive: true, force: true });
	});
});

describe("claude-code#20356: edit (and write) strip the executable bit from a script", () => {
	it("claude-code#20356: a 0755 script edited, then rewritten, keeps its mode and still runs as ./script", async () => {
		const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["edit", "write", "bash"] });
		h = harness;
		const script0 = join(harness.tempDir, "hello.sh");
		writeFileSync(script0, "#!/bin/sh\necho hello\n");
		chmodSync(script0, 0o755);
		script(harness, [
			fauxAssistantMessage(
				[fauxToolCall("edit", { path: "hello.sh", edits: [{ oldText: "echo hello", newText: "echo edited" }] })],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage([fauxToolCall("bash", { command: "./hello.sh" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("write", { path: "hello.sh", content: "#!/bin/sh\necho written\n" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage([fauxToolCall("bash", { command: "./hello.sh" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await harness.session.prompt("go");
		expect(toolResults(harness.session.messages)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in hello.sh." },
			{ isError: false, text: "edited\n" },
			{ isError: false, text: "Successfully wrote 23 bytes to hello.sh" },
			{ isError: false, text: "written\n" },
		]);
		expect(statSync(script0).mode & 0o777).toBe(0o755);
	});
});
