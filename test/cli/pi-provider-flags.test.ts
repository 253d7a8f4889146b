/**
 * piflags3: pi 0.73.1's `--provider <name>` and `--api-key <key>`, which Settle refused as unknown
 * options (exit 2), so a pi user's `pi --provider openai --model gpt-4o-mini --api-key "$KEY" -p …`
 * failed under `settle`. Each runs through the real `settle` command against a local HTTP server
 * standing in for two providers (`one` and `two`, both serving a model `coder`, at different paths):
 * the path the request reaches says which provider `--provider` chose, its `Authorization` header
 * which key `--api-key` gave.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { RpcClient, runSettleAsync, useCliProject } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-piflags3-");
const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

beforeEach(() => {
	mkdirSync(cli.agentDir, { recursive: true });
	const provider = (path: string, apiKey: string) => ({
		baseUrl: `${server.url}/${path}/v1`,
		api: "openai-completions",
		apiKey,
		models: [{ id: "coder" }],
	});
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({ providers: { one: provider("one", "models-key-one"), two: provider("two", "models-key-two") } }),
	);
});

function settle(args: string[]) {
	return runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir });
}

/** `<provider path> <Authorization header>` of each request the server got. */
function seen(): string[] {
	return server.requests.map((request) => `${request.path.split("/")[1]} ${request.headers.authorization}`);
}

/** Every session file of the project, concatenated. */
function sessionFiles(): string {
	const root = join(cli.agentDir, "sessions");
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => readFileSync(join(root, name), "utf8"))
		.join("\n");
}

