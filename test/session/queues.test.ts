/**
 * Queues and side channels (behavior C.6, C.7): steering and follow-up display lists with
 * `queue_update`, `clearQueue`, custom messages by `deliverAs`, and user bash results held until a
 * safe point.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI, ExtensionFactory } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	fileSummary,
	reopenedContext,
	roles,
	settleWithClock,
	startGatedCompaction,
	startGatedNavigation,
} from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

function gatedTool(): { tool: AgentTool; release(): void; started: Promise<void> } {
	let release!: () => void;
	let markStarted!: () => void;
	const opened = new Promise<void>((resolve) => {
		release = resolve;
	});
	const started = new Promise<void>((resolve) => {
		markStarted = resolve;
	});
	return {
		release,
		started,
		tool: {
			name: "wait",
			label: "Wait",
			description: "Waits until released",
			parameters: { type: "object", properties: {} },
			async execute() {
				markStarted();
				await opened;
				return { content: [{ type: "text", text: "waited" }], details: {} };
			},
		},
	};
}

const texts = (context: Context) =>
	context.messages
		.filter((message) => message.role === "user")
		.map((message) =>
			typeof message.content === "string"
				? message.content
				: message.content.map((b) => (b.type === "text" ? b.text : "")).join(""),
		);

describe("steering and follow-up", () => {
	it("a steering message is delivered after the turn's tool calls, before the next model call", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool] });
		let secondRequest: string[] = [];
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			(context) => {
				secondRequest = texts(context);
				return fauxAssistantMessage("adjusted");
			},
		]);
		const running = h.session.prompt("start");
		await gated.started;
		expect(await h.session.steer("use the other file")).toBe("queued");
		expect(h.session.pendingMessageCount).toBe(1);
		gated.release();
		await running;
		expect(secondRequest).toEqual(["start", "use the other file"]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "toolResult", "user", "assistant"]);
		expect(h.eventsOfType("queue_update").map((e) => [e.steering, e.followUp])).toEqual([
			[["use the other file"], []],
			[[], []],
		]);
		expect(h.session.pendingMessageCount).toBe(0);
	});

	it("pendingMessageCount is already decremented when listeners see the queued message start", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool] });
		const counts: number[] = [];
		h.session.subscribe((event) => {
			if (event.type === "message_start" && event.message.role === "user") counts.push(h.session.pendingMessageCount);
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("a"),
			fauxAssistantMessage("b"),
		]);
		const running = h.session.prompt("start");
		await gated.started;
		await h.session.followUp("later one");
		await h.session.followUp("later two");
		expect(h.session.getFollowUpMessages()).toEqual(["later one", "later two"]);
		gated.release();
		await running;
		expect(counts).toEqual([0, 1, 0]);
		expect(roles(h.session.messages).slice(-4)).toEqual(["user", "assistant", "user", "assistant"]);
	});

	it("clearQueue returns the undelivered texts, clears the Agent's queues and emits an empty queue_update", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		const running = h.session.prompt("start");
		await gated.started;
		await h.session.steer("s1");
		await h.session.followUp("f1");
		expect(h.session.clearQueue()).toEqual({ steering: ["s1"], followUp: ["f1"] });
		expect(h.eventsOfType("queue_update").at(-1)).toEqual({ type: "queue_update", steering: [], followUp: [] });
		gated.release();
		await running;
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
		expect(h.faux.callCount).toBe(2);
	});

	it("a message queued while idle waits for the next run", async () => {
		h = await createHarness();
		let request: string[] = [];
		h.setResponses([
			(context) => {
				request = texts(context);
				return fauxAssistantMessage("ok");
			},
		]);
		await h.session.steer("remember this");
		expect(h.faux.callCount).toBe(0);
		await h.session.prompt("now go");
		expect(request).toEqual(["now go", "remember this"]);
	});

	// Queued texts were matched by text: a prompt equal to a queued follow-up unlisted it at its start.
	it("a prompt with the same text as a queued follow-up leaves the follow-up listed until it is delivered", async () => {
		h = await createHarness();
		let listedDuringFirstAnswer: string[] = [];
		const requests: string[][] = [];
		h.setResponses([
			(context) => {
				requests.push(texts(context));
				listedDuringFirstAnswer = h.session.getFollowUpMessages();
				return fauxAssistantMessage("first");
			},
			(context) => {
				requests.push(texts(context));
				return fauxAssistantMessage("second");
			},
		]);
		await h.session.followUp("go on");
		await h.session.prompt("go on");
		expect(listedDuringFirstAnswer).toEqual(["go on"]);
		expect(requests).toEqual([["go on"], ["go on", "go on"]]);
		expect(h.eventsOfType("queue_update").map((e) => e.followUp)).toEqual([["go on"], []]);
		expect(h.session.pendingMessageCount).toBe(0);
	});

	it("an extension's sendUserMessage with the same text as a queued steer leaves the steer listed until it starts", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.registerCommand("resume", {
						handler: async () => {
							pi.sendUserMessage("go on");
						},
					}),
			],
		});
		const listedAtUserStarts: string[][] = [];
		h.session.subscribe((event) => {
			if (event.type === "message_start" && event.message.role === "user") {
				listedAtUserStarts.push(h.session.getSteeringMessages());
			}
		});
		h.setResponses([fauxAssistantMessage("done")]);
		await h.session.steer("go on");
		await h.session.prompt("/resume");
		await h.session.waitForIdle();
		// The extension's message starts first (the steer still waits), then the steer itself.
		expect(listedAtUserStarts).toEqual([["go on"], []]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "user", "assistant"]);
	});
});

describe("custom messages", () => {
	it("idle without trigger: appended at once with a message_start/message_end pair, no model call", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.session.prompt("hello");
		h.events.length = 0;
		await h.session.sendCustomMessage({ customType: "status", content: "build passed", display: true });
		expect(h.events.map((event) => event.type)).toEqual(["message_start", "message_end"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "custom", customType: "status", content: "build passed" });
		expect(fileSummary(h.session.sessionFile!).at(-1)).toBe("custom_message");
		expect(h.faux.callCount).toBe(1);
	});

	it("idle with triggerTurn: starts an operation with just that message", async () => {
		h = await createHarness();
		let request: Context | undefined;
		h.setResponses([
			(context) => {
				request = context;
				return fauxAssistantMessage("reacting");
			},
		]);
		await h.session.sendCustomMessage(
			{ customType: "alert", content: "CI failed", display: true },
			{ triggerTurn: true },
		);
		expect(roles(h.session.messages)).toEqual(["system", "custom", "assistant"]);
		expect(request?.messages).toHaveLength(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("streaming with triggerTurn false: held and flushed at turn_end, never between a tool call and its result", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		const running = h.session.prompt("start");
		await gated.started;
		await h.session.sendCustomMessage(
			{ customType: "note", content: "while waiting", display: false },
			{ triggerTurn: false },
		);
		gated.release();
		await running;
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "toolResult", "custom", "assistant"]);
	});

	it("streaming: steered by default, or delivered as a follow-up", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("after steer"),
			fauxAssistantMessage("after follow-up"),
		]);
		const running = h.session.prompt("start");
		await gated.started;
		await h.session.sendCustomMessage({ customType: "later", content: "F", display: false }, { deliverAs: "followUp" });
		await h.session.sendCustomMessage({ customType: "now", content: "S", display: false });
		expect(h.session.pendingMessageCount).toBe(0);
		gated.release();
		await running;
		expect(h.session.messages.slice(3).map((m) => (m.role === "custom" ? m.customType : m.role))).toEqual([
			"toolResult",
			"now",
			"assistant",
			"later",
			"assistant",
		]);
	});
});

describe("nextTurn custom messages and an aborted prompt", () => {
	it("a prompt aborted in its before_agent_start hook, before any run: its next-turn messages wait for the next prompt", async () => {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let entered!: () => void;
		const inHook = new Promise<void>((resolve) => {
			entered = resolve;
		});
		let hooked = 0;
		const factory: ExtensionFactory = (pi) => {
			pi.on("before_agent_start", async () => {
				if (++hooked > 1) return undefined;
				entered();
				await gate;
				return undefined;
			});
		};
		h = await createHarness({ persistence: "disk", extensionFactories: [factory] });
		await h.session.sendCustomMessage(
			{ customType: "note", content: "for the next turn", display: true },
			{ deliverAs: "nextTurn" },
		);
		let nextRequest: string[] = [];
		h.setResponses([
			(context) => {
				nextRequest = texts(context);
				return fauxAssistantMessage("ok");
			},
		]);
		const aborted = h.session.prompt("cancelled before it ran");
		await inHook;
		const aborting = h.session.abort();
		release();
		await aborting;
		await aborted;
		expect(h.session.messages).toEqual([]);
		expect(h.session.getNextTurnMessages()).toMatchObject([{ customType: "note", content: "for the next turn" }]);
		await h.session.prompt("next");
		expect(nextRequest).toEqual(["next", "for the next turn"]);
		expect(h.session.getNextTurnMessages()).toEqual([]);
	});
});

describe("custom messages with triggerTurn while nothing runs a turn", () => {
	it("during a manual compaction's summary: refused with BUSY, not parked unseen in the Agent's queue", async () => {
		h = await createHarness({ persistence: "disk", settings: { compaction: { keepRecentTokens: 1 } } });
		const { compacting, release } = await startGatedCompaction(h);
		const sent = h.session.sendCustomMessage(
			{ customType: "ci", content: "Build failed", display: true },
			{ triggerTurn: true },
		);
		await expect(sent).rejects.toMatchObject({
			code: "BUSY",
			message: expect.stringMatching(/while compaction is in progress.*triggerTurn: false/),
		});
		release();
		await compacting;
		// Nothing waits unseen: the next prompt's request carries only what the user sees in the session.
		let nextRequest: string[] = [];
		h.setResponses([
			(context) => {
				nextRequest = texts(context);
				return fauxAssistantMessage("ok");
			},
		]);
		await h.session.prompt("next");
		expect(nextRequest.at(-1)).toBe("next");
		expect(h.session.messages.some((message) => message.role === "custom")).toBe(false);
	});

	it("during a tree navigation's branch summary: refused with BUSY", async () => {
		h = await createHarness({ persistence: "disk" });
		const { navigating, release } = await startGatedNavigation(h);
		const sent = h.session.sendCustomMessage(
			{ customType: "ci", content: "Build failed", display: true },
			{ triggerTurn: true },
		);
		await expect(sent).rejects.toMatchObject({
			code: "BUSY",
			message: expect.stringMatching(
				/while the session tree is being navigated\. Wait for navigation to finish and retry\.$/,
			),
		});
		release();
		await navigating;
		expect(h.session.messages.some((message) => message.role === "custom")).toBe(false);
	});
});

describe("side messages during a tree navigation", () => {
	it("a custom message and a `!` result recorded while the branch summary runs join the branch navigated to, after its summary", async () => {
		h = await createHarness({ persistence: "disk" });
		const { navigating, release } = await startGatedNavigation(h);
		await h.session.sendCustomMessage({ customType: "note", content: "sent while navigating", display: true });
		await h.session.executeBash("echo ran-while-navigating");
		release();
		await navigating;
		// Bash results first, then custom messages, as at every flush.
		expect(roles(h.session.messages)).toEqual([
			"system",
			"user",
			"assistant",
			"branchSummary",
			"bashExecution",
			"custom",
		]);
		// The file says the same: both are on the branch now in use, not on the one left behind.
		expect(reopenedContext(h.session.sessionFile!).map((message) => message.role)).toEqual(roles(h.session.messages));
	});
});

describe("custom messages during a retry", () => {
	it("sent during the backoff without options: steered into the retried request, saved before its answer", async () => {
		h = await createHarness({
			persistence: "disk",
			simulatedClock: true,
			settings: { retry: { baseDelayMs: 50, maxRetries: 3 } },
		});
		let retriedRequest: string[] = [];
		h.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }),
			(context) => {
				retriedRequest = texts(context);
				return fauxAssistantMessage("answered with the note");
			},
		]);
		h.session.subscribe((event) => {
			if (event.type === "auto_retry_start") {
				void h.session.sendCustomMessage({ customType: "note", content: "sent during the backoff", display: false });
			}
		});
		await settleWithClock(h, h.session.prompt("hi"));
		expect(retriedRequest).toEqual(["hi", "sent during the backoff"]);
		expect(roles(h.session.messages)).toEqual(["system", "user", "custom", "assistant"]);
		expect(fileSummary(h.session.sessionFile!).slice(-3)).toEqual([
			"context_edit",
			"custom_message",
			"message:assistant",
		]);
	});
});

describe("user bash", () => {
	it("idle: the result joins the transcript and the log at once, without message events", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.session.prompt("hello");
		h.events.length = 0;
		const chunks: string[] = [];
		const result = await h.session.executeBash("printf 'a\\nb\\n'; exit 3", (chunk) => chunks.push(chunk));
		expect(result).toMatchObject({ output: "a\nb\n", exitCode: 3, cancelled: false, truncated: false });
		expect(chunks.join("")).toBe("a\nb\n");
		// Output chunks only (one or more, as the pipe delivers them), no message events.
		expect([...new Set(h.events.map((event) => event.type))]).toEqual(["bash_execution_update"]);
		expect(h.session.messages.at(-1)).toMatchObject({
			role: "bashExecution",
			command: expect.stringContaining("printf"),
		});
		expect(fileSummary(h.session.sessionFile!).at(-1)).toBe("message:bashExecution");
	});

	it("while streaming: held until the operation settles (before agent_settled), then in the log", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool] });
		let pendingAtSettle: boolean | undefined;
		h.session.subscribe((event) => {
			if (event.type === "agent_settled") pendingAtSettle = h.session.hasPendingBashMessages;
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		const running = h.session.prompt("start");
		await gated.started;
		await h.session.executeBash("echo side-channel");
		expect(h.session.hasPendingBashMessages).toBe(true);
		expect(h.session.messages.some((message) => message.role === "bashExecution")).toBe(false);
		gated.release();
		await running;
		expect(pendingAtSettle).toBe(false);
		expect(roles(h.session.messages)).toEqual([
			"system",
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"bashExecution",
		]);
	});

	it("dispose() mid-run: the held bash result and custom message are written, as the run's end would (pi's finally flushes them), after the aborted tool result", async () => {
		const gated = gatedTool();
		h = await createHarness({ tools: [gated.tool], persistence: "disk" });
		h.setResponses([fauxAssistantMessage([fauxToolCall("wait", {})], { stopReason: "toolUse" })]);
		const running = h.session.prompt("start");
		running.catch(() => {});
		await gated.started;
		await h.session.executeBash("echo side-channel");
		await h.session.sendCustomMessage({ customType: "note", content: "kept", display: true }, { triggerTurn: false });
		expect(h.session.hasPendingBashMessages).toBe(true);
		await h.session.dispose();
		gated.release();
		await expect(running).rejects.toMatchObject({ code: "SESSION_CLOSED" });

		const file = h.session.sessionFile!;
		expect(fileSummary(file).slice(-4)).toEqual([
			"message:assistant",
			"message:toolResult",
			"message:bashExecution",
			"custom_message",
		]);
		expect(reopenedContext(file).at(-2)).toMatchObject({ role: "bashExecution", output: "side-channel\n" });
		expect(h.session.messages.slice(-2).map((message) => message.role)).toEqual(["bashExecution", "custom"]);
	});

	it("abortBash cancels a running command", async () => {
		h = await createHarness();
		let started!: () => void;
		const firstChunk = new Promise<void>((resolve) => {
			started = resolve;
		});
		const running = h.session.executeBash("echo started; sleep 5; echo never", () => started());
		await firstChunk;
		expect(h.session.isBashRunning).toBe(true);
		h.session.abortBash();
		const result = await running;
		expect(result.cancelled).toBe(true);
		expect(result.output).toContain("started");
		expect(result.output).not.toContain("never");
		expect(h.session.isBashRunning).toBe(false);
	});
});
