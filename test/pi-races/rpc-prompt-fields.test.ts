/**
 * pi's reports about an RPC `prompt` whose text is under the wrong field, replayed against a real
 * `settle --rpc` child process on a local OpenAI-compatible endpoint. pi#2461 (`"content"`) and
 * pi#9465 (`"text"`): the prompt was answered `success: false` with "Cannot read properties of
 * undefined (reading 'startsWith')" (and, in pi#2461, a second `success: true` for the same prompt),
 * nothing said the field is `message`, and hosts took it for a broken model or provider. What the
 * client should see: one refusal per prompt that names `message` and the field it used, no model
 * request, nothing written; the same prompt with `message` then runs.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";
import { fileEntries, persistedUserTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-prompt-fields-");

describe("pi#2461, pi#9465: an RPC prompt with its text under content or text", () => {
	it("pi#2461, pi#9465: settle --rpc: a prompt with content or text instead of message gets one refusal naming both fields; no model request, nothing written; sent with message it runs", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			server.reply(chatReply([{ type: "text", text: "hello there" }]));
			const client = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
			const refused = ["content", "text"].map((id) =>
				client.next((line) => line.type === "response" && line.id === id),
			);
			client.child.stdin.write(
				[
					{ id: "content", type: "prompt", content: "say hi" },
					{ id: "text", type: "prompt", text: "hi" },
				]
					.map((command) => `${JSON.stringify(command)}\n`)
					.join(""),
			);
			// A state read is answered as it is read (hapi#1379), so it is asked once both refusals came.
			await Promise.all(refused);
			const state = await client.request({ id: "state", type: "get_state" });
			expect(state).toMatchObject({ success: true, data: { isStreaming: false, messageCount: 0 } });
			for (const field of ["content", "text"]) {
				const answers = client.lines.filter((line) => line.type === "response" && line.id === field);
				expect(answers).toEqual([
					{
						id: field,
						type: "response",
						command: "prompt",
						success: false,
						error: `prompt: "message" must be a string (it is missing; the text goes in "message", not "${field}")`,
					},
				]);
			}
			expect(server.requests).toHaveLength(0);
			expect(client.lines.some((line) => line.type === "agent_start")).toBe(false);

			const settled = client.next((line) => line.type === "agent_settled");
			expect(await client.request({ id: "message", type: "prompt", message: "hi" })).toMatchObject({ success: true });
			await settled;
			const { data } = (await client.request({ id: "file", type: "get_state" })) as { data: { sessionFile: string } };
			expect(await client.end()).toBe(0);
			expect(server.requests).toHaveLength(1);
			expect(persistedUserTexts(data.sessionFile)).toEqual(["hi"]);
			expect(fileEntries(data.sessionFile).filter((entry) => entry.message?.role === "assistant")).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});
