// biome-ignore-all lint/suspicious/noTemplateCurlyInString: template placeholders like ${@:2} are the subject of these tests
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectMarkdownFiles } from "../../src/resources/discovery.js";
import {
	expandPromptTemplate,
	loadPromptTemplateCandidates,
	parseCommandArgs,
	substituteArgs,
} from "../../src/resources/prompt-templates.js";
import type { PromptTemplate } from "../../src/resources/types.js";
import { fixtureProject } from "../settings/helpers.js";

const info = { source: "local", scope: "project", origin: "top-level" } as const;
function loadDir(dir: string) {
	return loadPromptTemplateCandidates(
		collectMarkdownFiles(dir, false).map((filePath) => ({ filePath, sourceInfo: info })),
	);
}
function template(name: string, content: string): PromptTemplate {
	return { name, description: "", content, filePath: `/t/${name}.md`, sourceInfo: { ...info, path: `/t/${name}.md` } };
}

describe("parseCommandArgs", () => {
	it.each([
		["", []],
		["a b  c", ["a", "b", "c"]],
		["\ta\tb ", ["a", "b"]],
		[`"two words" x`, ["two words", "x"]],
		[`'single quoted' "double"`, ["single quoted", "double"]],
		// openclaw#90468: an apostrophe inside a word is kept (pi 0.73.1: ["its"]).
		[`it's`, ["it's"]],
		[`don't touch the user's API`, ["don't", "touch", "the", "user's", "API"]],
		[`"it's" 'say "hi"'`, ["it's", 'say "hi"']],
		[`pre"fix mid"post`, ["prefix midpost"]],
		[`"" '' x`, ["x"]],
		[`"unclosed quote here`, ["unclosed quote here"]],
	])("%j → %j", (input, expected) => {
		expect(parseCommandArgs(input)).toEqual(expected);
	});
});

describe("substituteArgs", () => {
	const args = ["one", "two", "three"];
	it.each([
		["$1 and $2", "one and two"],
		["missing: [$4]", "missing: []"],
		// claude-code#78759: arguments count from 1, so `$0` (awk's record, `$0.01`) stays as written.
		["$0 stays", "$0 stays"],
		// opencode#9831: a backslash keeps a placeholder as written, and drops itself.
		["\\$1 \\$ARGUMENTS \\${@:2} \\${1:-x} is $1", "$1 $ARGUMENTS ${@:2} ${1:-x} is one"],
		["all: $@", "all: one two three"],
		["all: $ARGUMENTS", "all: one two three"],
		["from 2: ${@:2}", "from 2: two three"],
		["2 for 1: ${@:2:1}", "2 for 1: two"],
		["1 for 2: ${@:1:2}", "1 for 2: one two"],
		["from 0 counts as 1: ${@:0}", "from 0 counts as 1: one two three"],
		["past the end: [${@:9}]", "past the end: []"],
		["$10 is the tenth", " is the tenth"],
		["$$1", "$one"],
		["no placeholders", "no placeholders"],
	])("%j", (content, expected) => {
		expect(substituteArgs(content, args)).toBe(expected);
	});

	it("never substitutes inside substituted values", () => {
		expect(substituteArgs("$1 | $@", ["$2", "$@"])).toBe("$2 | $2 $@");
		expect(substituteArgs("${@:1}", ["$ARGUMENTS"])).toBe("$ARGUMENTS");
		// A replacement pattern in a value stays text (pi#9588: pi's string replace read `$&`).
		expect(substituteArgs("Fix: $ARGUMENTS / $1", ["$&", "$`"])).toBe("Fix: $& $` / $&");
	});

	it("pi#6695: defaults — `${N:-text}` for a missing argument, `${@:-text}` / `${ARGUMENTS:-text}` for none", () => {
		const template = "[${1:-first}] [${3:-third}] [${@:-none}] [${ARGUMENTS:-none}]";
		expect(substituteArgs(template, [])).toBe("[first] [third] [none] [none]");
		expect(substituteArgs(template, ["a", "b"])).toBe("[a] [third] [a b] [a b]");
		// A default is text: never substituted again, and `}` ends it.
		expect(substituteArgs("${1:-$2 and $@}", [])).toBe("$2 and $@");
		expect(substituteArgs("${1:-}", [])).toBe("");
	});
});

describe("expandPromptTemplate", () => {
	const templates = [template("review", "Review this code: $1"), template("commit", "Commit: $ARGUMENTS")];

	it("fills the template named by the command (behavior C.1 step 4 example)", () => {
		expect(expandPromptTemplate("/review src/index.ts", templates)).toBe("Review this code: src/index.ts");
		expect(expandPromptTemplate(`/commit "fix: bug" now`, templates)).toBe("Commit: fix: bug now");
		expect(expandPromptTemplate("/review", templates)).toBe("Review this code: ");
	});

	it("leaves unknown commands and plain text unchanged", () => {
		expect(expandPromptTemplate("/unknown a b", templates)).toBe("/unknown a b");
		expect(expandPromptTemplate("review src", templates)).toBe("review src");
		expect(expandPromptTemplate("/skill:review x", templates)).toBe("/skill:review x");
	});
});

describe("template files", () => {
	it("reads description, argument hint and body from front matter", () => {
		const dir = join(fixtureProject("basic"), ".settle", "prompts");
		const { prompts, diagnostics } = loadDir(dir);
		expect(diagnostics).toEqual([]);
		expect(prompts.map((prompt) => prompt.name)).toEqual(["commit", "review"]);
		const review = prompts.find((prompt) => prompt.name === "review")!;
		expect(review).toMatchObject({
			description: "Review a file",
			argumentHint: "<file> [focus]",
			content: "Review this code: $1\nFocus: ${@:2}",
			filePath: join(dir, "review.md"),
		});
		expect(expandPromptTemplate(`/review src/a.ts "error handling" naming`, prompts)).toBe(
			"Review this code: src/a.ts\nFocus: error handling naming",
		);
		// Without front matter the first line is the description.
		expect(prompts.find((prompt) => prompt.name === "commit")!.description).toBe(
			`${"Write a commit message for the staged changes. Args: $ARGUMENTS".slice(0, 60)}...`,
		);
	});

	it("reports a template with broken front matter instead of dropping it silently", () => {
		const dir = join(fixtureProject("broken-prompts"), ".settle", "prompts");
		const { prompts, diagnostics } = loadDir(dir);
		expect(prompts.map((prompt) => prompt.name)).toEqual(["empty-frontmatter", "good"]);
		expect(diagnostics).toHaveLength(1);
		expect(diagnostics[0]).toMatchObject({ type: "warning", path: join(dir, "bad-frontmatter.md") });
		expect(diagnostics[0]!.message).toMatch(/^invalid YAML front matter: .*Fix the YAML between the --- lines/);
		// An empty front matter block is removed; the first body line becomes the description.
		const empty = prompts.find((prompt) => prompt.name === "empty-frontmatter")!;
		expect(empty.content.startsWith("First line")).toBe(true);
		expect(empty.description).toBe("First line becomes the description because it is long enough...");
		expect(empty.description).toHaveLength(63);
	});
});
