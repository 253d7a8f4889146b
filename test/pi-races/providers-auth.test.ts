/**
 * Reports about provider credentials (`auth.json`, `models.json` keys), replayed against Settle
 * with real files, real child processes and the real `settle` command.
 *
 * openclaw#88028: a credential write that could not complete (a full disk, a storage quota, a
 * file-size limit) left `auth.json` truncated; the next start could not parse it and every provider
 * was locked out. In Settle the write went through a temp file and a rename, yet a short `write()`
 * (the kernel wrote part of the text, no error) was not noticed: the cut temp file was renamed
 * over `auth.json`. What the user should see: the write fails with a typed `IO` error saying the
 * file keeps its previous content, and `auth.json` still holds every key.
 *
 * pi#6880: concurrent starts while another process held the `auth.json` lock initialized with an
 * empty credential snapshot: `--list-models` showed only the unauthenticated models and "No API
 * key found", exit 0. What the user should see: every start reads the keys (Settle reads without
 * the lock; writers replace the file by rename, so a reader never sees half a file).
 *
 * atomic#2681 (a pi port's review): a credential update kept the previous `auth.json`'s mode, so a
 * file an editor or a copy had made 0644 stayed readable by every local user after each write.
 * What the user should see: after Settle stores a key, `auth.json` (or, when it is a symlink, the
 * file it points to) is 0600.
 *
 * pi#2847: `createAgentSession` with a `models.json` provider whose `apiKey` is in the file failed
 * with "No API key for provider": the key never reached the request. What the user should see: the
 * request at the provider's endpoint with `Authorization: Bearer <the file's key>`, and the answer.
 *
 * opencode#34388: a key written as a reference to an environment variable that is not set (there
 * `{env:VAR}`, here `$VAR`) became a key anyway (there empty, here the literal `$VAR`): it blocked
 * the next key source and the provider answered 401, blaming the key. What the user should see: a
 * `$VAR` whose variable is unset is no key; auth.json's falls through to the next source, and
 * models.json's leaves the provider without one ("No API key", nothing sent) with a warning naming
 * the variable to set.
 *
 * Floway#142, anthropic-sdk-python#1640: a key variable set to blanks (a `.env` template's
 * `OPENAI_API_KEY= `, a CI default) was taken as the key: it shadowed a valid key further down the
 * order and went out as an empty `Authorization: Bearer` (401). What the user should see: a blank
 * variable counts as unset, so the next source's key is sent.
 */
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { AuthStorage, createAgentSession, SessionManager } from "../../src/index.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { ROOT, runSettleAsync, useCliProject, writeModelsJson } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-providers-auth-");
/** Children import the bundled package (test/cli/cli-bundle.ts) under plain `node`, not src through tsx (~0.5 s of CPU less); `SETTLE_TEST_CLI=sources` keeps the sources. */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";

describe("openclaw#88028: an interrupted auth.json write must not truncate the credential store", () => {
	it("openclaw#88028: AuthStorage.set under a file-size limit (a full disk) fails with IO and auth.json keeps every key", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		const authPath = join(cli.agentDir, "auth.json");
		const before = `${JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-kept" } }, null, 2)}\n`;
		writeFileSync(authPath, before, { mode: 0o600 });
		const script = join(cli.dir, "set-key.mjs");
		writeFileSync(
			script,
			`import { AuthStorage } from ${JSON.stringify(pathToFileURL(FROM_SOURCES ? join(ROOT, "src/index.ts") : join(dirname(cliBundle()), "index.js")).href)};
const auth = AuthStorage.create(process.argv[2]);
try {
	auth.set("openai", "k".repeat(1024 * 1024));
	console.log(JSON.stringify({ saved: true }));
} catch (error) {
	console.log(JSON.stringify({ code: error.code, message: error.message }));
}
`,
		);
		// `ulimit -f 256`: no file of this process may grow past 256 KiB; the 1 MiB key cannot be written.
		const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
		const run = spawnSync(
			"bash",
			[
				"-c",
				'ulimit -f 256 && exec "$0" "$@"',
				process.execPath,
				...(FROM_SOURCES ? ["--import", loader] : []),
				script,
				authPath,
			],
			{ cwd: cli.project, encoding: "utf8" },
		);
		expect(run.stderr).toBe("");
		expect(JSON.parse(run.stdout)).toEqual({
			code: "IO",
			message: expect.stringMatching(
				/^Cannot write .*auth\.json: EFBIG.*\. The file keeps its previous content; free some disk space \(or raise the file-size limit\) and try again\.$/,
			),
		});
		expect(readFileSync(authPath, "utf8")).toBe(before);
		expect(readdirSync(cli.agentDir).sort()).toEqual(["auth.json"]);
		const after = AuthStorage.create(authPath);
		expect(after.getError()).toBeUndefined();
		expect(after.getApiKey("anthropic")).toBe("sk-ant-kept");
	});
});

