import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { recordExampleTrace } from "../../src/inspect/example-traces.js";
import { formatLifecycleEvent, parseTrace, shownInTraceViews } from "../../src/inspect/trace.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { openChromium } from "./chromium.js";
import { loadLivePage, PLAYWRIGHT_DEFAULT_VIEWPORT } from "./live-browser.js";

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

/** The page in real headless Chromium (Debian's, installed by .ci/run). */
async function open(html: string) {
	const site = await serve(html);
	const { browser, close: closeBrowser } = await openChromium();
	// Console errors count as well as uncaught ones (`problems`): a healthy page has neither.
	const { page, problems: errors } = await loadLivePage(browser, site.url, {
		live: false,
		viewport: PLAYWRIGHT_DEFAULT_VIEWPORT,
	});
	const marked = (cls: string) =>
		page.$$eval(`g[data-state].${cls}`, (groups) => groups.map((g) => g.getAttribute("data-state")));
	return {
		page,
		errors,
		current: () => marked("current"),
		visited: () => marked("visited"),
		selected: () => page.$$eval("li[data-i]", (items) => items.findIndex((li) => li.classList.contains("selected"))),
		close: async () => {
			await closeBrowser();
			await site.close();
		},
	};
}

describe("renderTraceHtml", () => {
	it("lists every event and highlights the current and visited states as you step through", async () => {
		const trace = await recordExampleTrace();
		const html = renderTraceHtml(trace, promptOperationMachine);
		expect(html.startsWith("<!doctype html>")).toBe(true);
		expect(html).not.toMatch(/<script src|<link /);
		const origin = trace.events[0]?.at ?? 0;
		// Listed: every event but the QUEUE_CHANGED each queue_changed echoes (one line per queue change).
		const shown = trace.events.filter(shownInTraceViews);
		expect(shown.length).toBeLessThan(trace.events.length);
		for (const event of shown) {
			const line = formatLifecycleEvent(event, origin)
				.replace(/&/g, "&amp;")
				.replace(/</g, "&lt;")
				.replace(/>/g, "&gt;")
				.replace(/"/g, "&quot;");
			expect(html).toContain(line);
		}

		const view = await open(html);
		try {
			expect(await view.page.locator("li[data-i]").count()).toBe(shown.length);
			// Initially the last event is selected: the request has settled.
			expect(await view.selected()).toBe(shown.length - 1);
			expect(await view.current()).toEqual(["promptOperation.idle"]);
			expect(await view.visited()).toEqual(
				expect.arrayContaining([
					"promptOperation.retrying",
					"promptOperation.compacting",
					"promptOperation.compacting.working",
				]),
			);
			expect(await view.visited()).not.toContain("promptOperation.branchSummary");
			// The diagram is drawn: the retrying state has a visible box.
			const box = await view.page.locator('g[data-state="promptOperation.retrying"] rect').first().boundingBox();
			expect(box?.width ?? 0).toBeGreaterThan(0);

			const retrying = shown.findIndex((e) => e.kind === "state" && e.to === "retrying");
			await view.page.locator(`li[data-i="${retrying}"]`).click();
			expect(await view.current()).toEqual(["promptOperation.retrying"]);
			expect(await view.visited()).not.toContain("promptOperation.compacting");
			await view.page.keyboard.press("ArrowDown");
			expect(await view.selected()).toBe(retrying + 1);
			expect(await view.current()).toEqual(["promptOperation.retrying"]);
			// The compaction's summary retry is listed in words, inside compacting, with its backoff.
			const retried = view.page.locator("li.kind-emitted", { hasText: "summarization_retry_scheduled" });
			expect(await retried.textContent()).toBe(
				"+2000ms  emit    summarization_retry_scheduled attempt 1/3, delay 2000ms: 529 overloaded_error: Overloaded",
			);
			await retried.click();
			expect(await view.current()).toEqual(["promptOperation.compacting", "promptOperation.compacting.working"]);
			await view.page.keyboard.press("ArrowDown");
			await view.page.keyboard.press("ArrowDown");
			expect(await view.page.locator("li.selected").textContent()).toBe(
				"+4000ms  emit    summarization_retry_attempt_start compaction (overflow)",
			);
			expect(await view.current()).toEqual(["promptOperation.compacting", "promptOperation.compacting.working"]);
			// The steer typed during the retry backoff is listed in words, inside retrying; its delivery
			// inside the retried run.
			const queued = view.page.locator("li.kind-emitted", { hasText: "queue_changed" });
			expect(await queued.allTextContents()).toEqual([
				'+0ms     emit    queue_changed queue: 1 steering, 0 follow-up (steer "Use the staging endpoint")',
				'+2000ms  emit    queue_changed queue: 0 steering, 0 follow-up (delivered steer "Use the staging endpoint")',
			]);
			await queued.first().click();
			expect(await view.current()).toEqual(["promptOperation.retrying"]);
			await queued.last().click();
			expect(await view.current()).toEqual(["promptOperation.running", "promptOperation.running.working"]);
			await view.page.locator('li[data-i="0"]').click();
			await view.page.keyboard.press("ArrowUp");
			expect(await view.selected()).toBe(0);
			expect(view.errors).toEqual([]);
		} finally {
			await view.close();
		}
	});

	it("starts the visited states over where a trace goes on with a new session's actor", async () => {
		const trace = await recordExampleTrace();
		expect(trace.events[0]).toMatchObject({ kind: "state", from: null, to: "idle", trigger: "inspect" });
		const twoSessions = { ...trace, events: [...trace.events, ...trace.events] };
		const view = await open(renderTraceHtml(twoSessions, promptOperationMachine));
		const listed = trace.events.filter(shownInTraceViews).length;
		try {
			await view.page.locator(`li[data-i="${listed - 1}"]`).click();
			expect(await view.visited()).toContain("promptOperation.retrying");
			await view.page.keyboard.press("ArrowDown");
			expect(await view.current()).toEqual(["promptOperation.idle"]);
			expect(await view.visited()).toEqual(["promptOperation.idle"]);
			await view.page.locator(`li[data-i="${2 * listed - 1}"]`).click();
			expect(await view.visited()).toContain("promptOperation.retrying");
			expect(view.errors).toEqual([]);
		} finally {
			await view.close();
		}
	});

	it("an old-format trace (two sessions, saved before traces held the runtime machine) steps as before", async () => {
		const old = parseTrace(
			JSON.parse(readFileSync(new URL("../fixtures/traces/v1-rpc-new-session.trace.json", import.meta.url), "utf8")),
		);
		expect(old.machines).toBeUndefined();
		const second = (old as unknown as { sessions: { firstEvent: number }[] }).sessions[1]!.firstEvent;
		const view = await open(renderTraceHtml(old));
		try {
			expect(await view.page.locator("nav.machines").count()).toBe(0);
			expect(await view.selected()).toBe(old.events.length - 1);
			expect(await view.current()).toEqual(["promptOperation.idle"]);
			// The first session's end, then ↓ into the second one: visited starts over.
			await view.page.locator(`li[data-i="${second - 1}"]`).click();
			expect(await view.visited()).toContain("promptOperation.preflight");
			await view.page.keyboard.press("ArrowDown");
			expect(await view.selected()).toBe(second);
			expect(await view.visited()).toEqual(["promptOperation.idle"]);
			await view.page.keyboard.press("ArrowUp");
			expect(await view.selected()).toBe(second - 1);
			// Saved before transitions were recorded: no edge is marked taken, the lines read as they did,
			// and the filter and the selected event's details work all the same.
			expect(await view.page.locator("g.link.taken, text.edge-label.taken").count()).toBe(0);
			expect(await view.page.locator("li.kind-state", { hasText: "settling → idle" }).first().textContent()).toMatch(
				/settling → idle \(SETTLE_DONE\)$/,
			);
			await view.page.locator("#filter").fill("→ idle");
			expect(await view.page.locator("#filtered li").count()).toBeGreaterThan(1);
			await view.page.locator("#filtered li").first().click();
			expect(JSON.parse((await view.page.locator("#detail").textContent()) ?? "")).toMatchObject({ kind: "state" });
			expect(view.errors).toEqual([]);
		} finally {
			await view.close();
		}
	});

	it("keeps event text from breaking out of the script or the markup", () => {
		const html = renderTraceHtml(
			{
				format: "settle.lifecycle-trace",
				version: 1,
				dropped: 2,
				events: [{ seq: 1, at: 0, machine: "promptOperation", kind: "event", type: "</script><b>x</b>" }],
			},
			promptOperationMachine,
			{ title: "<t>" },
		);
		// The data block's and the script's own ends only.
		expect(html.match(/<\/script>/g)).toHaveLength(2);
		expect(html).toContain("&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;");
		expect(html).toContain("<title>&lt;t&gt;</title>");
		expect(html).toContain("2 earlier events dropped");
	});
});
