/**
 * Reports about how `edit` matches its oldText and what it writes, replayed with a model's calls in
 * a real session on real files (real `bash` processes changing them between calls).
 * claude-code#37403, claude-code#9163, claude-code#26996: an oldText indented with spaces in a
 * tab-indented file: "String to replace not found", again and again, until the model fell back to
 * Python. openclaw#56554: a file changed since the model read it: the edit failed as a plain
 * whitespace mismatch, with nothing saying the file had changed. freebuff#1291: a whitespace-only
 * oldText matched "everywhere" by a tolerant fallback and the newText went between every character.
 * OpenHands#3882, opencode#29573: a tolerant match stripped the newText's leading or trailing
 * whitespace (indentation, a Markdown hard line break) and reported success. opencode#31786,
 * nexus#182: a file saved with decomposed accents (NFD) and an oldText typed composed (NFC), or the
 * other way round: "oldString not found". aider#3737, deepagents#3031: an oldText of whole lines
 * (ending with a line break) at the end of a file without a final break: not found, again and again.
 * openclaw#116459: a tolerantly matched edit rebuilt its whole line from the folded copy: CJK
 * fullwidth punctuation, halfwidth katakana and a dash beside the edit changed on disk.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Each tool result the model received, in call order. */
function toolResults(harness: Harness): { isError: boolean; text: string }[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						isError: message.isError,
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
					},
				]
			: [],
	);
}

/** Runs the model's tool calls (one turn each) in a real disk session; `prepare` lays out its cwd. */
async function modelCalls(
	prepare: (cwd: string) => void,
	calls: { name: string; args: Record<string, unknown> }[],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "bash", "edit"] });
	prepare(harness.tempDir);
	script(harness, [
		...calls.map((call) => fauxAssistantMessage([fauxToolCall(call.name, call.args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("change the files");
	return harness;
}

const notFound =
	"Could not find the exact text in main.go. The old text must match exactly including all whitespace and newlines.";

describe("claude-code#37403, claude-code#9163, claude-code#26996: spaces in the oldText, tabs in the file", () => {
	const goFile = "package main\n\nfunc main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";

	it("claude-code#37403: the refusal names the line and both indentations; the retry with tabs lands", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "main.go"), goFile),
			[
				{
					name: "edit",
					args: {
						path: "main.go",
						edits: [{ oldText: "    if ok {\n        run()", newText: "    if ok {\n        runAll()" }],
					},
				},
				{
					name: "edit",
					args: { path: "main.go", edits: [{ oldText: "\tif ok {\n\t\trun()", newText: "\tif ok {\n\t\trunAll()" }] },
				},
			],
		);
		expect(toolResults(h)).toEqual([
			{
				isError: true,
				text: `${notFound} Line 4 matches except for indentation: the file has a tab there, the oldText 4 spaces. Copy the file's indentation exactly (tabs as tab characters).`,
			},
			{ isError: false, text: "Successfully replaced 1 block(s) in main.go." },
		]);
		expect(readFileSync(join(h.tempDir, "main.go"), "utf8")).toBe(goFile.replace("run()", "runAll()"));
	});

	it("claude-code#37403, mixed indentation: a tab and spaces in another order are named in order, not as the same indentation", async () => {
		const mixed = "package main\n\nfunc main() {\n\t  run()\n}\n";
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "main.go"), mixed),
			[{ name: "edit", args: { path: "main.go", edits: [{ oldText: "{\n  \trun()", newText: "{\n\t  runAll()" }] } }],
		);
		expect(toolResults(h)).toEqual([
			{
				isError: true,
				text: `${notFound} Line 4 matches except for indentation: the file has a tab, then 2 spaces there, the oldText 2 spaces, then a tab. Copy the file's indentation exactly (tabs as tab characters).`,
			},
		]);
		expect(readFileSync(join(h.tempDir, "main.go"), "utf8")).toBe(mixed);
	});

	it("claude-code#9163: the same line indented in two places is named at both lines, nothing written", async () => {
		const twice = "func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n";
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "main.go"), twice),
			[{ name: "edit", args: { path: "main.go", edits: [{ oldText: "  return nil", newText: "  return err" }] } }],
		);
		expect(toolResults(h)).toEqual([
			{
				isError: true,
				text: `${notFound} It matches at 2 places (lines 2, 6) if indentation is ignored: copy the indentation of the lines you mean exactly, with enough context to be unique.`,
			},
		]);
		expect(readFileSync(join(h.tempDir, "main.go"), "utf8")).toBe(twice);
	});

	it("claude-code#26996: an oldText with no indentation at all is named too; text found nowhere keeps the plain refusal", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "main.go"), goFile),
			[
				{
					name: "edit",
					args: { path: "main.go", edits: [{ oldText: "if ok {\nrun()", newText: "if ok {\nrunAll()" }] },
				},
				{ name: "edit", args: { path: "main.go", edits: [{ oldText: "\tstop()", newText: "\thalt()" }] } },
			],
		);
		expect(toolResults(h)).toEqual([
			{
				isError: true,
				text: `${notFound} Line 5 matches except for indentation: the file has 2 tabs there, the oldText no indentation. Copy the file's indentation exactly (tabs as tab characters).`,
			},
			{ isError: true, text: notFound },
		]);
		expect(readFileSync(join(h.tempDir, "main.go"), "utf8")).toBe(goFile);
	});
});

