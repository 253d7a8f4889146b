/**
 * What grows with a long-lived session: every user-facing operation timed on a session of SMALL
 * and of BIG entries (default 10k and 100k: tool calls, compactions, abandoned branches, labels,
 * custom entries, renames; bench/scale-fixture.ts writes them; the last compaction is at the
 * middle, so the context is half the session), and the session-folder operations on a folder of
 * FEW and of MANY files (100 and 1,000; and MANY plus the big session). Prints one JSON document
 * with, per operation, the time at each size and the ratio big/small: 10.0 is linear (the ideal
 * of anything that must read the session or its context), 1.0 flat (the ideal of per-call work
 * such as a prompt, a rename or a label). `baselineRatio` is the same run's ratio of the bare
 * read of the file (`SessionManager.open` + `buildSessionContext`, known linear): read any other
 * ratio against it — the machine's load moves both.
 *
 * Cases, each size in its own fresh process:
 * - SDK (`createAgentSessionRuntime` on the file, an instant model answering from a queue —
 *   the faux provider itself serializes every request): resume, first prompt and per-turn
 *   prompt after it, stats, context usage, fork messages, tree (`getTree` and `/tree`'s
 *   rendering), branch, rename, label, tree navigation to a deep entry and back, JSONL and HTML
 *   export, `compact()`, `runtime.fork()` from a deep user message; the heap held by the store
 *   alone, by the resumed session (a session held twice would show double) and after the fork
 *   (the replaced session must be gone);
 * - CLI (real `settle` processes from the sources, `--faux`): `--rpc --session` start to the
 *   first answer and the round trips of `get_state`, `get_messages`, `get_fork_messages`,
 *   `get_session_stats`; `-p --session` start, resume, one prompt, exit;
 * - folders: `list`, `listAll`, `findById`, `continueRecent`, and `settle --session <id-prefix>`.
 *
 * `beforeAfter` times, in the same run, the fixed operations against what they did before: a
 * fork's copy (before: the whole session structuredCloned into memory and branched there; now:
 * `getBranchedEntries`, the branch only), the lookup by id prefix (before: every session of the
 * project read in full; now: only the sessions whose header id matches), `listAll` (before: each
 * file read whole into one string, split and parsed; now: a block at a time; with its peak RSS,
 * each in three fresh processes) and a cache-warming decision (before: the whole branch read for
 * the last request's prompt size; now: a walk back from the leaf to the last answer).
 *
 * `branchWalkFloor` (the parent walk of `getBranch` building nothing) and `getTreeGc` (GC time per
 * `getTree`) say why those two grow faster than 10× from 10k to 100k entries: the bare walk grows
 * as much (memory-bound: a 100k-entry session does not fit in the CPU caches), and the tree's GC
 * (the scavenger copying the nodes being built, all still live) is a large part of the rest.
 *
 *   npx tsx bench/scale.ts              (SMALL=10000 BIG=100000 FEW=100 MANY=1000 REPS=5 override)
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";

const HERE = dirname(fileURLToPath(import.meta.url));
const SMALL = Number(process.env.SMALL ?? 10_000);
const BIG = Number(process.env.BIG ?? 100_000);
const FEW = Number(process.env.FEW ?? 100);
const MANY = Number(process.env.MANY ?? 1000);
const REPS = Number(process.env.REPS ?? 5);

const log = (message: string) => process.stderr.write(`[scale] ${message}\n`);
const round2 = (value: number) => Math.round(value * 100) / 100;
const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median milliseconds of `reps` calls (sync or async). */
async function timed(reps: number, fn: () => unknown): Promise<number> {
	const samples: number[] = [];
	for (let i = 0; i < reps; i++) {
		const t0 = performance.now();
		await fn();
		samples.push(performance.now() - t0);
	}
	return round2(median(samples));
}

/** Milliseconds of garbage collection per call, over `reps` calls. */
async function gcMsPerCall(reps: number, fn: () => unknown): Promise<number> {
	const { PerformanceObserver } = await import("node:perf_hooks");
	let total = 0;
	const observer = new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) total += entry.duration;
	});
	observer.observe({ entryTypes: ["gc"] });
	for (let i = 0; i < reps; i++) fn();
	await new Promise((resolve) => setTimeout(resolve, 20)); // gc entries are delivered asynchronously
	observer.disconnect();
	return round2(total / reps);
}

