/**
 * Reports about picking a model by name (`--model`, a scope and its cycling), replayed against the
 * real `settle` command (child processes) with a models.json provider `local` on a local
 * OpenAI-compatible server; pi 0.73.1's own CLI runs beside it where the report is about its answer.
 *
 * pi#3777, pi#8117: `pi --model opus` / `--model fast` (no such id) took a catalogue model by its
 * name's part, across every provider: one the user has no key for (`vercel-ai-gateway`), then failed
 * "No API key found", never naming the model it had put in. What the user should see: no model
 * they did not name, and the ones they can use named first (by `--model` and by RPC `set_model`).
 *
 * ai-toolbox#274: a custom provider's `minimax-m3` became the catalogue's `MiniMax-M3` once picked;
 * the upstream answered that no such model exists. pi 0.73.1 matches a bare id in any case and takes
 * the first, the catalogue's. What the user should see: the id as typed wins; another case still
 * names a model (as pi: `--model CODER`, which Settle refused).
 *
 * pi#5042: with one provider logged in, `pi --model gpt-5.4 -p hi` failed "No API key found for
 * azure-openai-responses": a bare id several providers serve went to the first, keyed or not. What
 * the user should see: the answer of the provider that has a key.
 *
 * pi#4817: `pi --provider openai-codex` (no `--model`) was silently ignored: the settings' default of
 * a provider with no key was used, "No API key found for openai". What the user should see: told
 * that `--provider` alone picks nothing and what to add; the keyless default passed over for a
 * model with a key, with a word (pi#3547, `settings-default-model`).
 *
 * pi#9580: a scope of exactly one model that is not the current one: Ctrl+P said "Only one model in
 * scope" and stayed. What the user should see: the cycle goes to that model.
 *
 * pi#5552: `pi --model neuralwatt/zai-org/GLM-5.1-FP8:high -p hi`, an id the provider does not list
 * with pi's thinking suffix: the suffix went out as part of the id (404), and the custom id's copy
 * of a model that cannot reason dropped the level without a word. What the user should see: no
 * request with the suffixed id but how to ask for it (Settle reads no suffix), and `--thinking high`
 * on a custom id asking the provider to reason.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { runPiOwnCli } from "../cli/pi-diff-process.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-model-picking-");
const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

/** Keys of the catalogue providers these names could land on: none is set, as in the reports. */
const NO_KEYS = {
	ANTHROPIC_API_KEY: undefined,
	MINIMAX_API_KEY: undefined,
	OPENROUTER_API_KEY: undefined,
	AI_GATEWAY_API_KEY: undefined,
	GITHUB_TOKEN: undefined,
	XAI_API_KEY: undefined,
	OPENAI_API_KEY: undefined,
	AZURE_OPENAI_API_KEY: undefined,
	GH_TOKEN: undefined,
	COPILOT_GITHUB_TOKEN: undefined,
	OPENCODE_API_KEY: undefined,
};

function writeModels(ids: string[]): void {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: ids.map((id) => ({ id })) });
}

function settle(args: string[], env: Record<string, string | undefined> = {}) {
	return runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir, env: { ...NO_KEYS, ...env } });
}

/** pi 0.73.1's CLI on the same agent folder (offline, a clean environment). */
function pi(args: string[]) {
	return runPiOwnCli({ project: cli.project, home: cli.dir, piAgent: cli.agentDir }, args);
}

/** The names a "Did you mean: a, b, … (n more)?" hint lists. */
function suggested(stderr: string): string[] {
	const list = /Did you mean: (.*?)\?/.exec(stderr)?.[1] ?? "";
	return list.split(", ").filter((name) => !name.startsWith("…"));
}

