/**
 * testkit2 audit: `harnessViolations(h)` called after `h.cleanup()` (a `finally` that runs before
 * the assertion) returned `[]` for a disk-backed harness without checking its session file, which
 * cleanup had deleted with the temp dir: the reopen check passed by not running. It now throws
 * `SESSION_CLOSED` saying to check before cleaning up. A memory-backed harness loses nothing and
 * is still checked.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createHarness, fauxAssistantMessage, harnessViolations } from "../../src/testing/index.js";

describe("harnessViolations after h.cleanup() (testkit2)", () => {
	it("throws SESSION_CLOSED for a disk-backed harness whose session file went with the temp dir", async () => {
		const h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("hello")]);
		await h.session.prompt("hi");
		const file = h.session.sessionFile!;
		expect(existsSync(file)).toBe(true);
		expect(harnessViolations(h)).toEqual([]);
		h.cleanup();
		expect(existsSync(file)).toBe(false);
		let error: unknown;
		try {
			harnessViolations(h);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "SESSION_CLOSED" });
		expect((error as Error).message).toContain("Call harnessViolations(h) before h.cleanup()");
	});

	it("still checks a memory-backed harness after cleanup", async () => {
		const h = await createHarness();
		h.setResponses([fauxAssistantMessage("hello")]);
		await h.session.prompt("hi");
		h.cleanup();
		expect(harnessViolations(h)).toEqual([]);
	});
});
