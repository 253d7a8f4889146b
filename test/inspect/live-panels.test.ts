/**
 * The live inspector page's debugging panels in real headless Chromium, on a real session (faux
 * provider, simulated clock): the "Queued messages" panel follows a follow-up typed during a retry
 * backoff from pending to delivered as it happens, and clicking an event shows it whole.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type InspectorServer, serveInspector } from "../../src/inspect/live-server.js";
import { type QueuedMessage, queueHistory, queueHistoryInput } from "../../src/inspect/queue-history.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { openChromium } from "./chromium.js";
import { type LivePage, openLivePage } from "./live-browser.js";

let h: Harness | undefined;
let inspector: InspectorServer | undefined;
let live: LivePage | undefined;
afterEach(async () => {
	await live?.close();
	await inspector?.close();
	h?.cleanup();
	live = undefined;
	inspector = undefined;
	h = undefined;
});

/** A session whose first request fails with a 529, retried after 250 ms on a simulated clock. */
const RETRYING = { simulatedClock: true, settings: { retry: { baseDelayMs: 250, maxRetries: 2 } } } as const;
const OVERLOADED = fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded" });

/** Reads an SSE body up to the last kept event's `operation_settled` (the window is replayed at once). */
async function readUntilSettled(body: ReadableStream<Uint8Array>): Promise<string> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	let text = "";
	while (!text.includes("operation_settled")) {
		const { value, done } = await reader.read();
		if (done) break;
		text += decoder.decode(value, { stream: true });
	}
	await reader.cancel();
	return text;
}

