/**
 * assertReplayable (test/replayable-property.ts) run for real: a child vitest runs a fixture whose
 * property hangs past its vitest timeout, the way a slow differential does on a loaded CI machine,
 * and the "Replay:" line it prints is run as a shell command.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const CONFIG = "test/testing/fixtures/replayable-timeout.vitest.config.ts";
const FIXTURE = "test/testing/fixtures/replayable-timeout.fixture.ts";

let logDir: string | undefined;
afterEach(async () => {
	if (logDir) await rm(logDir, { recursive: true, force: true });
	logDir = undefined;
});

/** Runs `command` in sh from the repository root; resolves with its output once it exits. */
function runShell(command: string, env: Record<string, string>): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn("sh", ["-c", command], { env: { ...process.env, ...env, NO_COLOR: "1", FORCE_COLOR: "0" } });
		let output = "";
		child.stdout.on("data", (chunk) => {
			output += chunk;
		});
		child.stderr.on("data", (chunk) => {
			output += chunk;
		});
		child.on("error", reject);
		child.on("close", () => resolve(output));
	});
}

/** The fixture's log: the number of each case as it started, for one test ("hang" or "fail"). */
async function casesRun(log: string, kind: string): Promise<number[]> {
	const lines = (await readFile(log, "utf8")).split("\n").filter((line) => line.startsWith(`${kind} `));
	return lines.map((line) => Number(line.slice(kind.length + 1)));
}

function replayLine(output: string, testName: string): string {
	const line = output.split("\n").find((text) => text.startsWith("Replay: ") && text.endsWith(`-t '${testName}'`));
	expect(line, output).toBeDefined();
	return (line as string).slice("Replay: ".length);
}

describe("a long property that fails or times out prints the command that replays its case", () => {
	// Two child vitest runs of a few seconds each.
	it("a vitest timeout: the printed command (seed and path) runs the case that was hanging first", {
		timeout: 60_000,
	}, async () => {
		logDir = await mkdtemp(join(tmpdir(), "settle-replayable-"));
		const firstLog = join(logDir, "first.log");
		const output = await runShell(`npx vitest run --config ${CONFIG} ${FIXTURE} -t 'hangs on a multiple of 7'`, {
			REPLAY_FIXTURE_LOG: firstLog,
		});
		expect(output).toContain("Test timed out in 1000ms");
		const command = replayLine(output, "hangs on a multiple of 7");
		expect(command).toMatch(
			/^FIXTURE_SEED=-?\d+ FIXTURE_PATH=\d+ npx vitest run test\/testing\/fixtures\/replayable-timeout\.fixture\.ts -t /,
		);
		const hanging = (await casesRun(firstLog, "hang")).at(-1);

		const replayLog = join(logDir, "replay.log");
		const replayed = await runShell(`${command} --config ${CONFIG}`, { REPLAY_FIXTURE_LOG: replayLog });
		expect(await casesRun(replayLog, "hang")).toEqual([hanging]);
		expect(replayLine(replayed, "hangs on a multiple of 7")).toBe(command);
	});

	it("a property failure: the printed path is the shrunk counterexample's path fast-check reports", async () => {
		logDir = await mkdtemp(join(tmpdir(), "settle-replayable-"));
		const output = await runShell(`npx vitest run --config ${CONFIG} ${FIXTURE} -t 'fails on a number over 1000'`, {
			REPLAY_FIXTURE_LOG: join(logDir, "run.log"),
		});
		const reported = output.match(/\{ seed: (-?\d+), path: "([\d:]+)"/);
		expect(reported, output).not.toBeNull();
		const [, seed, path] = reported as RegExpMatchArray;
		expect(replayLine(output, "fails on a number over 1000")).toMatch(
			new RegExp(`^FIXTURE_SEED=${seed} FIXTURE_PATH=${path} npx vitest run `),
		);
	});
});
