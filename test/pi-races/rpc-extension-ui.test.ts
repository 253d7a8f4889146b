/**
 * Reports about the extension UI over RPC, replayed against a real `settle --rpc` child process on
 * the faux model. prime-agent#2111 (a host driving pi over RPC): a dialog that timed out on the
 * server stayed open in the host's UI, and the answer given later reached a request nobody waited
 * for. jmfederico/pi-web#106 (a web host): `ctx.ui.confirm()` resolved `false` at once, nothing
 * shown, while `ctx.hasUI` said true. What the extension should see: `hasUI` true and every dialog
 * sent to the host as an `extension_ui_request`; a timed-out dialog resolving to its default once,
 * an answer arriving after that ignored without a reply or an error line; the host's answers to the
 * dialogs after it delivered as given, a `cancelled` one as the dialog's default.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-ui-");

/** A command that asks four dialogs in turn and reports what it got with one notification. */
const ASKING_EXTENSION = `export default function (pi) {
	pi.registerCommand("ask", {
		description: "asks the host",
		handler: async (_args, ctx) => {
			const deploy = await ctx.ui.confirm("Deploy?", "to production", { timeout: 200 });
			const target = await ctx.ui.select("Target", ["staging", "production"]);
			const name = await ctx.ui.input("Release name", "v1");
			const sure = await ctx.ui.confirm("Really?", "last chance");
			ctx.ui.notify(JSON.stringify({ hasUI: ctx.hasUI, deploy, target, name: name ?? null, sure }), "info");
		},
	});
}
`;

/** Two editors nobody answers: one with a timeout, one whose signal is aborted once it was sent. */
const EDITING_EXTENSION = `export default function (pi) {
	pi.registerCommand("edit", {
		description: "opens editors",
		handler: async (_args, ctx) => {
			const timedOut = await ctx.ui.editor("Notes", "draft", { timeout: 200 });
			const controller = new AbortController();
			const pending = ctx.ui.editor("More notes", "", { signal: controller.signal });
			setImmediate(() => controller.abort());
			const aborted = await pending;
			ctx.ui.notify(JSON.stringify({ timedOut: timedOut ?? null, aborted: aborted ?? null }), "info");
		},
	});
}
`;

type Line = Record<string, unknown>;
const dialog = (method: string) => (line: Line) => line.type === "extension_ui_request" && line.method === method;

describe("prime-agent#2111, jmfederico/pi-web#106: extension dialogs over RPC", () => {
	it("prime-agent#2111: a dialog that timed out resolves to its default once; the host's late answer is ignored without a reply; the next dialogs get the host's answers; hasUI is true", async () => {
		const extension = join(cli.dir, "ask.mjs");
		writeFileSync(extension, ASKING_EXTENSION);
		const client = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const firstConfirm = client.next(dialog("confirm"));
		// The select only comes once the first confirm has resolved: by its timeout, nobody answered.
		const select = client.next(dialog("select"));
		// The command's prompt is answered once the command is done (as pi does): after the dialogs.
		const promptResponse = client.request({ id: "p", type: "prompt", message: "/ask" });
		const timedOut = await firstConfirm;
		expect(timedOut).toMatchObject({ title: "Deploy?", message: "to production", timeout: 200 });
		const pick = await select;
		// The host answers the timed-out dialog anyway.
		client.send({ type: "extension_ui_response", id: timedOut.id, confirmed: true });
		const input = client.next(dialog("input"));
		client.send({ type: "extension_ui_response", id: pick.id, value: "production" });
		const askName = await input;
		const secondConfirm = client.next(dialog("confirm"));
		client.send({ type: "extension_ui_response", id: askName.id, cancelled: true });
		const really = await secondConfirm;
		const report = client.next(dialog("notify"));
		client.send({ type: "extension_ui_response", id: really.id, confirmed: true });
		expect(JSON.parse(String((await report).message))).toEqual({
			hasUI: true,
			deploy: false,
			target: "production",
			name: null,
			sure: true,
		});
		expect(await promptResponse).toMatchObject({ success: true, data: { disposition: "handled" } });
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);
		// Nothing answered the late response: one response per request id, no error line.
		expect(client.lines.filter((line) => line.type === "response").map((line) => line.id)).toEqual(["p", "s"]);
		expect(client.lines.filter((line) => line.type === "extension_error")).toEqual([]);
		expect(client.stderr).toBe("");
	});

	it("an editor honours its dialog options as select, confirm and input do: a timeout (sent with the request) and an aborted signal end it with undefined; a late answer gets no reply", async () => {
		const extension = join(cli.dir, "edit.mjs");
		writeFileSync(extension, EDITING_EXTENSION);
		const client = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const first = client.next(dialog("editor"));
		const report = client.next(dialog("notify"));
		const promptResponse = client.request({ id: "p", type: "prompt", message: "/edit" });
		expect(await first).toMatchObject({ title: "Notes", prefill: "draft", timeout: 200 });
		expect(JSON.parse(String((await report).message))).toEqual({ timedOut: null, aborted: null });
		client.send({ type: "extension_ui_response", id: (await first).id, value: "too late" });
		expect(await promptResponse).toMatchObject({ success: true, data: { disposition: "handled" } });
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);
		expect(client.lines.filter((line) => line.type === "response").map((line) => line.id)).toEqual(["p", "s"]);
		expect(client.lines.filter(dialog("editor")).map((line) => line.title)).toEqual(["Notes", "More notes"]);
		expect(client.stderr).toBe("");
	});
});
