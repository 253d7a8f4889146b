/**
 * pi#3531: a markdown link with a `javascript:` URL — `[click here](javascript:alert(document.cookie))`
 * in a prompt, an answer, a branch summary or an extension's message — became a live
 * `<a href="javascript:…">` in the page `/export` and `/share` wrote (marked renders links as is):
 * clicking it ran script in the reader's browser. DiscordChatExporter#1567 is the same bug in a chat
 * exporter (a masked link's `javascript:` scheme kept in the `href` after HTML-encoding). What a
 * reader should see: the link as the text that was written, nothing to click that runs. Settle's
 * page builds its view with `textContent` only and makes no link of session text, so it holds;
 * checked in real headless Chromium, the page opened from file:// and each link's text clicked.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { useHarnessAndDir, userEntry } from "../export/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";

const scratch = useHarnessAndDir();

const PROMPT =
	"see [click here](javascript:window.pwned='prompt') and <a href=\"javascript:window.pwned='tag'\">tag</a>";
const ANSWER = "[DCE validation marker](javascript:document.title='DCE-XSS-PROOF') or <javascript:window.pwned='auto'>";
const SUMMARY = "left behind: [summary link](javascript:window.pwned='summary')";
const NOTE = "recalled: [note link](javascript:window.pwned='note')";

describe("pi#3531, DiscordChatExporter#1567: javascript: links in an exported session", () => {
	it("pi#3531: markdown links with javascript: URLs in a prompt, an answer, a branch summary and an extension's message show as text in the exported page; clicking them runs nothing", async () => {
		const h = await scratch.harness({ persistence: "disk" });
		const answers = [fauxAssistantMessage(ANSWER), fauxAssistantMessage("later"), fauxAssistantMessage("current")];
		h.setResponses(
			Array.from(
				{ length: 4 },
				() => (context: Context) =>
					/summar/i.test(context.systemPrompt ?? "") ? fauxAssistantMessage(SUMMARY) : answers.shift()!,
			),
		);
		await h.session.prompt(PROMPT);
		await h.session.prompt("later question");
		// Back to the first answer, summarizing the branch left: the summary holds a link too.
		await h.session.navigateTree(userEntry(h, "later question").parentId!, { summarize: true });
		await h.session.sendCustomMessage({ customType: "wiki", content: NOTE, display: true });
		await h.session.prompt("current question");

		const dir = scratch.tempDir("settle-export-links-");
		const page = await h.session.exportToHtml(join(dir, "session.html"));
		await onExportedPage(page, async (tab) => {
			const title = await tab.title();
			const entries = tab.locator("#entries");
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const shown = await entries.innerText();
			for (const text of [PROMPT, ANSWER, SUMMARY, NOTE]) expect(shown).toContain(text);
			expect(await tab.locator("#entries a, #entries [href], #entries [onclick]").count()).toBe(0);
			for (const words of ["click here", "tag", "DCE validation marker", "summary link", "note link"]) {
				await entries.getByText(words).first().click();
			}
			expect(await tab.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
			expect(await tab.title()).toBe(title);
		});
	}, 60_000);
});
