/**
 * Runs pi 0.73.1's published example extensions, unchanged, on both peers of test/parity/peers.ts:
 * pi's own `createAgentSession` loads them with pi's loader (imports of `@mariozechner/pi-coding-agent`
 * resolve to pi itself), Settle's with Settle's (they resolve to Settle's pi-compat module). Both
 * bind the same scripted UI, which records what a user would see (notifications, statuses, dialogs)
 * and answers dialogs from a queue.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
	createPeer,
	makeTempDirs,
	type Peer,
	type PeerName,
	type PeerOptions,
	type TempDirs,
} from "../parity/peers.js";
import { bundledExtensionAliases } from "./bundle-aliases.js";

export const EXAMPLES = resolve(
	fileURLToPath(new URL("../../node_modules/@mariozechner/pi-coding-agent/examples/extensions", import.meta.url)),
);

/** Dialog methods: the scripted UI answers them from its queue. */
const DIALOGS = new Set(["select", "confirm", "input", "editor"]);
/** Getters whose answer is a fixed value, not worth recording. */
const QUIET: Record<string, unknown> = {
	getEditorText: "",
	getToolsExpanded: false,
	getAllThemes: [],
	getTheme: undefined,
	getEditorComponent: undefined,
	onTerminalInput: () => {},
};

/** A theme whose styling functions return their text unstyled. */
const plainTheme: unknown = new Proxy(
	{},
	{
		get: (_target, prop) =>
			prop === "then"
				? undefined
				: (...args: unknown[]) => [...args].reverse().find((arg) => typeof arg === "string") ?? "",
	},
);

function describeArg(arg: unknown): unknown {
	if (typeof arg === "function") return "<component>";
	if (typeof arg === "string") return arg.replace(/\d{2,}/g, "<n>");
	return arg;
}

export interface ScriptedUI {
	ui: unknown;
	/** Calls a user would see, `method arg, arg` (numbers of two digits or more as `<n>`). */
	log: unknown[][];
}

/** A UI (so `hasUI` is true) that records calls and answers dialogs from `answers`, in order. */
export function scriptedUI(answers: unknown[] = []): ScriptedUI {
	const log: unknown[][] = [];
	const pending = [...answers];
	const ui = new Proxy(
		{},
		{
			get: (_target, prop) => {
				if (typeof prop !== "string" || prop === "then") return undefined;
				if (prop === "theme") return plainTheme;
				if (prop in QUIET) return () => QUIET[prop];
				return (...args: unknown[]) => {
					log.push([prop, ...args.filter((arg) => arg !== undefined || prop === "setStatus").map(describeArg)]);
					if (DIALOGS.has(prop)) return Promise.resolve(pending.shift());
					if (prop === "custom") return Promise.resolve(undefined);
					if (prop === "setTheme") return { success: false, error: "no themes" };
					return undefined;
				};
			},
		},
	);
	return { ui, log };
}

export interface ExampleRun {
	peer: Peer;
	ui: ScriptedUI;
}

/**
 * Runs `scenario` on pi, then on Settle, each session loading the named examples from pi's
 * examples folder with a fresh {@link scriptedUI} (`answers` each; `headless`: no UI, `hasUI`
 * false), after `setup` prepared its temp folders, and returns what each observed.
 */
export async function onBothWithExamples<T>(
	names: string[],
	options: Omit<PeerOptions, "extensionPaths" | "uiContext"> & {
		answers?: unknown[];
		headless?: boolean;
		setup?: (dirs: TempDirs) => void;
	},
	scenario: (run: ExampleRun) => Promise<T>,
): Promise<{ pi: T; settle: T }> {
	const { answers, headless, setup, ...peerOptions } = options;
	const results: Partial<Record<PeerName, T>> = {};
	for (const name of ["pi", "settle"] as const) {
		const ui = scriptedUI(answers);
		const dirs = makeTempDirs();
		setup?.(dirs);
		const peer = await createPeer(
			name,
			{
				...peerOptions,
				extensionPaths: names.map((example) => join(EXAMPLES, example)),
				settleExtensionAliases: bundledExtensionAliases(),
				...(headless ? {} : { uiContext: ui.ui }),
			},
			dirs,
		);
		try {
			results[name] = await scenario({ peer, ui });
		} finally {
			peer.cleanup();
		}
	}
	return results as { pi: T; settle: T };
}

/** Commands run through `prompt()` as a user types them (`/name args`). */
export async function runCommands(peer: Peer, ...commands: string[]): Promise<void> {
	for (const command of commands) await peer.prompt(command);
}
