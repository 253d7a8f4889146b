/**
 * The viewer `settle trace` writes for a `settle --trace` run, opened in real headless Chromium
 * (Debian's, see test/inspect/chromium.ts): the retry and the compaction of the run are shown; an
 * RPC run that replaces its session shows the runtime machine's path as well.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openChromium } from "../inspect/chromium.js";
import { loadLivePage, PLAYWRIGHT_DEFAULT_VIEWPORT } from "../inspect/live-browser.js";
import { DISPOSAL_STATES, REPLACEMENT_STATES } from "../runtime/helpers.js";
import { RpcClient, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-trace-viewer-");

/** Opens the viewer page in a tab of the file's headless Chromium, runs `check` on it, and closes the tab. */
async function withViewer(
	htmlFile: string,
	check: (viewer: {
		page: Page;
		errors: string[];
		marked: (cls: string) => Promise<(string | null)[]>;
	}) => Promise<void>,
): Promise<void> {
	const { browser, close } = await openChromium();
	try {
		// Console errors count as well as uncaught ones (`problems`): a healthy page has neither.
		const { page, problems: errors } = await loadLivePage(browser, pathToFileURL(htmlFile).href, {
			live: false,
			viewport: PLAYWRIGHT_DEFAULT_VIEWPORT,
		});
		const marked = (cls: string) =>
			page.$$eval(`g[data-state].${cls}`, (groups) => groups.map((g) => g.getAttribute("data-state")));
		await check({ page, errors, marked });
	} finally {
		await close();
	}
}

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

		await withViewer(htmlFile, async ({ page, errors, marked }) => {
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
		});
	});

	it("an RPC run with new_session: a tab per machine; ↑/↓ step through the runtime machine's path on its diagram", async () => {
		const traceFile = join(cli.dir, "rpc.json");
		const rpc = new RpcClient(["--faux", "--trace", traceFile], { cwd: cli.project, agentDir: cli.agentDir });
		const prompt = async (id: string, message: string) => {
			const settled = rpc.next((line) => line.type === "agent_settled");
			expect(await rpc.request({ id, type: "prompt", message })).toMatchObject({ success: true });
			await settled;
		};
		await prompt("1", "first session");
		expect(await rpc.request({ id: "2", type: "new_session" })).toMatchObject({ success: true });
		await prompt("3", "second session");
		expect(await rpc.end()).toBe(0);
		const htmlFile = join(cli.dir, "rpc.html");
		expect(cli.settle(["trace", traceFile, "-o", htmlFile]).code).toBe(0);

		await withViewer(htmlFile, async ({ page, errors, marked }) => {
			const selected = () =>
				page.$$eval("li[data-i]", (items) => {
					const li = items.find((item) => item.classList.contains("selected"));
					return { i: Number(li?.getAttribute("data-i")), machine: li?.getAttribute("data-machine") };
				});
			const machines = await page.$$eval("li[data-i]", (items) => items.map((li) => li.getAttribute("data-machine")));
			const lines = await page.$$eval("li[data-i]", (items) => items.map((li) => li.textContent ?? ""));
			const boxWidth = async (state: string) =>
				(await page.locator(`g[data-state="${state}"] > rect`).first().boundingBox())?.width ?? 0;

			// Both machines have a tab; the session's diagram is shown first, at the end of the run.
			const tabs = page.locator("nav.machines button");
			expect(await tabs.allTextContents()).toEqual([
				expect.stringMatching(/^promptOperation · \d+ events$/),
				expect.stringMatching(/^runtime · \d+ events$/),
			]);
			expect(await marked("current")).toEqual(["promptOperation.idle"]);
			expect(await boxWidth("runtime.rebinding")).toBe(0);

			// The runtime's tab: its diagram, at the end of the run (disposed), having visited the switch.
			await tabs.nth(1).click();
			expect(await boxWidth("runtime.rebinding")).toBeGreaterThan(0);
			expect(await boxWidth("promptOperation.retrying")).toBe(0);
			expect(await marked("current")).toEqual(["runtime.disposed"]);
			expect(await marked("visited")).toEqual(
				expect.arrayContaining(["runtime.beforeSwitch", "runtime.creating", "runtime.rebinding", "runtime.disposed"]),
			);
			expect(await marked("visited")).not.toContain("runtime.rollingBack");

			// From the runtime's first event, ↓ visits exactly the runtime's events, in order, along its path.
			const runtimeEvents = machines.flatMap((machine, i) => (machine === "runtime" ? [i] : []));
			await page.locator(`li[data-i="${runtimeEvents[0]}"]`).click();
			const stepped: number[] = [runtimeEvents[0]!];
			const path: string[] = ["runtime.active"];
			expect(await marked("current")).toEqual(["runtime.active"]);
			for (let n = 1; n < runtimeEvents.length; n++) {
				await page.keyboard.press("ArrowDown");
				const now = await selected();
				expect(now.machine).toBe("runtime");
				stepped.push(now.i);
				const [current] = await marked("current");
				if (current !== path.at(-1)) path.push(current!);
				if (current === "runtime.rebinding") {
					expect(await marked("visited")).toEqual(
						expect.arrayContaining(["runtime.active", "runtime.opening", "runtime.disposing", "runtime.rebinding"]),
					);
					expect(await marked("visited")).not.toContain("runtime.disposed");
				}
			}
			expect(stepped).toEqual(runtimeEvents);
			expect(path).toEqual([...REPLACEMENT_STATES, ...DISPOSAL_STATES].map((state) => `runtime.${state}`));
			// The runtime's switch lies between the two sessions' prompts in the list.
			const prompts = lines.flatMap((line, i) => (line.includes("event   PROMPT") ? [i] : []));
			const newEvent = lines.findIndex((line) => line.includes("event   NEW"));
			expect(prompts).toHaveLength(2);
			expect(prompts[0]).toBeLessThan(newEvent);
			expect(newEvent).toBeLessThan(prompts[1]!);

			// Clicking the second session's prompt shows the session's diagram again, that session's states only.
			await page.locator(`li[data-i="${prompts[1]}"]`).click();
			expect(await boxWidth("promptOperation.retrying")).toBeGreaterThan(0);
			expect(await tabs.nth(0).getAttribute("aria-pressed")).toBe("true");
			expect(await marked("current")).toEqual(["promptOperation.idle"]);
			expect(await marked("visited")).toEqual(["promptOperation.idle"]);
			await page.keyboard.press("ArrowDown");
			expect((await selected()).machine).toBe("promptOperation");
			expect(errors).toEqual([]);
		});
	});

	it("the trace viewer: a file dropped on it did nothing (or, in a browser that opens dropped files, left the page); now it says what the file is and how to view it", async () => {
		const traceFile = join(cli.dir, "run.json");
		expect(cli.settle(["--faux", "-p", "hi", "--trace", traceFile]).code).toBe(0);
		const htmlFile = cli.settle(["trace", traceFile]).stdout.trim();
		const text = readFileSync(traceFile, "utf8");
		const other = join(cli.dir, "other.json");
		expect(cli.settle(["--faux", "-p", "one", "two", "--trace", other]).code).toBe(0);
		const otherEvents = JSON.parse(readFileSync(other, "utf8")).events.length;
		const files = {
			"cut.json": text.slice(0, text.length / 2),
			"empty.json": "",
			"package.json": '{"name":"app"}',
			"none.json": '{"format":"settle.lifecycle-trace","version":1,"dropped":0,"events":[]}',
			"<b>odd<b>.json": "[]",
		};
		for (const [name, content] of Object.entries(files)) writeFileSync(join(cli.dir, name), content);
		const page1 = "This page shows only its own trace.";

		await withViewer(htmlFile, async ({ page, errors }) => {
			const title = await page.title();
			const events = await page.locator("li[data-i]").count();
			// A real drop of a file from disk, as the browser's drag and drop delivers it.
			const cdp = await page.context().newCDPSession(page);
			const drop = async (file: string) => {
				const data = { items: [], files: [file], dragOperationsMask: 1 };
				for (const type of ["dragEnter", "dragOver", "drop"] as const) {
					await cdp.send("Input.dispatchDragEvent", { type, x: 300, y: 300, data });
				}
				return page.locator("#drop-note", { hasText: basename(file) }).textContent();
			};
			expect(await drop(join(cli.dir, "cut.json"))).toBe(
				`cut.json: not valid JSON (a file cut short?), so not a trace; settle --trace <file> records one. ${page1}`,
			);
			expect(await drop(join(cli.dir, "empty.json"))).toBe(`empty.json: an empty file, not a trace. ${page1}`);
			expect(await drop(join(cli.dir, "package.json"))).toBe(
				`package.json: not a Settle lifecycle trace; settle --trace <file> records one. ${page1}`,
			);
			expect(await drop(join(cli.dir, "none.json"))).toBe(
				`none.json: a Settle trace with no events: nothing to show. ${page1}`,
			);
			expect(await drop(other)).toBe(
				`other.json: a Settle trace of ${otherEvents} events: run settle trace other.json to view it. ${page1}`,
			);
			// The name is text, never markup.
			expect(await drop(join(cli.dir, "<b>odd<b>.json"))).toContain("<b>odd<b>.json: not a Settle lifecycle trace");
			expect(await page.locator("#drop-note b").count()).toBe(0);
			// The page is still the viewer of its own trace.
			expect(page.url()).toBe(pathToFileURL(htmlFile).href);
			expect(await page.title()).toBe(title);
			expect(await page.locator("li[data-i]").count()).toBe(events);
			expect(errors).toEqual([]);
		});
	});
});
