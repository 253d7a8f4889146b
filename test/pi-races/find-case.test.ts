/**
 * claude-code#46590: a glob tool matching case exactly said "not found" for `ROADMAP.md` when the
 * file was `roadmap.md` (and the reverse), and a `/wrap-up` workflow skipped the file silently. pi
 * 0.73.1's `find` runs fd, whose smart case matches a pattern without an uppercase letter in any
 * case. What the user should see: `roadmap.md` and `*.md` find ROADMAP.md and notes.MD; a pattern
 * with an uppercase letter still matches case exactly.
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

/** The text of each `find` result the model received, in call order, lines sorted. */
function findResults(harness: Harness): string[][] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					message.content
						.map((block) => (block.type === "text" ? block.text : ""))
						.join("")
						.split("\n")
						.sort(),
				]
			: [],
	);
}

describe("claude-code#46590: find misses a file whose name differs from the pattern only in case", () => {
	it("claude-code#46590: `roadmap.md`, `*.md` and `docs/readme.md` find ROADMAP.md, notes.MD and docs/Readme.md; `ROADMAP.md` and `*.MD` match case exactly", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["find"] });
		for (const path of ["ROADMAP.md", "notes.MD", "docs/Readme.md", "docs/roadmap.md", "src/main.ts"]) {
			mkdirSync(dirname(join(h.tempDir, path)), { recursive: true });
			writeFileSync(join(h.tempDir, path), `# ${path}\n`);
		}
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall("find", { pattern: "roadmap.md" }, { id: "f1" }),
					fauxToolCall("find", { pattern: "*.md" }, { id: "f2" }),
					fauxToolCall("find", { pattern: "docs/readme.md" }, { id: "f3" }),
					fauxToolCall("find", { pattern: "ROADMAP.md" }, { id: "f4" }),
					fauxToolCall("find", { pattern: "*.MD" }, { id: "f5" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("found the roadmap"),
		]);
		await h.session.prompt("wrap up: update the roadmap");
		expect(findResults(h)).toEqual([
			["ROADMAP.md", "docs/roadmap.md"],
			["ROADMAP.md", "docs/Readme.md", "docs/roadmap.md", "notes.MD"],
			["docs/Readme.md"],
			["ROADMAP.md"],
			["notes.MD"],
		]);
	});
});