describe("openclaw#56554: the file changed on disk between the model's read and its edit", () => {
	it("openclaw#56554: a formatter rewrote the target line after the read: the refusal says the file changed and to read it again", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "main.go"), "const name = 'old'\n"),
			[
				{ name: "read", args: { path: "main.go" } },
				{ name: "bash", args: { command: `sed -i "s/'old'/\\"old\\"/" main.go` } },
				{ name: "edit", args: { path: "main.go", edits: [{ oldText: "name = 'old'", newText: "name = 'new'" }] } },
			],
		);
		expect(toolResults(h)[2]).toEqual({
			isError: true,
			text: `${notFound} main.go has been modified since you last read it (by the user, a formatter or another program): read it again, then edit its current content.`,
		});
		expect(readFileSync(join(h.tempDir, "main.go"), "utf8")).toBe('const name = "old"\n');
	});

	it("openclaw#56554: a change elsewhere in the file since the read is kept by an edit that still matches; a file never read gets the plain refusal", async () => {
		h = await modelCalls(
			(cwd) => {
				writeFileSync(join(cwd, "main.go"), "a := 1\nb := 2\n");
				writeFileSync(join(cwd, "unread.go"), "x := 1\n");
			},
			[
				{ name: "read", args: { path: "main.go" } },
				{ name: "bash", args: { command: "printf 'c := 3\\n' >> main.go && printf 'y := 2\\n' >> unread.go" } },
				{ name: "edit", args: { path: "main.go", edits: [{ oldText: "b := 2", newText: "b := 20" }] } },
				{ name: "edit", args: { path: "unread.go", edits: [{ oldText: "z := 3", newText: "z := 4" }] } },
			],
		);
		expect(toolResults(h).slice(2)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in main.go." },
			{ isError: true, text: notFound.replace("main.go", "unread.go") },
		]);
		expect(readFileSync(join(h.tempDir, "main.go"), "utf8")).toBe("a := 1\nb := 20\nc := 3\n");
	});
});

describe("freebuff#1291: a whitespace-only oldText", () => {
	it("freebuff#1291: a single space in a file that has none is refused and the file left as it was; a tab found twice is refused as ambiguous", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "t.tsv"), "a\tb\nc\td\n"),
			[
				{ name: "edit", args: { path: "t.tsv", edits: [{ oldText: " ", newText: "X" }] } },
				{ name: "edit", args: { path: "t.tsv", edits: [{ oldText: "\t", newText: "," }] } },
			],
		);
		expect(toolResults(h)).toEqual([
			{ isError: true, text: notFound.replace("main.go", "t.tsv") },
			{
				isError: true,
				text: "Found 2 occurrences of the text in t.tsv. The text must be unique. Please provide more context to make it unique. They start on lines 1 and 2: read around them and extend the oldText with nearby lines that differ.",
			},
		]);
		expect(readFileSync(join(h.tempDir, "t.tsv"), "utf8")).toBe("a\tb\nc\td\n");
	});
});