describe("--provider <name> (pi's): the provider whose model --model names", () => {
	it("-p and --json: --provider two --model coder asks provider two, where --model coder alone is ambiguous", async () => {
		// The ambiguous run asks no provider, so it runs beside the first one without changing seen()'s order.
		const [ambiguous, print] = await Promise.all([
			settle(["--model", "coder", "-p", "hi"]),
			settle(["--provider", "two", "--model", "coder", "-p", "hi"]),
		]);
		expect(ambiguous.code).toBe(2);
		expect(ambiguous.stderr).toContain('Model "coder" is served by several providers (one/coder, two/coder)');

		expect(print).toMatchObject({ code: 0, stdout: "answered\n" });
		const json = await settle(["--provider", "one", "--model", "coder", "--json", "hi"]);
		expect(json.code).toBe(0);
		expect(json.stdout).toContain('"provider":"one","model":"coder"');
		// As pi: a provider prefix already on --model is not doubled.
		const prefixed = await settle(["--provider", "two", "--model", "two/coder", "-p", "hi"]);
		expect(prefixed.code).toBe(0);
		expect(seen()).toEqual(["two Bearer models-key-two", "one Bearer models-key-one", "two Bearer models-key-two"]);
	});

	it("--rpc: the session's model is the named provider's", async () => {
		const rpc = new RpcClient(["--provider", "two", "--model", "coder"], { cwd: cli.project, agentDir: cli.agentDir });
		const state = (await rpc.request({ id: "1", type: "get_state" })).data as { model?: { provider: string } };
		expect(state.model?.provider).toBe("two");
		expect(await rpc.end()).toBe(0);
	});

	it("as pi's resolveCliModel, --provider in another case and a part of a model id pick that provider's listed model (not a custom id)", async () => {
		// Each of these exited 2 ("Model not found: TWO/coder") where pi 0.73.1 runs. The listed model
		// is meant: its own id goes out, without pi's custom-model-id warning.
		// Four independent runs at once (each its own session; every request is expected alike).
		const spellings = [
			["--provider", "TWO", "--model", "coder"],
			["--provider", "Two", "--model", "COD"],
			["--model", "Two/Coder"],
			["--provider", "two", "--model", "TWO/coder"],
		];
		const runs = await Promise.all(spellings.map((args) => settle([...args, "-p", "hi"])));
		for (const [i, run] of runs.entries()) {
			const args = spellings[i]!;
			expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 0, stdout: "answered\n" });
			expect(run.stderr, args.join(" ")).not.toContain("custom model id");
		}
		expect(seen()).toEqual(Array(4).fill("two Bearer models-key-two"));
		expect(server.requests.map((request) => request.body.model)).toEqual(Array(4).fill("coder"));
	});

	it("hermes-agent#101975: a part of an id that several models hold runs pi's pick (the highest-sorting id), with a warning naming it and the others to choose from", async () => {
		const ids = ["coder", "coder-lite", "coder-max", "coder-mini", "coder-pro", "coder-xl"];
		writeFileSync(
			join(cli.agentDir, "models.json"),
			JSON.stringify({
				providers: {
					one: {
						baseUrl: `${server.url}/one/v1`,
						api: "openai-completions",
						apiKey: "models-key-one",
						models: ids.map((id) => ({ id })),
					},
				},
			}),
		);
		const run = await settle(["--model", "one/cod", "-p", "hi"]);
		expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "answered\n" });
		expect(server.requests.map((request) => request.body.model)).toEqual(["coder-xl"]);
		expect(run.stderr).toBe(
			'Warning: Model "cod" matches 6 models of provider "one"; using "coder-xl" (also: coder-pro, coder-mini, coder-max, and 2 more). Write the exact id to choose another.\n',
		);
	});

	it("an id the provider does not list is sent to it as a custom model id with pi's warning (was: exit 2)", async () => {
		// pi 0.73.1's resolveCliModel: the provider's default (else first) model with that id, and a warning.
		const spellings = [
			["--provider", "one", "--model", "writer-2"],
			["--model", "one/writer-2"],
		];
		const runs = await Promise.all(spellings.map((args) => settle([...args, "-p", "hi"])));
		for (const [i, run] of runs.entries()) {
			const args = spellings[i]!;
			expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 0, stdout: "answered\n" });
			expect(run.stderr).toContain('Warning: Model "writer-2" not found for provider "one". Using custom model id.');
		}
		expect(seen()).toEqual(Array(2).fill("one Bearer models-key-one"));
		expect(server.requests.map((request) => request.body.model)).toEqual(["writer-2", "writer-2"]);
		expect(sessionFiles()).toContain('"modelId":"writer-2"');
		// pi's ":<level>" suffix on a model the provider has stays refused with the hint, not sent as an id.
		const suffix = await settle(["--provider", "one", "--model", "coder:high", "-p", "hi"]);
		expect(suffix.code).toBe(2);
		expect(suffix.stderr).toContain("settle --model one/coder --thinking high");
		expect(server.requests).toHaveLength(2);
	});

	it("an unknown provider is a usage error (exit 2) naming the known ones, before any request", async () => {
		const run = await settle(["--provider", "three", "--model", "coder", "-p", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("Model not found: three/coder.");
		expect(run.stderr).toMatch(/known providers: [^\n]*\bone\b[^\n]*\btwo\b/);
		expect(server.requests).toEqual([]);
	});

	it("without --model it chooses nothing, as in pi, and says so", async () => {
		const run = await settle(["--faux", "--provider", "faux", "-p", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stderr).toContain(
			"Warning: --provider faux chooses no model without --model (as in pi): add --model <id> to use one of its models.",
		);
	});
});

describe("--api-key <key> (pi's): the chosen model's key for this run, never written", () => {
	it("-p: the key goes to the provider over auth.json's, and is in no file and no output", async () => {
		const authFile = join(cli.agentDir, "auth.json");
		const auth = JSON.stringify({ two: { type: "api_key", key: "stored-key-two" } });
		writeFileSync(authFile, auth);
		const stored = await settle(["--model", "two/coder", "-p", "hi"]);
		expect(stored.code).toBe(0);
		const given = await settle(["--model", "two/coder", "--api-key", "sk-cli-secret", "-p", "hi"]);
		expect(given).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(seen()).toEqual(["two Bearer stored-key-two", "two Bearer sk-cli-secret"]);
		expect(readFileSync(authFile, "utf8")).toBe(auth);
		expect(sessionFiles()).not.toContain("sk-cli-secret");
		expect(`${given.stdout}${given.stderr}`).not.toContain("sk-cli-secret");
	});

	it("--models with -c: on a resumed session that has messages, the key goes to the model it resumes on (was: exit 2, apiKey needs a model)", async () => {
		expect((await settle(["--model", "two/coder", "-p", "first"])).code).toBe(0);
		const resumed = await settle(["--api-key", "sk-resumed", "--models", "one/coder", "-c", "-p", "again"]);
		expect(resumed).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(seen()).toEqual(["two Bearer models-key-two", "two Bearer sk-resumed"]);
		expect(sessionFiles()).not.toContain("sk-resumed");
	});

	it("--json and --rpc: with --provider/--model, the key goes to that provider", async () => {
		const json = await settle(["--provider", "one", "--model", "coder", "--api-key", "sk-json", "--json", "hi"]);
		expect(json.code).toBe(0);
		expect(json.stdout).not.toContain("sk-json");
		const rpc = new RpcClient(["--provider", "one", "--model", "coder", "--api-key", "sk-rpc"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const settled = rpc.next((line) => line.type === "agent_settled");
		await rpc.request({ id: "1", type: "prompt", message: "hi" });
		await settled;
		expect(await rpc.end()).toBe(0);
		expect(seen()).toEqual(["one Bearer sk-json", "one Bearer sk-rpc"]);
	});

	it("-i: the chat's requests go to --provider's model with --api-key's key, also after /new", async () => {
		const repl = new Repl(["--provider", "two", "--model", "coder", "--api-key", "sk-chat"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await repl.idle(0);
		await repl.say("hi", "answered");
		await repl.say("/new");
		await repl.say("again", "answered");
		expect(await repl.end()).toBe(0);
		expect(seen()).toEqual(["two Bearer sk-chat", "two Bearer sk-chat"]);
		expect(`${repl.stdout}${repl.stderr}`).not.toContain("sk-chat");
	});

	it("without a model it is a usage error (exit 2), as pi refuses it", async () => {
		const run = await settle(["--api-key", "sk-cli-secret", "-p", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(
			"--api-key requires a model to be specified via --model, --provider/--model, or --models",
		);
		expect(server.requests).toEqual([]);
	});
});
