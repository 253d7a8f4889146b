/**
 * The viewer `settle trace` writes for a `settle --trace` run, opened in real headless Chromium
 * (Debian's, see test/inspect/chromium.ts): the retry and the compaction of the run are shown.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { launchChromium } from "../inspect/chromium.js";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-trace-viewer-");

describe("settle trace, opened in Chromium", () => {
	it("shows the run's retrying and compacting states, and the attempt of the selected retry", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ retry: { baseDelayMs: 1 }, compaction: { keepRecentTokens: 1 } }),
		);
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				"The build uses esbuild.",
				{ stopReason: "error", errorMessage: "529 overloaded" },
				{ stopReason: "error", errorMessage: "prompt is too long: 213462 tokens > 200000 maximum" },
				"## Goal\nUnderstand the build.",
				"Run npm run build.",
			]),
		);
		const traceFile = join(cli.dir, "run.json");
		expect(cli.settle(["--faux-script", script, "-p", "one", "two", "--trace", traceFile]).code).toBe(0);
		const rendered = cli.settle(["trace", traceFile]);
		expect(rendered.code).toBe(0);
		const htmlFile = rendered.stdout.trim();
		expect(htmlFile).toBe(join(cli.dir, "run.html"));

		const { browser, close } = await launchChromium();
		try {
			const page = await browser.newPage();
			const errors: string[] = [];
			page.on("pageerror", (error) => errors.push(error.message));
			await page.goto(pathToFileURL(htmlFile).href);
			const marked = (cls: string) =>
				page.$$eval(`g[data-state].${cls}`, (groups) => groups.map((g) => g.getAttribute("data-state")));
			const lines = await page.$$eval("li[data-i]", (items) => items.map((li) => li.textContent ?? ""));

			// The last event is selected: the run has settled, after a retry and a compaction.
			expect(await marked("current")).toEqual(["promptOperation.idle"]);
			expect(await marked("visited")).toEqual(
				expect.arrayContaining([
					"promptOperation.retrying",
					"promptOperation.compacting",
					"promptOperation.compacting.working",
				]),
			);
			const retrying = lines.findIndex((line) => line.includes("postRun → retrying"));
			expect(lines[retrying]).toContain("attempt 1/3, delay 1ms");
			const compacting = lines.findIndex((line) => line.includes("postRun → compacting.working"));
			expect(lines[compacting]).toContain("reason overflow, willRetry");
			expect(retrying).toBeLessThan(compacting);

			// Selecting the retry: the machine is in retrying, and has not compacted yet.
			await page.locator(`li[data-i="${retrying}"]`).click();
			expect(await marked("current")).toEqual(["promptOperation.retrying"]);
			expect(await marked("visited")).not.toContain("promptOperation.compacting");
			await page.locator(`li[data-i="${compacting}"]`).click();
			expect(await marked("current")).toEqual(["promptOperation.compacting", "promptOperation.compacting.working"]);
			const box = await page.locator('g[data-state="promptOperation.compacting"] rect').first().boundingBox();
			expect(box?.width ?? 0).toBeGreaterThan(0);
			expect(errors).toEqual([]);
		} finally {
			await close();
		}
	});
});
