/**
 * testkit2 audit: a user's property of their own extension (random scripts, `fc.scheduler`,
 * actions keyed to events, `SimulatedClock`, a session file on disk) fails on purpose, and the
 * seed and path fast-check prints replay it in another process: the same shrunk counterexample,
 * the same scheduler order, the same violation and transcript. The failure names the extension and
 * the line that threw, and `h.transcript(run)` shows the run with the fired action marked.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

interface Report {
	failed: boolean;
	seed: number;
	path: string | null;
	counterexample: string | null;
	error: string | null;
}

const FIXTURE = "test/testing/fixtures/buggy-extension-property.ts";

function runProperty(...args: string[]): Report {
	const result = spawnSync(process.execPath, ["--import", "tsx", FIXTURE, ...args], { encoding: "utf8" });
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return JSON.parse(result.stdout) as Report;
}

describe("a failing property of a user's extension replays from its seed and path (testkit2)", () => {
	it("prints the same counterexample, scheduler order, violation and transcript in a second process", () => {
		const first = runProperty();
		expect(first.failed).toBe(true);
		expect(first.path).toBeTruthy();
		// the scheduler's order is part of the counterexample
		expect(first.counterexample).toContain("promise::steer resolved");
		expect(first.counterexample).toMatch(/promise::reply 0 \w+\(/);
		// the violation names the extension and the line of the throw
		expect(first.error).toMatch(
			/^extension <inline:1>: its tool_call:echo \(call s\d+-c\d+\) handler threw: audit: echo called for unknown prompt "use tabs" \(thrown at .*buggy-extension-property\.ts:\d+:\d+\)$/m,
		);
		// the transcript shows the steer delivered before the tool call the audit refused
		const transcript = first.error!.slice(first.error!.indexOf("\n\n") + 2).split("\n");
		expect(transcript[0]).toBe("#0 [run 1 #0] agent_start");
		const steer = transcript.findIndex((line) => / message_end user "use tabs"$/.test(line));
		const refused = transcript.findIndex((line) => / tool_execution_end echo\(s\d+-c\d+\) error "audit: /.test(line));
		expect(steer).toBeGreaterThan(0);
		expect(refused).toBeGreaterThan(steer);
		expect(transcript.at(-1)).toMatch(/^#\d+ agent_settled$/);

		const replay = runProperty(String(first.seed), first.path!);
		expect(replay).toEqual(first);
	});
});
