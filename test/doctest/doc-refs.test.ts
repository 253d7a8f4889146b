/**
 * Doc-tests for what the Markdown docs point at: every repo path they name (a link, or a code span
 * that is a path, or a test file's bare name) exists, every `#anchor` link finds its heading, every `npm run <script>` is a
 * script of package.json, and the README's mutation-audit sentence counts the catalog as it is.
 * Cheap checks of claims that went stale silently as files moved and helpers merged.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { MUTANTS } from "../mutation/catalog.js";
import { MARKDOWN_DOCS } from "./collect.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOP_FOLDERS = ["src", "test", "machines", "bench", "examples", "scripts", "visualizations", "bin"];
/** Paths the docs name as example input (a user's project, a race report's repo), not as this repo's files. */
const EXAMPLE_PATHS = new Set(["src/app.ts", "src/**/*.java", "src/main/**/*.java"]);

function repoFiles(dir = ROOT): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		if (/^(node_modules|dist|\.git|\.tmp)$/.test(entry.name)) continue;
		const path = join(dir, entry.name);
		const rel = relative(ROOT, path);
		if (entry.isDirectory()) out.push(`${rel}/`, ...repoFiles(path));
		else out.push(rel);
	}
	return out;
}

/** Repo paths a Markdown text names, with their lines: link targets and code spans that are one path. */
function namedPaths(markdown: string): { line: number; path: string }[] {
	const found: { line: number; path: string }[] = [];
	markdown.split("\n").forEach((text, i) => {
		for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
			if (!/^[a-z]+:/.test(target!)) found.push({ line: i + 1, path: target! });
		}
		for (const [, span] of text.matchAll(/`([^`\s]+)`/g)) {
			const path = span!.replace(/[.,:;]$/, "");
			// `test/<area>/` is a pattern the prose explains, not a path.
			if (TOP_FOLDERS.some((top) => path.startsWith(`${top}/`)) && !path.includes("<"))
				found.push({ line: i + 1, path });
		}
	});
	return found;
}

/** Whether a named path is in the tree: a file, a folder (`x/`), a glob, or a file's name without its ending. */
function exists(path: string, files: readonly string[]): boolean {
	if (/[*?[{]/.test(path)) {
		const match = picomatch(path);
		return files.some((file) => match(file) || match(file.replace(/\/$/, "")));
	}
	const bare = path.replace(/\/$/, "");
	return files.some((file) => file === bare || file === `${bare}/` || file.startsWith(`${bare}.`));
}

/** GitHub's anchor for a heading. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\- _]/gu, "")
		.replace(/ /g, "-");
}

const docs = MARKDOWN_DOCS.map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));

describe("what the docs point at", () => {
	const files = repoFiles();

	it("every repo path they name exists", () => {
		const named = docs.flatMap(({ file, text }) => namedPaths(text).map((p) => ({ file, ...p })));
		expect(named.length).toBeGreaterThan(100);
		const missing = named.filter((p) => !EXAMPLE_PATHS.has(p.path) && !exists(p.path, files));
		expect(missing.map((p) => `${p.file}:${p.line} ${p.path}`)).toEqual([]);
	});

	it("every test file named without its folder exists", () => {
		const named = docs.flatMap(({ file, text }) =>
			[...text.matchAll(/`([\w.-]+\.test\.ts)`/g)].map((m) => ({ file, name: m[1]! })),
		);
		expect(named.length).toBeGreaterThan(5);
		const missing = named.filter(({ name }) => !files.some((f) => f.endsWith(`/${name}`)));
		expect(missing.map(({ file, name }) => `${file} ${name}`)).toEqual([]);
	});

	it("would catch a moved file", () => {
		const doc = "See [it](src/gone.ts), `test/doctest/`, `src/cli/*.ts`, `test/doctest/collect` and `src/nope/x.ts`.";
		expect(namedPaths(doc).filter((p) => !exists(p.path, files))).toEqual([
			{ line: 1, path: "src/gone.ts" },
			{ line: 1, path: "src/nope/x.ts" },
		]);
	});

	it("every #anchor link finds a heading of its file", () => {
		const headings = new Map(
			docs.map(({ file, text }) => [file, new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]!)))]),
		);
		const broken = docs.flatMap(({ file, text }) =>
			[...text.matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)]
				.filter(([, target, anchor]) => !headings.get(target || file)?.has(anchor!))
				.map(([link]) => `${file}: ${link}`),
		);
		expect(anchorOf("8. Invariants (each one is a property test)")).toBe("8-invariants-each-one-is-a-property-test");
		expect(broken).toEqual([]);
	});

	it("every `npm run <script>` is a script of package.json", () => {
		const scripts = Object.keys(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts);
		// The race table's rows quote other projects' commands (`npm run dev &`); only the prose is ours.
		const prose = (text: string) => text.replace(/^\|.*$/gm, "");
		const named = docs.flatMap(({ file, text }) =>
			[...prose(text).matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => [file, m[1]!]),
		);
		expect(named.length).toBeGreaterThan(5);
		expect(named.filter(([, script]) => !scripts.includes(script!))).toEqual([]);
	});

	it("the README's mutation audit counts the catalog", () => {
		const readme = docs.find((d) => d.file === "README.md")!.text;
		const words = ["none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
		const count = /\((\d+) single-point changes/.exec(readme)?.[1];
		const equivalent = /killed except (\w+) marked equivalent/.exec(readme)?.[1];
		expect({ count: Number(count), equivalent }).toEqual({
			count: MUTANTS.length,
			equivalent: words[MUTANTS.filter((m) => m.equivalent !== undefined).length],
		});
	});
});
