/**
 * pi's report about telling one run's events from the next over RPC, replayed against a real
 * `settle --rpc` child process on a local OpenAI-compatible endpoint that streams half an answer and
 * then hangs. pi#3682: a host sent `abort` and a new `prompt` back to back while an answer streamed;
 * no event names the command it belongs to, the abort's response came after the aborted run's last
 * events, and the tail of the old answer showed up in the next answer's bubble. What the host should
 * see: the aborted run ends (`agent_end`, `agent_settled`) before the new prompt's response, and every
 * event after that response belongs to the new run, so "events after my prompt's response" is a sound
 * rule; the session file holds the aborted answer, then the new exchange.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatPartial, chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { fileEntries } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-abort-prompt-");

type Line = Record<string, unknown>;

/** The text blocks of a message of any role, joined. */
function messageText(message: { content?: unknown }): string {
	if (typeof message.content === "string") return message.content;
	if (!Array.isArray(message.content)) return "";
	return message.content
		.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : ""))
		.join("");
}

/** The text a line carries: a text delta, or the text of a message it holds. */
function lineText(line: Line): string {
	const update = line.assistantMessageEvent as { type?: string; delta?: string } | undefined;
	if (update?.type === "text_delta") return update.delta ?? "";
	const message = line.message as { content?: unknown } | undefined;
	return message ? messageText(message) : "";
}

describe("pi#3682: RPC events after an abort and a new prompt cannot be told apart", () => {
	it("pi#3682: settle --rpc: abort and prompt written together while an answer streams: the aborted run ends before the prompt's response, and every event after that response is the new run's (no old text leaks into it)", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			// The first answer streams "OLD-HEAD " (the role chunk, then the first half) and hangs.
			server.reply(
				chatPartial([{ type: "text", text: "OLD-HEAD OLD-TAIL" }], 2, "hang"),
				chatReply([{ type: "text", text: "NEW answer" }]),
			);
			const client = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
			const streaming = client.next((line) => line.type === "message_update" && lineText(line).includes("OLD-HEAD"));
			const newRunSettled = client.next(
				(line) =>
					line.type === "agent_settled" && client.lines.some((seen) => seen.type === "response" && seen.id === "req_3"),
			);
			client.send({ id: "req_1", type: "prompt", message: "a long task" });
			await streaming;
			client.child.stdin.write(
				[
					{ id: "req_2_abort", type: "abort" },
					{ id: "req_3", type: "prompt", message: "a short one" },
				]
					.map((command) => `${JSON.stringify(command)}\n`)
					.join(""),
			);
			await newRunSettled;

			const lines = client.lines;
			const at = (match: (line: Line) => boolean) => lines.findIndex(match);
			const promptResponse = at((line) => line.type === "response" && line.id === "req_3");
			const abortResponse = at((line) => line.type === "response" && line.id === "req_2_abort");
			expect(lines[promptResponse]).toMatchObject({ success: true, data: { disposition: "started" } });
			expect(lines[abortResponse]).toMatchObject({ success: true });
			expect(abortResponse).toBeLessThan(promptResponse);

			// The aborted run is over before the new prompt's response.
			const before = lines.slice(0, promptResponse);
			expect(before.filter((line) => line.type === "agent_start")).toHaveLength(1);
			expect(before.filter((line) => line.type === "agent_end")).toHaveLength(1);
			expect(before.filter((line) => line.type === "agent_settled")).toHaveLength(1);
			const abortedAnswer = before.find(
				(line) => line.type === "message_end" && (line.message as { role?: string }).role === "assistant",
			);
			expect(abortedAnswer?.message).toMatchObject({ stopReason: "aborted" });

			// After it: the new run alone, none of the old answer's text.
			const after = lines.slice(promptResponse + 1);
			expect(after.map((line) => String(line.type)).filter((type) => type.startsWith("agent_"))).toEqual([
				"agent_start",
				"agent_end",
				"agent_settled",
			]);
			expect(after.some((line) => lineText(line).includes("OLD"))).toBe(false);
			const streamed = after
				.map((line) => line.assistantMessageEvent as { type?: string; delta?: string } | undefined)
				.filter((update) => update?.type === "text_delta")
				.map((update) => update!.delta)
				.join("");
			expect(streamed).toBe("NEW answer");

			const state = (await client.request({ id: "s", type: "get_state" })) as { data: { sessionFile: string } };
			expect(await client.end()).toBe(0);
			const messages = fileEntries(state.data.sessionFile)
				.map((entry) => entry.message as { role: string; content?: unknown } | undefined)
				.filter((message) => message !== undefined && message.role !== "system");
			expect(messages.map((message) => [message!.role, messageText(message!)])).toEqual([
				["user", "a long task"],
				["assistant", "OLD-HEAD "],
				["user", "a short one"],
				["assistant", "NEW answer"],
			]);
			expect(messages[1]).toMatchObject({ stopReason: "aborted" });
		} finally {
			await server.close();
		}
	});
});
