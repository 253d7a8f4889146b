/**
 * Failure injection for runtime replacements, shared by the invariant-10 property test and the
 * machine-coverage test: a world (a runtime in project alpha with two prompts, a finished session
 * of project beta) and one replacement run with a chosen fault arranged for real.
 */
import { copyFileSync, cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import type { InspectionEvent } from "xstate";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntimeFactoryOptions } from "../../src/runtime/factory.js";
import { type AgentSessionRuntime, createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	assertUsable,
	createWorkspace,
	FIXTURE_PROJECTS,
	fauxModelRuntime,
	recordingFactory,
	startRuntime,
	type Workspace,
} from "./helpers.js";

export type Kind = "new" | "switch" | "fork" | "import";
export type Fault =
	| "none"
	| "cancel"
	| "factoryThrows"
	| "setupThrows"
	| "beforeSwitchHandlerThrows"
	| "shutdownHandlerThrows"
	| "beforeInvalidateThrows"
	| "rebindThrows"
	| "withSessionThrows"
	| "targetLocked"
	| "targetIsDirectory"
	| "missingCwd";

export const FAULTS_BY_KIND: Record<Kind, Fault[]> = {
	new: [
		"none",
		"cancel",
		"factoryThrows",
		"setupThrows",
		"beforeSwitchHandlerThrows",
		"shutdownHandlerThrows",
		"beforeInvalidateThrows",
		"rebindThrows",
		"withSessionThrows",
	],
	switch: [
		"none",
		"cancel",
		"factoryThrows",
		"beforeSwitchHandlerThrows",
		"shutdownHandlerThrows",
		"beforeInvalidateThrows",
		"rebindThrows",
		"withSessionThrows",
		"targetLocked",
		"targetIsDirectory",
		"missingCwd",
	],
	fork: [
		"none",
		"cancel",
		"factoryThrows",
		"beforeSwitchHandlerThrows",
		"shutdownHandlerThrows",
		"beforeInvalidateThrows",
		"rebindThrows",
		"withSessionThrows",
	],
	import: [
		"none",
		"cancel",
		"factoryThrows",
		"beforeSwitchHandlerThrows",
		"shutdownHandlerThrows",
		"beforeInvalidateThrows",
		"rebindThrows",
		"targetIsDirectory",
		"missingCwd",
	],
};

/** What the runtime must end with: the new session, or the old one untouched. */
export const REPLACES: Record<Fault, boolean> = {
	none: true,
	cancel: false,
	factoryThrows: false,
	setupThrows: false,
	// Extension handler errors are isolated (reported, dispatch goes on), as in pi.
	beforeSwitchHandlerThrows: true,
	shutdownHandlerThrows: true,
	beforeInvalidateThrows: false,
	// After the commit point there is no way back: the new session is in place, the caller gets the error.
	rebindThrows: true,
	withSessionThrows: true,
	targetLocked: false,
	targetIsDirectory: false,
	missingCwd: false,
};

export const REJECTS: Record<Fault, boolean> = {
	none: false,
	cancel: false,
	factoryThrows: true,
	setupThrows: true,
	beforeSwitchHandlerThrows: false,
	shutdownHandlerThrows: false,
	beforeInvalidateThrows: true,
	rebindThrows: true,
	withSessionThrows: true,
	targetLocked: true,
	targetIsDirectory: true,
	missingCwd: true,
};

export interface Step {
	kind: Kind;
	fault: Fault;
}

export const stepArbitrary: fc.Arbitrary<Step> = fc
	.constantFrom<Kind>("new", "switch", "fork", "import")
	.chain((kind) => fc.record({ kind: fc.constant(kind), fault: fc.constantFrom(...FAULTS_BY_KIND[kind]) }));

/** Switches the extension and host failures on and off. */
export interface Control {
	/** The before-switch / before-fork handlers wait for this first (to act while a replacement runs). */
	hold?: Promise<void>;
	/** The session_shutdown handler waits for this (one that never settles: pi#9811). */
	shutdownHold?: Promise<void>;
	/** The agent_end handler waits for this (a run that never settles once aborted: pi-desktop#46). */
	agentEndHold?: Promise<void>;
	cancel: boolean;
	beforeSwitch: boolean;
	shutdown: boolean;
	invalidate: boolean;
	rebind: boolean;
}

function controlledExtension(control: Control) {
	return (pi: ExtensionAPI) => {
		const before = async () => {
			if (control.hold) await control.hold;
			if (control.cancel) return { cancel: true };
			if (control.beforeSwitch) throw new Error("injected: before-switch handler failed");
			return undefined;
		};
		pi.on("session_before_switch", before);
		pi.on("session_before_fork", before);
		pi.on("agent_end", async () => {
			if (control.agentEndHold) await control.agentEndHold;
		});
		pi.on("session_shutdown", async () => {
			if (control.shutdownHold) await control.shutdownHold;
			if (control.shutdown) throw new Error("injected: session_shutdown handler failed");
		});
	};
}

export interface World {
	ws: Workspace;
	runtime: AgentSessionRuntime;
	built: AgentSession[];
	control: Control;
	rec: ReturnType<typeof recordingFactory>;
	faux: ReturnType<typeof createFauxProvider>;
	/** A finished session of project beta (the switch / import target). */
	betaFile: string;
	extensionErrors: string[];
}

