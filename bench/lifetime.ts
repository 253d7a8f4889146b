/**
 * Retained memory of a long-lived host (IDE server, bot) that creates, disposes, switches and
 * reloads sessions for hours, measured after forced full GCs, with ratios against baselines
 * measured in the same run:
 *
 * - `baseline.bareAgent`: heap held by one live bare `Agent` (the smallest thing a session wraps);
 * - `baseline.liveSession`: heap held by one live AgentSession (harness, in-memory log, one prompt);
 * - `perDisposedSession`: heap still held per session created, prompted (tool call + answer) and
 *   disposed — with the `subscribe` unsubscribe function and the inspect subscription the host KEEPS
 *   (a kept trace recorder would hold its recorded events, which are the host's data);
 * - `perRuntimeSwitch`: per `runtime.newSession()` + prompt, with a runtime inspector attached throughout;
 * - `perReload`: per `session.reload()` of a session with a TypeScript extension (jiti);
 * - `perTurn`: per prompt (tool call + answer) in one session, against the transcript's own growth
 *   (JSON bytes of the messages added), plain and with an inspector and a trace recorder attached.
 *
 * Each is given in bytes (`heapUsed` after forced GCs: noisy by a few KB per measurement), in
 * live objects (counted in a V8 heap snapshot: exact; what to read first) and as `v8CodeBytes`, the
 * part of the bytes that is V8's code (the snapshot's `code` nodes: optimized functions, bytecode,
 * feedback). `collected` counts say how many of the disposed/replaced sessions the GC could collect
 * (expect all).
 *
 * Each case first runs WARMUP rounds: the heap keeps growing by V8's compiled code for a few dozen
 * rounds of anything, which is not retained by Settle. It keeps growing more slowly for thousands
 * of rounds (V8 optimizing more functions; it levels off): most of `bytes` per disposed session or
 * runtime switch beyond the kept handles is that code, with no object left behind.
 *
 *   npx tsx bench/lifetime.ts      (SESSIONS=100 SWITCHES=100 RELOADS=40 TURNS=300 WARMUP=30 override)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { Agent } from "../src/agent/agent.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage, fauxToolCall } from "../src/llm/faux.js";
import { InMemoryModelRuntime } from "../src/llm/model-runtime.js";
import { DefaultResourceLoader } from "../src/resources/resource-loader.js";
import { createAgentSessionRuntimeFactory } from "../src/runtime/factory.js";
import { createAgentSessionRuntime } from "../src/runtime/runtime.js";
import { AgentSession } from "../src/session/agent-session.js";
import { SettingsManager } from "../src/settings/settings-manager.js";
import { SessionManager } from "../src/store/session-manager.js";
import { createHarness } from "../src/testing/harness.js";
import { countLiveObjects, countReachableObjects, liveHeapCensus } from "../test/lifetime/heap-census.js";

const SESSIONS = Number(process.env.SESSIONS ?? 100);
const SWITCHES = Number(process.env.SWITCHES ?? 100);
const RELOADS = Number(process.env.RELOADS ?? 40);
const TURNS = Number(process.env.TURNS ?? 300);
/** Rounds run before measuring: V8 keeps compiling and optimizing code for the first few dozen. */
const WARMUP = Number(process.env.WARMUP ?? 30);

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

async function heapAfterGc(): Promise<number> {
	for (let i = 0; i < 6; i++) {
		gc();
		await new Promise((resolve) => setImmediate(resolve));
	}
	return process.memoryUsage().heapUsed;
}

/**
 * Heap after a full GC: bytes used (noisy by a few KB), live objects (a V8 snapshot: exact) and
 * the bytes of V8's compiled code among them (same snapshot).
 */
interface HeapPoint {
	bytes: number;
	objects: number;
	codeBytes: number;
}

async function measure(): Promise<HeapPoint> {
	const bytes = await heapAfterGc();
	return { bytes, ...(await liveHeapCensus()) };
}

/** Per-round growth between two points. */
function perRound(before: HeapPoint, after: HeapPoint, rounds: number) {
	return {
		bytes: Math.round((after.bytes - before.bytes) / rounds),
		objects: Math.round(((after.objects - before.objects) / rounds) * 100) / 100,
		v8CodeBytes: Math.round((after.codeBytes - before.codeBytes) / rounds),
	};
}

