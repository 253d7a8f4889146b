/**
 * The checked-in diagrams under `visualizations/`: which machines, which files, and the index.
 * `renderVisualizations()` is pure (the staleness test compares it with the files on disk);
 * `writeVisualizations(dir)` writes them.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyStateMachine } from "xstate";
import { promptOperationMachine } from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { toMermaid } from "./mermaid.js";
import { toSvg } from "./svg.js";

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
];

/** The script that regenerates the diagrams (quoted in messages and in the index). */
export const VIZ_COMMAND = "npm run viz";

/**
 * Renders every diagram and the index in memory: file name → content. Deterministic.
 *
 * @example
 * ```ts
 * for (const [file, text] of renderVisualizations()) console.log(file, text.length);
 * ```
 */
export function renderVisualizations(
	visualizations: readonly MachineVisualization[] = MACHINE_VISUALIZATIONS,
): Map<string, string> {
	const files = new Map<string, string>();
	for (const viz of visualizations) {
		files.set(`${viz.name}.mmd`, toMermaid(viz.machine, { title: viz.title }));
		files.set(`${viz.name}.svg`, toSvg(viz.machine, { title: viz.title }));
	}
	files.set("README.md", renderIndex(visualizations));
	return files;
}

function renderIndex(visualizations: readonly MachineVisualization[]): string {
	const lines = [
		"# Visualizations",
		"",
		"Diagrams of Settle's state machines, generated from the machine definitions in `machines/`.",
		`Do not edit by hand: run \`${VIZ_COMMAND}\` (\`npx tsx src/inspect/write-visualizations.ts\`); a test fails when`,
		"these files are stale.",
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
	lines.push("");
	for (const viz of visualizations) {
		lines.push(`## ${viz.title}`, "", `![${viz.title} state machine](${viz.name}.svg)`, "");
	}
	return lines.join("\n");
}

/**
 * Writes every diagram and the index into `dir` (created if needed). Returns the written paths.
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
	await mkdir(dir, { recursive: true });
	const written: string[] = [];
	for (const [file, content] of renderVisualizations(visualizations)) {
		const path = join(dir, file);
		await writeFile(path, content, "utf8");
		written.push(path);
	}
	return written;
}
