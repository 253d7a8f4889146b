/**
 * Risk: the page `settle --export` writes shows a whole session — prompts, replies, tool output,
 * which a prompt injection or a hostile provider shapes. Its script builds the page with DOM calls
 * only, and its Content-Security-Policy now allows its own script and its own stylesheet by hash
 * (no `'unsafe-inline'` for styles): markup that got past a rendering bug could neither run nor
 * restyle the page (a `<style>` or a `style` attribute that paints a fake "approved" banner, hides
 * the real content, or moves a button over another). Real `settle` processes write the session and
 * the page; the page is opened from disk in real headless Chromium (Debian's, test/inspect/chromium.ts).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { launchChromium } from "../inspect/chromium.js";
import { computed, openRecording } from "./page-helpers.js";

const cli = useCliProject("settle-sec-export-csp-");

const HOSTILE = `<style>body{background:rgb(1, 2, 3)}</style><b id="bold" style="color:rgb(4, 5, 6)">x</b>`;

let chromium: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
	chromium = await launchChromium();
});
afterAll(async () => {
	await chromium?.close();
});

/** Opens `file` in a new page and waits until its script has built it; errors and console errors are collected. */
async function open(file: string) {
	const opened = await openRecording(chromium.browser, pathToFileURL(file).href);
	await opened.page.waitForSelector("body[data-ready='1']");
	return opened;
}

/** The tree rows' offsets from the top of the tree (the script places each row through its style object). */
const rowTops = (page: Page) =>
	page.$$eval("#tree-rows .node", (rows) => rows.map((row) => (row as unknown as { offsetTop: number }).offsetTop));

/** Two `settle -p` prompts with hostile markup in one session, exported by `settle --export`. */
function exportedPage(): string {
	const sessions = join(cli.dir, "sessions");
	expect(cli.settle(["--faux", "--session-dir", sessions, "-p", `look: ${HOSTILE}`]).code).toBe(0);
	expect(cli.settle(["--faux", "--session-dir", sessions, "--continue", "-p", "and again"]).code).toBe(0);
	const [file] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
	const out = join(cli.dir, "session.html");
	expect(cli.settle(["--export", join(sessions, file!), out]).code).toBe(0);
	return out;
}

describe("settle --export's page under its Content-Security-Policy", () => {
	it("renders and works with styles allowed by hash only: the stylesheet applies, the tree is laid out, nothing is refused", async () => {
		const file = exportedPage();
		const html = readFileSync(file, "utf8");
		const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
		expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]{44}';/);
		expect(csp).not.toContain("unsafe-inline");
		expect(html).not.toMatch(/ style="/); // nothing the page needs is a style attribute
		const { page, errors, consoleErrors } = await open(file);
		try {
			// The page's stylesheet applies (a refused one leaves the browser's defaults).
			expect(await computed(page.locator("body"), "backgroundColor")).toBe("rgb(246, 248, 250)");
			expect(await computed(page.locator(".entry.user").first(), "borderLeftColor")).toBe("rgb(9, 105, 218)");
			// The script's own placement of the tree rows (top, indent, the list's height) is not refused.
			const tops = await rowTops(page);
			expect(tops.length).toBeGreaterThanOrEqual(4);
			expect(tops.slice(0, 4)).toEqual([0, 20, 40, 60]);
			expect(await computed(page.locator("#tree-rows"), "height")).toBe(`${tops.length * 20}px`);
			// The hostile prompt is text; clicking the first row shows the path to it.
			expect(await page.locator("#entries").textContent()).toContain(HOSTILE);
			await page.locator("#tree-rows .node").first().click();
			expect(await page.locator("#entries .entry.target").count()).toBe(1);
			expect(await page.locator("#bold").count()).toBe(0);
			expect({ errors, consoleErrors }).toEqual({ errors: [], consoleErrors: [] });
		} finally {
			await page.close();
		}
	});

	it("a <style> element or style attribute injected past the escaping does not apply; the page still works", async () => {
		const file = exportedPage();
		// As if a rendering bug let session text through as markup.
		const injected = join(cli.dir, "injected.html");
		writeFileSync(
			injected,
			readFileSync(file, "utf8").replace(
				'<div id="entries"></div>',
				`<div id="entries"></div><style>body{background:rgb(1, 2, 3)}</style><p id="styled" style="color:rgb(4, 5, 6)">x</p>`,
			),
		);
		const { page, errors, consoleErrors } = await open(injected);
		try {
			expect(await computed(page.locator("body"), "backgroundColor")).toBe("rgb(246, 248, 250)");
			// (The paragraph is gone once the script fills #entries; a copy outside it stays.)
			await page.evaluate(() => {
				const { document } = globalThis as unknown as {
					document: { body: { insertAdjacentHTML(where: string, html: string): void } };
				};
				document.body.insertAdjacentHTML(
					"beforeend",
					`<p id="late" style="color:rgb(4, 5, 6)">y</p><style>#late{font-size:40px}</style>`,
				);
			});
			expect(await computed(page.locator("#late"), "color")).not.toBe("rgb(4, 5, 6)");
			expect(await computed(page.locator("#late"), "fontSize")).not.toBe("40px");
			// Refused by the policy: the two <style> elements and the style attributes (Chromium reports
			// an attribute once or more), and nothing else.
			expect(consoleErrors.length).toBeGreaterThanOrEqual(4);
			expect(consoleErrors.every((text) => text.startsWith("Applying inline style violates"))).toBe(true);
			expect(await computed(page.locator(".entry.user").first(), "borderLeftColor")).toBe("rgb(9, 105, 218)");
			expect(errors).toEqual([]);
		} finally {
			await page.close();
		}
	});
});