describe("OpenHands#3882, opencode#29573: a tolerant match must write the newText as sent", () => {
	it("OpenHands#3882: the oldText lacks the file's trailing spaces: the newText's Markdown hard break (two trailing spaces) and its indentation are written", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "notes.md"), "# Notes \n\n    first line   \nend\n"),
			[
				{
					name: "edit",
					args: {
						path: "notes.md",
						edits: [
							{ oldText: "# Notes\n\n    first line\n", newText: "# Notes\n\n    first line  \n    second line  \n" },
						],
					},
				},
			],
		);
		expect(toolResults(h)).toEqual([{ isError: false, text: "Successfully replaced 1 block(s) in notes.md." }]);
		expect(readFileSync(join(h.tempDir, "notes.md"), "utf8")).toBe(
			"# Notes\n\n    first line  \n    second line  \nend\n",
		);
	});

	it("opencode#29573: curly quotes in the oldText, straight in the file: a 12-space first line keeps its 12 spaces", async () => {
		const py = 'def f():\n    try:\n            if x == "a":\n                return 1\n    except E:\n        pass\n';
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "f.py"), py),
			[
				{
					name: "edit",
					args: {
						path: "f.py",
						edits: [
							{
								oldText: "            if x == \u201ca\u201d:\n                return 1",
								newText: '            if x == "b":\n                return 2',
							},
						],
					},
				},
			],
		);
		expect(toolResults(h)).toEqual([{ isError: false, text: "Successfully replaced 1 block(s) in f.py." }]);
		expect(readFileSync(join(h.tempDir, "f.py"), "utf8")).toBe(
			py.replace('"a":\n                return 1', '"b":\n                return 2'),
		);
	});
});

describe("opencode#31786, nexus#182: the file and the oldText spell an accent differently (NFD and NFC)", () => {
	// What a macOS tool saves (decomposed: `e` + U+0301, Hangul as jamo) and what a model types (composed).
	const nfd = (text: string) => text.normalize("NFD");

	it("opencode#31786: a decomposed French file, a composed oldText: the edit lands and the untouched lines keep their decomposed bytes", async () => {
		const menu = nfd("# Carte du café\n\nCafé crème: 3 €\nThé glacé: 4 €\n");
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "menu.md"), menu),
			[
				{
					name: "edit",
					args: { path: "menu.md", edits: [{ oldText: "Café crème: 3 €", newText: "Café crème: 3,50 €" }] },
				},
			],
		);
		expect(toolResults(h)).toEqual([{ isError: false, text: "Successfully replaced 1 block(s) in menu.md." }]);
		const saved = readFileSync(join(h.tempDir, "menu.md"), "utf8");
		expect(saved).toBe(`${nfd("# Carte du café\n\n")}Café crème: 3,50 €\n${nfd("Thé glacé: 4 €\n")}`);
	});

	it("opencode#31786: Hangul saved as jamo, typed as syllables: the edit lands", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "greeting.txt"), nfd("인사: 안녕하세요\n끝\n")),
			[
				{
					name: "edit",
					args: { path: "greeting.txt", edits: [{ oldText: "인사: 안녕하세요", newText: "인사: 반갑습니다" }] },
				},
			],
		);
		expect(toolResults(h)).toEqual([{ isError: false, text: "Successfully replaced 1 block(s) in greeting.txt." }]);
		expect(readFileSync(join(h.tempDir, "greeting.txt"), "utf8")).toBe(`인사: 반갑습니다\n${nfd("끝\n")}`);
	});

	it("nexus#182: a composed file, an oldText that reached the tool decomposed: the edit lands; a decomposed word found twice is refused", async () => {
		const brief = "O pedido é defensivo.\nA hipótese é remota.\n";
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "peca.md"), brief),
			[
				{
					name: "edit",
					args: {
						path: "peca.md",
						edits: [{ oldText: nfd("A hipótese é remota."), newText: "A hipótese é provável." }],
					},
				},
				{ name: "edit", args: { path: "peca.md", edits: [{ oldText: nfd(" é "), newText: " foi " }] } },
			],
		);
		expect(toolResults(h)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in peca.md." },
			{
				isError: true,
				text: "Found 2 occurrences of the text in peca.md. The text must be unique. Please provide more context to make it unique. They start on lines 1 and 2: read around them and extend the oldText with nearby lines that differ.",
			},
		]);
		expect(readFileSync(join(h.tempDir, "peca.md"), "utf8")).toBe("O pedido é defensivo.\nA hipótese é provável.\n");
	});
});

