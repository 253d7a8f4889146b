/**
 * Runtime test kit: a temp workspace (copies of the fixture projects, an agent dir), a faux model
 * served through a fresh model runtime per services, a factory that records every session it
 * builds, and an inline extension that logs the session events each session instance sees.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import type { ExtensionAPI, ExtensionFactory } from "../../src/extensions/types.js";
import { type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { type AgentSessionRuntimeFactoryOptions, createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import {
	type AgentSessionRuntime,
	type AgentSessionRuntimeFactory,
	type AgentSessionRuntimeResult,
	createAgentSessionRuntime,
} from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";

export const FIXTURE_PROJECTS = fileURLToPath(new URL("../fixtures/runtime/projects", import.meta.url));

/** A temp dir with `projects/alpha`, `projects/beta` and an agent dir. */
export interface Workspace {
	root: string;
	agentDir: string;
	alpha: string;
	beta: string;
	/** A session dir per project (what `SessionManager.create(cwd, dir)` gets in these tests). */
	sessionDir(project: string): string;
	cleanup(): void;
}

export function createWorkspace(): Workspace {
	const root = mkdtempSync(join(tmpdir(), "settle-runtime-"));
	cpSync(FIXTURE_PROJECTS, join(root, "projects"), { recursive: true });
	const agentDir = join(root, "agent");
	mkdirSync(agentDir, { recursive: true });
	return {
		root,
		agentDir,
		alpha: join(root, "projects", "alpha"),
		beta: join(root, "projects", "beta"),
		sessionDir: (project) => join(agentDir, "sessions", project.split("/").pop()!),
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** What {@link runtimePerTest} gives a test file; each thing it makes lasts one test. */
export interface RuntimePerTest {
	/** A new {@link createWorkspace}, removed after the test. */
	workspace(): Workspace;
	/** The runtime `starting` resolves to, disposed after the test (before the workspace is removed). */
	runtime(starting: Promise<AgentSessionRuntime>): Promise<AgentSessionRuntime>;
	/** The runtime this test started last (for a test whose helper started it). */
	readonly current: AgentSessionRuntime;
}

/** For a test file's top level (or a describe's): a workspace and a runtime per test, cleaned up after it. */
export function runtimePerTest(): RuntimePerTest {
	let ws: Workspace | undefined;
	let runtime: AgentSessionRuntime | undefined;
	afterEach(async () => {
		await runtime?.dispose();
		runtime = undefined;
		ws?.cleanup();
		ws = undefined;
	});
	return {
		workspace: () => {
			ws = createWorkspace();
			return ws;
		},
		runtime: async (starting) => {
			runtime = await starting;
			return runtime;
		},
		get current() {
			if (!runtime) throw new Error("no runtime started in this test");
			return runtime;
		},
	};
}

/**
 * The fixture projects copied once, for a property whose runs only read them: each run takes a
 * {@link Workspace} of its own (a fresh root and agent dir, so fresh session files, locks and
 * exports) on these shared projects, and its `cleanup` removes only that. Copying and removing the
 * projects per run was most of such a property's time (a directory made or removed costs a
 * millisecond or more on a busy disk).
 */
export interface SharedProjects {
	/** A workspace of its own on the shared projects. */
	workspace(): Workspace;
	/** Removes the projects and every workspace not yet cleaned up. */
	cleanup(): void;
}

export function sharedProjects(): SharedProjects {
	const root = mkdtempSync(join(tmpdir(), "settle-runtime-shared-"));
	cpSync(FIXTURE_PROJECTS, join(root, "projects"), { recursive: true });
	return {
		workspace: () => {
			const runRoot = mkdtempSync(join(root, "run-"));
			const agentDir = join(runRoot, "agent");
			mkdirSync(agentDir);
			return {
				root: runRoot,
				agentDir,
				alpha: join(root, "projects", "alpha"),
				beta: join(root, "projects", "beta"),
				sessionDir: (project) => join(agentDir, "sessions", project.split("/").pop()!),
				cleanup: () => rmSync(runRoot, { recursive: true, force: true }),
			};
		},
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** Lines the fixture projects' extensions push (`alpha:session_start:startup:<cwd>`). */
export function installFixtureLog(): string[] {
	const log: string[] = [];
	(globalThis as { __settleRuntimeLog?: string[] }).__settleRuntimeLog = log;
	return log;
}

/** A fresh model runtime serving `faux` (what the factory builds per services). */
export function fauxModelRuntime(faux: FauxProvider): InMemoryModelRuntime {
	const runtime = new InMemoryModelRuntime();
	runtime.registerFauxProvider(faux);
	return runtime;
}

/**
 * An inline extension that records, per session instance (`#1`, `#2`, …), the session events it
 * sees: `#2 session_start new prev=<file>`.
 */
export function sessionEventRecorder(log: string[]): ExtensionFactory {
	let instances = 0;
	return (pi: ExtensionAPI) => {
		const tag = `#${++instances}`;
		pi.on("session_start", (event) => {
			log.push(
				`${tag} session_start ${event.reason}${event.previousSessionFile ? ` prev=${event.previousSessionFile}` : ""}`,
			);
		});
		pi.on("session_before_switch", (event) => {
			log.push(`${tag} session_before_switch ${event.reason} target=${event.targetSessionFile ?? "-"}`);
		});
		pi.on("session_before_fork", (event) => {
			log.push(`${tag} session_before_fork ${event.entryId} ${event.position}`);
		});
		pi.on("session_shutdown", (event) => {
			log.push(`${tag} session_shutdown ${event.reason} target=${event.targetSessionFile ?? "-"}`);
		});
	};
}

/** A factory that records every result it built (to check that replaced ones were stopped). */
export interface RecordingFactory {
	factory: AgentSessionRuntimeFactory;
	built: AgentSessionRuntimeResult[];
	/** Make the next `n` calls throw (`n` = 1 by default). */
	failNext(error?: Error, n?: number): void;
}

export function recordingFactory(options: AgentSessionRuntimeFactoryOptions): RecordingFactory {
	const inner = createAgentSessionRuntimeFactory(options);
	const built: AgentSessionRuntimeResult[] = [];
	let failures: Error[] = [];
	return {
		built,
		failNext(error = new Error("factory failed"), n = 1) {
			failures = Array.from({ length: n }, () => error);
		},
		factory: async (target) => {
			const failure = failures.shift();
			if (failure) throw failure;
			const result = await inner(target);
			built.push(result);
			return result;
		},
	};
}

/**
 * A recording factory whose sessions load `extension` only (no discovery) and answer from `faux`;
 * timers run on `clock` when one is given (the property tests' SimulatedClock).
 */
export function inlineExtensionFactory(
	faux: FauxProvider,
	extension: ExtensionFactory,
	clock?: AgentSessionRuntimeFactoryOptions["clock"],
): RecordingFactory {
	return recordingFactory({
		modelRuntime: () => fauxModelRuntime(faux),
		...(clock ? { clock } : {}),
		resourceLoaderOptions: { extensionFactories: [extension], noExtensions: true },
	});
}

/** Starts a runtime on a new session file in `cwd`, binding extensions on every (re)bind. */
export async function startRuntime(
	factory: AgentSessionRuntimeFactory,
	ws: Workspace,
	cwd: string,
	sessionManager: SessionManager = SessionManager.create(cwd, ws.sessionDir(cwd)),
): Promise<AgentSessionRuntime> {
	const runtime = await createAgentSessionRuntime(factory, { cwd, agentDir: ws.agentDir, sessionManager });
	runtime.setRebindSession((session: AgentSession) => session.bindExtensions());
	await runtime.session.bindExtensions();
	return runtime;
}

/**
 * Starts a runtime answering from `faux` in `cwd` that loads no extensions, trusts the project and
 * reads its own empty home folder under `ws.root` (the machine's global context files stay out).
 */
export async function startRuntimeWithEmptyHome(
	faux: FauxProvider,
	ws: Workspace,
	cwd: string,
): Promise<AgentSessionRuntime> {
	const home = join(ws.root, "home");
	mkdirSync(home, { recursive: true });
	const { factory } = recordingFactory({
		modelRuntime: () => fauxModelRuntime(faux),
		resourceLoaderOptions: { noExtensions: true, trustProject: true, homeDir: home },
	});
	return startRuntime(factory, ws, cwd);
}

/** Prompts `session` and checks the faux model answered (the session is usable). */
export async function assertUsable(session: AgentSession, faux: FauxProvider, text = "still there?"): Promise<string> {
	faux.setResponses([fauxAssistantMessage(`yes: ${text}`)]);
	await session.prompt(text);
	const last = session.messages.at(-1);
	if (last?.role !== "assistant" || last.stopReason !== "stop") {
		throw new Error(`the session did not answer: ${JSON.stringify(last)}`);
	}
	const block = last.content[0];
	return block?.type === "text" ? block.text : "";
}

/** Every `*.lock` directory under `dir` (session write locks left behind). */
export function locksUnder(dir: string): string[] {
	const found: string[] = [];
	const walk = (current: string) => {
		if (!existsSync(current)) return;
		for (const name of readdirSync(current)) {
			const path = join(current, name);
			if (name.endsWith(".lock")) found.push(path);
			else if (statSync(path).isDirectory()) walk(path);
		}
	};
	walk(dir);
	return found.sort();
}

/** Every `.jsonl` session file under `dir`. */
export function sessionFilesUnder(dir: string): string[] {
	const found: string[] = [];
	const walk = (current: string) => {
		if (!existsSync(current)) return;
		for (const name of readdirSync(current)) {
			const path = join(current, name);
			if (statSync(path).isDirectory()) walk(path);
			else if (name.endsWith(".jsonl")) found.push(path);
		}
	};
	walk(dir);
	return found.sort();
}

/** A user message entry's id in `session` whose text contains `text`. */
export function userEntryId(session: AgentSession, text: string): string {
	const entry = session.sessionManager
		.getEntries()
		.find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes(text));
	if (!entry) throw new Error(`no user entry with "${text}"`);
	return entry.id;
}

/** The runtime machine's states, from `active` back to `active`, for one replacement no extension cancels. */
export const REPLACEMENT_STATES = [
	"active",
	"beforeSwitch",
	"opening",
	"creating",
	"settlingCurrent",
	"shuttingDown",
	"invalidating",
	"disposing",
	"rebinding",
	"active",
] as const;

/** The runtime machine's states after `active` when the runtime is disposed. */
export const DISPOSAL_STATES = ["settlingCurrent", "shuttingDown", "invalidating", "disposing", "disposed"] as const;

/**
 * A recording factory whose sessions answer with `faux` and log their session events into `log`,
 * with `extra` extensions after the recorder (no extension discovery).
 */
export function loggingFactory(
	faux: FauxProvider,
	log: string[],
	extra: ((pi: ExtensionAPI) => void)[] = [],
): RecordingFactory {
	return recordingFactory({
		modelRuntime: () => fauxModelRuntime(faux),
		resourceLoaderOptions: { extensionFactories: [sessionEventRecorder(log), ...extra], noExtensions: true },
	});
}

/** A session file of project `cwd` with one exchange, written and closed; `log` is cleared after. */
export async function writeClosedSession(
	rec: RecordingFactory,
	ws: Workspace,
	faux: FauxProvider,
	log: string[],
	cwd: string,
	text: string,
): Promise<string> {
	const other = await startRuntime(rec.factory, ws, cwd);
	faux.setResponses([fauxAssistantMessage(`answer to ${text}`)]);
	await other.session.prompt(text);
	const file = other.session.sessionFile!;
	await other.dispose();
	log.length = 0;
	return file;
}

/** How one call of an interleaving property ended: `skipped` when it returned nothing to wait for. */
export interface CallOutcome {
	settled: boolean;
	error?: unknown;
	skipped?: boolean;
}

/** Records on `outcome` how `promise` ends (never rejects); a call that returned nothing is skipped. */
export function recordOutcome(outcome: CallOutcome, promise: Promise<unknown> | undefined): Promise<void> {
	if (!promise) {
		outcome.skipped = true;
		outcome.settled = true;
		return Promise.resolve();
	}
	return promise.then(
		() => {
			outcome.settled = true;
		},
		(error: unknown) => {
			outcome.settled = true;
			outcome.error = error;
		},
	);
}

/** Lets the machines reach the state a run or handler holds them in: `rounds` event-loop turns, no time passes. */
export async function settleMicrotasks(rounds = 20): Promise<void> {
	for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Disposes `runtime` (when there is one) on a simulated `clock`: moves it a minute at a time, at most
 * 20 times, while a bounded wait (a stuck handler, a hung run) holds the dispose.
 */
export async function disposeOnClock(
	runtime: AgentSessionRuntime | undefined,
	clock: { increment(ms: number): void },
): Promise<void> {
	let disposed = false;
	const disposing = runtime?.dispose().then(() => (disposed = true));
	for (let i = 0; disposing && !disposed && i < 20; i++) {
		clock.increment(60_000);
		await settleMicrotasks();
	}
	await disposing;
}
