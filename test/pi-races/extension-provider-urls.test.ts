/**
 * Where the requests of a provider an extension registers or re-points (`pi.registerProvider`)
 * go, replayed against the real `settle` command (child processes) with an extension file and a
 * local endpoint speaking the provider's wire format (test/llm/wire/server.ts).
 *
 * pi#2291: an extension re-pointing a built-in provider at a proxy from `session_start`
 * (`pi.registerProvider("anthropic", { baseUrl })`) had no effect on the first request: the session
 * had picked its model before extensions started, so the request went to api.anthropic.com with the
 * proxy's dummy key (401). What the user should see: the first request at the proxy.
 *
 * pi#4063: `pi.registerProvider()` with a `baseUrl` on a model (a hub serving models at different
 * URLs) sent every model to the provider-level `baseUrl`, unlike models.json. What the user should
 * see: a model with its own `baseUrl` requested there, the others at the provider's.
 *
 * pi#3538: a built-in provider's models.json entry with only `headers` (a `User-Agent` kimi-coding
 * requires at peak hours) was refused: pi wanted a `baseUrl` too. What the user should see: the
 * header on the provider's requests, its built-in models kept; here the requests reach the local
 * endpoint through an extension re-pointing the provider, as a proxy extension would.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-extension-provider-urls-");
const server = useWireServer();

/** The extension source registering provider `hub` (openai-completions at the local server) with one model, `model-a` (128,000 tokens). */
function registerHub(): string {
	return `pi.registerProvider("hub", {
	baseUrl: ${JSON.stringify(`${server.url}/v1`)},
	apiKey: "hub-key",
	api: "openai-completions",
	models: [{ id: "model-a", name: "model-a", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
});`;
}

/** An extension registering `hub` ({@link registerHub}) as it loads. */
function writeHubExtension(): string {
	return writeExtension(cli.dir, "hub.mjs", registerHub());
}

describe("pi#2291: a built-in provider re-pointed from session_start misses the first request", () => {
	it("pi#2291: settle -p on anthropic/claude-sonnet-4-5, an extension registering anthropic's baseUrl in session_start: the first request reaches the proxy with the key", async () => {
		const extension = writeExtension(
			cli.dir,
			"proxy-override.mjs",
			`pi.on("session_start", () => {
	pi.registerProvider("anthropic", { baseUrl: ${JSON.stringify(server.url)} });
});`,
		);
		server.reply(anthropicReply([{ type: "text", text: "via the proxy" }]));
		const run = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "anthropic/claude-sonnet-4-5", "-p", "hi"],
			{ cwd: cli.project, agentDir: cli.agentDir, env: { ANTHROPIC_API_KEY: "proxy-dummy-key" } },
		);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("via the proxy");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.path).toBe("/v1/messages");
		expect(server.requests[0]?.headers["x-api-key"]).toBe("proxy-dummy-key");
	});
});

describe("pi#2291 (unregister): a provider an extension stops re-pointing", () => {
	it("pi#2291: settle -i, anthropic re-pointed by models.json and then by an extension in session_start: the first prompt goes to the extension's URL; after the extension unregisters it, the next to models.json's", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { anthropic: { baseUrl: `${server.url}/gateway` } } }),
		);
		const extension = writeExtension(
			cli.dir,
			"switchable-proxy.mjs",
			`pi.on("session_start", () => {
	pi.registerProvider("anthropic", { baseUrl: ${JSON.stringify(`${server.url}/proxy`)} });
});
pi.registerCommand("direct", { description: "stop proxying", handler: async () => pi.unregisterProvider("anthropic") });`,
		);
		const chat = new Repl(["--no-session", "-e", extension, "--model", "anthropic/claude-sonnet-4-5"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { ANTHROPIC_API_KEY: "user-key" },
		});
		await chat.idle(0);
		server.reply(
			anthropicReply([{ type: "text", text: "proxied" }]),
			anthropicReply([{ type: "text", text: "gateway" }]),
		);
		expect(await chat.say("hi")).toContain("proxied");
		await chat.say("/direct");
		expect(await chat.say("again")).toContain("gateway");
		expect(server.requests.map((request) => request.path)).toEqual(["/proxy/v1/messages", "/gateway/v1/messages"]);
		expect(await chat.end()).toBe(0);
	});
});