describe("the live inspector page's panels", () => {
	it("a follow-up queued during a retry backoff shows pending, then delivered in the run that delivers it; a click shows an event whole", async () => {
		live = await openLivePage({
			browser: (await openChromium()).browser,
			harness: RETRYING,
			responses: [
				OVERLOADED,
				fauxAssistantMessage("answer after the retry"),
				fauxAssistantMessage("the follow-up's answer"),
			],
		});
		const { h, page, problems } = live;
		// The panel and the detail pane are there; nothing queued yet: the panel is hidden.
		expect(await page.locator("#queue").count()).toBe(1);
		expect(await page.locator("#detail").count()).toBe(1);
		expect(await page.locator("#queue").isVisible()).toBe(false);

		const long = `fix the flaky test ${"and explain why ".repeat(20)}— the end`;
		const done = h.session.prompt(long);
		const { delayMs } = await h.nextEvent("auto_retry_start");
		await h.session.followUp("then write the changelog");

		// Queued in the backoff: pending, while the session waits on the simulated clock.
		const summary = page.locator("#queue summary");
		await summary.filter({ hasText: "1 pending" }).waitFor();
		expect(await summary.textContent()).toBe("Queued messages: 1 (0 delivered, 1 pending)");
		expect(await page.locator("#queue li").allTextContents()).toEqual([
			'follow-up "then write the changelog" queued +0ms in retrying → pending: still queued',
		]);
		expect(await page.locator("#queue li.fate-pending").count()).toBe(1);

		// The backoff ends: the follow-up is delivered, and the panel says in which run.
		h.clock!.increment(delayMs);
		await h.settle(done);
		await summary.filter({ hasText: "1 delivered" }).waitFor();
		expect(await summary.textContent()).toBe("Queued messages: 1 (1 delivered)");
		const row = page.locator("#queue li");
		// Run 2, the retry: the run after the backoff takes the follow-up (the simulated clock: +0ms, +250ms).
		expect(await row.textContent()).toBe(
			'follow-up "then write the changelog" queued +0ms in retrying → delivered +250ms in run 2 (retry)',
		);
		expect(await page.locator("#queue li.fate-delivered").count()).toBe(1);
		// Each queue change is listed once: the emitted queue_changed, not also the QUEUE_CHANGED it echoes.
		// (hasText with a string ignores case: regular expressions tell the two apart.)
		expect(await page.locator("#events li", { hasText: /QUEUE_CHANGED/ }).count()).toBe(0);
		expect(await page.locator("#events li", { hasText: /queue_changed/ }).count()).toBe(2);
		// A click on "delivered" selects the event that delivered it, and shows it whole.
		await row.locator("[data-i]").last().click();
		await page.locator("#detail", { hasText: '"type": "queue_changed"' }).waitFor();
		expect(await page.locator("li.selected").textContent()).toContain(
			'(delivered follow-up "then write the changelog")',
		);
		expect(JSON.parse((await page.locator("#detail").textContent()) ?? "")).toMatchObject({
			kind: "emitted",
			type: "queue_changed",
			payload: { change: "delivered", queue: "followUp", text: "then write the changelog" },
		});

		// An event whose line is cut (long payload): clicking it shows the whole event.
		const prompt = page.locator("li.kind-event", { hasText: "PROMPT" }).first();
		expect(await prompt.textContent()).toMatch(/\.\.\.$/);
		await prompt.click();
		// Not in the stream whole: the page fetches it from the server (`event?id=`) when selected.
		await page.locator("#detail", { hasText: '"type": "PROMPT"' }).waitFor();
		const shown = JSON.parse((await page.locator("#detail").textContent()) ?? "");
		expect(shown).toMatchObject({ kind: "event", type: "PROMPT", machine: "promptOperation" });
		expect(JSON.stringify(shown)).toContain(long);
		expect(problems).toEqual([]);
	});

	it("a steer cleared during the backoff goes from pending to cleared, where it was cleared", async () => {
		live = await openLivePage({
			browser: (await openChromium()).browser,
			harness: RETRYING,
			responses: [OVERLOADED, fauxAssistantMessage("answer after the retry")],
		});
		const { h, page, problems } = live;
		expect(await page.locator("#queue").count()).toBe(1);
		const done = h.session.prompt("deploy it");
		const { delayMs } = await h.nextEvent("auto_retry_start");
		await h.session.steer("not to production");
		const summary = page.locator("#queue summary");
		await summary.filter({ hasText: "1 pending" }).waitFor();
		h.session.clearQueue();
		await summary.filter({ hasText: "1 cleared" }).waitFor();
		expect(await summary.textContent()).toBe("Queued messages: 1 (0 delivered, 1 cleared)");
		expect(await page.locator("#queue li.fate-cleared").textContent()).toBe(
			'steer "not to production" queued +0ms in retrying → cleared +0ms in retrying',
		);
		h.clock!.increment(delayMs);
		await h.settle(done);
		expect(problems).toEqual([]);
	});

	it("queueHistoryInput keeps what the pairing reads: the same messages, fates, states and runs as from the whole events", async () => {
		h = await createHarness(RETRYING);
		h.setResponses([
			OVERLOADED,
			fauxAssistantMessage("answer after the retry"),
			fauxAssistantMessage("the follow-up's answer"),
			fauxAssistantMessage("the second follow-up's answer"),
		]);
		const trace = h.session.trace();
		const done = h.session.prompt("go");
		const { delayMs } = await h.nextEvent("auto_retry_start");
		await h.session.steer("steer me");
		await h.session.followUp("first follow-up");
		await h.session.followUp("second follow-up");
		h.clock!.increment(delayMs);
		await h.settle(done);
		trace.stop();
		const whole = queueHistory(trace.events);
		const slim = queueHistory(trace.events.flatMap((event) => queueHistoryInput(event) ?? []));
		const fates = (messages: QueuedMessage[]) =>
			messages.map(({ queued, settled, ...m }) => ({
				...m,
				queued: { at: queued.at, state: queued.state, run: queued.run },
				settled: settled && { at: settled.at, state: settled.state, run: settled.run },
			}));
		expect(whole.map((m) => m.fate)).toEqual(["delivered", "delivered", "delivered"]);
		expect(whole.some((m) => m.settled?.run !== undefined)).toBe(true);
		expect(fates(slim)).toEqual(fates(whole));
	});

	it("event?id= serves one kept event whole, only under the token; a dropped or unknown id is an empty 404", async () => {
		h = await createHarness();
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		inspector = await serveInspector(h.session, { maxEvents: 5 });
		await h.session.prompt("one");
		await h.session.prompt("two");
		const last = await fetch(new URL("events", inspector.url), { headers: { "last-event-id": "999999" } });
		const ids = [...(await readUntilSettled(last.body!)).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
		const newest = Math.max(...ids);
		const kept = await fetch(new URL(`event?id=${newest}`, inspector.url));
		expect(kept.status).toBe(200);
		expect(kept.headers.get("content-type")).toBe("application/json; charset=utf-8");
		expect(kept.headers.get("x-content-type-options")).toBe("nosniff");
		expect(await kept.json()).toMatchObject({ machine: "promptOperation" });
		for (const id of [String(newest - 5), String(newest + 1), "x", ""]) {
			const gone = await fetch(new URL(`event?id=${id}`, inspector.url));
			expect([id, gone.status, await gone.text()]).toEqual([id, 404, ""]);
		}
		const wrongToken = inspector.url.replace(/\/[^/]+\/$/, "/AAAAAAAAAAAAAAAAAAAAAAAA/");
		const refused = await fetch(new URL(`event?id=${newest}`, wrongToken));
		expect([refused.status, await refused.text()]).toEqual([404, ""]);
	});

	it("the filter lists only the matching lines, adds matching lines as they arrive, and ↓ steps through the matches", async () => {
		live = await openLivePage({
			browser: (await openChromium()).browser,
			responses: [fauxAssistantMessage("one"), fauxAssistantMessage("two")],
		});
		const { h, page, problems } = live;
		await h.session.prompt("one");
		await page.locator("#events li.kind-emitted", { hasText: "operation_settled" }).waitFor();

		expect(await page.locator("#filter").count()).toBe(1);
		await page.locator("#filter").fill("operation_settled|nothing like this");
		const copies = page.locator("#filtered li");
		expect(await copies.allTextContents()).toEqual([expect.stringContaining("operation_settled")]);
		expect(await page.locator("#events").isVisible()).toBe(false);
		const total = await page.locator("#events li[data-id]").count();
		expect(await page.locator("#matches").textContent()).toBe(`1 of ${total} events match`);

		// A matching line that arrives while filtering is added to the matches.
		await h.session.prompt("two");
		await copies.nth(1).waitFor();
		expect(await copies.count()).toBe(2);
		await copies.first().click();
		await page.locator("#detail", { hasText: '"type": "operation_settled"' }).waitFor();
		expect(JSON.parse((await page.locator("#detail").textContent()) ?? "")).toMatchObject({
			kind: "emitted",
			type: "operation_settled",
		});
		const first = Number(await page.locator("#events li.selected").getAttribute("data-id"));
		// ↓ goes to the next match, past the lines the filter hides.
		await page.keyboard.press("ArrowDown");
		const second = Number(await page.locator("#events li.selected").getAttribute("data-id"));
		expect(second).toBeGreaterThan(first + 1);
		expect(await page.locator("#events li.selected").textContent()).toContain("operation_settled");
		expect(await copies.nth(1).getAttribute("class")).toContain("selected");

		await page.locator("#filter").fill("");
		expect(await page.locator("#events").isVisible()).toBe(true);
		expect(await page.locator("#filtered").isVisible()).toBe(false);
		expect(await page.locator("#matches").textContent()).toBe("");
		expect(problems).toEqual([]);
	});

	it("regression: End typed in the filter box switched the page to following live; keys typed there no longer act as page shortcuts", async () => {
		live = await openLivePage({
			browser: (await openChromium()).browser,
			responses: [fauxAssistantMessage("one"), fauxAssistantMessage("two")],
		});
		const { h, page, problems } = live;
		await h.session.prompt("one");
		await page.locator("#events li.kind-emitted", { hasText: "operation_settled" }).waitFor();
		// Step back: the page holds the selected event and offers "follow live".
		await page.locator("#events li[data-id]").first().click();
		const held = await page.locator("#events li.selected").getAttribute("data-id");
		await page.locator("#follow").waitFor();

		// Typing in the filter: End moves the caret, ↑/↓ stay in the box; the page does not move.
		const filter = page.locator("#filter");
		await filter.click();
		await page.keyboard.type("operation_settledx");
		await page.keyboard.press("Home");
		await page.keyboard.press("End");
		await page.keyboard.press("Backspace");
		await page.keyboard.press("ArrowDown");
		await page.keyboard.press("ArrowUp");
		expect(await filter.inputValue()).toBe("operation_settled");
		expect(await page.locator("#follow").isVisible()).toBe(true);
		expect(await page.locator("#events li.selected").getAttribute("data-id")).toBe(held);

		// Outside the box the shortcut still works: End follows live again.
		await page.locator("#filtered li").first().click();
		await page.keyboard.press("End");
		await page.locator("#follow").waitFor({ state: "hidden" });
		expect(problems).toEqual([]);
	});
});
