/**
 * pi#8896: `/export` to HTML dropped every custom message with `display: false`, though such a
 * message is part of what the model was sent (pi-llm-wiki injects its recalled pages that way from
 * `before_agent_start` each turn). The exported record looked complete and was not: nobody could
 * check what the agent had read. What that user should see: the page shows the hidden message where
 * it was in the conversation, marked as not shown to the user. Checked in real headless Chromium,
 * the page opened from file:// as a user opens it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { useHarnessAndDir } from "../export/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { userTexts } from "./helpers.js";

const scratch = useHarnessAndDir();

describe("pi#8896: /export HTML drops the display:false context the model was sent", () => {
	it("pi#8896: a display:false message an extension adds before each prompt is in the exported page, marked as not shown to the user, between the prompt and the answer", async () => {
		const h = await scratch.harness({
			persistence: "disk",
			extensionFactories: [
				(pi) => {
					pi.on("before_agent_start", () => ({
						message: { customType: "wiki-recall-context", content: "RECALLED-WIKI-PAGES", display: false },
					}));
				},
			],
		});
		h.setResponses([fauxAssistantMessage("The recalled pages are not relevant here.")]);
		await h.session.prompt("what do the wiki pages say?");
		// The model was sent it.
		expect(userTexts(h.faux.requests[0]!)).toContain("RECALLED-WIKI-PAGES");

		const dir = scratch.tempDir("settle-export-hidden-");
		const page = await h.session.exportToHtml(join(dir, "session.html"));
		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		const shown = await onExportedPage(page, (tab) => tab.locator("#entries").innerText());
		expect(shown).toContain("RECALLED-WIKI-PAGES");
		expect(shown).toContain("wiki-recall-context · not shown to the user");
		const at = (text: string) => shown.indexOf(text);
		expect(at("what do the wiki pages say?")).toBeLessThan(at("RECALLED-WIKI-PAGES"));
		expect(at("RECALLED-WIKI-PAGES")).toBeLessThan(at("The recalled pages are not relevant here."));
	}, 60_000);
});
