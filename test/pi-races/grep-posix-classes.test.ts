/**
 * mirage#1170: a grep whose pattern reached JavaScript's RegExp untranslated read the POSIX class
 * `[[:space:]]` as the set `[:space` followed by a literal `]`: `grep -E 'a[[:space:]]b'` matched
 * nothing on `a b` (and matched `as]b`), with no error. Models carry these classes over from grep
 * and rg (which accepts them). What the user should see: the lines the class names, as rg finds them.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("mirage#1170: POSIX classes in a grep pattern match nothing", () => {
	it("mirage#1170: `Candidate[[:space:]]+[[:digit:]]+:` finds the candidate lines, `[^[:alnum:]_]` a separator, and `[[:space:]]` never a `]` (as rg)", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		writeFileSync(
			join(h.tempDir, "log.txt"),
			["Candidate 1:", "Candidate\t22:", "Candidate:", "as]b", "a b", "snake_case", "x-y"].join("\n"),
		);
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("grep", { pattern: "^Candidate[[:space:]]+[[:digit:]]+:$" }, { id: "g1" }),
					fauxToolCall("grep", { pattern: "a[[:space:]]b" }, { id: "g2" }),
					fauxToolCall("grep", { pattern: "^[[:alpha:]]+[^[:alnum:]_][[:lower:]]$" }, { id: "g3" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("which candidates are in the log?");
		expect(toolResultTexts(h).map((result) => result.text)).toEqual([
			"log.txt:1: Candidate 1:\nlog.txt:2: Candidate\t22:",
			"log.txt:5: a b",
			"log.txt:4: as]b\nlog.txt:5: a b\nlog.txt:7: x-y",
		]);
	});

	it("rg's `\\A` / `\\z` (start / end of the text, a line's here) and negated classes `[[:^space:]]` match the lines rg finds", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		const lines = ["Apie", "pie crust", "buzz", "buzzz", "a z", "a1z", "a-z", "no digit", "x9"];
		writeFileSync(join(h.tempDir, "log.txt"), lines.join("\n"));
		// JavaScript reads `\A` as `A` and `\z` as `z` (and `[[:^space:]]` as a set of `:^space`).
		const patterns = ["\\Apie", "zz\\z", "^[[:^space:]]+$", "a[[:^alpha:]]z", "[^[:^digit:]]", "a[1[:^alnum:]]z"];
		script(h, [
			fauxAssistantMessage(
				patterns.map((pattern, i) => fauxToolCall("grep", { pattern }, { id: `g${i}` })),
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("search the log");
		const rgFinds = (pattern: string) =>
			spawnSync("rg", ["-n", "--no-filename", pattern, "log.txt"], { cwd: h!.tempDir, encoding: "utf8" })
				.stdout.trimEnd()
				.replace(/^(\d+):/gm, "log.txt:$1: ");
		expect(toolResultTexts(h).map((result) => result.text)).toEqual(patterns.map(rgFinds));
		expect(patterns.map(rgFinds)).toEqual([
			"log.txt:2: pie crust",
			"log.txt:3: buzz\nlog.txt:4: buzzz",
			"log.txt:1: Apie\nlog.txt:3: buzz\nlog.txt:4: buzzz\nlog.txt:6: a1z\nlog.txt:7: a-z\nlog.txt:9: x9",
			"log.txt:5: a z\nlog.txt:6: a1z\nlog.txt:7: a-z",
			"log.txt:6: a1z\nlog.txt:9: x9",
			"log.txt:5: a z\nlog.txt:6: a1z\nlog.txt:7: a-z",
		]);
	});
});
