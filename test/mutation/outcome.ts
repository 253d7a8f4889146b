/**
 * What a mutant's test run says about it, from how the run ended. A run stopped by the runner's
 * time limit proves nothing: no test was seen failing (the mutant may loop, or the tests may be too
 * slow on a loaded machine), so it is not counted as killed.
 */
import type { Mutant } from "./catalog.js";

/** `timeout(1)`'s exit status when it stopped the command. */
export const TIMEOUT_EXIT_STATUS = 124;

/**
 * How a mutant ended: its tests failed (`killed`), passed (`survived`), were stopped by the time
 * limit (`timed out`), or the mutant no longer applies (`stale`).
 */
export type MutantStatus = "killed" | "survived" | "timed out" | "stale";

/** The status of a mutant whose tests ran under `timeout`, from the run's exit status. */
export function statusOfRun(exitStatus: number | null): Exclude<MutantStatus, "stale"> {
	if (exitStatus === 0) return "survived";
	if (exitStatus === TIMEOUT_EXIT_STATUS) return "timed out";
	return "killed";
}

/**
 * Whether the status is not what the catalog expects (the runner then exits non-zero): stale, timed
 * out, a killed equivalent mutant, or a surviving one that is not marked equivalent.
 */
export function isUnexpected(status: MutantStatus, mutant: Pick<Mutant, "equivalent">): boolean {
	if (status === "stale" || status === "timed out") return true;
	return (status === "survived") !== (mutant.equivalent !== undefined);
}

/** The runner's JSON summary line. */
export interface MutationSummary {
	mutants: number;
	killed: number;
	survived: number;
	timedOut: number;
	equivalent: number;
	stale: number;
	/** Ids whose status {@link isUnexpected}. */
	unexpected: string[];
}

/** A summary of `mutants` mutants, none run yet. */
export function emptySummary(mutants: number): MutationSummary {
	return { mutants, killed: 0, survived: 0, timedOut: 0, equivalent: 0, stale: 0, unexpected: [] };
}

/** Adds one mutant's outcome to `summary`. */
export function tally(summary: MutationSummary, mutant: Pick<Mutant, "id" | "equivalent">, status: MutantStatus): void {
	if (status === "stale") summary.stale++;
	else if (status === "survived") summary.survived++;
	else if (status === "timed out") summary.timedOut++;
	else summary.killed++;
	if (mutant.equivalent !== undefined) summary.equivalent++;
	if (isUnexpected(status, mutant)) summary.unexpected.push(mutant.id);
}
