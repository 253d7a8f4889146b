/**
 * Reports about the model and thinking level `settings.json` names, replayed against the real
 * `settle` command (child processes) on a local OpenAI-compatible endpoint (test/llm/wire/server.ts):
 * what the user should see is read off the requests the endpoint got, the process's output and the
 * settings file afterwards.
 *
 * pi#3547: the settings' default model kept being chosen after its provider's key was gone (logged
 * out, the variable unset) although another provider had one: every prompt failed with "No API key
 * found". What the user should see: the session on a model with a key, a warning naming the default
 * passed over and the key it needs, `settings.json` unchanged (the default comes back with the key);
 * with no other model, the key error as before.
 *
 * pi-frontier#19: `defaultProvider` naming a provider an extension registers (`kilocode`): pi looked
 * the model up before the extension had registered it and fell back to the first built-in provider
 * with a key. What the user should see: the extension's model answering.
 *
 * gsd-2#29: a settings default model no longer in the catalogue was replaced, in `settings.json`, by
 * the model the start-up fell back to: the user's choice overwritten on every launch. What the user
 * should see: a warning naming the default and the model used, and `settings.json` as it was.
 *
 * pi#7966: `pi --thinking off "…"` after a session left at another level: the model still thought
 * (the indicator said off). What the user should see: the request at the flag's level, the saved
 * `defaultThinkingLevel` untouched and used again by the next run without the flag.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { writeExtProviderExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-settings-default-model-");
const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

/** No key for the catalogue's openai, whatever the machine running the tests has. */
const NO_OPENAI_KEY = { OPENAI_API_KEY: undefined };

function writeSettings(settings: Record<string, unknown>): string {
	const text = `${JSON.stringify(settings, null, 2)}\n`;
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "settings.json"), text);
	return text;
}

function settle(args: string[], env: Record<string, string | undefined> = NO_OPENAI_KEY) {
	return runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir, env });
}

function requestedModels(): string[] {
	return server.requests.map((request) => (request.body as { model: string }).model);
}

describe("pi#3547: the settings' default model whose provider has no key", () => {
	it("pi#3547: settle -p with the default on openai (no OPENAI_API_KEY) and a keyed local provider: local answers, a warning names the default and OPENAI_API_KEY, settings.json unchanged", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const settings = writeSettings({ defaultProvider: "openai", defaultModel: "gpt-4o-mini" });

		const run = await settle(["--no-session", "-p", "hi"]);

		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(requestedModels()).toEqual(["coder"]);
		expect(run.stderr).toContain(
			"Warning: The settings' default model openai/gpt-4o-mini has no API key here (set OPENAI_API_KEY, or put its key in auth.json). Using local/coder",
		);
		expect(readFileSync(join(cli.agentDir, "settings.json"), "utf8")).toBe(settings);
	});

	it("pi#3547: settle -p with the default on openai (no key) and no other model: the key error names OPENAI_API_KEY, nothing sent", async () => {
		writeSettings({ defaultProvider: "openai", defaultModel: "gpt-4o-mini" });

		const run = await settle(["--no-session", "-p", "hi"]);

		expect(run.code).not.toBe(0);
		expect(run.stderr).toContain("No API key found for openai");
		expect(run.stderr).toContain("OPENAI_API_KEY");
		expect(run.stderr).not.toContain("has no API key here");
		expect(server.requests).toHaveLength(0);
	});
});

describe("pi-frontier#19: defaultProvider naming an extension's provider", () => {
	it("pi-frontier#19: settle -p -e <provider extension> with settings.json defaultProvider ext / defaultModel m1 and a models.json provider too: m1 answers, no warning", async () => {
		// A models.json provider with a key, for a silent fallback to land on.
		writeLocalProvider(cli.agentDir, "http://127.0.0.1:9/v1");
		writeSettings({ defaultProvider: "ext", defaultModel: "m1" });
		const extension = writeExtProviderExtension(cli.dir, `${server.url}/v1`);

		const run = await settle(["--no-session", "-e", extension, "-p", "hi"]);

		expect(run).toMatchObject({ code: 0, stdout: "answered\n", stderr: "" });
		expect(requestedModels()).toEqual(["m1"]);
	});
});

describe("gsd-2#29: a settings default model gone from the catalogue", () => {
	it("gsd-2#29: settle -p with defaultModel naming a model local does not have: a warning names it and the model used; settings.json keeps the user's choice", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const settings = writeSettings({ defaultProvider: "local", defaultModel: "retired-model" });

		const run = await settle(["--no-session", "-p", "hi"]);

		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(run.stderr).toContain(
			"The settings' default model local/retired-model is not a model of local, so this session uses local/coder.",
		);
		expect(readFileSync(join(cli.agentDir, "settings.json"), "utf8")).toBe(settings);
	});
});

describe("pi#7966: --thinking over the saved defaultThinkingLevel", () => {
	it("pi#7966: settle -p --thinking off with defaultThinkingLevel high: no reasoning asked; settings.json untouched; the next run without the flag asks high", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", reasoning: true }] });
		const settings = writeSettings({ defaultThinkingLevel: "high" });

		const off = await settle(["--no-session", "--model", "local/coder", "--thinking", "off", "-p", "hi"]);
		expect(off).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(readFileSync(join(cli.agentDir, "settings.json"), "utf8")).toBe(settings);

		const saved = await settle(["--no-session", "--model", "local/coder", "-p", "hi"]);
		expect(saved).toMatchObject({ code: 0, stdout: "answered\n" });

		const efforts = server.requests.map((request) => (request.body as { reasoning_effort?: string }).reasoning_effort);
		expect(efforts).toEqual([undefined, "high"]);
	});
});
