/**
 * The checked-in diagrams under `visualizations/`: which machines, which files, and the index.
 * `renderVisualizations()` is pure (the staleness test compares it with the files on disk);
 * `writeVisualizations(dir)` writes them.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { AnyStateMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { reloadMachine } from "../../machines/runtime-reload.machine.js";
import { errorMessage, SettleError } from "../errors.js";
import { recordExampleTrace, recordRuntimeExampleTrace } from "./example-traces.js";
import { toMermaid } from "./mermaid.js";
import { toSvg } from "./svg.js";
import { renderTraceHtml } from "./trace-viewer.js";

/** One machine that gets a diagram. */
export interface MachineVisualization {
	/** File stem: `<name>.mmd`, `<name>.svg`. */
	name: string;
	title: string;
	/** One line for the index. */
	summary: string;
	machine: AnyStateMachine;
}

/** Every machine Settle draws, in index order. */
export const MACHINE_VISUALIZATIONS: readonly MachineVisualization[] = [
	{
		name: "prompt-operation",
		title: "Prompt operation",
		summary:
			"One AgentSession's lifecycle: preflight, runs, retry backoff, compaction, the before-settle boundary and settling.",
		machine: promptOperationMachine,
	},
	{
		name: "runtime",
		title: "Runtime",
		summary: "The AgentSessionRuntime's session slot: new / switch / fork / import replacement and disposal.",
		machine: runtimeMachine,
	},
	{
		name: "runtime-reload",
		title: "Reload",
		summary:
			"One session.reload(): the old extensions' session_shutdown, waited for at most shutdownTimeoutMs (pi#9811), then load, bind and start the new ones; a teardown cuts it off between steps.",
		machine: reloadMachine,
	},
];

/** The script that regenerates the diagrams (quoted in messages and in the index). */
export const VIZ_COMMAND = "npm run viz";

/** File name of the example trace page. */
export const EXAMPLE_TRACE_FILE = "trace-example.html";

/** File name of the example trace page of the runtime machine and its sessions. */
export const RUNTIME_EXAMPLE_TRACE_FILE = "runtime-trace-example.html";

/**
 * Renders every diagram, the example trace pages and the index in memory: file name → content.
 * Deterministic (the examples run the real machines with scripted actors on a SimulatedClock).
 *
 * @example
 * ```ts
 * for (const [file, text] of await renderVisualizations()) console.log(file, text.length);
 * ```
 */
export async function renderVisualizations(
	visualizations: readonly MachineVisualization[] = MACHINE_VISUALIZATIONS,
): Promise<Map<string, string>> {
	const files = new Map<string, string>();
	for (const viz of visualizations) {
		const options = { title: viz.title, regenerateCommand: VIZ_COMMAND };
		files.set(`${viz.name}.mmd`, toMermaid(viz.machine, options));
		files.set(`${viz.name}.svg`, toSvg(viz.machine, options));
	}
	files.set(
		EXAMPLE_TRACE_FILE,
		renderTraceHtml(await recordExampleTrace(), promptOperationMachine, {
			title: "Example: a prompt retried once, then recovered from a context overflow",
			regenerateCommand: VIZ_COMMAND,
		}),
	);
	files.set(
		RUNTIME_EXAMPLE_TRACE_FILE,
		renderTraceHtml(await recordRuntimeExampleTrace(), [runtimeMachine, promptOperationMachine], {
			title: "Example: a runtime replacing its session (/new, fork, a cancelled switch, switch back)",
			regenerateCommand: VIZ_COMMAND,
		}),
	);
	files.set("README.md", renderIndex(visualizations));
	return files;
}