describe("pi#3777, pi#8117: --model <part of a name> puts in a catalogue model of a provider without a key", () => {
	it("pi#8117: settle -p --model fast refuses before any request and names the user's own model among the first suggestions; pi 0.73.1 picks vercel-ai-gateway's", async () => {
		writeModels(["coder", "my-fast-coder"]);
		const run = await settle(["--no-session", "--model", "fast", "-p", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("Model not found: fast.");
		expect(suggested(run.stderr)[0]).toBe("local/my-fast-coder");
		expect(server.requests).toHaveLength(0);

		const theirs = await pi(["--no-session", "--model", "fast", "-p", "hi"]);
		expect(theirs.stderr).toContain("No API key found for vercel-ai-gateway");
	});

	it("pi#3777: settle -p --model opus with only an Anthropic key: the suggestions start with Anthropic's opus models, not Bedrock's", async () => {
		writeModels(["coder"]);
		const run = await settle(["--no-session", "--model", "opus", "-p", "hi"], { ANTHROPIC_API_KEY: "test-key" });
		expect(run.code).toBe(2);
		const names = suggested(run.stderr);
		expect(names.length).toBeGreaterThan(0);
		expect(names[0]).toMatch(/^anthropic\/claude-.*opus/);
		expect(server.requests).toHaveLength(0);
	});

	it("pi#8117 over RPC: set_model of a provider that does not exist suggests the user's own model first, as --model does", async () => {
		writeModels(["coder", "my-fast-coder"]);
		const rpc = new RpcClient(["--no-session", "--model", "local/coder"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: NO_KEYS,
		});
		const reply = (await rpc.request({ id: "1", type: "set_model", provider: "locl", modelId: "fast" })) as {
			success: boolean;
			error: string;
		};
		expect(reply.success).toBe(false);
		expect(reply.error).toContain("Model not found: locl/fast.");
		expect(suggested(reply.error)[0]).toBe("local/my-fast-coder");
		expect(await rpc.end()).toBe(0);
		expect(server.requests).toHaveLength(0);
	});
});

describe("ai-toolbox#274: a custom model id in lower case taken for the catalogue's mixed-case one", () => {
	it("settle -p --model minimax-m2.7 asks the custom provider for minimax-m2.7 (pi 0.73.1: the catalogue's MiniMax-M2.7, no key); --model CODER is local/coder in both", async () => {
		writeModels(["coder", "minimax-m2.7"]);
		const exact = await settle(["--no-session", "--model", "minimax-m2.7", "-p", "hi"]);
		expect(exact).toMatchObject({ code: 0, stdout: "answered\n" });
		const upper = await settle(["--no-session", "--model", "CODER", "-p", "hi"]);
		expect(upper).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(server.requests.map((request) => (request.body as { model: string }).model)).toEqual([
			"minimax-m2.7",
			"coder",
		]);

		const theirs = await pi(["--no-session", "--model", "minimax-m2.7", "-p", "hi"]);
		expect(theirs.stderr).toContain("No API key found for minimax");
		const theirsUpper = await pi(["--no-session", "--model", "CODER", "-p", "hi"]);
		expect(theirsUpper).toMatchObject({ code: 0, stdout: "answered\n" });
	});
});

describe("pi#5042: a bare --model id several providers serve goes to one without a key", () => {
	it("settle -p --model gpt-5.4 with only models.json's local keyed answers from local/gpt-5.4; pi 0.73.1 asks azure-openai-responses", async () => {
		writeModels(["gpt-5.4"]);
		const run = await settle(["--no-session", "--model", "gpt-5.4", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(server.requests.map((request) => (request.body as { model: string }).model)).toEqual(["gpt-5.4"]);

		const theirs = await pi(["--no-session", "--model", "gpt-5.4", "-p", "hi"]);
		expect(theirs.stderr).toContain("No API key found for azure-openai-responses");
	});
});

describe("pi#4817: --provider without --model is silently ignored", () => {
	it("settle -p --provider local with the settings' default on openai (no key): a warning says --provider alone picks no model and to add --model, the keyless default is passed over (pi#3547); pi 0.73.1 says only the key error", async () => {
		writeModels(["coder"]);
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: "openai", defaultModel: "gpt-5.4" }),
		);
		const run = await settle(["--no-session", "--provider", "local", "-p", "hi"]);
		expect(run.stderr).toContain(
			"Warning: --provider local chooses no model without --model (as in pi): add --model <id>",
		);
		expect(run.stderr).toContain("The settings' default model openai/gpt-5.4 has no API key here");
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(server.requests.map((request) => (request.body as { model: string }).model)).toEqual(["coder"]);

		const theirs = await pi(["--no-session", "--provider", "local", "-p", "hi"]);
		expect(theirs.stderr).toContain("No API key found for openai");
		expect(theirs.stderr).not.toContain("--provider");
	});
});

describe("pi#5552: a custom model id with a :<thinking> suffix", () => {
	it("pi#5552: settle -p --model local/newid:high exits 2 before any request, naming --model local/newid --thinking high; that command asks newid to reason at high", async () => {
		writeModels(["coder"]);
		const [suffixed, apart] = await Promise.all([
			settle(["--no-session", "--model", "local/newid:high", "-p", "hi"]),
			settle(["--no-session", "--model", "local/newid", "--thinking", "high", "-p", "hi"]),
		]);
		expect(suffixed.code).toBe(2);
		expect(suffixed.stderr).toContain("settle --model local/newid --thinking high");
		expect(apart).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(server.requests.map((request) => request.body)).toEqual([
			expect.objectContaining({ model: "newid", reasoning_effort: "high" }),
		]);
	});
});

describe("pi#9580: a scope of one model that is not the current one", () => {
	it("settle --rpc --models local/small --model local/big: cycle_model switches to small and the next prompt goes to it; a second cycle_model stays", async () => {
		writeModels(["big", "small"]);
		const rpc = new RpcClient(["--no-session", "--models", "local/small", "--model", "local/big"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: NO_KEYS,
		});
		const cycled = (await rpc.request({ id: "1", type: "cycle_model" })) as { data: { model: { id: string } } | null };
		expect(cycled.data?.model.id).toBe("small");
		await rpc.promptAndSettle("hi", "p");
		expect(server.requests.map((request) => (request.body as { model: string }).model)).toEqual(["small"]);
		const again = (await rpc.request({ id: "2", type: "cycle_model" })) as { data: unknown };
		expect(again.data).toBeNull();
		expect(await rpc.end()).toBe(0);
	});
});
