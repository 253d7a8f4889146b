/**
 * What pi 0.73.1's grep/find do on Debian's ripgrep 13 and fd 8.6 that Settle deliberately does not,
 * each pinned on both products: the randomized differential (pi-differential-search.property.test.ts)
 * keeps these out, and a change on either side shows here first. Also: pi finds the system binaries
 * and never downloads.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { createFindToolDefinition } from "../../src/tools/find.js";
import { createGrepToolDefinition } from "../../src/tools/grep.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { type PiSearchEnvironment, setUpPiSearchEnvironment } from "./pi-differential-search-env.js";

type Executable = { execute: AnyToolDefinition["execute"] };
type PiModule = typeof import("@mariozechner/pi-coding-agent");

let env: PiSearchEnvironment;
let pi: PiModule;
let root: string;
let counter = 0;

beforeAll(async () => {
	env = setUpPiSearchEnvironment();
	pi = await import("@mariozechner/pi-coding-agent");
	root = await mkdtemp(join(tmpdir(), "settle-search-pins-"));
});
afterAll(async () => {
	env?.dispose();
	if (root) await rm(root, { recursive: true, force: true });
});

/** A fresh folder with `files`; `git: true` makes it a repository (a `.git` folder). */
async function tree(files: Record<string, string | Buffer>, options: { git?: boolean } = {}): Promise<string> {
	const cwd = join(root, `p${counter++}`);
	await mkdir(cwd, { recursive: true });
	if (options.git) await writeFile(join(await mkdirp(join(cwd, ".git")), "HEAD"), "ref: refs/heads/main\n");
	for (const [path, content] of Object.entries(files)) {
		await mkdirp(dirname(join(cwd, path)));
		await writeFile(join(cwd, path), content);
	}
	return cwd;
}
async function mkdirp(dir: string): Promise<string> {
	await mkdir(dir, { recursive: true });
	return dir;
}

/** The text a model sees, or `Error: message`. */
async function seen(tool: unknown, params: Record<string, unknown>): Promise<string> {
	try {
		const result: AgentToolResult = await (tool as Executable).execute("c", params, undefined, undefined, undefined);
		const block = result.content[0];
		return block?.type === "text" ? block.text : JSON.stringify(result.content);
	} catch (error) {
		return `Error: ${(error as Error).message}`;
	}
}

const both = (cwd: string, tool: "grep" | "find") =>
	tool === "grep"
		? { pi: pi.createGrepToolDefinition(cwd), settle: createGrepToolDefinition(cwd) }
		: { pi: pi.createFindToolDefinition(cwd), settle: createFindToolDefinition(cwd) };