function gcFunction(): () => void {
	v8.setFlagsFromString("--expose-gc");
	return vm.runInNewContext("gc") as () => void;
}

// ---------------------------------------------------------------------------------------------
// Children

/** Every SDK operation on one big session, in a fresh process. */
async function sessionCase(file: string, cwd: string, agentDir: string, deepUserId: string) {
	const { createFauxProvider, fauxAssistantMessage } = await import("../src/llm/faux.js");
	const { instantStreamFn } = await import("../src/llm/event-stream.js");
	const { renderSessionTree } = await import("../src/cli/interactive-tree.js");
	const { InMemoryModelRuntime } = await import("../src/llm/model-runtime.js");
	const { createAgentSessionRuntimeFactory } = await import("../src/runtime/factory.js");
	const { createAgentSessionRuntime } = await import("../src/runtime/runtime.js");
	const { SessionManager } = await import("../src/store/session-manager.js");
	const gc = gcFunction();
	const heap = () => {
		for (let i = 0; i < 4; i++) gc();
		return process.memoryUsage().heapUsed;
	};
	const ms: Record<string, number> = {};
	const before: Record<string, number> = {};
	const after: Record<string, number> = {};

	// The baseline: the store reading the file and building the context (linear, measured in bench/session-store.ts).
	ms.openAndBuildContext = await timed(REPS, () => {
		const manager = SessionManager.open(file, undefined, undefined, { readOnly: true });
		manager.buildSessionContext();
		manager.close();
	});
	const heapBefore = heap();
	const storeOnly = SessionManager.open(file, undefined, undefined, { readOnly: true });
	storeOnly.buildSessionContext();
	const heapStoreOnly = heap() - heapBefore;
	storeOnly.close();

	// The faux models (the session records faux/faux-1) answered at once from a queue: the faux
	// provider itself serializes and estimates the whole context per request, which is not Settle's cost.
	const faux = createFauxProvider();
	const replies: string[] = [];
	const streamFn = instantStreamFn(() => fauxAssistantMessage(replies.shift() ?? "(no reply queued)"));
	const answer = (...texts: string[]) => replies.push(...texts);
	const factory = createAgentSessionRuntimeFactory({
		modelRuntime: () => {
			const runtime = new InMemoryModelRuntime();
			runtime.registerProvider({ provider: faux.provider, models: faux.models, streamFn, apiKey: "faux-key" });
			return runtime;
		},
		resourceLoaderOptions: { noExtensions: true },
	});
	const heapBeforeResume = heap();
	let t0 = performance.now();
	const runtime = await createAgentSessionRuntime(factory, {
		cwd,
		agentDir,
		sessionManager: SessionManager.open(file),
	});
	runtime.setRebindSession((next) => next.bindExtensions());
	await runtime.session.bindExtensions();
	ms.resume = round2(performance.now() - t0);
	const heapResumed = heap() - heapBeforeResume;
	const session = () => runtime.session;
	const manager = () => runtime.session.sessionManager;

	answer("first answer after resume");
	t0 = performance.now();
	await session().prompt("first prompt after resume");
	ms.firstPromptAfterResume = round2(performance.now() - t0);
	const perTurn: number[] = [];
	for (let i = 0; i < Math.max(REPS, 30); i++) {
		answer(`answer ${i}`);
		t0 = performance.now();
		await session().prompt(`prompt ${i}`);
		perTurn.push(performance.now() - t0);
	}
	ms.promptPerTurn = round2(median(perTurn));

	ms.getSessionStats = await timed(REPS, () => session().getSessionStats());
	ms.getContextUsage = await timed(REPS, () => session().getContextUsage());
	ms.getUserMessagesForForking = await timed(REPS, () => session().getUserMessagesForForking());
	ms.getTree = await timed(REPS, () => manager().getTree());
	ms.renderTree40Lines = await timed(REPS, () =>
		renderSessionTree(manager().getTree(), manager().getLeafId(), { maxLines: 40 }),
	);
	ms.getMessagesJson = await timed(REPS, () => JSON.stringify(session().messages));
	ms.getBranch = await timed(REPS, () => manager().getBranch());
	// Their floors: the same parent walk building nothing (memory-bound once the session outgrows the
	// CPU caches), and the GC time spent while building the tree (the scavenger copying live nodes).
	ms.branchWalkFloor = await timed(REPS, () => {
		let id = manager().getLeafId();
		let steps = 0;
		for (let entry = id ? manager().getEntry(id) : undefined; entry; entry = id ? manager().getEntry(id) : undefined) {
			steps++;
			id = entry.parentId;
		}
		return steps;
	});
	ms.getTreeGc = await gcMsPerCall(REPS, () => manager().getTree());
	ms.getEntries = await timed(REPS, () => manager().getEntries());
	ms.getLabel = await timed(REPS, () => manager().getLabel(deepUserId));
	ms.getChildren = await timed(REPS, () => manager().getChildren(deepUserId));
	ms.setSessionName = await timed(REPS, () => session().setSessionName("renamed after months"));
	ms.appendLabelChange = await timed(REPS, () => manager().appendLabelChange(deepUserId, "deep"));
	ms.cacheWarmingStatus = await timed(REPS, () => session().cacheWarmingStatus);
	// A warming decision (each refresh, each status read of an active warmer) needs the last request's
	// prompt size: before, read from the whole branch; now, walking back from the leaf to the last answer.
	const { CacheWarmer } = await import("../src/session/cache-warmer.js");
	const { SimulatedClock } = await import("xstate");
	const warmModel = { ...faux.models[0]!, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
	const warmerOf = (walk: boolean) => {
		const warmer = new CacheWarmer({
			stream: () => {
				throw new Error("no refresh in the bench");
			},
			appendUsage: () => "",
			getBranch: () => manager().getBranch(),
			getEntry: (id) => manager().getEntry(id),
			...(walk ? { getLeafId: () => manager().getLeafId() } : {}),
			getMode: () => "idle",
			clock: new SimulatedClock(),
		});
		warmer.start(
			{ model: { ...warmModel, promptCache: { short: 300, long: 3600 } }, context: { messages: [] }, options: {} },
			() => true,
		);
		return warmer;
	};
	const wholeBranchWarmer = warmerOf(false);
	const leafWalkWarmer = warmerOf(true);
	before.cacheWarmerDecision = await timed(REPS, () => wholeBranchWarmer.status);
	after.cacheWarmerDecision = await timed(REPS, () => leafWalkWarmer.status);

	const leaf = manager().getLeafId()!;
	t0 = performance.now();
	await session().navigateTree(deepUserId, { summarize: false });
	ms.navigateTreeToDeepEntry = round2(performance.now() - t0);
	t0 = performance.now();
	await session().navigateTree(leaf, { summarize: false });
	ms.navigateTreeBackToLeaf = round2(performance.now() - t0);

	const exportDir = mkdtempSync(join(tmpdir(), "settle-scale-export-"));
	try {
		ms.exportToJsonl = await timed(1, () => session().exportToJsonl(join(exportDir, "branch.jsonl")));
		ms.exportToHtml = await timed(1, () => session().exportToHtml(join(exportDir, "session.html")));
	} finally {
		rmSync(exportDir, { recursive: true, force: true });
	}

	answer("## Goal\nKeep going.", "## Prefix\nKept.");
	t0 = performance.now();
	await session().compact();
	ms.compact = round2(performance.now() - t0);

	// Before/after of the fork's copy (same run): the whole session cloned into memory and branched
	// there (what a fork did before), against the branch's entries alone (what it does now).
	const forkLeaf = manager().getEntry(deepUserId)!.parentId!;
	before.forkCopy = await timed(REPS, () => {
		const source = manager();
		const copy = SessionManager.inMemory(source.getCwd(), undefined, [source.getHeader()!, ...source.getEntries()]);
		copy.createBranchedSession(forkLeaf);
	});
	after.forkCopy = await timed(REPS, () => manager().getBranchedEntries(forkLeaf));

	t0 = performance.now();
	await runtime.fork(deepUserId);
	ms.forkFromDeepEntry = round2(performance.now() - t0);
	// The fork holds about a tenth of the session: the replaced session must be gone from the heap.
	const heapAfterFork = heap() - heapBeforeResume;

	await runtime.dispose();
	return {
		ms,
		before,
		after,
		memory: {
			heapStoreOnlyMiB: mib(heapStoreOnly),
			heapResumedMiB: mib(heapResumed),
			heapAfterForkMiB: mib(heapAfterFork),
		},
	};
}

/** The session-folder operations on a folder of `files` sessions, in a fresh process. */
async function folderCase(cwd: string, agentDir: string, sessionDir: string, oldestId: string) {
	const { SessionManager } = await import("../src/store/session-manager.js");
	const { findSessionByIdPrefix } = await import("../src/cli/session-lookup.js");
	const ms: Record<string, number> = {};
	ms.list = await timed(REPS, () => SessionManager.list(cwd, sessionDir));
	ms.listAll = await timed(REPS, () => SessionManager.listAll(sessionDir));
	ms.findByIdOldest = await timed(REPS, () => SessionManager.findById(cwd, oldestId, sessionDir));
	ms.findByIdMissing = await timed(REPS, () => SessionManager.findById(cwd, "no-such-session", sessionDir));
	ms.continueRecent = await timed(REPS, () => SessionManager.continueRecent(cwd, sessionDir).close());
	// `settle --session <id-prefix>` / `/resume <id-prefix>`: before, every session of the project
	// was read in full to match the prefix (SessionManager.list, then the filter); now only headers.
	const prefix = oldestId; // a whole id is a prefix too (v7 ids made together share their first characters)
	const lookup = { cwd, agentDir, sessionDir, latestHint: "", resumeElsewhere: () => "" };
	const before: Record<string, number> = {
		sessionByIdPrefix: await timed(REPS, async () =>
			(await SessionManager.list(cwd, sessionDir)).filter((info) => info.id.startsWith(prefix)),
		),
	};
	const after: Record<string, number> = {
		sessionByIdPrefix: await timed(REPS, () => findSessionByIdPrefix(prefix, lookup)),
	};
	// listAll: before, every file was read whole (one string), split and parsed; now a block at a time.
	const { listAllWholeFiles } = await import("../test/store/whole-file-session-info.js");
	const listAllBefore: number[] = [];
	const listAllAfter: number[] = [];
	for (let i = 0; i < REPS; i++) {
		// Alternated, so both see the same machine load.
		let t0 = performance.now();
		await listAllWholeFiles(sessionDir);
		listAllBefore.push(performance.now() - t0);
		t0 = performance.now();
		await SessionManager.listAll(sessionDir);
		listAllAfter.push(performance.now() - t0);
	}
	before.listAll = round2(median(listAllBefore));
	after.listAll = round2(median(listAllAfter));
	return { ms, before, after };
}

/**
 * The peak memory of one `listAll` of `sessionDir` in a fresh process: the process's high-water
 * RSS after the call minus before it (`before`: the whole-file reading it replaced).
 */
async function listMemoryCase(sessionDir: string, which: "before" | "after") {
	const { SessionManager } = await import("../src/store/session-manager.js");
	const { listAllWholeFiles } = await import("../test/store/whole-file-session-info.js");
	const list = which === "before" ? listAllWholeFiles : (dir: string) => SessionManager.listAll(dir);
	await list(join(sessionDir, "no-such-dir")).catch(() => []); // loads the code paths, reads nothing
	const start = process.resourceUsage().maxRSS;
	const infos = await list(sessionDir);
	return { peakRssMiB: mib((process.resourceUsage().maxRSS - start) * 1024), sessions: infos.length };
}

// As bench/cli-trace.ts: the CLI from its sources (the tsx loader's start-up is the same at every size).
const CLI = [
	"--import",
	pathToFileURL(join(HERE, "../node_modules/tsx/dist/loader.mjs")).href,
	join(HERE, "../src/cli/main.ts"),
];

/**
 * The CLI on the session file: `settle --rpc --session <file>` (time to its first answer, then
 * each query's round trip) and `settle -p --session <file> <prompt>` (a whole process: start,
 * resume, one prompt on the faux model, exit). The faux model estimates its usage from the whole
 * request, so a prompt also costs it O(context).
 */
async function cliCase(file: string, cwd: string, agentDir: string) {
	const { spawn } = await import("node:child_process");
	const { createInterface } = await import("node:readline");
	const env = { ...process.env, SETTLE_AGENT_DIR: agentDir };
	const ms: Record<string, number> = {};
	const server = spawn(process.execPath, [...CLI, "--faux", "--rpc", "--session", file], {
		cwd,
		env,
		stdio: ["pipe", "pipe", "inherit"],
	});
	const waiting = new Map<string, (line: Record<string, unknown>) => void>();
	createInterface({ input: server.stdout! }).on("line", (line) => {
		const message = JSON.parse(line) as Record<string, unknown>;
		if (message.type === "response") waiting.get(String(message.id))?.(message);
	});
	let next = 0;
	const ask = (type: string) =>
		new Promise<Record<string, unknown>>((resolve, reject) => {
			const id = `q${next++}`;
			waiting.set(id, (message) => (message.success ? resolve(message) : reject(new Error(JSON.stringify(message)))));
			server.stdin!.write(`${JSON.stringify({ id, type })}\n`);
		});
	let t0 = performance.now();
	await ask("get_state");
	ms.rpcStartToFirstAnswer = round2(performance.now() - t0);
	for (const type of ["get_state", "get_messages", "get_fork_messages", "get_session_stats"]) {
		ms[`rpc_${type}`] = await timed(REPS, () => ask(type));
	}
	server.stdin!.end();
	await new Promise((resolve) => server.once("exit", resolve));
	t0 = performance.now();
	const printed = spawnSync(process.execPath, [...CLI, "--faux", "-p", "--session", file, "one more thing"], {
		cwd,
		env,
		encoding: "utf8",
	});
	if (printed.status !== 0) throw new Error(`settle -p failed: ${printed.stderr}`);
	ms.printModeResumeAndPrompt = round2(performance.now() - t0);
	return { ms };
}

function child<T>(args: string[]): T {
	const run = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), ...args], {
		cwd: join(HERE, ".."),
		encoding: "utf8",
		stdio: ["ignore", "pipe", "inherit"],
		maxBuffer: 64 << 20,
	});
	if (run.status !== 0) throw new Error(`child ${args.join(" ")} exited with ${run.status ?? run.signal}`);
	return JSON.parse(run.stdout.trim().split("\n").pop()!) as T;
}

