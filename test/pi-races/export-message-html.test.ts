/**
 * pi#3459: in a session exported to HTML, what the user sent wrapped in `<file name="…">…</file>`
 * (how an attached file reaches the model) showed without its file name, and HTML or CSS in a user
 * or assistant message was rendered instead of shown: pi renders messages as markdown, raw HTML
 * included, and declined to change it. What that user should see: every message exactly as it was
 * sent, tags as text. Settle's page builds its view with `textContent` only, so it holds; checked
 * in real headless Chromium, the page opened from file:// as a user opens it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { useHarnessAndDir } from "../export/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";

const scratch = useHarnessAndDir();

const PROMPT = '<file name="src/app.ts">\nexport const answer = 42;\n</file>\nwhy is <b>answer</b> 42?';
const ANSWER = 'See <code>src/app.ts</code>.<style>#entries { display: none }</style><file name="notes.md">x</file>';

describe("pi#3459: exported sessions render HTML from messages", () => {
	it("pi#3459: a prompt with <file name=…> and tags, and an answer with <style>, show in the exported page as the text that was sent; no element is made of them", async () => {
		const h = await scratch.harness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage(ANSWER)]);
		await h.session.prompt(PROMPT);

		const dir = scratch.tempDir("settle-export-message-html-");
		const page = await h.session.exportToHtml(join(dir, "session.html"));
		await onExportedPage(page, async (tab) => {
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const shown = await tab.locator("#entries").innerText();
			expect(shown).toContain('<file name="src/app.ts">');
			expect(shown).toContain("export const answer = 42;");
			expect(shown).toContain("why is <b>answer</b> 42?");
			expect(shown).toContain("<style>#entries { display: none }</style>");
			expect(shown).toContain('<file name="notes.md">x</file>');
			expect(await tab.locator("#entries file, #entries b, #entries style").count()).toBe(0);
			expect(await tab.locator("#entries").isVisible()).toBe(true);
		});
	}, 60_000);
});
