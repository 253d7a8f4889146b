/**
 * An abort an extension asks for from a later call's `tool_call` preflight, replayed against Settle
 * through its public API on a real session file.
 *
 * pi#8935: in a parallel batch every call's `tool_call` handler runs before any call starts; a later
 * call's handler called `ctx.abort()` (and let its call through), and pi still ran the earlier call,
 * already prepared, with an aborted signal: a write or a command started after the user cancelled.
 * (pi#4276, covered in `abort-input`, stopped the later preflights, not the calls prepared before.)
 * What the user should see: once the abort is seen, no call of the batch runs; each still gets its
 * `tool_execution_end` and an `Operation aborted` result, saved, and no model request follows.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages } from "./disk-harness.js";
import { comparable, persistedRoles, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pi#8935: a later call's tool_call preflight aborts, and an already prepared call still runs", () => {
	it("pi#8935: ctx.abort() from the second call's tool_call: neither call runs (no file written), both end 'Operation aborted', saved; no model request follows", async () => {
		const ran: string[] = [];
		let dir = "";
		/** A tool that writes a real file named after the call, as the report's `write` calls did. */
		const writer = (name: string): AgentTool => ({
			name,
			label: name,
			description: `writes ${name}.txt`,
			parameters: { type: "object" },
			execute: async () => {
				ran.push(name);
				const { writeFileSync } = await import("node:fs");
				writeFileSync(join(dir, `${name}.txt`), "written");
				return { content: [{ type: "text", text: `${name} written` }], details: {} };
			},
		});
		let calls = 0;
		h = await createHarness({
			persistence: "disk",
			tools: [writer("first"), writer("second")],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					// The report's repro.ts: the second preflight aborts the run and lets its call through.
					pi.on("tool_call", (_event, ctx) => {
						if (++calls === 2) ctx.abort();
						return undefined;
					});
				},
			],
		});
		const harness = h;
		dir = harness.session.cwd;
		const { answerRequests } = script(harness, [
			fauxAssistantMessage([fauxToolCall("first", {}), fauxToolCall("second", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("not asked"),
		]);
		await harness.session.prompt("write both");

		expect(calls).toBe(2);
		expect(ran).toEqual([]);
		expect(existsSync(join(dir, "first.txt"))).toBe(false);
		expect(existsSync(join(dir, "second.txt"))).toBe(false);
		expect(answerRequests).toHaveLength(1);
		expect(harness.eventsOfType("agent_settled")).toHaveLength(1);
		const text = (result: unknown) =>
			(result as { content: { type: string; text?: string }[] }).content.map((block) => block.text).join("");
		// One end event per call (in the order the calls finished); the results are saved in the calls' order.
		const ends = harness.eventsOfType("tool_execution_end").map((end) => [end.toolName, text(end.result), end.isError]);
		expect(ends.sort()).toEqual([
			["first", "Operation aborted", true],
			["second", "Operation aborted", true],
		]);
		const savedResults = reopenedContext(harness.session.sessionFile!).flatMap((message) => {
			const m = message as { role: string; toolName?: string };
			return m.role === "toolResult" ? [[m.toolName, text(m)]] : [];
		});
		expect(savedResults).toEqual([
			["first", "Operation aborted"],
			["second", "Operation aborted"],
		]);
		const file = harness.session.sessionFile!;
		expect(persistedRoles(file)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
		expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
		expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
	});
});
