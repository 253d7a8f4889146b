/**
 * pi#8525, replayed against Settle through its public API on a real session file: a turn whose
 * answer calls a tool is aborted while that turn's events are still being handled; then the user
 * names the session (a `session_info` entry) and prompts again, and the model calls a tool. pi
 * saved that later tool result with the aborted assistant as its parent instead of the assistant
 * entry that declared the call (a stale leaf), so the reopened session sent a result without its
 * call and every resumed turn was rejected. What the user should see: every tool result saved as a
 * child of the assistant message that made its call (or of the result before it in the batch),
 * the reopened context equal to the live one, and the next request answerable.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { orphanToolMessages, readEntries } from "./disk-harness.js";
import { comparable, reopenedContext, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const look: AgentTool = {
	name: "look",
	label: "Look",
	description: "Looks at something",
	parameters: { type: "object" },
	execute: async () => ({ content: [{ type: "text", text: "looked" }], details: {} }),
};

/**
 * For each tool result in the file: the entry its parent is, and whether that entry is the
 * assistant that declared the call or a result of the same batch after it.
 */
function resultParents(file: string): { callId: string; parentIsDeclaringTurn: boolean }[] {
	const entries = readEntries(file) as {
		id: string;
		parentId: string | null;
		type: string;
		message?: { role: string; toolCallId?: string; content?: { type: string; id?: string }[] };
	}[];
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	return entries
		.filter((entry) => entry.message?.role === "toolResult")
		.map((entry) => {
			const callId = entry.message!.toolCallId!;
			let parent = entry.parentId ? byId.get(entry.parentId) : undefined;
			// A parallel batch chains its results: walk back over them to the assistant.
			while (parent?.message?.role === "toolResult") parent = parent.parentId ? byId.get(parent.parentId) : undefined;
			const declares =
				parent?.message?.role === "assistant" && !!parent.message.content?.some((block) => block.id === callId);
			return { callId, parentIsDeclaringTurn: declares };
		});
}

/** When the extension aborts, relative to the turn whose answer calls `look`. */
const ABORT_POINTS = ["message_end", "tool_execution_start", "tool_execution_end", "turn_end"] as const;

describe("pi#8525: abort can leave the SessionManager leaf stale and misparent a later tool result", () => {
	for (const point of ABORT_POINTS) {
		it(`pi#8525: ctx.abort() from the tool-use turn's ${point} handler, then a session name and a prompt whose answer calls the tool: each result is saved under the assistant that called it; the reopened context equals the live one and the session answers again`, async () => {
			let armed = true;
			const abortDuringTurnEvents = (pi: ExtensionAPI) => {
				const handler = (event: unknown, ctx: ExtensionContext) => {
					if (!armed) return;
					if (point === "message_end" && (event as { message: { role: string } }).message.role !== "assistant") return;
					armed = false;
					ctx.abort();
				};
				(pi.on as (event: string, handler: (event: unknown, ctx: ExtensionContext) => void) => void)(point, handler);
			};
			h = await createHarness({ persistence: "disk", tools: [look], extensionFactories: [abortDuringTurnEvents] });
			const harness = h;
			const { answerRequests, answersLeft } = script(harness, [
				fauxAssistantMessage([fauxToolCall("look", {}, { id: "call-aborted" })], { stopReason: "toolUse" }),
				fauxAssistantMessage([fauxToolCall("look", {}, { id: "call-later" })], { stopReason: "toolUse" }),
				fauxAssistantMessage("after the later call"),
				fauxAssistantMessage("answered once more"),
			]);
			await harness.session.prompt("look around");
			// The abort stopped the run: no request after the tool-use answer.
			expect(armed).toBe(false);
			expect(answerRequests).toHaveLength(1);
			expect(harness.session.isIdle).toBe(true);
			// Step 2 of the report: a session_info entry, then another turn with a tool call and its result.
			harness.session.setSessionName("investigation");
			await harness.session.prompt("look again");
			const file = harness.session.sessionFile!;
			const parents = resultParents(file);
			expect(parents.map((parent) => parent.callId)).toContain("call-later");
			expect(parents.every((parent) => parent.parentIsDeclaringTurn)).toBe(true);
			expect(orphanToolMessages(file)).toEqual({ callsWithoutResult: [], resultsWithoutCall: [] });
			// Step 3: reload. The reopened session is the live one, and its next request is answered.
			expect(reopenedContext(file).map(comparable)).toEqual(harness.session.messages.map(comparable));
			await harness.session.prompt("and now?");
			expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
			expect(answersLeft()).toBe(0);
			expect(readEntries(file).some((entry) => entry.type === "session_info")).toBe(true);
		});
	}
});
