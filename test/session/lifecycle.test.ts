/**
 * The session's state is the machine's: `isStreaming`, `isIdle`, `isRetrying`, `isCompacting` and
 * `lifecycle` come from the prompt-operation actor's snapshot; `inspect()` and `trace()` stream it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { formatTrace, parseTrace } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { settleWithClock } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

describe("lifecycle", () => {
	it("flags are read from the machine at each step of an operation", async () => {
		h = await createHarness();
		const seen: string[] = [];
		const record = (label: string) =>
			seen.push(`${label}:${h.session.lifecycle}:${h.session.isStreaming ? "S" : "-"}${h.session.isIdle ? "I" : "-"}`);
		h.session.subscribe((event) => {
			if (event.type === "agent_start" || event.type === "agent_end" || event.type === "agent_settled")
				record(event.type);
		});
		h.setResponses([fauxAssistantMessage("ok")]);
		record("before");
		await h.session.prompt("hi");
		record("after");
		expect(seen).toEqual([
			"before:idle:-I",
			"agent_start:running.working:S-",
			"agent_end:running.working:S-",
			"agent_settled:settling:-I",
			"after:idle:-I",
		]);
	});

	it("inspect() streams typed state changes, requests and answers, delays and emitted events; trace() records them", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 250 } } });
		const events: LifecycleInspectionEvent[] = [];
		const subscription = h.session.inspect((event) => events.push(event));
		const trace = h.session.trace();
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage("ok"),
		]);
		await settleWithClock(h, h.session.prompt("hi"));
		subscription.unsubscribe();
		trace.stop();
		const states = events.filter((event) => event.kind === "state").map((event) => event.to);
		expect(states).toEqual([
			"idle",
			"preflight",
			"running.working",
			"postRun",
			"retrying",
			"running.working",
			"postRun",
			"beforeSettle.working",
			"settling",
			"idle",
		]);
		expect(events).toContainEqual(
			expect.objectContaining({ kind: "delay", phase: "scheduled", delay: "retryDelay", ms: 250, state: "retrying" }),
		);
		expect(events).toContainEqual(expect.objectContaining({ kind: "delay", phase: "fired", delay: "retryDelay" }));
		expect(events.filter((event) => event.kind === "emitted").map((event) => event.type)).toEqual([
			"preflight_requested",
			"preflight_result",
			"operation_started",
			"run_requested",
			"auto_retry_start",
			"run_requested",
			"auto_retry_end",
			// No extension listens to agent_before_settle: the boundary is passed without a request.
			"settle_requested",
			"operation_settled",
		]);
		expect(events.filter((event) => event.kind === "event").map((event) => event.type)).toEqual([
			"PROMPT",
			"PREFLIGHT_DONE",
			// What the run wrote to the log: system prompt, user message, failed answer.
			"ENTRY_WRITTEN",
			"ENTRY_WRITTEN",
			"ENTRY_WRITTEN",
			// agent_end{willRetry: true}: from here on abortRetry() cancels that retry.
			"RETRY_ANNOUNCED",
			"RUN_DONE",
			// The failed attempt leaves the context (context_edit); the retried run's answer.
			"ENTRY_WRITTEN",
			"ENTRY_WRITTEN",
			"ASSISTANT_MESSAGE_END",
			"RUN_DONE",
			"SETTLE_DONE",
		]);
		const retrying = events.find((event) => event.kind === "state" && event.to === "retrying");
		expect(retrying?.kind === "state" ? retrying.details : {}).toMatchObject({ retryAttempt: 1, retryDelayMs: 250 });
		// Times come from the session clock: the backoff shows as 250 ms.
		const fired = events.find((event) => event.kind === "delay" && event.phase === "fired")!;
		const scheduled = events.find((event) => event.kind === "delay" && event.phase === "scheduled")!;
		expect(fired.at - scheduled.at).toBe(250);
		const saved = parseTrace(JSON.parse(JSON.stringify(trace)));
		expect(saved.events.length).toBe(trace.events.length);
		expect(formatTrace(saved)).toContain("postRun → retrying");
	});

	it("isRetrying is true during the backoff only", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 100 } } });
		const flags: string[] = [];
		h.session.subscribe((event) => {
			if (event.type === "auto_retry_start") flags.push(`retrying=${h.session.isRetrying}`);
		});
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error" }),
			fauxAssistantMessage("ok"),
		]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(flags).toEqual(["retrying=true"]);
		expect(h.session.isRetrying).toBe(false);
	});
});
