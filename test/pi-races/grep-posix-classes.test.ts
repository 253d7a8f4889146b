/**
 * mirage#1170: a grep whose pattern reached JavaScript's RegExp untranslated read the POSIX class
 * `[[:space:]]` as the set `[:space` followed by a literal `]`: `grep -E 'a[[:space:]]b'` matched
 * nothing on `a b` (and matched `as]b`), with no error. Models carry these classes over from grep
 * and rg (which accepts them). What the user should see: the lines the class names, as rg finds them.
 */
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
});
