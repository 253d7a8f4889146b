/**
 * The context a `withSession` callback gets after an extension's `ctx.newSession`, `ctx.fork` or
 * `ctx.switchSession` is that extension's: its `ctx.ui` notifications and dialogs name it
 * (`extensionPath` on `extension_notify` / `extension_dialog` events, and on a headless UI's
 * `onNotify` / `onDialog`), as its own `ctx.ui` does. A host's `runtime.newSession({ withSession })`
 * names nobody. Real session files, the faux provider, through the package root.
 */
import { describe, expect, it } from "vitest";
import {
	type AgentSession,
	type AgentSessionEvent,
	createHeadlessUIContext,
	type ExtensionAPI,
	type ExtensionUIContext,
	fauxAssistantMessage,
	type ReplacedSessionContext,
	SettleError,
} from "../../src/index.js";
import { loggingFactory, startRuntime, userEntryId, writeClosedSession } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

/** The extension under test: the harness's second inline factory (the event recorder is the first). */
const EXTENSION = "<inline:2>";

const t = useRuntimeWorkspace();

/** Commands that replace the session and, in the new one, notify and ask through `withSession`'s ctx.ui. */
function replacer(pi: ExtensionAPI) {
	pi.registerCommand("restart", {
		description: "A new session.",
		handler: async (_args, ctx) => {
			ctx.ui.notify("leaving");
			await ctx.newSession({
				withSession: async (fresh) => {
					fresh.ui.notify("in the new session");
					await fresh.ui.confirm("Keep going?", "");
				},
			});
		},
	});
	pi.registerCommand("branch", {
		description: "A fork at the entry given.",
		handler: async (entryId, ctx) => {
			await ctx.fork(entryId, { withSession: async (forked) => forked.ui.notify("in the fork", "warning") });
		},
	});
	pi.registerCommand("open", {
		description: "Switches to the file given.",
		handler: async (path, ctx) => {
			await ctx.switchSession(path, { withSession: async (switched) => void (await switched.ui.input("Why?")) });
		},
	});
	pi.registerCommand("chain", {
		description:
			"A new session, then with each withSession ctx in turn: a switch to the file given, a fork, a new session.",
		handler: async (path, ctx) => {
			// A replacement refuses another while it runs (its withSession included): each withSession
			// ctx replaces the session again once its callback is over.
			let fresh: ReplacedSessionContext | undefined;
			await ctx.newSession({
				withSession: async (c) => {
					const inside = await c.newSession().then(
						() => "accepted",
						(error: unknown) => (error instanceof SettleError ? error.code : String(error)),
					);
					c.ui.notify(`chain: new session (nested: ${inside})`);
					fresh = c;
				},
			});
			let switched: ReplacedSessionContext | undefined;
			await fresh!.switchSession(path, {
				withSession: async (c) => {
					c.ui.notify("chain: switched");
					switched = c;
				},
			});
			const first = switched!.sessionManager
				.getEntries()
				.find((entry) => entry.type === "message" && entry.message.role === "user");
			let forked: ReplacedSessionContext | undefined;
			await switched!.fork(first!.id, {
				withSession: async (c) => {
					c.ui.notify("chain: forked", "warning");
					forked = c;
				},
			});
			await forked!.newSession({ withSession: async (c) => void (await c.ui.confirm("Done?", "")) });
		},
	});
}

/** A runtime whose sessions bind `ui`, the closed session file to switch to, and the ui events of every session. */
async function start(ui?: ExtensionUIContext) {
	const log: string[] = [];
	const rec = loggingFactory(t.faux, log, [replacer]);
	const target = await writeClosedSession(rec, t.ws, t.faux, log, t.ws.beta, "beta work");
	const r = await startRuntime(rec.factory, t.ws, t.ws.alpha);
	t.runtime = r;
	const bind = (session: AgentSession) => session.bindExtensions(ui ? { uiContext: ui } : {});
	r.setRebindSession(bind);
	await bind(r.session);
	const events: AgentSessionEvent[] = [];
	const listen = (session: AgentSession) =>
		session.subscribe((event) => {
			if (event.type === "extension_notify" || event.type === "extension_dialog") events.push(event);
		});
	listen(r.session);
	r.onSessionReplaced(({ session }) => listen(session));
	return { r, target, events };
}

/** Runs the three commands (and a host's own newSession) in a runtime whose sessions bind `ui`. */
async function replaceThrice(ui?: ExtensionUIContext): Promise<AgentSessionEvent[]> {
	const { r, target, events } = await start(ui);
	await r.session.prompt("/restart");
	t.faux.setResponses([fauxAssistantMessage("an answer")]);
	await r.session.prompt("a question");
	await r.session.prompt(`/branch ${userEntryId(r.session, "a question")}`);
	await r.session.prompt(`/open ${target}`);
	await r.newSession({ withSession: async (ctx) => ctx.ui.notify("from the host") });
	return events;
}

describe("withSession's ctx.ui names the extension that replaced the session", () => {
	it("without a host UI: the extension_notify / extension_dialog events of withSession carry extensionPath", async () => {
		expect(await replaceThrice()).toEqual([
			{ type: "extension_notify", message: "leaving", notifyType: "info", extensionPath: EXTENSION },
			{ type: "extension_notify", message: "in the new session", notifyType: "info", extensionPath: EXTENSION },
			{ type: "extension_dialog", kind: "confirm", title: "Keep going?", answer: false, extensionPath: EXTENSION },
			{ type: "extension_notify", message: "in the fork", notifyType: "warning", extensionPath: EXTENSION },
			{ type: "extension_dialog", kind: "input", title: "Why?", answer: undefined, extensionPath: EXTENSION },
			{ type: "extension_notify", message: "from the host", notifyType: "info" },
		]);
	});

	it("with a headless UI the host bound: its onNotify and onDialog get the extension's path", async () => {
		const seen: unknown[][] = [];
		const ui = createHeadlessUIContext({
			onNotify: ({ message }, extensionPath) => seen.push(["notify", message, extensionPath]),
			onDialog: ({ kind }, extensionPath) => seen.push(["dialog", kind, extensionPath]),
		});
		await replaceThrice(ui);
		expect(seen).toEqual([
			["notify", "leaving", EXTENSION],
			["notify", "in the new session", EXTENSION],
			["dialog", "confirm", EXTENSION],
			["notify", "in the fork", EXTENSION],
			["dialog", "input", EXTENSION],
			["notify", "from the host", undefined],
		]);
	});
});

describe("withSession's ctx replaces the session again: the next withSession's ctx.ui names the extension too", () => {
	it("newSession → switchSession → fork → newSession, each through the previous withSession's ctx: every extension_notify / extension_dialog carries extensionPath", async () => {
		const { r, target, events } = await start();
		await r.session.prompt(`/chain ${target}`);
		expect(events).toEqual([
			{
				type: "extension_notify",
				message: "chain: new session (nested: BUSY)",
				notifyType: "info",
				extensionPath: EXTENSION,
			},
			{ type: "extension_notify", message: "chain: switched", notifyType: "info", extensionPath: EXTENSION },
			{ type: "extension_notify", message: "chain: forked", notifyType: "warning", extensionPath: EXTENSION },
			{ type: "extension_dialog", kind: "confirm", title: "Done?", answer: false, extensionPath: EXTENSION },
		]);
	});
});
