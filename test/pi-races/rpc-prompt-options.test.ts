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
 */
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
