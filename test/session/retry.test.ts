/**
 * Auto-retry (behavior C.4) on the actor's SimulatedClock: pi's S3/S3b event sequences, the failed
 * attempt omitted from the context by a persisted `context_edit` (so a reopened session has the
 * same context), backoff doubling, provider-requested delays, cancellation, `agent_end.willRetry`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";
import { comparable, fileSummary, reopenedContext, roles, settleWithClock, tick } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const RATE_LIMITED = "429 Too Many Requests: rate limit exceeded";
const error = (errorMessage: string) => fauxAssistantMessage("", { stopReason: "error", errorMessage });

function retryLabels(h: Harness): string[] {
	return h.events
		.filter((event) => event.type !== "message_update")
		.map((event) => {
			switch (event.type) {
				case "auto_retry_start":
					return `auto_retry_start(${event.attempt}/${event.maxAttempts},${event.delayMs})`;
				case "auto_retry_end":
					return `auto_retry_end(${event.success},${event.attempt}${event.finalError ? `,${event.finalError}` : ""})`;
				case "entry_appended":
					return `entry_appended(${event.entry.type})`;
				case "agent_end":
					return `agent_end(willRetry=${event.willRetry})`;
				default:
					return event.type;
			}
		});
}

describe("auto-retry", () => {
	it("retries transient errors with backoff on the actor clock, then succeeds (pi's S3)", async () => {
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 50, maxRetries: 3 } },
		});
		h.setResponses([
			fauxAssistantMessage("warm-up"),
			error(OVERLOADED),
			error(RATE_LIMITED),
			fauxAssistantMessage("Recovered"),
		]);
		await h.session.prompt("warm up");
		h.events.length = 0;
		const lifecycles: string[] = [];
		h.session.inspect((event) => {
			if (event.kind === "state") lifecycles.push(event.to);
		});
		await settleWithClock(h, h.session.prompt("hi"));
		expect(retryLabels(h).join(" ")).toBe(
			[
				"agent_start turn_start message_start message_end message_start message_end turn_end agent_end(willRetry=true)",
				`auto_retry_start(1/3,50) entry_appended(context_edit)`,
				"agent_start turn_start message_start message_end turn_end agent_end(willRetry=true)",
				`auto_retry_start(2/3,100) entry_appended(context_edit)`,
				"agent_start turn_start message_start message_end auto_retry_end(true,2) turn_end agent_end(willRetry=false)",
				"agent_settled",
			].join(" "),
		);
		expect(h.eventsOfType("auto_retry_start")[0]?.errorMessage).toBe(OVERLOADED);
		expect(lifecycles.filter((state) => state === "retrying")).toHaveLength(2);
		// Failed attempts stay in the log but leave the context; the file rebuilds the same context.
		expect(fileSummary(h.session.sessionFile!).slice(-6)).toEqual([
			"message:user",
			"message:assistant",
			"context_edit",
			"message:assistant",
			"context_edit",
			"message:assistant",
		]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "user", "assistant"]);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("gives up after maxRetries with the last error (pi's S3b); the last error stays in the context", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 20, maxRetries: 2 } } });
		h.setResponses([
			error("503 service unavailable"),
			error("503 service unavailable"),
			error("503 service unavailable"),
		]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start").map((e) => e.delayMs)).toEqual([20, 40]);
		expect(h.eventsOfType("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 2, finalError: "503 service unavailable" },
		]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant"]);
		expect(h.session.messages.at(-1)).toMatchObject({ stopReason: "error" });
		expect(h.faux.callCount).toBe(3);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("waits at least as long as the provider asked", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 50 } } });
		h.setResponses([error("429 rate limit exceeded. Please retry in 3s."), fauxAssistantMessage("ok")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("auto_retry_start").map((e) => e.delayMs)).toEqual([3000]);
	});

	it("does not retry fatal errors or when retry is disabled", async () => {
		h = await createHarness({ simulatedClock: true });
		h.setResponses([error("invalid_api_key: bad key")]);
		await h.session.prompt("hi");
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.eventsOfType("agent_end")[0]?.willRetry).toBe(false);
		h.session.setAutoRetryEnabled(false);
		h.setResponses([error(OVERLOADED)]);
		await h.session.prompt("again");
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.eventsOfType("agent_end")[1]?.willRetry).toBe(false);
	});

	it("abortRetry during the backoff ends the sequence as cancelled and settles once", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 1000 } } });
		h.setResponses([error(OVERLOADED), fauxAssistantMessage("never")]);
		const running = h.session.prompt("hi");
		while (!h.session.isRetrying) await tick();
		expect(h.session.lifecycle).toBe("retrying");
		h.session.abortRetry();
		await running;
		expect(h.eventsOfType("auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
		]);
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.isRetrying).toBe(false);
	});

	it("abort() during the backoff also cancels the retry", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 1000 } } });
		h.setResponses([error(OVERLOADED)]);
		const running = h.session.prompt("hi");
		while (!h.session.isRetrying) await tick();
		await h.session.abort();
		await running;
		expect(h.eventsOfType("auto_retry_end").at(-1)).toMatchObject({ success: false, finalError: "Retry cancelled" });
		expect(h.session.lifecycle).toBe("idle");
	});

	it("regression: abort() while the retried request streams reported auto_retry_end{success:true} (as pi 0.73.1); now the retry ends cancelled, once", async () => {
		h = await createHarness({ persistence: "disk", simulatedClock: true, settings: { retry: { baseDelayMs: 1000 } } });
		h.setResponses([
			error(OVERLOADED),
			// The user stops the retried request while the model answers it.
			async () => {
				void h.session.abort();
				return fauxAssistantMessage("never streamed");
			},
			fauxAssistantMessage("next answer"),
		]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(retryLabels(h).join(" ")).toBe(
			[
				"agent_start turn_start message_start message_end message_start message_end message_start message_end turn_end",
				"agent_end(willRetry=true) auto_retry_start(1/3,1000) entry_appended(context_edit)",
				"agent_start turn_start message_start message_end auto_retry_end(false,1,Retry cancelled) turn_end agent_end(willRetry=false)",
				"agent_settled",
			].join(" "),
		);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		expect(h.session.lifecycle).toBe("idle");
		// The next prompt starts a fresh sequence: nothing left over from the cancelled one.
		h.events.length = 0;
		await settleWithClock(h, h.session.prompt("again"));
		expect(h.eventsOfType("auto_retry_end")).toEqual([]);
		expect(h.session.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "next answer" }] });
	});

	it("extensions see each failed run end and the retried runs; one agent_settled for the whole request", async () => {
		const seen: string[] = [];
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 10 } },
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("agent_end", () => void seen.push("agent_end"));
					pi.on("agent_settled", () => void seen.push("agent_settled"));
				},
			],
		});
		h.setResponses([error(OVERLOADED), fauxAssistantMessage("ok")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(seen).toEqual(["agent_end", "agent_end", "agent_settled"]);
	});

	it("agent_end.willRetry is false when abort() came before agent_end reached listeners, and no retry follows", async () => {
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 10 } },
			extensionFactories: [(pi: ExtensionAPI) => pi.on("agent_end", (_event, ctx) => ctx.abort())],
		});
		h.setResponses([error(OVERLOADED), fauxAssistantMessage("never")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.eventsOfType("agent_end").map((event) => event.willRetry)).toEqual([false]);
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("regression: retry turned off by an agent_end{willRetry: true} listener: the announced retry never came (no auto_retry_start, agent_settled); now it comes, and the setting applies from the next failure", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 10, maxRetries: 3 } } });
		h.setResponses([error(OVERLOADED), error(RATE_LIMITED), fauxAssistantMessage("never")]);
		h.session.subscribe((event) => {
			if (event.type === "agent_end" && event.willRetry) h.session.setAutoRetryEnabled(false);
		});
		await settleWithClock(h, h.session.prompt("hi"));
		expect(retryLabels(h).filter((label) => label.startsWith("agent_end") || label.startsWith("auto_retry"))).toEqual([
			"agent_end(willRetry=true)",
			"auto_retry_start(1/3,10)",
			"agent_end(willRetry=false)",
			`auto_retry_end(false,1,${RATE_LIMITED})`,
		]);
		expect(h.faux.callCount).toBe(2);
		expect(sessionEventViolations(h.events)).toEqual([]);
		expect(h.session.lifecycle).toBe("idle");
	});

	it("regression: retry turned on by an agent_end{willRetry: false} listener: the run was retried though agent_end said it would not be; now it is not, and the setting applies from the next failure", async () => {
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { enabled: false, baseDelayMs: 10, maxRetries: 3 } },
		});
		h.setResponses([error(OVERLOADED), error(OVERLOADED), fauxAssistantMessage("retried")]);
		h.session.subscribe((event) => {
			if (event.type === "agent_end" && !event.willRetry) h.session.setAutoRetryEnabled(true);
		});
		await settleWithClock(h, h.session.prompt("hi"));
		expect(retryLabels(h).filter((label) => label.startsWith("agent_end") || label.startsWith("auto_retry"))).toEqual([
			"agent_end(willRetry=false)",
		]);
		expect(h.faux.callCount).toBe(1);
		expect(sessionEventViolations(h.events)).toEqual([]);
		expect(h.session.autoRetryEnabled).toBe(true);
		h.events.length = 0;
		await settleWithClock(h, h.session.prompt("again"));
		expect(retryLabels(h).filter((label) => label.startsWith("agent_end") || label.startsWith("auto_retry"))).toEqual([
			"agent_end(willRetry=true)",
			"auto_retry_start(1/3,10)",
			"auto_retry_end(true,1)",
			"agent_end(willRetry=false)",
		]);
		expect(sessionEventViolations(h.events)).toEqual([]);
	});

	it("regression: an extension's agent_end handler that turned retries off made listeners see willRetry false after it saw true, and the retry it was told of never came; now both see true and it comes", async () => {
		const told: (boolean | undefined)[] = [];
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 10, maxRetries: 3 } },
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_end", (event) => {
						told.push(event.willRetry);
						h.session.settingsManager.setRetryEnabled(false);
					}),
			],
		});
		h.setResponses([error(OVERLOADED), fauxAssistantMessage("retried")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(told).toEqual([true, false]);
		expect(retryLabels(h).filter((label) => label.startsWith("agent_end") || label.startsWith("auto_retry"))).toEqual([
			"agent_end(willRetry=true)",
			"auto_retry_start(1/3,10)",
			"auto_retry_end(true,1)",
			"agent_end(willRetry=false)",
		]);
		expect(h.faux.callCount).toBe(2);
		expect(sessionEventViolations(h.events)).toEqual([]);
	});

	it("regression: an extension's agent_end handler that turned retries on made listeners see willRetry true after it saw false, and the run was retried; now both see false and it is not", async () => {
		const told: (boolean | undefined)[] = [];
		h = await createHarness({
			simulatedClock: true,
			settings: { retry: { enabled: false, baseDelayMs: 10, maxRetries: 3 } },
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_end", (event) => {
						told.push(event.willRetry);
						h.session.settingsManager.setRetryEnabled(true);
					}),
			],
		});
		h.setResponses([error(OVERLOADED), fauxAssistantMessage("never")]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(told).toEqual([false]);
		expect(h.eventsOfType("agent_end").map((event) => event.willRetry)).toEqual([false]);
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.faux.callCount).toBe(1);
		expect(sessionEventViolations(h.events)).toEqual([]);
	});

	it("regression: retry.enabled turned off straight through session.settingsManager during a run was ignored until the next prompt (autoRetryEnabled said false, the failure was retried); now the run's end reads it", async () => {
		h = await createHarness({ simulatedClock: true, settings: { retry: { baseDelayMs: 10, maxRetries: 3 } } });
		h.setResponses([
			async () => {
				h.session.settingsManager.setRetryEnabled(false);
				return error(OVERLOADED);
			},
			fauxAssistantMessage("never"),
		]);
		await settleWithClock(h, h.session.prompt("hi"));
		expect(h.session.autoRetryEnabled).toBe(false);
		expect(h.eventsOfType("agent_end").map((event) => event.willRetry)).toEqual([false]);
		expect(h.eventsOfType("auto_retry_start")).toEqual([]);
		expect(h.faux.callCount).toBe(1);
		expect(sessionEventViolations(h.events)).toEqual([]);
	});
});
