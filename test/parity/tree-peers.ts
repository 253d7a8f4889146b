/**
 * Runtime peers for the tree / replacement differential: pi 0.73.1's `createAgentSessionRuntime`
 * and Settle's, each built with a factory that makes services for the target's cwd and a session on
 * them (what both CLIs do), the same faux model, the same custom tools and inline extensions, real
 * session files in one session dir. Every session the runtime installs is bound by the host (the
 * rebind callback), which also subscribes the recorder, so events of all sessions land in one record
 * with a `session <n>` marker at each replacement.
 *
 * The shared pieces (faux dispensers, reply builders, tools adapter, recorder) come from peers.ts.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import * as pi from "@mariozechner/pi-coding-agent";
import { SimulatedClock } from "xstate";
import { createFauxProvider } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import { createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	type AnyEvent,
	FAUX_KEY,
	fauxModels,
	fauxSteps,
	type ModelRequest,
	makeTempDirs,
	type Peer,
	type PeerName,
	piBuilders,
	piTool,
	type Recorded,
	readFileEntries,
	recorder,
	type SessionLike,
	type SharedExtension,
	type SharedTool,
	type Step,
	settleBuilders,
	type TempDirs,
	TOKEN_SIZE,
} from "./peers.js";

/** The session-manager surface the tree scenarios use (same names on both products). */
export interface TreeSessionManager {
	getEntries(): Record<string, unknown>[];
	getEntry(id: string): Record<string, unknown> | undefined;
	getBranch(): Record<string, unknown>[];
	getLeafId(): string | null;
	appendLabelChange(targetId: string, label: string | undefined): string;
	getSessionFile(): string | undefined;
	getSessionId(): string;
	getCwd(): string;
	getHeader(): Record<string, unknown> | null;
	buildSessionContext(): { messages: unknown[]; model?: unknown; thinkingLevel?: unknown };
}

export interface NavigateOptions {
	summarize?: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
}

/** The session surface the tree scenarios use. */
export interface TreeSession extends SessionLike {
	navigateTree(targetId: string, options?: NavigateOptions): Promise<Record<string, unknown>>;
	abortBranchSummary(): void;
	readonly sessionManager: TreeSessionManager;
}

/** The runtime surface (pi's `AgentSessionRuntime` and Settle's have the same names). */
export interface RuntimeLike {
	readonly session: TreeSession;
	readonly cwd: string;
	newSession(options?: object): Promise<{ cancelled: boolean }>;
	switchSession(path: string, options?: object): Promise<{ cancelled: boolean }>;
	fork(
		entryId: string,
		options?: { position?: "before" | "at"; withSession?: (ctx: never) => Promise<void> },
	): Promise<{ cancelled: boolean; selectedText?: string }>;
	importFromJsonl(path: string, cwdOverride?: string): Promise<{ cancelled: boolean }>;
	dispose(): Promise<void>;
}

export interface RuntimePeerOptions {
	extensions: SharedExtension[];
	customTools: SharedTool[];
	/** Written to `<agentDir>/settings.json` for both products' services. */
	settings?: Record<string, unknown>;
	/** Extension files each product's own loader loads (`additionalExtensionPaths`). */
	extensionPaths?: string[];
	/** Settle's runtime: the loader's `extensionAliases` (default: the sources', `defaultExtensionAliases()`). */
	settleExtensionAliases?: Record<string, string>;
	/** A UI every installed session binds (`bindExtensions({uiContext})`). */
	uiContext?: unknown;
	/** Prepares the temp folders before the runtime starts (a git repo in `cwd`, …). */
	setup?: (dirs: TempDirs) => void;
	/** Extension flags as the CLI passes them (`--name value`), given to both products' services. */
	extensionFlagValues?: Map<string, string | boolean>;
	/** A session kept in memory only (`--no-session`): no file in the session dir. */
	inMemory?: boolean;
}

/** A runtime of one peer, recording every public event of every session it installs. */
export interface RuntimePeer {
	readonly name: PeerName;
	readonly runtime: RuntimeLike;
	readonly dirs: TempDirs;
	readonly recorded: Recorded[];
	readonly requests: ModelRequest[];
	/** The current session. */
	readonly session: TreeSession;
	script(steps: Step[]): void;
	mark(label: string): void;
	/** Resolves once the current session is idle and its events are delivered. */
	quiesce(): Promise<void>;
	/** The `.jsonl` files of the session dir, sorted by name. */
	sessionFiles(): string[];
	fileEntries(file: string): Record<string, unknown>[];
	cleanup(): Promise<void>;
}

