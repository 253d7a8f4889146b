/**
 * One extension factory for the tests of a reload overtaken by its runtime's teardown: each call
 * is a new extension instance (`g1`, `g2`, … in load order) that logs what it hears, keeps its
 * `pi`, answers `/whoami`, and can be slowed down by the test at its factory, its
 * `session_shutdown` or its `session_start` handler.
 */
import type { SimulatedClock } from "xstate";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { inlineExtensionFactory, startRuntime, type Workspace } from "./helpers.js";

/** The extension instances one test loaded, and how it slows them. */
export class ExtensionGenerations {
	/** What each instance heard (`session_start <reason>`, `session_shutdown <reason>`, `whoami: live|stale`). */
	readonly heard = new Map<string, string[]>();
	/** Each instance's `pi`. */
	readonly apis = new Map<string, ExtensionAPI>();
	/** The factory of instance `g<n>` waits on this. */
	readonly slowFactory = new Map<string, Promise<void>>();
	/** The `session_shutdown` handler of instance `g<n>` waits on this (a never-settling one: stuck, pi#9811). */
	readonly slowShutdown = new Map<string, Promise<void>>();
	/** The `session_start` handler of instance `g<n>` waits on this. */
	readonly slowStart = new Map<string, Promise<void>>();
	private count = 0;

	/** The extension factory: one new instance per call. */
	readonly factory = (pi: ExtensionAPI): void | Promise<void> => {
		const g = `g${++this.count}`;
		const log: string[] = [];
		this.heard.set(g, log);
		this.apis.set(g, pi);
		pi.on("session_start", async (event) => {
			log.push(`session_start ${event.reason}`);
			await this.slowStart.get(g);
		});
		pi.on("session_shutdown", async (event) => {
			log.push(`session_shutdown ${event.reason}`);
			await this.slowShutdown.get(g);
		});
		pi.registerCommand("whoami", {
			description: "says which extension instance ran it, and whether its pi is live",
			handler: async () => {
				try {
					pi.getActiveTools();
					log.push("whoami: live");
				} catch {
					log.push("whoami: stale");
				}
			},
		});
		return this.slowFactory.get(g);
	};

	/** A runtime on a new session in `ws.alpha` whose sessions load only {@link factory}, timed on `clock`. */
	start(ws: Workspace, clock: SimulatedClock): Promise<AgentSessionRuntime> {
		return startRuntime(inlineExtensionFactory(createFauxProvider(), this.factory, clock).factory, ws, ws.alpha);
	}

	/** Who answers `/whoami` on the runtime's session: the lines each instance logged for it. */
	async whoami(r: AgentSessionRuntime): Promise<Record<string, string[]>> {
		const before = new Map([...this.heard].map(([g, log]) => [g, log.length]));
		await r.session.prompt("/whoami");
		const answered: Record<string, string[]> = {};
		for (const [g, log] of this.heard) {
			const lines = log.slice(before.get(g) ?? 0).filter((line) => line.startsWith("whoami"));
			if (lines.length > 0) answered[g] = lines;
		}
		return answered;
	}
}
