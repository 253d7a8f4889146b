/** Shared by the Content-Security-Policy page tests: reading computed styles and opening a page that records its errors. */
import type { Browser, Locator } from "playwright-core";

/** The computed value of a CSS property of the element. */
export const computed = (locator: Locator, property: string) =>
	locator.evaluate(
		(element, name) =>
			(globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(element)[
				name
			],
		property,
	);

/** Opens `url` in a new page; the page's errors, console errors and failed requests are collected. */
export async function openRecording(browser: Browser, url: string) {
	const page = await browser.newPage();
	const errors: string[] = [];
	const consoleErrors: string[] = [];
	const failed: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	page.on("console", (message) => {
		if (message.type() === "error") consoleErrors.push(message.text());
	});
	page.on("requestfailed", (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));
	await page.goto(url);
	return { page, errors, consoleErrors, failed };
}
