/**
 * Reports about the extension UI surface (`ctx.ui`, `ctx.hasUI`, `ctx.mode`) in each mode,
 * replayed against real `settle -i` / `settle --rpc` child processes on the faux model and a real
 * SDK session.
 *
 * oh-my-pi#6805: in the interactive TUI, `ctx.ui.confirm()` dropped its `{ signal }`: an extension
 * that aborted its own confirmation could not close it, the Allow/Deny dialog stayed up, and the
 * next key the user pressed answered a question nobody waited for any more.
 *
 * prime-agent#2064, rpiv-mono#143: over RPC, `ctx.ui.theme` threw "Theme not initialized", and a
 * `setWidget(key, factory)` was dropped silently while the string-array form travelled. What an
 * extension should see under `--rpc`: a theme it can call (plain text, no colour codes), string
 * widgets sent to the host, a component factory not sent and not an error.
 *
 * pi#8735: under `--mode rpc` pi binds the extensions (runs every `session_start` handler) before
 * it reads stdin: a `session_start` handler that opens a dialog waits for an answer nobody reads,
 * for good, and a `get_state` probe sent meanwhile is never answered. Replayed, Settle had it too;
 * and once stdin ended, a dialog opened after (by a `session_shutdown` handler) waited for good too,
 * so `settle --rpc` never exited.
 *
 * pi#9275: an SDK host that binds its own UI context with a `mode` other than pi's UI modes: is
 * `ctx.hasUI` about the mode, or about whether a UI is bound? pi derives it from the bound context
 * (`ExtensionRunner.hasUI()`), so `mode: "print"` with a host UI gives `hasUI` true and the host's
 * dialogs, and `mode: "rpc"` with no UI gives `hasUI` false and the no-UI answers.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionUIContext } from "../../src/extensions/types.js";
import { createHeadlessUIContext } from "../../src/extensions/ui.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { rpcOnExtension } from "./helpers.js";

const cli = useCliProject("settle-pi-races-extension-ui-modes-");

const harnesses: Harness[] = [];
afterEach(() => {
	for (const h of harnesses.splice(0)) h.cleanup();
});

/** `/guard` opens a confirmation its own signal closes, then a second one; it reports both answers. */
const GUARD_EXTENSION = `export default function (pi) {
	pi.registerCommand("guard", {
		description: "asks twice",
		handler: async (_args, ctx) => {
			const controller = new AbortController();
			setTimeout(() => controller.abort(), 100);
			const first = await ctx.ui.confirm("High-risk command", "Allow rm -rf build?", { signal: controller.signal });
			ctx.ui.notify("first closed: " + first, "info");
			const second = await ctx.ui.confirm("Second command", "Allow ls?");
			ctx.ui.notify("second answered: " + second, "info");
		},
	});
}
`;

