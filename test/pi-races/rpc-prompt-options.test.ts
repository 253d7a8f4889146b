/**
 * A `prompt` command's options over RPC, against a real `settle --rpc` child process on a local
 * OpenAI-compatible endpoint.
 *
 * Found while replaying the RPC queue reports (no upstream report): a `prompt` sent while a run
 * goes on with `streamingBehavior: "follow_up"` (the name of the `follow_up` command; the field
 * wants `"followUp"`) was answered `success: true` and queued as a steer, as pi 0.73.1 does with any
 * value that is not `"followUp"`: the message meant for after the run was delivered into it,
 * before the model's next call. What the client should see: the prompt refused under its id,
 * naming the two values, nothing queued, the run going on; the same message with `"followUp"` is
 * queued as a follow-up.
 *
 * vercel-labs/fx#993, replayed: over ACP, a second prompt sent while a turn ran a tool (`sleep 8`)
 * was refused "Prompt already in progress": the client could not tell how to send while running.
 * Against Settle, on a faux script whose bash call waits for a file: a second `prompt` without
 * `streamingBehavior` is refused once under its id, the error naming `streamingBehavior` and its two
 * values, and the running turn goes on untouched; the same message sent with `"followUp"` runs as
 * the next turn, after the first answer, in the same operation.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type Reply, startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-rpc-prompt-options-");

describe("an RPC prompt with a streamingBehavior that is neither steer nor followUp", () => {
	it('streamingBehavior "follow_up": settle --rpc refuses the prompt under its id naming "steer" and "followUp", queues nothing, and the run goes on; "followUp" queues it as a follow-up', async () => {
		let answerFirst: (() => void) | undefined;
		// The first request is answered only once the test says so: the run is going on meanwhile.
		const held: Reply = (request, res, req) => {
			answerFirst = () => chatReply([{ type: "text", text: "first answer" }])(request, res, req);
		};
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			server.reply(held, chatReply([{ type: "text", text: "follow-up answer" }]));
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const settled = client.next((line) => line.type === "agent_settled");
			expect(await client.request({ id: "p", type: "prompt", message: "the task" })).toMatchObject({ success: true });
			await server.waitForRequests(1);

			const refused = await client.request({
				id: "typo",
				type: "prompt",
				message: "then run the tests",
				streamingBehavior: "follow_up",
			});
			expect(refused).toMatchObject({ command: "prompt", success: false });
			expect(String(refused.error)).toMatch(/streamingBehavior must be "steer" or "followUp" \(got "follow_up"\)/);
			const state = await client.request({ id: "s", type: "get_state" });
			expect(state).toMatchObject({ data: { isStreaming: true, pendingMessageCount: 0 } });
			expect(client.lines.some((line) => line.type === "queue_update")).toBe(false);

			const queued = client.next((line) => line.type === "queue_update");
			expect(
				await client.request({
					id: "ok",
					type: "prompt",
					message: "then run the tests",
					streamingBehavior: "followUp",
				}),
			).toMatchObject({ success: true, data: { disposition: "queued" } });
			expect(await queued).toMatchObject({ steering: [], followUp: ["then run the tests"] });
			answerFirst!();
			await settled;
			// The follow-up went out after the first answer, in its own request.
			expect(server.requests).toHaveLength(2);
			expect(JSON.stringify(server.requests[0]!.body)).not.toContain("then run the tests");
			expect(JSON.stringify(server.requests[1]!.body)).toContain("then run the tests");
			expect(await client.end()).toBe(0);
		} finally {
			await server.close();
		}
	});
});

describe("vercel-labs/fx#993: a second prompt during a running turn is refused instead of queued", () => {
	it("vercel-labs/fx#993: settle --rpc, a prompt while the turn's bash call runs: refused once naming streamingBehavior, the turn goes on; with followUp it runs as the next turn, after the first answer", async () => {
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: "until [ -f go ]; do sleep 0.05; done; echo slept" } }] },
				"FIRST DONE",
				"SECOND DONE",
			]),
		);
		const client = new RpcClient(["--faux-script", script, "--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const settled = client.next((line) => line.type === "agent_settled");
		const running = client.next((line) => line.type === "tool_execution_start");
		expect(await client.request({ id: "first", type: "prompt", message: "run it, then say FIRST DONE" })).toMatchObject(
			{
				success: true,
			},
		);
		await running;

		const refused = await client.request({ id: "second", type: "prompt", message: "then say SECOND DONE" });
		expect(refused).toMatchObject({ command: "prompt", success: false });
		expect(String(refused.error)).toContain("Specify streamingBehavior ('steer' or 'followUp')");
		expect(await client.request({ id: "state", type: "get_state" })).toMatchObject({
			data: { isStreaming: true, pendingMessageCount: 0 },
		});
		expect(
			await client.request({
				id: "again",
				type: "prompt",
				message: "then say SECOND DONE",
				streamingBehavior: "followUp",
			}),
		).toMatchObject({ success: true, data: { disposition: "queued" } });
		writeFileSync(join(cli.project, "go"), "");
		await settled;

		// One response per id; the answers in order, the follow-up after the first turn's answer.
		expect(client.lines.filter((line) => line.type === "response" && line.id === "second")).toHaveLength(1);
		const answers = client.lines.flatMap((line) => {
			const message = line.message as { role?: string; content?: { type: string; text?: string }[] } | undefined;
			if (line.type !== "message_end" || message?.role !== "assistant") return [];
			return [message.content!.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")];
		});
		expect(answers).toEqual(["", "FIRST DONE", "SECOND DONE"]);
		expect(client.lines.filter((line) => line.type === "agent_settled")).toHaveLength(1);
		expect(await client.end()).toBe(0);
	});
});
