/**
 * A model switch whose `model_change` the session file takes but whose `thinking_level_change` it
 * does not (the disk filled between the two appends; here a real file size limit, `prlimit
 * --fsize`, that the first line fits under and the second does not). The switch happened: the agent
 * answers with the new model, the file and settings.json say so. What the caller is told must say
 * that too, and that the level did not change, not the file's bare error (read as "the switch
 * failed", the old model believed in use).
 *
 * Real `settle --rpc` child processes against a local OpenAI-compatible server.
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { rpcPrompt } from "../pi-races/helpers.js";
import { RpcClient, useCliProject, writeLocalProvider } from "./helpers.js";

const cli = useCliProject("settle-rpc-switch-level-");
const server = useWireServer();

function sessionFile(dir: string): string {
	const [name] = readdirSync(dir).filter((file) => file.endsWith(".jsonl"));
	return join(dir, name!);
}

function entries(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** One session: a prompt answered by `plain`, then `set_model` to `deep` (which reasons: its level is recorded too). */
async function switchAfterPrompt(sessions: string, wrapper?: string[]) {
	server.reply(chatReply([{ type: "text", text: "answered" }]));
	const client = new RpcClient(["--session-dir", sessions, "--model", "local/plain"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		...(wrapper ? { wrapper } : {}),
	});
	await rpcPrompt(client, "p", "hello");
	const sizeBefore = statSync(sessionFile(sessions)).size;
	const switched = await client.request({ id: "m", type: "set_model", provider: "local", modelId: "deep" });
	const state = (await client.request({ id: "s", type: "get_state" })) as {
		data: { model?: { id: string }; thinkingLevel: string };
	};
	expect(await client.end()).toBe(0);
	return { switched, state: state.data, sizeBefore, file: sessionFile(sessions) };
}

describe("a model switch whose thinking level the session file cannot take", () => {
	it("set_model fails saying the model switched and the level did not; the agent, the file and settings.json all say deep at the old level", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			models: [{ id: "plain" }, { id: "deep", reasoning: true }],
		});
		// Unlimited, to measure the two lines the switch appends.
		const free = await switchAfterPrompt(join(cli.dir, "sessions-a"));
		expect(free.switched).toMatchObject({ success: true });
		const lines = readFileSync(free.file, "utf8").slice(free.sizeBefore).split("\n");
		expect(lines.map((line) => (line ? JSON.parse(line).type : ""))).toEqual([
			"model_change",
			"thinking_level_change",
			"",
		]);
		const modelLine = Buffer.byteLength(lines[0]!) + 1;
		const levelLine = Buffer.byteLength(lines[1]!) + 1;

		// As before the first run: no default saved.
		rmSync(join(cli.agentDir, "settings.json"), { force: true });
		// Room for the model_change line and half the thinking_level_change line.
		const limit = free.sizeBefore + modelLine + Math.floor(levelLine / 2);
		const run = await switchAfterPrompt(join(cli.dir, "sessions-b"), ["prlimit", `--fsize=${limit}`]);
		expect(run.sizeBefore).toBe(free.sizeBefore);
		expect(run.switched).toMatchObject({ success: false });
		expect((run.switched as { error: string }).error).toMatch(
			/^Switched to local\/deep, but the session file did not take its thinking level medium, so the level stays off: /,
		);
		expect(run.state).toMatchObject({ model: { id: "deep" }, thinkingLevel: "off" });
		// The file holds the switch, whole lines only, and no level change.
		const recorded = entries(run.file);
		expect(recorded.at(-1)).toMatchObject({ type: "model_change", provider: "local", modelId: "deep" });
		expect(recorded.filter((entry) => entry.type === "thinking_level_change").map((e) => e.thinkingLevel)).toEqual(
			entries(free.file)
				.slice(0, recorded.length - 1)
				.filter((entry) => entry.type === "thinking_level_change")
				.map((e) => e.thinkingLevel),
		);
		const settings = JSON.parse(readFileSync(join(cli.agentDir, "settings.json"), "utf8"));
		expect(settings).toMatchObject({ defaultProvider: "local", defaultModel: "deep" });
		expect(settings.defaultThinkingLevel).toBeUndefined();
	});
});
