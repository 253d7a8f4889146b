/**
 * Risk: the live inspector page (`serveInspector`, `settle --inspect`) shows a session's events as
 * they happen — prompts, errors, payloads, which a prompt injection or a hostile provider shapes.
 * Its script writes event text with `textContent` only, and its Content-Security-Policy (the
 * server's header, and the same policy in a `<meta>`) now allows its own script and its two
 * stylesheets (the page's, the diagrams') by hash, no `'unsafe-inline'` for styles: markup that got
 * into the page could neither run nor restyle it. Real sessions on the faux provider, the real
 * inspector server, the page in real headless Chromium (Debian's, test/inspect/chromium.ts).
 */
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { openChromium } from "../inspect/chromium.js";
import { type LivePage, loadLivePage, openLiveInspector, openLivePage } from "../inspect/live-browser.js";
import { fetchRaw } from "../inspect/live-helpers.js";
import { createWorkspace, loggingFactory, startRuntime } from "../runtime/helpers.js";
import { computed } from "./page-helpers.js";

const HOSTILE = `<style>body{background:rgb(1, 2, 3)}</style><b id="bold" style="color:rgb(4, 5, 6)">x</b>`;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The policy the server sends for the page, and the one in the page's `<meta>`. */
async function policies(url: string) {
	const reply = await fetchRaw(url);
	const header = String(reply.headers["content-security-policy"]);
	const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(reply.body)?.[1];
	return { header, meta };
}

function expectStylesByHash(policy: { header: string; meta: string | undefined }) {
	expect(policy.header).toMatch(/; style-src 'sha256-[A-Za-z0-9+/=]{44}' 'sha256-[A-Za-z0-9+/=]{44}';/);
	expect(policy.header).not.toContain("unsafe-inline");
	expect(policy.header).toBe(`${policy.meta}; frame-ancestors 'none'`);
}

/** Waits (in the page) until the innermost current state of the diagram shown is `state`. */
const until = (page: Page, state: string) =>
	page.waitForFunction((wanted) => {
		const { document } = globalThis as unknown as {
			document: { querySelectorAll(s: string): Iterable<{ getAttribute(n: string): string | null }> };
		};
		return [...document.querySelectorAll("g[data-state].current")].at(-1)?.getAttribute("data-state") === wanted;
	}, state);

/**
 * Opens the page with markup added to it on its way from the server to the browser (the server's
 * headers kept; its `<meta>` policy taken out, so the header's policy alone guards it) — as if a
 * rendering bug let a field through as markup.
 */
function openInjected(view: LivePage, markup: string) {
	return loadLivePage(view.page.context().browser()!, view.inspector.url, {
		prepare: (page) =>
			page.route(view.inspector.url, async (route) => {
				const response = await route.fetch();
				const body = (await response.text())
					.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "")
					.replace("</main>", `</main>${markup}`);
				await route.fulfill({ response, body });
			}),
	});
}

describe("the live inspector page under its Content-Security-Policy", () => {
	it("a session's page renders and works with styles allowed by hash only; hostile event text stays text", async () => {
		const view = await openLivePage({
			browser: (await openChromium()).browser,
			responses: [fauxAssistantMessage(`upstream: ${HOSTILE}`)],
		});
		cleanups.push(view.close);
		expectStylesByHash(await policies(view.inspector.url));
		const { page, problems, h } = view;
		await h.session.prompt(`look: ${HOSTILE}`);
		await until(page, "promptOperation.idle");
		await page.locator("#count", { hasText: /^\d+ events$/ }).waitFor();
		// Both stylesheets apply: the page's (the live status, the marked state) and the diagram's (its heading).
		expect(await computed(page.locator("#status"), "fontWeight")).toBe("700");
		const stroke = await computed(page.locator('g[data-state="promptOperation.idle"] > rect').first(), "stroke");
		expect(stroke).toBe("rgb(213, 63, 140)");
		expect(await computed(page.locator("svg text.heading").first(), "fill")).toBe("rgb(26, 32, 44)");
		// Stepping back selects an event and shows it whole; the hostile prompt is text.
		const prompt = page.locator("li[data-id]", { hasText: "PROMPT" }).first();
		await prompt.click();
		await page.locator("#detail", { hasText: "look: <style>" }).waitFor();
		expect(await page.locator("#bold").count()).toBe(0);
		expect(await computed(page.locator("body"), "backgroundColor")).not.toBe("rgb(1, 2, 3)");
		expect(problems).toEqual([]);
	});

	it("a runtime's page (two machines, tabs) renders and works under its policy", async () => {
		const ws = createWorkspace();
		cleanups.push(() => ws.cleanup());
		const faux = createFauxProvider();
		faux.setResponses([fauxAssistantMessage("first")]);
		const runtime = await startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha);
		cleanups.push(() => runtime.dispose());
		const live = await openLiveInspector(runtime, { browser: (await openChromium()).browser });
		cleanups.push(live.close);
		expectStylesByHash(await policies(live.inspector.url));
		const { page, problems } = live;
		await runtime.session.prompt("hi");
		await until(page, "promptOperation.idle");
		// The tabbed header's styles: the pressed tab is dark; the other machine's tag is colored.
		const pressed = page.locator('nav.machines button[aria-pressed="true"]');
		expect(await computed(pressed, "backgroundColor")).toBe("rgb(45, 55, 72)");
		await page.locator('nav.machines button[data-machine="runtime"]').click();
		expect(await computed(page.locator('nav.machines button[data-machine="runtime"]'), "color")).toBe(
			"rgb(255, 255, 255)",
		);
		expect(await computed(page.locator("main"), "height")).toBe(`${900 - 92}px`);
		expect(problems).toEqual([]);
	});

	it("a <style> element or style attribute that got into the page does not apply; the page still works", async () => {
		const view = await openLivePage({
			browser: (await openChromium()).browser,
			responses: [fauxAssistantMessage("ok")],
		});
		cleanups.push(view.close);
		const { page, problems } = await openInjected(
			view,
			`<style>body{background:rgb(1, 2, 3)}</style><p id="styled" style="color:rgb(4, 5, 6)">x</p>`,
		);
		cleanups.push(() => page.close()); // before the inspector it streams from
		expect(await computed(page.locator("body"), "backgroundColor")).not.toBe("rgb(1, 2, 3)");
		expect(await computed(page.locator("#styled"), "color")).not.toBe("rgb(4, 5, 6)");
		// Refused by the (header's) policy: the <style> element and the style attribute, nothing else.
		expect(problems.length).toBeGreaterThanOrEqual(2);
		expect(problems.every((text) => text.startsWith("Applying inline style violates"))).toBe(true);
		// The page's own script and stylesheets still run and apply.
		await view.h.session.prompt("hi");
		await until(page, "promptOperation.idle");
		expect(await computed(page.locator("#status"), "fontWeight")).toBe("700");
	});
});