function writeSettings(dirs: TempDirs, settings: Record<string, unknown> | undefined): void {
	mkdirSync(dirs.agentDir, { recursive: true });
	writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify(settings ?? {}));
}

function listSessionFiles(dir: string): string[] {
	return readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.sort()
		.map((name) => join(dir, name));
}

const RESOURCE_OPTIONS = {
	noExtensions: true,
	noSkills: true,
	noPromptTemplates: true,
	noContextFiles: true,
} as const;

/**
 * Binds a new session: records its events and gives its extensions the host's command actions
 * (so an extension command's `ctx.fork` / `ctx.newSession` reaches the runtime, as in both CLIs).
 */
interface Binder {
	sessions: number;
	bind(session: TreeSession): Promise<void>;
}

async function createPiRuntimePeer(options: RuntimePeerOptions, dirs: TempDirs): Promise<RuntimePeer> {
	writeSettings(dirs, options.settings);
	const faux = piAi.registerFauxProvider({ provider: "faux", tokenSize: TOKEN_SIZE, models: fauxModels(undefined) });
	const authStorage = pi.AuthStorage.inMemory();
	authStorage.setRuntimeApiKey("faux", FAUX_KEY);
	const modelRegistry = pi.ModelRegistry.inMemory(authStorage);
	const factory: pi.CreateAgentSessionRuntimeFactory = async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
		const services = await pi.createAgentSessionServices({
			cwd,
			agentDir,
			authStorage,
			modelRegistry,
			...(options.extensionFlagValues ? { extensionFlagValues: options.extensionFlagValues } : {}),
			resourceLoaderOptions: {
				...RESOURCE_OPTIONS,
				noThemes: true,
				extensionFactories: options.extensions as unknown as pi.ExtensionFactory[],
				...(options.extensionPaths ? { additionalExtensionPaths: options.extensionPaths } : {}),
			},
		});
		const created = await pi.createAgentSessionFromServices({
			services,
			sessionManager,
			...(sessionStartEvent ? { sessionStartEvent } : {}),
			model: faux.getModel(),
			thinkingLevel: "off",
			customTools: options.customTools.map(piTool),
		});
		return { ...created, services, diagnostics: services.diagnostics };
	};
	const runtime = await pi.createAgentSessionRuntime(factory, {
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		sessionManager: options.inMemory
			? pi.SessionManager.inMemory(dirs.cwd)
			: pi.SessionManager.create(dirs.cwd, dirs.sessionDir),
	});
	const rec = recorder();
	const requests: ModelRequest[] = [];
	const binder: Binder = {
		sessions: 0,
		async bind(session) {
			rec.mark(`session ${++binder.sessions}`);
			session.subscribe((event: AnyEvent) => rec.onEvent(event));
			await (session as unknown as pi.AgentSession).bindExtensions({
				...(options.uiContext ? { uiContext: options.uiContext as pi.ExtensionUIContext } : {}),
				commandContextActions: {
					waitForIdle: () => (session as unknown as pi.AgentSession).agent.waitForIdle(),
					newSession: (o) => runtime.newSession(o),
					// The runtime's whole result, `selectedText` included (pi's interactive host keeps only
					// `cancelled` and puts the text into its editor; Settle's ctx.fork returns both).
					fork: (id, o) => runtime.fork(id, o),
					navigateTree: (id, o) => runtime.session.navigateTree(id, o),
					switchSession: (path, o) => runtime.switchSession(path, o),
					reload: () => runtime.session.reload(),
				},
			});
		},
	};
	runtime.setRebindSession((session) => binder.bind(session as unknown as TreeSession));
	await binder.bind(runtime.session as unknown as TreeSession);
	const current = () => runtime.session as unknown as pi.AgentSession;
	const drainEvents = async () => {
		const internals = () => current() as unknown as { _agentEventQueue: Promise<void> };
		let queue: Promise<void>;
		do {
			queue = internals()._agentEventQueue;
			await queue;
		} while (queue !== internals()._agentEventQueue);
	};
	const peer: RuntimePeer = {
		name: "pi",
		runtime: runtime as unknown as RuntimeLike,
		dirs,
		recorded: rec.recorded,
		requests,
		get session() {
			return current() as unknown as TreeSession;
		},
		script: (steps) =>
			faux.setResponses(
				fauxSteps(
					() => peer as unknown as Peer,
					requests,
					steps,
					piBuilders,
					(f) => faux.appendResponses([f as never]),
				) as never,
			),
		mark: rec.mark,
		async quiesce() {
			await current().agent.waitForIdle();
			await drainEvents();
		},
		sessionFiles: () => listSessionFiles(dirs.sessionDir),
		fileEntries: readFileEntries,
		async cleanup() {
			await runtime.dispose();
			faux.unregister();
			rmSync(dirs.root, { recursive: true, force: true });
		},
	};
	return peer;
}

