/**
 * Debian's headless Chromium (installed by .ci/run) for the trace viewer, inspector and export page
 * tests, with a home of its own: Chromium writes `~/.config/chromium` (crash reports) and GTK
 * `~/.cache/dconf` into HOME, which must not land in the user's home.
 *
 * Tests use {@link openChromium}: one browser per test file, launched on first use and closed after
 * the file's tests (test/cleanups.ts). A launch costs ~1 s of CPU (browser, zygote, GPU and renderer
 * processes), and most files opened a browser per page. Each handle closes only the browser contexts
 * opened through it (every `newPage()` has one, whose cookies, storage and cache no other page sees:
 * what a browser of its own gave it), so a timed-out test whose `finally` runs late cannot close the
 * next test's pages. Not per worker: a shared worker is stopped with SIGTERM and SIGKILLed 0.5 s
 * later, and on a loaded machine its browser's profile and home outlived it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterEachFile } from "../cleanups.js";

const CHROMIUM = process.env.SETTLE_CHROMIUM ?? "/usr/bin/chromium";

/** Headless, no sandbox (root in CI), and nothing that reaches for the network on its own. */
const HEADLESS_ARGS = [
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];

/** A Chromium of the caller's own (benches; see {@link openChromium} for tests): `close()` ends it and removes its home. */
export async function launchChromium(
	args: string[] = HEADLESS_ARGS,
): Promise<{ browser: Browser; close(): Promise<void> }> {
	if (!existsSync(CHROMIUM)) {
		throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium (see .ci/run) or set SETTLE_CHROMIUM.`);
	}
	const home = mkdtempSync(join(tmpdir(), "settle-chromium-home-"));
	const remove = () => rmSync(home, { recursive: true, force: true });
	try {
		const browser = await chromium.launch({
			executablePath: CHROMIUM,
			args,
			env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") },
		});
		return {
			browser,
			close: async () => {
				try {
					await browser.close();
				} finally {
					remove();
				}
			},
		};
	} catch (error) {
		remove();
		throw error;
	}
}

type Launched = Awaited<ReturnType<typeof launchChromium>>;

/** The file's browser (see above); a rejected launch or a crashed browser is replaced on the next call. */
let shared: Promise<Launched> | undefined;

async function sharedBrowser(): Promise<Browser> {
	const current = shared;
	if (current) {
		const launched = await current.catch(() => undefined);
		if (launched?.browser.isConnected()) return launched.browser;
		if (shared === current) shared = undefined;
		await launched?.close(); // a crashed browser's home
	}
	shared ??= launchChromium();
	return (await shared).browser;
}

afterEachFile(async () => {
	const current = shared;
	shared = undefined;
	await (await current?.catch(() => undefined))?.close();
});

/**
 * The file's headless Chromium (see above). `browser` is that browser; `close()` closes the browser
 * contexts (and so the pages) opened through this `browser`, and nothing else.
 */
export async function openChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
	const browser = await sharedBrowser();
	const opened = new Set<BrowserContext>();
	const track = (context: BrowserContext) => {
		opened.add(context);
		context.once("close", () => opened.delete(context));
	};
	const tracked = new Proxy(browser, {
		get(target, property) {
			if (property === "newContext") {
				return async (...args: Parameters<Browser["newContext"]>) => {
					const context = await target.newContext(...args);
					track(context);
					return context;
				};
			}
			if (property === "newPage") {
				return async (...args: Parameters<Browser["newPage"]>) => {
					const page = await target.newPage(...args);
					track(page.context());
					return page;
				};
			}
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
	return {
		browser: tracked,
		close: async () => {
			const contexts = [...opened];
			opened.clear();
			await Promise.all(contexts.map((context) => context.close()));
		},
	};
}

/**
 * Opens an exported session page (a file) in a tab of its own (a fresh browser context of the
 * file's Chromium), waits until it has rendered (`body[data-ready='1']`), runs `use` on the tab,
 * and closes the tab's context whatever happens.
 */
export async function onExportedPage<T>(file: string, use: (tab: Page) => Promise<T>): Promise<T> {
	const chromium = await openChromium();
	try {
		const tab = await chromium.browser.newPage();
		await tab.goto(pathToFileURL(file).href);
		await tab.waitForSelector("body[data-ready='1']");
		return await use(tab);
	} finally {
		await chromium.close();
	}
}
