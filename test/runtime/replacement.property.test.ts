/**
 * Invariant 10 (DESIGN §8): a runtime replacement either completes fully or leaves the old
 * session intact and usable. Random sequences of replacements (new, switch into another project,
 * fork, import) on real session files, each with a failure injected at a random step: the
 * factory throws, the new session's setup throws, an extension's `session_before_switch` /
 * `session_before_fork` / `session_shutdown` handler throws, the host's `beforeSessionInvalidate`
 * or `rebindSession` throws, `withSession` throws, an extension cancels, the target is locked by
 * another writer, the target is a directory (a disk error), the target's cwd is gone.
 *
 * After every step: the outcome is the one the failure allows; the current session answers a
 * prompt (faux model); every session built and not current is stopped; the runtime machine is
 * `active`; the only session lock is the current file's; a failed replacement left no new file.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { type AgentSessionRuntime, createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	assertUsable,
	createWorkspace,
	fauxModelRuntime,
	locksUnder,
	recordingFactory,
	sessionFilesUnder,
	startRuntime,
	userEntryId,
	type Workspace,
} from "./helpers.js";

type Kind = "new" | "switch" | "fork" | "import";
type Fault =
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

const FAULTS_BY_KIND: Record<Kind, Fault[]> = {
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
const REPLACES: Record<Fault, boolean> = {
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

const REJECTS: Record<Fault, boolean> = {
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

interface Step {
	kind: Kind;
	fault: Fault;
}

const stepArbitrary: fc.Arbitrary<Step> = fc
	.constantFrom<Kind>("new", "switch", "fork", "import")
	.chain((kind) => fc.record({ kind: fc.constant(kind), fault: fc.constantFrom(...FAULTS_BY_KIND[kind]) }));

/** Switches the extension and host failures on and off. */
interface Control {
	cancel: boolean;
	beforeSwitch: boolean;
	shutdown: boolean;
	invalidate: boolean;
	rebind: boolean;
}

function controlledExtension(control: Control) {
	return (pi: ExtensionAPI) => {
		const before = () => {
			if (control.cancel) return { cancel: true };
			if (control.beforeSwitch) throw new Error("injected: before-switch handler failed");
			return undefined;
		};
		pi.on("session_before_switch", before);
		pi.on("session_before_fork", before);
		pi.on("session_shutdown", () => {
			if (control.shutdown) throw new Error("injected: session_shutdown handler failed");
		});
	};
}

interface World {
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

async function createWorld(): Promise<World> {
	const ws = createWorkspace();
	const faux = createFauxProvider();
	const control: Control = { cancel: false, beforeSwitch: false, shutdown: false, invalidate: false, rebind: false };
	const extensionErrors: string[] = [];
	const rec = recordingFactory({
		modelRuntime: () => fauxModelRuntime(faux),
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
async function replace(world: World, step: Step): Promise<{ result?: unknown; error?: unknown }> {
	const { runtime, control, ws } = world;
	control.cancel = step.fault === "cancel";
	control.beforeSwitch = step.fault === "beforeSwitchHandlerThrows";
	control.shutdown = step.fault === "shutdownHandlerThrows";
	control.invalidate = step.fault === "beforeInvalidateThrows";
	control.rebind = step.fault === "rebindThrows";
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
	if (step.fault === "targetLocked") blocker = SessionManager.open(target);
	if (step.fault === "targetIsDirectory") {
		target = join(ws.root, `a-directory-${Math.random().toString(36).slice(2)}.jsonl`);
		mkdirSync(target);
	}
	if (step.fault === "missingCwd") {
		const moved = `${ws.beta}-moved`;
		rmSync(moved, { recursive: true, force: true });
		mkdirSync(moved);
		rmSync(ws.beta, { recursive: true });
		restoreCwd = () => mkdirSync(ws.beta, { recursive: true });
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
		Object.assign(control, { cancel: false, beforeSwitch: false, shutdown: false, invalidate: false, rebind: false });
	}
}

async function checkStep(world: World, step: Step): Promise<void> {
	const { runtime, ws, faux } = world;
	const before = {
		session: runtime.session,
		cwd: runtime.cwd,
		messages: runtime.session.messages.length,
		files: sessionFilesUnder(ws.agentDir),
		built: world.rec.built.length,
	};
	const { result, error } = await replace(world, step);
	const label = `${step.kind} with ${step.fault}: ${String(error)}`;
	const replaced = runtime.session !== before.session;
	expect(replaced, label).toBe(REPLACES[step.fault]);
	expect(error !== undefined, label).toBe(REJECTS[step.fault]);
	if (step.fault === "cancel") expect(result).toEqual({ cancelled: true });
	expect(runtime.lifecycle).toBe("active");

	if (replaced) {
		expect(before.session.snapshot.status).toBe("stopped");
		// Released, unless the new session reopened the same file (then it writes through the same manager).
		const shared = before.session.sessionManager === runtime.session.sessionManager;
		expect(before.session.sessionManager.isClosed()).toBe(!shared);
		const expectedCwd = step.kind === "switch" || step.kind === "import" ? ws.beta : before.cwd;
		expect(runtime.cwd).toBe(expectedCwd);
		expect(runtime.session.cwd).toBe(expectedCwd);
	} else {
		expect(runtime.cwd).toBe(before.cwd);
		expect(runtime.session.messages).toHaveLength(before.messages);
		expect(before.session.sessionManager.isClosed()).toBe(false);
		// Nothing new on disk (a directory made as a disk fault is not a session file).
		expect(sessionFilesUnder(ws.agentDir)).toEqual(before.files);
	}
	// No leaked actors: every session built and not current is stopped; the current one runs.
	for (const result of world.rec.built) {
		if (result.session === runtime.session) continue;
		expect(result.session.snapshot.status, label).toBe("stopped");
	}
	expect(runtime.session.snapshot.status).toBe("active");
	// The current session answers; then its file (written now) holds the only lock.
	await assertUsable(runtime.session, faux, `after ${step.kind}/${step.fault}`);
	const file = runtime.session.sessionFile;
	expect(locksUnder(ws.agentDir), label).toEqual(file && existsSync(file) ? [`${file}.lock`] : []);
}

describe("invariant 10: a replacement completes or leaves the old session intact and usable", () => {
	it("holds for random sequences of replacements with a failure injected at a random step", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 3 }), async (steps) => {
				const world = await createWorld();
				try {
					for (const step of steps) await checkStep(world, step);
					await world.runtime.dispose();
					for (const result of world.rec.built) expect(result.session.snapshot.status).toBe("stopped");
					expect(locksUnder(world.ws.agentDir)).toEqual([]);
				} finally {
					await world.runtime.dispose();
					world.ws.cleanup();
				}
			}),
			{ numRuns: 40 },
		);
	});

	it("every fault of every kind, once (the exhaustive table)", async () => {
		for (const kind of Object.keys(FAULTS_BY_KIND) as Kind[]) {
			for (const fault of FAULTS_BY_KIND[kind]) {
				const world = await createWorld();
				try {
					await checkStep(world, { kind, fault });
					if (fault === "beforeSwitchHandlerThrows" || fault === "shutdownHandlerThrows") {
						expect(world.extensionErrors.some((line) => line.includes("injected")), `${kind}/${fault}`).toBe(true);
					}
				} finally {
					await world.runtime.dispose();
					world.ws.cleanup();
				}
			}
		}
	});
});
