/**
 * `renderTraceHtml(trace)` draws the machine the trace names: users hold a trace, not Settle's
 * machine definitions (no entry point exported them, yet the docs told users to pass one).
 */
import { describe, expect, it } from "vitest";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { SettleError } from "../../src/errors.js";
import { type LifecycleTrace, TRACE_FORMAT, TRACE_VERSION } from "../../src/inspect/trace.js";
import { renderTraceHtml } from "../../src/inspect/trace-viewer.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";

function emptyTrace(machine?: string): LifecycleTrace {
	return { format: TRACE_FORMAT, version: TRACE_VERSION, dropped: 0, events: [], ...(machine ? { machine } : {}) };
}

describe("renderTraceHtml without a machine", () => {
	it("draws the prompt-operation machine for a session's trace", async () => {
		const h = await createHarness();
		try {
			const trace = h.session.trace();
			h.setResponses([fauxAssistantMessage("hello")]);
			await h.session.prompt("hi");
			trace.stop();
			const recorded = trace.toJSON();
			expect(recorded.machine).toBe(promptOperationMachine.id);
			const html = renderTraceHtml(recorded);
			expect(html).toBe(renderTraceHtml(recorded, promptOperationMachine));
			expect(html).toContain('data-state="promptOperation.retrying"');
		} finally {
			h.cleanup();
		}
	});

	it("says what to pass when the trace is of another machine, or of none", () => {
		for (const [trace, expected] of [
			[
				emptyTrace("checkout"),
				/machine "checkout", not one of Settle's \(promptOperation, runtime\); pass its machine/,
			],
			[emptyTrace(), /names no machine .*pass the machine to draw as the second argument/],
		] as const) {
			let caught: unknown;
			try {
				renderTraceHtml(trace);
			} catch (error) {
				caught = error;
			}
			expect(caught).toBeInstanceOf(SettleError);
			expect((caught as SettleError).code).toBe("INVALID_ARGUMENT");
			expect((caught as SettleError).message).toMatch(expected);
		}
	});

	it("still draws an empty trace when the machine is given", () => {
		expect(renderTraceHtml(emptyTrace(), promptOperationMachine)).toContain("<svg");
	});
});