describe("atomic#2681: a credential update keeps a world-readable auth.json's mode", () => {
	it("atomic#2681: AuthStorage.set on a 0644 auth.json leaves it 0600, and a symlinked one's target 0600 (the link stays)", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		const plain = join(cli.agentDir, "auth.json");
		writeFileSync(plain, JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-1" } }));
		chmodSync(plain, 0o644);
		AuthStorage.create(plain).set("openai", "sk-openai-1");
		expect(statSync(plain).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(plain, "utf8"))).toEqual({
			anthropic: { type: "api_key", key: "sk-ant-1" },
			openai: { type: "api_key", key: "sk-openai-1" },
		});

		// A dotfiles manager's link: the target is what other users could read.
		const target = join(cli.dir, "dotfiles-auth.json");
		writeFileSync(target, "{}");
		chmodSync(target, 0o644);
		const linked = join(cli.dir, "linked-agent", "auth.json");
		mkdirSync(join(cli.dir, "linked-agent"));
		symlinkSync(target, linked);
		AuthStorage.create(linked).set("groq", "gsk-1");
		expect(lstatSync(linked).isSymbolicLink()).toBe(true);
		expect(statSync(target).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(target, "utf8"))).toEqual({ groq: { type: "api_key", key: "gsk-1" } });
	});
});

describe("pi#6880: starts while another process holds the auth.json lock", () => {
	it("pi#6880: four concurrent `settle --list-models groq` with auth.json locked all list the provider's models from its stored key", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "auth.json"), JSON.stringify({ groq: { type: "api_key", key: "gsk-stored" } }));
		// What proper-lockfile leaves while a writer holds the lock (a fresh `<file>.lock` folder).
		mkdirSync(join(cli.agentDir, "auth.json.lock"));
		const runs = await Promise.all(
			[0, 1, 2, 3].map(() =>
				runSettleAsync(["--list-models", "groq"], {
					cwd: cli.project,
					agentDir: cli.agentDir,
					env: { GROQ_API_KEY: undefined },
				}),
			),
		);
		for (const run of runs) {
			expect(run).toMatchObject({ code: 0, stderr: "" });
			expect(run.stdout).toMatch(/^groq\/llama-3\.3-70b-versatile +131072 tokens$/m);
			expect(run.stdout).not.toContain("No models available");
		}
	});
});

describe("pi#2847: createAgentSession with a models.json provider key", () => {
	const server = useWireServer(() => chatReply([{ type: "text", text: "answered with the file's key" }]));

	it("pi#2847: createAgentSession({ cwd, agentDir }) without an authStorage sends models.json's apiKey as the bearer token and answers", async () => {
		writeModelsJson(cli.agentDir, {
			custom: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "custom-key-from-models-json",
				models: [{ id: "custom-model" }],
			},
		});
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: "custom", defaultModel: "custom-model" }),
		);
		const { session } = await createAgentSession({
			cwd: cli.project,
			agentDir: cli.agentDir,
			sessionManager: SessionManager.inMemory(),
		});
		try {
			await session.prompt("hi");
			expect(session.messages.at(-1)).toMatchObject({
				role: "assistant",
				stopReason: "stop",
				content: [{ type: "text", text: "answered with the file's key" }],
			});
			expect(server.requests).toHaveLength(1);
			expect(server.requests[0]?.headers.authorization).toBe("Bearer custom-key-from-models-json");
			expect(server.requests[0]?.body.model).toBe("custom-model");
		} finally {
			session.dispose();
		}
	});
});

