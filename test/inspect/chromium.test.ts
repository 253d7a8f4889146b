/**
 * The worker's shared Chromium (chromium.ts): a handle's `close()` closes only the pages opened
 * through it — a test that timed out and closes late must not close the next test's pages — and a
 * browser that went away is replaced on the next open.
 */
import { describe, expect, it } from "vitest";
import { openChromium } from "./chromium.js";

describe("openChromium", () => {
	it("closes only the handle's own pages; another handle's page on the same browser stays open", async () => {
		const late = await openChromium();
		const current = await openChromium();
		try {
			const latePage = await late.browser.newPage();
			const currentPage = await current.browser.newContext().then((context) => context.newPage());
			await currentPage.setContent("<p>still here</p>");
			await late.close();
			expect(latePage.isClosed()).toBe(true);
			expect(currentPage.isClosed()).toBe(false);
			expect(await currentPage.textContent("p")).toBe("still here");
		} finally {
			await current.close();
		}
	});

	it("a browser that went away is replaced by a new one on the next open", async () => {
		const first = await openChromium();
		await first.browser.close();
		const second = await openChromium();
		try {
			expect(second.browser.isConnected()).toBe(true);
			const page = await second.browser.newPage();
			await page.setContent("<p>new browser</p>");
			expect(await page.textContent("p")).toBe("new browser");
		} finally {
			await second.close();
		}
	});
});
