/**
 * Reports about the prices of models declared in `models.json`, replayed against a real
 * `settle --rpc` child process whose built-in `openrouter` provider is pointed at a local
 * OpenAI-compatible endpoint (test/llm/wire/server.ts) that reports usage.
 *
 * pi#5544 (a pi PR, closed; again as pi#5734, no action): a built-in model declared again in
 * `models.json` (an OpenRouter model listed under `providers.openrouter.models` to change its
 * compat or name) without a `cost` replaced the catalog's model whole and was priced at 0: the
 * footer showed $0.00 though the tokens were counted. What the user should see: the catalog's
 * prices kept for a model declared again without prices; prices given in the file still win, and
 * the catalog's fill the ones a partial `cost` leaves out (pi 0.73.1 rejects such a file).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getModel } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-json-prices-");

const MODEL_ID = "ai21/jamba-large-1.7";

interface Usage {
	input: number;
	output: number;
	cost: { input: number; output: number; total: number };
}

/** Declares {@link MODEL_ID} again under the built-in `openrouter` provider, served by `baseUrl`. */
function declareAgain(baseUrl: string, fields: Record<string, unknown>): void {
	mkdirSync(cli.agentDir, { recursive: true });
	const openrouter = { baseUrl, apiKey: "router-key", models: [{ id: MODEL_ID, ...fields }] };
	writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { openrouter } }));
}

/** The usage of the answer to one prompt, and the session's cost, from a fresh `settle --rpc`. */
async function answerUsage(): Promise<{ usage: Usage | undefined; sessionCost: number; stderr: string }> {
	const client = new RpcClient(["--model", `openrouter/${MODEL_ID}`, "--no-session"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const settled = client.next((line) => line.type === "agent_settled");
	expect(await client.request({ id: "p1", type: "prompt", message: "hi" })).toMatchObject({ success: true });
	await settled;
	const usage = client.lines
		.filter((line) => line.type === "message_end" && (line.message as { role?: string })?.role === "assistant")
		.map((line) => (line.message as { usage?: Usage }).usage)
		.at(-1);
	const stats = (await client.request({ id: "s1", type: "get_session_stats" })) as { data: { cost: number } };
	client.child.stdin.end();
	expect(await client.exited).toBe(0);
	return { usage, sessionCost: stats.data.cost, stderr: client.stderr };
}

describe("pi#5544, pi#5734: a built-in model declared again in models.json without prices", () => {
	it("pi#5544: settle --rpc on openrouter/ai21/jamba-large-1.7 declared again with only a name: its answer and the session cost what the catalog's prices say, not $0", async () => {
		const catalog = getModel("openrouter", MODEL_ID as never)?.cost;
		expect(catalog?.input).toBeGreaterThan(0);
		const server = await startWireServer();
		try {
			declareAgain(`${server.url}/api/v1`, { name: "Jamba (team route)" });
			server.reply(chatReply([{ type: "text", text: "routed" }], { usage: { prompt: 50_000, completion: 2_000 } }));
			const { usage, sessionCost } = await answerUsage();
			expect(server.requests[0]?.body.model).toBe(MODEL_ID);
			expect(usage).toMatchObject({ input: 50_000, output: 2_000 });
			const expected = (50_000 * catalog!.input + 2_000 * catalog!.output) / 1_000_000;
			expect(usage?.cost.total).toBeCloseTo(expected, 12);
			expect(sessionCost).toBeCloseTo(expected, 12);
		} finally {
			await server.close();
		}
	});

	it("pi#5544: the same model declared again with its own cost: the file's prices are the ones charged", async () => {
		const server = await startWireServer();
		try {
			declareAgain(`${server.url}/api/v1`, { cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } });
			server.reply(chatReply([{ type: "text", text: "routed" }], { usage: { prompt: 50_000, completion: 2_000 } }));
			const { usage } = await answerUsage();
			expect(usage?.cost.total).toBeCloseTo(52_000 / 1_000_000, 12);
		} finally {
			await server.close();
		}
	});

	it('pi#5544: the same model declared again with only "cost": {"input": 1}: input at 1, output at the catalog\'s price (not 0, not NaN); a warning says the catalog keeps the missing prices', async () => {
		const catalog = getModel("openrouter", MODEL_ID as never)?.cost;
		expect(catalog?.output).toBeGreaterThan(0);
		const server = await startWireServer();
		try {
			declareAgain(`${server.url}/api/v1`, { cost: { input: 1 } });
			server.reply(chatReply([{ type: "text", text: "routed" }], { usage: { prompt: 50_000, completion: 2_000 } }));
			const { usage, sessionCost, stderr } = await answerUsage();
			const expected = (50_000 * 1 + 2_000 * catalog!.output) / 1_000_000;
			expect(usage?.cost.total).toBeCloseTo(expected, 12);
			expect(sessionCost).toBeCloseTo(expected, 12);
			expect(stderr).toContain(
				`model "${MODEL_ID}": "models" field "cost" has no "output", "cacheRead", "cacheWrite": the built-in model's prices are kept for them.`,
			);
		} finally {
			await server.close();
		}
	});
});
