/**
 * codewhale#2665, claude-code#458: a provider answered 401 "invalid API key" and the agent printed
 * only the provider's text, so a user with keys in several places (an old variable in the shell
 * profile, auth.json, models.json) could not tell which key had been sent, nor which one to
 * replace. pi 0.73.1 prints the provider's text alone too. What the user should see: the
 * provider's text, then which provider refused which key (`--api-key`, auth.json, the named
 * environment variable, models.json's `apiKey`), what comes before it, and what to change; one
 * request (a refused key is not retried).
 *
 * continue#11449, opencode#45755: OpenAI's 403 `unsupported_country_region_territory` ("Country,
 * region, or territory not supported") refuses where the request comes from, not the key. Settle
 * added its key note ("replace OPENAI_API_KEY"), sending the user after a good key. What the user
 * should see: the provider's text, then that the region is refused, the key not the cause, and where
 * the requests could come from instead; no key note.
 *
 * Real `settle -p` and `settle --rpc` child processes against a local server answering through
 * pi-ai's OpenAI and Anthropic clients; the region refusal in-process through the SDK.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentSession, SessionManager } from "../../src/index.js";
import { RpcClient, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError } from "../llm/wire/anthropic.js";
import { openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-refused-key-");
const server = useWireServer();

const INCORRECT =
	"Incorrect API key provided: sk-old***. You can find your API key at https://platform.openai.com/account/api-keys.";
const refused = () => openAiError(401, INCORRECT, "invalid_request_error", "invalid_api_key");

/** The built-in `openai` provider re-pointed at the local server (models.json `baseUrl` override). */
function openAiAtLocalServer() {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({ providers: { openai: { baseUrl: `${server.url}/v1` } } }),
	);
}

function askOpenAi(env: Record<string, string | undefined>, extraArgs: string[] = []) {
	server.reply(refused(), refused());
	return runSettleAsync(["--model", "openai/gpt-4o", ...extraArgs, "-p", "hello"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: { OPENAI_API_KEY: undefined, ...env },
	});
}

