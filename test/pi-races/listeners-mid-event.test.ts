/**
 * A host's `session.subscribe` listeners that subscribe or unsubscribe while an event is being
 * delivered (one-shot waiters that remove themselves, a listener that adds another). Event emitters
 * that iterate their live listener list skip the listener after one that removed itself
 * (tiny-emitter#1, cytoscape.js#1953) and call one added mid-event at once (argent#870). Settle
 * delivers each event to the listeners subscribed when it was emitted, as Node's EventEmitter does.
 */
import { describe, expect, it } from "vitest";
import type { AgentSessionEvent } from "../../src/index.js";
import { diskSessionsPerTest, fileMessages } from "./disk-harness.js";

const sessions = diskSessionsPerTest();

describe("tiny-emitter#1, cytoscape.js#1953, argent#870: listeners that unsubscribe or subscribe during an event", () => {
	it("two one-shot waiters on agent_settled both wake, the listener after them hears every event once, and one added mid-event starts with the next event", async () => {
		const { session, provider } = await sessions.session();
		provider.answer("the answer");
		// Two parts of a host each wait for the run's end with a self-removing listener (as `nextEvent`).
		const woken: string[] = [];
		for (const waiter of ["first waiter", "second waiter"]) {
			const off = session.subscribe((event) => {
				if (event.type !== "agent_settled") return;
				off();
				woken.push(waiter);
			});
		}
		const log: AgentSessionEvent["type"][] = [];
		session.subscribe((event) => log.push(event.type));
		// A listener that, at agent_start, subscribes another and then removes itself.
		const lateLog: AgentSessionEvent["type"][] = [];
		const offStarter = session.subscribe((event) => {
			if (event.type !== "agent_start") return;
			session.subscribe((later) => lateLog.push(later.type));
			offStarter();
		});
		// A listener that removes the one after it during message_end: that one still hears this event.
		const removedLog: AgentSessionEvent["type"][] = [];
		let offRemoved: () => void = () => {};
		session.subscribe((event) => {
			if (event.type === "message_end") offRemoved();
		});
		offRemoved = session.subscribe((event) => removedLog.push(event.type));

		await session.prompt("hello");

		expect(woken).toEqual(["first waiter", "second waiter"]);
		expect(log[0]).toBe("agent_start");
		expect(log.at(-1)).toBe("agent_settled");
		expect(log.filter((type) => type === "agent_settled")).toHaveLength(1);
		expect(lateLog).toEqual(log.slice(1));
		expect(removedLog).toEqual(log.slice(0, log.indexOf("message_end") + 1));
		expect(fileMessages(session.sessionFile!).map((message) => message.role)).toEqual(["system", "user", "assistant"]);
	});
});
