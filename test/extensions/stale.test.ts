import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createEventBus } from "../../src/extensions/event-bus.js";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../../src/extensions/messages.js";
import { createExtensionRunner } from "../../src/extensions/runner.js";
import { createExtensionHarness } from "../../src/extensions/testing.js";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "../../src/extensions/types.js";

const PI_STALE_TEXT =
	"This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload(). For newSession, fork, and switchSession, move post-replacement work into withSession and use the ctx passed to withSession. For reload, do not use the old ctx after await ctx.reload().";

/** Every use an extension may make of `pi`, one per entry. */
const apiUses: Record<string, (pi: ExtensionAPI) => unknown> = {
	on: (pi) => pi.on("agent_start", () => {}),
	registerTool: (pi) =>
		pi.registerTool({
			name: "t",
			label: "t",
			description: "",
			parameters: {},
			execute: async () => ({ content: [], details: {} }),
		}),
	registerCommand: (pi) => pi.registerCommand("c", { handler: async () => {} }),
	registerShortcut: (pi) => pi.registerShortcut("ctrl+x", { handler: () => {} }),
	registerFlag: (pi) => pi.registerFlag("f", { type: "boolean" }),
	getFlag: (pi) => pi.getFlag("f"),
	registerMessageRenderer: (pi) => pi.registerMessageRenderer("x", () => undefined),
	sendMessage: (pi) => pi.sendMessage({ customType: "x", content: "", display: false }),
	sendUserMessage: (pi) => pi.sendUserMessage("hi"),
	appendEntry: (pi) => pi.appendEntry("x"),
	setSessionName: (pi) => pi.setSessionName("n"),
	getSessionName: (pi) => pi.getSessionName(),
	setLabel: (pi) => pi.setLabel("e", "l"),
	exec: (pi) => pi.exec("true", []),
	getActiveTools: (pi) => pi.getActiveTools(),
	getAllTools: (pi) => pi.getAllTools(),
	setActiveTools: (pi) => pi.setActiveTools([]),
	getCommands: (pi) => pi.getCommands(),
	setModel: (pi) => pi.setModel({} as never),
	getThinkingLevel: (pi) => pi.getThinkingLevel(),
	setThinkingLevel: (pi) => pi.setThinkingLevel("low"),
	registerProvider: (pi) => pi.registerProvider("p", {}),
	unregisterProvider: (pi) => pi.unregisterProvider("p"),
	events: (pi) => pi.events,
};

const contextUses: Record<string, (ctx: ExtensionContext) => unknown> = {
	ui: (ctx) => ctx.ui,
	mode: (ctx) => ctx.mode,
	hasUI: (ctx) => ctx.hasUI,
	cwd: (ctx) => ctx.cwd,
	sessionManager: (ctx) => ctx.sessionManager,
	modelRegistry: (ctx) => ctx.modelRegistry,
	model: (ctx) => ctx.model,
	scopedModels: (ctx) => ctx.scopedModels,
	thinkingLevel: (ctx) => ctx.thinkingLevel,
	isIdle: (ctx) => ctx.isIdle(),
	isProjectTrusted: (ctx) => ctx.isProjectTrusted(),
	signal: (ctx) => ctx.signal,
	abort: (ctx) => ctx.abort(),
	hasPendingMessages: (ctx) => ctx.hasPendingMessages(),
	shutdown: (ctx) => ctx.shutdown(),
	getContextUsage: (ctx) => ctx.getContextUsage(),
	compact: (ctx) => ctx.compact(),
	getSystemPrompt: (ctx) => ctx.getSystemPrompt(),
};

const commandUses: Record<string, (ctx: ExtensionCommandContext) => unknown> = {
	getSystemPromptOptions: (ctx) => ctx.getSystemPromptOptions(),
	waitForIdle: (ctx) => ctx.waitForIdle(),
	newSession: (ctx) => ctx.newSession(),
	fork: (ctx) => ctx.fork("e"),
	navigateTree: (ctx) => ctx.navigateTree("e"),
	switchSession: (ctx) => ctx.switchSession("/s"),
	reload: (ctx) => ctx.reload(),
};

