/**
 * Reports about where a `/tree` move lands and what the next request then carries, replayed
 * against Settle over HTTP: pi-ai's Anthropic client talks to a local server that answers as the
 * Messages API does (`test/llm/wire`), the session file on disk.
 *
 * pi#2796: the user moved with `/tree` (or Escape) back onto the assistant entry that had called a
 * tool, then sent a follow-up; pi parented it to that entry, so the request held the `tool_use`
 * followed by a user text, and Anthropic refused every later request ("tool_use ids were found
 * without tool_result blocks immediately after"). What the user should see: the follow-up is
 * answered; the request pairs the call with a `tool_result` at once.
 *
 * huggingface/tau#227 (tau keeps pi's session format): branching back one turn with a summary
 * dropped everything before the branch point from the model's context, and the thinking level
 * switched before the branch point fell back to the startup one. What the user should see: the
 * next request carries the conversation up to the branch point, then the summary of the abandoned
 * turn, at the level set before the branch point.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../src/store/entries.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

// biome-ignore lint/suspicious/noExplicitAny: Anthropic request bodies are asserted field by field
type WireMessage = { role: string; content: any };

/** A request's messages as `role:block,block` lines (text blocks shown by their text). */
function wireShape(messages: WireMessage[]): string[] {
	return messages.map((message) => {
		const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
		const parts = (blocks as { type: string; text?: string; id?: string; tool_use_id?: string }[]).map((block) => {
			if (block.type === "text") return `text(${block.text})`;
			if (block.type === "tool_use") return `tool_use(${block.id})`;
			if (block.type === "tool_result") return `tool_result(${block.tool_use_id})`;
			return block.type;
		});
		return `${message.role}:${parts.join(",")}`;
	});
}

function messageEntry(entries: SessionEntry[], test: (role: string, entry: SessionEntry) => boolean): SessionEntry {
	const found = entries.find((entry) => entry.type === "message" && test(entry.message.role, entry));
	if (!found) throw new Error("no such entry");
	return found;
}

describe("pi#2796: a follow-up sent after /tree moved onto an assistant entry that called a tool", () => {
	it("pi#2796: the next Anthropic request pairs the tool_use with a tool_result right after it; the follow-up is answered and saved on the new branch", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "off" } });
		writeFileSync(join(w.dir, "notes.txt"), "the secret is 42\n");
		w.server.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_read1", name: "read", input: { path: "notes.txt" } }], {
				stopReason: "tool_use",
			}),
			anthropicReply([{ type: "text", text: "It says 42." }]),
			anthropicReply([{ type: "text", text: "branched answer" }]),
		);
		await w.session.prompt("read notes.txt");
		const call = messageEntry(
			w.entries(),
			(role, entry) =>
				role === "assistant" &&
				entry.type === "message" &&
				entry.message.role === "assistant" &&
				entry.message.stopReason === "toolUse",
		);
		const result = messageEntry(w.entries(), (role) => role === "toolResult");

		await w.session.navigateTree(call.id);
		expect(w.session.sessionManager.getLeafId()).toBe(call.id);
		await w.session.prompt("now something else");

		expect(w.server.requests).toHaveLength(3);
		const messages = w.server.requests[2]!.body.messages as WireMessage[];
		expect(wireShape(messages)).toEqual([
			"user:text(read notes.txt)",
			"assistant:tool_use(toolu_read1)",
			"user:tool_result(toolu_read1)",
			"user:text(now something else)",
		]);
		// The result the branch never had is not invented: the call is marked as answered by nothing.
		expect(messages[2]!.content[0]).toMatchObject({ is_error: true, content: "No result provided" });
		expect(w.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });

		// The file: the follow-up hangs from the call; the real result stays on the old branch.
		const entries = w.entries();
		const followUp = messageEntry(entries, (role, entry) => role === "user" && entry.parentId === call.id);
		expect(result.parentId).toBe(call.id);
		expect(entries.filter((entry) => entry.parentId === followUp.id)).toHaveLength(1);
	});
});

describe("huggingface/tau#227: branching back with a summary keeps the context before the branch point", () => {
	it("huggingface/tau#227: after navigateTree(summarize) back one turn, the next request carries the turns before the branch point, then the summary, at the thinking level set before the branch point", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "off" } });
		w.server.reply(
			anthropicReply([{ type: "text", text: "Noted: the port is 8080." }]),
			anthropicReply([{ type: "text", text: "Tried the Redis cache; it failed." }]),
			anthropicReply([{ type: "text", text: "The user tried a Redis cache; it failed on eviction." }]),
			anthropicReply([{ type: "text", text: "Use an in-process LRU then." }]),
		);
		await w.session.prompt("remember: the port is 8080");
		w.session.setThinkingLevel("high");
		await w.session.prompt("try a Redis cache");
		expect(w.server.requests[1]!.body.thinking).toMatchObject({ type: "enabled" });

		const secondUser = messageEntry(
			w.entries(),
			(role, entry) => role === "user" && JSON.stringify(entry).includes("try a Redis cache"),
		);
		const navigation = await w.session.navigateTree(secondUser.id, { summarize: true });
		expect(navigation.cancelled).toBe(false);
		expect(navigation.editorText).toBe("try a Redis cache");
		expect(w.server.requests).toHaveLength(3);
		expect(w.session.thinkingLevel).toBe("high");

		await w.session.prompt("what else could work?");
		expect(w.server.requests).toHaveLength(4);
		const request = w.server.requests[3]!.body;
		const shape = wireShape(request.messages as WireMessage[]);
		expect(shape[0]).toBe("user:text(remember: the port is 8080)");
		expect(shape[1]).toBe("assistant:text(Noted: the port is 8080.)");
		expect(shape.slice(2).join("\n")).toContain("The user tried a Redis cache; it failed on eviction.");
		expect(shape.at(-1)).toBe("user:text(what else could work?)");
		expect(shape.join("\n")).not.toContain("Tried the Redis cache; it failed.");
		// The level switched before the branch point still holds.
		expect(request.thinking).toMatchObject({ type: "enabled" });
	});
});