async function createSettleRuntimePeer(options: RuntimePeerOptions, dirs: TempDirs): Promise<RuntimePeer> {
	writeSettings(dirs, options.settings);
	const faux = createFauxProvider({ tokenSize: TOKEN_SIZE, models: fauxModels(undefined) });
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const factory = createAgentSessionRuntimeFactory({
		modelRuntime,
		model: faux.getModel()!,
		thinkingLevel: "off",
		customTools: options.customTools as never,
		...(options.extensionFlagValues ? { extensionFlagValues: options.extensionFlagValues } : {}),
		resourceLoaderOptions: {
			...RESOURCE_OPTIONS,
			extensionFactories: options.extensions,
			...(options.extensionPaths ? { additionalExtensionPaths: options.extensionPaths } : {}),
			...(options.settleExtensionAliases ? { extensionAliases: options.settleExtensionAliases } : {}),
		},
		clock: new SimulatedClock(),
	});
	const runtime = await createAgentSessionRuntime(factory, {
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		sessionManager: options.inMemory
			? SessionManager.inMemory(dirs.cwd)
			: SessionManager.create(dirs.cwd, dirs.sessionDir),
	});
	const rec = recorder();
	const requests: ModelRequest[] = [];
	const binder: Binder = {
		sessions: 0,
		async bind(session) {
			rec.mark(`session ${++binder.sessions}`);
			session.subscribe((event: AnyEvent) => rec.onEvent(event));
			// Settle's session reaches the runtime through setReplacementActions (the runtime wires it).
			await (session as unknown as AgentSession).bindExtensions(
				options.uiContext ? { uiContext: options.uiContext as never } : {},
			);
		},
	};
	runtime.setRebindSession((session) => binder.bind(session as unknown as TreeSession));
	await binder.bind(runtime.session as unknown as TreeSession);
	const peer: RuntimePeer = {
		name: "settle",
		runtime: runtime as unknown as RuntimeLike,
		dirs,
		recorded: rec.recorded,
		requests,
		get session() {
			return runtime.session as unknown as TreeSession;
		},
		script: (steps) =>
			faux.setResponses(
				fauxSteps(
					() => peer as unknown as Peer,
					requests,
					steps,
					settleBuilders,
					(f) => faux.appendResponses([f as never]),
				) as never,
			),
		mark: rec.mark,
		async quiesce() {
			await runtime.session.waitForIdle();
			await new Promise<void>((resolve) => setImmediate(resolve));
		},
		sessionFiles: () => listSessionFiles(dirs.sessionDir),
		fileEntries: readFileEntries,
		async cleanup() {
			await runtime.dispose();
			rmSync(dirs.root, { recursive: true, force: true });
		},
	};
	return peer;
}

export function createRuntimePeer(name: PeerName, options: RuntimePeerOptions): Promise<RuntimePeer> {
	const dirs = makeTempDirs();
	options.setup?.(dirs);
	return name === "pi" ? createPiRuntimePeer(options, dirs) : createSettleRuntimePeer(options, dirs);
}

/** Runs `scenario` on pi's runtime, then on Settle's; both are disposed even when it throws. */
export async function onBothRuntimes<T>(
	options: (name: PeerName) => RuntimePeerOptions,
	scenario: (peer: RuntimePeer) => Promise<T>,
): Promise<{ pi: T; settle: T }> {
	const results: Partial<Record<PeerName, T>> = {};
	for (const name of ["pi", "settle"] as const) {
		const peer = await createRuntimePeer(name, options(name));
		try {
			results[name] = await scenario(peer);
		} finally {
			await peer.cleanup();
		}
	}
	return results as { pi: T; settle: T };
}
