/**
 * pi-agents#139: an `agent_settled` handler that holds work (waiting for subagents) got no
 * `ctx.signal`, so an `abort()` meanwhile reached nothing and the host's abort waited for the work.
 * Inside the dispatch `ctx.signal` is the dispatch's own signal: `abort()` or disposing the session
 * aborts it; each dispatch gets a fresh one; outside a run and its dispatch it stays undefined.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** An agent_settled handler that holds until its ctx.signal aborts (or `release()`), recording what it saw. */
function holdingExtension() {
	const seen: { aborted: boolean; endedBy: string }[] = [];
	const signals: (AbortSignal | undefined)[] = [];
	let started!: () => void;
	let holding = new Promise<void>((resolve) => {
		started = resolve;
	});
	let release: () => void = () => {};
	let ended!: () => void;
	const firstEnded = new Promise<void>((resolve) => {
		ended = resolve;
	});
	let idleSignal: AbortSignal | undefined | "unset" = "unset";
	const extension = (pi: ExtensionAPI) => {
		pi.registerCommand("peek", {
			handler: async (_args, ctx: ExtensionContext) => {
				idleSignal = ctx.signal;
			},
		});
		pi.on("agent_settled", async (_event, ctx) => {
			const signal = ctx.signal;
			signals.push(signal);
			const aborted = signal?.aborted ?? true;
			const endedBy = await new Promise<string>((resolve) => {
				release = () => resolve("released");
				signal?.addEventListener("abort", () => resolve("aborted"), { once: true });
				started();
			});
			seen.push({ aborted, endedBy });
			ended();
		});
	};
	return {
		extension,
		seen,
		signals,
		holding: () => holding,
		rearm: () => {
			holding = new Promise<void>((resolve) => {
				started = resolve;
			});
		},
		release: () => release(),
		/** The first dispatch's handler has finished. */
		firstEnded: () => firstEnded,
		idleSignal: () => idleSignal,
	};
}

describe("ctx.signal in agent_settled handlers (pi-agents#139)", () => {
	it("regression: abort() while a handler holds work aborts its signal, and abort() then resolves", async () => {
		const hold = holdingExtension();
		h = await createHarness({ extensionFactories: [hold.extension] });
		h.setResponses([fauxAssistantMessage("done")]);
		const prompted = h.session.prompt("start the subagents");
		await hold.holding();
		expect(h.eventsOfType("agent_settled")).toEqual([]);
		await h.session.abort();
		expect(hold.seen).toEqual([{ aborted: false, endedBy: "aborted" }]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		await prompted;
		expect(h.session.isStreaming).toBe(false);
	});

	it("each dispatch gets a fresh signal that a normal end leaves unaborted; none outside a run", async () => {
		const hold = holdingExtension();
		h = await createHarness({ extensionFactories: [hold.extension] });
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		const first = h.session.prompt("first");
		await hold.holding();
		await h.session.abort();
		await first;
		hold.rearm();
		const second = h.session.prompt("second");
		await hold.holding();
		hold.release();
		await second;
		expect(hold.seen).toEqual([
			{ aborted: false, endedBy: "aborted" },
			{ aborted: false, endedBy: "released" },
		]);
		expect(hold.signals[0]).not.toBe(hold.signals[1]);
		expect(hold.signals[1]?.aborted).toBe(false);
		await h.session.prompt("/peek");
		expect(hold.idleSignal()).toBeUndefined();
	});

	it("disposing the session (as a replacement does) aborts the signal of a handler still holding", async () => {
		const hold = holdingExtension();
		h = await createHarness({ extensionFactories: [hold.extension] });
		h.setResponses([fauxAssistantMessage("done")]);
		const prompted = h.session.prompt("start").catch(() => undefined);
		await hold.holding();
		h.session.dispose();
		await prompted;
		expect(hold.signals[0]?.aborted).toBe(true);
		await hold.firstEnded();
		expect(hold.seen).toEqual([{ aborted: false, endedBy: "aborted" }]);
	});
});
