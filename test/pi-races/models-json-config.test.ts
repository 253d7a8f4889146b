/**
 * Reports about `models.json` models and the settings that pick them, replayed against the real
 * `settle` command (child processes) on a local OpenAI-compatible endpoint (test/llm/wire/server.ts).
 *
 * pi#6210: a custom model whose id holds brackets (`bracketed-model[1m]`, the form proxies use for a
 * 1M-context variant) could not be put in the model scope: `enabledModels` / `--models` read any
 * pattern with a `[` as a glob, so `custom/bracketed-model[1m]` matched nothing ("No models match
 * pattern") or, worse, another model (`[1m]` is the class "1 or m"). What the user should see: the
 * literal id matched first, the glob only when no model has that id.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-json-config-");
let server: WireServer;
beforeEach(async () => {
	server = await startWireServer();
});
afterEach(async () => {
	await server.close();
});

function writeModels(providers: Record<string, unknown>): void {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers }));
}

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
		writeModels(bracketed());
		writeSettings({ enabledModels: ["custom/bracketed-model[1m]"] });
		server.reply(chatReply([{ type: "text", text: "answered by the 1m model" }]));
		const run = await runSettleAsync(["--no-session", "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stdout).toContain("answered by the 1m model");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.body.model).toBe("bracketed-model[1m]");
		expect(run.stderr).not.toContain("No models match pattern");
	});

	it("pi#6210: --models 'custom/bracketed-model[1m]:high' scopes the literal id with its thinking level; a real glob still matches", async () => {
		writeModels(bracketed());
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
