/**
 * Per-turn orchestration cost of an AgentSession, side by side in one run (issue 4 "Benchmark"):
 *
 * - `settle/memory`, `settle/disk`: Settle's AgentSession (in-memory log / JSONL on disk);
 * - `agent`: the bare Agent on the same workload (no session, no persistence) — the floor;
 * - `pi/memory`, `pi/disk`: pi 0.73.1's AgentSession, driven as `peers/pi-npm/bench.mjs` does.
 *
 * Workload (pi's bench.mjs): PROMPTS prompts, each 3 tool turns calling a trivial `noop` tool and a
 * final text turn (4 model calls), an instant "null" provider (one `done` event per request),
 * retry and compaction off, after WARMUP prompts in a throwaway session. Every case runs in its
 * own process. Prints one JSON document.
 *
 *   npx tsx bench/session.ts                 (PROMPTS=200 TOOL_TURNS=3 WARMUP=20 REPEAT=3 override)
 *   npx tsx bench/session.ts --case=settle/memory   one case, raw JSON
 *
 * Targets: per-turn ≤ 1.3× the bare Agent, ≤ 0.3× pi, and the per-turn cost of the last 20
 * prompts ≤ 1.5× that of the first 20 (nothing on the per-turn path walks the transcript).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Type } from "@sinclair/typebox";
import { Agent } from "../src/agent/agent.js";
import { instantStreamFn } from "../src/llm/event-stream.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../src/llm/faux.js";
import { InMemoryModelRuntime } from "../src/llm/model-runtime.js";
import type { AssistantMessage, Model } from "../src/llm/types.js";
import { createTestResourceLoader } from "../src/resources/test-loader.js";
import { AgentSession } from "../src/session/agent-session.js";
import { SettingsManager } from "../src/settings/settings-manager.js";
import { SessionManager } from "../src/store/session-manager.js";
import { defineTool, toAgentTool } from "../src/tools/types.js";

const PROMPTS = Number(process.env.PROMPTS ?? 200);
const TOOL_TURNS = Number(process.env.TOOL_TURNS ?? 3);
const WARMUP = Number(process.env.WARMUP ?? 20);
const REPEAT = Number(process.env.REPEAT ?? 3);
const HERE = dirname(fileURLToPath(import.meta.url));
const CASES = ["agent", "settle/memory", "settle/disk", "pi/memory", "pi/disk"] as const;
type CaseName = (typeof CASES)[number];

interface CaseResult {
	perPrompt: number[];
	turns: number;
	messages: number;
	cpuMs: number;
	peakRssMiB: number;
}

// ---------------------------------------------------------------------------------------------
// The workload

const noop = defineTool({
	name: "noop",
	label: "No-op",
	description: "Returns immediately.",
	parameters: Type.Object({ i: Type.Number() }),
	execute: async (_id, params) => ({ content: [{ type: "text" as const, text: `ok ${params.i}` }], details: {} }),
});

/** An instant provider serving a queue of scripted replies (pi's "null" provider). */
function nullProvider() {
	const base = createFauxProvider().getModel()!;
	const model: Model = { ...base, api: "bench-null", provider: "bench" };
	const queue: (() => AssistantMessage)[] = [];
	const streamFn = instantStreamFn((requestModel) => ({
		...queue.shift()!(),
		api: requestModel.api,
		provider: requestModel.provider,
		model: requestModel.id,
	}));
	const script = (prompt: number) => {
		for (let turn = 0; turn < TOOL_TURNS; turn++) {
			queue.push(() =>
				fauxAssistantMessage([fauxToolCall("noop", { i: turn }, { id: `call_${prompt}_${turn}` })], {
					stopReason: "toolUse",
				}),
			);
		}
		queue.push(() => fauxAssistantMessage(`done ${prompt}`));
	};
	return { model, streamFn, script };
}

interface Subject {
	prompt(text: string): Promise<void>;
	onTurn(listener: () => void): void;
	messages(): number;
	close(): void;
}

