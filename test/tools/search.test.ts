import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindToolDefinition, type FindToolDetails } from "../../src/tools/find.js";
import { createGrepToolDefinition, type GrepToolDetails } from "../../src/tools/grep.js";
import { failure, run, tempProject, text } from "./helpers.js";

/** A small repository: ignored folders, a nested .gitignore with a re-include, hidden files, a .git folder. */
function repo() {
	return tempProject({
		".gitignore": "node_modules/\n*.log\ndist\n",
		".env": "TOKEN=needle\n",
		".git/config": "needle in git metadata\n",
		"README.md": "A needle in the readme\n",
		"debug.log": "needle in a log\n",
		"dist/bundle.js": "needle in dist\n",
		"node_modules/pkg/index.js": "needle in a dependency\n",
		"src/app.ts": "import x from 'y';\nconst needle = 1;\nexport default needle;\n",
		"src/app.spec.ts": "test('needle', () => {});\n",
		"src/trace.log": "needle in a log below the root\n",
		"src/util/.gitignore": "generated.ts\n!keep.log\n",
		"src/util/generated.ts": "needle generated\n",
		"src/util/keep.log": "needle kept by a nested rule\n",
		"src/util/strings.ts": "export const NEEDLE = 'Needle';\n",
		"assets/blob.bin": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01]),
	});
}

