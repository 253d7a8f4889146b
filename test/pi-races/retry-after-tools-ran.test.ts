/**
 * agno#10366, crewAI#5802: a run retried after a provider error re-executed the tool calls that had
 * already succeeded in it (a charge, an email, a write made twice): the retry restarted the turn,
 * not the one failed request. What the user should see: a tool that ran before the failure runs
 * once; the retried request is the failed one again, its tool result in it once; the file holds one
 * call and one result and reopens to the live context. After retries gave up, "continue" goes on from
 * that result without running the tool again.
 *
 * A Settle session through pi-ai's OpenAI client against a local server, the built-in bash tool
 * appending to a ledger file, the session JSONL on disk.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/index.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

const charge = chatReply([
	{ type: "text", text: "Charging the card." },
	{ type: "tool_call", id: "call_charge", name: "bash", arguments: { command: "echo charged >> ledger.txt" } },
]);
const overloaded = openAiError(503, "The server is overloaded. Please try again later.", "server_error");

/** The tool messages and the assistant tool calls one request sent. */
function sentTools(w: WireSession, index: number) {
	// biome-ignore lint/suspicious/noExplicitAny: OpenAI chat messages, read field by field
	const messages: any[] = w.server.requests[index]!.body.messages;
	return {
		results: messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id),
		calls: messages.flatMap((m) => (m.tool_calls ?? []).map((call: { id: string }) => call.id)),
	};
}

function fileRoles(w: WireSession): string[] {
	return w
		.entries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role !== "system" ? [entry.message.role] : []));
}

function reopenedRoles(w: WireSession): string[] {
	const reopened = SessionManager.open(w.session.sessionFile!, undefined, undefined, { readOnly: true });
	return reopened.buildSessionContext().messages.flatMap((m) => (m.role === "system" ? [] : [m.role]));
}

describe("agno#10366, crewAI#5802: a retry re-executes tool calls that already succeeded", () => {
	it("agno#10366: a 503 after the tool ran is retried; the tool ran once and the retried request carries its one result", async () => {
		const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(charge, overloaded, chatReply([{ type: "text", text: "Charged once." }]));
		await w.session.prompt("charge the card");

		expect(readFileSync(join(w.dir, "ledger.txt"), "utf8")).toBe("charged\n");
		expect(w.eventsOf("tool_execution_start")).toHaveLength(1);
		expect(w.eventsOf("auto_retry_end")).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
		expect(w.server.requests).toHaveLength(3);
		// The retried request is the failed one again: one call, one result.
		expect(w.server.requests[2]!.body.messages).toEqual(w.server.requests[1]!.body.messages);
		expect(sentTools(w, 2)).toEqual({ calls: ["call_charge"], results: ["call_charge"] });
		expect(w.session.messages.flatMap((m) => (m.role === "system" ? [] : [m.role]))).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
		]);
		// The failed attempt stays in the file for the record; the reopened context is the live one.
		expect(fileRoles(w).filter((role) => role === "toolResult")).toHaveLength(1);
		expect(reopenedRoles(w)).toEqual(["user", "assistant", "toolResult", "assistant"]);
	});

	it("crewAI#5802: retries give up after the tool ran; `continue` goes on from its result without running it again", async () => {
		const w = await wireSession({
			api: "openai-completions",
			settings: { defaultThinkingLevel: "off", retry: { maxRetries: 1, baseDelayMs: 1 } },
		});
		w.server.reply(charge, overloaded, overloaded, chatReply([{ type: "text", text: "Done, charged once." }]));
		await w.session.prompt("charge the card");

		expect(w.server.requests).toHaveLength(3);
		expect(w.eventsOf("auto_retry_end")).toEqual([expect.objectContaining({ success: false })]);
		await w.session.prompt("continue");

		expect(readFileSync(join(w.dir, "ledger.txt"), "utf8")).toBe("charged\n");
		expect(w.eventsOf("tool_execution_start")).toHaveLength(1);
		expect(w.server.requests).toHaveLength(4);
		expect(sentTools(w, 3)).toEqual({ calls: ["call_charge"], results: ["call_charge"] });
		expect(fileRoles(w).filter((role) => role === "toolResult")).toHaveLength(1);
		expect(reopenedRoles(w)).toEqual(w.session.messages.flatMap((m) => (m.role === "system" ? [] : [m.role])));
	});
});
