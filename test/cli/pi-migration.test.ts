/**
 * A pi 0.73.1 user's first hour with Settle, `settle` as real child processes in a temp HOME: pi's
 * own `~/.pi/agent` (settings.json naming a models.json provider, auth.json, sessions pi itself
 * wrote against a local OpenAI-compatible server), then `settle` pointed at it on purpose
 * (`SETTLE_AGENT_DIR`), and `settle` not pointed at it (the hints that say how). pi's sessions are
 * written by pi's own SDK in this process ({@link piPrompt}): what is compared is pi's session
 * files and what pi makes of Settle's, not pi's command line (test/cli/pi-differential-*), and a
 * pi child costs ~2 s of CPU to load its modules.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAgentSession, SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, test } from "vitest";
import { getDefaultSessionDir } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, useWireServer } from "../llm/wire/server.js";
import { cliCommand, trackChild, useCliProject } from "./helpers.js";

const scratch = useCliProject("settle-pi-migration-");
// Answers every chat completion with the model it was asked for and the last user text.
const server = useWireServer((request) => chatReply([{ type: "text", text: echo(request) }]));

function echo(request: RecordedRequest): string {
	const users = (request.body?.messages ?? []).filter((m: { role: string }) => m.role === "user");
	const last = users.at(-1)?.content;
	const text =
		typeof last === "string" ? last : (last ?? []).map((part: { text?: string }) => part.text ?? "").join("");
	return `${request.body?.model} heard: ${text}`;
}

/** The temp HOME and pi's agent folder in it. */
function home() {
	const dir = join(scratch.dir, "home");
	return { dir, piAgent: join(dir, ".pi", "agent"), settleAgent: join(dir, ".settle", "agent") };
}