function staleError(run: () => unknown): unknown {
	try {
		run();
	} catch (error) {
		return error;
	}
	return "did not throw";
}

describe("stale contexts after invalidate", () => {
	it("uses pi's exact text by default", () => {
		expect(STALE_EXTENSION_CONTEXT_MESSAGE).toBe(PI_STALE_TEXT);
	});

	it("makes every use of a captured pi, ctx and command ctx throw the message", async () => {
		let api: ExtensionAPI | undefined;
		let handlerCtx: ExtensionContext | undefined;
		let commandCtx: ExtensionCommandContext | undefined;
		const harness = await createExtensionHarness({
			factories: [
				(pi) => {
					api = pi;
					pi.on("session_start", (_event, ctx) => {
						handlerCtx = ctx;
					});
					pi.registerCommand("grab", {
						handler: async (_args, ctx) => {
							commandCtx = ctx;
						},
					});
				},
			],
		});
		await harness.start();
		await harness.command("/grab");
		// Before invalidation everything works.
		expect(() => handlerCtx!.cwd).not.toThrow();
		expect(() => api!.getActiveTools()).not.toThrow();

		harness.dispose();
		const failures: Record<string, unknown> = {};
		for (const [name, use] of Object.entries(apiUses)) failures[`pi.${name}`] = staleError(() => use(api!));
		for (const [name, use] of Object.entries(contextUses)) {
			failures[`ctx.${name}`] = staleError(() => use(handlerCtx!));
			failures[`commandCtx.${name}`] = staleError(() => use(commandCtx!));
		}
		for (const [name, use] of Object.entries(commandUses))
			failures[`commandCtx.${name}`] = staleError(() => use(commandCtx!));
		for (const [use, error] of Object.entries(failures)) {
			expect(error, use).toBeInstanceOf(SettleError);
			expect((error as SettleError).code, use).toBe("STALE_CONTEXT");
			expect((error as SettleError).message, use).toBe(PI_STALE_TEXT);
		}
		expect(Object.keys(failures)).toHaveLength(
			Object.keys(apiUses).length + 2 * Object.keys(contextUses).length + Object.keys(commandUses).length,
		);
	});

	it("keeps the first message when invalidated twice, and reports isStale", async () => {
		const { runner } = await createExtensionRunner([], { cwd: "/" });
		const ctx = runner.createContext();
		expect(runner.isStale).toBe(false);
		runner.invalidate("replaced by session B");
		runner.invalidate("second message");
		expect(runner.isStale).toBe(true);
		expect(() => ctx.isIdle()).toThrow("replaced by session B");
		expect(() => runner.createReplacedSessionContext().model).toThrow("replaced by session B");
	});

	it("ends the stale extensions' pi.events subscriptions on the shared bus", async () => {
		const bus = createEventBus();
		const received: string[] = [];
		const { runner } = await createExtensionRunner([], {
			cwd: "/",
			eventBus: bus,
			inlineFactories: [(pi) => pi.events.on("ping", () => void received.push("old"))],
		});
		await createExtensionRunner([], {
			cwd: "/",
			eventBus: bus,
			inlineFactories: [(pi) => pi.events.on("ping", () => void received.push("new"))],
		});
		bus.emit("ping", null);
		runner.invalidate();
		bus.emit("ping", null);
		expect(received).toEqual(["old", "new", "new"]);
	});

	it("does not affect a new runner's contexts", async () => {
		const first = await createExtensionRunner([], { cwd: "/a" });
		const second = await createExtensionRunner([], { cwd: "/b" });
		first.runner.invalidate();
		expect(second.runner.createContext().cwd).toBe("/b");
	});
});
