/**
 * `ctx.ui` in an SDK host that bound no UI (`session.bindExtensions()` without `uiContext`), as a
 * consumer reported: "notify vanishes silently". Extensions keep pi's no-UI answers (`hasUI` false,
 * dialogs answered at once with `undefined` / `false`), and each notification and dialog is now a
 * session event (`extension_notify`, `extension_dialog`) for `session.subscribe` listeners — also
 * after a reload, and not when the host bound a UI of its own. Real sessions on the faux provider.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionUIContext } from "../../src/extensions/types.js";
import { createHeadlessUIContext, type HeadlessUIContext, isHeadlessUIContext } from "../../src/extensions/ui.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

const harnesses: Harness[] = [];
afterEach(() => {
	for (const h of harnesses.splice(0)) h.cleanup();
});

const UI_EVENTS = new Set(["extension_notify", "extension_dialog"]);

/** An extension that, on `session_start`, notifies and opens every kind of dialog, logging the answers. */
function asker(log: unknown[]) {
	return (pi: ExtensionAPI) => {
		pi.on("session_start", async (event, ctx) => {
			ctx.ui.notify(`started (${event.reason})`);
			ctx.ui.notify("disk almost full", "warning");
			log.push({
				hasUI: ctx.hasUI,
				answers: [
					await ctx.ui.confirm("Delete the build folder?", "It has 3 files"),
					await ctx.ui.select("Pick a model", ["a", "b"]),
					await ctx.ui.input("Your name"),
					await ctx.ui.editor("Edit the plan", "draft"),
					await ctx.ui.custom(() => null),
				],
			});
			ctx.ui.setStatus("ext", "busy");
		});
	};
}

/** A harness whose extensions are not bound yet, and the UI events its listener gets. */
async function openSession(log: unknown[]) {
	const h = await createHarness({ extensionFactories: [asker(log)], bindExtensions: false });
	harnesses.push(h);
	const events: AgentSessionEvent[] = [];
	h.session.subscribe((event) => {
		if (UI_EVENTS.has(event.type)) events.push(event);
	});
	return { session: h.session, events };
}

/** The events of {@link asker}, each naming it (the harness's first inline factory). */
const EXPECTED = (reason: string) => [
	{ type: "extension_notify", message: `started (${reason})`, notifyType: "info", extensionPath: "<inline:1>" },
	{ type: "extension_notify", message: "disk almost full", notifyType: "warning", extensionPath: "<inline:1>" },
	{
		type: "extension_dialog",
		kind: "confirm",
		title: "Delete the build folder?",
		answer: false,
		extensionPath: "<inline:1>",
	},
	{ type: "extension_dialog", kind: "select", title: "Pick a model", answer: undefined, extensionPath: "<inline:1>" },
	{ type: "extension_dialog", kind: "input", title: "Your name", answer: undefined, extensionPath: "<inline:1>" },
	{ type: "extension_dialog", kind: "editor", title: "Edit the plan", answer: undefined, extensionPath: "<inline:1>" },
	{ type: "extension_dialog", kind: "custom", answer: undefined, extensionPath: "<inline:1>" },
];

