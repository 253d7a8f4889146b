/**
 * The live inspector page opened in real headless Chromium: the setup the live page and trace viewer tests share
 * (`serveInspector` on a session or a runtime, Chromium, the page's errors collected, the page loaded
 * and live), and {@link openLivePage} for a harness's session with scripted replies. `close()` ends
 * all of it, the page (its browser context) first.
 */
import type { Browser, Page } from "playwright-core";
import { type InspectorServer, type InspectorServerOptions, serveInspector } from "../../src/inspect/live-server.js";
import type { FauxResponseStep } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { createHarness, type Harness, type HarnessOptions } from "../../src/testing/harness.js";
import { openChromium } from "./chromium.js";

/** A page of the inspector, loaded and live. */
export interface LoadedPage {
	page: Page;
	/** Uncaught page errors and `console.error` lines, in order: a healthy page leaves it empty. */
	problems: string[];
}

/** Playwright's own page size, for tests whose page was opened with `browser.newPage()` as it is. */
export const PLAYWRIGHT_DEFAULT_VIEWPORT = { width: 1280, height: 720 };

export interface LoadOptions {
	viewport?: { width: number; height: number };
	/** Runs on the new page before it loads (e.g. `page.route` to change what the server sends). */
	prepare?: (page: Page) => Promise<unknown>;
	/**
	 * Wait until the page says `live` (default true). False for a trace viewer page (`settle trace`,
	 * `renderTraceHtml`): the same page without an event stream, ready once loaded.
	 */
	live?: boolean;
}

/**
 * Opens a new page in `browser` (its errors collected), loads the inspector at `url` and waits until
 * the page says `live` (its event stream is connected; see `options.live` for a trace viewer page).
 */
export async function loadLivePage(browser: Browser, url: string, options: LoadOptions = {}): Promise<LoadedPage> {
	const page = await browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 } });
	const problems: string[] = [];
	page.on("pageerror", (error) => problems.push(error.message));
	page.on("console", (message) => {
		if (message.type() === "error") problems.push(message.text());
	});
	await options.prepare?.(page);
	await page.goto(url);
	if (options.live !== false) await page.locator("#status", { hasText: "live" }).waitFor();
	return { page, problems };
}

export interface LiveInspector extends LoadedPage {
	inspector: InspectorServer;
	/** Closes the page, then the inspector. */
	close(): Promise<void>;
}

/**
 * Serves the inspector on `target` (a session or a runtime), opens it in Chromium and waits until it is
 * live: in `options.browser` (`close()` closes the page) or in the worker's Chromium ({@link
 * openChromium}; `close()` closes the page's browser context).
 */
export async function openLiveInspector(
	target: AgentSession | AgentSessionRuntime,
	options: { inspector?: InspectorServerOptions; viewport?: { width: number; height: number }; browser?: Browser } = {},
): Promise<LiveInspector> {
	const closers: (() => unknown)[] = [];
	const close = async () => {
		for (const closer of closers.splice(0).reverse()) await closer();
	};
	try {
		const inspector = await serveInspector(target, options.inspector);
		closers.push(() => inspector.close());
		let browser = options.browser;
		if (!browser) {
			const chromium = await openChromium();
			closers.push(() => chromium.close());
			browser = chromium.browser;
		}
		const loaded = await loadLivePage(browser, inspector.url, { viewport: options.viewport });
		if (options.browser) closers.push(() => loaded.page.close());
		return { ...loaded, inspector, close };
	} catch (error) {
		await close();
		throw error;
	}
}

export interface LivePage extends LiveInspector {
	/** The harness (`h.clock` is there when `harness.simulatedClock` was asked for). */
	h: Harness;
	/** Closes the page, then the inspector, then removes the harness's files. */
	close(): Promise<void>;
}

export interface LivePageOptions {
	harness?: HarnessOptions;
	/** The faux model's replies, set before the inspector starts. */
	responses?: readonly FauxResponseStep[];
	inspector?: InspectorServerOptions;
	viewport?: { width: number; height: number };
	/** A browser to open the page in; default: the worker's Chromium ({@link openChromium}). */
	browser?: Browser;
}

/** Opens the live page on a new harness's session and waits until it says `live`. */
export async function openLivePage(options: LivePageOptions = {}): Promise<LivePage> {
	const h = await createHarness(options.harness);
	try {
		if (options.responses) h.setResponses(options.responses);
		const live = await openLiveInspector(h.session, {
			inspector: options.inspector,
			viewport: options.viewport,
			browser: options.browser,
		});
		return {
			...live,
			h,
			close: async () => {
				try {
					await live.close();
				} finally {
					await h.cleanup();
				}
			},
		};
	} catch (error) {
		await h.cleanup();
		throw error;
	}
}