/** big/small per operation, next to the ideal (`linear` for session ops, `flat` where one would expect O(1)). */
function ratios(small: Record<string, number>, big: Record<string, number>) {
	const out: Record<string, { small: number; big: number; ratio: number }> = {};
	for (const name of Object.keys(small)) {
		out[name] = { small: small[name]!, big: big[name]!, ratio: round2(big[name]! / Math.max(small[name]!, 0.01)) };
	}
	return out;
}

interface Compared {
	before: Record<string, number>;
	after: Record<string, number>;
}
const pair = (result: Compared, name: string) => ({ before: result.before[name]!, after: result.after[name]! });
const beforeAfter = (small: Compared, big: Compared, name: string) => ({
	small: pair(small, name),
	big: pair(big, name),
	ratioBefore: round2(big.before[name]! / small.before[name]!),
	ratioAfter: round2(big.after[name]! / small.after[name]!),
});

async function main() {
	const root = mkdtempSync(join(tmpdir(), "settle-scale-"));
	try {
		const { generateScaleSession, generateSessionFolder } = await import("./scale-fixture.js");
		const cwd = join(root, "project");
		const agentDir = join(root, "agent");
		mkdirSync(cwd, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
		// Compaction and retry off: the measured prompts must not compact the long context on their own.
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({ compaction: { enabled: false }, retry: { enabled: false } }),
		);
		type SessionResult = Awaited<ReturnType<typeof sessionCase>>;
		const sessions: Record<string, SessionResult & { entries: number; fileMiB: number }> = {};
		let bigFile = "";
		for (const [name, entries] of [
			["small", SMALL],
			["big", BIG],
		] as const) {
			log(`generating a session of ${entries} entries`);
			const generated = generateScaleSession(cwd, join(root, `sessions-${name}`), entries);
			// The CLI first: the SDK case compacts and forks the session at its end.
			log(`measuring the CLI on ${generated.file}`);
			const cli = child<{ ms: Record<string, number> }>(["--case=cli", generated.file, cwd, agentDir]);
			log(`measuring ${generated.file}`);
			const result = child<SessionResult>(["--case=session", generated.file, cwd, agentDir, generated.deepUserId]);
			sessions[name] = {
				...result,
				ms: { ...result.ms, ...cli.ms },
				entries: generated.entries,
				fileMiB: mib(statSync(generated.file).size),
			};
			bigFile = generated.file;
		}
		type FolderResult = Awaited<ReturnType<typeof folderCase>>;
		const folders: Record<string, FolderResult> = {};
		for (const [name, files, withBig] of [
			["few", FEW, false],
			["many", MANY, false],
			["manyWithBigSession", MANY, true],
		] as const) {
			log(`generating a folder of ${files} sessions${withBig ? " and the big one" : ""}`);
			const dir = join(root, `folder-${name}`);
			const { ids } = generateSessionFolder(cwd, dir, files);
			if (withBig) copyFileSync(bigFile, join(dir, basename(bigFile)));
			folders[name] = child<FolderResult>(["--case=folder", cwd, agentDir, dir, ids[0]!]);
		}
		const manyWithBig = join(root, "folder-manyWithBigSession");
		type Memory = Awaited<ReturnType<typeof listMemoryCase>>;
		const listMemory = (which: string) =>
			median([0, 1, 2].map(() => child<Memory>(["--case=list-memory", manyWithBig, which]).peakRssMiB));
		const listAllPeakRssMiB = { before: listMemory("before"), after: listMemory("after") };
		const small = sessions.small!;
		const big = sessions.big!;
		console.log(
			JSON.stringify(
				{
					node: process.version,
					machine: { cpus: cpus().length, loadavg: loadavg().map((x) => Number(x.toFixed(2))) },
					sessions: {
						entries: { small: small.entries, big: big.entries, ideal: round2(big.entries / small.entries) },
						fileMiB: { small: small.fileMiB, big: big.fileMiB },
						baselineRatio: round2(big.ms.openAndBuildContext! / small.ms.openAndBuildContext!),
						operations: ratios(small.ms, big.ms),
						memory: { small: small.memory, big: big.memory },
					},
					folders: {
						files: { few: FEW, many: MANY, ideal: round2(MANY / FEW) },
						operations: ratios(folders.few!.ms, folders.many!.ms),
						withBigSession: folders.manyWithBigSession!.ms,
					},
					beforeAfter: {
						forkCopy: beforeAfter(small, big, "forkCopy"),
						cacheWarmerDecision: beforeAfter(small, big, "cacheWarmerDecision"),
						sessionByIdPrefix: {
							few: pair(folders.few!, "sessionByIdPrefix"),
							many: pair(folders.many!, "sessionByIdPrefix"),
							manyWithBigSession: pair(folders.manyWithBigSession!, "sessionByIdPrefix"),
						},
						listAll: {
							few: pair(folders.few!, "listAll"),
							many: pair(folders.many!, "listAll"),
							manyWithBigSession: pair(folders.manyWithBigSession!, "listAll"),
							manyWithBigSessionPeakRssMiB: listAllPeakRssMiB,
						},
					},
				},
				null,
				2,
			),
		);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

const [caseArg, ...rest] = process.argv.slice(2);
if (caseArg === "--case=session") {
	const [file, cwd, agentDir, deepUserId] = rest as [string, string, string, string];
	console.log(JSON.stringify(await sessionCase(file, cwd, agentDir, deepUserId)));
	process.exit(0);
} else if (caseArg === "--case=cli") {
	const [file, cwd, agentDir] = rest as [string, string, string];
	console.log(JSON.stringify(await cliCase(file, cwd, agentDir)));
	process.exit(0);
} else if (caseArg === "--case=list-memory") {
	const [dir, which] = rest as [string, "before" | "after"];
	console.log(JSON.stringify(await listMemoryCase(dir, which)));
	process.exit(0);
} else if (caseArg === "--case=folder") {
	const [cwd, agentDir, dir, oldestId] = rest as [string, string, string, string];
	console.log(JSON.stringify(await folderCase(cwd, agentDir, dir, oldestId)));
	process.exit(0);
} else {
	await main();
}
