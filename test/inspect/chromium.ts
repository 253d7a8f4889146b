/**
 * Debian's headless Chromium (installed by .ci/run) for the trace viewer tests, with a home of its
 * own: Chromium writes `~/.config/chromium` (crash reports) and GTK `~/.cache/dconf` into HOME, which
 * must not land in the user's home. `close()` ends the browser and removes that folder.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

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

/**
 * Opens an exported session page (a file) in a fresh headless Chromium, waits until it has rendered
 * (`body[data-ready='1']`), runs `use` on the tab, and closes the browser whatever happens.
 */
export async function onExportedPage<T>(file: string, use: (tab: Page) => Promise<T>): Promise<T> {
	const chromium = await launchChromium();
	try {
		const tab = await chromium.browser.newPage();
		await tab.goto(pathToFileURL(file).href);
		await tab.waitForSelector("body[data-ready='1']");
		return await use(tab);
	} finally {
		await chromium.close();
	}
}
