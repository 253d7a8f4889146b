/**
 * The live inspector page in real headless Chromium, on a real session (faux provider): a request
 * retried on a simulated clock, then compacted with the summary held by a gate — so each state is
 * held while the page is looked at. The diagram follows live, stays put when the user steps back,
 * and "follow live" brings it back; session text stays text; the CSP lets only the page's script run.
 */
import { connect, createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type InspectorServer, serveInspector } from "../../src/inspect/live-server.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { errorReply, gate, overflowReply, script } from "../session/recovery-helpers.js";
import { openChromium } from "./chromium.js";
import { loadLivePage } from "./live-browser.js";

let h: Harness | undefined;
let inspector: InspectorServer | undefined;
let closeBrowser: (() => Promise<void>) | undefined;
afterEach(async () => {
	await closeBrowser?.();
	await inspector?.close();
	h?.cleanup();
	closeBrowser = undefined;
	inspector = undefined;
	h = undefined;
});

/**
 * A TCP relay in front of the inspector that can cut every connection and refuse new ones until
 * healed — a dropped network, for the browser's own EventSource reconnection. It rewrites the Host
 * header to the inspector's (the browser names the relay's port) and records each request's
 * `Last-Event-ID`.
 */
async function relay(target: number) {
	const sockets = new Set<Socket>();
	const lastEventIds: (string | undefined)[] = [];
	let cut = false;
	const server = createServer((client) => {
		if (cut) return void client.destroy();
		const upstream = connect(target, "127.0.0.1");
		sockets.add(client).add(upstream);
		client.on("data", (chunk) => {
			const text = chunk.toString("latin1");
			for (const request of text.matchAll(/^GET [^\r\n]*\r\n([\s\S]*?)\r\n\r\n/gm)) {
				lastEventIds.push(/^last-event-id: *(.*)$/im.exec(request[1]!)?.[1]?.trim());
			}
			upstream.write(Buffer.from(text.replace(/^host: *127\.0\.0\.1:\d+/im, `Host: 127.0.0.1:${target}`), "latin1"));
		});
		upstream.on("data", (chunk) => client.write(chunk));
		const end = () => {
			client.destroy();
			upstream.destroy();
			sockets.delete(client);
			sockets.delete(upstream);
		};
		client.on("close", end).on("error", end);
		upstream.on("close", end).on("error", end);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as { port: number }).port;
	return {
		port,
		lastEventIds,
		cut() {
			cut = true;
			for (const socket of sockets) socket.destroy();
		},
		heal() {
			cut = false;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/** What the in-page functions use (the DOM is not in this project's TypeScript lib). */
interface PageGlobals {
	document: {
		querySelectorAll(selector: string): Iterable<{
			getAttribute(name: string): string | null;
			classList: { contains(name: string): boolean };
		}>;
	};
}

const MARKUP = `<img src=x onerror="document.title='pwned'">`;

async function openPage(url: string) {
	const chromium = await openChromium();
	closeBrowser = chromium.close;
	const { page, problems } = await loadLivePage(chromium.browser, url, { viewport: { width: 1200, height: 800 } });
	const current = () =>
		page.$$eval("g[data-state].current", (groups) => groups.map((g) => g.getAttribute("data-state")));
	/**
	 * Waits (in the page, on its own updates) until the innermost current state is `state`. A function,
	 * not a string: Playwright evals a string predicate again on every animation frame, which the page's
	 * CSP (no 'unsafe-eval') refuses — only the first check, run by DevTools, may eval.
	 */
	const until = (state: string) =>
		page.waitForFunction((wanted) => {
			const { document } = globalThis as unknown as PageGlobals;
			return [...document.querySelectorAll("g[data-state].current")].at(-1)?.getAttribute("data-state") === wanted;
		}, state);
	/**
	 * Waits until the newest event is the selected one. A following page selects it on its next frame,
	 * not when the event's line is added: an event that arrives just after a check is listed but not yet
	 * selected for a moment. Met within a frame or two; the timeout only makes a page that never
	 * selects it fail here rather than as the whole test's timeout.
	 */
	const newestSelected = () =>
		page.waitForFunction(
			() => {
				const { document } = globalThis as unknown as PageGlobals;
				return [...document.querySelectorAll("li[data-id]")].at(-1)?.classList.contains("selected") === true;
			},
			undefined,
			{ timeout: 10_000 },
		);
	const selectedId = async () => Number(await page.locator("li.selected").getAttribute("data-id"));
	const lastId = async () => Number(await page.locator("li[data-id]").last().getAttribute("data-id"));
	/** The label lines of the transition that led into the current state, as the diagram marks them. */
	const taken = () => page.locator("text.edge-label.taken").allTextContents();
	return { page, problems, current, until, newestSelected, selectedId, lastId, taken };
}

describe("the live inspector page", () => {
	it("follows a retry and a compaction live; ↑ steps back and holds the view; follow live returns", async () => {
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 250, maxRetries: 2 }, compaction: { keepRecentTokens: 1 } },
		});
		const summary = gate();
		script(
			h,
			[
				fauxAssistantMessage("warm-up"),
				errorReply("503 Service Unavailable"),
				overflowReply(),
				fauxAssistantMessage("finally"),
			],
			{ summary: () => summary.promise.then(() => fauxAssistantMessage("## Goal\nsummary")) },
		);
		await h.session.prompt("warm up");
		inspector = await serveInspector(h.session);
		const view = await openPage(inspector.url);
		await view.until("promptOperation.idle");
		expect(await view.page.locator("#status").textContent()).toBe("live");
		expect(await view.page.locator("#follow").isVisible()).toBe(false);

		// Retry: the backoff waits on the simulated clock, so the session stays in `retrying`.
		const done = h.session.prompt(`do the thing ${MARKUP}`);
		const { delayMs } = await h.nextEvent("auto_retry_start");
		await view.until("promptOperation.retrying");
		expect(await view.current()).toEqual(["promptOperation.retrying"]);
		// The edge into it is marked with its label: the guard that chose a retry.
		expect(await view.taken()).toEqual(["always (2) [canRetry]", "/ scheduleRetry"]);
		// Session text is shown as text: no element made of it, nothing it says ran.
		const prompt = view.page.locator("li.kind-event", { hasText: "PROMPT" }).last();
		expect(await prompt.textContent()).toContain(MARKUP.replace(/"/g, '\\"'));
		expect(await view.page.locator(".events img").count()).toBe(0);

		// Step back: the view stays on the selected event while the session moves on.
		await view.page.keyboard.press("ArrowUp");
		await view.page.keyboard.press("ArrowUp");
		expect(await view.page.locator("#follow").isVisible()).toBe(true);
		const held = await view.selectedId();
		const heldState = await view.current();
		expect(held).toBeLessThan(await view.lastId());
		h.clock!.increment(delayMs);
		// The retried run overflows; the compaction waits on the summary gate.
		await view.page.locator("li.kind-state", { hasText: "→ compacting.working" }).waitFor();
		expect(await view.selectedId()).toBe(held);
		expect(await view.current()).toEqual(heldState);
		expect(await view.page.locator("#follow").isVisible()).toBe(true);

		// Follow live: back to the newest event and the state the session is in now.
		await view.page.locator("#follow").click();
		await view.until("promptOperation.compacting.working");
		expect(await view.current()).toEqual(["promptOperation.compacting", "promptOperation.compacting.working"]);
		await view.newestSelected();
		expect(await view.page.locator("#follow").isVisible()).toBe(false);
		expect((await view.taken())[0]).toBe("always (3) [canRecoverOverflow]");
		// The retry's edge stays marked as walked; only the newest is the taken one.
		expect(await view.page.locator("g.link.taken").count()).toBe(1);
		expect(await view.page.locator("g.link.walked", { hasText: "[canRetry]" }).count()).toBe(1);

		summary.release();
		await done;
		await view.until("promptOperation.idle");
		const visited = await view.page.$$eval("g[data-state].visited", (groups) =>
			groups.map((g) => g.getAttribute("data-state")),
		);
		expect(visited).toEqual(
			expect.arrayContaining([
				"promptOperation.retrying",
				"promptOperation.compacting.working",
				"promptOperation.idle",
			]),
		);
		await view.newestSelected();

		h.session.dispose();
		await view.page.locator("#status", { hasText: "ended" }).waitFor();
		expect(await view.page.locator("#status").textContent()).toBe("ended: the session was disposed");
		expect(await view.page.title()).not.toBe("pwned");
		expect(view.problems).toEqual([]);
	});

	it("says the inspector was closed when close() ends the stream while the session goes on", async () => {
		h = await createHarness();
		inspector = await serveInspector(h.session);
		const view = await openPage(inspector.url);
		await view.page.locator("#status", { hasText: "live" }).waitFor();
		await inspector.close();
		await view.page.locator("#status", { hasText: "ended" }).waitFor();
		expect(await view.page.locator("#status").textContent()).toBe("ended: the inspector was closed");
		expect(view.problems).toEqual([]);
	});

	it("says how many older events were dropped when the window moved on before the page loaded", async () => {
		h = await createHarness();
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		inspector = await serveInspector(h.session, { maxEvents: 5 });
		await h.session.prompt("one");
		await h.session.prompt("two");
		const view = await openPage(inspector.url);
		await view.page.locator("li[data-id]").nth(4).waitFor();
		expect(await view.page.locator("li[data-id]").count()).toBe(5);
		const last = await view.lastId();
		expect(await view.page.locator("#dropped").textContent()).toBe(
			`, ${last - 5} older events dropped (only the newest are kept)`,
		);
		expect(await view.page.locator("li.gap").textContent()).toBe(
			`… events 1–${last - 5} were dropped before this page received them`,
		);
		await view.until("promptOperation.idle");
		expect(view.problems).toEqual([]);
	});

	it("after a dropped connection the browser reconnects with Last-Event-ID: every event once, none missing", async () => {
		h = await createHarness();
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two"), fauxAssistantMessage("three")]);
		inspector = await serveInspector(h.session);
		const network = await relay(Number(new URL(inspector.url).port));
		try {
			const view = await openPage(inspector.url.replace(/:\d+\//, `:${network.port}/`));
			await view.page.locator("#status", { hasText: "live" }).waitFor();
			await h.session.prompt("one");
			await view.page.locator("li.kind-emitted", { hasText: "operation_settled" }).waitFor();
			const before = await view.lastId();
			network.cut();
			await view.page.locator("#status", { hasText: "reconnecting" }).waitFor();
			await h.session.prompt("two"); // while the page is disconnected
			network.heal();
			await h.session.prompt("three");
			await view.page.locator("li.kind-emitted", { hasText: "operation_settled" }).nth(2).waitFor();
			await view.page.locator("#status", { hasText: "live" }).waitFor();
			const ids = await view.page.$$eval("li[data-id]", (items) =>
				items.map((li) => Number(li.getAttribute("data-id"))),
			);
			expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
			expect(await view.page.locator("li.gap").count()).toBe(0);
			// The page asked from where it was: the first request without an id, the reconnection with its last one.
			expect(network.lastEventIds.filter((id) => id !== undefined)).toContain(String(before));
			// Only the cut connection itself is reported (and any attempt refused while cut).
			expect(view.problems.filter((p) => !/^Failed to load resource: net::ERR_[A-Z_]+$/.test(p))).toEqual([]);
		} finally {
			await network.close();
		}
	});
});