describe("codewhale#2665, claude-code#458: a refused key names where it came from", () => {
	it("codewhale#2665: a 401 for a key from OPENAI_API_KEY names the variable and says to replace or unset it; one request", async () => {
		openAiAtLocalServer();
		const run = await askOpenAi({ OPENAI_API_KEY: "sk-old" });

		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-old");
		expect(run.stderr).toBe(
			`401 ${INCORRECT}\n\nopenai answered 401 to the key in the environment variable OPENAI_API_KEY (auth.json has none for openai): replace OPENAI_API_KEY, or unset it to use another key.\n`,
		);
		expect(run.code).not.toBe(0);
	});

	it("claude-code#458: with a key in auth.json and another in OPENAI_API_KEY, the refused one is auth.json's, and the message says so", async () => {
		openAiAtLocalServer();
		writeFileSync(
			join(cli.agentDir, "auth.json"),
			JSON.stringify({ openai: { type: "api_key", key: "sk-stored-old" } }),
		);
		const run = await askOpenAi({ OPENAI_API_KEY: "sk-env-new" });

		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-stored-old");
		expect(run.stderr).toContain(
			`\n\nopenai answered 401 to the key stored for openai in auth.json, which comes before OPENAI_API_KEY and models.json: replace or remove its "openai" entry in auth.json.\n`,
		);
	});

	it("codewhale#2665: a refused --api-key is named as such, even with auth.json and OPENAI_API_KEY set", async () => {
		openAiAtLocalServer();
		writeFileSync(join(cli.agentDir, "auth.json"), JSON.stringify({ openai: { type: "api_key", key: "sk-stored" } }));
		const run = await askOpenAi({ OPENAI_API_KEY: "sk-env" }, ["--api-key", "sk-given"]);

		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-given");
		expect(run.stderr).toContain(
			"\n\nopenai answered 401 to the key given with --api-key (apiKey in code), which comes before auth.json and the environment: give a valid key.\n",
		);
	});

	it("codewhale#2665: a 403 for a models.json provider's literal apiKey names models.json's apiKey", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		server.reply(openAiError(403, "Project does not have access to this key", "invalid_request_error"));
		const run = await runSettleAsync(["--model", "local/coder", "-p", "hello"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.headers.authorization).toBe("Bearer local-key");
		expect(run.stderr).toBe(
			'403 Project does not have access to this key\n\nlocal answered 403 to the "apiKey" of local in models.json (or an extension\'s registerProvider); auth.json and the environment have none: replace that apiKey.\n',
		);
	});

	it("claude-code#458: Anthropic's 401 invalid x-api-key for a key from ANTHROPIC_API_KEY names that variable; one request", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({ providers: { anthropic: { baseUrl: server.url } } }),
		);
		server.reply(anthropicError(401, "authentication_error", "invalid x-api-key"));
		const run = await runSettleAsync(["--model", "anthropic/claude-sonnet-4-5", "-p", "hello"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { ANTHROPIC_API_KEY: "sk-ant-old", ANTHROPIC_OAUTH_TOKEN: undefined },
		});

		expect(server.requests).toHaveLength(1);
		expect(server.requests[0]?.headers["x-api-key"]).toBe("sk-ant-old");
		expect(run.stderr).toContain(
			"\n\nanthropic answered 401 to the key in the environment variable ANTHROPIC_API_KEY (auth.json has none for anthropic): replace ANTHROPIC_API_KEY, or unset it to use another key.\n",
		);
	});

	it("codewhale#2665: in --rpc, the assistant message_end's errorMessage carries the same note (OPENAI_API_KEY)", async () => {
		openAiAtLocalServer();
		server.reply(refused());
		const client = new RpcClient(["--model", "openai/gpt-4o"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENAI_API_KEY: "sk-old" },
		});
		const ended = client.next(
			(line) => line.type === "message_end" && (line.message as { role?: string }).role === "assistant",
		);
		await client.promptAndSettle("hello");
		const message = (await ended).message as { stopReason?: string; errorMessage?: string };
		await client.end();

		expect(server.requests).toHaveLength(1);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe(
			`401 ${INCORRECT}\n\nopenai answered 401 to the key in the environment variable OPENAI_API_KEY (auth.json has none for openai): replace OPENAI_API_KEY, or unset it to use another key.`,
		);
	});

	it("codewhale#2665 (control): a refusal that is not about the key (400) gets no key note", async () => {
		openAiAtLocalServer();
		server.reply(openAiError(400, "Unsupported parameter: 'foo'", "invalid_request_error"));
		const run = await runSettleAsync(["--model", "openai/gpt-4o", "-p", "hello"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENAI_API_KEY: "sk-fine" },
		});

		expect(run.stderr).toBe("400 Unsupported parameter: 'foo'\n");
	});
});

describe("continue#11449, opencode#45755: a 403 refusing the region is not blamed on the key", () => {
	it("continue#11449: OpenAI's 403 unsupported_country_region_territory for a key from OPENAI_API_KEY says the region is refused, the key not the cause; no key note, one request", async () => {
		openAiAtLocalServer();
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: "openai", defaultModel: "gpt-4o" }),
		);
		server.reply(
			openAiError(
				403,
				"Country, region, or territory not supported",
				"request_forbidden",
				"unsupported_country_region_territory",
			),
		);
		const saved = process.env.OPENAI_API_KEY;
		process.env.OPENAI_API_KEY = "sk-fine";
		try {
			const { session } = await createAgentSession({
				cwd: cli.project,
				agentDir: cli.agentDir,
				sessionManager: SessionManager.inMemory(),
			});
			try {
				await session.prompt("hello");
				expect(server.requests).toHaveLength(1);
				expect(session.messages.at(-1)).toMatchObject({
					role: "assistant",
					stopReason: "error",
					errorMessage:
						"403 Country, region, or territory not supported\n\nopenai refuses requests from the country or region this machine's network is in; the key is not the cause, so replacing it will not help. Send the requests through a network in a supported region (an HTTPS_PROXY there) or use another provider.",
				});
			} finally {
				session.dispose();
			}
		} finally {
			if (saved === undefined) delete process.env.OPENAI_API_KEY;
			else process.env.OPENAI_API_KEY = saved;
		}
	});
});
