/**
 * PiDeck#126 (a desktop host driving pi over RPC): a permission gate's `ctx.ui.confirm()` before
 * `rm -rf` always came back as a denial, whatever the user clicked. The host answered the confirm
 * with `{ value: "是" }` (or `"否"`), the field of a `select`; pi reads any answer without
 * `confirmed` as `false` and says nothing, so the command was blocked "by the user" who had said
 * yes. Replayed against a real `settle --rpc` child on a scripted faux model, the gate a real
 * extension file. What the host should see: an error line for its answer, naming the field a
 * confirm needs; the dialog still ends with its default (the call blocked, the session goes on),
 * and a well-formed answer to the next confirm goes through.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-dialog-answers-");

/** pi's permission-gate example: a confirm before a dangerous `bash` command, a block on "no". */
const PERMISSION_GATE = `export default function (pi) {
	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash" || !String(event.input.command).includes("rm -rf")) return;
		const ok = await ctx.ui.confirm("Dangerous command", String(event.input.command));
		if (!ok) return { block: true, reason: "Blocked by user" };
	});
}
`;

type Line = Record<string, unknown>;
const confirmRequest = (line: Line) => line.type === "extension_ui_request" && line.method === "confirm";

describe("PiDeck#126: a confirm answered with the wrong field", () => {
	it("PiDeck#126: { value } for a confirm gets an error line naming `confirmed`; the gate blocks the call; a later { confirmed: true } lets the next call run", async () => {
		const extension = join(cli.dir, "permission-gate.mjs");
		writeFileSync(extension, PERMISSION_GATE);
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ toolCalls: [{ name: "bash", arguments: { command: "rm -rf build && echo first" } }] },
				{ toolCalls: [{ name: "bash", arguments: { command: "rm -rf build && echo second" } }] },
				"done",
			]),
		);
		const client = new RpcClient(["--faux-script", script, "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const first = client.next(confirmRequest);
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p", type: "prompt", message: "clean the build" })).toMatchObject({
			success: true,
		});
		const asked = await first;
		const second = client.next((line) => confirmRequest(line) && line.id !== asked.id);
		const refusal = client.next((line) => line.type === "response" && line.id === asked.id);
		client.send({ type: "extension_ui_response", id: asked.id, value: "是" });
		expect(await refusal).toEqual({
			id: asked.id,
			type: "response",
			command: "extension_ui_response",
			success: false,
			error:
				'a "confirm" dialog is answered with "confirmed" (a boolean) or "cancelled": true; got {"value":"是"}: the dialog ended with its default',
		});
		const again = await second;
		client.send({ type: "extension_ui_response", id: again.id, confirmed: true });
		await settled;
		const results = client.lines
			.filter((line) => line.type === "tool_execution_end")
			.map((line) => {
				const result = line.result as { content: { text?: string }[] };
				return [line.isError, result.content.map((part) => part.text ?? "").join("")];
			});
		expect(results).toEqual([
			[true, "Blocked by user"],
			[false, "second\n"],
		]);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});
