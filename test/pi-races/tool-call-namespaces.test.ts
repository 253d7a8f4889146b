/**
 * maki#505: OpenAI's GPT-5 models, post-trained on Codex sessions where tools sit under the
 * `functions` namespace, called `functions.bash` instead of `bash`: every call failed "unknown tool"
 * (pi 0.73.1: "Tool functions.bash not found"), and the model never got its command run.
 *
 * Replayed with a real `settle -p` against a local server speaking the OpenAI Responses API, the
 * provider declared in `models.json`, the answer's call named as the model wrote it.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withNamespacedToolNames } from "../../src/agent/tool-call-names.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { type ResponsesItem, responsesReply } from "../llm/wire/responses.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-tool-namespaces-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

type InputItem = { type?: string; name?: string; call_id?: string; output?: unknown };

async function gptServer(): Promise<WireServer> {
	server = await startWireServer();
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({
			providers: {
				gpt: { baseUrl: `${server.url}/v1`, api: "openai-responses", apiKey: "k", models: [{ id: "gpt-wire-1" }] },
			},
		}),
	);
	return server;
}

function settle(args: string[]) {
	return runSettleAsync(["--session-dir", join(cli.dir, "sessions"), "--model", "gpt/gpt-wire-1", ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
}

const call = (name: string): ResponsesItem => ({
	type: "function_call",
	callId: "call_ns1",
	name,
	arguments: { command: "echo namespaced > ran.txt && cat ran.txt" },
});

describe("maki#505: a tool call named functions.<tool>", () => {
	it("maki#505: `functions.bash` runs bash; its result goes back as bash's, and the answer after it is printed", async () => {
		const wire = await gptServer();
		wire.reply(
			responsesReply([call("functions.bash")]),
			responsesReply([{ type: "message", text: "It printed namespaced." }]),
		);
		const run = await settle(["-p", "write a file and show it"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("It printed namespaced.\n");
		expect(readFileSync(join(cli.project, "ran.txt"), "utf8")).toBe("namespaced\n");
		const input = (wire.requests[1]!.body.input ?? []) as InputItem[];
		expect(input.find((item) => item.type === "function_call")).toMatchObject({ name: "bash", call_id: "call_ns1" });
		const output = input.find((item) => item.type === "function_call_output");
		expect(output).toMatchObject({ call_id: "call_ns1", output: "namespaced\n" });
		// The saved answer names the tool the model was given, so a resumed session replays `bash`.
		const [file] = readdirSync(join(cli.dir, "sessions"));
		const saved = readFileSync(join(cli.dir, "sessions", file!), "utf8");
		expect(saved).not.toContain("functions.bash");
	});

	it("maki#505 (control): a name no tool has under the namespace either is still refused, the model told so", async () => {
		const wire = await gptServer();
		wire.reply(
			responsesReply([call("functions.shell")]),
			responsesReply([{ type: "message", text: "No shell tool." }]),
		);
		const run = await settle(["-p", "write a file and show it"]);
		expect(run.stdout).toBe("No shell tool.\n");
		const input = (wire.requests[1]!.body.input ?? []) as InputItem[];
		expect(input.find((item) => item.type === "function_call_output")).toMatchObject({
			output: "Tool functions.shell not found",
		});
		expect(readdirSync(cli.project)).toEqual([]);
	});

	it("maki#505 (control): a tool really named `functions.read` is the one called, not `read` beside it", () => {
		const answer = fauxAssistantMessage([fauxToolCall("functions.read", { path: "a.txt" })]);
		const named = withNamespacedToolNames(answer, [{ name: "read" }, { name: "functions.read" }]);
		expect(named.content[0]).toMatchObject({ type: "toolCall", name: "functions.read" });
	});
});
