import { relative } from "node:path";
import fc from "fast-check";
import { onTestFailed } from "vitest";

/** The environment variables a property file reads its replay from, e.g. `RPC_DIFF_SEED` and `RPC_DIFF_PATH`. */
export interface ReplayKnobs {
	seedVar: string;
	pathVar: string;
}

/**
 * `fc.assert` for a slow async property, called inside a vitest test: the seed is picked up front
 * (from `knobs.seedVar` when set) and the path of the case running is tracked, so when the test fails
 * or hits its vitest timeout (fast-check prints nothing then) one stderr line gives the command that
 * replays that case: `<SEED>=… <PATH>=… npx vitest run <file> -t '<test>'`.
 *
 * @example
 * import fc from "fast-check";
 * import { it } from "vitest";
 * import { assertReplayable } from "./replayable-property.js";
 * it("adds in any order", async () => {
 * 	const property = fc.asyncProperty(fc.nat(), fc.nat(), async (a, b) => a + b === b + a);
 * 	await assertReplayable(property, { numRuns: 20 }, { seedVar: "ADD_SEED", pathVar: "ADD_PATH" });
 * });
 */
export async function assertReplayable<T>(
	property: fc.IAsyncProperty<T>,
	params: Omit<fc.Parameters<T>, "seed" | "path">,
	knobs: ReplayKnobs,
): Promise<void> {
	const seed = process.env[knobs.seedVar] ? Number(process.env[knobs.seedVar]) : randomSeed();
	const basePath = process.env[knobs.pathVar] || undefined;
	const tracker = new PathTracker(basePath);
	// Now: a property may be inside another folder (process.chdir) when it times out.
	const cwd = process.cwd();
	onTestFailed(({ task }) => {
		const file = relative(cwd, task.file.filepath);
		console.error(
			`Replay: ${knobs.seedVar}=${seed} ${knobs.pathVar}=${tracker.pathToReplay()} npx vitest run ${file} -t ${shellQuote(escapeRegExp(task.name))}`,
		);
	});
	await fc.assert(tracked(property, tracker), {
		...params,
		seed,
		...(basePath === undefined ? {} : { path: basePath }),
	});
}

/** fast-check's own default seed. */
function randomSeed(): number {
	return Date.now() ^ (Math.random() * 0x100000000);
}

/**
 * Follows fast-check's numbering (its RunnerIterator): each case run takes the next index at its
 * level; a failing case adds its index to the path and shrinking starts a new level at 0.
 */
class PathTracker {
	private failedPath: number[] = [];
	private nextIndex = 0;
	private running: number | undefined;

	constructor(private readonly basePath: string | undefined) {}

	started(): void {
		this.running = this.nextIndex++;
	}

	finished(failed: boolean): void {
		if (failed && this.running !== undefined) {
			this.failedPath.push(this.running);
			this.nextIndex = 0;
		}
		this.running = undefined;
	}

	/** The case still running (a timeout), else the last failing one. */
	pathToReplay(): string {
		const path = this.running === undefined ? this.failedPath : [...this.failedPath, this.running];
		return mergePaths(this.basePath, path.join(":"));
	}
}

/** fast-check's RunExecution.mergePaths: a replayed path's last index offsets the first of the new one. */
function mergePaths(basePath: string | undefined, path: string): string {
	if (!basePath) return path;
	const base = basePath.split(":");
	const rest = path.split(":");
	return [...base.slice(0, -1), `${Number(base[base.length - 1]) + Number(rest[0])}`, ...rest.slice(1)].join(":");
}

function tracked<T>(property: fc.IAsyncProperty<T>, tracker: PathTracker): fc.IAsyncProperty<T> {
	return {
		isAsync: () => true,
		generate: (mrng, runId) => property.generate(mrng, runId),
		shrink: (value) => property.shrink(value),
		runBeforeEach: () => property.runBeforeEach(),
		runAfterEach: () => property.runAfterEach(),
		run: async (value) => {
			tracker.started();
			const outcome = await property.run(value);
			tracker.finished(outcome !== null && !fc.PreconditionFailure.isFailure(outcome));
			return outcome;
		},
	};
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function shellQuote(text: string): string {
	return `'${text.replaceAll("'", "'\\''")}'`;
}
