/**
 * copilot-cli#2893: a security hook before each tool call (a local guard refusing dangerous
 * commands) became unreliable once the agent fired several tools at once: the hooks ran one after
 * another, the later ones overran their timeout, and a hook that did not answer in time counted as
 * "allow", so a `deny` written later was discarded and the command ran. Replayed with a real
 * `tool_call` gate (a `.ts` extension file) in the real `settle` CLI, the scripted model sending
 * four `bash` calls in one answer: a slow gate (it awaits before every decision, longest for the
 * first call), one call it blocks, one it fails on (it throws). What the user should see: every
 * decision honoured however long the gate takes: the blocked call and the call whose gate threw
 * never run (nothing they would write appears), the two safe calls run; each result paired with
 * its call, the model told why.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { toolEnds } from "./helpers.js";

const cli = useCliProject("settle-pi-races-tool-gate-parallel-");

const GATE = `import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const delays: Record<string, number> = { first: 300, second: 200, third: 100, fourth: 0 };

export default function (pi: ExtensionAPI) {
	pi.on("tool_call", async (event) => {
		await new Promise((resolve) => setTimeout(resolve, delays[event.toolCallId] ?? 0));
		const command = String((event.input as { command?: unknown }).command);
		if (command.includes("rm -rf")) return { block: true, reason: "destructive command refused by the guard" };
		if (command.includes("curl")) throw new Error("guard policy unreadable");
		return undefined;
	});
}
`;

describe("copilot-cli#2893: a slow tool_call gate over parallel calls", () => {
	it("copilot-cli#2893: with four calls in one answer, a slow gate's block and a throwing gate both hold; the safe calls run; each result is its call's", () => {
		const gate = join(cli.dir, "guard.ts");
		writeFileSync(gate, GATE);
		mkdirSync(join(cli.project, "src"));
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{ id: "first", name: "bash", arguments: { command: "rm -rf src && touch removed" } },
						{ id: "second", name: "bash", arguments: { command: "echo safe one" } },
						{ id: "third", name: "bash", arguments: { command: "curl -s example.test > fetched; touch fetched" } },
						{ id: "fourth", name: "bash", arguments: { command: "echo safe two" } },
					],
				},
				"done",
			]),
		);
		const run = runSettle(["--faux-script", script, "-e", gate, "--mode", "json", "-p", "tidy up"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: 60_000,
		});
		expect(run.code).toBe(0);
		const ends = toolEnds(run.stdout).map((end) => ({
			id: (end as unknown as { toolCallId: string }).toolCallId,
			isError: end.isError,
			text: end.result.content.map((part) => part.text ?? "").join(""),
		}));
		expect(ends.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
			{ id: "first", isError: true, text: "destructive command refused by the guard" },
			{ id: "fourth", isError: false, text: "safe two\n" },
			{ id: "second", isError: false, text: "safe one\n" },
			{ id: "third", isError: true, text: "guard policy unreadable" },
		]);
		// Neither refused command ran.
		expect(existsSync(join(cli.project, "src"))).toBe(true);
		expect(existsSync(join(cli.project, "removed"))).toBe(false);
		expect(existsSync(join(cli.project, "fetched"))).toBe(false);
	});
});
