/**
 * Reports about the built-in `find` tool and nested `.gitignore` files, replayed with a model's
 * `find` call in a real session over real folders. dreb#17 (a pi fork): the `.gitignore` that
 * `venv` and `pytest` write into their own folders (just `*`) was applied to the whole tree, and
 * `find` said "No files found" for files that exist. What the user should see: such a file ignores
 * its own folder only.
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

/** The text of each `find` result the model received, in call order. */
function findResults(harness: Harness): string[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")]
			: [],
	);
}

describe("dreb#17: find ignores every file once a nested .gitignore says `*`", () => {
	it("dreb#17: with .venv/.gitignore and .pytest_cache/.gitignore holding `*`, find still lists the project's CLAUDE.md files; only those folders' own files are left out", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["find"] });
		for (const [path, text] of [
			["a/CLAUDE.md", "a"],
			["b/c/CLAUDE.md", "c"],
			["src/main.py", "print()"],
			[".venv/lib/site.py", "x"],
			[".venv/.gitignore", "# Created by venv; see https://docs.python.org/3/library/venv.html\n*\n"],
			[".pytest_cache/.gitignore", "# Created by pytest automatically.\n*\n"],
			[".pytest_cache/v/cache.py", "x"],
		] as const) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), text);
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("find", { pattern: "CLAUDE.md" }, { id: "f1" }),
					fauxToolCall("find", { pattern: "**/CLAUDE.md" }, { id: "f2" }),
					fauxToolCall("find", { pattern: "**/*.py" }, { id: "f3" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("found them"),
		]);
		await h.session.prompt("where are the CLAUDE.md files?");
		expect(findResults(h)).toEqual(["a/CLAUDE.md\nb/c/CLAUDE.md", "a/CLAUDE.md\nb/c/CLAUDE.md", "src/main.py"]);
	});
});

describe("pi#5960: find misses files of a nested git repo that the parent repo's .gitignore ignores", () => {
	it("pi#5960: a workspace repo ignoring everything (`*`, `!.gitignore`) holds a project repo: find in the project lists its AGENTS.md; find in the workspace does not", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["find"] });
		for (const [path, text] of [
			["workspace/.git/HEAD", "ref: refs/heads/main\n"],
			["workspace/.gitignore", "*\n!.gitignore\n"],
			["workspace/project/.git/HEAD", "ref: refs/heads/main\n"],
			["workspace/project/AGENTS.md", "rules"],
			["workspace/project/docs/AGENTS.local.md", "more rules"],
		] as const) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), text);
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("find", { path: "workspace/project", pattern: "**/AGENTS*.md", limit: 20 }, { id: "f1" }),
					fauxToolCall("find", { path: "workspace", pattern: "**/AGENTS*.md", limit: 20 }, { id: "f2" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("found them"),
		]);
		await h.session.prompt("where are the AGENTS files?");
		const [inProject, inWorkspace] = findResults(h);
		expect(inProject).toBe("AGENTS.md\ndocs/AGENTS.local.md");
		// From the workspace its own `*` rule applies, as git's would: the project folder is ignored.
		expect(inWorkspace).toMatch(/^No files found/);
	});

	it("pi#5960: the workspace's rule ignores what is inside the project (`project/*`), not the folder: find in the project still lists its files, as git (a nested repo is its own root) does", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["find"] });
		for (const [path, text] of [
			["workspace/.git/HEAD", "ref: refs/heads/main\n"],
			["workspace/.gitignore", "project/*\n"],
			["workspace/project/.git/HEAD", "ref: refs/heads/main\n"],
			["workspace/project/AGENTS.md", "rules"],
		] as const) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), text);
		}
		script(h, [
			fauxAssistantMessage(
				[fauxToolCall("find", { path: "workspace/project", pattern: "**/AGENTS*.md" }, { id: "f1" })],
				{
					stopReason: "toolUse",
				},
			),
			fauxAssistantMessage("found it"),
		]);
		await h.session.prompt("where are the AGENTS files?");
		expect(findResults(h)).toEqual(["AGENTS.md"]);
	});
});

describe("pi#6416: find with a path-qualified glob (`src/**/*.java`) says no files found", () => {
	it("pi#6416: `src/**/*.java`, `src/main/**/*.java` and `**/*.java` all list the Java sources of a standard layout; a sibling folder's .java file only for the last", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["find"] });
		for (const path of [
			"src/main/java/com/acme/Main.java",
			"src/main/java/com/acme/util/Foo.java",
			"src/test/java/com/acme/BarTest.java",
			"tools/Gen.java",
			"src/main/resources/app.properties",
		]) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), "class X {}\n");
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("find", { pattern: "src/**/*.java" }, { id: "f1" }),
					fauxToolCall("find", { pattern: "src/main/**/*.java" }, { id: "f2" }),
					fauxToolCall("find", { pattern: "**/*.java" }, { id: "f3" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("found them"),
		]);
		await h.session.prompt("find src/**/*.java");
		const sources = [
			"src/main/java/com/acme/Main.java",
			"src/main/java/com/acme/util/Foo.java",
			"src/test/java/com/acme/BarTest.java",
		];
		const [underSrc, underMain, everywhere] = findResults(h).map((text) => text.split("\n").sort());
		expect(underSrc).toEqual(sources);
		expect(underMain).toEqual(sources.slice(0, 2));
		expect(everywhere).toEqual([...sources, "tools/Gen.java"].sort());
	});
});
