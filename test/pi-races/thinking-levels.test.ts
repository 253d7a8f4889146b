/**
 * Reports about the thinking level a session runs at, replayed against a real `settle --rpc`
 * child process on a local OpenAI-compatible endpoint, with real `settings.json` and session files.
 *
 * pi-llama#24: started with `--thinking off`, a `new_session` RPC command (and loading another
 * model) put the level back to the model's default: the next answers thought again. What the user
 * should see: the new session keeps `off`, and its request asks for no reasoning; a model switch
 * keeps the live level. Settle's switch took `defaultThinkingLevel` from `settings.json` instead
 * (`--thinking low` became `high`); now it carries the live level, as pi 0.73.1.
 *
 * paseo#4413: a model whose `thinkingLevelMap` maps `minimal` and `medium` to `null` (it offers
 * `low` and `high` only): clients showed `medium` while the model ran at `high`. What a client
 * should see: every answer (`get_state`, `set_thinking_level`, `cycle_thinking_level`) names the
 * level the model runs at, and the request carries it.
 *
 * gajae-code#4697: switching into a session file that records no thinking level restored the
 * switching session's level, not `defaultThinkingLevel`, because the switch wrote a stray
 * `thinking_level_change`. What the user should see: such a file opens at the default; a file
 * that records a level opens at it; neither file is rewritten by the switch alone.
 *
 * `--thinking` on `switch_session`: the command line's level is re-applied to every session the
 * process opens, a switched-to one too (pi 0.73.1's `createRuntime` passes it to each). The turn
 * then runs at it, but the file kept the level it recorded (in pi still), so reopening the session
 * came back on a level none of its new turns used. What the user should see: the switched session
 * runs at the flag's level, the file records it before that turn, and a new process resumes there.
 *
 * pi#521: Anthropic's thinking budgets were fixed per level; the `thinkingBudgets` setting it asked
 * for must reach the request. What the user should see: `settle -p --thinking <level>` sends the
 * budget `settings.json` names for that level (pi-ai's default for a level it leaves out), and on a
 * model whose `maxTokens` is below the budget, a `budget_tokens` under `max_tokens`, which Anthropic
 * requires ("`max_tokens` must be greater than `thinking.budget_tokens`").
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { RpcClient, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-thinking-levels-");

async function stateLevel(client: RpcClient): Promise<unknown> {
	const state = await client.request({ type: "get_state" });
	return (state.data as { thinkingLevel?: unknown }).thinkingLevel;
}

/** The levels of a session file's `thinking_level_change` entries, in file order. */
function recordedLevels(path: string): (string | undefined)[] {
	return readFileSync(path, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; thinkingLevel?: string })
		.filter((entry) => entry.type === "thinking_level_change")
		.map((entry) => entry.thinkingLevel);
}

/** A pi-written session file: one exchange on `local/thinker`, optionally a recorded thinking level. */
function writePiSession(path: string, cwd: string, level?: string): void {
	const timestamp = "2026-12-01T00:00:00.000Z";
	const lines: Record<string, unknown>[] = [
		{ type: "session", version: 3, id: "01a22b92-5da4-74ab-a2b4-34b74a92e9d3", timestamp, cwd },
	];
	let parentId: string | null = null;
	const add = (entry: Record<string, unknown>) => {
		const id = `0000000${lines.length}`.slice(-8);
		lines.push({ ...entry, id, parentId, timestamp });
		parentId = id;
	};
	add({ type: "model_change", provider: "local", modelId: "thinker" });
	if (level) add({ type: "thinking_level_change", thinkingLevel: level });
	add({ type: "message", message: { role: "user", content: [{ type: "text", text: "old" }], timestamp: 1 } });
	const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	add({
		type: "message",
		message: {
			role: "assistant",
			content: [{ type: "text", text: "old answer" }],
			api: "openai-completions",
			provider: "local",
			model: "thinker",
			usage: { ...usage, cost },
			stopReason: "stop",
			timestamp: 2,
		},
	});
	writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
}

describe("pi-llama#24: new_session reset the thinking level set with --thinking", () => {
	it("pi-llama#24: settle --rpc --thinking off: after new_session the level is still off and the request asks for no reasoning", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "thinker", reasoning: true }] });
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "high" }));
			server.reply(chatReply([{ type: "text", text: "one" }]));
			server.reply(chatReply([{ type: "text", text: "two" }]));
			const client = new RpcClient(["--model", "local/thinker", "--thinking", "off"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(await stateLevel(client)).toBe("off");
			await client.promptAndSettle("first");
			expect(await client.request({ type: "new_session" })).toMatchObject({ success: true });
			expect(await stateLevel(client)).toBe("off");
			await client.promptAndSettle("second");
			expect(await client.end()).toBe(0);
			expect(server.requests).toHaveLength(2);
			for (const request of server.requests) {
				expect(request.body).toMatchObject({ model: "thinker" });
				expect(request.body).not.toHaveProperty("reasoning_effort");
			}
			// The flag is for this run: settings.json keeps the user's default.
			expect(JSON.parse(readFileSync(join(cli.agentDir, "settings.json"), "utf8"))).toEqual({
				defaultThinkingLevel: "high",
			});
		} finally {
			await server.close();
		}
	});
});

