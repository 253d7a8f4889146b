/**
 * Doc-tests for the other code users copy: `settle` command lines. Every one in the Markdown docs —
 * the lines of ```sh / ```bash blocks (also after a pipe) and `settle …` / `npx settle …` code
 * spans in the prose — must parse with the CLI's own parser: no unknown option, no option missing
 * its value. A span that only names an option (`settle --export`, `settle trace -o`) is prose, not
 * a command line: it may leave out the value, but the option must exist. Placeholders (`<file>`, `[out.html]`) parse as ordinary arguments.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { PACKAGE_COMMANDS, parsePackageCommand } from "../../src/cli/package-commands.js";
import { MARKDOWN_DOCS } from "./collect.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** One `settle` command line of a doc, with where it is. */
interface CliLine {
	file: string;
	line: number;
	text: string;
	/** A code span in the prose (which may just name an option), not a line of a shell block. */
	prose: boolean;
}

/** The `settle` command lines of a Markdown text. */
function cliLines(file: string, markdown: string): CliLine[] {
	const found: CliLine[] = [];
	const lineOf = (index: number) => markdown.slice(0, index).split("\n").length;
	for (const block of markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
		const first = lineOf(block.index) + 1;
		block[1]!.split("\n").forEach((raw, i) => {
			const command = raw.replace(/\s+#.*$/, "");
			const at = command.search(/(^|\|\s*)(npx )?settle\b/);
			if (at >= 0) found.push({ file, line: first + i, text: command.slice(at).replace(/^\|\s*/, ""), prose: false });
		});
	}
	// Blank out the fenced blocks (keeping line numbers) so their backticks are not read as spans.
	const prose = markdown.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, " "));
	for (const span of prose.matchAll(/`((?:npx )?settle [^`]*)`/g)) {
		found.push({ file, line: lineOf(span.index), text: span[1]!.replace(/\s+/g, " "), prose: true });
	}
	return found;
}

/** Splits a command line as a shell would for these docs: whitespace, single and double quotes. */
function shellWords(text: string): string[] {
	const words: string[] = [];
	let word = "";
	let quote: string | null = null;
	let quoted = false;
	for (const ch of text) {
		if (quote) {
			if (ch === quote) quote = null;
			else word += ch;
		} else if (ch === '"' || ch === "'") {
			quote = ch;
			quoted = true;
		} else if (/\s/.test(ch)) {
			if (word || quoted) words.push(word);
			word = "";
			quoted = false;
		} else word += ch;
	}
	if (word || quoted) words.push(word);
	return words;
}

/** What is wrong with a command line (`[]`: it parses); a prose span naming only an option is skipped. */
function problems(line: CliLine): string[] {
	const argv = shellWords(line.text.replace(/^npx /, "")).slice(1);
	const options = argv.filter((word) => !/^(trace|demo|viz)$/.test(word));
	// A span that only names an option need not give its value, but the option must exist.
	const namesOnly = line.prose && options.length === 1 && options[0]!.startsWith("-");
	if (argv[0] !== undefined && PACKAGE_COMMANDS.has(argv[0])) {
		const problem = parsePackageCommand(argv[0], argv.slice(1)).problem;
		return problem ? [`${line.file}:${line.line} \`${line.text}\`: ${problem}`] : [];
	}
	const parsed = parseArgs(argv);
	return [
		...(namesOnly ? [] : parsed.diagnostics.map((d) => d.message)),
		...parsed.unknownFlags.map((flag) => `unknown option --${flag.name}`),
	].map((message) => `${line.file}:${line.line} \`${line.text}\`: ${message}`);
}

describe("settle command lines in the docs", () => {
	const lines = MARKDOWN_DOCS.flatMap((file) => cliLines(file, readFileSync(join(ROOT, file), "utf8")));

	it("finds the README's command block and its prose spans", () => {
		expect(lines.some((l) => l.text === 'npx settle --faux -p "hello"')).toBe(true);
		expect(lines.some((l) => l.text === "npx settle --rpc --faux")).toBe(true); // after `echo … |`
		expect(lines.some((l) => l.text === "settle trace run.json")).toBe(true);
		expect(lines.length).toBeGreaterThan(20);
	});

	it("each one parses: no unknown option, no option without its value", () => {
		expect(lines.flatMap(problems)).toEqual([]);
	});

	it("would catch a stale or mistyped option", () => {
		const doc =
			"Run `settle --fuax -p hi` (see `settle --trace`, `settle --tarce`), or:\n\n```sh\nnpx settle --trace\necho x | npx settle --rcp # comment\n```\n";
		expect(cliLines("X.md", doc).flatMap(problems)).toEqual([
			"X.md:4 `npx settle --trace`: Option --trace requires a value",
			"X.md:5 `npx settle --rcp`: unknown option --rcp",
			"X.md:1 `settle --fuax -p hi`: unknown option --fuax",
			"X.md:1 `settle --tarce`: unknown option --tarce",
		]);
		expect(shellWords(`settle -p "a b" '' c`)).toEqual(["settle", "-p", "a b", "", "c"]);
	});
});
