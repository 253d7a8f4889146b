/**
 * Reports about the extension UI over RPC, replayed against a real `settle --rpc` child process on
 * the faux model. prime-agent#2111 (a host driving pi over RPC): a dialog that timed out on the
 * server stayed open in the host's UI, and the answer given later reached a request nobody waited
 * for. jmfederico/pi-web#106 (a web host): `ctx.ui.confirm()` resolved `false` at once, nothing
 * shown, while `ctx.hasUI` said true. What the extension should see: `hasUI` true and every dialog
 * sent to the host as an `extension_ui_request`; a timed-out dialog resolving to its default once,
 * an answer arriving after that ignored without a reply or an error line; the host's answers to the
 * dialogs after it delivered as given, a `cancelled` one as the dialog's default. agegr/pi-web#462
 * (a web host): its single dialog slot broke flows with two dialogs open at once; what the host
 * should get: both requests, each with its own id, and each answer reaching its own dialog.
 * mikeyobrien/rho#33 (a web host): `notify`, `setStatus`, `setWidget` and `setTitle` showed nothing;
 * what the host should get: each as a request with pi's fields and the extension's text.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { rpcOnExtension } from "./helpers.js";

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
		const client = rpcOnExtension(cli, "ask.mjs", ASKING_EXTENSION);
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
		const client = rpcOnExtension(cli, "edit.mjs", EDITING_EXTENSION);
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

/** A command asking a select and a confirm at once, and a gate asking before each bash call. */
const TWO_AT_ONCE_EXTENSION = `export default function (pi) {
	pi.registerCommand("setup", {
		description: "asks two things at once",
		handler: async (_args, ctx) => {
			const [target, sure] = await Promise.all([
				ctx.ui.select("Target", ["staging", "production"]),
				ctx.ui.confirm("Sure?", "both at once"),
			]);
			ctx.ui.notify(JSON.stringify({ target, sure }), "info");
		},
	});
	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName !== "bash") return;
		const ok = await ctx.ui.confirm("Run?", event.input.command);
		if (!ok) return { block: true, reason: "denied: " + event.input.command };
	});
}
`;

describe("agegr/pi-web#462: two dialogs open at once over RPC", () => {
	it("agegr/pi-web#462: a command's select and confirm are both sent before either is answered, each with its own id; answered in reverse order, each resolves to its own answer; two parallel bash calls' gates (asked one after the other, as pi) each get theirs: the allowed call runs, the denied one is blocked", async () => {
		const extension = join(cli.dir, "two.mjs");
		writeFileSync(extension, TWO_AT_ONCE_EXTENSION);
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{
					toolCalls: [
						{ name: "bash", arguments: { command: "echo first" } },
						{ name: "bash", arguments: { command: "echo second" } },
					],
				},
				"both handled",
			]),
		);
		const client = new RpcClient(["--faux-script", script, "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const pick = client.next(dialog("select"));
		const ask = client.next(dialog("confirm"));
		const command = client.request({ id: "c", type: "prompt", message: "/setup" });
		const [select, confirm] = await Promise.all([pick, ask]);
		expect(select.id).not.toBe(confirm.id);
		const report = client.next(dialog("notify"));
		client.send({ type: "extension_ui_response", id: confirm.id, confirmed: true });
		client.send({ type: "extension_ui_response", id: select.id, value: "production" });
		expect(JSON.parse(String((await report).message))).toEqual({ target: "production", sure: true });
		expect(await command).toMatchObject({ success: true });

		// The gates of a parallel batch are asked one after the other (as in pi): each gets its own answer.
		const gate = (command: string) => (line: Line) => dialog("confirm")(line) && line.message === command;
		const first = client.next(gate("echo first"));
		const second = client.next(gate("echo second"));
		const settled = client.next((line: Line) => line.type === "agent_settled");
		expect(await client.request({ id: "p", type: "prompt", message: "run both" })).toMatchObject({ success: true });
		client.send({ type: "extension_ui_response", id: (await first).id, confirmed: false });
		client.send({ type: "extension_ui_response", id: (await second).id, confirmed: true });
		await settled;
		const ends = client.lines.filter((line) => line.type === "tool_execution_end");
		expect(ends.map((line) => [line.isError, line.result])).toEqual([
			[true, { content: [{ type: "text", text: "denied: echo first" }], details: {} }],
			[false, { content: [{ type: "text", text: "second\n" }] }],
		]);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});

/** A command using every fire-and-forget UI call, with line breaks, escapes and a long text. */
const FIRE_AND_FORGET_EXTENSION = `export default function (pi) {
	pi.registerCommand("usage", {
		description: "reports usage",
		handler: async (_args, ctx) => {
			ctx.ui.notify("Usage refreshed\\n\\x1b[32m40%\\x1b[0m used", "info");
			ctx.ui.setStatus("usage", "40% \\x07");
			ctx.ui.setWidget("bars", ["5h ####", "7d ##"], { placement: "belowEditor" });
			ctx.ui.setTitle("pi - usage");
			ctx.ui.notify("x".repeat(200000), "warning");
		},
	});
}
`;

describe("mikeyobrien/rho#33: fire-and-forget extension UI calls over RPC", () => {
	it("mikeyobrien/rho#33: notify, setStatus, setWidget and setTitle each reach the host as an extension_ui_request with pi's fields, the text as the extension gave it (line breaks and escapes JSON-escaped on one line, a 200 000-character notification whole), before the command's response", async () => {
		const client = rpcOnExtension(cli, "usage.mjs", FIRE_AND_FORGET_EXTENSION);
		expect(await client.request({ id: "u", type: "prompt", message: "/usage" })).toMatchObject({ success: true });
		const requests = client.lines
			.filter((line) => line.type === "extension_ui_request")
			.map(({ id, type: _type, ...fields }) => {
				expect(typeof id).toBe("string");
				return fields;
			});
		expect(requests).toEqual([
			{ method: "notify", message: "Usage refreshed\n\x1b[32m40%\x1b[0m used", notifyType: "info" },
			{ method: "setStatus", statusKey: "usage", statusText: "40% \x07" },
			{ method: "setWidget", widgetKey: "bars", widgetLines: ["5h ####", "7d ##"], widgetPlacement: "belowEditor" },
			{ method: "setTitle", title: "pi - usage" },
			{ method: "notify", message: "x".repeat(200000), notifyType: "warning" },
		]);
		const response = client.lines.findIndex((line) => line.type === "response" && line.id === "u");
		expect(client.lines.findLastIndex((line) => line.type === "extension_ui_request")).toBeLessThan(response);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});