describe("paseo#4413: a model offering only some levels reports the level it runs at", () => {
	it("paseo#4413: thinkingLevelMap with minimal/medium null: default medium runs at high; minimal → low; cycling skips the missing levels; requests carry the level reported", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [{ id: "kimi", reasoning: true, thinkingLevelMap: { minimal: null, medium: null } }],
			});
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "medium" }));
			server.reply(chatReply([{ type: "text", text: "one" }]));
			server.reply(chatReply([{ type: "text", text: "two" }]));
			const client = new RpcClient(["--model", "local/kimi"], { cwd: cli.project, agentDir: cli.agentDir });
			// `medium` is not offered: clamped upwards, as pi-ai's clampThinkingLevel.
			expect(await stateLevel(client)).toBe("high");
			await client.promptAndSettle("first");
			expect(await client.request({ type: "set_thinking_level", level: "minimal" })).toMatchObject({
				success: true,
				data: { level: "low" },
			});
			expect(await stateLevel(client)).toBe("low");
			const cycled: unknown[] = [];
			for (let i = 0; i < 3; i++) {
				const answer = await client.request({ type: "cycle_thinking_level" });
				cycled.push((answer.data as { level?: unknown }).level);
			}
			expect(cycled).toEqual(["high", "off", "low"]);
			await client.promptAndSettle("second");
			expect(await client.end()).toBe(0);
			expect(server.requests.map((request) => request.body.reasoning_effort)).toEqual(["high", "low"]);
		} finally {
			await server.close();
		}
	});
});

describe("gajae-code#4697: switching into a file without a thinking level", () => {
	it("gajae-code#4697: switch_session opens a file with no level at defaultThinkingLevel, one with a level at it; the files keep their bytes", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "thinker", reasoning: true }] });
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "medium" }));
			const bare = join(cli.dir, "bare.jsonl");
			const recorded = join(cli.dir, "recorded.jsonl");
			writePiSession(bare, cli.project);
			writePiSession(recorded, cli.project, "high");
			const before = { bare: readFileSync(bare, "utf8"), recorded: readFileSync(recorded, "utf8") };
			server.reply(chatReply([{ type: "text", text: "new" }]));
			const client = new RpcClient(["--model", "local/thinker", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			// The switching session runs at another level than the default (a flag-free change is
			// the user's new default, as in pi, so this one comes from the session file instead).
			expect(await client.request({ type: "switch_session", sessionPath: recorded })).toMatchObject({
				success: true,
				data: { cancelled: false },
			});
			expect(await stateLevel(client)).toBe("high");
			expect(await client.request({ type: "switch_session", sessionPath: bare })).toMatchObject({
				success: true,
				data: { cancelled: false },
			});
			expect(await stateLevel(client)).toBe("medium");
			expect(await client.request({ type: "switch_session", sessionPath: recorded })).toMatchObject({ success: true });
			expect(await stateLevel(client)).toBe("high");
			expect(readFileSync(bare, "utf8")).toBe(before.bare);
			expect(readFileSync(recorded, "utf8")).toBe(before.recorded);
			expect(await client.request({ type: "switch_session", sessionPath: bare })).toMatchObject({ success: true });
			await client.promptAndSettle("continue");
			expect(await client.end()).toBe(0);
			expect(server.requests.map((request) => request.body.reasoning_effort)).toEqual(["medium"]);
		} finally {
			await server.close();
		}
	});
});

describe("--thinking on switch_session: the command line's level and a switched-to session's recorded one", () => {
	it("--thinking on switch_session: settle --rpc --thinking low switched into a file recording high runs at low, as pi 0.73.1; the file records low before the turn, and a new process resumes it at low", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "thinker", reasoning: true }] });
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "medium" }));
			const recorded = join(cli.dir, "recorded.jsonl");
			writePiSession(recorded, cli.project, "high");
			const before = readFileSync(recorded, "utf8");
			server.reply(chatReply([{ type: "text", text: "at low" }]));
			server.reply(chatReply([{ type: "text", text: "still low" }]));
			const client = new RpcClient(["--model", "local/thinker", "--thinking", "low", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(await client.request({ type: "switch_session", sessionPath: recorded })).toMatchObject({
				success: true,
				data: { cancelled: false },
			});
			expect(await stateLevel(client)).toBe("low");
			// The switch alone does not rewrite the file (oh-my-pi#528).
			expect(readFileSync(recorded, "utf8")).toBe(before);
			await client.promptAndSettle("continue");
			expect(await client.end()).toBe(0);
			expect(recordedLevels(recorded)).toEqual(["high", "low"]);
			// Reopened without --thinking: the level its last turn ran at.
			const again = new RpcClient(["--session", recorded], { cwd: cli.project, agentDir: cli.agentDir });
			expect(await stateLevel(again)).toBe("low");
			await again.promptAndSettle("more");
			expect(await again.end()).toBe(0);
			expect(server.requests.map((request) => request.body.reasoning_effort)).toEqual(["low", "low"]);
		} finally {
			await server.close();
		}
	});
});

