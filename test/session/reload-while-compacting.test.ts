/**
 * `reload()` while a manual compaction runs (README: refused while a prompt or a compaction runs):
 * refused with `BUSY`, the extensions stay as they are (no `session_shutdown {reason: "reload"}`
 * under the running compaction), the compaction ends as it would have; once it has ended, a
 * reload goes through.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { RELOAD_WHILE_BUSY } from "../../src/session/reload.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { startGatedCompaction } from "./helpers.js";

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
		const { compacting, release } = await startGatedCompaction(h);
		expect(h.session.isCompacting).toBe(true);

		const refused = await h.session.reload().catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({ code: "BUSY", message: RELOAD_WHILE_BUSY });
		expect(lifecycle).toEqual([]);

		release();
		const result = await compacting;
		expect(result.summary).toContain("gated");
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: false });

		await h.session.reload();
		expect(lifecycle).toEqual(["session_shutdown:reload"]);
	});
});
