/**
 * A tool_call gate's `ctx.ui.confirm()` is open under `settle --rpc` when the host replaces the
 * session (`new_session`): the run is aborted and the new session starts, but the old session's
 * dialog stayed open. A later answer reached the old extension, whose `ctx.ui.notify` then threw
 * the stale-ctx error. What a host should see: the old session's open dialog ends with its no-UI
 * default while the old session is torn down (the gate's `notify` still works), stderr names the
 * dialog that was closed, and a late answer to it is dropped quietly. Replayed against a real
 * `settle --rpc` child on a scripted faux model, the gate a real extension file.
 * jmfederico/pi-web#109: a host's daemon settles an open dialog on every close path, runtime
 * teardown included; under SIGTERM settle ends it too, and its stderr line says why (no replacement).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-dialog-replaced-");

const GATE = `export default function (pi) {
	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash") return;
		const ok = await ctx.ui.confirm("Run it?", String(event.input.command));
		ctx.ui.notify("gate answered " + ok);
		if (!ok) return { block: true, reason: "Blocked" };
	});
}
`;

type Line = Record<string, unknown>;

/** Starts `settle --rpc` with the gate on a faux model that calls bash, prompts, and waits for the gate's confirm. */
async function promptUntilGateAsks(message: string): Promise<{ client: RpcClient; dialog: Line }> {
	const extension = join(cli.dir, "gate.mjs");
	writeFileSync(extension, GATE);
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }, "done"]));
	const client = new RpcClient(["--faux-script", script, "-e", extension], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const asked = client.next((line: Line) => line.type === "extension_ui_request" && line.method === "confirm");
	expect(await client.request({ id: "p", type: "prompt", message })).toMatchObject({ success: true });
	return { client, dialog: await asked };
}

describe("a dialog open when the session is replaced", () => {
	for (const replace of ["new_session", "switch_session"] as const) {
		it(`${replace}: the old session's confirm ends with false, its notify works, stderr names the dialog, a late answer is dropped`, async () => {
			const { client, dialog } = await promptUntilGateAsks("run it");
			const command =
				replace === "new_session"
					? { id: "n", type: "new_session" }
					: { id: "n", type: "switch_session", sessionPath: join(cli.dir, `${replace}-other.jsonl`) };
			expect(await client.request(command)).toMatchObject({ success: true, data: { cancelled: false } });
			const notices = client.lines
				.filter((line) => line.type === "extension_ui_request" && line.method === "notify")
				.map((line) => line.message);
			expect(notices).toEqual(["gate answered false"]);
			// Late: the dialog is gone, the answer is neither refused nor delivered.
			client.send({ type: "extension_ui_response", id: dialog.id, confirmed: true });
			expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
			expect(client.lines.filter((line) => line.command === "extension_ui_response")).toEqual([]);
			expect(await client.end()).toBe(0);
			expect(client.stderr).toBe(
				`[warning] the "confirm" dialog ${dialog.id} ("Run it?") ended with its default: the session it belongs to was replaced\n`,
			);
		});
	}
});

describe("jmfederico/pi-web#109: a dialog open when settle --rpc is told to stop", () => {
	it("jmfederico/pi-web#109: SIGTERM while a gate's confirm waits: the confirm ends with false (the gate's notify still reaches the host), the run ends aborted, exit 143; stderr names the dialog as ended because settle is ending its session, not as replaced", async () => {
		const { client, dialog } = await promptUntilGateAsks("go");
		client.child.kill("SIGTERM");
		expect(await client.exited).toBe(143);
		const notes = client.lines.filter((line) => line.type === "extension_ui_request" && line.method === "notify");
		expect(notes.map((line) => line.message)).toEqual(["gate answered false"]);
		expect(client.lines.filter((line) => line.type === "agent_end")).toMatchObject([{ aborted: true }]);
		expect(client.lines.filter((line) => line.type === "agent_settled")).toHaveLength(1);
		expect(client.stderr).toBe(
			`[warning] the "confirm" dialog ${dialog.id} ("Run it?") ended with its default: settle is ending its session\n`,
		);
	});
});
