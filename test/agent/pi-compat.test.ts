/**
 * Runs the same scripts through pi's Agent (pi-agent-core 0.73.1 + pi-ai's faux provider) and
 * ours, and compares what a user observes: event types (streamed updates collapsed), transcript
 * roles, texts and error messages. (A `length` stop is left out on purpose: pi 0.73.1 still
 * executes its tool calls; the newer loop we follow does not — see tools.test.ts.)
 */
import { Agent as PiAgent } from "@mariozechner/pi-agent-core";
import * as piAi from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentTool } from "../../src/agent/types.js";
import type { AgentMessage, AssistantMessage } from "../../src/llm/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxText, fauxToolCall } from "../../src/testing/index.js";
import { collapseUpdates, textOf } from "./helpers.js";

type Script = () => AssistantMessage[];

interface Observed {
	types: string[];
	transcript: string[];
	errorMessage: string | undefined;
}

function echo(): AgentTool {
	return {
		name: "echo",
		label: "Echo",
		description: "echo",
		parameters: Type.Object({ text: Type.String() }),
		execute: async (_id, params: { text: string }) => ({ content: [{ type: "text", text: params.text }], details: {} }),
	};
}

function describeMessage(message: AgentMessage): string {
	if (message.role === "assistant") {
		const calls = message.content.filter((block) => block.type === "toolCall").map((block) => block.name);
		return `assistant:${message.stopReason}:${textOf(message)}:${calls.join(",")}:${message.errorMessage ?? ""}`;
	}
	if (message.role === "toolResult") return `toolResult:${message.isError}:${textOf(message)}`;
	return `${message.role}:${textOf(message)}`;
}

async function observeOurs(script: Script, prompt: string, duringTool?: (agent: Agent) => void): Promise<Observed> {
	const faux = createFauxProvider();
	faux.setResponses(script());
	const agent = new Agent({ streamFn: faux.streamFn, initialState: { model: faux.getModel(), tools: [echo()] } });
	const types: string[] = [];
	agent.subscribe((event) => {
		types.push(event.type);
		if (event.type === "tool_execution_start") duringTool?.(agent);
	});
	await agent.prompt(prompt);
	return {
		types: collapseUpdates(types),
		transcript: agent.state.messages.map(describeMessage),
		errorMessage: agent.state.errorMessage,
	};
}

async function observePi(script: Script, prompt: string, duringTool?: (agent: PiAgent) => void): Promise<Observed> {
	const faux = piAi.registerFauxProvider();
	try {
		faux.setResponses(script() as unknown as Parameters<typeof faux.setResponses>[0]);
		const agent = new PiAgent({
			initialState: { model: faux.getModel(), tools: [echo() as never] },
		});
		const types: string[] = [];
		agent.subscribe((event) => {
			types.push(event.type);
			if (event.type === "tool_execution_start") duringTool?.(agent);
		});
		await agent.prompt(prompt);
		return {
			types: collapseUpdates(types),
			transcript: (agent.state.messages as AgentMessage[]).map(describeMessage),
			errorMessage: agent.state.errorMessage,
		};
	} finally {
		faux.unregister();
	}
}

const scripts: Record<string, Script> = {
	"a text reply": () => [fauxAssistantMessage("Hello! How can I help you today?")],
	"a tool turn with a known and an unknown tool": () => [
		fauxAssistantMessage(
			[
				fauxText("checking"),
				fauxToolCall("echo", { text: "hi" }, { id: "c1" }),
				fauxToolCall("nope", {}, { id: "c2" }),
			],
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("done"),
	],
	"invalid arguments": () => [
		fauxAssistantMessage([fauxToolCall("echo", { txt: 1 }, { id: "c1" })], { stopReason: "toolUse" }),
		fauxAssistantMessage("sorry"),
	],
	"a provider error": () => [fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error" })],
	"an empty queue": () => [],
};

describe("same observable behavior as pi's Agent", () => {
	it.each(Object.keys(scripts))("%s", async (name) => {
		const script = scripts[name]!;
		const pi = await observePi(script, "go");
		const ours = await observeOurs(script, "go");
		expect(ours).toEqual(pi);
	});

	it("steering queued during a tool call", async () => {
		const script: Script = () => [
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("steered"),
		];
		const steer = { role: "user" as const, content: "change of plan", timestamp: 1 };
		const pi = await observePi(script, "go", (agent) => agent.steer(steer));
		const ours = await observeOurs(script, "go", (agent) => agent.steer(steer));
		expect(ours).toEqual(pi);
	});

	it("follow-up queued during a tool call", async () => {
		const script: Script = () => [
			fauxAssistantMessage([fauxToolCall("echo", { text: "x" }, { id: "c1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("after tools"),
			fauxAssistantMessage("after follow-up"),
		];
		const followUp = { role: "user" as const, content: "also this", timestamp: 1 };
		const pi = await observePi(script, "go", (agent) => agent.followUp(followUp));
		const ours = await observeOurs(script, "go", (agent) => agent.followUp(followUp));
		expect(ours).toEqual(pi);
	});
});

/**
 * A stream function that fails before streaming anything. pi 0.73.1's Agent turns the thrown error
 * into its run failure (behavior A.2): one empty text block, zero usage, stopReason `error`. Settle
 * ends the turn inside the loop instead (so the failure also gets message and turn events, as in the
 * newer pi); the message recorded must be the same.
 */
describe("a stream function that fails before streaming records pi's failure message", () => {
	const failing: Record<string, () => unknown> = {
		"throws synchronously": () => () => {
			throw new Error("provider exploded");
		},
		rejects: () => async () => {
			throw new Error("network down");
		},
		"returns a stream whose iteration throws": () => () => ({
			// biome-ignore lint/correctness/useYield: a stream that fails before its first event
			async *[Symbol.asyncIterator]() {
				throw new Error("connection reset");
			},
			result: () => new Promise(() => {}),
		}),
	};

	function failure(messages: readonly unknown[]): unknown {
		const { role, content, usage, stopReason, errorMessage } = messages.at(-1) as AssistantMessage;
		return { role, content, usage, stopReason, errorMessage, count: messages.length };
	}

	it.each(Object.keys(failing))("%s", async (name) => {
		const faux = piAi.registerFauxProvider();
		let pi: unknown;
		try {
			const agent = new PiAgent({ initialState: { model: faux.getModel() }, streamFn: failing[name]!() as never });
			await agent.prompt("hi");
			pi = { message: failure(agent.state.messages), error: agent.state.errorMessage };
		} finally {
			faux.unregister();
		}
		const ours = new Agent({
			initialState: { model: createFauxProvider().getModel() },
			streamFn: failing[name]!() as never,
		});
		await ours.prompt("hi");
		expect(pi).toMatchObject({ message: { content: [{ type: "text", text: "" }], stopReason: "error" } });
		expect({ message: failure(ours.state.messages), error: ours.state.errorMessage }).toEqual(pi);
	});

	it("without any stream function, as pi without a registered provider", async () => {
		const ours = new Agent({ initialState: { model: createFauxProvider().getModel() } });
		await ours.prompt("hi");
		expect(failure(ours.state.messages)).toMatchObject({
			content: [{ type: "text", text: "" }],
			stopReason: "error",
			errorMessage: expect.stringContaining("No stream function configured"),
		});
	});
});
