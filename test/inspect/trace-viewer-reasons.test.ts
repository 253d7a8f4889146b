/**
 * The viewers show the reason of each step without scrolling sideways, and how long each state
 * lasted (real headless Chromium). Regression: the event list kept every line on one line
 * (`white-space: pre`), so in a window of ordinary width the end of `postRun → retrying (always (2)
 * [canRetry]) attempt 2/3, delay 4000ms` — the attempt and the delay — and `reason threshold` were
 * cut off behind a horizontal scrollbar, in the offline viewer and the live page alike; and how
 * long the machine waited in `retrying` had to be worked out from two time stamps.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { recordRuntimeExampleTrace } from "../../src/inspect/example-traces.js";
import type { LifecycleTrace } from "../../src/inspect/trace.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { openChromium } from "./chromium.js";
import { loadLivePage, openLivePage } from "./live-browser.js";

const failure = (message: string) => fauxAssistantMessage("", { stopReason: "error", errorMessage: message });
/** A laptop-sized window: the event list gets about 400 px. */
const VIEWPORT = { width: 1000, height: 700 };

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Serves one HTML page on localhost for the browser. */
async function serve(html: string): Promise<{ url: string; close(): Promise<void> }> {
	const server = createServer((_request, response) => {
		response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
		response.end(html);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** Opens a trace in the offline viewer; `check` gets the page. No page errors allowed. */
async function inViewer(trace: LifecycleTrace, check: (page: Page) => Promise<void>): Promise<void> {
	const site = await serve(renderTraceHtml(trace));
	const chromium = await openChromium();
	try {
		const { page, problems } = await loadLivePage(chromium.browser, site.url, { live: false, viewport: VIEWPORT });
		await check(page);
		expect(problems).toEqual([]);
	} finally {
		await chromium.close();
		await site.close();
	}
}

/**
 * Where `text` lies relative to the visible box of the list holding it: `clipped` when it ends right
 * of the list's visible width (hidden behind a horizontal scrollbar) or starts left of the list.
 */
async function placement(page: Page, text: string): Promise<{ found: boolean; clipped: boolean; overflows: boolean }> {
	return page.evaluate(`(${PLACEMENT})(${JSON.stringify(text)})`) as Promise<{
		found: boolean;
		clipped: boolean;
		overflows: boolean;
	}>;
}

/** Each of `lines` is on the page whole: found, not clipped by the list, no horizontal overflow. */
async function expectShownWhole(page: Page, lines: readonly string[]): Promise<void> {
	for (const line of lines) {
		expect({ line, ...(await placement(page, line)) }).toEqual({
			line,
			found: true,
			clipped: false,
			overflows: false,
		});
	}
}

/** {@link placement}'s page side (plain JavaScript: this project is typed without the DOM). */
const PLACEMENT = `(wanted) => {
	const item = [...document.querySelectorAll(".events li")].find((li) => li.textContent.includes(wanted));
	if (!item) return { found: false, clipped: false, overflows: false };
	const list = item.closest(".events");
	const walker = document.createTreeWalker(item, NodeFilter.SHOW_TEXT);
	const range = document.createRange();
	for (let node = walker.nextNode(); node; node = walker.nextNode()) {
		const at = node.textContent.indexOf(wanted);
		if (at < 0) continue;
		range.setStart(node, at);
		range.setEnd(node, at + wanted.length);
		break;
	}
	const box = list.getBoundingClientRect();
	const { left, right } = range.getBoundingClientRect();
	const clipped = left < box.left || right > box.left + list.clientWidth;
	return { found: true, clipped, overflows: list.scrollWidth > list.clientWidth };
}`;

/** Where the text of `line`'s machine tag starts, and where the tag's box starts (page side). */
const TAG_PLACEMENT = `(line) => {
	const item = [...document.querySelectorAll(".events li")].find((li) => li.textContent.includes(line));
	const tag = item.querySelector(".tag");
	const range = document.createRange();
	range.selectNodeContents(tag);
	return { tagLeft: Math.round(range.getBoundingClientRect().left), boxLeft: Math.round(tag.getBoundingClientRect().left) };
}`;

describe("the trace viewers show each step's reason and how long each state lasted", () => {
	it("two retries then an answer: attempt n/max and the delay are visible, and retrying lasted each backoff", async () => {
		h = await createHarness({ simulatedClock: true });
		h.setResponses([failure("503 Service Unavailable"), failure("529 overloaded"), fauxAssistantMessage("ok")]);
		const trace = h.session.trace();
		await h.settle(h.session.prompt("hello"));
		trace.stop();
		await inViewer(trace.toJSON(), async (page) => {
			await expectShownWhole(page, [
				"attempt 1/3, delay 2000ms",
				"attempt 2/3, delay 4000ms",
				"auto_retry_end succeeded on attempt 2",
			]);
			const retrying = page.locator(".events li.kind-state", { hasText: "postRun → retrying" });
			expect(await retrying.count()).toBe(2);
			expect(await retrying.nth(0).locator(".lasted").textContent()).toBe(" · lasted 2000ms");
			expect(await retrying.nth(1).locator(".lasted").textContent()).toBe(" · lasted 4000ms");
			// The trace's last state (idle, settled) has no end yet: no duration.
			const last = page.locator(".events li.kind-state").last();
			expect(await last.textContent()).toContain("settling → idle");
			expect(await last.locator(".lasted").count()).toBe(0);
		});
	});

	it("an abort during the backoff: the cancelled timer, the abort's transition and the cancelled retry are listed whole", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 5000 } } });
		h.setResponses([failure("503 Service Unavailable"), fauxAssistantMessage("never sent")]);
		const trace = h.session.trace();
		const done = h.session.prompt("hello");
		await h.nextEvent("auto_retry_start");
		h.clock!.increment(1500);
		await h.session.abort();
		await h.settle(done);
		trace.stop();
		await inViewer(trace.toJSON(), async (page) => {
			await expectShownWhole(page, [
				"retryDelay cancelled in retrying",
				"retrying → settling (ABORT) abort requested",
				"auto_retry_end failed on attempt 1: Retry cancelled",
			]);
			// The backoff of 5000 ms was cut short after 1500 ms.
			const retrying = page.locator(".events li.kind-state", { hasText: "postRun → retrying" });
			expect(await retrying.locator(".lasted").textContent()).toBe(" · lasted 1500ms");
		});
	});

	it("a trace of several machines: each line's machine tag stays in its column, the reason in view", async () => {
		await inViewer(await recordRuntimeExampleTrace(), async (page) => {
			const tag = (await page.evaluate(`(${TAG_PLACEMENT})("opening → creating")`)) as {
				tagLeft: number;
				boxLeft: number;
			};
			// The hanging indent of wrapped lines must not pull the tag's text out of its box (it did: invisible).
			expect(tag.tagLeft).toBeGreaterThanOrEqual(tag.boxLeft);
			await expectShownWhole(page, ["opening → creating (done(openTarget)) switch s4"]);
		});
	});

	it("the live page: a state's line says how long it lasted once the next state comes", async () => {
		const live = await openLivePage({
			browser: (await openChromium()).browser,
			harness: { simulatedClock: true },
			responses: [failure("503 Service Unavailable"), failure("529 overloaded"), fauxAssistantMessage("ok")],
			viewport: VIEWPORT,
		});
		try {
			await live.h.settle(live.h.session.prompt("hello"));
			await live.page.locator(".events li", { hasText: "settling → idle" }).waitFor();
			const retrying = live.page.locator(".events li.kind-state", { hasText: "postRun → retrying" });
			expect(await retrying.locator(".lasted").allTextContents()).toEqual([" · lasted 2000ms", " · lasted 4000ms"]);
			// The newest state (idle) has not ended.
			expect(await live.page.locator(".events li.kind-state").last().locator(".lasted").count()).toBe(0);
			for (const reason of ["attempt 2/3, delay 4000ms", "lasted 4000ms"]) {
				expect({ reason, ...(await placement(live.page, reason)) }).toEqual({
					reason,
					found: true,
					clipped: false,
					overflows: false,
				});
			}
			expect(live.problems).toEqual([]);
		} finally {
			await live.close();
		}
	});

	it("a threshold compaction in the live page: the reason and the threshold's numbers are visible", async () => {
		const live = await openLivePage({
			browser: (await openChromium()).browser,
			harness: {
				simulatedClock: true,
				faux: { models: [{ id: "small", contextWindow: 8000 }] },
				settings: { compaction: { reserveTokens: 4000, keepRecentTokens: 1 } },
			},
			responses: [
				fauxAssistantMessage("one"),
				fauxAssistantMessage("y".repeat(12_000)),
				fauxAssistantMessage("## Goal\nsummary"),
				fauxAssistantMessage("## Turn prefix"),
			],
			viewport: VIEWPORT,
		});
		try {
			await live.h.settle(live.h.session.prompt("a"));
			await live.h.settle(live.h.session.prompt("b"));
			await live.page.locator(".events li", { hasText: "settling → idle" }).nth(1).waitFor();
			for (const text of ["[overThreshold]) reason threshold", "over threshold (", "> 4000 tokens)"]) {
				expect({ text, ...(await placement(live.page, text)) }).toEqual({
					text,
					found: true,
					clipped: false,
					overflows: false,
				});
			}
			expect(live.problems).toEqual([]);
		} finally {
			await live.close();
		}
	});
});
