import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/** Runs an example the way the README does (`npx tsx examples/<name>.ts`). */
function runExample(name: string): { status: number | null; stdout: string; stderr: string } {
	const result = spawnSync(process.execPath, ["--import", "tsx", `examples/${name}.ts`], {
		encoding: "utf8",
		timeout: 60_000,
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("examples stay runnable (the README quotes them)", () => {
	it("sdk.ts: a tool call through createAgentSession, one agent_settled, the file reopens", () => {
		const { status, stdout, stderr } = runExample("sdk");
		expect(stderr).toBe("");
		expect(status).toBe(0);
		expect(stdout).toContain("extension saw tool_call weather");
		expect(stdout).toContain("assistant: It is 21°C, clear in Lisbon.");
		expect(stdout.match(/agent_settled/g)).toHaveLength(1);
		expect(stdout).toMatch(/Reopened 5 context messages/);
	});

	it("quickstart.ts (npm run demo): retried, then answered, and the reopened context matches", () => {
		const { status, stdout } = runExample("quickstart");
		expect(status).toBe(0);
		expect(stdout).toContain("retry succeeded");
		expect(stdout).toContain("The reopened file rebuilds the same context: yes");
	});
});