describe("pi#4063: pi.registerProvider() ignores a model's own baseUrl", () => {
	it("pi#4063: settle -p on a registered provider's two models: the one with its own baseUrl is requested there, the other at the provider's baseUrl", async () => {
		const model = (id: string, extra: string) =>
			`{ id: "${id}", name: "${id}", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }${extra} }`;
		const extension = writeExtension(
			cli.dir,
			"hub.mjs",
			`pi.registerProvider("hub", {
	baseUrl: ${JSON.stringify(`${server.url}/default/v1`)},
	apiKey: "hub-key",
	api: "openai-completions",
	models: [${model("model-a", `, baseUrl: ${JSON.stringify(`${server.url}/a/v1`)}`)}, ${model("model-b", "")}],
});`,
		);
		server.reply(chatReply([{ type: "text", text: "from a" }]), chatReply([{ type: "text", text: "from b" }]));
		const at = { cwd: cli.project, agentDir: cli.agentDir };
		for (const id of ["model-a", "model-b"]) {
			const run = await runSettleAsync(["--no-session", "-e", extension, "--model", `hub/${id}`, "-p", "hi"], at);
			expect(run.stderr).toBe("");
			expect(run.stdout).toContain(`from ${id.slice(-1)}`);
		}
		expect(server.requests.map((request) => request.path)).toEqual([
			"/a/v1/chat/completions",
			"/default/v1/chat/completions",
		]);
		expect(server.requests.map((request) => request.headers.authorization)).toEqual([
			"Bearer hub-key",
			"Bearer hub-key",
		]);
	});
});

describe("pi#3538: a built-in provider's models.json entry with only headers", () => {
	it("pi#3538: models.json `deepseek: { headers: { User-Agent } }` (no baseUrl, no models) and an extension re-pointing deepseek: settle -p sends the header with the key; --list-models keeps deepseek's models and warns of nothing", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { deepseek: { headers: { "User-Agent": "KimiCLI/1.37.0" } } } }),
		);
		const extension = writeExtension(
			cli.dir,
			"proxy.mjs",
			`pi.registerProvider("deepseek", { baseUrl: ${JSON.stringify(`${server.url}/v1`)} });`,
		);
		const at = { cwd: cli.project, agentDir: cli.agentDir, env: { DEEPSEEK_API_KEY: "deepseek-key" } };
		server.reply(chatReply([{ type: "text", text: "with the agent header" }]));
		const run = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "deepseek/deepseek-v4-flash", "-p", "hi"],
			at,
		);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("with the agent header");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.headers["user-agent"]).toBe("KimiCLI/1.37.0");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer deepseek-key");

		const list = await runSettleAsync(["--list-models", "deepseek/"], at);
		expect(list.stdout).toContain("deepseek/deepseek-v4-flash");
		expect(list.stderr).toBe("");
	});
});

describe("pi#2956, pi#3044, senpi#1270: models.json models under a provider an extension registers", () => {
	it('pi#2956: models.json lists `hub: { models: [{ id: "qwen-custom" }] }` and an extension registers hub (baseUrl, key, api, model-a): --list-models shows both models and settle -p on hub/qwen-custom reaches the extension\'s baseUrl with its key', async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { hub: { models: [{ id: "qwen-custom", name: "Qwen custom" }] } } }),
		);
		const extension = writeHubExtension();
		const at = { cwd: cli.project, agentDir: cli.agentDir };
		const list = await runSettleAsync(["-e", extension, "--list-models", "hub/"], at);
		expect(list.stdout).toContain("hub/model-a");
		expect(list.stdout).toContain("hub/qwen-custom");

		server.reply(chatReply([{ type: "text", text: "from the custom model" }]));
		const run = await runSettleAsync(["--no-session", "-e", extension, "--model", "hub/qwen-custom", "-p", "hi"], at);
		expect(run.stdout).toContain("from the custom model");
		// The entry could not apply alone, but the extension registered hub: its models joined, nothing to warn of.
		expect(run.stderr).toBe("");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.path).toBe("/v1/chat/completions");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer hub-key");
		expect(server.requests[0]?.body?.model).toBe("qwen-custom");
	});
});

describe("pi#2956: the models.json warning for a provider no extension registers", () => {
	it("pi#2956: models.json lists models under hub, which an extension registers, and under nohub, which none does: settle --list-models warns of nohub only, and lists hub's models", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({
				providers: { hub: { models: [{ id: "qwen-custom" }] }, nohub: { models: [{ id: "lost-model" }] } },
			}),
		);
		const extension = writeHubExtension();
		const list = await runSettleAsync(["-e", extension, "--list-models", "hub"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(list.code).toBe(0);
		expect(list.stdout.split("\n").filter((line) => line.startsWith("hub/"))).toEqual([
			"hub/model-a      128000 tokens",
			"hub/qwen-custom  128000 tokens",
		]);
		const warnings = list.stderr.split("\n").filter((line) => line !== "");
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/^Warning: .*models\.json: provider "nohub" was skipped: /);
		expect(warnings[0]).toContain('Its models are added to "nohub" if an extension registers that provider.');
	});
});

