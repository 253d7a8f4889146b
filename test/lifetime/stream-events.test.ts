/**
 * A streamed answer's events are garbage once the agent has handled them. The agent loop used to
 * race every stream event against one abort promise that lives as long as the response, which left
 * a reaction (holding the event and its partial message) on that promise per event: a long answer
 * kept all of its events alive until it ended, and `settle --json` (whose JSON.stringify flattens
 * each partial text) ran out of memory on a 100 KB answer.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { AssistantMessageEventStream } from "../../src/llm/event-stream.js";
import { type AssistantMessage, emptyUsage } from "../../src/llm/types.js";
import { createFauxProvider } from "../../src/testing/index.js";
import { CollectionTracker } from "./helpers.js";

const EVENTS = 60;

describe("stream events during a long answer", () => {
	it("are collectable once handled, while the answer still streams; an abort still ends a silent provider", async () => {
		const model = createFauxProvider().getModel()!;
		const partial: AssistantMessage = {
			role: "assistant",
			content: [{ type: "text", text: "" }],
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage: emptyUsage(),
			stopReason: "stop",
			timestamp: Date.now(),
		};
		const tracker = new CollectionTracker();
		const stream = new AssistantMessageEventStream();
		const agent = new Agent({ streamFn: () => stream, initialState: { model } });
		let updates = 0;
		let allHandled!: () => void;
		const handled = new Promise<void>((resolve) => {
			allHandled = resolve;
		});
		agent.subscribe((event) => {
			if (event.type === "message_update" && ++updates === EVENTS) allHandled();
		});

		stream.push({ type: "start", partial });
		for (let index = 0; index < EVENTS; index++) {
			const event = { type: "text_delta" as const, contentIndex: 0, delta: "x", partial };
			tracker.track(event, `event ${String(index).padStart(2, "0")}`);
			stream.push(event);
		}
		const run = agent.prompt("go");
		await handled;
		// The provider now says nothing more: the agent waits for its next event.
		const alive = await tracker.alive();
		expect(alive.length, `still alive: ${alive.join(", ")}`).toBeLessThanOrEqual(1);

		// The wake-up on abort still works without the long-lived promise.
		agent.abort();
		await run;
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
	});
});