describe("grep", () => {
	it("finds matches with paths and line numbers, honouring .gitignore and skipping .git and binaries", async () => {
		const cwd = await repo();
		const output = text(await run(createGrepToolDefinition(cwd), { pattern: "needle" }));
		expect(output).toBe(
			[
				".env:1: TOKEN=needle",
				"README.md:1: A needle in the readme",
				"src/app.spec.ts:1: test('needle', () => {});",
				"src/app.ts:2: const needle = 1;",
				"src/app.ts:3: export default needle;",
				"src/util/keep.log:1: needle kept by a nested rule",
			].join("\n"),
		);
	});

	it("filters files by glob, by name or by path", async () => {
		const cwd = await repo();
		const grep = createGrepToolDefinition(cwd);
		expect(text(await run(grep, { pattern: "needle", glob: "*.spec.ts" }))).toBe(
			"src/app.spec.ts:1: test('needle', () => {});",
		);
		// As rg --glob: a file the glob names is searched even though src/util/.gitignore skips it.
		expect(text(await run(grep, { pattern: "needle", glob: "src/util/**" }))).toBe(
			"src/util/generated.ts:1: needle generated\nsrc/util/keep.log:1: needle kept by a nested rule",
		);
		expect(text(await run(grep, { pattern: "needle", glob: "!*.ts" }))).toBe(
			[
				".env:1: TOKEN=needle",
				"README.md:1: A needle in the readme",
				"src/util/keep.log:1: needle kept by a nested rule",
			].join("\n"),
		);
	});

	it("supports ignoreCase, literal patterns and context lines", async () => {
		const cwd = await repo();
		const grep = createGrepToolDefinition(cwd);
		expect(text(await run(grep, { pattern: "NEEDLE =", path: "src/util" }))).toBe(
			"strings.ts:1: export const NEEDLE = 'Needle';",
		);
		expect(text(await run(grep, { pattern: "^needle$", ignoreCase: true, path: "src" }))).toBe("No matches found");
		expect(text(await run(grep, { pattern: "('needle'", literal: true }))).toBe(
			"src/app.spec.ts:1: test('needle', () => {});",
		);
		expect(text(await run(grep, { pattern: "(?i)const needle", path: "src/app.ts", context: 1 }))).toBe(
			["app.ts-1- import x from 'y';", "app.ts:2: const needle = 1;", "app.ts-3- export default needle;"].join("\n"),
		);
	});

	it("stops at the match limit with a hint only when more matches exist", async () => {
		const cwd = await tempProject({ "many.txt": Array.from({ length: 5 }, (_, i) => `hit ${i}`).join("\n") });
		const grep = createGrepToolDefinition(cwd);
		const limited = await run<GrepToolDetails>(grep, { pattern: "hit", limit: 2 });
		expect(text(limited)).toBe(
			"many.txt:1: hit 0\nmany.txt:2: hit 1\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]",
		);
		expect(limited.details?.matchLimitReached).toBe(2);
		expect(text(await run(grep, { pattern: "hit", limit: 5 }))).not.toContain("limit reached");
	});

	it("cuts long lines and the byte limit with all notices in pi's order (match limit, bytes, long lines)", async () => {
		const long = `hit ${"x".repeat(600)}`;
		const cwd = await tempProject({ "wide.txt": Array.from({ length: 200 }, () => long).join("\n") });
		const result = await run<GrepToolDetails>(createGrepToolDefinition(cwd), { pattern: "hit", limit: 150 });
		const output = text(result);
		const notice = output.slice(output.lastIndexOf("\n\n[") + 2);
		const shown = result.details?.truncation?.outputLines;
		expect(notice).toBe(
			"[150 matches limit reached. Use limit=300 for more, or refine pattern. " +
				`50.0KB limit reached: showing the first ${shown} of 150 lines. A higher limit shows no more; narrow the path, glob or pattern to see the rest. ` +
				"Some lines truncated to 500 chars. Use read tool to see full lines]",
		);
		expect(result.details?.matchLimitReached).toBe(150);
		expect(result.details?.linesTruncated).toBe(true);
		expect(result.details?.truncation?.truncatedBy).toBe("bytes");
		const kept = output.slice(0, output.lastIndexOf("\n\n[")).split("\n");
		expect(kept.length).toBe(result.details?.truncation?.outputLines);
		expect(kept.length).toBeLessThan(150);
		expect(kept[0]).toBe(`wide.txt:1: hit ${"x".repeat(496)}... [truncated]`);
	});

	it("matches per line in CRLF files, with anchors and lookarounds", async () => {
		const cwd = await tempProject({ "win.txt": "alpha\r\nfoo\r\nbar foo\r\n" });
		const grep = createGrepToolDefinition(cwd);
		expect(text(await run(grep, { pattern: "^foo$" }))).toBe("win.txt:2: foo");
		expect(text(await run(grep, { pattern: "(?<=bar )foo" }))).toBe("win.txt:3: bar foo");
		expect(text(await run(grep, { pattern: "alpha$" }))).toBe("win.txt:1: alpha");
	});

	it("skips binary files (a NUL byte near the start) and files over the size limit", async () => {
		const cwd = await tempProject({
			"text.txt": "needle\n",
			"big.txt": `needle\n${"x".repeat(2000)}\n`,
			"image.bin": Buffer.concat([Buffer.from([0]), Buffer.from("needle\n")]),
		});
		const output = text(await run(createGrepToolDefinition(cwd, { maxFileBytes: 1000 }), { pattern: "needle" }));
		expect(output).toBe("text.txt:1: needle");
	});

	it("cuts long lines and says so", async () => {
		const cwd = await tempProject({ "long.txt": `match ${"z".repeat(600)}` });
		const output = text(await run(createGrepToolDefinition(cwd), { pattern: "match" }));
		expect(output).toBe(
			`long.txt:1: match ${"z".repeat(494)}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]`,
		);
	});

	it("reports bad patterns and missing paths", async () => {
		const cwd = await repo();
		const grep = createGrepToolDefinition(cwd);
		expect(await failure(run(grep, { pattern: "(unclosed" }))).toMatch(
			/^Invalid regex pattern: .*\. Fix the pattern, or pass literal: true to search for the text as written\.$/,
		);
		expect(await failure(run(grep, { pattern: "x", path: "missing" }))).toBe(`Path not found: ${join(cwd, "missing")}`);
	});

	it("applies the .gitignore of folders above the search folder, up to the cwd", async () => {
		const cwd = await repo();
		const output = text(await run(createGrepToolDefinition(cwd), { pattern: "needle", path: "src" }));
		expect(output).toContain("app.ts:2: const needle = 1;");
		expect(output).not.toContain("trace.log"); // ignored by the root .gitignore (*.log)
	});

	it("inside a git repository, applies .gitignore files up to the repository root", async () => {
		const cwd = await tempProject({ ".gitignore": "*.log\n", "src/app.ts": "needle\n", "src/trace.log": "needle\n" });
		const fromSrc = createGrepToolDefinition(join(cwd, "src"));
		// Not a repository yet: the session cwd (src) is the outermost folder whose ignore files apply.
		expect(text(await run(fromSrc, { pattern: "needle" }))).toBe("app.ts:1: needle\ntrace.log:1: needle");
		await mkdir(join(cwd, ".git", "info"), { recursive: true });
		expect(text(await run(fromSrc, { pattern: "needle" }))).toBe("app.ts:1: needle");
		await writeFile(join(cwd, ".git", "info", "exclude"), "app.ts\n");
		expect(text(await run(fromSrc, { pattern: "needle" }))).toBe("No matches found");
	});

	it("searches an ignored folder when it is asked for explicitly", async () => {
		const cwd = await repo();
		expect(text(await run(createGrepToolDefinition(cwd), { pattern: "needle", path: "node_modules" }))).toBe(
			"pkg/index.js:1: needle in a dependency",
		);
		expect(text(await run(createFindToolDefinition(cwd), { pattern: "*.js", path: "node_modules" }))).toBe(
			"pkg/index.js",
		);
	});

	it("rejects with Operation aborted", async () => {
		const cwd = await repo();
		const controller = new AbortController();
		controller.abort();
		expect(await failure(run(createGrepToolDefinition(cwd), { pattern: "x" }, { signal: controller.signal }))).toBe(
			"Operation aborted",
		);
	});

	it("an extra ignore option skips folders that no ignore file mentions", async () => {
		const cwd = await tempProject({ "vendor/lib.js": "needle\n", "main.js": "needle\n" });
		const output = text(await run(createGrepToolDefinition(cwd, { ignore: ["vendor/"] }), { pattern: "needle" }));
		expect(output).toBe("main.js:1: needle");
	});
});