describe("ctx.ui when the host bound no UI", () => {
	it("each notification and dialog is a session event; dialogs get pi's no-UI answers at once", async () => {
		const log: unknown[] = [];
		const { session, events } = await openSession(log);
		await session.bindExtensions({ onError: (error) => log.push(error) });
		expect(events).toEqual(EXPECTED("startup"));
		expect(log).toEqual([{ hasUI: false, answers: [false, undefined, undefined, undefined, undefined] }]);
	});

	it("after a reload too (the new extension runtime gets the same UI)", async () => {
		const log: unknown[] = [];
		const { session, events } = await openSession(log);
		await session.bindExtensions();
		events.length = 0;
		await session.reload();
		expect(events).toEqual(EXPECTED("reload"));
		expect(log).toHaveLength(2);
	});

	it("a host that bound a UI gets the calls there, and no events; binding only a mode keeps the events", async () => {
		const log: unknown[] = [];
		const { session, events } = await openSession(log);
		const notes: string[] = [];
		const hostUI: ExtensionUIContext = createHeadlessUIContext({ onNotify: ({ message }) => notes.push(message) });
		await session.bindExtensions({ uiContext: hostUI });
		expect(notes).toEqual(["started (startup)", "disk almost full"]);
		expect(events).toEqual([]);

		const log2: unknown[] = [];
		const other = await openSession(log2);
		await other.session.bindExtensions({ mode: "json" });
		expect(other.events).toEqual(EXPECTED("startup"));
	});

	it("a listener that throws does not reach the extension: its calls return, its dialogs are answered", async () => {
		const log: unknown[] = [];
		const { session, events } = await openSession(log);
		session.subscribe(() => {
			throw new Error("host bug");
		});
		const warned = new Promise<Error>((resolve) => process.once("warning", resolve));
		await session.bindExtensions();
		expect(events).toHaveLength(7);
		expect(log).toEqual([{ hasUI: false, answers: [false, undefined, undefined, undefined, undefined] }]);
		// Skipped, and reported once as a process warning.
		expect(String(await warned)).toContain("a session.subscribe listener failed: host bug");
	});

	it("regression: every event said nothing of its sender (one shared ctx.ui); now each names the extension whose handler, tool or command called", async () => {
		const seen: { ui: unknown[]; statuses: string[][] } = { ui: [], statuses: [] };
		const h = await createHarness({
			bindExtensions: false,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_start", (_event, ctx) => {
						ctx.ui.notify("first here");
						ctx.ui.setStatus("first", "ready");
					});
				},
				(pi: ExtensionAPI) => {
					pi.on("session_start", (_event, ctx) => {
						ctx.ui.notify("second here", "warning");
						// The state is the UI's, not the extension's: the first one's status is there.
						seen.statuses.push([...(ctx.ui as HeadlessUIContext).statuses.keys()]);
						seen.ui.push(isHeadlessUIContext(ctx.ui), ctx.hasUI);
					});
					pi.registerTool({
						name: "note",
						label: "Note",
						description: "Notifies.",
						parameters: { type: "object", properties: {} },
						execute: async (_id, _params, _signal, _update, ctx) => {
							ctx.ui.notify("from the tool");
							return { content: [{ type: "text", text: "noted" }], details: {} };
						},
					});
					pi.registerCommand("ask", {
						description: "Asks.",
						handler: async (_args, ctx) => {
							await ctx.ui.confirm("Sure?", "");
						},
					});
				},
			],
		});
		harnesses.push(h);
		const events: AgentSessionEvent[] = [];
		h.session.subscribe((event) => {
			if (UI_EVENTS.has(event.type)) events.push(event);
		});
		await h.session.bindExtensions();
		h.setResponses([fauxAssistantMessage(fauxToolCall("note", {})), fauxAssistantMessage("done")]);
		await h.session.prompt("use the tool");
		await h.session.prompt("/ask");
		// The host's own call on the UI names nobody.
		h.session.extensionRunner.getUIContext().notify("from the host");
		expect(events).toEqual([
			{ type: "extension_notify", message: "first here", notifyType: "info", extensionPath: "<inline:1>" },
			{ type: "extension_notify", message: "second here", notifyType: "warning", extensionPath: "<inline:2>" },
			{ type: "extension_notify", message: "from the tool", notifyType: "info", extensionPath: "<inline:2>" },
			{ type: "extension_dialog", kind: "confirm", title: "Sure?", answer: false, extensionPath: "<inline:2>" },
			{ type: "extension_notify", message: "from the host", notifyType: "info" },
		]);
		expect(seen).toEqual({ ui: [true, false], statuses: [["first"]] });
		const recorded = h.session.extensionRunner.getUIContext() as HeadlessUIContext;
		expect(recorded.notifications.map((n) => n.message)).toEqual([
			"first here",
			"second here",
			"from the tool",
			"from the host",
		]);
	});

	it("a headless UI a host bound gives its onNotify the sender; a host's own UI is the same object in every extension's ctx.ui and gets the calls unchanged", async () => {
		const uis: unknown[] = [];
		const notes: unknown[][] = [];
		const hostUI: ExtensionUIContext = createHeadlessUIContext({
			onNotify: (notification, extensionPath) => notes.push([notification, extensionPath]),
		});
		// A host's own UI: here a copy of a headless one (as a host that overrides a member makes it),
		// still headless (hasUI false) but not one createHeadlessUIContext made.
		const custom: ExtensionUIContext = { ...hostUI };
		for (const ui of [hostUI, custom]) {
			const h = await createHarness({
				bindExtensions: false,
				extensionFactories: [1, 2].map((n) => (pi: ExtensionAPI) => {
					pi.on("session_start", (_event, ctx) => {
						uis.push(ctx.ui);
						ctx.ui.notify(`hello ${n}`);
					});
				}),
			});
			harnesses.push(h);
			await h.session.bindExtensions({ uiContext: ui });
		}
		// A headless UI a host bound still names the sender (its own onNotify gets it); a host's own
		// UI object (not headless) is passed to every extension as it is.
		expect(uis[2]).toBe(custom);
		expect(uis[3]).toBe(custom);
		expect(uis[0]).not.toBe(uis[1]);
		expect(notes).toEqual([
			[{ message: "hello 1", type: "info" }, "<inline:1>"],
			[{ message: "hello 2", type: "info" }, "<inline:2>"],
			[{ message: "hello 1", type: "info" }, undefined],
			[{ message: "hello 2", type: "info" }, undefined],
		]);
	});
});
