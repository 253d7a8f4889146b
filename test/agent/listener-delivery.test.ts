import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/llm/types.js";
import { fauxAssistantMessage, fauxText } from "../../src/testing/index.js";
import { createTestAgent } from "./helpers.js";

describe("listener delivery with synchronous and asynchronous listeners mixed", () => {
	it("an async listener's replacement reaches the synchronous listeners after it, in order", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("original")]);
		const log: string[] = [];
		let replacement: AssistantMessage | undefined;
		agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant") log.push("sync-before");
		});
		agent.subscribe(async (event) => {
			if (event.type !== "message_end" || event.message.role !== "assistant") return undefined;
			await new Promise((resolve) => setTimeout(resolve, 0));
			log.push("async");
			replacement = { ...event.message, content: [fauxText("replaced")] };
			return { message: replacement };
		});
		const seenAfter: unknown[] = [];
		agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant") {
				log.push("sync-after");
				seenAfter.push(event.message, agent.state.messages.at(-1));
			}
		});
		await agent.prompt("hi");
		expect(log).toEqual(["sync-before", "async", "sync-after"]);
		expect(seenAfter).toEqual([replacement, replacement]);
		expect(agent.state.messages.at(-1)).toBe(replacement);
	});

	it("a synchronous listener that throws ends the run like an async one", async () => {
		const { agent, faux } = createTestAgent();
		faux.setResponses([fauxAssistantMessage("never seen")]);
		agent.subscribe((event) => {
			if (event.type === "message_start" && event.message.role === "user") throw new Error("listener broke");
		});
		await agent.prompt("hi");
		expect(agent.state.errorMessage).toBe("listener broke");
		expect(agent.state.isStreaming).toBe(false);
		expect(faux.callCount).toBe(0);
	});
});
