/**
 * pi reports about what changes while a run goes on: tools an extension activates from a tool, a
 * model picked while the answer streams (and a steer taken by the same run) or during a retry's
 * backoff, a retried request's superseded error in the saved branch, an image sent mid-run with no
 * text. Replayed against Settle through its public API on a real session file; what the user should
 * see: the next request of the same run uses what is live now, a delivered message leaves the queue,
 * and a reopened file holds what the live session holds.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	comparable,
	errorReply,
	fileEntries,
	gate,
	OVERLOADED,
	reopenedContext,
	script,
	userTexts,
} from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const tool = (name: string, execute: () => void = () => {}): AgentTool => ({
	name,
	label: name,
	description: `The ${name} tool`,
	parameters: { type: "object" },
	execute: async () => {
		execute();
		return { content: [{ type: "text", text: `${name} done` }], details: {} };
	},
});

describe("pi#6162 / pi#4147: tools activated with pi.setActiveTools() from a running tool", () => {
	it("pi#6162: the next request of the same run offers the activated tool, and the model's call to it runs", async () => {
		let api!: ExtensionAPI;
		const deploy = tool("deploy");
		const loadTools = tool("load_tools", () => api.setActiveTools(["load_tools", "deploy"]));
		h = await createHarness({
			persistence: "disk",
			tools: [loadTools, deploy],
			initialActiveToolNames: ["load_tools"],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		const { answerRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("load_tools", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("deploy", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("deployed"),
		]);
		await h.session.prompt("load the deploy tools, then deploy");
		expect(answerRequests.map((request) => (request.tools ?? []).map((t) => t.name))).toEqual([
			["load_tools"],
			["load_tools", "deploy"],
			["load_tools", "deploy"],
		]);
		// pi#4147: "Tool deploy not found"; here the call runs and its result reaches the model.
		const results = h.session.messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => [result.toolName, result.isError])).toEqual([
			["load_tools", false],
			["deploy", false],
		]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

describe("pi#2713: a model picked while the answer streams, with a steer taken by the same run", () => {
	it("pi#2713: the streaming request stays on the old model; the steer's request goes to the new one", async () => {
		h = await createHarness({ persistence: "disk", models: [{ id: "opus" }, { id: "gpt" }] });
		const streaming = gate();
		const release = gate();
		const asked: string[] = [];
		const answer = async (_context: unknown, _options: unknown, _state: unknown, model: { id: string }) => {
			asked.push(model.id);
			if (asked.length === 1) {
				streaming.release();
				await release.promise;
			}
			return fauxAssistantMessage(`answer ${asked.length}`);
		};
		h.setResponses([answer, answer, answer] as never);
		const done = h.session.prompt("first question");
		await streaming.promise;
		await h.session.setModel(h.getModel("gpt")!);
		await h.session.steer("second question");
		release.release();
		await done;
		expect(asked).toEqual(["opus", "gpt"]);
		const answers = h.session.messages.filter((message): message is AssistantMessage => message.role === "assistant");
		expect(answers.map((message) => message.model)).toEqual(["opus", "gpt"]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		// The switch is saved, so a reopened session goes on with the model picked last.
		const switches = fileEntries(h.session.sessionFile!).filter((entry) => entry.type === "model_change");
		expect((switches.at(-1) as { modelId?: string } | undefined)?.modelId).toBe("gpt");
	});
});

describe("pi#8396: auto-retry leaves the superseded error in the saved branch", () => {
	it("pi#8396: a reopened session holds the live context, without the retried request's error", async () => {
		h = await createHarness({ persistence: "disk", simulatedClock: true });
		const { answerRequests } = script(h, [errorReply(OVERLOADED), fauxAssistantMessage("recovered")]);
		await h.settle(h.session.prompt("hello"));
		expect(answerRequests.map((request) => userTexts(request))).toEqual([["hello"], ["hello"]]);
		expect(h.session.messages.some((message) => message.role === "assistant" && message.stopReason === "error")).toBe(
			false,
		);
		const reopened = reopenedContext(h.session.sessionFile!);
		expect(reopened.map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(reopened.filter((message) => message.role === "assistant").map((message) => message.stopReason)).toEqual([
			"stop",
		]);
	});
});

/** A 1×1 PNG: what a user pastes when they send a screenshot with no words. */
const SCREENSHOT = {
	type: "image" as const,
	data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
	mimeType: "image/png",
};

