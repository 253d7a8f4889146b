/**
 * testkit2 audit: `h.nextEvent(type)` on a harness that was cleaned up used to wait forever (the
 * disposed session emits nothing), so a test that cleaned up too early, or awaited an event after
 * its `finally`, ended as a bare test timeout. It now rejects with `SESSION_CLOSED` saying why.
 */
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";

describe("h.nextEvent and h.cleanup (testkit2)", () => {
	it("rejects with SESSION_CLOSED when called after cleanup", async () => {
		const h = await createHarness();
		h.cleanup();
		const error = await h.nextEvent("agent_end").then(
			() => undefined,
			(reason: unknown) => reason,
		);
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "SESSION_CLOSED" });
		expect((error as Error).message).toContain('h.nextEvent("agent_end") was called after h.cleanup()');
	});

	it("rejects a wait still pending when cleanup runs", async () => {
		const h = await createHarness();
		const waiting = h.nextEvent("auto_retry_start").then(
			() => undefined,
			(reason: unknown) => reason,
		);
		h.setResponses([fauxAssistantMessage("no retry here")]);
		await h.session.prompt("hi");
		h.cleanup();
		const error = await waiting;
		expect(error).toMatchObject({ code: "SESSION_CLOSED" });
		expect((error as Error).message).toContain(
			'h.nextEvent("auto_retry_start") was still waiting when h.cleanup() ran',
		);
	});

	it("still resolves for an event that came before cleanup", async () => {
		const h = await createHarness();
		h.setResponses([fauxAssistantMessage("hello")]);
		const settled = h.nextEvent("agent_settled");
		await h.session.prompt("hi");
		h.cleanup();
		await expect(settled).resolves.toMatchObject({ type: "agent_settled" });
	});
});
