/**
 * How the mutation runner (`run.ts`) reads a mutant's test run. The runner stops a run with
 * `timeout` after 300 s; the bug: such a run was counted as killed, though no test was seen
 * failing. Real `timeout` runs here, with short limits.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { emptySummary, isUnexpected, statusOfRun, TIMEOUT_EXIT_STATUS, tally } from "./outcome.js";

/** The exit status of `command` run under `timeout`, as the runner runs vitest. */
function exitUnderTimeout(seconds: string, command: string[]): number | null {
	return spawnSync("timeout", [seconds, ...command]).status;
}

describe("the mutation runner's reading of a test run", () => {
	it("a run stopped by the time limit was counted as killed — now it is 'timed out', unexpected (the runner exits 1) and counted apart", () => {
		const stopped = exitUnderTimeout("0.2", ["sleep", "10"]);
		expect(stopped).toBe(TIMEOUT_EXIT_STATUS);
		expect(statusOfRun(stopped)).toBe("timed out");
		expect(isUnexpected("timed out", {})).toBe(true);
		expect(isUnexpected("timed out", { equivalent: "cannot change what a user sees" })).toBe(true);
		const summary = emptySummary(1);
		tally(summary, { id: "X01" }, "timed out");
		expect(summary).toMatchObject({ killed: 0, timedOut: 1, unexpected: ["X01"] });
	});

	it("a run ended by a signal was counted as killed — now it is 'ended by signal', unexpected (the runner exits 1) and counted apart", () => {
		// The command dies of SIGKILL (as under the OOM killer); `timeout` passes the death on.
		const run = spawnSync("timeout", ["10", "sh", "-c", "kill -KILL $$"]);
		expect({ status: run.status, signal: run.signal }).toEqual({ status: null, signal: "SIGKILL" });
		expect(statusOfRun(run.status)).toBe("ended by signal");
		expect(isUnexpected("ended by signal", {})).toBe(true);
		expect(isUnexpected("ended by signal", { equivalent: "cannot change what a user sees" })).toBe(true);
		const summary = emptySummary(1);
		tally(summary, { id: "X02" }, "ended by signal");
		expect(summary).toMatchObject({ killed: 0, timedOut: 0, signalled: 1, unexpected: ["X02"] });
	});

	it("tests that fail kill the mutant, tests that pass let it survive", () => {
		expect(statusOfRun(exitUnderTimeout("10", ["sh", "-c", "exit 1"]))).toBe("killed");
		expect(statusOfRun(exitUnderTimeout("10", ["true"]))).toBe("survived");
	});

	it("expected outcomes: a mutant killed, an equivalent one survives; the rest is unexpected", () => {
		const summary = emptySummary(5);
		tally(summary, { id: "K" }, "killed");
		tally(summary, { id: "E", equivalent: "why" }, "survived");
		tally(summary, { id: "S" }, "survived");
		tally(summary, { id: "EK", equivalent: "why" }, "killed");
		tally(summary, { id: "ST" }, "stale");
		expect(summary).toEqual({
			mutants: 5,
			killed: 2,
			survived: 2,
			timedOut: 0,
			signalled: 0,
			equivalent: 2,
			stale: 1,
			unexpected: ["S", "EK", "ST"],
		});
	});
});
