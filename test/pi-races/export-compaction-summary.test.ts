/**
 * claude-code#26212: after a conversation was compacted, `/export` left the compaction summary out,
 * though the transcript file held it: the only way to read what the model carried on with was `jq`
 * over the raw JSONL. What the user should see: the exported page shows the compaction where it
 * happened, with its summary readable, and the conversation before it still there. Settle's page
 * shows a compaction entry with its token count and the summary (folded; one click opens it), so it
 * holds — checked in real headless Chromium, the page opened from file:// as a user opens it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { useHarnessAndDir } from "../export/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";

const scratch = useHarnessAndDir();

const SUMMARY = "## Goal\nShip the parser.\n## Done\nTOKENIZER-REWRITTEN-SUMMARY";

describe("claude-code#26212: the compaction summary in an exported session", () => {
	it("claude-code#26212: a session compacted with /compact, exported: the page shows the compaction with its summary (one click opens it) and the turns before it", async () => {
		const h = await scratch.harness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		const answers = [fauxAssistantMessage("tokenizer rewritten"), fauxAssistantMessage("parser next")];
		h.setResponses(
			Array.from(
				{ length: 4 },
				() => (context: Context) =>
					/summar/i.test(context.systemPrompt ?? "") ? fauxAssistantMessage(SUMMARY) : answers.shift()!,
			),
		);
		await h.session.prompt("rewrite the tokenizer");
		await h.session.compact();
		await h.session.prompt("now the parser");
		expect(h.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(true);

		const dir = scratch.tempDir("settle-export-compaction-");
		const page = await h.session.exportToHtml(join(dir, "session.html"));
		await onExportedPage(page, async (tab) => {
			const entries = tab.locator("#entries");
			const compaction = entries.locator(".summary").filter({ hasText: "Compaction" });
			await expect(compaction.count()).resolves.toBe(1);
			await compaction.locator("summary").click();
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const shown = await entries.innerText();
			expect(shown).toContain("TOKENIZER-REWRITTEN-SUMMARY");
			expect(shown).toMatch(/tokens before/);
			for (const text of ["rewrite the tokenizer", "tokenizer rewritten", "now the parser", "parser next"]) {
				expect(shown).toContain(text);
			}
			const order = ["rewrite the tokenizer", "TOKENIZER-REWRITTEN-SUMMARY", "now the parser"].map((t) =>
				shown.indexOf(t),
			);
			expect(order).toEqual([...order].sort((a, b) => a - b));
		});
	}, 60_000);
});
