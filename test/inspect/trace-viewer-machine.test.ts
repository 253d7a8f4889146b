/**
 * `renderTraceHtml(trace)` draws the machine the trace names: users hold a trace, not Settle's
 * machine definitions (no entry point exported them, yet the docs told users to pass one).
 */
import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { SettleError } from "../../src/errors.js";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
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

/** A state event of `machine` (the first of its actor: from null). */
function attached(machine: string, seq: number, to: string): LifecycleInspectionEvent {
	return {
		seq,
		at: seq,
		machine,
		kind: "state",
		from: null,
		to,
		value: to,
		entered: [to],
		exited: [],
		trigger: "inspect",
		details: {},
	};
}

function traceOf(...events: LifecycleInspectionEvent[]): LifecycleTrace {
	return { format: TRACE_FORMAT, version: TRACE_VERSION, dropped: 0, events, machine: events[0]?.machine ?? "" };
}

describe("renderTraceHtml for a trace of several machines", () => {
	it("draws each of Settle's machines the trace names, with a tab each, the first machine shown", () => {
		const html = renderTraceHtml(traceOf(attached("runtime", 1, "active"), attached("promptOperation", 2, "idle")));
		expect(html).toContain('data-state="runtime.rebinding"');
		expect(html).toContain('data-state="promptOperation.retrying"');
		expect(html).toContain('<section class="machine" data-machine="runtime">');
		expect(html).toContain('<section class="machine" data-machine="promptOperation" hidden>');
		expect(html.match(/<button type="button"[^>]*data-machine="(\w+)"/g)).toHaveLength(2);
		expect(html).toContain("<title>runtime + promptOperation lifecycle trace</title>");
	});

	it("names the machine that is not Settle's when none is given; draws the given ones (and Settle's) otherwise", () => {
		const trace = traceOf(attached("promptOperation", 1, "idle"), attached("checkout", 2, "cart"));
		expect(() => renderTraceHtml(trace)).toThrow(/machine "checkout", not one of Settle's/);
		const checkout = createMachine({ id: "checkout", initial: "cart", states: { cart: {} } });
		const html = renderTraceHtml(trace, [checkout]);
		expect(html).toContain('data-state="checkout.cart"');
		expect(html).toContain('data-state="promptOperation.idle"');
		// A machine given once for a one-machine trace draws it alone, as before.
		expect(renderTraceHtml(traceOf(attached("runtime", 1, "active")), runtimeMachine)).not.toContain("<nav");
	});
});
