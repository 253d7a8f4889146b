/**
 * Reports about one model id that several providers serve (a team gateway and a second endpoint
 * both offering `grok-4.6`), replayed against the real `settle` command (child processes) with two
 * models.json providers on a local OpenAI-compatible server: which provider answered is the
 * request's path (`/team/v1/…` or `/edge/v1/…`).
 *
 * pi#1419, botmux#1003: with `defaultProvider: "edge"` in settings.json, a bare id both providers
 * serve went to the first provider listed when named in `enabledModels` / `--models`, and
 * `pi --model grok-4.6` failed "ambiguous across providers" (exit 1): the setting that says which
 * provider the user means was read only when no model was named. What the user should see: the
 * default provider's model, by `--model` and in a scope; `provider/id` still wins, and without a
 * default provider among them the bare id is still refused (never a guess).
 *
 * pi#5823: `--model edge/gemma` with `gemma` on both providers and `team` the default provider ran
 * on `team`. What the user should see: the provider named.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-model-shared-ids-");
const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

/** `team` and `edge`, each with a key, serving `ids` at their own path on the local server. */
function writeProviders(ids: string[]): void {
	const provider = (path: string, key: string) => ({
		baseUrl: `${server.url}/${path}/v1`,
		api: "openai-completions",
		apiKey: key,
		models: ids.map((id) => ({ id })),
	});
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({ providers: { team: provider("team", "team-key"), edge: provider("edge", "edge-key") } }),
	);
}

function writeSettings(settings: Record<string, unknown>): void {
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify(settings));
}

function settle(args: string[]) {
	return runSettleAsync(["--no-session", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

/** The provider (its path) each request went to, in order. */
const askedProviders = () => server.requests.map((request) => request.path.split("/")[1]);

describe("pi#1419, botmux#1003: a bare id several providers serve ignores the settings' default provider", () => {
	it("settle -p --model grok-4.6 with defaultProvider edge: edge answers (pi: ambiguous, exit 1)", async () => {
		writeProviders(["grok-4.6", "other"]);
		writeSettings({ defaultProvider: "edge", defaultModel: "other" });
		const run = await settle(["--model", "grok-4.6", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(askedProviders()).toEqual(["edge"]);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer edge-key");
	});

	it("pi#1419: enabledModels [grok-4.6] (and --models grok-4.6:high) with defaultProvider edge: the session runs on edge, not the first provider listed", async () => {
		writeProviders(["grok-4.6", "other"]);
		writeSettings({ defaultProvider: "edge", defaultModel: "other", enabledModels: ["grok-4.6"] });
		const fromSetting = await settle(["-p", "hi"]);
		expect(fromSetting).toMatchObject({ code: 0, stdout: "answered\n" });
		const fromFlag = await settle(["--models", "grok-4.6:high", "-p", "hi"]);
		expect(fromFlag).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(askedProviders()).toEqual(["edge", "edge"]);
	});

	it("settle -i, /model grok-4.6 with defaultProvider edge: switches to edge/grok-4.6 and edge answers, as --model does; without a default among them it is still refused", async () => {
		writeProviders(["grok-4.6", "other"]);
		writeSettings({ defaultProvider: "edge", defaultModel: "other" });
		const chat = new Repl(["--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/model grok-4.6")).toContain("Model: edge/grok-4.6, thinking");
		await chat.say("hi", "answered");
		expect(askedProviders()).toEqual(["edge"]);
		expect(await chat.end()).toBe(0);

		writeSettings({ defaultProvider: "anthropic", defaultModel: "claude-sonnet-4-5" });
		const other = new Repl(["--no-session", "--model", "team/other"], { cwd: cli.project, agentDir: cli.agentDir });
		await other.idle(0);
		expect(await other.say("/model grok-4.6")).toContain(
			"Model grok-4.6 not found (several providers serve it: give provider/id).",
		);
		expect(await other.end()).toBe(0);
	});

	it("still refused when the default provider serves no such id, and team/grok-4.6 is team's whatever the default", async () => {
		writeProviders(["grok-4.6"]);
		writeSettings({ defaultProvider: "anthropic", defaultModel: "claude-sonnet-4-5" });
		const bare = await settle(["--model", "grok-4.6", "-p", "hi"]);
		expect(bare.code).toBe(2);
		expect(bare.stderr).toContain(
			'Model "grok-4.6" is served by several providers (team/grok-4.6, edge/grok-4.6); name one as provider/id.',
		);
		writeSettings({ defaultProvider: "edge", defaultModel: "grok-4.6" });
		const named = await settle(["--model", "team/grok-4.6", "-p", "hi"]);
		expect(named).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(askedProviders()).toEqual(["team"]);
	});
});

describe("pi#5823: --model provider/id ignores the provider when the id is on several providers", () => {
	it("settle -p --model edge/gemma with team the default provider: edge answers", async () => {
		writeProviders(["gemma"]);
		writeSettings({ defaultProvider: "team", defaultModel: "gemma" });
		const run = await settle(["--model", "edge/gemma", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(askedProviders()).toEqual(["edge"]);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer edge-key");
	});
});
