/**
 * Real processes for the bash-tool race replays: a command whose every process carries a marker in
 * its environment, and a look through /proc for the processes of that command still running.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterEach } from "vitest";

let counter = 0;

/** A marker unique to this test process and call: `export`ed by a command, inherited by its descendants. */
export function processMarker(): string {
	return `SETTLE_RACE_${process.pid}_${++counter}`;
}

/**
 * For a test file's top level: `marker()` is a {@link processMarker} whose processes are killed after
 * each test. Call it after the file's other `afterEach` setups so that the kill runs first (hooks run
 * last-registered first).
 */
export function markersPerTest(): () => string {
	const markers: string[] = [];
	afterEach(() => {
		for (const marker of markers.splice(0)) killMarked(marker);
	});
	return () => {
		const made = processMarker();
		markers.push(made);
		return made;
	};
}

/**
 * Pids of processes (not zombies) whose environment holds `marker=1`: what is left of a command
 * that exported it. Linux /proc; processes that exit while being read are skipped.
 */
export function markedProcesses(marker: string): number[] {
	const needle = `${marker}=1`;
	const found: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
			const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
			if (state === "Z" || state === "X") continue;
			const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
			if (environ.includes(needle)) found.push(Number(entry));
		} catch {
			// exited while we looked, or not ours
		}
	}
	return found;
}

/** SIGKILLs whatever is left of a marked command (test cleanup; the assertion came first). */
export function killMarked(marker: string): void {
	for (const pid of markedProcesses(marker)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// already gone
		}
	}
}

/** `until` the process `$p` has finished exec-ing `sleep` with `marker=1` in its environment (/proc shows it empty mid-exec). */
function execedSleep(marker: string): string {
	return `[ "$(cat /proc/$p/comm)" = sleep ] && grep -qz "^${marker}=1$" /proc/$p/environ`;
}

/**
 * A plain long command that prints `ready` (or runs `announce`) only once {@link markedProcesses}
 * can find it: the shell waits until its `sleep` has exec'd (an exported variable is in the
 * children's environment only, so `echo ready; sleep` could print before any marked process exists).
 */
export function markedSleepCommand(marker: string, seconds = 300, announce = "echo ready"): string {
	return `export ${marker}=1; sleep ${seconds} & p=$!; until ${execedSleep(marker)}; do :; done; ${announce}; wait`;
}

/**
 * The command of the reports: GNU `timeout` (which moves itself into its own process group) runs a
 * shell that ignores SIGTERM and leaves a child holding stdout; the trailing `echo` keeps bash from
 * exec-ing `timeout` in its own place. `ready` is printed once all of them run: the shell waits until
 * its `sleep` has finished exec-ing (its name is `sleep` and its environment, which /proc shows empty
 * mid-exec, holds the marker), so {@link markedProcesses} then finds timeout, sh and sleep.
 */
export function wedgingCommand(marker: string, seconds = 300): string {
	return `export ${marker}=1; timeout ${seconds} sh -c 'trap "" TERM; sleep ${seconds} & p=$!; until ${execedSleep(marker)}; do :; done; echo ready; wait'; echo "exit $?"`;
}