function renderIndex(visualizations: readonly MachineVisualization[]): string {
	const lines = [
		"# Visualizations",
		"",
		"Diagrams of Settle's state machines, generated from the machine definitions in `machines/`.",
		"Do not edit by hand: regenerate them with `settle viz [dir]`. In the Settle repository that is",
		`\`${VIZ_COMMAND}\`, and a test fails when these files are stale.`,
		"",
		"Edge labels read `EVENT (priority) [guard] / actions`: `always` is an eventless transition, `after <delay>`",
		"a timer on the actor's clock, `done(<actor>)` / `error(<actor>)` the end of an invoked actor. When several",
		"transitions share an event, the first one whose guard holds wins (priority 1 first).",
		"",
		"| machine | diagram | Mermaid source |",
		"|---|---|---|",
	];
	for (const viz of visualizations) {
		lines.push(
			`| **${viz.title}** — ${viz.summary} | [${viz.name}.svg](${viz.name}.svg) | [${viz.name}.mmd](${viz.name}.mmd) |`,
		);
	}
	lines.push(
		"",
		`[${EXAMPLE_TRACE_FILE}](${EXAMPLE_TRACE_FILE}) is the offline trace viewer on an example lifecycle (a prompt retried`,
		"once, then recovered from a context overflow): open it in a browser and step through the events with ↑/↓.",
		"",
		`[${RUNTIME_EXAMPLE_TRACE_FILE}](${RUNTIME_EXAMPLE_TRACE_FILE}) adds the runtime machine that replaces sessions, with a tab`,
		"per machine: that prompt, then `/new` (the new session answers a prompt), a fork of that prompt, a switch back",
		"to the first session that a `session_before_switch` handler cancels (`beforeSwitch → active`), and the switch",
		"again. On the runtime's tab ↑/↓ step through each replacement (beforeSwitch → opening → creating →",
		"settlingCurrent → shuttingDown → invalidating → disposing → rebinding → active); the sessions' prompt",
		"operations lie in between, and each new session's events begin while the runtime is in rebinding.",
		"",
		"Make your own with `session.trace()` or `runtime.trace()` and `renderTraceHtml(trace.toJSON())`, or",
		"`renderTraceHtml(await loadTrace(path))` for a saved trace.",
		"",
	);
	for (const viz of visualizations) {
		lines.push(`## ${viz.title}`, "", `![${viz.title} state machine](${viz.name}.svg)`, "");
	}
	return lines.join("\n");
}

/**
 * Writes every diagram and the index into `dir` (created if needed). Returns the written paths.
 * Throws `SettleError("IO")` naming the folder when it cannot be made or written.
 *
 * @example
 * ```ts
 * await writeVisualizations("visualizations");
 * ```
 */
export async function writeVisualizations(
	dir: string,
	visualizations: readonly MachineVisualization[] = MACHINE_VISUALIZATIONS,
): Promise<string[]> {
	await makeDirectory(dir);
	const written: string[] = [];
	for (const [file, content] of await renderVisualizations(visualizations)) {
		const path = join(dir, file);
		try {
			await writeFile(path, content, "utf8");
		} catch (error) {
			throw new SettleError("IO", `Cannot write ${path}: ${errorMessage(error)}`, { cause: error });
		}
		written.push(path);
	}
	return written;
}

/**
 * `mkdir -p` one level at a time. Node 20's `mkdir(…, { recursive: true })` never returns when the
 * parent exists but refuses the child with ENOENT (e.g. under /proc): it retries forever.
 */
async function makeDirectory(dir: string): Promise<void> {
	const target = resolve(dir);
	const missing: string[] = [];
	let current = target;
	for (;;) {
		const info = await stat(current).catch(() => undefined);
		if (info?.isDirectory()) break;
		if (info) {
			throw new SettleError(
				"IO",
				current === target
					? `${target} is a file, not a folder: give a folder for the diagrams.`
					: `Cannot make ${target}: ${current} is a file, not a folder.`,
			);
		}
		missing.unshift(current);
		const parent = dirname(current);
		if (parent === current) break;
		current = parent;
	}
	for (const path of missing) {
		try {
			await mkdir(path);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
			throw new SettleError("IO", `Cannot make the folder ${path}: ${errorMessage(error)}`, { cause: error });
		}
	}
}