describe("thinkrail#460: an image sent mid-run with no text stays in the queue after it was delivered", () => {
	it("thinkrail#460: a steer and a follow-up that are only an image leave the queue when delivered: queue_update empties, nothing stays pending, each image reaches the model and the file once", async () => {
		h = await createHarness({ persistence: "disk" });
		const streaming = gate();
		const release = gate();
		const { answerRequests } = script(h, [
			async () => {
				streaming.release();
				await release.promise;
				return fauxAssistantMessage("first answer");
			},
			fauxAssistantMessage("I see the screenshot"),
			fauxAssistantMessage("I see the second screenshot"),
		]);
		const queues: { steering: string[]; followUp: string[] }[] = [];
		h.session.subscribe((event) => {
			if (event.type === "queue_update") queues.push({ steering: event.steering, followUp: event.followUp });
		});
		const done = h.session.prompt("fix the layout");
		await streaming.promise;
		await h.session.steer("", [SCREENSHOT]);
		await h.session.followUp("", [SCREENSHOT]);
		expect(h.session.pendingMessageCount).toBe(2);
		release.release();
		await done;
		// Nothing is left listed: no chip for a message the model already has.
		expect(h.session.getSteeringMessages()).toEqual([]);
		expect(h.session.getFollowUpMessages()).toEqual([]);
		expect(h.session.pendingMessageCount).toBe(0);
		expect(queues.at(-1)).toEqual({ steering: [], followUp: [] });
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		const imagesIn = (messages: readonly { role: string; content?: unknown }[]) =>
			messages.filter((m) => m.role === "user" && JSON.stringify(m.content).includes(SCREENSHOT.data)).length;
		expect(answerRequests.map((request) => imagesIn(request.messages))).toEqual([0, 1, 2]);
		const saved = fileEntries(h.session.sessionFile!).flatMap((entry) => (entry.message ? [entry.message] : []));
		expect(imagesIn(saved)).toBe(2);
		// The next prompt carries nothing more of them.
		script(h, [fauxAssistantMessage("done")]);
		await h.session.prompt("thanks");
		expect(h.session.pendingMessageCount).toBe(0);
		expect(imagesIn(h.session.messages)).toBe(2);
	});
});

describe("pi#6462: a model picked during an auto-retry's backoff", () => {
	it("pi#6462: the retry goes to the model picked during the backoff, once; the switch is saved before its answer and a reopened session goes on with it", async () => {
		h = await createHarness({ persistence: "disk", simulatedClock: true, models: [{ id: "opus" }, { id: "gpt" }] });
		const asked: string[] = [];
		const answer =
			(reply: AssistantMessage) => async (_c: unknown, _o: unknown, _s: unknown, model: { id: string }) => {
				asked.push(model.id);
				return reply;
			};
		h.setResponses([answer(errorReply(OVERLOADED)), answer(fauxAssistantMessage("answered"))] as never);
		let switched: Promise<void> | undefined;
		h.session.subscribe((event) => {
			// The user picks another model while the failed provider's backoff runs.
			if (event.type === "auto_retry_start") switched = h.session.setModel(h.getModel("gpt")!);
		});
		await h.settle(h.session.prompt("hello"));
		await switched;
		expect(asked).toEqual(["opus", "gpt"]);
		expect(h.eventsOfType("auto_retry_end")).toMatchObject([{ success: true, attempt: 1 }]);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		const answers = h.session.messages.filter((message): message is AssistantMessage => message.role === "assistant");
		expect(answers.map((message) => [message.model, message.stopReason])).toEqual([["gpt", "stop"]]);
		const entries = fileEntries(h.session.sessionFile!) as {
			type: string;
			modelId?: string;
			message?: { role: string; stopReason?: string };
		}[];
		const switchAt = entries.findIndex((entry) => entry.type === "model_change" && entry.modelId === "gpt");
		const answerAt = entries.findIndex((entry) => entry.message?.stopReason === "stop");
		expect(switchAt).toBeGreaterThan(-1);
		expect(switchAt).toBeLessThan(answerAt);
		expect(entries.filter((entry) => entry.type === "model_change").at(-1)?.modelId).toBe("gpt");
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});
