/**
 * claude-code#30486: a grep across several repositories (`path: /workspaces`) with the glob
 * `.github/workflows/*.{yml,yaml}` answered "No matches found": a glob with `/` is matched from
 * the search folder (rg's rule), where no `.github` is; the workflows one level down never matched,
 * and nothing said so. What the user should see: the answer naming why no file was searched and
 * the glob that matches at any depth; a glob that took files keeps rg's plain answer.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("claude-code#30486: a glob with / from a folder above the repositories matches nothing, silently", () => {
	it("claude-code#30486: `.github/workflows/*.{yml,yaml}` over two repositories says it took no file and offers `**/.github/workflows/*.{yml,yaml}`, which finds the trigger", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		for (const repo of ["api", "web"]) mkdirSync(join(h.tempDir, repo, ".github/workflows"), { recursive: true });
		writeFileSync(join(h.tempDir, "api/.github/workflows/ci.yml"), "on: push\n");
		writeFileSync(join(h.tempDir, "web/.github/workflows/pr.yaml"), "on: pull_request_target\n");
		mkdirSync(join(h.tempDir, "api/web"));
		writeFileSync(join(h.tempDir, "api/web/index.html"), "<html></html>\n");
		script(h, [
			fauxAssistantMessage(
				[
					fauxToolCall(
						"grep",
						{ pattern: "pull_request_target", path: h.tempDir, glob: ".github/workflows/*.{yml,yaml}" },
						{ id: "g1" },
					),
					fauxToolCall("grep", { pattern: "schedule", glob: "web/**" }, { id: "g2" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage(
				[fauxToolCall("grep", { pattern: "pull_request_target", glob: "**/.github/workflows/*.{yml,yaml}" })],
				{
					stopReason: "toolUse",
				},
			),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("which repositories run workflows on pull_request_target?");
		const [first, second, third] = toolResultTexts(h).map((result) => result.text);
		expect(first).toBe(
			`No matches found: no file's path from ${h.tempDir} matches the glob ".github/workflows/*.{yml,yaml}" (a glob with / is matched from that folder). Use glob "**/.github/workflows/*.{yml,yaml}" to match it at any depth (it takes api/.github/workflows/ci.yml, for one)`,
		);
		// web/** took files (none with the text): rg's plain answer, though api/web/ lies deeper.
		expect(second).toBe("No matches found");
		expect(third).toBe("web/.github/workflows/pr.yaml:1: on: pull_request_target");
	});
});
