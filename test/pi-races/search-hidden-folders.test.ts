/**
 * cheasee-pi#971 (a pi-based project), gemini-cli#18946, claude-code#16936: grep tools running
 * ripgrep without `--hidden` said "No matches found" for code in `.pi/extensions/`, `.github/` or
 * `.reborna/`, and the agent concluded the code did not exist. pi 0.73.1 passes `--hidden` to rg
 * and fd. What the user should see: grep and find from the project root search hidden folders,
 * except `.git` and what `.gitignore` lists; ls shows dotfiles.
 *
 * continue#11303: Continue's `ls` tool applied `.gitignore`, so an agent asked to list the folders
 * never saw `.venv` and could not look inside it. What the user should see: ls lists the ignored
 * folder and, asked for it, what it holds.
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

/** The text of each tool result the model received, in call order. */
function toolTexts(harness: Harness): string[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")]
			: [],
	);
}

describe("cheasee-pi#971, gemini-cli#18946, claude-code#16936: grep skips hidden folders", () => {
	it("cheasee-pi#971, gemini-cli#18946, claude-code#16936: grep and find from the root reach .pi/extensions and .github/workflows, not .git or the ignored .venv; ls lists the dot folders", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep", "find", "ls"] });
		for (const [path, text] of [
			[".git/HEAD", "ref: refs/heads/main\n"],
			[".git/COMMIT_EDITMSG", "use extractModifiedFiles in ci\n"],
			[".gitignore", ".venv/\n"],
			[".pi/extensions/modified.ts", "export function extractModifiedFiles() {}\n"],
			[".github/workflows/ci.yml", "run: node -e 'extractModifiedFiles()'\n"],
			[".venv/lib/copy.ts", "export function extractModifiedFiles() {}\n"],
			["src/main.ts", "import { extractModifiedFiles } from '../.pi/extensions/modified';\n"],
		] as const) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), text);
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("grep", { pattern: "extractModifiedFiles" }, { id: "g1" }),
					fauxToolCall("grep", { pattern: "function extractModifiedFiles", glob: "*.ts" }, { id: "g2" }),
					fauxToolCall("find", { pattern: "*.{ts,yml}" }, { id: "f1" }),
					fauxToolCall("ls", {}, { id: "l1" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("it is defined in .pi/extensions/modified.ts"),
		]);
		await h.session.prompt("where is extractModifiedFiles defined?");
		expect(toolTexts(h)).toEqual([
			[
				".github/workflows/ci.yml:1: run: node -e 'extractModifiedFiles()'",
				".pi/extensions/modified.ts:1: export function extractModifiedFiles() {}",
				"src/main.ts:1: import { extractModifiedFiles } from '../.pi/extensions/modified';",
			].join("\n"),
			".pi/extensions/modified.ts:1: export function extractModifiedFiles() {}",
			[".github/workflows/ci.yml", ".pi/extensions/modified.ts", "src/main.ts"].join("\n"),
			[".git/", ".github/", ".gitignore", ".pi/", ".venv/", "src/"].join("\n"),
		]);
	});
});

describe("continue#11303: ls hid gitignored folders", () => {
	it("continue#11303: with `.venv/` in .gitignore, ls lists .venv, and ls .venv and .venv/bin list what they hold", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["ls"] });
		for (const [path, text] of [
			[".gitignore", ".venv/\n"],
			[".venv/pyvenv.cfg", "home = /usr/bin\n"],
			[".venv/bin/python", ""],
			["app.py", "print('hi')\n"],
		] as const) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), text);
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("ls", {}, { id: "l1" }),
					fauxToolCall("ls", { path: ".venv" }, { id: "l2" }),
					fauxToolCall("ls", { path: ".venv/bin" }, { id: "l3" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("the virtualenv is in .venv"),
		]);
		await h.session.prompt("which folders are there?");
		expect(toolTexts(h)).toEqual([
			[".gitignore", ".venv/", "app.py"].join("\n"),
			["bin/", "pyvenv.cfg"].join("\n"),
			"python",
		]);
	});
});
