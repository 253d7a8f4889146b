/**
 * Risk: `settle --rpc` answers get_state, get_available_models, set_model and cycle_model with the
 * model object, and Settle's model objects carry the request headers resolved from models.json —
 * a team token, or the value of the environment variable a header names. RPC hosts log their
 * traffic; pi keeps those headers out of its model objects. A real `settle --rpc` process.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-sec-rpc-");

const LITERAL_HEADER = "literal-team-token-0123456789";
const ENV_HEADER_VALUE = "env-team-token-9876543210";

let client: RpcClient | undefined;
afterEach(async () => {
	await client?.end();
	client = undefined;
	delete process.env.SEC_TEST_TEAM_TOKEN;
});

describe("RPC model objects carry no request headers", () => {
	it("get_state, get_available_models, set_model and cycle_model answer without the resolved header values", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		const model = (id: string) => ({ id, name: id, contextWindow: 100000, maxTokens: 1000 });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({
				providers: {
					local: {
						baseUrl: "http://127.0.0.1:9/v1",
						api: "openai-completions",
						apiKey: "sk-local-0123456789abcdef",
						headers: { "X-Team-Token": LITERAL_HEADER, "X-Env-Token": "SEC_TEST_TEAM_TOKEN" },
						models: [model("m1"), model("m2")],
					},
				},
			}),
		);
		process.env.SEC_TEST_TEAM_TOKEN = ENV_HEADER_VALUE;
		client = new RpcClient(["--model", "local/m1"], { cwd: cli.project, agentDir: cli.agentDir });
		const answers = [
			await client.request({ id: "1", type: "get_state" }),
			await client.request({ id: "2", type: "get_available_models" }),
			await client.request({ id: "3", type: "set_model", provider: "local", modelId: "m2" }),
			await client.request({ id: "4", type: "cycle_model" }),
		];
		for (const answer of answers) expect(answer.success).toBe(true);
		expect((answers[0]!.data as { model: { id: string } }).model.id).toBe("m1");
		expect((answers[2]!.data as { id: string }).id).toBe("m2");
		const text = JSON.stringify(answers);
		expect(text).not.toContain(LITERAL_HEADER);
		expect(text).not.toContain(ENV_HEADER_VALUE);
		expect(text).not.toContain('"headers"');
	});
});
