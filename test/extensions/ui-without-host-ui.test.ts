/**
 * `ctx.ui` in an SDK host that bound no UI (`session.bindExtensions()` without `uiContext`), as a
 * consumer reported: "notify vanishes silently". Extensions keep pi's no-UI answers (`hasUI` false,
 * dialogs answered at once with `undefined` / `false`), and each notification and dialog is now a
 * session event (`extension_notify`, `extension_dialog`) for `session.subscribe` listeners — also
 * after a reload, and not when the host bound a UI of its own. Real sessions on the faux provider.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionUIContext } from "../../src/extensions/types.js";
import { createHeadlessUIContext } from "../../src/extensions/ui.js";
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

const EXPECTED = (reason: string) => [
	{ type: "extension_notify", message: `started (${reason})`, notifyType: "info" },
	{ type: "extension_notify", message: "disk almost full", notifyType: "warning" },
	{ type: "extension_dialog", kind: "confirm", title: "Delete the build folder?", answer: false },
	{ type: "extension_dialog", kind: "select", title: "Pick a model", answer: undefined },
	{ type: "extension_dialog", kind: "input", title: "Your name", answer: undefined },
	{ type: "extension_dialog", kind: "editor", title: "Edit the plan", answer: undefined },
	{ type: "extension_dialog", kind: "custom", answer: undefined },
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
});
