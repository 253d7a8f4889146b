/**
 * The checked-in diagrams under `visualizations/`: which machines, which files, and the index.
 * `renderVisualizations()` is pure (the staleness test compares it with the files on disk);
 * `writeVisualizations(dir)` writes them.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { type AnyStateMachine, createActor, fromPromise, SimulatedClock } from "xstate";
import {
	type CompactionInput,
	type CompactionOutput,
	promptOperationMachine,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { runtimeMachine } from "../../machines/runtime.machine.js";
import { errorMessage, SettleError } from "../errors.js";
import { inspectActor } from "./lifecycle-inspector.js";
import { toMermaid } from "./mermaid.js";
import { toSvg } from "./svg.js";
import { createTraceRecorder, type LifecycleTrace } from "./trace.js";
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
];

/** The script that regenerates the diagrams (quoted in messages and in the index). */
export const VIZ_COMMAND = "npm run viz";

/** File name of the example trace page. */
export const EXAMPLE_TRACE_FILE = "trace-example.html";

/**
 * Renders every diagram, the example trace page and the index in memory: file name → content.
 * Deterministic (the example runs the real machine with scripted actors on a SimulatedClock).
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
	files.set("README.md", renderIndex(visualizations));
	return files;
}

/**
 * Runs the prompt-operation machine through one request with scripted actors: a 503 (retried
 * after 2 s), then a context overflow (compacted and re-run), then an answer. Returns its trace.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * const trace = await recordExampleTrace();
 * writeFileSync("example.html", renderTraceHtml(trace, promptOperationMachine));
 * ```
 */
export async function recordExampleTrace(): Promise<LifecycleTrace> {
	const answers: RunOutcome[] = [
		{
			stopReason: "error",
			errorClass: "retryable",
			errorMessage: "503 Service Unavailable",
			overThreshold: false,
			hasQueuedMessages: false,
			aborted: false,
		},
		{
			stopReason: "error",
			errorClass: "overflow",
			errorMessage: "prompt is too long: 213462 tokens > 200000 maximum",
			overThreshold: false,
			hasQueuedMessages: false,
			aborted: false,
		},
		{ stopReason: "stop", errorClass: "none", overThreshold: false, hasQueuedMessages: false, aborted: false },
	];
	const clock = new SimulatedClock();
	const machine = promptOperationMachine.provide({
		actors: {
			compact: fromPromise<CompactionOutput, CompactionInput>(async () => ({ compacted: true, continue: false })),
		},
	});
	const actor = createActor(machine, { input: {}, clock });
	// The machine's requests, answered a microtask later as the session would.
	const later = (answer: () => void) => queueMicrotask(answer);
	actor.on("preflight_requested", () =>
		later(() => actor.send({ type: "PREFLIGHT_DONE", output: { disposition: "started" } })),
	);
	actor.on("run_requested", () => {
		const output = answers.shift();
		later(() =>
			actor.send(
				output
					? { type: "RUN_DONE", output }
					: { type: "RUN_FAILED", error: new Error("example trace: no scripted answer left") },
			),
		);
	});
	actor.on("before_settle_requested", () =>
		later(() => actor.send({ type: "BEFORE_SETTLE_DONE", output: { continue: false } })),
	);
	actor.on("settle_requested", () => later(() => actor.send({ type: "SETTLE_DONE" })));
	const recorder = createTraceRecorder();
	let settled = false;
	actor.on("operation_settled", () => {
		settled = true;
	});
	actor.start();
	const subscription = inspectActor(actor, recorder.observer, { now: () => clock.now() });
	actor.send({ type: "PROMPT", request: { requestId: "example" } });
	for (let turn = 0; !settled && turn < 100; turn++) {
		await new Promise((resolve) => setImmediate(resolve));
		const snapshot = actor.getSnapshot();
		if (snapshot.matches("retrying")) clock.increment(snapshot.context.retryDelayMs);
	}
	subscription.unsubscribe();
	actor.stop();
	return recorder.toJSON();
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
		"Make your own with `renderTraceHtml(await loadTrace(path))`.",
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
