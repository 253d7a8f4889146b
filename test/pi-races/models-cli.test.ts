/**
 * Reports about `models.json` models, replayed against the real `settle` command (child processes)
 * on a local OpenAI-compatible endpoint (test/llm/wire/server.ts), with the models in the agent
 * folder's `models.json`.
 *
 * pi#6999: `/model` stopped reading `models.json` again (pi 0.80.8's ModelRuntime), so a provider or
 * model added while pi ran needed a restart; pi's docs say "the file reloads each time you open
 * /model", and pi 0.73.1's `/model` refreshes the registry first. What the user should see: the
 * added model listed by `/model`, switched to by `/model <provider/id>`, and answering.
 *
 * pi#1209: `xhigh` could not be turned on for a model whose id has a provider prefix
 * (`openai/gpt-5.2` behind a proxy): pi decided it from hard-coded ids. What the user should see: a
 * `models.json` model that names `xhigh` in its `thinkingLevelMap` runs at `xhigh`, whatever its id.
 *
 * pi#9245: `auth.json` holds a `!command` key (`!op read 'op://…'`, a password manager) and the
 * user gives another key for one run. Settle runs no command, but it sent the command's text as the
 * key and, `auth.json` winning, never the key in the environment. What the user should see: the
 * command neither run nor sent, a warning naming the entry, the environment's key used.
 *
 * gentle-pi#35: a new session started on another provider's model although `settings.json` named
 * `defaultProvider` / `defaultModel`. What the user should see: the settings' model answering.
 *
 * paperclip#1619, paperclip#12056: `pi --list-models` printed its table on stderr (exit 0, stdout
 * empty), so tools reading stdout found no models; reading stderr instead, they took an
 * extension's diagnostics for model rows. What the user should see: the models on stdout, one a
 * line, and an extension's own output kept out of them.
 *
 * pi#203: `--list-models [search]` is documented with words apart (`pi --list-models "opus 4-5"`,
 * every word must match); Settle took the search as one piece of text and said "No model matches".
 * What the user should see: the models holding every word, and only those.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-models-cli-");
const server = useWireServer();

describe("pi#6999: models.json edited while running is not read again by /model", () => {
	it("pi#6999: settle -i: a model added to models.json after start is listed by /model, switched to, and answers", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const chat = new Repl(["--no-session", "--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const before = await chat.say("/model");
		expect(before).toContain("local/coder");
		expect(before).not.toContain("local/fresh");

		// The user adds a model (and a provider) to the file while the chat runs.
		const baseUrl = `${server.url}/v1`;
		const local = {
			baseUrl,
			api: "openai-completions",
			apiKey: "local-key",
			models: [{ id: "coder" }, { id: "fresh" }],
		};
		const other = { baseUrl, api: "openai-completions", apiKey: "other-key", models: [{ id: "added" }] };
		writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { local, other } }));

		const after = await chat.say("/model");
		expect(after).toContain("local/fresh");
		expect(after).toContain("other/added");
		expect(await chat.say("/model other/added")).toContain("Model: other/added");
		server.reply(chatReply([{ type: "text", text: "answered by the added model" }]));
		expect(await chat.say("which model?")).toContain("answered by the added model");
		expect(server.requests.at(-1)?.body.model).toBe("added");
		expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer other-key");
		expect(await chat.end()).toBe(0);
	});
});

describe("pi#1209: xhigh for a model whose id has a provider prefix", () => {
	it("pi#1209: settle -p --thinking xhigh on models.json's openai/gpt-5.2 with xhigh in its thinkingLevelMap sends reasoning_effort xhigh; without it, high", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [
				{ id: "openai/gpt-5.2", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } },
				{ id: "openai/gpt-5.1", reasoning: true },
			],
		});
		server.reply(chatReply([{ type: "text", text: "deep" }]), chatReply([{ type: "text", text: "less deep" }]));
		const at = { cwd: cli.project, agentDir: cli.agentDir };
		const wide = await runSettleAsync(
			["--no-session", "--model", "local/openai/gpt-5.2", "--thinking", "xhigh", "-p", "hi"],
			at,
		);
		expect(wide.stderr).toBe("");
		expect(wide.stdout).toContain("deep");
		expect(server.requests[0]?.body).toMatchObject({ model: "openai/gpt-5.2", reasoning_effort: "xhigh" });

		const narrow = await runSettleAsync(
			["--no-session", "--model", "local/openai/gpt-5.1", "--thinking", "xhigh", "-p", "hi"],
			at,
		);
		expect(narrow.stdout).toContain("less deep");
		expect(server.requests[1]?.body).toMatchObject({ model: "openai/gpt-5.1", reasoning_effort: "high" });
	});
});

describe("pi#9245: a `!command` key in auth.json and the key given for this run", () => {
	it("pi#9245: settle -p: auth.json's `!op read …` key is neither run nor sent; the key in the environment is sent, and a warning names the entry", async () => {
		// The report's auth.json: the key is a password-manager command (pi runs it, Settle runs none).
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { apiKey: "LOCAL_WORK_KEY" });
		const command = "!op read 'op://Family/Local/pi Coding Agent'";
		writeFileSync(join(cli.agentDir, "auth.json"), JSON.stringify({ local: { type: "api_key", key: command } }));
		server.reply(chatReply([{ type: "text", text: "answered with the work key" }]));
		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { LOCAL_WORK_KEY: "work-key" },
		});
		expect(run.stdout).toContain("answered with the work key");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer work-key");
		expect(JSON.stringify(server.requests[0]?.headers)).not.toContain("op://");
		expect(run.stderr).toContain('the credential of "local" is not usable');
		expect(run.stderr).toContain("`!command`");
		expect(run.stderr).not.toContain("op://");
	});
});

describe("gentle-pi#35: a new session ignores defaultProvider / defaultModel and starts on another provider's model", () => {
	it("gentle-pi#35: settle -p without --model: settings.json's default model of the second provider answers, not the first provider's", async () => {
		const baseUrl = `${server.url}/v1`;
		const local = { baseUrl, api: "openai-completions", apiKey: "local-key", models: [{ id: "coder" }] };
		const other = { baseUrl, api: "openai-completions", apiKey: "other-key", models: [{ id: "chosen" }] };
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { local, other } }));
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: "other", defaultModel: "chosen", defaultThinkingLevel: "medium" }),
		);
		server.reply(chatReply([{ type: "text", text: "answered by the default model" }]));
		const run = await runSettleAsync(["--no-session", "-p", "hi"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.stdout).toContain("answered by the default model");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.body.model).toBe("chosen");
		expect(server.requests[0]?.headers.authorization).toBe("Bearer other-key");
	});
});

describe("paperclip#1619, paperclip#12056: --list-models on stderr, mixed with an extension's output", () => {
	it("settle --list-models with an extension that writes to stderr as it loads: stdout holds the models alone, exit 0", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder" }, { id: "fresh" }] });
		const extensions = join(cli.agentDir, "extensions");
		mkdirSync(extensions, { recursive: true });
		writeFileSync(
			join(extensions, "noisy.ts"),
			'process.stderr.write("[noisy] loaded (39 models across 4 providers)\\n");\nexport default function () {}\n',
		);
		const run = await runSettleAsync(["--list-models"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run.code).toBe(0);
		const rows = run.stdout.trimEnd().split("\n");
		expect(rows.map((row) => row.split(/\s+/)[0])).toEqual(["local/coder", "local/fresh"]);
		expect(run.stdout).not.toContain("[noisy]");
		expect(run.stderr).toContain("[noisy] loaded");
		expect(run.stderr).not.toContain("local/coder");
		expect(server.requests).toHaveLength(0);
	});
});

describe("pi#203: --list-models with a search of several words", () => {
	it('pi#203: settle --list-models "opus 4-5" lists the one model holding both words, exit 0', async () => {
		const ids = ["claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4-5"];
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: ids.map((id) => ({ id })) });
		const run = await runSettleAsync(["--list-models", "opus 4-5"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(run).toMatchObject({ code: 0, stdout: "local/claude-opus-4-5  128000 tokens\n" });
	});
});
