/**
 * opencode#3524, hermes-agent#93750: a grep tool handing ripgrep the pattern as a bare argument had
 * `-77`, `--pdf-engine` or `->` read as an option ("unrecognized flag"), and the model had to learn
 * to disguise them (`[-]77`). Settle's grep, find and ls run no program: the pattern and the path are
 * values, never argv. What the user should see: a search for text that starts with a dash, in a
 * folder whose name starts with one, finds it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Each tool result the model received, in call order: its text and whether it was an error. */
function toolResults(harness: Harness): { text: string; isError: boolean }[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
						isError: message.isError,
					},
				]
			: [],
	);
}

describe("opencode#3524, hermes-agent#93750: a pattern starting with a dash is read as a flag", () => {
	it("opencode#3524, hermes-agent#93750: grep for `-77`, `--pdf-engine` (glob *.md), `-> Result` (literal) and `-e` in the folder `-e dir` finds each line; find `-*` and ls `-e dir` list the dash names", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep", "find", "ls"] });
		for (const [path, text] of [
			["survey.csv", "code,answer\nq1,-77\nq2,12\n"],
			["docs/cli.md", "Render with:\n  pandoc --pdf-engine=xelatex in.md\n"],
			["docs/cli.txt", "  pandoc --pdf-engine=lualatex\n"],
			["src/lib.rs", "fn parse() -> Result<(), Error> {\n"],
			["-e dir/-e", "run -e 'print 1'\n"],
		] as const) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), text);
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("grep", { pattern: "-77" }, { id: "g1" }),
					fauxToolCall("grep", { pattern: "--pdf-engine", glob: "*.md" }, { id: "g2" }),
					fauxToolCall("grep", { pattern: "-> Result", literal: true }, { id: "g3" }),
					fauxToolCall("grep", { pattern: "-e", path: "-e dir" }, { id: "g4" }),
					fauxToolCall("find", { pattern: "-*" }, { id: "f1" }),
					fauxToolCall("ls", { path: "-e dir" }, { id: "l1" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("found them"),
		]);
		await h.session.prompt("where are the dashes?");
		expect(toolResults(h)).toEqual([
			{ text: "survey.csv:2: q1,-77", isError: false },
			{ text: "docs/cli.md:2:   pandoc --pdf-engine=xelatex in.md", isError: false },
			{ text: "src/lib.rs:1: fn parse() -> Result<(), Error> {", isError: false },
			{ text: "-e:1: run -e 'print 1'", isError: false },
			{ text: "-e dir/\n-e dir/-e", isError: false },
			{ text: "-e", isError: false },
		]);
	});
});
