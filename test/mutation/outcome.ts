/**
 * What a mutant's test run says about it, from how the run ended. A run stopped by the runner's
 * time limit proves nothing: no test was seen failing (the mutant may loop, or the tests may be too
 * slow on a loaded machine), so it is not counted as killed. Nor is a run ended by a signal (no exit
 * status: the OOM killer, a Ctrl+C, a crash): the process died, no test was seen catching the mutant.
 */
import type { Mutant } from "./catalog.js";

/** `timeout(1)`'s exit status when it stopped the command. */
export const TIMEOUT_EXIT_STATUS = 124;

/**
 * How a mutant ended: its tests failed (`killed`), passed (`survived`), were stopped by the time
 * limit (`timed out`), died of a signal (`ended by signal`), or the mutant no longer applies (`stale`).
 */
export type MutantStatus = "killed" | "survived" | "timed out" | "ended by signal" | "stale";

/**
 * The status of a mutant whose tests ran under `timeout`, from the run's exit status (`null`: the
 * run was ended by a signal, which `timeout` passes on by dying of it too).
 */
export function statusOfRun(exitStatus: number | null): Exclude<MutantStatus, "stale"> {
	if (exitStatus === null) return "ended by signal";
	if (exitStatus === 0) return "survived";
	if (exitStatus === TIMEOUT_EXIT_STATUS) return "timed out";
	return "killed";
}

/**
 * Whether the status is not what the catalog expects (the runner then exits non-zero): stale, timed
 * out, ended by a signal, a killed equivalent mutant, or a surviving one that is not marked equivalent.
 */
export function isUnexpected(status: MutantStatus, mutant: Pick<Mutant, "equivalent">): boolean {
	if (status === "stale" || status === "timed out" || status === "ended by signal") return true;
	return (status === "survived") !== (mutant.equivalent !== undefined);
}

/** The runner's JSON summary line. */
export interface MutationSummary {
	mutants: number;
	killed: number;
	survived: number;
	timedOut: number;
	/** Runs ended by a signal (no exit status). */
	signalled: number;
	equivalent: number;
	stale: number;
	/** Ids whose status {@link isUnexpected}. */
	unexpected: string[];
}

/** A summary of `mutants` mutants, none run yet. */
export function emptySummary(mutants: number): MutationSummary {
	return { mutants, killed: 0, survived: 0, timedOut: 0, signalled: 0, equivalent: 0, stale: 0, unexpected: [] };
}

/** Adds one mutant's outcome to `summary`. */
export function tally(summary: MutationSummary, mutant: Pick<Mutant, "id" | "equivalent">, status: MutantStatus): void {
	if (status === "stale") summary.stale++;
	else if (status === "survived") summary.survived++;
	else if (status === "timed out") summary.timedOut++;
	else if (status === "ended by signal") summary.signalled++;
	else summary.killed++;
	if (mutant.equivalent !== undefined) summary.equivalent++;
	if (isUnexpected(status, mutant)) summary.unexpected.push(mutant.id);
}
