/**
 * local-operator#165: a model switched in the middle of a tool-using turn only took effect on the
 * next user message: every remaining call of the turn went to the old model while the status showed
 * the new one. mindroom#1901: an agent's tool switches the thread's model and the same turn is to go
 * on with it. In Settle the switch comes from an extension: a tool whose `execute` calls
 * `pi.setModel()` and `pi.setThinkingLevel()`. What the user should see: the run's next request goes
 * to the new model at the new level, `model_select` (source `set`) and `thinking_level_select` reach
 * extensions once each, and the answer is the new model's.
 *
 * Replayed with a real `settle -p`, a real extension file and a local OpenAI-compatible server
 * serving both models, reached through pi-ai's client (the request bodies it received are asserted).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const ESCALATE = (log: string) => `import { appendFileSync } from "node:fs";
const note = (value) => appendFileSync(${JSON.stringify(log)}, JSON.stringify(value) + "\\n");
export default function (pi) {
	pi.on("model_select", (event) => note({ type: event.type, model: event.model.id, previous: event.previousModel?.id, source: event.source }));
	pi.on("thinking_level_select", (event) => note({ type: event.type, level: event.level, previous: event.previousLevel }));
	pi.registerTool({
		name: "escalate",
		label: "escalate",
		description: "Hands the rest of the task to the bigger model",
		parameters: { type: "object", properties: {} },
		execute: async (_id, _params, _signal, _onUpdate, ctx) => {
			const switched = await pi.setModel(ctx.modelRegistry.find("local", "coder-big"));
			pi.setThinkingLevel("high");
			return { content: [{ type: "text", text: "switched: " + switched }], details: {} };
		},
	});
}
`;

describe("local-operator#165, mindroom#1901: a model switch from a running tool", () => {
	const cli = useCliProject("settle-model-switch-mid-turn-");
	const server = useWireServer();

	it("local-operator#165: pi.setModel and pi.setThinkingLevel from a tool: the run's next request goes to the new model at the new level; one model_select and one thinking_level_select", async () => {
		writeLocalProvider(cli.agentDir, server.url, {
			models: [
				{ id: "coder", reasoning: true },
				{ id: "coder-big", reasoning: true },
			],
		});
		const log = join(cli.dir, "selects.jsonl");
		const extension = join(cli.dir, "escalate.mjs");
		writeFileSync(extension, ESCALATE(log));
		server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "escalate", arguments: {} }], { model: "coder" }),
			chatReply([{ type: "text", text: "the big model's answer" }], { model: "coder-big" }),
		);
		const run = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "local/coder", "--thinking", "low", "-p", "hard task"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.stdout).toBe("the big model's answer\n");
		expect(run.code).toBe(0);
		const sent = server.requests.map((request) => {
			const body = request.body as { model: string; reasoning_effort?: string; messages: { role: string }[] };
			return {
				model: body.model,
				effort: body.reasoning_effort,
				toolResults: body.messages.filter((m) => m.role === "tool").length,
			};
		});
		expect(sent).toEqual([
			{ model: "coder", effort: "low", toolResults: 0 },
			{ model: "coder-big", effort: "high", toolResults: 1 },
		]);
		const selects = existsSync(log)
			? readFileSync(log, "utf8")
					.trim()
					.split("\n")
					.map((line) => JSON.parse(line) as Record<string, unknown>)
			: [];
		expect(selects).toEqual([
			{ type: "model_select", model: "coder-big", previous: "coder", source: "set" },
			{ type: "thinking_level_select", level: "high", previous: "low" },
		]);
	});
});