describe("find", () => {
	it("matches names at any depth, honouring .gitignore, skipping .git, including hidden files", async () => {
		const cwd = await repo();
		const find = createFindToolDefinition(cwd);
		expect(text(await run(find, { pattern: "*.ts" }))).toBe(
			["src/app.spec.ts", "src/app.ts", "src/util/strings.ts"].join("\n"),
		);
		expect(text(await run(find, { pattern: ".*" }))).toBe([".env", ".gitignore", "src/util/.gitignore"].join("\n"));
		expect(text(await run(find, { pattern: "*.log" }))).toBe("src/util/keep.log");
	});

	it("matches paths when the pattern has a slash, and lists folders with a trailing slash", async () => {
		const cwd = await repo();
		const find = createFindToolDefinition(cwd);
		expect(text(await run(find, { pattern: "src/**/*.ts" }))).toBe(
			["src/app.spec.ts", "src/app.ts", "src/util/strings.ts"].join("\n"),
		);
		expect(text(await run(find, { pattern: "util/*.ts" }))).toBe("src/util/strings.ts");
		expect(text(await run(find, { pattern: "util" }))).toBe("src/util/");
		expect(text(await run(find, { pattern: "*.ts", path: "src/util" }))).toBe("strings.ts");
	});

	it("stops at the result limit with a hint", async () => {
		const cwd = await tempProject(Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`f${i}.txt`, ""])));
		const result = await run<FindToolDetails>(createFindToolDefinition(cwd), { pattern: "*.txt", limit: 3 });
		expect(text(result)).toBe(
			"f0.txt\nf1.txt\nf2.txt\n\n[3 results limit reached. Use limit=6 for more, or refine pattern]",
		);
		expect(result.details?.resultLimitReached).toBe(3);
	});

	it("says when nothing matches and when the folder is missing", async () => {
		const cwd = await repo();
		const find = createFindToolDefinition(cwd);
		expect(text(await run(find, { pattern: "*.rs" }))).toBe("No files found matching pattern");
		expect(await failure(run(find, { pattern: "*", path: "nope" }))).toBe(`Path not found: ${join(cwd, "nope")}`);
	});
});