describe("pi 0.73.1's grep and find on Debian's ripgrep and fd", () => {
	it("finds the system rg and fd on PATH and never downloads (PI_OFFLINE, an empty agent folder)", async () => {
		const tools = (await import(
			new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/utils/tools-manager.js", import.meta.url).href
		)) as { getToolPath(tool: string): string | null; ensureTool(tool: string, silent: boolean): Promise<string> };
		expect(tools.getToolPath("rg")).toBe("rg");
		expect(await tools.ensureTool("rg", true)).toBe("rg");
		env.setFdShim(false);
		try {
			expect(tools.getToolPath("fd")).toBe(env.binaries.fd);
		} finally {
			env.setFdShim(true);
		}
	});

	it("pi bug: find passes --no-require-git, which fd before 8.7 (Debian bookworm's 8.6) rejects", async () => {
		const cwd = await tree({ "a.txt": "" }, { git: true });
		const { pi: piFind, settle } = both(cwd, "find");
		env.setFdShim(false);
		try {
			const theirs = await seen(piFind, { pattern: "*.txt" });
			if (env.binaries.fdLacksNoRequireGit) expect(theirs).toMatch(/^Error: error: Found argument '--no-require-git'/);
			else expect(theirs).toBe("a.txt");
		} finally {
			env.setFdShim(true);
		}
		expect(await seen(settle, { pattern: "*.txt" })).toBe("a.txt");
	});

	it("pi bug: grep outside a git repository ignores .gitignore (rg runs without --no-require-git)", async () => {
		const cwd = await tree({ ".gitignore": "*.log\n", "a.log": "foo\n", "b.txt": "foo\n" });
		const { pi: piGrep, settle } = both(cwd, "grep");
		expect(await seen(piGrep, { pattern: "foo" })).toBe("a.log:1: foo\nb.txt:1: foo");
		expect(await seen(settle, { pattern: "foo" })).toBe("b.txt:1: foo");
	});

	it("pi quirk: 'N … limit reached' when exactly N exist; Settle says so only when more exist", async () => {
		const cwd = await tree({ "a.txt": "hit\nhit\n", "b.txt": "" }, { git: true });
		const grep = both(cwd, "grep");
		expect(await seen(grep.pi, { pattern: "hit", limit: 2 })).toBe(
			"a.txt:1: hit\na.txt:2: hit\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]",
		);
		expect(await seen(grep.settle, { pattern: "hit", limit: 2 })).toBe("a.txt:1: hit\na.txt:2: hit");
		const find = both(cwd, "find");
		const notice = "\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]";
		expect(await seen(find.pi, { pattern: "*.txt", limit: 2 })).toMatch(
			new RegExp(`^(a|b)\\.txt\\n(a|b)\\.txt${notice.replace(/[[\].]/g, "\\$&")}$`),
		);
		expect(await seen(find.settle, { pattern: "*.txt", limit: 2 })).toBe("a.txt\nb.txt");
	});

	it("pi bug: with context, an empty line shows after a file's final line break", async () => {
		const cwd = await tree({ "a.txt": "one\nfoo\n" }, { git: true });
		const { pi: piGrep, settle } = both(cwd, "grep");
		expect(await seen(piGrep, { pattern: "foo", context: 1 })).toBe("a.txt-1- one\na.txt:2: foo\na.txt-3- ");
		expect(await seen(settle, { pattern: "foo", context: 1 })).toBe("a.txt-1- one\na.txt:2: foo");
	});

	it("pi bug: with context, a lone CR shifts the lines shown against rg's line numbers", async () => {
		const cwd = await tree({ "a.txt": "a\rb\nfoo\nc\n" }, { git: true });
		const { pi: piGrep, settle } = both(cwd, "grep");
		expect(await seen(piGrep, { pattern: "foo", context: 1 })).toBe("a.txt-1- a\na.txt:2: b\na.txt-3- foo");
		expect(await seen(settle, { pattern: "foo", context: 1 })).toBe("a.txt-1- ab\na.txt:2: foo\na.txt-3- c");
	});

	it("rg 13 bug: `$^` never matches, not even on an empty line (PCRE2 and JavaScript match it there)", async () => {
		const cwd = await tree({ "a.txt": "x\n\ny\n" }, { git: true });
		const { pi: piGrep, settle } = both(cwd, "grep");
		expect(await seen(piGrep, { pattern: "^$^" })).toBe("No matches found");
		expect(await seen(piGrep, { pattern: "^$" })).toBe("a.txt:2: ");
		expect(await seen(settle, { pattern: "^$^" })).toBe("a.txt:2: ");
	});

	it("pi bug: find lists what is inside .git (fd --hidden); Settle never enters .git", async () => {
		const cwd = await tree({ "a.txt": "" }, { git: true });
		const { pi: piFind, settle } = both(cwd, "find");
		expect((await seen(piFind, { pattern: "*" })).split("\n").sort()).toEqual([".git/", ".git/HEAD", "a.txt"]);
		expect(await seen(settle, { pattern: "*" })).toBe("a.txt");
	});

	it("pi bug: find path patterns match folders above the search folder (fd matches the absolute path)", async () => {
		const repo = await tree({ "proj/x.txt": "" }, { git: true });
		const { pi: piFind, settle } = both(join(repo, "proj"), "find");
		// `*/x.txt` matches because x.txt's folder (proj) is some folder: the same for every top-level file.
		expect(await seen(piFind, { pattern: "*/x.txt" })).toBe("x.txt");
		expect(await seen(settle, { pattern: "*/x.txt" })).toBe("No files found matching pattern");
	});

	it("known difference, left alone: in an ignored folder asked for by path, rg still applies the ignore files above it", async () => {
		const cwd = await tree(
			{ ".gitignore": "build\n*.log\n", "build/a.log": "foo\n", "build/b.txt": "foo\n" },
			{ git: true },
		);
		const { pi: piGrep, settle } = both(cwd, "grep");
		expect(await seen(piGrep, { pattern: "foo", path: "build" })).toBe("b.txt:1: foo");
		expect(await seen(settle, { pattern: "foo", path: "build" })).toBe("a.log:1: foo\nb.txt:1: foo");
	});

	it("grep searches UTF-16 files (with their mark) and a UTF-8 file with a mark as their text, as pi's rg does: the same matches, `^` on the first line included", async () => {
		const le = Buffer.from("\uFEFFalpha\r\nTODO fix \u{1F600}\r\n", "utf16le");
		const cwd = await tree(
			{
				"be.txt": Buffer.from(Buffer.from("\uFEFFalpha\nTODO be\n", "utf16le")).swap16(),
				"bom8.txt": "\uFEFFTODO first\n",
				"le.txt": le,
				// NUL characters after the mark: still a binary file, skipped by both.
				"wide.bin": Buffer.from("\uFEFFTODO\0\0", "utf16le"),
			},
			{ git: true },
		);
		const { pi: piGrep, settle } = both(cwd, "grep");
		const expected = {
			TODO: "be.txt:2: TODO be\nbom8.txt:1: TODO first\nle.txt:2: TODO fix \u{1F600}",
			"^TODO": "be.txt:2: TODO be\nbom8.txt:1: TODO first\nle.txt:2: TODO fix \u{1F600}",
			"^alpha": "be.txt:1: alpha\nle.txt:1: alpha",
		};
		for (const [pattern, lines] of Object.entries(expected)) {
			expect(await seen(piGrep, { pattern }), pattern).toBe(lines);
			expect(await seen(settle, { pattern }), pattern).toBe(lines);
		}
		// With context, pi bug: pi reads the lines around a match as UTF-8, NUL-interleaved noise.
		expect(await seen(piGrep, { pattern: "fix", path: "le.txt", context: 1 })).toContain("\u0000");
		expect(await seen(settle, { pattern: "fix", path: "le.txt", context: 1 })).toBe(
			"le.txt-1- alpha\nle.txt:2: TODO fix \u{1F600}",
		);
	});
});