export async function createWorld(
	inspect?: (event: InspectionEvent) => void,
	timing: Pick<AgentSessionRuntimeFactoryOptions, "clock" | "shutdownTimeoutMs"> = {},
	ws: Workspace = createWorkspace(),
): Promise<World> {
	const faux = createFauxProvider();
	const control: Control = { cancel: false, beforeSwitch: false, shutdown: false, invalidate: false, rebind: false };
	const extensionErrors: string[] = [];
	const rec = recordingFactory({
		modelRuntime: () => fauxModelRuntime(faux),
		...timing,
		resourceLoaderOptions: { extensionFactories: [controlledExtension(control)], noExtensions: true },
	});
	const beta = await startRuntime(rec.factory, ws, ws.beta);
	await assertUsable(beta.session, faux, "beta work");
	const betaFile = beta.session.sessionFile!;
	await beta.dispose();
	const runtime = await createAgentSessionRuntime(rec.factory, {
		cwd: ws.alpha,
		agentDir: ws.agentDir,
		sessionManager: SessionManager.create(ws.alpha, ws.sessionDir(ws.alpha)),
		...(inspect ? { inspect } : {}),
	});
	const bind = (session: AgentSession) =>
		session.bindExtensions({ onError: (error) => extensionErrors.push(`${error.event}: ${error.error}`) });
	await bind(runtime.session);
	runtime.setBeforeSessionInvalidate(() => {
		if (control.invalidate) throw new Error("injected: beforeSessionInvalidate failed");
	});
	runtime.setRebindSession(async (session) => {
		if (control.rebind) throw new Error("injected: rebindSession failed");
		await bind(session);
	});
	faux.setResponses([fauxAssistantMessage("a1"), fauxAssistantMessage("a2")]);
	await runtime.session.prompt("alpha one");
	await runtime.session.prompt("alpha two");
	return { ws, runtime, built: [], control, rec, faux, betaFile, extensionErrors };
}

/** Arranges `fault`, runs the replacement, and undoes what the arrangement left (a blocker's lock). */
export async function replace(
	world: World,
	step: Step,
	also: Partial<Control> = {},
): Promise<{ result?: unknown; error?: unknown }> {
	const { runtime, control, ws } = world;
	control.cancel = step.fault === "cancel";
	control.beforeSwitch = step.fault === "beforeSwitchHandlerThrows";
	control.shutdown = step.fault === "shutdownHandlerThrows";
	control.invalidate = step.fault === "beforeInvalidateThrows";
	control.rebind = step.fault === "rebindThrows";
	Object.assign(control, also);
	if (step.fault === "factoryThrows") world.rec.failNext(new Error("injected: factory failed"));
	const withSession =
		step.fault === "withSessionThrows"
			? async () => {
					throw new Error("injected: withSession failed");
				}
			: async () => {};
	let target = world.betaFile;
	let blocker: SessionManager | undefined;
	let restoreCwd: (() => void) | undefined;
	if (step.fault === "targetLocked") {
		// The runtime already holds the lock of its own file: when that is the target, lock a copy
		// (outside the session folders) so the fault is another writer's lock, not our own.
		if (runtime.session.sessionFile === target) {
			target = join(ws.root, `locked-copy-${Math.random().toString(36).slice(2)}.jsonl`);
			copyFileSync(world.betaFile, target);
		}
		blocker = SessionManager.open(target);
	}
	if (step.fault === "targetIsDirectory") {
		target = join(ws.root, `a-directory-${Math.random().toString(36).slice(2)}.jsonl`);
		mkdirSync(target);
	}
	if (step.fault === "missingCwd") {
		const moved = `${ws.beta}-moved`;
		rmSync(moved, { recursive: true, force: true });
		mkdirSync(moved);
		rmSync(ws.beta, { recursive: true });
		// Put back as it was (its fixture files too): a later step or run finds the project whole.
		restoreCwd = () => cpSync(join(FIXTURE_PROJECTS, "beta"), ws.beta, { recursive: true });
	}
	try {
		let promise: Promise<unknown>;
		switch (step.kind) {
			case "new":
				promise = runtime.newSession({
					withSession,
					...(step.fault === "setupThrows"
						? {
								setup: async (manager) => {
									manager.appendMessage({ role: "user", content: [{ type: "text", text: "seed" }], timestamp: 1 });
									throw new Error("injected: setup failed");
								},
							}
						: {}),
				});
				break;
			case "switch":
				promise = runtime.switchSession(target, { withSession });
				break;
			case "fork": {
				const entries = runtime.session.sessionManager.getBranch();
				const users = entries.filter((e) => e.type === "message" && e.message.role === "user");
				const entryId = users.length > 1 ? users[users.length - 1]!.id : (entries.at(-1)?.id ?? "missing");
				promise = runtime.fork(entryId, { position: users.length > 1 ? "before" : "at", withSession });
				break;
			}
			case "import": {
				// A fresh export each time (importing the file that became the current session is refused).
				let source = target;
				if (step.fault !== "targetIsDirectory") {
					source = join(ws.root, `export-${Math.random().toString(36).slice(2)}.jsonl`);
					copyFileSync(target, source);
				}
				promise = runtime.importFromJsonl(source);
				break;
			}
		}
		return { result: await promise };
	} catch (error) {
		return { error };
	} finally {
		blocker?.close();
		restoreCwd?.();
		Object.assign(control, {
			hold: undefined,
			cancel: false,
			beforeSwitch: false,
			shutdown: false,
			invalidate: false,
			rebind: false,
		});
	}
}
