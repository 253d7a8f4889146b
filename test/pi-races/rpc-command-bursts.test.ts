/**
 * Reports from RPC clients that write several commands at once, replayed against a real
 * `settle --rpc` child process on a local OpenAI-compatible endpoint.
 *
 * pi-sand#37 (the race its #38 / #40 name, on pi 0.84.4): an executor started `pi --mode rpc`,
 * wrote `set_model`, `set_thinking_level` and `prompt` one after the other without waiting for
 * the answers, and the task could run with the start-up model or level, because pi's input reader
 * starts handling each line without waiting for the one before. What the client should see: the
 * prompt's request goes to the model and level the lines before it selected, as if each answer had
 * been awaited. The answers may come in another order than the commands; each carries its id.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-rpc-bursts-");

/** Commands as one write: the server reads them in one chunk. */
function burst(client: RpcClient, commands: readonly Record<string, unknown>[]): void {
	client.child.stdin.write(commands.map((command) => `${JSON.stringify(command)}\n`).join(""));
}

describe("pi-sand#37: set_model / set_thinking_level / prompt written at once over RPC", () => {
	it("pi-sand#37: settle --rpc: a prompt written right behind set_model and set_thinking_level is sent to the selected model at the selected level", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "coder" }, { id: "thinker", reasoning: true }],
			});
			server.reply(chatReply([{ type: "text", text: "done" }]));
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const settled = client.next((line) => line.type === "agent_settled");
			burst(client, [
				{ id: "m", type: "set_model", provider: "local", modelId: "thinker" },
				{ id: "t", type: "set_thinking_level", level: "high" },
				{ id: "p", type: "prompt", message: "run the task" },
			]);
			await settled;
			expect(await client.end()).toBe(0);
			const responses = client.lines.filter((line) => line.type === "response");
			const byId = (id: string) => responses.filter((line) => line.id === id);
			for (const id of ["m", "t", "p"]) expect(byId(id)).toMatchObject([{ success: true }]);
			expect(byId("t")[0]).toMatchObject({ data: { level: "high" } });
			// The one model request: the selected model, at the selected level.
			expect(server.requests).toHaveLength(1);
			expect(server.requests[0]!.body).toMatchObject({ model: "thinker", reasoning_effort: "high" });
			const end = client.lines.find((line) => line.type === "agent_end") as
				| { messages: { role: string; model?: string }[] }
				| undefined;
			expect(end?.messages.find((message) => message.role === "assistant")).toMatchObject({ model: "thinker" });
		} finally {
			await server.close();
		}
	});
});

describe("a read written right behind a model switch over RPC", () => {
	it("settle --rpc: set_model then get_state in one write answer in that order, and get_state names the new model", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder" }, { id: "thinker" }] });
			// An extension that takes a moment over the switch (a real one saves or logs it): the
			// switch's answer comes after the line behind it was read.
			const extensions = join(cli.project, ".settle", "extensions");
			mkdirSync(extensions, { recursive: true });
			writeFileSync(
				join(extensions, "slow-select.ts"),
				`export default function (pi) {
	pi.on("model_select", async () => { await new Promise((resolve) => setTimeout(resolve, 50)); });
}
`,
			);
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const state = client.next((line) => line.type === "response" && line.id === "s");
			burst(client, [
				{ id: "m", type: "set_model", provider: "local", modelId: "thinker" },
				{ id: "s", type: "get_state" },
			]);
			await state;
			expect(await client.end()).toBe(0);
			const responses = client.lines.filter((line) => line.type === "response");
			expect(responses.map((line) => [line.id, line.success])).toEqual([
				["m", true],
				["s", true],
			]);
			expect(responses[1]).toMatchObject({ data: { model: { provider: "local", id: "thinker" } } });
		} finally {
			await server.close();
		}
	});
});
