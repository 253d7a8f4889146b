/**
 * A disposed session runs nothing, so its flags say so: `isStreaming`, `isRetrying` and
 * `isCompacting` are false and `isIdle` is true, whatever the session was doing when it was
 * disposed (was: the stopped actor's last state, e.g. `isStreaming` true forever for a session its
 * runtime replaced mid-run). `isDisposed` tells; `lifecycle` keeps the state it stopped in.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

const flags = (s: AgentSession) => ({
	isDisposed: s.isDisposed,
	isStreaming: s.isStreaming,
	isIdle: s.isIdle,
	isRetrying: s.isRetrying,
	isCompacting: s.isCompacting,
});
const DISPOSED = { isDisposed: true, isStreaming: false, isIdle: true, isRetrying: false, isCompacting: false };

/** Disposes the session; its pending prompt (or compaction) must reject with SESSION_CLOSED. */
async function disposeDuring(pending: Promise<unknown>) {
	h.session.dispose();
	await expect(pending).rejects.toMatchObject({ code: "SESSION_CLOSED" });
}

describe("a disposed session's flags", () => {
	it("disposed while a tool runs: not streaming; lifecycle is where it stopped", async () => {
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		const hold: AgentTool = {
			name: "hold",
			label: "Hold",
			description: "waits",
			parameters: { type: "object", properties: {} },
			execute: async () => {
				await held;
				return { content: [{ type: "text", text: "done" }], details: {} };
			},
		};
		h = await createHarness({ tools: [hold] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("hold", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("x"),
		]);
		expect(flags(h.session)).toMatchObject({ isDisposed: false, isIdle: true });
		const started = h.nextEvent("tool_execution_start");
		const prompt = h.session.prompt("go");
		await started;
		expect(flags(h.session)).toMatchObject({ isStreaming: true, isIdle: false });
		await disposeDuring(prompt);
		expect(flags(h.session)).toEqual(DISPOSED);
		expect(h.session.lifecycle).toBe("running.working");
		release();
		await h.session.waitForIdle();
		expect(flags(h.session)).toEqual(DISPOSED);
	});

	it("disposed during a retry backoff: not retrying", async () => {
		h = await createHarness({ simulatedClock: true });
		h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" })]);
		const retry = h.nextEvent("auto_retry_start");
		const prompt = h.session.prompt("go");
		await retry;
		expect(flags(h.session)).toMatchObject({ isStreaming: true, isRetrying: true });
		await disposeDuring(prompt);
		expect(flags(h.session)).toEqual(DISPOSED);
	});

	it("disposed during a compaction: not compacting", async () => {
		h = await createHarness({ settings: { compaction: { keepRecentTokens: 10 } } });
		h.setResponses([fauxAssistantMessage("one ".repeat(100)), fauxAssistantMessage("two ".repeat(100))]);
		await h.session.prompt(`first ${"x ".repeat(100)}`);
		await h.session.prompt(`second ${"y ".repeat(100)}`);
		let requested!: () => void;
		const summaryRequested = new Promise<void>((resolve) => {
			requested = resolve;
		});
		h.setResponses([
			() => {
				requested();
				return new Promise(() => {}); // the summary never comes: the compaction is still running
			},
		]);
		const compaction = h.session.compact();
		await summaryRequested;
		expect(flags(h.session)).toMatchObject({ isCompacting: true, isIdle: false });
		await disposeDuring(compaction);
		expect(flags(h.session)).toEqual(DISPOSED);
	});
});

describe("subscribe on a disposed session", () => {
	it("throws SESSION_CLOSED saying to create a new session, instead of adding a listener that never hears anything", async () => {
		h = await createHarness();
		await h.session.dispose();
		let thrown: unknown;
		try {
			h.session.subscribe(() => undefined);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toMatchObject({
			code: "SESSION_CLOSED",
			message: expect.stringMatching(/disposed.*Create a new session/),
		});
	});
});
