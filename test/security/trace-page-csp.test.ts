/**
 * Risk: the page `settle trace` writes shows a trace's events — prompts, errors, payloads, which a
 * prompt injection or a hostile provider shapes — and runs a script. A field that got into the page
 * as markup would run with the page (and read every event of it). The page escapes every field, and
 * since it now carries a Content-Security-Policy (its own script and stylesheets by hash, nothing
 * loads), markup that got past the escaping still cannot run, load or restyle. Real `settle`
 * processes, the page opened from disk in real headless Chromium (Debian's, test/inspect/chromium.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { launchChromium } from "../inspect/chromium.js";
import { computed, openRecording } from "./page-helpers.js";

const cli = useCliProject("settle-sec-trace-csp-");

const HOSTILE = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2"></pre><b id="bold">x</b>`;

let chromium: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
	chromium = await launchChromium();
});
afterAll(async () => {
	await chromium?.close();
});

/** Opens `file` in a new page; the page's errors, console errors and failed requests are collected. */
const open = (file: string) => openRecording(chromium.browser, pathToFileURL(file).href);

const pwned = (page: Page) => page.evaluate(() => (globalThis as { pwned?: unknown }).pwned);
const marked = (page: Page, cls: string) =>
	page.$$eval(`g[data-state].${cls}`, (groups) => groups.map((g) => g.getAttribute("data-state")));

/** A `settle --trace` run whose prompt and the model's error are hostile markup, rendered by `settle trace`. */
function hostileTracePage(): string {
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([{ stopReason: "error", errorMessage: `upstream: ${HOSTILE}` }]));
	const traceFile = join(cli.dir, "run.json");
	const run = cli.settle(["--faux-script", script, "--no-session", "--trace", traceFile, "-p", `look: ${HOSTILE}`]);
	expect(run.code).toBe(1); // the scripted error ends the run
	expect(readFileSync(traceFile, "utf8")).toContain("window.pwned=1");
	const rendered = cli.settle(["trace", traceFile]);
	expect(rendered.code).toBe(0);
	return rendered.stdout.trim();
}

describe("settle trace's page under its Content-Security-Policy", () => {
	it("renders and works: styles apply, events select states, hostile fields stay text, nothing is refused", async () => {
		const file = hostileTracePage();
		const html = readFileSync(file, "utf8");
		expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
		expect(html).not.toMatch(/ on[a-z]+="/); // no inline handlers to allow
		const { page, errors, consoleErrors, failed } = await open(file);
		try {
			// The script ran: the last event is selected and its state marked.
			expect(await marked(page, "current")).toEqual(["promptOperation.idle"]);
			// Both stylesheets apply: the page's (the marked state) and the diagram's (every state box).
			const stroke = await computed(page.locator('g[data-state="promptOperation.idle"] > rect').first(), "stroke");
			expect(stroke).toBe("rgb(213, 63, 140)");
			// (The diagram's heading would be black without the diagram's stylesheet.)
			expect(await computed(page.locator("svg text.heading").first(), "fill")).toBe("rgb(26, 32, 44)");
			// Clicking an earlier event moves the marks; the hostile prompt is shown as text in the detail pane.
			const lines = await page.$$eval("li[data-i]", (items) => items.map((li) => li.textContent ?? ""));
			const leftIdle = lines.findIndex((line) => line.includes("idle → "));
			expect(leftIdle).toBeGreaterThanOrEqual(0);
			await page.locator(`li[data-i="${leftIdle}"]`).click();
			expect(await marked(page, "current")).not.toContain("promptOperation.idle");
			const prompt = lines.findIndex((line) => line.includes("PROMPT"));
			await page.locator(`li[data-i="${prompt}"]`).click();
			expect(await page.locator("#detail").textContent()).toContain("window.pwned=1");
			expect(await page.locator("#bold").count()).toBe(0);
			expect(await pwned(page)).toBeUndefined();
			expect({ errors, consoleErrors, failed }).toEqual({ errors: [], consoleErrors: [], failed: [] });
		} finally {
			await page.close();
		}
	});

	it("markup injected into the page past the escaping does not run, load or restyle; the page's own script still runs", async () => {
		const file = hostileTracePage();
		// As if a rendering bug let a field through as markup.
		const injected = join(cli.dir, "injected.html");
		writeFileSync(
			injected,
			readFileSync(file, "utf8").replace(
				"</main>",
				`</main><script>window.pwned=7</script><img src="x" onerror="window.pwned=8"><img src="https://example.invalid/p.png"><style>body{background:rgb(1, 2, 3)}</style><button id="b" onclick="window.pwned=9">b</button>`,
			),
		);
		const { page, errors, consoleErrors, failed } = await open(injected);
		try {
			await page.locator("#b").click();
			expect(await pwned(page)).toBeUndefined();
			expect(await computed(page.locator("body"), "backgroundColor")).not.toBe("rgb(1, 2, 3)");
			// The remote image was refused by the policy, not fetched (no DNS lookup for .invalid either).
			expect(failed.filter((line) => line.startsWith("http"))).toEqual(["https://example.invalid/p.png csp"]);
			// Refused by the policy: the inline script, the handlers and the style; the page's own script ran.
			expect(consoleErrors.filter((text) => text.includes("Content Security Policy")).length).toBeGreaterThanOrEqual(4);
			expect(await marked(page, "current")).toEqual(["promptOperation.idle"]);
			expect(errors).toEqual([]);
		} finally {
			await page.close();
		}
	});
});
