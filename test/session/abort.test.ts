/**
 * `abort()` from every phase of an operation (DESIGN §8 invariant 8): it resolves once the session
 * is idle, exactly one `agent_settled` is emitted, and nothing already persisted is lost — the
 * partial assistant message of an aborted stream is persisted too.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	abortAtThirdUpdate,
	fileSummary,
	reopenedContext,
	roles,
	SLOW_ANSWER,
	SLOW_STREAM,
	tick,
	toolUntilAbort,
} from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

describe("abort", () => {
	it("mid-stream: the partial assistant message is persisted, the operation settles once", async () => {
		h = await createHarness({ persistence: "disk", faux: SLOW_STREAM });
		h.setResponses([fauxAssistantMessage(SLOW_ANSWER)]);
		const abort = abortAtThirdUpdate(h.session);
		await h.session.prompt("talk");
		await abort.aborting();
		const last = h.session.messages.at(-1);
		expect(last).toMatchObject({ role: "assistant", stopReason: "aborted", errorMessage: "Request was aborted" });
		const text = last?.role === "assistant" && last.content[0]?.type === "text" ? last.content[0].text : "";
		expect(text.length).toBeGreaterThan(0);
		expect(SLOW_ANSWER.startsWith(text)).toBe(true);
		expect(text.length).toBeLessThan(60);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
		expect(h.session.isStreaming).toBe(false);
		expect(fileSummary(h.session.sessionFile!).slice(-2)).toEqual(["message:user", "message:assistant"]);
		expect(reopenedContext(h.session.sessionFile!).at(-1)).toEqual(last);
	});

	it("during a tool call: the tool sees the signal, the result and the run end are persisted, settles once", async () => {
		const { tool: slow, started } = toolUntilAbort();
		h = await createHarness({ tools: [slow] });
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("slow", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("never"),
		]);
		const running = h.session.prompt("go");
		await started;
		await h.session.abort();
		await running;
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant", "toolResult", "assistant"]);
		expect(h.session.messages[3]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "Operation aborted" }],
		});
		expect(h.session.messages[4]).toMatchObject({ stopReason: "aborted" });
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("during preflight: the operation settles once without a model call", async () => {
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		h = await createHarness({
			extensionFactories: [(pi: ExtensionAPI) => pi.on("input", async () => void (await held))],
		});
		const running = h.session.prompt("go");
		await tick();
		expect(h.session.lifecycle).toBe("preflight");
		const aborting = h.session.abort();
		release();
		await running;
		await aborting;
		expect(h.faux.callCount).toBe(0);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
		expect(h.session.lifecycle).toBe("idle");
		// The system prompt was never recorded: the next prompt records it.
		h.setResponses([fauxAssistantMessage("ok")]);
		await h.session.prompt("again");
		expect(roles(h.session.messages)).toEqual(["system", "user", "assistant"]);
	});

	it("during the agent_before_settle boundary: no continuation, settles once", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_before_settle", async (_event, ctx) => {
						ctx.abort();
						await tick();
						return { continue: true };
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("must not run")]);
		await h.session.prompt("go");
		await h.session.waitForIdle();
		expect(h.faux.callCount).toBe(1);
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);
	});

	it("when idle: resolves at once and changes nothing", async () => {
		h = await createHarness();
		await h.session.abort();
		expect(h.session.lifecycle).toBe("idle");
		expect(h.events).toEqual([]);
	});
});

describe("dispose", () => {
	it("rejects prompts still pending, makes extension contexts stale, emits nothing more", async () => {
		let captured: { cwd: string } | undefined;
		h = await createHarness({
			faux: { tokensPerSecond: 50 },
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("agent_start", (_event, ctx) => {
						captured = ctx;
					}),
			],
		});
		h.setResponses([fauxAssistantMessage("a long answer that will not finish in time")]);
		const running = h.session.prompt("go");
		while (!captured) await tick();
		const before = h.events.length;
		h.session.dispose();
		await expect(running).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		expect(() => captured!.cwd).toThrow(/This extension ctx is stale after session replacement or reload/);
		await expect(h.session.prompt("again")).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		expect(h.events.length).toBe(before);
	});
});
