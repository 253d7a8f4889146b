/**
 * Reports about `models.json` models and the settings that pick them, replayed against the real
 * `settle` command (child processes) on a local OpenAI-compatible endpoint (test/llm/wire/server.ts).
 *
 * pi#6210: a custom model whose id holds brackets (`bracketed-model[1m]`, the form proxies use for a
 * 1M-context variant) could not be put in the model scope: `enabledModels` / `--models` read any
 * pattern with a `[` as a glob, so `custom/bracketed-model[1m]` matched nothing ("No models match
 * pattern") or, worse, another model (`[1m]` is the class "1 or m"). What the user should see: the
 * literal id matched first, the glob only when no model has that id.
 *
 * pi#3095, pi#3168: a custom OpenAI-compatible provider (`nvidia`, a model id with a slash) was
 * listed but `pi --model nvidia/deepseek-ai/deepseek-v3.2 -p test` hung: nothing streamed for its
 * api. What the user should see: the request at the endpoint, with the key and the model's cap, and
 * the answer.
 *
 * pi#540: `enabledModels` entries without a `:<thinking>` suffix started the session at `off`,
 * overriding `defaultThinkingLevel`. What the user should see: the settings' level asked for, and a
 * suffix winning over it.
 *
 * pi#193: Anthropic requests could not be routed through a gateway (Cloudflare AI gateway, for
 * logging and caching): `ANTHROPIC_BASE_URL` did nothing and built-in providers' URLs were fixed
 * (pi#406 added the models.json way). What the user should see: a models.json entry with only a
 * `baseUrl` (and `headers`) for `anthropic` sends the built-in model's request there, with the
 * user's key and the header, the built-in models all kept.
 *
 * pi#9725: `openrouter`'s `baseUrl` and key swapped for a credential-injecting proxy (the documented
 * simple override) reached the proxy for some of its models only: pi 0.85.1 gave openrouter's
 * anthropic models a base URL of their own, so they 404'd. What the user should see: every
 * openrouter model, anthropic's and others', sent to the proxy with the proxy's token.
 *
 * pi#2921: custom models added to a built-in provider (`openrouter: { models: [...] }`, a model
 * the built-in list does not have yet) were not usable: Settle skipped the entry with a warning, so
 * `--model openrouter/<new id>` and a scope naming it found nothing. What the user should see (pi
 * 0.73.1's merge): the new model listed beside the built-in ones (one with a built-in id replacing
 * it), its request on the provider's api at its base URL (the entry's, else the built-in one's),
 * with the provider's key from its environment variable.
 *
 * pi's `modelOverrides` (per-model changes of a built-in provider's models) were skipped with a
 * warning. What the user should see: the overridden context window and name in `--list-models`, the
 * overridden `maxTokens` and headers on the request.
 *
 * A built-in provider's entry with only `baseUrl` and `compat` (no `models`, no `modelOverrides`)
 * left the built-in models' compat as it was: the flags reached the models only when the entry also
 * had models or overrides. What the user should see (pi 0.73.1's `loadBuiltInModels`): the entry's
 * compat on every built-in model's request, e.g. `maxTokensField: "max_tokens"` on the wire.
 *
 * DLYZZT/pi-desktop#38: `enabledModels: ["deepseek/deepseek-v4-flash"]` also let in another
 * provider's model whose id is `deepseek/deepseek-v4-flash` (a router's). What the user should see:
 * the `deepseek` provider's model alone in the scope, and the session on it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeModelsJson } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-json-config-");
const server = useWireServer();

function writeSettings(settings: Record<string, unknown>): void {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify(settings));
}

describe("pi#6210: a model id with brackets cannot be scoped", () => {
	const bracketed = () => ({
		custom: {
			baseUrl: `${server.url}/v1`,
			api: "openai-completions",
			apiKey: "custom-key",
			// `bracketed-model1` is what the glob `bracketed-model[1m]` matches.
			models: [{ id: "bracketed-model1" }, { id: "bracketed-model[1m]" }],
		},
	});

	it("pi#6210: enabledModels naming custom/bracketed-model[1m]: settle -p runs on that model, no warning", async () => {
		writeModelsJson(cli.agentDir, bracketed());
		writeSettings({ enabledModels: ["custom/bracketed-model[1m]"] });
		server.reply(chatReply([{ type: "text", text: "answered by the 1m model" }]));
		const run = await runSettleAsync(["--no-session", "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stdout).toContain("answered by the 1m model");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.body.model).toBe("bracketed-model[1m]");
		expect(run.stderr).not.toContain("No models match pattern");
	});

	it("pi#6210: --models 'custom/bracketed-model[1m]:high' scopes the literal id with its thinking level; a real glob still matches", async () => {
		writeModelsJson(cli.agentDir, bracketed());
		server.reply(chatReply([{ type: "text", text: "scoped" }]));
		const run = await runSettleAsync(["--no-session", "--models", "custom/bracketed-model[1m]:high", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(server.requests[0]?.body.model).toBe("bracketed-model[1m]");
		expect(run.stderr).not.toContain("No models match pattern");

		// No model has the id `bracketed-model[1]`: the pattern is a glob, and matches `bracketed-model1`.
		server.reply(chatReply([{ type: "text", text: "globbed" }]));
		const glob = await runSettleAsync(["--no-session", "--models", "custom/bracketed-model[1]", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(glob.stdout).toContain("globbed");
		expect(server.requests[1]?.body.model).toBe("bracketed-model1");
	});
});

describe("pi#3095, pi#3168: a custom OpenAI-compatible provider from models.json loads but cannot be called", () => {
	it("pi#3095: settle -p --model nvidia/deepseek-ai/deepseek-v3.2 (the report's file): the endpoint gets the request with the key and the model's caps, the answer is printed", async () => {
		const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
		writeModelsJson(cli.agentDir, {
			nvidia: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "nvapi-YOUR_KEY",
				models: [
					{
						id: "deepseek-ai/deepseek-v3.2",
						name: "DeepSeek V3.2",
						reasoning: true,
						input: ["text"],
						contextWindow: 128000,
						maxTokens: 4096,
						cost,
					},
				],
			},
		});
		server.reply(chatReply([{ type: "text", text: "deepseek answers" }]));
		const run = await runSettleAsync(["--no-session", "--model", "nvidia/deepseek-ai/deepseek-v3.2", "-p", "test"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("deepseek answers");
		expect(server.requests).toHaveLength(1);
		const request = server.requests[0];
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBe("Bearer nvapi-YOUR_KEY");
		expect(request?.body).toMatchObject({ model: "deepseek-ai/deepseek-v3.2", stream: true });
		const cap = request?.body.max_completion_tokens ?? request?.body.max_tokens;
		expect(cap).toBe(4096);
	});
});

describe("pi#540: enabledModels without a thinking suffix overrides defaultThinkingLevel with off", () => {
	it("pi#540: settle -p on a scope from enabledModels: an entry without a suffix runs at defaultThinkingLevel, one with `:low` at low", async () => {
		writeModelsJson(cli.agentDir, {
			local: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "local-key",
				models: [{ id: "thinker", reasoning: true }],
			},
		});
		const at = { cwd: cli.project, agentDir: cli.agentDir };
		writeSettings({ enabledModels: ["local/thinker"], defaultThinkingLevel: "high" });
		server.reply(
			chatReply([{ type: "text", text: "thought hard" }]),
			chatReply([{ type: "text", text: "thought a bit" }]),
		);
		const plain = await runSettleAsync(["--no-session", "-p", "hi"], at);
		expect(plain.stdout).toContain("thought hard");
		expect(server.requests[0]?.body).toMatchObject({ model: "thinker", reasoning_effort: "high" });

		writeSettings({ enabledModels: ["local/thinker:low"], defaultThinkingLevel: "high" });
		const pinned = await runSettleAsync(["--no-session", "-p", "hi"], at);
		expect(pinned.stdout).toContain("thought a bit");
		expect(server.requests[1]?.body).toMatchObject({ model: "thinker", reasoning_effort: "low" });
	});
});

describe("pi#193: a built-in provider's base URL cannot be pointed at a gateway", () => {
	it("pi#193: models.json `anthropic: { baseUrl, headers }`: settle -p on anthropic/claude-sonnet-4-5 sends to the gateway with the key and header; --list-models keeps anthropic's models", async () => {
		writeModelsJson(cli.agentDir, {
			anthropic: { baseUrl: server.url, headers: { "cf-aig-authorization": "Bearer gateway-token" } },
		});
		const at = { cwd: cli.project, agentDir: cli.agentDir, env: { ANTHROPIC_API_KEY: "sk-ant-user" } };
		server.reply(anthropicReply([{ type: "text", text: "via the gateway" }]));
		const run = await runSettleAsync(["--no-session", "--model", "anthropic/claude-sonnet-4-5", "-p", "hi"], at);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("via the gateway");
		expect(server.requests).toHaveLength(1);
		const request = server.requests[0];
		expect(request?.path).toBe("/v1/messages");
		expect(request?.headers["x-api-key"]).toBe("sk-ant-user");
		expect(request?.headers["cf-aig-authorization"]).toBe("Bearer gateway-token");
		expect(request?.body.model).toBe("claude-sonnet-4-5");

		const list = await runSettleAsync(["--list-models", "anthropic/claude"], at);
		expect(list.stdout).toContain("anthropic/claude-sonnet-4-5");
		expect(list.stdout).toContain("anthropic/claude-opus-4-1");
		expect(list.stderr).toBe("");
	});
});

describe("pi#9725: an overridden openrouter baseUrl reaches the proxy for some models only", () => {
	it("pi#9725: models.json `openrouter: { baseUrl, apiKey, authHeader }`: openrouter/anthropic/claude-sonnet-4.5 and openrouter/openai/gpt-4o-mini both go to the proxy with its token", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: { baseUrl: `${server.url}/api/v1`, apiKey: "OPENROUTER_PROXY_TOKEN", authHeader: true },
		});
		const at = {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENROUTER_PROXY_TOKEN: "proxy-token", OPENROUTER_API_KEY: undefined },
		};
		const models = ["anthropic/claude-sonnet-4.5", "openai/gpt-4o-mini"];
		for (const [index, id] of models.entries()) {
			server.reply(chatReply([{ type: "text", text: `proxied ${id}` }]));
			const run = await runSettleAsync(["--no-session", "--model", `openrouter/${id}`, "-p", "hi"], at);
			expect(run.code).toBe(0);
			expect(run.stdout).toContain(`proxied ${id}`);
			const request = server.requests[index];
			expect(request?.path).toBe("/api/v1/chat/completions");
			expect(request?.headers.authorization).toBe("Bearer proxy-token");
			expect(request?.body.model).toBe(id);
		}
		expect(server.requests).toHaveLength(2);
	});
});

describe("DLYZZT/pi-desktop#38: enabledModels provider/id also matches another provider's model with that id", () => {
	it("pi-desktop#38: settle -i with enabledModels deepseek/deepseek-v4-flash and openrouter's deepseek/deepseek-v4-flash available: /model lists deepseek's model only and the prompt goes to it", async () => {
		// Both built-in providers, keyed and re-pointed at the local endpoint.
		writeModelsJson(cli.agentDir, {
			deepseek: { baseUrl: `${server.url}/v1` },
			openrouter: { baseUrl: `${server.url}/api/v1` },
		});
		writeSettings({ enabledModels: ["deepseek/deepseek-v4-flash"] });
		const chat = new Repl(["--no-session"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { DEEPSEEK_API_KEY: "deepseek-key", OPENROUTER_API_KEY: "openrouter-key" },
		});
		await chat.idle(0);
		const listed = await chat.say("/model");
		expect(listed).toContain("In the model scope (/model <provider/id>):\n* deepseek/deepseek-v4-flash");
		expect(listed).not.toContain("openrouter/");
		server.reply(chatReply([{ type: "text", text: "deepseek itself" }]));
		expect(await chat.say("hi")).toContain("deepseek itself");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer deepseek-key");
		expect(server.requests[0]?.body.model).toBe("deepseek-v4-flash");
		expect(await chat.end()).toBe(0);
	});
});

describe("pi#2921: custom models added to a built-in provider in models.json are not usable", () => {
	const at = () => ({
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { OPENROUTER_API_KEY: "openrouter-key", OPENROUTER_PROXY_TOKEN: undefined },
	});

	it("pi#2921: `openrouter: { models: [{ id: 'some/new-model', baseUrl }] }`: settle -p --model openrouter/some/new-model sends openrouter's api with OPENROUTER_API_KEY; --list-models shows it beside the built-in models", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: { models: [{ id: "some/new-model", baseUrl: `${server.url}/api/v1` }] },
		});
		server.reply(chatReply([{ type: "text", text: "the new model answers" }]));
		const run = await runSettleAsync(["--no-session", "--model", "openrouter/some/new-model", "-p", "hi"], at());
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("the new model answers");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.path).toBe("/api/v1/chat/completions");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer openrouter-key");
		expect(server.requests[0]?.body.model).toBe("some/new-model");

		const list = await runSettleAsync(["--list-models", "openrouter/"], at());
		expect(list.stderr).toBe("");
		expect(list.stdout).toMatch(/^openrouter\/some\/new-model +128000 tokens/m);
		expect(list.stdout).toMatch(/^openrouter\/openai\/gpt-4o-mini /m);
	});

	it("pi#2921: enabledModels naming the custom openrouter/some/new-model: the session runs on it (the entry's baseUrl), no pattern warning", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: { baseUrl: `${server.url}/api/v1`, models: [{ id: "some/new-model" }] },
		});
		writeSettings({ enabledModels: ["openrouter/some/new-model"] });
		server.reply(chatReply([{ type: "text", text: "scoped to the new model" }]));
		const run = await runSettleAsync(["--no-session", "-p", "hi"], at());
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("scoped to the new model");
		expect(server.requests[0]?.body.model).toBe("some/new-model");
	});

	it("pi#2921: a custom model with a built-in id replaces that model (one entry, the file's context window); one without baseUrl keeps the built-in base URL", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: {
				models: [
					{ id: "openai/gpt-4o-mini", contextWindow: 32000 },
					{ id: "some/new-model" },
					{ id: "local", baseUrl: `${server.url}/api/v1` },
				],
			},
		});
		// An extension reads the registry as /model and the request do.
		const extension = join(cli.project, "show-models.ts");
		writeFileSync(
			extension,
			`export default (pi) => pi.on("session_start", (_event, ctx) => {
				const model = ctx.modelRegistry.find("openrouter", "some/new-model");
				console.error("new-model " + model?.api + " " + model?.baseUrl);
			});\n`,
		);
		const list = await runSettleAsync(["--list-models", "openrouter/openai/gpt-4o-mini"], at());
		const listed = list.stdout.match(/^openrouter\/openai\/gpt-4o-mini +\d+ tokens/gm) ?? [];
		expect(listed.map((line) => line.replace(/ +/g, " "))).toEqual(["openrouter/openai/gpt-4o-mini 32000 tokens"]);
		// The prompt goes to the local model; the extension tells where some/new-model would go.
		server.reply(chatReply([{ type: "text", text: "local" }]));
		const run = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "openrouter/local", "-p", "hi"],
			at(),
		);
		expect(run.stdout).toContain("local");
		expect(run.stderr).toContain("new-model openai-completions https://openrouter.ai/api/v1");
	});
});

describe("pi#2921 in settle -i: /model reads models.json again", () => {
	it("pi#2921: settle -i, `/model openrouter/some/new-model` (the custom model of the built-in provider): the prompt goes to it with OPENROUTER_API_KEY", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: { baseUrl: `${server.url}/api/v1`, models: [{ id: "some/new-model" }] },
		});
		const chat = new Repl(["--no-session", "--model", "openrouter/openai/gpt-4o-mini"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENROUTER_API_KEY: "openrouter-key" },
		});
		await chat.idle(0);
		expect(await chat.say("/model openrouter/some/new-model")).toContain("openrouter/some/new-model");
		server.reply(chatReply([{ type: "text", text: "picked in the chat" }]));
		expect(await chat.say("hi")).toContain("picked in the chat");
		expect(server.requests[0]?.body.model).toBe("some/new-model");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer openrouter-key");
		expect(await chat.end()).toBe(0);
	});
});

describe("modelOverrides: per-model changes of a built-in provider's models in models.json are skipped", () => {
	it("modelOverrides: openrouter/openai/gpt-4o-mini with contextWindow, maxTokens and headers: --list-models shows the window; the request carries the cap and the header", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: {
				baseUrl: `${server.url}/api/v1`,
				modelOverrides: {
					"openai/gpt-4o-mini": { contextWindow: 64000, maxTokens: 1234, headers: { "x-team": "TEAM_HEADER" } },
				},
			},
		});
		const at = {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENROUTER_API_KEY: "openrouter-key", TEAM_HEADER: "team-7" },
		};
		const list = await runSettleAsync(["--list-models", "openrouter/openai/gpt-4o"], at);
		expect(list.stderr).toBe("");
		expect(list.stdout).toMatch(/^openrouter\/openai\/gpt-4o-mini +64000 tokens/m);
		// Only the named model changes.
		expect(list.stdout).toMatch(/^openrouter\/openai\/gpt-4o +128000 tokens/m);

		server.reply(chatReply([{ type: "text", text: "overridden" }]));
		const run = await runSettleAsync(["--no-session", "--model", "openrouter/openai/gpt-4o-mini", "-p", "hi"], at);
		expect(run.stdout).toContain("overridden");
		const request = server.requests[0];
		expect(request?.headers["x-team"]).toBe("team-7");
		expect(request?.headers.authorization).toBe("Bearer openrouter-key");
		expect(request?.body.max_tokens ?? request?.body.max_completion_tokens).toBe(1234);
	});

	it('modelOverrides with wrong types: a quoted contextWindow, a negative maxTokens and input "text" are each ignored with a warning naming the file, provider, model, field and what to write; the valid fields and entries apply', async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: {
				baseUrl: `${server.url}/api/v1`,
				modelOverrides: {
					"openai/gpt-4o-mini": { contextWindow: "64000", maxTokens: -5, input: "text", name: "Mini (team)" },
					"openai/gpt-4o": { contextWindow: 96000 },
				},
			},
		});
		const at = { cwd: cli.project, agentDir: cli.agentDir, env: { OPENROUTER_API_KEY: "openrouter-key" } };
		const list = await runSettleAsync(["--list-models", "openrouter/openai/gpt-4o"], at);
		const file = join(cli.agentDir, "models.json");
		const prefix = `${file}: provider "openrouter": model "openai/gpt-4o-mini": "modelOverrides" field`;
		expect(list.stderr).toContain(`${prefix} "contextWindow" is "64000"; it must be a positive whole number`);
		expect(list.stderr).toContain(`${prefix} "maxTokens" is -5; it must be a positive whole number`);
		expect(list.stderr).toContain(`${prefix} "input" is "text"; it must be a list of "text" and "image"`);
		expect(list.stderr.match(/modelOverrides" field/g)).toHaveLength(3);
		// The built-in window stays (not the string); the other model's valid override applies.
		expect(list.stdout).toMatch(/^openrouter\/openai\/gpt-4o-mini +128000 tokens/m);
		expect(list.stdout).toMatch(/^openrouter\/openai\/gpt-4o +96000 tokens/m);

		server.reply(chatReply([{ type: "text", text: "kept" }]));
		const run = await runSettleAsync(["--no-session", "--model", "openrouter/openai/gpt-4o-mini", "-p", "hi"], at);
		expect(run.stdout).toContain("kept");
		// Not the negative cap: the built-in model's own.
		const cap = server.requests[0]?.body.max_tokens ?? server.requests[0]?.body.max_completion_tokens;
		expect(cap).toBeGreaterThan(0);
	});
});

describe("models.json `models` entries with wrong types flowed into the model", () => {
	it("a custom model's negative price and quoted contextWindow are each ignored with a warning; its answers cost nothing instead of a negative amount, its window is the default", async () => {
		writeModelsJson(cli.agentDir, {
			gateway: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "gateway-key",
				models: [{ id: "team-model", contextWindow: "64000", cost: { input: -1000000, output: 2 }, maxTokens: 4096 }],
			},
		});
		const at = { cwd: cli.project, agentDir: cli.agentDir };
		const list = await runSettleAsync(["--list-models", "gateway/team-model"], at);
		const prefix = `${join(cli.agentDir, "models.json")}: provider "gateway": model "team-model": "models" field`;
		expect(list.stderr).toContain(`${prefix} "contextWindow" is "64000"; it must be a positive whole number`);
		expect(list.stderr).toContain(`${prefix} "cost" is {"input":-1000000,"output":2}; it must be an object of prices`);
		expect(list.stdout).toMatch(/^gateway\/team-model +128000 tokens/m);

		server.reply(chatReply([{ type: "text", text: "priced" }], { usage: { prompt: 50_000, completion: 100 } }));
		const run = await runSettleAsync(["--no-session", "--model", "gateway/team-model", "--mode", "json", "hi"], at);
		const end = run.stdout
			.split("\n")
			.filter((line) => line.includes('"agent_end"'))
			.map((line) => JSON.parse(line) as { messages: { role: string; usage?: { cost: { total: number } } }[] })[0];
		const answer = end?.messages.find((message) => message.role === "assistant");
		expect(answer?.usage?.cost.total).toBe(0);
		expect(server.requests[0]?.body.max_completion_tokens ?? server.requests[0]?.body.max_tokens).toBe(4096);
	});
});

describe("models.json compat of a built-in provider entry without models or modelOverrides is not applied", () => {
	it("built-in compat: `openrouter: { baseUrl, compat: { maxTokensField: 'max_tokens', supportsStore: false } }`: settle -p sends max_tokens, not max_completion_tokens, and no store", async () => {
		writeModelsJson(cli.agentDir, {
			openrouter: { baseUrl: `${server.url}/api/v1`, compat: { maxTokensField: "max_tokens", supportsStore: false } },
		});
		const at = { cwd: cli.project, agentDir: cli.agentDir, env: { OPENROUTER_API_KEY: "openrouter-key" } };
		server.reply(chatReply([{ type: "text", text: "compat applied" }]));
		const run = await runSettleAsync(["--no-session", "--model", "openrouter/openai/gpt-4o-mini", "-p", "hi"], at);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("compat applied");
		expect(server.requests).toHaveLength(1);
		const body = server.requests[0]?.body;
		expect(body?.max_tokens).toBeGreaterThan(0);
		expect(body).not.toHaveProperty("max_completion_tokens");
		expect(body).not.toHaveProperty("store");
	});
});
