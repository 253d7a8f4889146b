/**
 * The live inspector page opened in real headless Chromium on a harness's session: the setup the
 * live page tests share (harness with scripted replies, `serveInspector`, Chromium, the page's errors
 * collected, the page loaded and live). `close()` ends all of it, the browser first.
 */
import type { Page } from "playwright-core";
import { type InspectorServer, type InspectorServerOptions, serveInspector } from "../../src/inspect/live-server.js";
import type { FauxResponseStep } from "../../src/llm/faux.js";
import { createHarness, type Harness, type HarnessOptions } from "../../src/testing/harness.js";
import { launchChromium } from "./chromium.js";

export interface LivePage {
	/** The harness (`h.clock` is there when `harness.simulatedClock` was asked for). */
	h: Harness;
	inspector: InspectorServer;
	page: Page;
	/** Uncaught page errors and `console.error` lines, in order: a healthy page leaves it empty. */
	problems: string[];
	/** Closes the browser, then the inspector, then removes the harness's files. */
	close(): Promise<void>;
}

export interface LivePageOptions {
	harness?: HarnessOptions;
	/** The faux model's replies, set before the inspector starts. */
	responses?: readonly FauxResponseStep[];
	inspector?: InspectorServerOptions;
	viewport?: { width: number; height: number };
}

/** Opens the live page and waits until it says `live` (its event stream is connected). */
export async function openLivePage(options: LivePageOptions = {}): Promise<LivePage> {
	const closers: (() => unknown)[] = [];
	const close = async () => {
		for (const closer of closers.splice(0).reverse()) await closer();
	};
	try {
		const h = await createHarness(options.harness);
		closers.push(() => h.cleanup());
		if (options.responses) h.setResponses(options.responses);
		const inspector = await serveInspector(h.session, options.inspector);
		closers.push(() => inspector.close());
		const chromium = await launchChromium();
		closers.push(() => chromium.close());
		const page = await chromium.browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 } });
		const problems: string[] = [];
		page.on("pageerror", (error) => problems.push(error.message));
		page.on("console", (message) => {
			if (message.type() === "error") problems.push(message.text());
		});
		await page.goto(inspector.url);
		await page.locator("#status", { hasText: "live" }).waitFor();
		return { h, inspector, page, problems, close };
	} catch (error) {
		await close();
		throw error;
	}
}
