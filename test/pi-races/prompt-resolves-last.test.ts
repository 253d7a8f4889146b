/**
 * When `session.prompt()` resolves, has the host heard everything the run produced? opencode's ACP
 * agent answered `end_turn` as soon as its SDK's prompt call returned, while the final answer's text
 * deltas were still queued: clients got chunks after the turn had ended (opencode#25421).
 */
import { describe, expect, it } from "vitest";
import type { AgentSessionEvent } from "../../src/index.js";
import { diskSessionsPerTest, fileMessages } from "./disk-harness.js";

const sessions = diskSessionsPerTest();

describe("opencode#25421: the prompt's answer arrived after the turn was reported over", () => {
	it("prompt() resolves after every event of its run reached subscribe listeners: the streamed final answer's deltas and message_end, then agent_settled last, with the answer on disk; the next event heard is the next prompt's", async () => {
		const { session, provider, events } = await sessions.session();
		provider.answer(
			provider.toolCallReply({ type: "toolCall", id: "ls-1", name: "bash", arguments: { command: "echo listed" } }),
		);
		let heardAtResolve: AgentSessionEvent[] = [];
		let savedAtResolve: string[] = [];
		const first = session.prompt("list the files").then(() => {
			heardAtResolve = events.slice();
			savedAtResolve = fileMessages(session.sessionFile!).map((message) => message.role);
		});
		// The final answer streams in pieces after the tool ran.
		const answer = await provider.next();
		answer.beginText("Here are ");
		answer.stream.push({
			type: "text_delta",
			contentIndex: 0,
			delta: "the files.",
			partial: provider.reply("Here are the files."),
		});
		answer.finish(provider.reply("Here are the files."));
		await first;

		const types = heardAtResolve.map((event) => event.type);
		expect(types.at(-1)).toBe("agent_settled");
		const deltas = heardAtResolve.filter(
			(event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
		);
		expect(deltas).toHaveLength(2);
		const finalEnd = heardAtResolve.findLastIndex(
			(event) => event.type === "message_end" && event.message.role === "assistant",
		);
		expect(finalEnd).toBeGreaterThan(heardAtResolve.indexOf(deltas[1]!));
		expect(types.indexOf("agent_end")).toBeGreaterThan(finalEnd);
		expect(savedAtResolve.filter((role) => role !== "system")).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
		]);
		expect(session.isIdle).toBe(true);

		// Nothing of the first run comes later: the next event is the next prompt's start.
		provider.answer("done");
		await session.prompt("thanks");
		expect(events[heardAtResolve.length]?.type).toBe("agent_start");
		expect(events.slice(0, heardAtResolve.length)).toEqual(heardAtResolve);
	});
});