/** A pi user's `~/.pi/agent`: a local provider in models.json as the default model, a key, settings. */
function writePiSetup(models: unknown = localProvider()) {
	const { piAgent } = home();
	mkdirSync(piAgent, { recursive: true });
	writeFileSync(join(piAgent, "models.json"), JSON.stringify(models));
	writeFileSync(
		join(piAgent, "settings.json"),
		JSON.stringify({ defaultProvider: "localllm", defaultModel: "coder-7b", quietStartup: true, theme: "light" }),
	);
	writeFileSync(join(piAgent, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-x" } }));
}

function localProvider() {
	return {
		providers: {
			localllm: {
				baseUrl: `${server.url}/v1`,
				api: "openai-completions",
				apiKey: "local-key",
				compat: { supportsDeveloperRole: false },
				models: [{ id: "coder-7b", name: "Local Coder" }, { id: "chat-3b" }],
			},
		},
	};
}

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `node <argv>` in the project with the temp HOME (async: the provider server is in this process). */
async function run(argv: readonly string[], env: Record<string, string | undefined> = {}, input = ""): Promise<Run> {
	const childEnv: NodeJS.ProcessEnv = { ...process.env, HOME: home().dir, PI_OFFLINE: "1", ...env };
	for (const name of ["SETTLE_AGENT_DIR", "PI_CODING_AGENT_DIR"]) if (!(name in env)) delete childEnv[name];
	for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
	const child = spawn(process.execPath, argv, { cwd: scratch.project, env: childEnv, stdio: ["pipe", "pipe", "pipe"] });
	child.stdin.end(input);
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
	child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
	const code = await trackChild(child);
	return { code, stdout, stderr };
}

const settle = (args: string[], env: Record<string, string | undefined> = {}, input = "") =>
	run([...cliCommand(), ...args], env, input);

/**
 * What `pi -p <prompt>` (with `continueRecent`: `pi -c -p <prompt>`) does with the temp HOME's pi
 * folder, through pi's SDK as its `main` builds it: auth.json, models.json and settings.json of
 * `~/.pi/agent` pick the model, the session is new (or the project's latest) in pi's default session
 * folder. Returns the text `-p` prints: the last answer's.
 */
async function piPrompt(prompt: string, options: { continueRecent?: boolean } = {}): Promise<string> {
	const { piAgent: agentDir } = home();
	const cwd = scratch.project;
	const sessionDir = getDefaultSessionDir(cwd, agentDir);
	const sessionManager = options.continueRecent
		? SessionManager.continueRecent(cwd, sessionDir)
		: SessionManager.create(cwd, sessionDir);
	const { session } = await createAgentSession({ cwd, agentDir, sessionManager });
	try {
		await session.prompt(prompt);
		return session.getLastAssistantText() ?? "";
	} finally {
		session.dispose();
	}
}

/** The project's session files in `agentDir`. */
function sessionFiles(agentDir: string): string[] {
	const dir = join(agentDir, "sessions");
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((project) => readdirSync(join(dir, project)).map((name) => join(dir, project, name)));
}

describe("SETTLE_AGENT_DIR=~/.pi/agent: pi's setup in Settle", () => {
	test("models.json's provider, named by settings.json, answers `settle -p` over its own HTTP endpoint", async () => {
		writePiSetup();
		const { piAgent } = home();
		const result = await settle(["-p", "hello from settle"], { SETTLE_AGENT_DIR: piAgent });
		expect(result.stderr).not.toContain("Error");
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("coder-7b heard: hello from settle\n");
		const [request] = server.requests;
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBe("Bearer local-key");
		// compat.supportsDeveloperRole: false reaches pi-ai: the system prompt goes as a "system" message.
		expect(request?.body.messages[0].role).toBe("system");

		const listed = await settle(["--list-models", "localllm"], { SETTLE_AGENT_DIR: piAgent });
		expect(
			listed.stdout
				.split("\n")
				.filter(Boolean)
				.map((line) => line.split(/\s+/)[0]),
		).toEqual(["localllm/coder-7b", "localllm/chat-3b"]);
	});

	// A hang guard only: four pi and settle runs took 7.8 s in a loaded full run on 2 cores and 17 s in another.
	test("a session pi wrote is continued by settle on the same provider, and pi opens the result again", {
		timeout: 120_000,
	}, async () => {
		writePiSetup();
		const { piAgent } = home();
		expect(await piPrompt("first words in pi")).toBe("coder-7b heard: first words in pi");
		const [file] = sessionFiles(piAgent);
		expect(file).toBeDefined();

		const continued = await settle(["-c", "-p", "now in settle"], { SETTLE_AGENT_DIR: piAgent });
		expect(continued.stderr).toBe("");
		expect(continued.stdout).toBe("coder-7b heard: now in settle\n");
		// Still one file: settle continued pi's session, and the model saw pi's turn.
		expect(sessionFiles(piAgent)).toEqual([file]);
		const context = server.requests.at(-1)?.body.messages.map((m: { role: string }) => m.role);
		expect(context).toEqual(["system", "user", "assistant", "user"]);

		expect(await piPrompt("back in pi", { continueRecent: true })).toBe("coder-7b heard: back in pi");
		const texts = readFileSync(file!, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((entry) => entry.type === "message" && entry.message.role === "user")
			.map((entry) => entry.message.content[0].text);
		expect(texts).toEqual(["first words in pi", "now in settle", "back in pi"]);
	});

	test("what Settle cannot apply from models.json is a warning naming the file, the provider and why", async () => {
		const { piAgent } = home();
		writePiSetup({
			providers: {
				...localProvider().providers,
				anthropic: { models: [{ id: "my-claude" }] },
				nokey: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", models: [{ id: "m" }] },
				tuned: { ...localProvider().providers.localllm, modelOverrides: { "coder-7b": { name: "x" } } },
			},
		});
		const result = await settle(["-p", "hi"], { SETTLE_AGENT_DIR: piAgent });
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("coder-7b heard: hi\n");
		const file = join(piAgent, "models.json");
		// pi#2921: custom models of a built-in provider are merged into its models, as pi does.
		expect(result.stderr).not.toContain(`"anthropic"`);
		expect(result.stderr).toContain(`Warning: ${file}: provider "nokey" was skipped: Provider nokey: "apiKey"`);
		expect(result.stderr).toContain(
			`Warning: ${file}: provider "tuned": "modelOverrides" change built-in models only and "tuned" is not a built-in provider`,
		);
		const listed = await settle(["--list-models", "anthropic/my-claude"], { SETTLE_AGENT_DIR: piAgent });
		expect(listed.stdout).toMatch(/^anthropic\/my-claude +128000 tokens/m);

		writeFileSync(file, "{ providers: ");
		const broken = await settle(["--list-models"], { SETTLE_AGENT_DIR: piAgent });
		expect(broken.stderr).toContain(`${file} was not read (`);
	});
});

describe("pi's folder, not pointed at: the hints", () => {
	test("settle --help tells a pi user where their setup goes", async () => {
		const help = await settle(["--help"]);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain("custom providers (Ollama, vLLM, proxies) in\n<agent dir>/models.json, pi's format.");
		expect(help.stdout).toContain("Coming from pi: a project's .pi/ folder is read as it is");
		expect(help.stdout).toContain("SETTLE_AGENT_DIR=~/.pi/agent settle … uses pi's keys, settings, models.json");
		// It told pi users the package commands its own usage lines list did not exist.
		expect(help.stdout).toContain("pi's package commands (install, remove,\nlist, update) work here too");
		expect(help.stdout).not.toMatch(/package commands[^.]*do not exist/);
	});

	test("the first run names pi's folder and SETTLE_AGENT_DIR, once; never when told where to look", async () => {
		writePiSetup();
		const { piAgent, settleAgent } = home();
		await piPrompt("a pi session");
		const first = await settle(["--faux", "-p", "hi"]);
		expect(first.code).toBe(0);
		const hints = first.stderr.split("\n").filter((line) => line.includes("pi's agent folder"));
		expect(hints).toEqual([
			`Warning: pi's agent folder ${piAgent} (settings.json, auth.json, models.json, 1 session of this project) is not read by Settle, which keeps its own in ${settleAgent}. To use pi's keys, settings, models, extensions, skills and sessions (Settle then writes its sessions and settings there too), run with SETTLE_AGENT_DIR=${piAgent} or --agent-dir ${piAgent}.`,
		]);
		// The first saved session made Settle's folder: the hint is not repeated on every run.
		expect(existsSync(settleAgent)).toBe(true);
		expect((await settle(["--faux", "-p", "hi"])).stderr).not.toContain("pi's agent folder");
	});

	test("--no-session runs say it once too: the first makes Settle's (empty) folder, nothing is written in pi's", async () => {
		writePiSetup();
		const { piAgent, settleAgent } = home();
		const piFiles = readdirSync(piAgent).sort();
		// A run that stops before it said the hint (a bad option) does not count.
		expect((await settle(["--faux", "--no-session", "--typo", "-p", "hi"])).code).toBe(2);
		expect(existsSync(settleAgent)).toBe(false);
		const first = await settle(["--faux", "--no-session", "-p", "hi"]);
		expect([first.code, first.stdout]).toEqual([0, "hi\n"]);
		expect(first.stderr).toContain(`Warning: pi's agent folder ${piAgent} (`);
		const second = await settle(["--faux", "--no-session", "-p", "hi"]);
		expect([second.code, second.stdout]).toEqual([0, "hi\n"]);
		expect(second.stderr).not.toContain("pi's agent folder");
		expect(readdirSync(settleAgent)).toEqual([]);
		expect(readdirSync(piAgent).sort()).toEqual(piFiles);
	});

	test("no hint with --agent-dir, with SETTLE_AGENT_DIR, or without pi's folder", async () => {
		writePiSetup();
		const { piAgent } = home();
		const own = join(scratch.dir, "own-agent");
		for (const [args, env] of [
			[["--agent-dir", own], {}],
			[[], { SETTLE_AGENT_DIR: own }],
			[[], { PI_CODING_AGENT_DIR: join(scratch.dir, "no-pi-here") }],
		] as const) {
			const result = await settle([...args, "--faux", "--no-session", "-p", "hi"], env);
			expect(result.stdout).toBe("hi\n");
			expect(result.stderr).not.toContain("pi's agent folder");
		}
		// PI_CODING_AGENT_DIR moves pi's folder, as it does for pi.
		const moved = await settle(["--faux", "--no-session", "-p", "hi"], { PI_CODING_AGENT_DIR: piAgent });
		expect(moved.stderr).toContain(`pi's agent folder ${piAgent} (`);
	});

	test("`--list-models` with no models, `--session <pi id>` and `-c` say where pi's are", async () => {
		writePiSetup();
		const { piAgent } = home();
		await piPrompt("a pi session");
		const [file] = sessionFiles(piAgent);
		const id = /_([0-9a-f-]+)\.jsonl$/.exec(file!)![1]!;

		const listed = await settle(["--list-models"]);
		expect(listed.code).toBe(0);
		expect(listed.stderr).toContain(`SETTLE_AGENT_DIR=${piAgent}`);

		const byId = await settle(["--faux", "--session", id.slice(0, 8), "-p", "x"]);
		expect(byId.code).toBe(2);
		expect(byId.stderr).toContain(
			`pi's session ${file} matches: open it with settle --session ${file}, or run settle with SETTLE_AGENT_DIR=${piAgent}`,
		);
		// The command it names works, and leaves the session where pi finds it.
		const opened = await settle(["--faux", "--session", file!, "-p", "in settle"]);
		expect(opened.stdout).toBe("in settle\n");
		// pi's model is in pi's models.json, which this agent folder does not have: why, and where it is.
		expect(opened.stderr).toContain(
			`Warning: Could not restore model localllm/coder-7b (no model localllm/coder-7b here). Using faux/faux-1. pi's ${join(piAgent, "models.json")} defines the provider "localllm": run with SETTLE_AGENT_DIR=${piAgent} to use it.\n`,
		);
		expect(readFileSync(file!, "utf8")).toContain('"text":"in settle"');

		const continued = await settle(["--faux", "-c", "-p", "y"]);
		expect(continued.code).toBe(0);
		expect(continued.stderr).toContain(
			`Warning: -c found no Settle session of this project, so this is a new one; pi has 1 in ${join(piAgent, "sessions")}`,
		);
		expect(continued.stderr).toContain(`settle --session ${file} continues pi's latest`);
		// The next -c has a Settle session to continue: no hint.
		expect((await settle(["--faux", "-c", "-p", "z"])).stderr).not.toContain("found no Settle session");
	});

	// openclaw#96542 in the hints: `<dir>/project` and `<dir>-project` share pi's folder `--…-project--`.
	test("regression: the hints count and name only pi's sessions whose header's cwd is this project", async () => {
		writePiSetup();
		const { piAgent } = home();
		await piPrompt("a pi session");
		const [own] = sessionFiles(piAgent);
		const twinCwd = `${scratch.dir}-project`;
		const folder = getDefaultSessionDir(scratch.project, piAgent);
		expect(getDefaultSessionDir(twinCwd, piAgent)).toBe(folder);
		const twinId = "0190f5c2-0000-7000-8000-0000000000aa";
		const twin = join(folder, `2027-01-01T00-00-00-000Z_${twinId}.jsonl`);
		const at = "2027-01-01T00:00:00.000Z";
		writeFileSync(
			twin,
			`${JSON.stringify({ type: "session", version: 3, id: twinId, timestamp: at, cwd: twinCwd })}\n`,
		);

		const first = await settle(["--faux", "--no-session", "-p", "hi"]);
		expect(first.stderr).toContain(`models.json, 1 session of this project) is not read by Settle`);

		const byId = await settle(["--faux", "--session", twinId.slice(0, 13), "-p", "x"]);
		expect(byId.code).toBe(2);
		expect(byId.stderr).not.toContain(twin);

		const continued = await settle(["--faux", "-c", "-p", "y"]);
		expect(continued.stderr).toContain(`pi has 1 in ${folder}`);
		expect(continued.stderr).toContain(`settle --session ${own} continues pi's latest`);
	});

	test("in settle -i, /resume names pi's sessions of this project, and /resume <pi file> continues one", async () => {
		writePiSetup();
		const { piAgent, settleAgent } = home();
		await piPrompt("a pi session");
		const [file] = sessionFiles(piAgent);
		const id = /_([0-9a-f-]+)\.jsonl$/.exec(file!)![1]!;
		mkdirSync(settleAgent, { recursive: true });
		const chat = await settle(["-i", "--faux"], {}, `/resume\n/resume ${id.slice(0, 8)}\n/resume ${file}\n/session\n`);
		expect(chat.code).toBe(0);
		expect(chat.stdout).toContain(
			`This project has no saved sessions yet.\npi has 1 session of this project in ${join(piAgent, "sessions")}`,
		);
		expect(chat.stdout).toContain(
			`/resume ${file} continues pi's latest (settle with SETTLE_AGENT_DIR=${piAgent} lists them here).`,
		);
		expect(chat.stdout + chat.stderr).toContain(
			`pi's session ${file} matches: open it with /resume ${file}, or run settle`,
		);
		expect(chat.stdout).toContain(`file: ${file}`);
	});

	test("a resumed model whose provider has no key here: the warning says so", async () => {
		const file = join(scratch.dir, "s.jsonl");
		const at = "2026-01-01T00:00:00.000Z";
		const usage = {
			input: 1,
			output: 1,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 2,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		const lines = [
			{ type: "session", version: 3, id: "0190f5c2-0000-7000-8000-000000000001", timestamp: at, cwd: scratch.project },
			{ type: "model_change", id: "a1", parentId: null, timestamp: at, provider: "openai", modelId: "gpt-4o" },
			{
				type: "message",
				id: "a2",
				parentId: "a1",
				timestamp: at,
				message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 },
			},
			{
				type: "message",
				id: "a3",
				parentId: "a2",
				timestamp: at,
				message: {
					role: "assistant",
					content: [{ type: "text", text: "yo" }],
					api: "openai-responses",
					provider: "openai",
					model: "gpt-4o",
					usage,
					stopReason: "stop",
					timestamp: 2,
				},
			},
		];
		writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
		const keys = Object.keys(process.env).filter((name) => /_(API_KEY|OAUTH_TOKEN)$/.test(name));
		const env = {
			...Object.fromEntries(keys.map((name) => [name, undefined])),
			SETTLE_AGENT_DIR: join(scratch.dir, "own"),
		};
		// pi-ai's catalogue has the model, only anthropic has a key: the chat says why it is not openai's.
		mkdirSync(join(scratch.dir, "own"));
		writeFileSync(join(scratch.dir, "own", "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "k" } }));
		const result = await settle(["-i", "--session", file], env);
		expect(result.code).toBe(0);
		expect(result.stderr).toMatch(
			/^Warning: Could not restore model openai\/gpt-4o \(no key for openai\)\. Using anthropic\/\S+\.$/m,
		);
		// With --faux the catalogue is not loaded: the model is not there at all.
		const faux = await settle(["--faux", "--session", file, "-p", "again"], env);
		expect(faux.stdout).toBe("again\n");
		expect(faux.stderr).toContain(
			"Could not restore model openai/gpt-4o (no model openai/gpt-4o here). Using faux/faux-1.\n",
		);
	});

	test("pi's /login (OAuth) entry in auth.json: said when it leaves the provider without a key, not otherwise", async () => {
		const own = join(scratch.dir, "own");
		mkdirSync(own);
		const auth = join(own, "auth.json");
		writeFileSync(auth, JSON.stringify({ anthropic: { type: "oauth", access: "a", refresh: "r", expires: 1 } }));
		const keys = Object.keys(process.env).filter((name) => /_(API_KEY|OAUTH_TOKEN)$/.test(name));
		const env = { ...Object.fromEntries(keys.map((name) => [name, undefined])), SETTLE_AGENT_DIR: own };
		const without = await settle(["--list-models"], env);
		expect(without.code).toBe(0);
		expect(without.stderr).toContain(
			`Warning: ${auth}: "anthropic" is a pi /login (OAuth) credential, which Settle does not use (it has no /login), so anthropic has no key: set ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY in the environment to use its models`,
		);
		const withKey = await settle(["--list-models", "anthropic/"], { ...env, ANTHROPIC_API_KEY: "k" });
		expect(withKey.stdout).toContain("anthropic/");
		expect(withKey.stderr).not.toContain("/login");
	});
});
