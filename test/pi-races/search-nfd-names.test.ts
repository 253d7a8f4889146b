/**
 * aside-codemode#30: macOS writes file names decomposed (NFD: Hangul as jamo, `é` as `e` + U+0301);
 * a glob typed by a model, a keyboard or a clipboard is composed (NFC) and matched none of them:
 * "0 rows", read as "no such file". Files copied from a Mac (a zip, rsync, a shared drive) keep
 * those names on Linux. What the user should see: the model's `find` and `grep` glob, and the
 * folder it names to `ls`, `find` or `grep`, reach the file however its name is normalized.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const nfc = "학점인정";
const nfd = nfc.normalize("NFD");
const cafeNfd = "Café".normalize("NFD");

/** The reporter's fixture: one note named in each form; a Mac folder `Café` (NFD) with a menu. */
function macTree(cwd: string): void {
	writeFileSync(join(cwd, `${nfd}_nfd.md`), "body one\n");
	writeFileSync(join(cwd, `${nfc}_nfc.md`), "body two\n");
	mkdirSync(join(cwd, cafeNfd));
	writeFileSync(join(cwd, cafeNfd, "menu.md"), "croissant\n");
}

/** Runs each call as the model's, one per answer, in a disk session whose cwd holds {@link macTree}. */
async function modelCalls(calls: [string, Record<string, unknown>][]): Promise<{ isError: boolean; text: string }[]> {
	h = await createHarness({ persistence: "disk", initialActiveToolNames: ["find", "grep", "ls"] });
	macTree(h.tempDir);
	script(h, [
		...calls.map(([tool, args]) => fauxAssistantMessage([fauxToolCall(tool, args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await h.session.prompt("find the notes");
	expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	return toolResultTexts(h);
}

/** The result's lines in NFC, sorted: raw NFD names sort before NFC ones. */
const lines = (text: string | undefined) =>
	(text ?? "")
		.split("\n")
		.map((line) => line.normalize("NFC"))
		.sort();

describe("aside-codemode#30: a composed glob misses names macOS wrote decomposed", () => {
	it("aside-codemode#30: find with the glob in NFC, then in NFD, lists both notes each time", async () => {
		const [composed, decomposed] = await modelCalls([
			["find", { pattern: `**/*${nfc}*` }],
			["find", { pattern: `*${nfd}*` }],
		]);
		for (const result of [composed, decomposed]) {
			expect(result?.isError).toBe(false);
			expect(lines(result?.text)).toEqual([`${nfc}_nfc.md`, `${nfc}_nfd.md`].sort());
		}
	});

	it("aside-codemode#30: grep with a glob in NFC searches both notes; a path naming the NFD folder in NFC is searched", async () => {
		const [byGlob, byPath] = await modelCalls([
			["grep", { pattern: "body", glob: `*${nfc}*` }],
			["grep", { pattern: "croissant", path: "Café" }],
		]);
		expect(lines(byGlob?.text)).toEqual([`${nfc}_nfc.md:1: body two`, `${nfc}_nfd.md:1: body one`].sort());
		expect(byPath).toMatchObject({ isError: false });
		expect(lines(byPath?.text)).toEqual(["menu.md:1: croissant"]);
	});

	it("aside-codemode#30: ls and find of the folder `Café` typed composed reach the Mac folder", async () => {
		const [listing, found] = await modelCalls([
			["ls", { path: "Café" }],
			["find", { pattern: "*.md", path: "Café/" }],
		]);
		expect(listing).toEqual({ isError: false, text: "menu.md" });
		expect(found).toEqual({ isError: false, text: "menu.md" });
	});

	it("aside-codemode#30 (pi-peer): pi 0.73.1's grep (rg) with the NFC glob searches only the NFC note, and cannot find the folder", async () => {
		h = await createHarness({ persistence: "memory" });
		const cwd = h.tempDir;
		macTree(cwd);
		const grep = pi.createGrepToolDefinition(cwd);
		const run = (args: Record<string, unknown>) =>
			grep.execute("c", args as never, undefined, undefined, undefined as never).then(
				(result) => (result.content[0]?.type === "text" ? result.content[0].text : ""),
				(error: Error) => `error: ${error.message}`,
			);
		expect(lines(await run({ pattern: "body", glob: `*${nfc}*` }))).toEqual([`${nfc}_nfc.md:1: body two`]);
		expect(await run({ pattern: "croissant", path: "Café" })).toContain("error: Path not found");
	});

	it("aside-codemode#30: the Mac folder inside a folder whose own name is composed (`Projets été/Café`) is reached by ls, find, grep and read", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["find", "grep", "ls", "read"] });
		const project = join(h.tempDir, "Projets été");
		mkdirSync(project);
		macTree(project);
		script(h, [
			...[
				["ls", { path: "Projets été/Café" }],
				["find", { pattern: "*.md", path: "Projets été/Café" }],
				["grep", { pattern: "croissant", path: "Projets été/Café" }],
				["read", { path: "Projets été/Café/menu.md" }],
			].map(([tool, args]) =>
				fauxAssistantMessage([fauxToolCall(tool as string, args as never)], { stopReason: "toolUse" }),
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("read the menu");
		expect(toolResultTexts(h)).toEqual([
			{ isError: false, text: "menu.md" },
			{ isError: false, text: "menu.md" },
			{ isError: false, text: "menu.md:1: croissant" },
			{ isError: false, text: "croissant\n" },
		]);
	});
});
