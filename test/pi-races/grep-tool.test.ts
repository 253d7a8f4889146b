/**
 * Reports about the built-in `grep` tool, replayed with a model's `grep` call in a real session over
 * real files. pi-lean-ctx#1810 (a pi extension's grep): `limit: 1` on minified JSON returned the
 * whole ~100 KB matching line; the limit bounded the number of matches, not their size. What the
 * user should see: a bounded line that says it was cut and how to see the rest.
 *
 * opencode#45185: grep given a file as its `path` searched the file's whole folder: matches from
 * files the model never named. opencode#45293: grep given a folder that does not exist (a typo,
 * `src/utlis`) answered with no matches, and the model concluded the code had none. What the user
 * should see: the named file searched alone; a missing path refused as not found, by its name.
 */
import { mkdirSync, writeFileSync } from "node:fs";
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

describe("pi-lean-ctx#1810: one match on a minified line returns the whole 100 KB line", () => {
	it("pi-lean-ctx#1810: grep with limit 1 on a 200 KB one-line bundle answers under 1 KB: the line cut at 500 characters, a note saying so", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		writeFileSync(
			join(h.tempDir, "bundle.min.json"),
			`{"a":"${"x".repeat(100_000)}","needle":"${"y".repeat(100_000)}"}`,
		);
		script(h, [
			fauxAssistantMessage([fauxToolCall("grep", { pattern: "needle", limit: 1 })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("where is needle?");
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: false, details: { linesTruncated: true } });
		const text = (result as { content: { type: string; text: string }[] }).content[0]!.text;
		expect(text.length).toBeLessThan(1024);
		expect(text.startsWith(`bundle.min.json:1: {"a":"xxxx`)).toBe(true);
		expect(text).toContain("... [truncated]");
		expect(text).toContain("[Some lines truncated to 500 chars. Use read tool to see full lines]");
	});
});

describe("opencode#45185, opencode#45293: grep's path names a file, or nothing", () => {
	it("opencode#45185: grep in src/auth.ts finds only its own line, not its neighbour's; opencode#45293: grep in the misspelt src/utlis is refused as not found", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		mkdirSync(join(h.tempDir, "src/utils"), { recursive: true });
		writeFileSync(join(h.tempDir, "src/auth.ts"), "export const token = read();\n");
		writeFileSync(join(h.tempDir, "src/cache.ts"), "const token = 'cached';\n");
		writeFileSync(join(h.tempDir, "src/utils/env.ts"), "export const token = process.env.TOKEN;\n");
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("grep", { pattern: "token", path: "src/auth.ts" }, { id: "g1" }),
					fauxToolCall("grep", { pattern: "token", path: "src/utlis" }, { id: "g2" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("where is token set?");
		const results = h.session.messages.flatMap((message) =>
			message.role === "toolResult"
				? [
						{
							isError: message.isError,
							text: message.content.map((block) => ("text" in block ? block.text : "")).join(""),
						},
					]
				: [],
		);
		expect(results).toEqual([
			{ isError: false, text: "auth.ts:1: export const token = read();" },
			{ isError: true, text: `Path not found: ${join(h.tempDir, "src/utlis")}` },
		]);
	});
});
