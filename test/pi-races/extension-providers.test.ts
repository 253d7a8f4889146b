/**
 * Reports about providers extensions register (`pi.registerProvider`), replayed against the real
 * `settle` command (child processes) with an extension file and a local OpenAI-compatible endpoint
 * (test/llm/wire/server.ts): what the user should see is read off the request the model got and
 * the process's output.
 *
 * pi#5349: `pi.registerProvider("my-provider", { compat: { supportsDeveloperRole: false }, models })`
 * — the provider-level `compat` was silently dropped (only each model's own `compat` was read), so
 * an endpoint without the `developer` role answered 400 to every request. What the user should
 * see: the provider's compat shaping its models' requests (a `system` message, `max_tokens`), a
 * model's own compat winning field by field, as models.json does (gsd-2#5137).
 *
 * pi#2431: an extension calling `pi.registerProvider("openai-codex", { streamSimple })` without
 * `api` got its error reported, then pi crashed later in start-up when the models were refreshed.
 * What the user should see (pi 0.73.1's answer): one start-up error naming the extension, the
 * provider and what is missing; no stack trace, nothing sent, exit 1.
 *
 * oh-my-pi#6694: the scoped models (`enabledModels` in settings.json) were resolved before the
 * extensions registered their providers, so an entry naming an extension's model was dropped with a
 * log line and the session ran on another provider's model. What the user should see: the
 * extension's model in scope, the session (no `--model`) on it, its endpoint getting the request.
 *
 * gsd-2#171 (extension UI over RPC): a tool asking the host with `ctx.ui.select()` without passing
 * its abort signal; the host sent `abort` while the dialog was shown, and the tool — so the turn —
 * hung until the host answered, which it never did. What the host should see: the `abort` answered,
 * the run ended (`agent_end`) with the dialog still unanswered, and the next prompt served; the late
 * answer to the stale dialog changing nothing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { writeExtension, writeExtProviderExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-extension-providers-");
const server = useWireServer();

/** The role of the first message of a recorded chat-completions request. */
function firstRole(index: number): string {
	const messages = server.requests[index]?.body.messages as { role: string }[];
	return messages[0]!.role;
}

describe("pi#5349: a provider-level compat in pi.registerProvider()", () => {
	it("pi#5349: settle -p: the registered provider's compat shapes its models' requests; a model's own compat overrides one field and keeps the others", async () => {
		const extension = writeExtension(
			cli.dir,
			"my-provider.mjs",
			`pi.registerProvider("my-provider", {
	name: "My Provider",
	baseUrl: ${JSON.stringify(`${server.url}/v1`)},
	apiKey: "my-key",
	api: "openai-completions",
	compat: { supportsDeveloperRole: false, maxTokensField: "max_tokens" },
	models: [
		{ id: "plain", name: "Plain", reasoning: true, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
		{ id: "modern", name: "Modern", reasoning: true, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, compat: { supportsDeveloperRole: true } },
	],
});`,
		);
		server.reply(chatReply([{ type: "text", text: "from plain" }]), chatReply([{ type: "text", text: "from modern" }]));
		const at = { cwd: cli.project, agentDir: cli.agentDir };

		const plain = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "my-provider/plain", "-p", "hi"],
			at,
		);
		expect(plain.stderr).toBe("");
		expect(plain.stdout).toContain("from plain");
		expect(firstRole(0)).toBe("system");
		expect(server.requests[0]?.body.max_tokens).toBe(4096);
		expect(server.requests[0]?.body).not.toHaveProperty("max_completion_tokens");

		const modern = await runSettleAsync(
			["--no-session", "-e", extension, "--model", "my-provider/modern", "-p", "hi"],
			at,
		);
		expect(modern.stdout).toContain("from modern");
		// The model's own field wins; the provider's other field still applies.
		expect(firstRole(1)).toBe("developer");
		expect(server.requests[1]?.body.max_tokens).toBe(4096);
		expect(server.requests[1]?.body).not.toHaveProperty("max_completion_tokens");
	});
});

describe("pi#2431: an invalid pi.registerProvider() at start-up", () => {
	it("pi#2431: settle -p with an extension registering streamSimple without api: one error line naming the extension, the provider and the missing field, no stack trace, nothing sent, exit 1", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const extension = writeExtension(
			cli.dir,
			"broken-provider.mjs",
			`pi.registerProvider("openai-codex", { streamSimple: () => { throw new Error("never called"); } });`,
		);

		const run = await runSettleAsync(["--no-session", "-e", extension, "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		// pi 0.73.1's start-up diagnostic, word for word, and its exit status.
		expect(run.stderr.trim()).toBe(
			`Error: Extension "${extension}" error: Provider openai-codex: "api" is required when registering streamSimple.`,
		);
		expect(run.stdout).toBe("");
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(0);
	});
});

describe("oh-my-pi#6694: enabledModels naming an extension's model", () => {
	it("oh-my-pi#6694: settle --mode json with settings.json enabledModels [ext/m1] and no --model: the session runs on the extension's model, its endpoint gets the request", async () => {
		// A models.json provider too, so there is another model to fall back on silently.
		writeLocalProvider(cli.agentDir, "http://127.0.0.1:9/v1");
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ enabledModels: ["ext/m1"] }));
		const extension = writeExtProviderExtension(cli.dir, `${server.url}/v1`);
		server.reply(chatReply([{ type: "text", text: "from ext" }]));

		const run = await runSettleAsync(["--no-session", "-e", extension, "--mode", "json", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).not.toContain("ext/m1");
		expect(run.stdout).toContain("from ext");
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.body.model).toBe("m1");
		expect(run.code).toBe(0);
	});
});