/** Counts how many registered objects were collected. */
function collectionCounter() {
	let collected = 0;
	let registered = 0;
	const registry = new FinalizationRegistry<number>(() => {
		collected++;
	});
	return {
		track(target: object) {
			registered++;
			registry.register(target, registered);
		},
		async result() {
			await heapAfterGc();
			return { registered, collected };
		},
	};
}

const round = (n: number) => Math.round(n);
const ratio = (n: number, base: number) => Math.round((n / base) * 1000) / 1000;

async function bareAgent() {
	const count = 500;
	const held: Agent[] = [];
	const before = await measure();
	for (let i = 0; i < count; i++) held.push(new Agent());
	const after = await measure();
	held.length = 0;
	return perRound(before, after, count);
}

async function liveSession() {
	const count = 10;
	const held: Awaited<ReturnType<typeof createHarness>>[] = [];
	const before = await measure();
	for (let i = 0; i < count; i++) {
		const h = await createHarness();
		h.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage("done")]);
		await h.session.prompt("list the files");
		held.push(h);
	}
	const after = await measure();
	for (const h of held) h.cleanup();
	return perRound(before, after, count);
}

async function disposedSessions() {
	const counter = collectionCounter();
	const kept: unknown[] = [];
	const once = async () => {
		const h = await createHarness({ persistence: "disk" });
		kept.push(
			h.session.subscribe(() => {}),
			h.session.inspect(() => {}),
		);
		h.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage("done")]);
		await h.session.prompt("list the files");
		counter.track(h.session);
		h.cleanup();
	};
	for (let i = 0; i < WARMUP; i++) await once();
	const before = await measure();
	for (let i = 0; i < SESSIONS; i++) await once();
	const after = await measure();
	return { ...perRound(before, after, SESSIONS), ...(await counter.result()), keptHandles: kept.length };
}

async function runtimeSwitches(root: string) {
	const cwd = join(root, "switch-project");
	mkdirSync(cwd, { recursive: true });
	let faux: FauxProvider | undefined;
	const factory = createAgentSessionRuntimeFactory({
		modelRuntime: () => {
			faux = createFauxProvider();
			const runtime = new InMemoryModelRuntime();
			runtime.registerFauxProvider(faux);
			return runtime;
		},
		resourceLoaderOptions: { noExtensions: true },
	});
	const runtime = await createAgentSessionRuntime(factory, {
		cwd,
		agentDir: join(root, "agent"),
		sessionManager: SessionManager.create(cwd, join(root, "switch-sessions")),
	});
	runtime.setRebindSession((session) => session.bindExtensions());
	await runtime.session.bindExtensions();
	const inspector = runtime.inspect(() => {});
	const counter = collectionCounter();
	const cycle = async () => {
		faux!.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage("done")]);
		await runtime.session.prompt("list the files");
		counter.track(runtime.session);
		await runtime.newSession();
	};
	for (let i = 0; i < WARMUP; i++) await cycle();
	const before = await measure();
	for (let i = 0; i < SWITCHES; i++) await cycle();
	const after = await measure();
	const collected = await counter.result();
	inspector.unsubscribe();
	await runtime.dispose();
	// The last tracked session is the one replaced by the final newSession(): all of them can go.
	return { ...perRound(before, after, SWITCHES), ...collected };
}

const EXTENSION = `
import type { ExtensionAPI } from "settle";
const state = { table: new Array(1000).fill(0).map((_, i) => ({ i })) };
export default function (pi: ExtensionAPI) {
	pi.on("agent_start", () => { void state; });
	pi.events.on("bench:ping", () => {});
	pi.registerCommand("bench", { description: "bench", handler: async () => {} });
}
`;