describe("opencode#34388, Floway#142: a key that names an unset variable, or a blank variable, is no key", () => {
	const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

	async function promptWith(provider: string, model: string, env: Record<string, string | undefined>) {
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: provider, defaultModel: model }),
		);
		const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
		const setEnv = (values: Record<string, string | undefined>) => {
			for (const [name, value] of Object.entries(values)) {
				if (value === undefined) delete process.env[name];
				else process.env[name] = value;
			}
		};
		setEnv(env);
		try {
			const { session, diagnostics } = await createAgentSession({
				cwd: cli.project,
				agentDir: cli.agentDir,
				sessionManager: SessionManager.inMemory(),
			});
			try {
				const failure = await session.prompt("hi").then(
					() => undefined,
					(error: unknown) => error,
				);
				return { failure, diagnostics: diagnostics.map((d) => d.message), last: session.messages.at(-1) };
			} finally {
				session.dispose();
			}
		} finally {
			setEnv(saved);
		}
	}

	it('opencode#34388: models.json\'s "apiKey": "$GATEWAY_KEY" with GATEWAY_KEY unset sends nothing: NO_AUTH, and a warning names the variable', async () => {
		writeModelsJson(cli.agentDir, {
			gateway: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "$GATEWAY_KEY",
				models: [{ id: "coder" }],
			},
		});
		const run = await promptWith("gateway", "coder", { GATEWAY_KEY: undefined });

		expect(server.requests).toHaveLength(0);
		expect(run.failure).toMatchObject({
			code: "NO_AUTH",
			message: expect.stringContaining("No API key found for gateway."),
		});
		expect(run.diagnostics).toContain(
			`${join(cli.agentDir, "models.json")}: provider "gateway": "apiKey" names the environment variable GATEWAY_KEY, which is not set, so no key is sent from it. Set GATEWAY_KEY, or put the key in auth.json ({"gateway": {"type": "api_key", "key": "…"}}).`,
		);
	});

	it('opencode#34388: a models.json header "$TEAM_HEADER" (provider or model) with TEAM_HEADER unset is left out of the request, not sent as its literal text, and a warning names the variable; a set one is sent', async () => {
		writeModelsJson(cli.agentDir, {
			gateway: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "file-key",
				headers: { "x-team": "$TEAM_HEADER", "x-region": "$TEAM_REGION" },
				models: [{ id: "coder", headers: { "x-trace": `\${TEAM_TRACE}` } }],
			},
		});
		const run = await promptWith("gateway", "coder", {
			TEAM_HEADER: undefined,
			TEAM_TRACE: undefined,
			TEAM_REGION: "eu",
		});

		expect(run.failure).toBeUndefined();
		const headers = server.requests[0]?.headers ?? {};
		expect([headers["x-team"], headers["x-trace"], headers["x-region"]]).toEqual([undefined, undefined, "eu"]);
		for (const [header, variable] of [
			["x-team", "TEAM_HEADER"],
			["x-trace", "TEAM_TRACE"],
		]) {
			expect(run.diagnostics).toContain(
				`${join(cli.agentDir, "models.json")}: provider "gateway": header "${header}" names the environment variable ${variable}, which is not set, so the header is not sent. Set ${variable}, or write the header's value in "headers".`,
			);
		}
		expect(run.diagnostics.join("\n")).not.toContain("TEAM_REGION");
	});

	it('opencode#34388: an auth.json key "$GATEWAY_KEY" with GATEWAY_KEY unset does not block models.json\'s apiKey, which is sent', async () => {
		writeModelsJson(cli.agentDir, {
			gateway: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "file-key",
				models: [{ id: "coder" }],
			},
		});
		writeFileSync(
			join(cli.agentDir, "auth.json"),
			JSON.stringify({ gateway: { type: "api_key", key: "$GATEWAY_KEY" } }),
		);
		const run = await promptWith("gateway", "coder", { GATEWAY_KEY: undefined });

		expect(run.failure).toBeUndefined();
		expect(server.requests.map((request) => request.headers.authorization)).toEqual(["Bearer file-key"]);
		expect(run.last).toMatchObject({ role: "assistant", content: [{ type: "text", text: "answered" }] });
		expect(AuthStorage.create(join(cli.agentDir, "auth.json")).getWarnings()).toEqual([
			`${join(cli.agentDir, "auth.json")}: the credential of "gateway" is not usable (it names the environment variable GATEWAY_KEY, which is not set, so the next source (the provider's environment variable, models.json's apiKey) is used instead). Write { "type": "api_key", "key": "<the key or the name of an environment variable>" }.`,
		]);
	});

	it("Floway#142: OPENAI_API_KEY set to blanks does not shadow models.json's apiKey for openai, which is sent", async () => {
		writeModelsJson(cli.agentDir, { openai: { baseUrl: `${server.url}/v1`, apiKey: "file-key" } });
		const run = await promptWith("openai", "gpt-4o", { OPENAI_API_KEY: "  " });

		expect(run.failure).toBeUndefined();
		expect(server.requests.map((request) => request.headers.authorization)).toEqual(["Bearer file-key"]);
	});

	it("Floway#142: ANTHROPIC_OAUTH_TOKEN set to blanks does not shadow ANTHROPIC_API_KEY, which is sent", async () => {
		writeModelsJson(cli.agentDir, { anthropic: { baseUrl: server.url } });
		const run = await promptWith("anthropic", "claude-sonnet-4-5", {
			ANTHROPIC_OAUTH_TOKEN: " \t",
			ANTHROPIC_API_KEY: "sk-ant-real",
		});

		expect(run.failure).toBeUndefined();
		expect(server.requests.map((request) => request.headers["x-api-key"])).toEqual(["sk-ant-real"]);
	});
});