describe("createAgentSession's thinkingLevel on a resumed session recording another level", () => {
	it("SDK thinkingLevel: a session resumed with thinkingLevel low over a file recording high runs at low; the file records low before the turn, and a later resume comes back at low", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "thinker", reasoning: true }] });
			const recorded = join(cli.dir, "recorded.jsonl");
			writePiSession(recorded, cli.project, "high");
			const before = readFileSync(recorded, "utf8");
			server.reply(chatReply([{ type: "text", text: "at low" }]), chatReply([{ type: "text", text: "still low" }]));
			const resume = async (options: { thinkingLevel?: "low" }) =>
				(
					await createAgentSession({
						cwd: cli.project,
						agentDir: cli.agentDir,
						sessionManager: SessionManager.open(recorded),
						...options,
					})
				).session;
			const first = await resume({ thinkingLevel: "low" });
			expect(first.thinkingLevel).toBe("low");
			// Opening alone does not rewrite the file (oh-my-pi#528).
			expect(readFileSync(recorded, "utf8")).toBe(before);
			await first.prompt("continue");
			first.dispose();
			first.sessionManager.close();
			expect(recordedLevels(recorded)).toEqual(["high", "low"]);
			const again = await resume({});
			expect(again.thinkingLevel).toBe("low");
			await again.prompt("more");
			again.dispose();
			again.sessionManager.close();
			expect(server.requests.map((request) => request.body.reasoning_effort)).toEqual(["low", "low"]);
		} finally {
			await server.close();
		}
	});
});

describe("pi#521: thinkingBudgets from settings.json reach Anthropic's request", () => {
	it("pi#521: settle -p --thinking low/high/medium sends the budgets settings.json names (pi-ai's for medium); a small model's budget stays under max_tokens", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, server.url, {
				api: "anthropic-messages",
				models: [
					{ id: "claude-wire-1", reasoning: true, maxTokens: 64000 },
					{ id: "claude-small", reasoning: true, maxTokens: 8192 },
				],
			});
			writeFileSync(
				join(cli.agentDir, "settings.json"),
				JSON.stringify({ thinkingBudgets: { low: 3000, high: 20000 } }),
			);
			const runs = [
				["claude-wire-1", "low"],
				["claude-wire-1", "high"],
				["claude-wire-1", "medium"],
				["claude-small", "high"],
			] as const;
			for (const [model, level] of runs) {
				server.reply(anthropicReply([{ type: "text", text: `answer at ${level}` }]));
				const run = await runSettleAsync(
					["-p", "--no-session", "--model", `local/${model}`, "--thinking", level, "q"],
					{
						cwd: cli.project,
						agentDir: cli.agentDir,
					},
				);
				expect(run).toMatchObject({ code: 0, stdout: `answer at ${level}\n` });
			}
			const sent = server.requests.map((request) => ({
				model: request.body.model,
				budget: (request.body.thinking as { budget_tokens?: number } | undefined)?.budget_tokens,
				maxTokens: request.body.max_tokens as number,
			}));
			expect(sent.map(({ model, budget }) => [model, budget])).toEqual([
				["claude-wire-1", 3000],
				["claude-wire-1", 20000],
				["claude-wire-1", 8192],
				["claude-small", expect.any(Number)],
			]);
			for (const { budget, maxTokens } of sent) expect(budget).toBeLessThan(maxTokens);
			expect(sent[3]!.maxTokens).toBeLessThanOrEqual(8192);
		} finally {
			await server.close();
		}
	});
});

describe("pi-llama#24 (model switch half): switching models reset the level given with --thinking", () => {
	it("pi-llama#24: settle --rpc --thinking low, defaultThinkingLevel high: set_model and cycle_model keep low; the requests ask for low", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
				models: [
					{ id: "thinker", reasoning: true },
					{ id: "other", reasoning: true },
				],
			});
			writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "high" }));
			server.reply(chatReply([{ type: "text", text: "one" }]));
			server.reply(chatReply([{ type: "text", text: "two" }]));
			const client = new RpcClient(["--model", "local/thinker", "--thinking", "low", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(await stateLevel(client)).toBe("low");
			expect(await client.request({ type: "set_model", provider: "local", modelId: "other" })).toMatchObject({
				success: true,
			});
			expect(await stateLevel(client)).toBe("low");
			await client.promptAndSettle("first");
			expect(await client.request({ type: "cycle_model" })).toMatchObject({
				success: true,
				data: { model: { id: "thinker" }, thinkingLevel: "low" },
			});
			await client.promptAndSettle("second");
			expect(await client.end()).toBe(0);
			expect(server.requests.map((request) => [request.body.model, request.body.reasoning_effort])).toEqual([
				["other", "low"],
				["thinker", "low"],
			]);
			expect(JSON.parse(readFileSync(join(cli.agentDir, "settings.json"), "utf8"))).toMatchObject({
				defaultThinkingLevel: "high",
			});
		} finally {
			await server.close();
		}
	});
});
