/**
 * pi#9803: since pi 0.86 an RPC `steer` passes through extensions' `input` hooks; a hook can take
 * steer A (`handled`) while queueing a steer B of its own, and pi answers A with a bare success and
 * a `queue_update` for B: the client cannot tell whether A was queued, and so whether to resend it.
 * Settle's steer / follow_up run the hooks too. Replayed on a real `settle --rpc` process with a
 * real extension file and the real `bash` tool holding the run open.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-steer-rpc-");

/** Takes the steer "A" and sends "B" in its place (the report's reproduction); takes "X" and drops it. */
const REDIRECT = `export default function (pi) {
	pi.on("input", (event) => {
		if (event.text === "X") return { action: "handled" };
		if (event.text !== "A") return { action: "continue" };
		pi.sendUserMessage("B", { deliverAs: "steer" });
		return { action: "handled" };
	});
}
`;

const userTexts = (lines: Record<string, unknown>[]) =>
	lines.flatMap((line) => {
		const message = line.message as { role?: string; content?: unknown } | undefined;
		if (line.type !== "message_start" || message?.role !== "user") return [];
		const content = message.content;
		return [
			typeof content === "string"
				? content
				: (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join(""),
		];
	});

describe("pi#9803: an RPC steer's success cannot be told from an extension-handled one", () => {
	it("pi#9803: settle --rpc: a steer or follow_up an input hook takes answers disposition handled, a steer and a follow_up that wait in their queues answer queued", async () => {
		const extension = join(cli.dir, "redirect.mjs");
		writeFileSync(extension, REDIRECT);
		const go = join(cli.dir, "steer-rpc-go");
		const steps = join(cli.dir, "steer-rpc.json");
		writeFileSync(
			steps,
			JSON.stringify([
				{
					toolCalls: [
						{
							name: "bash",
							arguments: { command: `until [ -e '${go}' ]; do sleep 0.05; done; echo released` },
							id: "call-1",
						},
					],
				},
				"after B",
				"after C",
				"after D",
			]),
		);
		const client = new RpcClient(["--faux-script", steps, "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const started = client.next((line) => line.type === "tool_execution_start");
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p", type: "prompt", message: "wait for go" })).toMatchObject({
			success: true,
		});
		await started;

		const queuedB = client.next(
			(line) => line.type === "queue_update" && JSON.stringify(line.steering) === JSON.stringify(["B"]),
		);
		expect(await client.request({ id: "a", type: "steer", message: "A" })).toMatchObject({
			success: true,
			data: { disposition: "handled" },
		});
		await queuedB;
		expect(await client.request({ id: "c", type: "steer", message: "C" })).toMatchObject({
			success: true,
			data: { disposition: "queued" },
		});
		expect(await client.request({ id: "d", type: "follow_up", message: "D" })).toMatchObject({
			success: true,
			data: { disposition: "queued" },
		});
		expect(await client.request({ id: "x", type: "follow_up", message: "X" })).toMatchObject({
			success: true,
			data: { disposition: "handled" },
		});
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ data: { pendingMessageCount: 3 } });

		writeFileSync(go, "");
		await settled;
		// A and X never reach the model; the hook's B and the queued C and D do, steers first.
		expect(userTexts(client.lines)).toEqual(["wait for go", "B", "C", "D"]);
		expect(await client.end()).toBe(0);
	});
});
