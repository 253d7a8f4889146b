// biome-ignore-all lint/suspicious/noTemplateCurlyInString: template placeholders like ${@:2} are the subject of these tests
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCommandArgs, substituteArgs } from "../../src/resources/prompt-templates.js";

// pi does not export these from its package entry; load its module file directly.
const piModule = (await import(
	pathToFileURL(resolve("node_modules/@mariozechner/pi-coding-agent/dist/core/prompt-templates.js")).href
)) as { parseCommandArgs(text: string): string[]; substituteArgs(content: string, args: string[]): string };

const argText = fc.string({ unit: fc.constantFrom("a", "b", " ", "\t", '"', "'", "x y", "é"), maxLength: 30 });
// `$0` and a placeholder behind a backslash are left out: named differences (Settle keeps them
// as written, pi empties `$0` and fills `\$1`; claude-code#78759, opencode#9831, pinned in
// test/resources/prompt-templates.test.ts and test/pi-races/prompt-templates-literal-dollars.test.ts).
// Placeholders and text separated by spaces: pi's later passes could otherwise match a
// placeholder formed across a substituted one (`$$0ARGUMENTS` → `$ARGUMENTS` → ""), which
// Settle's single pass does not do.
const templateText = fc
	.array(
		fc.constantFrom(
			"$1",
			"$2",
			"$10",
			"$@",
			"$ARGUMENTS",
			"${@:2}",
			"${@:0}",
			"${@:1:2}",
			"${@:3:0}",
			"$",
			"@",
			"{",
			"x:y",
		),
		{
			maxLength: 8,
		},
	)
	.map((tokens) => tokens.join(" "));
// pi substitutes in several passes, so a value containing `$@` or `$ARGUMENTS` is substituted
// again there (also when a template `$` meets a value starting with `@`); Settle substitutes once.
// They agree whenever values contain no `$` and no `@`.
const safeArg = fc.string({ unit: fc.constantFrom("a", "b", "c d", "1", "{", ":"), minLength: 1, maxLength: 5 });

describe("prompt template arguments (against pi 0.73)", () => {
	it("parseCommandArgs splits exactly as pi does where no `'` follows a non-blank (an apostrophe: openclaw#90468)", () => {
		fc.assert(
			fc.property(argText, (text) => {
				// Named difference: a `'` inside an argument is text in Settle; pi opens a quote there.
				if (/\S'/.test(text)) return;
				expect(parseCommandArgs(text)).toEqual(piModule.parseCommandArgs(text));
			}),
			{ numRuns: 500 },
		);
		expect(piModule.parseCommandArgs("don't touch the user's API")).toEqual(["dont touch the users", "API"]);
	});

	it("line breaks separate arguments as spaces do (pi#4553: pi keeps them inside an argument)", () => {
		fc.assert(
			fc.property(argText, fc.constantFrom("\n", "\r\n", "\n\n"), (text, lineBreak) => {
				const broken = text.replace(/[ \t]/g, lineBreak);
				if (!/["']/.test(text)) expect(parseCommandArgs(broken)).toEqual(piModule.parseCommandArgs(text));
			}),
			{ numRuns: 300 },
		);
		// The documented difference: pi glues the word after a line break to the one before it.
		expect(piModule.parseCommandArgs("label\n\nVerbose text")).toEqual(["label\n\nVerbose", "text"]);
		expect(parseCommandArgs("label\n\nVerbose text")).toEqual(["label", "Verbose", "text"]);
	});

	it("substituteArgs fills templates exactly as pi does for values without `$` or `@`", () => {
		fc.assert(
			fc.property(templateText, fc.array(safeArg, { maxLength: 5 }), (content, args) => {
				expect(substituteArgs(content, args)).toBe(piModule.substituteArgs(content, args));
			}),
			{ numRuns: 500 },
		);
	});

	it("never re-substitutes a value (pi does for `$@` inside a value)", () => {
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom("$@", "$1", "$ARGUMENTS", "${@:1}", "x"), { minLength: 1, maxLength: 4 }),
				(args) => {
					expect(substituteArgs("$1", args)).toBe(args[0]);
					expect(substituteArgs("$@", args)).toBe(args.join(" "));
				},
			),
			{ numRuns: 100 },
		);
		// The documented difference: pi substitutes `$@` again inside the value of `$1`.
		expect(piModule.substituteArgs("$1", ["$@", "x"])).toBe("$@ x");
		expect(substituteArgs("$1", ["$@", "x"])).toBe("$@");
	});
});
