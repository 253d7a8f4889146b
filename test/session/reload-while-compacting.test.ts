/**
 * `reload()` while a manual compaction runs (README: refused while a prompt or a compaction runs):
 * refused with `BUSY`, the extensions stay as they are (no `session_shutdown {reason: "reload"}`
 * under the running compaction), the compaction ends as it would have; once it has ended, a
 * reload goes through.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { RELOAD_WHILE_BUSY } from "../../src/session/reload.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("reload() during a manual compaction", () => {
	it("is refused with BUSY; the compaction ends untouched, and a reload after it goes through", async () => {
		const lifecycle: string[] = [];
		h = await createHarness({
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi) => {
					pi.on("session_shutdown", (event) => {
						lifecycle.push(`session_shutdown:${event.reason}`);
					});
				},
			],
		});
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let summarizing!: () => void;
		const summarizerCalled = new Promise<void>((resolve) => {
			summarizing = resolve;
		});
		h.setResponses([
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
			async (_context: Context) => {
				summarizing();
				await gate;
				return fauxAssistantMessage("## Goal\nsummarized");
			},
			// keepRecentTokens 1 splits the last turn: its prefix is summarized too.
			fauxAssistantMessage("## Goal\nprefix"),
		]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact();
		await summarizerCalled;
		expect(h.session.isCompacting).toBe(true);

		const refused = await h.session.reload().catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({ code: "BUSY", message: RELOAD_WHILE_BUSY });
		expect(lifecycle).toEqual([]);

		release();
		const result = await compacting;
		expect(result.summary).toContain("summarized");
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: false });

		await h.session.reload();
		expect(lifecycle).toEqual(["session_shutdown:reload"]);
	});
});