async function settleSubject(persistence: "memory" | "disk"): Promise<Subject> {
	const provider = nullProvider();
	const dir = mkdtempSync(join(tmpdir(), "settle-session-bench-"));
	const modelRuntime = new InMemoryModelRuntime([
		{ provider: "bench", models: [provider.model], streamFn: provider.streamFn, requiresAuth: false },
	]);
	const sessionManager =
		persistence === "disk" ? SessionManager.create(dir, join(dir, "sessions")) : SessionManager.inMemory(dir);
	const session = await AgentSession.create({
		sessionManager,
		settingsManager: SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } }),
		resourceLoader: createTestResourceLoader(),
		modelRuntime,
		cwd: dir,
		model: provider.model,
		thinkingLevel: "off",
		customTools: [noop],
		allowedToolNames: ["noop"],
	});
	await session.bindExtensions();
	let prompts = 0;
	return {
		prompt: (text) => {
			provider.script(prompts++);
			return session.prompt(text);
		},
		onTurn: (listener) => {
			session.subscribe((event) => {
				if (event.type === "turn_start") listener();
			});
		},
		messages: () => session.messages.length,
		close: () => {
			session.dispose();
			sessionManager.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

function agentSubject(): Subject {
	const provider = nullProvider();
	const agent = new Agent({
		streamFn: provider.streamFn,
		initialState: { model: provider.model, systemPrompt: "You are a coding agent.", tools: [toAgentTool(noop)] },
	});
	let prompts = 0;
	return {
		prompt: (text) => {
			provider.script(prompts++);
			return agent.prompt(text);
		},
		onTurn: (listener) => {
			agent.subscribe((event) => {
				if (event.type === "turn_start") listener();
			});
		},
		messages: () => agent.state.messages.length,
		close: () => {},
	};
}

async function run(make: () => Subject | Promise<Subject>, count: number): Promise<Omit<CaseResult, "peakRssMiB">> {
	const subject = await make();
	let turns = 0;
	subject.onTurn(() => turns++);
	const perPrompt: number[] = [];
	const cpu0 = process.cpuUsage();
	for (let index = 0; index < count; index++) {
		const text = `prompt ${index}: call noop ${TOOL_TURNS} times then answer`;
		const start = performance.now();
		await subject.prompt(text);
		perPrompt.push(performance.now() - start);
	}
	const cpu = process.cpuUsage(cpu0);
	const messages = subject.messages();
	subject.close();
	return { perPrompt, turns, messages, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function runCase(name: CaseName): Promise<CaseResult> {
	const make = name === "agent" ? agentSubject : () => settleSubject(name === "settle/disk" ? "disk" : "memory");
	if (WARMUP > 0) await run(make, WARMUP);
	const result = await run(make, PROMPTS);
	return { ...result, peakRssMiB: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10 };
}

// ---------------------------------------------------------------------------------------------
// Orchestration: each case in its own process, REPEAT rounds, cases rotated per round

function quantile(values: readonly number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	const position = (sorted.length - 1) * q;
	const low = Math.floor(position);
	const high = Math.ceil(position);
	return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

function spawnCase(name: CaseName): CaseResult {
	const child = name.startsWith("pi/")
		? spawnSync(
				process.execPath,
				[
					join(HERE, "peers", "pi-session-child.mjs"),
					name.slice(3),
					String(PROMPTS),
					String(TOOL_TURNS),
					String(WARMUP),
				],
				{ encoding: "utf8", maxBuffer: 64 << 20 },
			)
		: spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), `--case=${name}`], {
				encoding: "utf8",
				maxBuffer: 64 << 20,
				env: process.env,
			});
	if (child.status !== 0) throw new Error(`${name} failed: ${(child.stderr || child.stdout).slice(-2000)}`);
	return JSON.parse(child.stdout.trim().split("\n").pop()!) as CaseResult;
}

function summarize(runs: CaseResult[]) {
	const turnsPerPrompt = runs[0]!.turns / PROMPTS;
	const perTurn = (values: number[]) => quantile(values, 0.5) / turnsPerPrompt;
	const medians = runs.map((result) => perTurn(result.perPrompt));
	const first = runs.map((result) => perTurn(result.perPrompt.slice(0, 20)));
	const last = runs.map((result) => perTurn(result.perPrompt.slice(-20)));
	const cpuPerTurn = runs.map((result) => result.cpuMs / result.turns);
	return {
		turnsPerPrompt,
		messagesAtEnd: runs[0]!.messages,
		/** Median over rounds of each round's median ms per turn. */
		msPerTurn: round3(quantile(medians, 0.5)),
		msPerTurnFirst20Prompts: round3(quantile(first, 0.5)),
		msPerTurnLast20Prompts: round3(quantile(last, 0.5)),
		lastVsFirst: round3(quantile(last, 0.5) / quantile(first, 0.5)),
		cpuMsPerTurn: round3(quantile(cpuPerTurn, 0.5)),
		peakRssMiB: quantile(
			runs.map((result) => result.peakRssMiB),
			0.5,
		),
		rounds: medians.map(round3),
	};
}

const caseArgument = process.argv.find((argument) => argument.startsWith("--case="));
if (caseArgument) {
	const name = caseArgument.slice("--case=".length) as CaseName;
	if (!CASES.includes(name) || name.startsWith("pi/")) throw new Error(`unknown case ${name}`);
	process.stdout.write(`${JSON.stringify(await runCase(name))}\n`);
} else {
	const runs = new Map<CaseName, CaseResult[]>(CASES.map((name) => [name, []]));
	for (let round = 0; round < REPEAT; round++) {
		for (let offset = 0; offset < CASES.length; offset++) {
			const name = CASES[(round + offset) % CASES.length]!;
			process.stderr.write(`[session bench] round ${round + 1}/${REPEAT}: ${name}\n`);
			runs.get(name)!.push(spawnCase(name));
		}
	}
	const results = Object.fromEntries(CASES.map((name) => [name, summarize(runs.get(name)!)]));
	const ratio = (a: CaseName, b: CaseName) => round3(results[a]!.msPerTurn / results[b]!.msPerTurn);
	console.log(
		JSON.stringify(
			{
				benchmark: "AgentSession per-turn orchestration cost (instant provider, trivial tool)",
				config: {
					prompts: PROMPTS,
					toolTurnsPerPrompt: TOOL_TURNS,
					warmupPrompts: WARMUP,
					rounds: REPEAT,
					node: process.version,
					cpus: cpus().length,
				},
				results,
				ratios: {
					settleMemoryVsAgent: ratio("settle/memory", "agent"),
					settleDiskVsAgent: ratio("settle/disk", "agent"),
					settleMemoryVsPiMemory: ratio("settle/memory", "pi/memory"),
					settleDiskVsPiDisk: ratio("settle/disk", "pi/disk"),
				},
				targets: {
					vsAgent: 1.3,
					vsPi: 0.3,
					lastVsFirst: 1.5,
					met: {
						memoryVsAgent: ratio("settle/memory", "agent") <= 1.3,
						diskVsAgent: ratio("settle/disk", "agent") <= 1.3,
						memoryVsPi: ratio("settle/memory", "pi/memory") <= 0.3,
						diskVsPi: ratio("settle/disk", "pi/disk") <= 0.3,
						memoryLastVsFirst: results["settle/memory"]!.lastVsFirst <= 1.5,
						diskLastVsFirst: results["settle/disk"]!.lastVsFirst <= 1.5,
					},
				},
			},
			null,
			2,
		),
	);
}
