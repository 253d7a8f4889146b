/**
 * piflags4: pi 0.73.1's `--models <patterns>` (the model scope `cycle_model` goes through), which
 * Settle refused as a pi option it lacks (exit 2), so a pi user's `pi --models sonnet:high,haiku …`
 * failed under `settle`. And the `enabledModels` setting (the same scope, which `--models`
 * overrides in pi) was read by nothing. Each runs the real `settle` command with a models.json
 * provider `local` (four models) at a local HTTP server; the request's `model` says which model
 * answered.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { RpcClient, runSettleAsync, useCliProject, writeLocalProvider } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

const cli = useCliProject("settle-piflags4-");
const server = useWireServer(() => chatReply([{ type: "text", text: "answered" }]));

beforeEach(() => {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
		models: [
			{ id: "coder", reasoning: true },
			{ id: "coder-20250101", reasoning: true },
			{ id: "big", reasoning: true },
			{ id: "small", reasoning: true },
		],
	});
});

function settle(args: string[]) {
	return runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir });
}

function writeSettings(settings: Record<string, unknown>): void {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify(settings));
}

/** The `model` of each request the server got. */
const asked = () => server.requests.map((request) => (request.body as { model: string }).model);

type State = { model?: { provider: string; id: string }; thinkingLevel: string };

async function state(rpc: RpcClient, id: string): Promise<string> {
	const data = (await rpc.request({ id, type: "get_state" })).data as State;
	return `${data.model?.provider}/${data.model?.id} ${data.thinkingLevel}`;
}

async function cycle(rpc: RpcClient, id: string): Promise<string | undefined> {
	const data = (await rpc.request({ id, type: "cycle_model" })).data as { model: { id: string } } | null;
	return data?.model.id;
}

describe("--models <patterns> (pi's model scope)", () => {
	it("--rpc: the session starts on the first scoped model with its :thinking, cycle_model goes through the scope only, and new_session keeps it", async () => {
		const rpc = new RpcClient(["--models", "big:high, small"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await state(rpc, "1")).toBe("local/big high");
		expect(await cycle(rpc, "2")).toBe("small");
		expect(await cycle(rpc, "3")).toBe("big");
		expect(await state(rpc, "4")).toBe("local/big high");
		expect((await rpc.request({ id: "5", type: "new_session" })).success).toBe(true);
		expect(await state(rpc, "6")).toBe("local/big high");
		expect(await cycle(rpc, "7")).toBe("small");
		expect(await cycle(rpc, "8")).toBe("big");
		expect(await rpc.end()).toBe(0);
	});

	it("-p: pi's patterns (a glob, a part of an id preferring the undated one, provider/id); an unknown one is pi's warning", async () => {
		const run = await settle(["--models", "nope,local/sm*:low,coder", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(run.stderr).toContain('Warning: No models match pattern "nope"');
		const cycled = new RpcClient(["--models", "nope,local/sm*:low,oder"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await state(cycled, "1")).toBe("local/small low");
		expect(await cycle(cycled, "2")).toBe("coder");
		expect(await cycle(cycled, "3")).toBe("small");
		expect(await cycled.end()).toBe(0);
		expect(asked()).toEqual(["small"]);
	});

	it("--model and --thinking win over the scope's start, as in pi; the settings' default model is the start when scoped", async () => {
		const explicit = new RpcClient(["--models", "big,small", "--model", "local/coder", "--thinking", "low"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(await state(explicit, "1")).toBe("local/coder low");
		// As pi: a current model outside the scope counts as the first scoped one, so the next is the second.
		expect(await cycle(explicit, "2")).toBe("small");
		expect(await explicit.end()).toBe(0);

		writeSettings({ defaultProvider: "local", defaultModel: "small" });
		const saved = await settle(["--models", "big:high,small", "-p", "hi"]);
		expect(saved.code).toBe(0);
		writeSettings({ defaultProvider: "local", defaultModel: "coder" });
		const notScoped = await settle(["--models", "big,small", "-p", "hi"]);
		expect(notScoped.code).toBe(0);
		expect(asked()).toEqual(["small", "big"]);
	});

	it("--api-key with --models and no --model: the key goes to the scope's start model's provider, as in pi", async () => {
		const run = await settle(["--models", "small,big", "--api-key", "sk-from-flag", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "answered\n" });
		expect(server.requests.map((request) => request.headers.authorization)).toEqual(["Bearer sk-from-flag"]);
		expect(asked()).toEqual(["small"]);
	});

	it("the enabledModels setting is the scope without --models, and --models overrides it", async () => {
		writeSettings({ enabledModels: ["small", "big"] });
		const rpc = new RpcClient([], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await state(rpc, "1")).toMatch(/^local\/small /);
		expect(await cycle(rpc, "2")).toBe("big");
		expect(await cycle(rpc, "3")).toBe("small");
		expect(await rpc.end()).toBe(0);

		writeSettings({ enabledModels: ["small", "big"] });
		const over = new RpcClient(["--models", "coder,big"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await state(over, "1")).toMatch(/^local\/coder /);
		expect(await cycle(over, "2")).toBe("big");
		expect(await cycle(over, "3")).toBe("coder");
		expect(await over.end()).toBe(0);
	});

	it("settle -i: /model lists and picks among the scoped models, also after /new", async () => {
		const repl = new Repl(["--models", "small,big:high"], { cwd: cli.project, agentDir: cli.agentDir });
		// As pi's start-up line "Model scope: …".
		expect(await repl.idle(0)).toContain("  model scope: small, big:high (/model lists them)\n");
		const listed = await repl.say("/model");
		expect(listed).toContain("Model: local/small");
		expect(listed).toContain("In the model scope (/model <provider/id>):\n* local/small");
		expect(listed).toContain("  local/big");
		expect(listed).not.toContain("local/coder");
		expect(await repl.say("/model coder")).toContain("Model coder not found");
		await repl.say("/new");
		const after = await repl.say("/model");
		expect(after).toContain("In the model scope (/model <provider/id>):");
		expect(after).not.toContain("local/coder");
		expect(await repl.say("/model big")).toContain("Model: local/big");
		expect(await repl.end()).toBe(0);
	});
});
