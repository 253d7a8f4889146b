/**
 * Messages queued when a session is disposed mid-run stay undelivered and listed (was: the aborted,
 * detached run still took the next follow-up or steer into `session.messages`, though nothing of
 * it reached the session file — the message was shown as delivered and as pending at once, or, if
 * its delivery had started, as neither). A host resends what `getFollowUpMessages()` lists on the
 * session that replaced this one, so the list must be exactly what the log lacks, and
 * `session.messages` (frozen at dispose) must not show it as delivered — also when the dispose
 * lands after the run took the follow-up and before its `message_start` (e.g. at that `turn_start`).
 */
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

let h: Harness;
afterEach(() => h?.cleanup());

const userTexts = (messages: readonly AgentMessage[]) =>
	messages.flatMap((m) => (m.role === "user" ? [JSON.stringify(m.content)] : []));
const text = (t: string) => JSON.stringify([{ type: "text", text: t }]);

/** Queues follow-ups A and B while "go" runs, and disposes at the first event `when` accepts. */
async function disposeWhen(when: (event: AgentSessionEvent) => boolean, queue: "followUp" | "steer") {
	h = await createHarness({ persistence: "disk" });
	h.setResponses([
		fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
		fauxAssistantMessage("answer to go"),
		fauxAssistantMessage("answer to A"),
		fauxAssistantMessage("answer to B"),
	]);
	const file = h.session.sessionFile!;
	let disposed = false;
	const queued: string[] = [];
	h.session.subscribe((event) => {
		if (event.type === "tool_execution_start" && queued.length === 0) {
			for (const t of ["A", "B"]) {
				if (disposed) break; // queueing A can dispatch queue_update, where the dispose may land
				queued.push(t);
				void h.session[queue](t);
			}
		}
		if (!disposed && when(event)) {
			disposed = true;
			h.session.dispose();
		}
	});
	await expect(h.session.prompt("go")).rejects.toMatchObject({ code: "SESSION_CLOSED" });
	const pending = [...h.session.getSteeringMessages(), ...h.session.getFollowUpMessages()];
	// The detached run has ended (nothing more can change) once the Agent is idle.
	await h.session.agent.waitForIdle();
	// Disposed before the first message was written: no file.
	const logged = (existsSync(file) ? readFileSync(file, "utf8") : "")
		.split("\n")
		.filter((line) => line.includes('"role":"user"'))
		.map((line) => JSON.stringify(JSON.parse(line).message.content));
	return {
		queued,
		pending,
		logged,
		live: userTexts(h.session.messages),
		// The Agent's own state: the detached run took nothing more from the queues.
		agentState: userTexts(h.session.state.messages),
		calls: h.faux.callCount,
	};
}

describe("dispose with queued messages", () => {
	it("disposed at the turn_end after A's answer: B stays listed, and is neither in messages nor in the log", async () => {
		const run = await disposeWhen(
			(e) => e.type === "turn_end" && JSON.stringify(e.message).includes("answer to A"),
			"followUp",
		);
		expect(run.logged).toEqual([text("go"), text("A")]);
		expect(run.pending).toEqual(["B"]);
		expect(run.live).toEqual(run.logged);
		expect(run.agentState).toEqual(run.logged);
		expect(run.calls).toBe(3);
	});

	it("disposed at the turn_end of the tool turn: queued steers stay listed, none delivered", async () => {
		const run = await disposeWhen((e) => e.type === "turn_end" && e.toolResults.length > 0, "steer");
		expect(run.logged).toEqual([text("go")]);
		expect(run.pending).toEqual(["A", "B"]);
		expect(run.live).toEqual(run.logged);
	});

	it("each queued text is in the log or listed as pending, exactly once, wherever the dispose lands", async () => {
		for (let at = 1; at <= 40; at++) {
			let n = 0;
			const run = await disposeWhen(() => ++n === at, "followUp");
			for (const t of ["A", "B"]) {
				const count = run.logged.filter((m) => m === text(t)).length + run.pending.filter((p) => p === t).length;
				expect({ at, t, count }).toEqual({ at, t, count: run.queued.includes(t) ? 1 : 0 });
				// Shown as delivered exactly when it is in the log.
				const live = run.live.filter((m) => m === text(t)).length;
				expect({ at, t, live }).toEqual({ at, t, live: run.logged.filter((m) => m === text(t)).length });
			}
			h.cleanup();
		}
	});
});
