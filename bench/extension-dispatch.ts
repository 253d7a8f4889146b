/**
 * What an extension listening to `message_update` costs per turn: an AgentSession answering from
 * the faux provider, one token per chunk (so UPDATES `message_update` events per turn), with
 *
 * - `none`: no extension (the floor);
 * - `sync`: one extension whose `message_update` handler returns nothing (most listeners);
 * - `async`: the same handler declared `async` (returns a promise each time).
 *
 * Also `emit`: the runner's own cost per `message_update` dispatch to one synchronous handler
 * (`runner.emit` in a loop, no session around it). Each case runs in its own process, WARMUP
 * prompts first, then PROMPTS measured ones; REPEAT processes per case, medians reported.
 *
 *   npx tsx bench/extension-dispatch.ts          (PROMPTS=400 UPDATES=40 WARMUP=1000 REPEAT=3 override)
 *   npx tsx bench/extension-dispatch.ts --case=sync   one case, raw JSON
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI } from "../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../src/llm/faux.js";
import { InMemoryModelRuntime } from "../src/llm/model-runtime.js";
import { createTestResourceLoader } from "../src/resources/test-loader.js";
import { AgentSession } from "../src/session/agent-session.js";
import { SettingsManager } from "../src/settings/settings-manager.js";
import { SessionManager } from "../src/store/session-manager.js";

const PROMPTS = Number(process.env.PROMPTS ?? 400);
const UPDATES = Number(process.env.UPDATES ?? 40);
const WARMUP = Number(process.env.WARMUP ?? 1000);
const REPEAT = Number(process.env.REPEAT ?? 3);
const EMITS = Number(process.env.EMITS ?? 200_000);
const CASES = ["none", "sync", "async", "emit"] as const;
type Case = (typeof CASES)[number];

async function session(kind: Case): Promise<AgentSession> {
	const faux = createFauxProvider({ tokenSize: { min: 1, max: 1 } });
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	let seen = 0;
	const listener = (pi: ExtensionAPI) => {
		if (kind === "async") {
			pi.on("message_update", async () => {
				seen++;
			});
		} else {
			pi.on("message_update", () => {
				seen++;
			});
		}
	};
	const s = await AgentSession.create({
		sessionManager: SessionManager.inMemory(tmpdir()),
		settingsManager: SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } }),
		resourceLoader: createTestResourceLoader(kind === "none" ? {} : { extensionFactories: [listener] }),
		modelRuntime,
		cwd: tmpdir(),
		model: faux.getModel()!,
		thinkingLevel: "off",
	});
	await s.bindExtensions();
	// Each answer is UPDATES chunks of one token (4 characters): UPDATES message_update events.
	const answer = "abcd".repeat(UPDATES);
	const originalPrompt = s.prompt.bind(s);
	Object.assign(s, {
		prompt: (text: string) => {
			faux.setResponses([fauxAssistantMessage(answer)]);
			return originalPrompt(text);
		},
		seen: () => seen,
	});
	return s;
}

async function runCase(kind: Case): Promise<Record<string, number>> {
	const s = await session(kind === "emit" ? "sync" : kind);
	if (kind === "emit") {
		const runner = s.extensionRunner;
		const event = { type: "message_update" } as never;
		for (let i = 0; i < EMITS; i++) await runner.emit(event);
		const start = performance.now();
		for (let i = 0; i < EMITS; i++) await runner.emit(event);
		return { nsPerEmit: ((performance.now() - start) * 1e6) / EMITS };
	}
	for (let i = 0; i < WARMUP; i++) await s.prompt(`warm ${i}`);
	let updates = 0;
	const off = s.subscribe((event) => {
		if (event.type === "message_update") updates++;
	});
	const start = performance.now();
	for (let i = 0; i < PROMPTS; i++) await s.prompt(`p ${i}`);
	const ms = performance.now() - start;
	off();
	s.dispose();
	return { usPerTurn: (ms * 1000) / PROMPTS, updatesPerTurn: updates / PROMPTS };
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)]!;
}

const only = process.argv.find((arg) => arg.startsWith("--case="))?.slice("--case=".length) as Case | undefined;
if (only) {
	console.log(JSON.stringify(await runCase(only)));
} else {
	const results: Record<string, Record<string, number>> = {};
	for (const kind of CASES) {
		const runs: Record<string, number>[] = [];
		for (let r = 0; r < REPEAT; r++) {
			const child = spawnSync(
				process.execPath,
				[...process.execArgv, fileURLToPath(import.meta.url), `--case=${kind}`],
				{
					encoding: "utf8",
					env: process.env,
				},
			);
			if (child.status !== 0) throw new Error(`case ${kind} failed: ${child.stderr}`);
			runs.push(JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Record<string, number>);
		}
		results[kind] = Object.fromEntries(Object.keys(runs[0]!).map((key) => [key, median(runs.map((run) => run[key]!))]));
		process.stderr.write(`[extension-dispatch] ${kind}: ${JSON.stringify(results[kind])}\n`);
	}
	const none = results.none!.usPerTurn!;
	console.log(
		JSON.stringify(
			{
				prompts: PROMPTS,
				updatesPerTurn: UPDATES,
				results,
				syncListenerUsPerTurn: results.sync!.usPerTurn! - none,
				asyncListenerUsPerTurn: results.async!.usPerTurn! - none,
			},
			null,
			2,
		),
	);
}
