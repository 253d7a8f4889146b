/**
 * Which entries each step wrote, from the trace alone: every entry the session appends to its log
 * shows as an `ENTRY_WRITTEN` event (id, type, role, the target of a context edit), in the state
 * the machine was in when it was written. Regression: a trace named no entry but a compaction's
 * first kept one, so a reader could not tell that the failed attempt of a retry was taken out of
 * the context by a `context_edit` written during the backoff, nor which message each run wrote.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatLifecycleEvent } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { fileEntries, tracedOverflow } from "./trace-helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const failure = (message: string) => fauxAssistantMessage("", { stopReason: "error", errorMessage: message });

/** Each ENTRY_WRITTEN with the state the machine was in then: `retrying: context_edit 1a2b (omits 3c4d)`. */
function writtenByState(events: readonly LifecycleInspectionEvent[]): { state: string; line: string; id: string }[] {
	let state = "";
	const out: { state: string; line: string; id: string }[] = [];
	for (const event of events) {
		if (event.kind === "state") state = event.to;
		if (event.kind === "event" && event.type === "ENTRY_WRITTEN") {
			const line = formatLifecycleEvent(event).replace(/^\+\d+ms\s+event\s+ENTRY_WRITTEN /, "");
			out.push({ state, line, id: (event.payload as { entryId: string }).entryId });
		}
	}
	return out;
}

describe("a trace shows which entries each step wrote", () => {
	it("two retries: each run's message, and each failed attempt's context_edit written in retrying", async () => {
		h = await createHarness({ persistence: "disk", simulatedClock: true });
		h.setResponses([failure("503 Service Unavailable"), failure("529 overloaded"), fauxAssistantMessage("ok")]);
		const trace = h.session.trace();
		await h.settle(h.session.prompt("hello"));
		trace.stop();
		const file = fileEntries(h);
		const written = writtenByState(trace.toJSON().events);
		// Exactly the entries the operation wrote, in the file's order (the header and the model and
		// thinking-level entries were written before it).
		expect(written.map((w) => w.id)).toEqual(file.slice(-written.length).map((e) => e.id));
		const [system, user, first, edit1, second, edit2, answer] = file.slice(-7);
		expect(written.map(({ state, line }) => `${state}: ${line}`)).toEqual([
			`running.working: message ${system!.id} (system)`,
			`running.working: message ${user!.id} (user)`,
			`running.working: message ${first!.id} (assistant, error)`,
			`retrying: context_edit ${edit1!.id} (omits ${first!.id})`,
			`running.working: message ${second!.id} (assistant, error)`,
			`retrying: context_edit ${edit2!.id} (omits ${second!.id})`,
			`running.working: message ${answer!.id} (assistant)`,
		]);
		expect(edit1).toMatchObject({ type: "context_edit", targetId: first!.id });
	});

	it("an overflow: the failed answer's context_edit and the compaction entry are written in compacting", async () => {
		const overflow = await tracedOverflow();
		h = overflow.h;
		const [user, failed, edit, compaction, answer] = fileEntries(h).slice(-5);
		expect(writtenByState(overflow.events).map(({ state, line }) => `${state}: ${line}`)).toEqual([
			`running.working: message ${user!.id} (user)`,
			`running.working: message ${failed!.id} (assistant, error)`,
			`compacting.working: context_edit ${edit!.id} (omits ${failed!.id})`,
			`compacting.working: compaction ${compaction!.id}`,
			`running.working: message ${answer!.id} (assistant)`,
		]);
	});

	it("an abort during the backoff: the failed attempt's context_edit is the operation's last entry", async () => {
		h = await createHarness({ persistence: "disk", simulatedClock: true });
		h.setResponses([failure("503 Service Unavailable"), fauxAssistantMessage("never sent")]);
		const trace = h.session.trace();
		const done = h.session.prompt("hello");
		await h.nextEvent("auto_retry_start");
		await h.session.abort();
		await h.settle(done);
		trace.stop();
		const file = fileEntries(h);
		const written = writtenByState(trace.toJSON().events);
		expect(written.at(-1)).toEqual({
			state: "retrying",
			id: file.at(-1)!.id,
			line: `context_edit ${file.at(-1)!.id} (omits ${file.at(-2)!.id})`,
		});
	});

	it("an uninspected session sends its machine no ENTRY_WRITTEN (no per-message cost); inspected again, it does", async () => {
		h = await createHarness({ persistence: "memory" });
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		const received: string[] = [];
		// The machine's own view: every event it receives, inspected or not (XState's inspect hook).
		const actor = (
			h.session as unknown as {
				actor: { system: { inspect(o: (e: { type: string; event?: { type: string } }) => void): void } };
			}
		).actor;
		actor.system.inspect((e) => {
			if (e.type === "@xstate.event" && e.event?.type === "ENTRY_WRITTEN") received.push(e.event.type);
		});
		await h.session.prompt("a");
		expect(received).toEqual([]);
		const subscription = h.session.inspect(() => {});
		await h.session.prompt("b");
		subscription.unsubscribe();
		expect(received).toEqual(["ENTRY_WRITTEN", "ENTRY_WRITTEN"]);
	});

	it("a disposed session stops observing a session manager the host keeps (no stale observer on it)", async () => {
		h = await createHarness({ persistence: "memory" });
		const manager = h.session.sessionManager;
		expect(manager.entryObserver).toBeTypeOf("function");
		await h.session.dispose();
		expect(manager.entryObserver).toBeUndefined();
	});
});