describe("pi#2956: a models.json model with the id of one the extension registers", () => {
	it("pi#2956: models.json lists hub's `model-a` with a 64,000-token window and the extension registers model-a with 128,000: --list-models shows model-a once, with the file's window", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { hub: { models: [{ id: "model-a", contextWindow: 64000 }] } } }),
		);
		const extension = writeHubExtension();
		const list = await runSettleAsync(["-e", extension, "--list-models", "hub/"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(list.stdout.split("\n").filter((line) => line.startsWith("hub/"))).toEqual(["hub/model-a  64000 tokens"]);
	});
});

describe("a provider an extension registers in session_start on pi-ai's wire api", () => {
	it("settle -p, an extension registering hub (api openai-completions) in session_start and switching to hub/model-a: the prompt reaches hub's baseUrl, nothing on stderr (no 'nothing serves api')", async () => {
		const extension = writeExtension(
			cli.dir,
			"hub-at-start.mjs",
			`pi.on("session_start", async (_event, ctx) => {
	${registerHub()}
	await pi.setModel(ctx.modelRegistry.find("hub", "model-a"));
});`,
		);
		server.reply(chatReply([{ type: "text", text: "from hub" }]));
		const run = await runSettleAsync(["--no-session", "-e", extension, "--model", "openai/gpt-4o-mini", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENAI_API_KEY: "unused-key" },
		});
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("from hub");
		expect(server.requests.map((request) => request.path)).toEqual(["/v1/chat/completions"]);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer hub-key");
	});
});

describe("pi#2956: the models.json warning for a provider an extension registers in session_start", () => {
	it("pi#2956: models.json lists models under hub and nohub, an extension registers hub in session_start: settle -p answers through hub/qwen-custom and warns of nohub only, once, after session_start and before the run", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({
				providers: { hub: { models: [{ id: "qwen-custom" }] }, nohub: { models: [{ id: "lost-model" }] } },
			}),
		);
		const extension = writeExtension(
			cli.dir,
			"hub-at-start.mjs",
			`pi.on("session_start", async (_event, ctx) => {
	${registerHub()}
	await pi.setModel(ctx.modelRegistry.find("hub", "qwen-custom"));
	console.error("session_start ran");
});
pi.on("agent_end", () => console.error("agent_end ran"));`,
		);
		server.reply(chatReply([{ type: "text", text: "from hub" }]));
		const run = await runSettleAsync(["--no-session", "-e", extension, "--model", "openai/gpt-4o-mini", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENAI_API_KEY: "unused-key" },
		});
		expect(run.stdout).toContain("from hub");
		expect(server.requests[0]?.body?.model).toBe("qwen-custom");
		const lines = run.stderr.split("\n").filter((line) => line !== "");
		expect(lines).toHaveLength(3);
		expect(lines[0]).toBe("session_start ran");
		expect(lines[1]).toMatch(/^Warning: .*models\.json: provider "nohub" was skipped: /);
		expect(lines[2]).toBe("agent_end ran");
	});
});

describe("pi#2956: the held models.json warning when settle -p ends before session_start", () => {
	/** models.json with a provider no extension registers (`nohub`), and an extension with a boolean flag `--loud`. */
	function nohubWithFlagExtension(): string {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { nohub: { models: [{ id: "lost-model" }] } } }),
		);
		return writeExtension(cli.dir, "loud.mjs", `pi.registerFlag("loud", { type: "boolean", description: "louder" });`);
	}
	const nohubWarnings = (stderr: string) =>
		stderr.split("\n").filter((line) => /^Warning: .*models\.json: provider "nohub" was skipped: /.test(line));

	it("pi#2956: settle -p --loud with no prompt: exits 2, warning of nohub once and then saying there is no prompt", async () => {
		const extension = nohubWithFlagExtension();
		const run = await runSettleAsync(["--no-session", "-e", extension, "-p", "--loud"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(2);
		expect(nohubWarnings(run.stderr)).toHaveLength(1);
		// The warning comes first, as at any other start: the error is the last thing said.
		expect(run.stderr.indexOf(nohubWarnings(run.stderr)[0]!)).toBeLessThan(run.stderr.indexOf("Error: no prompt."));
	});

	it("pi#2956: settle --mode json with an unknown option --bogus: exits 2 naming the option, and warns of nohub once", async () => {
		const extension = nohubWithFlagExtension();
		const run = await runSettleAsync(["--no-session", "-e", extension, "--mode", "json", "--bogus", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("--bogus");
		expect(nohubWarnings(run.stderr)).toHaveLength(1);
	});
});
