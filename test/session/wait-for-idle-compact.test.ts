/**
 * `waitForIdle()` right after `compact()` waits for that compaction: the call has asked for it
 * (while it aborts what ran before) even though the machine has not entered `compacting` yet.
 */
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";

const long = (word: string) => `${word} `.repeat(60);

describe("waitForIdle after compact()", () => {
	it("resolves only once the requested compaction has ended, idle or during a prompt", async () => {
		const h = await createHarness({ simulatedClock: true, settings: { compaction: { keepRecentTokens: 5 } } });
		try {
			h.setResponses([fauxAssistantMessage(long("one")), fauxAssistantMessage(long("two"))]);
			await h.settle(h.session.prompt(long("first")));
			await h.settle(h.session.prompt(long("second")));
			h.appendResponses([fauxAssistantMessage("summary"), fauxAssistantMessage("prefix")]);
			const compaction = h.session.compact();
			await h.session.waitForIdle();
			expect(h.session.isCompacting).toBe(false);
			expect(h.session.lifecycle).toBe("idle");
			expect(h.eventsOfType("compaction_end")).toHaveLength(1);
			await compaction;

			// compact() during a prompt aborts it first; waitForIdle still waits for the compaction.
			let release!: () => void;
			const gate = new Promise<void>((resolve) => (release = resolve));
			h.appendResponses([
				async () => {
					await gate;
					return fauxAssistantMessage("late");
				},
				fauxAssistantMessage("summary 2"),
				fauxAssistantMessage("prefix 2"),
			]);
			const prompt = h.session.prompt(long("third")).catch(() => undefined);
			await h.nextEvent("message_end");
			const again = h.session.compact().catch(() => undefined);
			release();
			await h.session.waitForIdle();
			expect(h.session.isCompacting).toBe(false);
			expect(h.eventsOfType("compaction_end")).toHaveLength(2);
			await Promise.all([prompt, again]);
		} finally {
			h.cleanup();
		}
	});

	it("abort() resolves once the session is idle, with a compact() it cancels given up", async () => {
		const h = await createHarness({ simulatedClock: true, settings: { compaction: { keepRecentTokens: 5 } } });
		try {
			h.setResponses([fauxAssistantMessage(long("one"))]);
			await h.settle(h.session.prompt(long("first")));
			h.appendResponses([fauxAssistantMessage(long("two"))]);
			const prompt = h.session.prompt(long("second"));
			await h.nextEvent("message_update"); // streaming
			const compaction = h.session.compact().then(
				() => "compacted",
				(error: Error) => error.message,
			);
			await h.session.abort();
			expect(h.session.lifecycle).toBe("idle");
			expect(h.session.isStreaming).toBe(false);
			expect(await compaction).toBe("Compaction cancelled");
			await prompt;
		} finally {
			h.cleanup();
		}
	});
});
