/**
 * aelix-ai#92 (a harness with pi's `register_flag`): an extension's flag registered fine, yet no
 * command line could set it: the values parsed from the command line never reached the runtime
 * the first session was built with, so the extension read its default whatever the user typed.
 * Replayed with a real `.ts` extension registering `--plan` (boolean) and `--target` (string) in
 * the real `settle` CLI, reading them at `session_start` and at `agent_start`: under `--rpc`, under
 * `-p --mode json` (`--target=prod` form), and with the flag misspelt. What the user should see:
 * the values typed, from the first handler on, in every mode; defaults for flags not given; a
 * misspelt flag refused before anything runs, with exit code 2.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettle, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-extension-flags-");

const FLAGS = `import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerFlag("plan", { type: "boolean", description: "plan mode", default: false });
	pi.registerFlag("target", { type: "string", description: "deploy target", default: "staging" });
	const report = (at: string, ctx: ExtensionContext) =>
		ctx.ui.notify(JSON.stringify({ at, plan: pi.getFlag("plan"), target: pi.getFlag("target") }), "info");
	pi.on("session_start", (_event, ctx) => report("session_start", ctx));
	pi.on("agent_start", (_event, ctx) => report("agent_start", ctx));
}
`;

const reports = (lines: Record<string, unknown>[], type: string) =>
	lines
		.filter((line) => line.type === type && line.method !== "setStatus")
		.map((line) => JSON.parse(String(line.message)));

describe("aelix-ai#92: extension flags from the command line in every mode", () => {
	it("aelix-ai#92: --rpc --plan --target prod: the extension reads both at session_start and agent_start", async () => {
		const extension = join(cli.dir, "flags.ts");
		writeFileSync(extension, FLAGS);
		const client = new RpcClient(["--faux", "--no-session", "-e", extension, "--plan", "--target", "prod"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await client.promptAndSettle("hi", "p");
		expect(await client.end()).toBe(0);
		expect(reports(client.lines, "extension_ui_request")).toEqual([
			{ at: "session_start", plan: true, target: "prod" },
			{ at: "agent_start", plan: true, target: "prod" },
		]);
	});

	it("aelix-ai#92: -p --mode json --target=prod: the value typed and the boolean's default; a misspelt flag is refused with exit 2 before any run", () => {
		const extension = join(cli.dir, "flags.ts");
		writeFileSync(extension, FLAGS);
		const options = { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: 60_000 };
		const run = runSettle(
			["--faux", "--no-session", "-e", extension, "--mode", "json", "--target=prod", "-p", "hi"],
			options,
		);
		expect(run.code).toBe(0);
		const lines = run.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(reports(lines, "extension_notify")).toEqual([
			{ at: "session_start", plan: false, target: "prod" },
			{ at: "agent_start", plan: false, target: "prod" },
		]);

		const typo = runSettle(["--faux", "--no-session", "-e", extension, "--taget", "prod", "-p", "hi"], options);
		expect(typo.code).toBe(2);
		expect(typo.stdout).toBe("");
		expect(typo.stderr).toContain("Unknown option: --taget");
	});
});
