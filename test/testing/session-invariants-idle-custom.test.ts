/**
 * `sessionEventViolations` accepts what an idle `sendCustomMessage` documents — a custom
 * `message_start` + `message_end` appended at once, with no run — and still flags any other
 * message outside a run.
 */
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness } from "../../src/testing/harness.js";
import { sessionEventViolations } from "../../src/testing/session-invariants.js";

describe("sessionEventViolations and idle custom messages", () => {
	it("a custom message sent between prompts is clean", async () => {
		const h = await createHarness({ simulatedClock: true });
		try {
			h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
			await h.settle(h.session.prompt("first"));
			await h.session.sendCustomMessage({ customType: "ci", content: "Build failed", display: true });
			await h.settle(h.session.prompt("second"));
			const outside = h.events.filter((event) => event.type === "message_start" && event.message.role === "custom");
			expect(outside).toHaveLength(1);
			expect(sessionEventViolations(h.events)).toEqual([]);
		} finally {
			h.cleanup();
		}
	});

	it("other messages outside a run, or a custom start without its end, are still named", () => {
		const custom = { role: "custom", customType: "ci", content: "x", display: true, timestamp: 1 } as const;
		const user = { role: "user", content: "hi", timestamp: 1 } as const;
		const start = (message: typeof custom | typeof user) => ({ type: "message_start", message }) as AgentSessionEvent;
		const end = (message: typeof custom | typeof user) => ({ type: "message_end", message }) as AgentSessionEvent;
		expect(sessionEventViolations([start(custom), end(custom)])).toEqual([]);
		expect(sessionEventViolations([start(user), end(user)])).toEqual([
			"#0 message_start: outside a run",
			"#1 message_end: outside a run",
			"the stream ends before agent_settled",
		]);
		expect(sessionEventViolations([start(custom)])).toContain("#0 message_start: outside a run");
		expect(sessionEventViolations([start(custom), end({ ...custom })])).toContain("#0 message_start: outside a run");
	});
});