describe("aider#3737, deepagents#3031: an oldText of whole lines at the end of a file with no final line break", () => {
	it('aider#3737: `hello` with no final break, "remove the text": oldText `hello\\n` deletes it; a blank line\'s worth of whitespace matches nothing', async () => {
		h = await modelCalls(
			(cwd) => {
				writeFileSync(join(cwd, "hello.txt"), "hello");
				writeFileSync(join(cwd, "bye.txt"), "bye");
			},
			[
				{ name: "edit", args: { path: "hello.txt", edits: [{ oldText: "hello\n", newText: "" }] } },
				{ name: "edit", args: { path: "bye.txt", edits: [{ oldText: " \n", newText: "\nfarewell" }] } },
			],
		);
		expect(toolResults(h)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in hello.txt." },
			{
				isError: true,
				text: "Could not find the exact text in bye.txt. The old text must match exactly including all whitespace and newlines.",
			},
		]);
		expect(readFileSync(join(h.tempDir, "hello.txt"), "utf8")).toBe("");
		expect(readFileSync(join(h.tempDir, "bye.txt"), "utf8")).toBe("bye");
	});

	it("deepagents#3031: the last line of a config replaced as a whole line: the file still ends without a break, the CRLF before it kept", async () => {
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "app.ini"), "[app]\r\nname = demo\r\nport = 8080"),
			[{ name: "edit", args: { path: "app.ini", edits: [{ oldText: "port = 8080\n", newText: "port = 9090\n" }] } }],
		);
		expect(toolResults(h)).toEqual([{ isError: false, text: "Successfully replaced 1 block(s) in app.ini." }]);
		expect(readFileSync(join(h.tempDir, "app.ini"), "utf8")).toBe("[app]\r\nname = demo\r\nport = 9090");
	});

	it("deepagents#3031: only at the end: `return foo\\n` does not match a last line `return foobar`; a line also found above is ambiguous", async () => {
		const endsFoobar = "def f():\n    return foobar";
		const twice = "def f():\n    return foo\n\ndef g():\n    return foo";
		h = await modelCalls(
			(cwd) => {
				writeFileSync(join(cwd, "f.py"), endsFoobar);
				writeFileSync(join(cwd, "g.py"), twice);
			},
			[
				{ name: "edit", args: { path: "f.py", edits: [{ oldText: "return foo\n", newText: "return baz\n" }] } },
				{
					name: "edit",
					args: { path: "g.py", edits: [{ oldText: "    return foo \n", newText: "    return baz\n" }] },
				},
			],
		);
		expect(toolResults(h)).toEqual([
			{
				isError: true,
				text: "Could not find the exact text in f.py. The old text must match exactly including all whitespace and newlines.",
			},
			{
				isError: true,
				text: "Found 2 occurrences of the text in g.py. The text must be unique. Please provide more context to make it unique. They start on lines 2 and 5: read around them and extend the oldText with nearby lines that differ.",
			},
		]);
		expect(readFileSync(join(h.tempDir, "f.py"), "utf8")).toBe(endsFoobar);
		expect(readFileSync(join(h.tempDir, "g.py"), "utf8")).toBe(twice);
	});
});

describe("openclaw#116459: a tolerant match on a line with other typographic characters", () => {
	it("openclaw#116459: `RETRY MAX` typed with a plain space where the file has a non-breaking one: the edit lands and the rest of the line (fullwidth brackets and digit, halfwidth katakana, an em dash) keeps its bytes", async () => {
		const line =
			"export const RETRY\u00A0MAX = 3; // \u518D\u8A66\u884C\uFF08\u6700\u5927\uFF13\u56DE\uFF09\uFF71\uFF72\uFF73 \u2014 \u8A2D\u5B9A\n";
		const config = `${line}export const TIMEOUT = 10;\n`;
		h = await modelCalls(
			(cwd) => writeFileSync(join(cwd, "config.ts"), config),
			[
				{
					name: "edit",
					args: {
						path: "config.ts",
						edits: [{ oldText: "export const RETRY MAX = 3;", newText: "export const RETRY_MAX = 5;" }],
					},
				},
			],
		);
		expect(toolResults(h)).toEqual([{ isError: false, text: "Successfully replaced 1 block(s) in config.ts." }]);
		expect(readFileSync(join(h.tempDir, "config.ts"), "utf8")).toBe(
			config.replace("export const RETRY\u00A0MAX = 3;", "export const RETRY_MAX = 5;"),
		);
	});
});
