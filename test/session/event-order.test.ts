/**
 * Event order of the awaited bridge (DESIGN §4, behavior C.10) against pi 0.73.1's observed
 * sequences (`peers/pi-npm/README.md`, S1/S2/S5), through the public API.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { eventTypes, fileSummary, labeled } from "./helpers.js";

// pi 0.73.1, observed (message_update runs removed): S1 text reply, S2 tool turn (built-in read).
const PI_S1 = "agent_start turn_start message_start message_end message_start message_end turn_end agent_end";
const PI_S2 =
	"agent_start turn_start message_start message_end message_start message_end tool_execution_start tool_execution_end message_start message_end turn_end turn_start message_start message_end turn_end agent_end";

let h: Harness;
afterEach(() => h?.cleanup());

describe("event order", () => {
	it("a text reply matches pi's S1, then agent_settled; the first prompt records the system prompt first", async () => {
		h = await createHarness({ persistence: "disk" });
		h.setResponses([fauxAssistantMessage("Hello!"), fauxAssistantMessage("Again!")]);
		await h.session.prompt("hi");
		expect(labeled(h.events).slice(0, 4)).toEqual([
			"agent_start",
			"turn_start",
			"message_start(system)",
			"message_end(system)",
		]);
		h.events.length = 0;
		await h.session.prompt("again");
		expect(eventTypes(h.events).join(" ")).toBe(`${PI_S1} agent_settled`);
		expect(h.eventsOfType("message_update").length).toBeGreaterThan(0);
		expect(fileSummary(h.session.sessionFile!)).toEqual([
			"session",
			"model_change",
			"thinking_level_change",
			"message:system",
			"message:user",
			"message:assistant",
			"message:user",
			"message:assistant",
		]);
	});

	it("a tool turn matches pi's S2: assistant, tool execution, tool result, next turn", async () => {
		h = await createHarness({ persistence: "disk" });
		writeFileSync(join(h.tempDir, "a.txt"), "line one\nline two\n");
		h.setResponses([
			fauxAssistantMessage("warm-up"),
			fauxAssistantMessage([fauxText("Reading."), fauxToolCall("read", { path: "a.txt" })], { stopReason: "toolUse" }),
			(context) => {
				const result = context.messages.at(-1);
				const text = result?.role === "toolResult" && result.content[0]?.type === "text" ? result.content[0].text : "";
				return fauxAssistantMessage(`The file has ${text.trim().split("\n").length} lines.`);
			},
		]);
		await h.session.prompt("warm up");
		h.events.length = 0;
		await h.session.prompt("How many lines does a.txt have?");
		expect(eventTypes(h.events).join(" ")).toBe(`${PI_S2} agent_settled`);
		expect(labeled(h.events)).toContain("tool_execution_end(read)");
		const last = h.session.messages.at(-1);
		expect(last?.role === "assistant" && last.content[0]?.type === "text" ? last.content[0].text : "").toBe(
			"The file has 2 lines.",
		);
		expect(fileSummary(h.session.sessionFile!).slice(-4)).toEqual([
			"message:user",
			"message:assistant",
			"message:toolResult",
			"message:assistant",
		]);
	});

	it("S5: an inline extension blocking bash in tool_call gives the model the reason as an error result", async () => {
		const seen: string[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_start", (event) => {
						seen.push(`session_start(${event.reason})`);
					});
					pi.on("tool_call", (event) => {
						seen.push(`tool_call(${event.toolName})`);
						return event.toolName === "bash"
							? { block: true, reason: "bash is disabled by the policy extension" }
							: undefined;
					});
					pi.on("tool_result", () => {
						seen.push("tool_result");
					});
					pi.on("agent_end", () => {
						seen.push("agent_end");
					});
				},
			],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("bash", { command: "touch should-not-exist" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("run it");
		expect(seen).toEqual(["session_start(startup)", "tool_call(bash)", "agent_end"]);
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "bash is disabled by the policy extension" }],
		});
		expect(h.eventsOfType("tool_execution_end")[0]?.isError).toBe(true);
	});

	it("extension handlers run before public listeners, for every event", async () => {
		const log: string[] = [];
		const types = [
			"agent_start",
			"turn_start",
			"message_start",
			"message_update",
			"message_end",
			"tool_execution_start",
			"tool_execution_end",
			"agent_end",
			"agent_settled",
		] as const;
		h = await createHarness({
			tools: [
				{
					name: "echo",
					label: "Echo",
					description: "echo",
					parameters: { type: "object", properties: {} },
					execute: async () => ({ content: [{ type: "text", text: "echoed" }], details: {} }),
				},
			],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					for (const type of types) {
						pi.on(type, async () => {
							await new Promise((resolve) => setTimeout(resolve, 1));
							log.push(`ext:${type}`);
						});
					}
				},
			],
		});
		h.session.subscribe((event) => {
			if ((types as readonly string[]).includes(event.type)) log.push(`pub:${event.type}`);
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("go");
		expect(log.length).toBeGreaterThan(20);
		for (let index = 0; index < log.length; index += 2) {
			const [first, second] = [log[index]!, log[index + 1]!];
			expect(first.startsWith("ext:"), `${first} then ${second}`).toBe(true);
			expect(second).toBe(`pub:${first.slice(4)}`);
		}
	});

	it("turn_start carries turnIndex to extensions, reset at each agent_start", async () => {
		const turns: number[] = [];
		h = await createHarness({
			tools: [
				{
					name: "echo",
					label: "Echo",
					description: "echo",
					parameters: { type: "object", properties: {} },
					execute: async () => ({ content: [{ type: "text", text: "echoed" }], details: {} }),
				},
			],
			extensionFactories: [(pi: ExtensionAPI) => pi.on("turn_start", (event) => void turns.push(event.turnIndex))],
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("echo", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("one"),
			fauxAssistantMessage("two"),
		]);
		await h.session.prompt("first");
		await h.session.prompt("second");
		expect(turns).toEqual([0, 1, 0]);
	});

	it("public listeners see state that already reflects the event", async () => {
		h = await createHarness();
		const checks: boolean[] = [];
		h.session.subscribe((event) => {
			if (event.type === "message_end") checks.push(h.session.messages.at(-1) === event.message);
			if (event.type === "tool_execution_start") checks.push(h.session.state.pendingToolCalls.has(event.toolCallId));
			if (event.type === "agent_settled") checks.push(!h.session.isStreaming && h.session.isIdle);
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("list");
		expect(checks.length).toBeGreaterThanOrEqual(7);
		expect(checks.every(Boolean)).toBe(true);
	});

	it("a public message_end listener runs before the entry is written to the log (C.10: listeners, then persistence)", async () => {
		h = await createHarness({ persistence: "disk" });
		const seen: { role: string; persisted: boolean; inState: boolean }[] = [];
		const persisted = (message: unknown) =>
			h.sessionManager.getEntries().some((entry) => entry.type === "message" && entry.message === message);
		h.session.subscribe((event) => {
			if (event.type !== "message_end") return;
			seen.push({
				role: event.message.role,
				persisted: persisted(event.message),
				inState: h.session.messages.includes(event.message),
			});
		});
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("list");
		expect(seen.map((s) => s.role)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
		// pi's order: a listener sees the state already updated but cannot assume the entry exists yet.
		expect(seen.every((s) => s.inState && !s.persisted)).toBe(true);
		const messages = h.session.messages;
		expect(messages.every(persisted)).toBe(true);
	});
});