describe("gsd-2#171: an RPC dialog asked without the tool's signal, then abort", () => {
	it("gsd-2#171: settle --rpc: a tool awaiting ctx.ui.select() (no signal) when the host sends abort: abort answered, agent_end, the next prompt served; the late answer changes nothing", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const extension = writeExtension(
			cli.dir,
			"ask-user.mjs",
			`pi.registerTool({
	name: "ask_user",
	label: "Ask user",
	description: "asks the user to pick",
	parameters: { type: "object", properties: {} },
	async execute(_id, _params, _signal, _onUpdate, ctx) {
		const picked = await ctx.ui.select("Which approach?", ["A", "B"]);
		return { content: [{ type: "text", text: "picked " + picked }], details: {} };
	},
});`,
		);
		server.reply(
			chatReply([{ type: "tool_call", id: "call-1", name: "ask_user", arguments: {} }]),
			chatReply([{ type: "text", text: "next answer" }]),
		);
		const client = new RpcClient(["--no-session", "-e", extension, "--model", "local/coder"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const type = (name: string) => (line: Record<string, unknown>) => line.type === name;

		const select = client.next((line) => line.type === "extension_ui_request" && line.method === "select");
		expect(await client.request({ id: "p1", type: "prompt", message: "ask me" })).toMatchObject({ success: true });
		const dialog = await select;
		expect(dialog).toMatchObject({ title: "Which approach?", options: ["A", "B"] });

		const ended = client.next(type("agent_end"));
		expect(await client.request({ id: "a1", type: "abort" })).toMatchObject({ success: true });
		await ended;

		const secondEnd = client.next(type("agent_end"));
		expect(await client.request({ id: "p2", type: "prompt", message: "go on" })).toMatchObject({ success: true });
		await secondEnd;
		expect(server.requests).toHaveLength(2);
		expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("go on");

		// The host answers the stale dialog now: no reply line, no error, no new request.
		client.send({ type: "extension_ui_response", id: dialog.id, value: "A" });
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		expect(server.requests).toHaveLength(2);
		expect(client.lines.filter((line) => line.type === "response" && line.success === false)).toEqual([]);
		expect(await client.end()).toBe(0);
	});
});

describe("an extension's own streamSimple that fetches: the refusal is completed as pi-ai's clients' are", () => {
	it.each([
		[
			"its error event",
			'yield message.stopReason === "error" ? { type: "error", reason: "error", error: message } : { type: "done", reason: "stop", message };',
		],
		["no events, only its result", "void message;"],
	])(
		"codewhale#2665: a 401 from the endpoint an extension's streamSimple calls itself names the registerProvider apiKey it sent (the stream gives %s)",
		async (_gives, emit) => {
			const extension = writeExtension(
				cli.dir,
				"fetching-provider.mjs",
				`const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
pi.registerProvider("my-proxy", {
	api: "my-proxy-api",
	baseUrl: ${JSON.stringify(`${server.url}/v1`)},
	apiKey: "ext-old-key",
	models: [{ id: "m", name: "M", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
	streamSimple: (model, context, options) => {
		const answer = (async () => {
			const response = await fetch(model.baseUrl + "/chat/completions", {
				method: "POST",
				headers: { authorization: "Bearer " + options.apiKey, "content-type": "application/json" },
				body: JSON.stringify({ model: model.id, messages: [] }),
			});
			const text = await response.text();
			const done = response.ok;
			return { role: "assistant", content: done ? [{ type: "text", text }] : [], api: model.api, provider: model.provider, model: model.id, usage, stopReason: done ? "stop" : "error", ...(done ? {} : { errorMessage: response.status + " " + text }), timestamp: Date.now() };
		})();
		return {
			async *[Symbol.asyncIterator]() {
				const message = await answer;
				${emit}
			},
			result: () => answer,
		};
	},
});`,
			);
			server.reply(openAiError(401, "bad key", "invalid_request_error", "invalid_api_key"));

			const run = await runSettleAsync(["--no-session", "-e", extension, "--model", "my-proxy/m", "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});

			expect(server.requests).toHaveLength(1);
			expect(server.requests[0]?.headers.authorization).toBe("Bearer ext-old-key");
			expect(run.stderr).toContain("bad key");
			expect(run.stderr).toContain('my-proxy answered 401 to the "apiKey" of my-proxy in models.json');
			expect(run.code).not.toBe(0);
		},
	);
});
