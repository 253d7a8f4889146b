/**
 * `h.settle(done, { hangAfterMs })`: a prompt that can never settle (a tool that ignores its abort
 * signal, a handler that never resolves) fails the test saying what is stuck, instead of hanging
 * until the runner's timeout.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { tick, trackTimers } from "../lifetime/helpers.js";

const open: Harness[] = [];
const releases: (() => void)[] = [];
afterEach(() => {
	for (const release of releases.splice(0)) release();
	for (const h of open.splice(0)) h.cleanup();
});

/** A tool that ignores abort: it returns only when the test releases it. */
function stubbornTool(started: () => void) {
	return {
		name: "stubborn",
		label: "Stubborn",
		description: "ignores abort",
		parameters: { type: "object", properties: {} },
		execute: () =>
			new Promise<{ content: { type: "text"; text: string }[]; details: object }>((resolve) => {
				started();
				releases.push(() => resolve({ content: [{ type: "text", text: "late" }], details: {} }));
			}),
	};
}

describe("h.settle hangAfterMs", () => {
	it("names the tool still executing after an abort it ignored", async () => {
		let started!: () => void;
		const toolStarted = new Promise<void>((resolve) => (started = resolve));
		const h = await createHarness({ simulatedClock: true, customTools: [stubbornTool(started)] });
		open.push(h);
		h.setResponses([fauxAssistantMessage([fauxToolCall("stubborn", {}, { id: "call-1" })], { stopReason: "toolUse" })]);
		const done = h.session.prompt("go");
		await toolStarted;
		void h.session.abort();
		const error = await h.settle(done, { hangAfterMs: 50 }).then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("OPERATION_STALLED");
		expect((error as SettleError).message).toMatch(
			/^h\.settle: not settled after 50 ms of real time \(lifecycle running\.\w+\)\. Tools still executing: stubborn \(call-1\)\. Extension handlers still running: none\./,
		);
	});

	it("names an extension handler that never resolves", async () => {
		const h = await createHarness({
			simulatedClock: true,
			extensionFactories: [(pi) => pi.on("message_end", () => new Promise<void>((resolve) => releases.push(resolve)))],
		});
		open.push(h);
		h.setResponses([fauxAssistantMessage("hi")]);
		const error = await h.settle(h.session.prompt("go"), { hangAfterMs: 50 }).then(
			() => undefined,
			(e: unknown) => e as Error,
		);
		expect(error?.message).toContain(
			"Tools still executing: none. Extension handlers still running: message_end in <inline:1>.",
		);
	});

	it("a prompt that settles resolves as before and leaves no timer running", async () => {
		const h = await createHarness({ simulatedClock: true });
		open.push(h);
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage("ok"),
		]);
		// Only the timers made from here on: the process's own come and go whenever they do (vitest's
		// 100 ms task-update throttle, pending or not as the test starts, failed a shuffled run).
		const timers = trackTimers();
		try {
			await h.settle(h.session.prompt("go"), { hangAfterMs: 60_000 });
			expect(h.eventsOfType("agent_settled")).toHaveLength(1);
			// A cleared timer's destroy hook runs a turn of the loop later.
			await tick();
			await tick();
			expect(timers.pendingRefed()).toBe(0);
		} finally {
			timers.stop();
		}
	});
});
