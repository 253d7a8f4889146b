// Benchmark child for bench/session.ts: pi 0.73.1's AgentSession on the session workload, driven as
// ../shared/peers/pi-npm/bench.mjs does (SDK createAgentSession, in-memory auth/settings, no resource
// discovery, a "null" provider answering with one `done` event). Plain ESM run with `node`, so no
// TypeScript loader is in the measurement. Prints one JSON line.
//
//   node bench/peers/pi-session-child.mjs <memory|disk> <prompts> <toolTurns> <warmup>
//
// `coldPerPrompt`: the first 20 prompts of the process's first session (cold JIT).
const STARTUP_MS = performance.now();
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	createAssistantMessageEventStream,
	fauxAssistantMessage,
	fauxToolCall,
	registerApiProvider,
	registerFauxProvider,
	Type,
	unregisterApiProviders,
} from "@mariozechner/pi-ai";
import {
	AuthStorage,
	createAgentSession,
	DefaultResourceLoader,
	defineTool,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";

const IMPORTS_DONE_MS = performance.now();
const [persistence, promptsArg, toolTurnsArg, warmupArg] = process.argv.slice(2);
const PROMPTS = Number(promptsArg);
const TOOL_TURNS = Number(toolTurnsArg);
const WARMUP = Number(warmupArg);

const noop = defineTool({
	name: "noop",
	label: "No-op",
	description: "Returns immediately.",
	parameters: Type.Object({ i: Type.Number() }),
	execute: async (_id, params) => ({ content: [{ type: "text", text: `ok ${params.i}` }], details: {} }),
});

function scriptFor(prompt) {
	const steps = [];
	for (let t = 0; t < TOOL_TURNS; t++) {
		steps.push(() => fauxAssistantMessage([fauxToolCall("noop", { i: t }, { id: `call_${prompt}_${t}` })], { stopReason: "toolUse" }));
	}
	steps.push(() => fauxAssistantMessage(`done ${prompt}`));
	return steps;
}

async function runSession(count) {
	const root = mkdtempSync(join(tmpdir(), "pi-session-bench-"));
	const cwd = join(root, "cwd");
	const agentDir = join(root, "agent");
	for (const dir of [cwd, agentDir]) mkdirSync(dir, { recursive: true });
	const faux = registerFauxProvider({ provider: "faux" });
	const authStorage = AuthStorage.inMemory();
	authStorage.setRuntimeApiKey("faux", "offline-dummy-key");
	const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const sessionManager =
		persistence === "disk" ? SessionManager.create(cwd, join(root, "sessions")) : SessionManager.inMemory(cwd);
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		model: faux.getModel(),
		thinkingLevel: "off",
		authStorage,
		modelRegistry: ModelRegistry.inMemory(authStorage),
		settingsManager,
		resourceLoader,
		sessionManager,
		customTools: [noop],
		tools: ["noop"],
	});
	await session.bindExtensions({});
	// The "null" provider: one `done` event per request, so only pi's orchestration is measured.
	const api = "bench-null";
	const queue = [];
	const stream = (model, context, options) => {
		const s = createAssistantMessageEventStream();
		const step = queue.shift();
		queueMicrotask(() => {
			const message = { ...step(context, options), api, provider: model.provider, model: model.id };
			s.push({ type: "done", reason: message.stopReason, message });
			s.end(message);
		});
		return s;
	};
	registerApiProvider({ api, stream, streamSimple: stream }, "bench-null-source");
	session.agent.state.model = { ...faux.getModel(), api };
	const perPrompt = [];
	let turns = 0;
	session.subscribe((event) => {
		if (event.type === "turn_start") turns++;
	});
	const cpu0 = process.cpuUsage();
	for (let i = 0; i < count; i++) {
		queue.push(...scriptFor(i));
		const t0 = performance.now();
		await session.prompt(`prompt ${i}: call noop ${TOOL_TURNS} times then answer`);
		perPrompt.push(performance.now() - t0);
	}
	const cpu = process.cpuUsage(cpu0);
	const messages = session.messages.length;
	session.dispose();
	faux.unregister();
	unregisterApiProviders("bench-null-source");
	rmSync(root, { recursive: true, force: true });
	return { perPrompt, turns, messages, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// Warm-up: WARMUP prompts in throwaway sessions of PROMPTS prompts each (as bench/session.ts).
let cold;
for (let left = WARMUP; left > 0; left -= PROMPTS) {
	const warmup = await runSession(Math.min(left, PROMPTS));
	cold ??= warmup.perPrompt.slice(0, 20);
}
const result = await runSession(PROMPTS);
process.stdout.write(
	`${JSON.stringify({
		...result,
		coldPerPrompt: cold ?? result.perPrompt.slice(0, 20),
		importMs: IMPORTS_DONE_MS - STARTUP_MS,
		processStartToImportsDoneMs: IMPORTS_DONE_MS,
		peakRssMiB: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10,
	})}\n`,
);
