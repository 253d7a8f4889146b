/**
 * Reports about file names holding Unicode spaces, replayed with a model's `read` / `edit` / `write`
 * calls in a real session on real files, and (`pi-peer`) the same call to pi 0.73.1's tool.
 * pi#8877: `read` turned the U+202F of a localized macOS screenshot name (`3.00.00\u202Fp.m..png`) into
 * a plain space before looking, so the exact path given failed with ENOENT. oh-my-pi#12805: the same
 * for U+00A0 (Russian screenshot names); with a plain-space twin beside it, the read silently returned
 * the twin's bytes. claude-code#59381: a Czech screenshot name holds U+00A0 (`v\u00A013.05.05.png`),
 * which the user types (and the model sends) as a plain space: "File does not exist".
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
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

/** Runs the model's tool calls (one turn each) in a real disk session whose cwd holds `files`. */
async function modelCalls(
	files: Record<string, string | Buffer>,
	calls: { name: string; args: Record<string, unknown> }[],
): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "write", "edit"] });
	for (const [name, content] of Object.entries(files)) writeFileSync(join(harness.tempDir, name), content);
	script(harness, [
		...calls.map((call) => fauxAssistantMessage([fauxToolCall(call.name, call.args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("look at the files");
	return harness;
}

const png = readFileSync(join(import.meta.dirname, "../fixtures/tools/images/red-3x2.png"));
/** A Spanish-locale macOS screenshot name: U+202F before `p.m.`, which the AM/PM variant does not cover. */
const spanishScreenshot = "Captura de pantalla 2026-08-31 a las 3.00.00\u202Fp.m..png";
/** A note whose name holds a no-break space, and its plain-space twin in the same folder. */
const nbspNote = "notes\u00A0final.md";
const plainNote = "notes final.md";

describe("pi#8877, oh-my-pi#12805: a path holding U+202F or U+00A0 is turned into plain spaces before it is looked up", () => {
	it("pi#8877: read with the exact screenshot name (U+202F before p.m.) gets the image", async () => {
		h = await modelCalls({ [spanishScreenshot]: png }, [{ name: "read", args: { path: spanishScreenshot } }]);
		const [read] = toolResultTexts(h);
		expect(read?.isError).toBe(false);
		expect(read?.text).toContain("Read image file [image/png]");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("oh-my-pi#12805: with a plain-space twin beside it, read, edit and write of the U+00A0 name reach that file; the twin keeps its bytes", async () => {
		h = await modelCalls({ [nbspNote]: "final draft\n", [plainNote]: "old draft\n" }, [
			{ name: "read", args: { path: nbspNote } },
			{ name: "edit", args: { path: nbspNote, edits: [{ oldText: "final draft", newText: "final draft, reviewed" }] } },
			{ name: "read", args: { path: plainNote } },
		]);
		const [readNbsp, edit, readPlain] = toolResultTexts(h);
		expect(readNbsp).toEqual({ isError: false, text: "final draft\n" });
		expect(edit?.isError).toBe(false);
		expect(readPlain).toEqual({ isError: false, text: "old draft\n" });
		expect(readFileSync(join(h.tempDir, nbspNote), "utf8")).toBe("final draft, reviewed\n");
		expect(readFileSync(join(h.tempDir, plainNote), "utf8")).toBe("old draft\n");
	});

	it("oh-my-pi#12805: write to the exact U+00A0 name of an existing file overwrites it, not a new plain-space file", async () => {
		h = await modelCalls({ [nbspNote]: "final draft\n" }, [
			{ name: "write", args: { path: nbspNote, content: "rewritten\n" } },
		]);
		expect(toolResultTexts(h)[0]?.isError).toBe(false);
		expect(readFileSync(join(h.tempDir, nbspNote), "utf8")).toBe("rewritten\n");
		expect(() => readFileSync(join(h!.tempDir, plainNote))).toThrow(/ENOENT/);
	});

	it("pi#8877, oh-my-pi#12805 (pi-peer): pi 0.73.1 says ENOENT for the exact screenshot name and reads the twin for the U+00A0 note", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-pi-8877-"));
		try {
			writeFileSync(join(cwd, spanishScreenshot), png);
			writeFileSync(join(cwd, nbspNote), "final draft\n");
			writeFileSync(join(cwd, plainNote), "old draft\n");
			const tool = pi.createReadToolDefinition(cwd);
			await expect(
				tool.execute("c", { path: spanishScreenshot }, undefined, undefined, undefined as never),
			).rejects.toThrow(/ENOENT/);
			const twin = await tool.execute("c", { path: nbspNote }, undefined, undefined, undefined as never);
			expect(twin.content[0]).toMatchObject({ text: "old draft\n" });
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});

describe("claude-code#59381: a file name with U+00A0, asked for with a plain space, does not exist", () => {
	const czechScreenshot = "Snímek obrazovky 2026-05-15 v\u00A013.05.05.png";

	it("claude-code#59381: read of the Czech screenshot typed with plain spaces finds the one file it can mean", async () => {
		h = await modelCalls({ [czechScreenshot]: png }, [
			{ name: "read", args: { path: "Snímek obrazovky 2026-05-15 v 13.05.05.png" } },
		]);
		const [read] = toolResultTexts(h);
		expect(read?.isError).toBe(false);
		expect(read?.text).toContain("Read image file [image/png]");
	});

	it("claude-code#59381: when two names fold to the one typed (U+00A0 in one, U+202F in the other), neither is guessed: not found", async () => {
		h = await modelCalls({ "a\u00A0b.txt": "one\n", "a\u202Fb.txt": "two\n" }, [
			{ name: "read", args: { path: "a b.txt" } },
		]);
		const [read] = toolResultTexts(h);
		expect(read?.isError).toBe(true);
		expect(read?.text).toContain("File not found");
	});
});