async function reloads(root: string) {
	const cwd = join(root, "reload-project");
	const agentDir = join(root, "reload-agent");
	mkdirSync(join(cwd, ".settle/extensions"), { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(join(cwd, ".settle/extensions/bench.ts"), EXTENSION);
	const faux = createFauxProvider();
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: true });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		homeDir: join(root, "home"),
		trustProject: true,
	});
	await resourceLoader.reload();
	const sessionManager = SessionManager.inMemory(cwd);
	const session = await AgentSession.create({
		sessionManager,
		settingsManager,
		resourceLoader,
		modelRuntime,
		cwd,
		model: faux.getModel()!,
	});
	await session.bindExtensions();
	const counter = collectionCounter();
	const once = async () => {
		counter.track(session.extensionRunner);
		await session.reload();
	};
	for (let i = 0; i < WARMUP; i++) await once();
	const before = await measure();
	for (let i = 0; i < RELOADS; i++) await once();
	const after = await measure();
	const collected = await counter.result();
	session.dispose();
	return { ...perRound(before, after, RELOADS), ...collected };
}

async function turns(mode: "plain" | "inspected") {
	const h = await createHarness();
	if (mode === "inspected") {
		h.session.inspect(() => {});
		h.session.trace({ maxEvents: 1000 });
	}
	const events = h.events as unknown[];
	const requests = h.faux.requests as unknown[];
	const run = async (count: number) => {
		for (let i = 0; i < count; i++) {
			h.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage(`done ${i}`)]);
			await h.session.prompt(`list the files ${i}`);
			// The harness records every event and the faux provider every request: not the session's memory.
			events.length = 0;
			requests.length = 0;
		}
	};
	await run(Math.max(WARMUP, 100)); // also until the trace recorder is full (1000 events, ~16 a turn)
	const entriesBefore = h.sessionManager.getEntries().length;
	const transcriptBefore = JSON.stringify(h.session.messages).length;
	const before = await measure();
	await run(TURNS);
	const after = await measure();
	const transcriptBytes = (JSON.stringify(h.session.messages).length - transcriptBefore) / TURNS;
	const transcriptObjects = countReachableObjects(h.sessionManager.getEntries().slice(entriesBefore)) / TURNS;
	h.cleanup();
	const growth = perRound(before, after, TURNS);
	return {
		...growth,
		transcriptJsonBytes: round(transcriptBytes),
		transcriptObjects: Math.round(transcriptObjects * 100) / 100,
		bytesPerTranscriptJsonByte: ratio(growth.bytes, transcriptBytes),
		objectsBeyondTranscript: Math.round((growth.objects - transcriptObjects) * 100) / 100,
	};
}

type Growth = ReturnType<typeof perRound>;

/** A per-round growth with its ratios against the two baselines. */
function versus(growth: Growth, agent: Growth, live: Growth) {
	return {
		bytes: growth.bytes,
		objects: growth.objects,
		v8CodeBytes: growth.v8CodeBytes,
		bytesVsBareAgent: ratio(growth.bytes, agent.bytes),
		objectsVsBareAgent: ratio(growth.objects, agent.objects),
		bytesVsLiveSession: ratio(growth.bytes, live.bytes),
	};
}

const root = mkdtempSync(join(tmpdir(), "settle-bench-lifetime-"));
try {
	await countLiveObjects(); // the first snapshot sets up what every later one reuses
	const agent = await bareAgent();
	const live = await liveSession();
	const disposed = await disposedSessions();
	const switched = await runtimeSwitches(root);
	const reloaded = await reloads(root);
	const plainTurns = await turns("plain");
	const inspectedTurns = await turns("inspected");
	const summary = {
		node: process.version,
		params: { SESSIONS, SWITCHES, RELOADS, TURNS, WARMUP },
		baseline: { bareAgent: agent, liveSession: live },
		perDisposedSession: {
			...versus(disposed, agent, live),
			collected: `${disposed.collected}/${disposed.registered}`,
			keptHandles: disposed.keptHandles,
		},
		perRuntimeSwitch: { ...versus(switched, agent, live), collected: `${switched.collected}/${switched.registered}` },
		perReload: {
			...versus(reloaded, agent, live),
			runnersCollected: `${reloaded.collected}/${reloaded.registered}`,
		},
		perTurn: { plain: plainTurns, inspectedAndTraced: inspectedTurns },
	};
	console.log(JSON.stringify(summary, null, 2));
} finally {
	rmSync(root, { recursive: true, force: true });
}