describe("oh-my-pi#6805: a confirmation closed by the extension's own signal", () => {
	it("oh-my-pi#6805: settle -i: a confirm whose signal aborts resolves false and leaves no question open; the y typed next answers the next dialog, not the closed one", async () => {
		const extension = join(cli.dir, "guard.mjs");
		writeFileSync(extension, GUARD_EXTENSION);
		const chat = new Repl(["--faux", "--no-session", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const from = chat.mark();
		chat.send("/guard");
		// Nobody answers the first: the extension's signal closes it.
		await chat.until("first closed: false", from);
		await chat.until("Second command: Allow ls? [y/N] ", from);
		chat.send("y");
		const output = await chat.idle(from, "second answered: true");
		expect(output).toContain("High-risk command: Allow rm -rf build? [y/N] ");
		// The y reached the second dialog only, and nothing was sent to the model.
		expect(output.match(/second answered/g)).toHaveLength(1);
		expect(await chat.say("/session")).toContain("messages: 0 in context (0 yours");
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
	});
});

/** On `session_start`: uses the theme, sets a factory widget and a lines widget, reports. */
const RPC_WIDGET_EXTENSION = `export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		let styled;
		try {
			styled = ctx.ui.theme.bold(ctx.ui.theme.fg("accent", "todo"));
		} catch (error) {
			styled = "threw: " + error.message;
		}
		ctx.ui.setWidget("todo-factory", () => ({ render: () => ["from a factory"], invalidate() {} }), { placement: "aboveEditor" });
		ctx.ui.setWidget("todo-lines", ["- [ ] write the test"], { placement: "belowEditor" });
		ctx.ui.notify(JSON.stringify({ mode: ctx.mode, hasUI: ctx.hasUI, styled }), "info");
	});
}
`;

type Line = Record<string, unknown>;

describe("prime-agent#2064, rpiv-mono#143: the theme and widgets under --rpc", () => {
	it("prime-agent#2064, rpiv-mono#143: settle --rpc: ctx.ui.theme works (plain text); a string-array widget reaches the host, a factory widget is not sent and raises no error", async () => {
		const client = rpcOnExtension(cli, "widgets.mjs", RPC_WIDGET_EXTENSION);
		const report = client.next((line: Line) => line.type === "extension_ui_request" && line.method === "notify");
		expect(JSON.parse(String((await report).message))).toEqual({ mode: "rpc", hasUI: true, styled: "todo" });
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);
		const widgets = client.lines.filter((line) => line.type === "extension_ui_request" && line.method === "setWidget");
		expect(widgets).toEqual([
			{
				type: "extension_ui_request",
				id: expect.any(String),
				method: "setWidget",
				widgetKey: "todo-lines",
				widgetLines: ["- [ ] write the test"],
				widgetPlacement: "belowEditor",
			},
		]);
		expect(client.lines.filter((line) => line.type === "extension_error")).toEqual([]);
		expect(client.stderr).toBe("");
	});
});

/** Asks on `session_start` (no timeout) and on `session_shutdown`; writes the answers to `answers.txt`. */
const STARTUP_DIALOG_EXTENSION = `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		const name = await ctx.ui.input("Project name", "demo");
		appendFileSync("answers.txt", "start: " + name + "\\n");
	});
	pi.on("session_shutdown", async (_event, ctx) => {
		const save = await ctx.ui.confirm("Save the notes?", "before quitting");
		appendFileSync("answers.txt", "shutdown: " + save + "\\n");
	});
}
`;

describe("pi#8735: a dialog from session_start under --rpc", () => {
	it("pi#8735: settle --rpc: a session_start dialog gets the host's answer (stdin is read while session_start runs); a get_state sent meanwhile is answered after it; a session_shutdown dialog after stdin ended resolves to its default and settle exits", async () => {
		const client = rpcOnExtension(cli, "startup-dialog.mjs", STARTUP_DIALOG_EXTENSION);
		const asked = await client.next((line: Line) => line.type === "extension_ui_request" && line.method === "input");
		expect(asked).toMatchObject({ title: "Project name", placeholder: "demo" });
		// An embedder's readiness probe, sent while session_start still waits.
		const state = client.request({ id: "probe", type: "get_state" });
		client.send({ type: "extension_ui_response", id: asked.id, value: "kiwi" });
		expect(await state).toMatchObject({ id: "probe", success: true });
		expect(readFileSync(join(cli.project, "answers.txt"), "utf8")).toBe("start: kiwi\n");
		// The host goes away: nobody can answer the shutdown dialog.
		expect(await client.end()).toBe(0);
		expect(readFileSync(join(cli.project, "answers.txt"), "utf8")).toBe("start: kiwi\nshutdown: false\n");
		expect(client.stderr).toBe("");
	});
});

/** On `session_start`, records what the extension sees and one dialog's answer. */
function observer(log: unknown[]) {
	return (pi: ExtensionAPI) => {
		pi.on("session_start", async (_event, ctx) => {
			log.push({ mode: ctx.mode, hasUI: ctx.hasUI, confirmed: await ctx.ui.confirm("Proceed?", "host question") });
		});
	};
}

describe("pi#9275: ctx.hasUI for an SDK host's own UI context", () => {
	it("pi#9275: hasUI follows the bound UI context, not the mode: a host UI under mode print answers the dialog (hasUI true); mode rpc with no UI gets the no-UI answer (hasUI false)", async () => {
		const hostAnswers: string[] = [];
		const headless = createHeadlessUIContext();
		const hostUI: ExtensionUIContext = {
			...headless,
			confirm: async (title) => {
				hostAnswers.push(title);
				return true;
			},
		};
		const withUI: unknown[] = [];
		const a = await createHarness({ extensionFactories: [observer(withUI)], bindExtensions: false });
		harnesses.push(a);
		await a.session.bindExtensions({ mode: "print", uiContext: hostUI });
		expect(withUI).toEqual([{ mode: "print", hasUI: true, confirmed: true }]);
		expect(hostAnswers).toEqual(["Proceed?"]);

		const withoutUI: unknown[] = [];
		const b = await createHarness({ extensionFactories: [observer(withoutUI)], bindExtensions: false });
		harnesses.push(b);
		await b.session.bindExtensions({ mode: "rpc" });
		expect(withoutUI).toEqual([{ mode: "rpc", hasUI: false, confirmed: false }]);
	});
});