// Regressions found by the differential against pi's ripgrep/fd (pi-differential-search.property.test.ts).
describe("grep and find agree with ripgrep and fd", () => {
	it("bug: a lone CR started a new line, so later line numbers disagreed with rg and the read tool", async () => {
		const cwd = await tempProject({ "mac.txt": "one\rtwo\nthree foo\n", "dos.txt": "a\r\nfoo\r\n" });
		const grep = createGrepToolDefinition(cwd);
		expect(text(await run(grep, { pattern: "foo" }))).toBe("dos.txt:2: foo\nmac.txt:2: three foo");
		expect(text(await run(grep, { pattern: "one.two" }))).toBe("mac.txt:1: onetwo");
	});

	it("bug: a NUL byte past the first 8000 bytes did not make the file binary", async () => {
		const late = Buffer.concat([Buffer.from("foo\n"), Buffer.alloc(9000, "a"), Buffer.from([0, 10])]);
		const cwd = await tempProject({ "late.bin": late, "text.txt": "foo\n" });
		expect(text(await run(createGrepToolDefinition(cwd), { pattern: "foo" }))).toBe("text.txt:1: foo");
	});

	it("bug: a binary file asked for by path was skipped (rg searches it)", async () => {
		const cwd = await tempProject({ "b.bin": Buffer.from("zero\nxa\0foo\nlast\n") });
		expect(text(await run(createGrepToolDefinition(cwd), { pattern: "last", path: "b.bin" }))).toBe("b.bin:3: last");
	});

	it("bug: `.` did not match a CR, U+2028 or a whole emoji, as rg's does", async () => {
		const cwd = await tempProject({ "a.txt": "x\ry\nx\u2028y\nx😀y\n" });
		const output = text(await run(createGrepToolDefinition(cwd), { pattern: "^x.y$" }));
		expect(output).toBe("a.txt:1: xy\na.txt:2: x\u2028y\na.txt:3: x😀y");
	});

	it("bug: ignoreCase missed Unicode case folding (ſ, the Kelvin sign) that rg applies", async () => {
		const cwd = await tempProject({ "a.txt": "ſ\n\u212A\n" });
		const grep = createGrepToolDefinition(cwd);
		expect(text(await run(grep, { pattern: "s", ignoreCase: true }))).toBe("a.txt:1: ſ");
		expect(text(await run(grep, { pattern: "(?i)k" }))).toBe("a.txt:2: \u212A");
	});

	it("bug: a bad pattern was reported before a missing path (pi checks the path first)", async () => {
		const cwd = await tempProject({});
		expect(await failure(run(createGrepToolDefinition(cwd), { pattern: "(", path: "nope" }))).toBe(
			`Path not found: ${join(cwd, "nope")}`,
		);
	});

	it("bug: a glob naming a .gitignored file or folder did not search it (rg --glob whitelists; `!` globs do not)", async () => {
		const cwd = await tempProject({
			".gitignore": "*.log\ndeep/\n",
			"a.log": "foo\n",
			"b.txt": "foo\n",
			"src/deep/c.ts": "foo\n",
		});
		const grep = createGrepToolDefinition(cwd);
		expect(text(await run(grep, { pattern: "foo", glob: "*.log" }))).toBe("a.log:1: foo");
		expect(text(await run(grep, { pattern: "foo", glob: "src/**" }))).toBe("src/deep/c.ts:1: foo");
		expect(text(await run(grep, { pattern: "foo", glob: "!*.txt" }))).toBe("No matches found");
	});

	it("bug: path-globs were read from the search folder, not the session cwd where pi runs rg and fd", async () => {
		const cwd = await tempProject({ "src/lib/a.ts": "foo\n", "src/b.ts": "foo\n" });
		expect(text(await run(createGrepToolDefinition(cwd), { pattern: "foo", path: "src", glob: "src/lib/*" }))).toBe(
			"lib/a.ts:1: foo",
		);
		expect(text(await run(createFindToolDefinition(cwd), { pattern: "src/*", path: "src" }))).toBe("b.ts\nlib/");
	});

	it("bug: a deeper .gitignore beat an .ignore file above it (rg and fd: any .ignore rule beats every .gitignore rule)", async () => {
		const cwd = await tempProject({
			".ignore": "!é.ts\n*.log\n",
			"src/.gitignore": "*.ts\n",
			"src/lib/é.ts": "foo\n",
			"src/lib/other.ts": "foo\n",
			"b/.gitignore": "!x.log\n",
			"b/x.log": "foo\n",
		});
		expect(text(await run(createGrepToolDefinition(cwd), { pattern: "foo" }))).toBe("src/lib/é.ts:1: foo");
		expect(text(await run(createFindToolDefinition(cwd), { pattern: "*.{ts,log}" }))).toBe("src/lib/é.ts");
	});

	it("bug: find `src/**` listed src itself (fd lists only what is inside)", async () => {
		const cwd = await tempProject({ "src/a.ts": "", "src/lib/b.ts": "" });
		expect(text(await run(createFindToolDefinition(cwd), { pattern: "src/**" }))).toBe(
			"src/a.ts\nsrc/lib/\nsrc/lib/b.ts",
		);
	});
});
