/**
 * The trace viewer's diagram is larger than a window: selecting an event must bring the state the
 * machine was in into view, or the highlight is off-screen (it was: only the event list scrolled).
 * Real headless Chromium, as in trace-viewer.test.ts.
 */
import { describe, expect, it } from "vitest";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { recordExampleTrace } from "../../src/inspect/example-traces.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { openChromium } from "./chromium.js";

describe("renderTraceHtml: the selected state is in view", () => {
	it("after loading, and after selecting the retry and the compaction", async () => {
		const trace = await recordExampleTrace();
		const html = renderTraceHtml(trace, promptOperationMachine);
		const { browser, close } = await openChromium();
		try {
			const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
			await page.setContent(html);
			const diagram = (await page.locator(".diagram").boundingBox())!;
			/** Whether the box of the innermost current state has its centre inside the diagram pane. */
			const currentInView = async () => {
				const state = await page.$$eval("g[data-state].current", (groups) => groups.at(-1)?.getAttribute("data-state"));
				const box = (await page.locator(`g[data-state="${state}"] > rect`).first().boundingBox())!;
				const x = box.x + box.width / 2;
				const y = box.y + box.height / 2;
				return {
					state,
					inView: x >= diagram.x && x <= diagram.x + diagram.width && y >= diagram.y && y <= diagram.y + diagram.height,
				};
			};
			expect(await currentInView()).toEqual({ state: "promptOperation.idle", inView: true });
			const index = (to: string) => trace.events.findIndex((event) => event.kind === "state" && event.to === to);
			await page.locator(`li[data-i="${index("retrying")}"]`).click();
			expect(await currentInView()).toEqual({ state: "promptOperation.retrying", inView: true });
			await page.locator(`li[data-i="${index("compacting.working")}"]`).click();
			expect(await currentInView()).toEqual({ state: "promptOperation.compacting.working", inView: true });
		} finally {
			await close();
		}
	});
});
