/**
 * Reports about the token numbers beside an exported answer, replayed on a real session file
 * written against a local Anthropic Messages endpoint (test/llm/wire/server.ts), exported with
 * `exportSessionToHtml` and opened in real headless Chromium as a user opens it.
 *
 * Metabuilder-Labs/tokenjam#17, aovestdipaperino/tokensave#472: a call's cost was shown beside its
 * input, output and cache-read tokens but not its cache-write tokens (~91% of the cost of
 * cache-heavy Anthropic traffic), so the cost could not be derived from the numbers shown with it.
 * What the user should see: each answer's line names every priced token kind, cache writes
 * included, so its tokens account for its cost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { exportSessionToHtml } from "../../src/export/index.js";
import { launchChromium } from "../inspect/chromium.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

describe("tokenjam#17, tokensave#472: an exported answer's tokens account for its cost", () => {
	it("tokenjam#17: an answer of 2 input, 319 output and 66,396 cache-write tokens: its line in the exported page shows the cache writes beside its cost", async () => {
		const w = await wireSession({ api: "anthropic-messages" });
		w.server.reply(
			anthropicReply([{ type: "text", text: "cached answer" }], {
				usage: { input: 2, output: 319, cacheWrite: 66_396, cacheRead: 0 },
			}),
		);
		await w.session.prompt("the question");
		const dir = mkdtempSync(join(tmpdir(), "settle-usage-export-"));
		const chromium = await launchChromium();
		try {
			const file = join(dir, "session.html");
			await exportSessionToHtml(w.session.sessionFile!, { outputPath: file });
			const page = await chromium.browser.newPage();
			await page.goto(pathToFileURL(file).href);
			await page.waitForSelector("body[data-ready='1']");
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const line = await page.locator("#entries .role", { hasText: "Assistant" }).first().innerText();
			// Dollars per million tokens (wireModel): input 3, output 15, cache write 3.75.
			const cost = (2 * 3 + 319 * 15 + 66_396 * 3.75) / 1e6;
			expect(line).toContain(`2 in, 319 out, 66,396 cache write, $${cost.toFixed(4)}`);
		} finally {
			await chromium.close();
			rmSync(dir, { recursive: true, force: true });
		}
	}, 60_000);
});
