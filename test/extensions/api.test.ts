import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { createEventBus } from "../../src/extensions/event-bus.js";
import { instantiateExtensions } from "../../src/extensions/loader.js";
import { RUNTIME_NOT_INITIALIZED_MESSAGE } from "../../src/extensions/messages.js";
import { createExtensionRunner, parseCommandInvocation } from "../../src/extensions/runner.js";
import { createExtensionHarness } from "../../src/extensions/testing.js";
import type {
	ExtensionAPI,
	ExtensionContextActions,
	ExtensionFactory,
	ExtensionRuntimeActions,
	ProviderConfig,
} from "../../src/extensions/types.js";
import type { Model } from "../../src/llm/types.js";
import { runnerWith, withoutStacks } from "./helpers.js";

const echoTool = (name: string, text = name) => ({
	name,
	label: name,
	description: `says ${text}`,
	parameters: Type.Object({}),
	execute: async () => ({ content: [{ type: "text" as const, text }], details: undefined }),
});

const command = (handler: () => void = () => {}) => ({ description: "d", handler: async () => handler() });

describe("tools", () => {
	it("lists registered tools with their extension's source info; the first registration of a name wins", async () => {
		const { runner } = await createExtensionRunner(
			[
				{
					path: "/proj/.settle/extensions/a.ts",
					resolvedPath: "/proj/.settle/extensions/a.ts",
					source: "project",
					factory: (pi) => pi.registerTool(echoTool("shared", "from a")),
				},
				{
					path: "/home/u/.settle/agent/extensions/b.ts",
					resolvedPath: "/home/u/.settle/agent/extensions/b.ts",
					source: "global",
					factory: (pi) => {
						pi.registerTool(echoTool("shared", "from b"));
						pi.registerTool(echoTool("only_b"));
					},
				},
			],
			{ cwd: "/proj", inlineFactories: [(pi) => pi.registerTool(echoTool("inline_tool"))] },
		);
		const tools = runner.getAllRegisteredTools();
		expect(tools.map((t) => [t.definition.name, t.definition.description, t.sourceInfo])).toEqual([
			[
				"shared",
				"says from a",
				{
					path: "/proj/.settle/extensions/a.ts",
					source: "local",
					scope: "project",
					origin: "top-level",
					baseDir: "/proj/.settle/extensions",
				},
			],
			[
				"only_b",
				"says only_b",
				{
					path: "/home/u/.settle/agent/extensions/b.ts",
					source: "local",
					scope: "user",
					origin: "top-level",
					baseDir: "/home/u/.settle/agent/extensions",
				},
			],
			[
				"inline_tool",
				"says inline_tool",
				{ path: "<inline:1>", source: "inline", scope: "temporary", origin: "top-level" },
			],
		]);
		expect(runner.getToolDefinition("shared")?.description).toBe("says from a");
		expect(runner.getToolDefinition("missing")).toBeUndefined();
	});

	it("refreshes the session's tools when a tool is registered after binding, not while loading", async () => {
		const harness = await createExtensionHarness({
			factories: [
				(pi) => {
					pi.registerTool(echoTool("at_load"));
					pi.registerCommand("add", { handler: async (name) => pi.registerTool(echoTool(name)) });
				},
			],
			activeTools: ["read"],
		});
		expect(harness.callsOf("refreshTools")).toEqual([]);
		await harness.command("/add later_tool");
		expect(harness.callsOf("refreshTools")).toHaveLength(1);
		// F.1 runtime refresh: a tool that was not registered before becomes active.
		expect(harness.activeTools).toEqual(["read", "later_tool"]);
	});

	it("rejects malformed registrations with errors that say what is needed", async () => {
		const { loadErrors } = await runnerWith(
			(pi) => pi.registerTool({ name: "", execute: async () => ({}) } as never),
			(pi) => pi.registerTool({ name: "x" } as never),
			(pi) => pi.on("agent_start", "nope" as never),
			(pi) => pi.registerCommand("two words", command()),
			(pi) => pi.registerFlag("--dash", { type: "boolean" }),
			(pi) => pi.registerFlag("kind", { type: "number" as never }),
		);
		expect(loadErrors.map((e) => e.error)).toEqual([
			"Failed to load extension: pi.registerTool() needs a definition with a non-empty string name.",
			'Failed to load extension: pi.registerTool("x") needs an execute(toolCallId, params, signal, onUpdate, ctx) function.',
			'Failed to load extension: pi.on("agent_start") needs a handler function.',
			'Failed to load extension: pi.registerCommand() needs a command name without spaces (got "two words").',
			'Failed to load extension: pi.registerFlag() needs a flag name without leading dashes (got "--dash").',
			'Failed to load extension: pi.registerFlag("kind") needs type "boolean" or "string".',
		]);
	});
});

describe("commands", () => {
	it("keeps unique names and numbers duplicates name:1, name:2 … in load order", async () => {
		const { runner } = await runnerWith(
			(pi) => {
				pi.registerCommand("deploy", command());
				pi.registerCommand("review", command());
			},
			(pi) => pi.registerCommand("deploy", command()),
			(pi) => {
				pi.registerCommand("deploy:2", command()); // collides with a numbered name: pi skips to the next free suffix
				pi.registerCommand("deploy", command());
			},
		);
		expect(runner.getRegisteredCommands().map((c) => [c.name, c.invocationName, c.sourceInfo.path])).toEqual([
			["deploy", "deploy:1", "<inline:1>"],
			["review", "review", "<inline:1>"],
			["deploy", "deploy:2", "<inline:2>"],
			["deploy:2", "deploy:2:2", "<inline:3>"],
			["deploy", "deploy:3", "<inline:3>"],
		]);
		expect(runner.getCommand("deploy")).toBeUndefined();
		expect(runner.getCommand("deploy:3")?.sourceInfo.path).toBe("<inline:3>");
		expect(runner.getCommandInfos()[1]).toEqual({
			name: "review",
			description: "d",
			source: "extension",
			sourceInfo: { path: "<inline:1>", source: "inline", scope: "temporary", origin: "top-level" },
		});
	});

	it("gives a name registered twice by the same extension to the later registration", async () => {
		const ran: string[] = [];
		const { runner } = await runnerWith((pi) => {
			pi.registerCommand(
				"go",
				command(() => ran.push("first")),
			);
			pi.registerCommand(
				"go",
				command(() => ran.push("second")),
			);
		});
		expect(runner.getRegisteredCommands().map((c) => c.invocationName)).toEqual(["go"]);
		await runner.dispatchCommand("/go");
		expect(ran).toEqual(["second"]);
	});

	it("dispatches /name args to the handler with a command context, and reports a throwing handler as handled", async () => {
		const seen: unknown[] = [];
		const { runner, errors } = await runnerWith((pi) => {
			pi.registerCommand("say", {
				handler: async (args, ctx) => {
					seen.push(args, typeof ctx.waitForIdle, typeof ctx.fork);
				},
			});
			pi.registerCommand("fail", {
				handler: () => {
					throw new Error("command broke");
				},
			});
		});
		expect(await runner.dispatchCommand("/say hello  world ")).toBe(true);
		expect(await runner.dispatchCommand("/say")).toBe(true);
		expect(seen).toEqual(["hello  world ", "function", "function", "", "function", "function"]);
		expect(await runner.dispatchCommand("/fail now")).toBe(true);
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "command:fail", event: "command", error: "command broke" },
		]);
		expect(await runner.dispatchCommand("/unknown")).toBe(false);
		expect(await runner.dispatchCommand("say hi")).toBe(false);
	});

	it("parses invocations like pi", () => {
		expect(parseCommandInvocation("/x")).toEqual({ name: "x", args: "" });
		expect(parseCommandInvocation("/x a b")).toEqual({ name: "x", args: "a b" });
		expect(parseCommandInvocation("/x ")).toEqual({ name: "x", args: "" });
		expect(parseCommandInvocation("x")).toBeUndefined();
	});

	it("a line break or tab ends a command's name too (pi ends it at a space only: `/deploy⏎staging` was no command)", () => {
		expect(parseCommandInvocation("/deploy\nstaging now")).toEqual({ name: "deploy", args: "staging now" });
		expect(parseCommandInvocation("/deploy\tstaging")).toEqual({ name: "deploy", args: "staging" });
		expect(parseCommandInvocation("/deploy\r\nstaging")).toEqual({ name: "deploy", args: "\nstaging" });
	});

	it("rejects session control from a command context until the host binds it, then delegates", async () => {
		const { runner } = await runnerWith();
		const ctx = runner.createCommandContext();
		await expect(ctx.newSession()).rejects.toThrow(
			"ctx.newSession() is not available: the host did not bind command actions (ExtensionRunner.bindCommandContext).",
		);
		const calls: unknown[] = [];
		runner.bindCommandContext({
			waitForIdle: async () => void calls.push("idle"),
			newSession: async (options) => {
				calls.push(["new", options?.parentSession]);
				return { cancelled: false };
			},
			fork: async (entryId, options) => {
				calls.push(["fork", entryId, options?.position]);
				return { cancelled: true };
			},
			navigateTree: async (id) => {
				calls.push(["tree", id]);
				return { cancelled: false };
			},
			switchSession: async (path) => {
				calls.push(["switch", path]);
				return { cancelled: false };
			},
			reload: async () => void calls.push("reload"),
		});
		await ctx.waitForIdle();
		expect(await ctx.newSession({ parentSession: "/p.jsonl" })).toEqual({ cancelled: false });
		expect(await ctx.fork("e1", { position: "at" })).toEqual({ cancelled: true });
		await ctx.navigateTree("e2");
		await ctx.switchSession("/s.jsonl");
		await ctx.reload();
		expect(calls).toEqual([
			"idle",
			["new", "/p.jsonl"],
			["fork", "e1", "at"],
			["tree", "e2"],
			["switch", "/s.jsonl"],
			"reload",
		]);
	});
});

describe("flags", () => {
	const flagged: ExtensionFactory[] = [
		(pi) => {
			pi.registerFlag("plan", { type: "boolean", default: false, description: "plan mode" });
			pi.registerFlag("alias", { type: "string", default: "fast" });
		},
		(pi) => pi.registerFlag("plan", { type: "string", default: "ignored" }),
	];

	it("keeps the first registration of a name and its default; getFlag answers only the registering extension", async () => {
		const readers: Array<() => unknown> = [];
		const { runner } = await runnerWith(...flagged, (pi) => {
			pi.registerFlag("own", { type: "string" });
			readers.push(() => [pi.getFlag("own"), pi.getFlag("plan")]);
		});
		expect([...runner.getFlags().values()].map((f) => [f.name, f.type, f.extensionPath])).toEqual([
			["plan", "boolean", "<inline:1>"],
			["alias", "string", "<inline:1>"],
			["own", "string", "<inline:3>"],
		]);
		expect(runner.getFlagValues()).toEqual(
			new Map<string, boolean | string>([
				["plan", false],
				["alias", "fast"],
			]),
		);
		runner.setFlagValue("own", "v");
		expect(readers[0]!()).toEqual(["v", undefined]);
		const copy = runner.getFlagValues();
		copy.set("plan", true);
		expect(runner.getFlagValues().get("plan")).toBe(false);
	});

	it("applies CLI values and reports problems with pi's messages", async () => {
		const { runner } = await runnerWith(...flagged);
		expect(
			runner.applyFlagValues(
				new Map<string, string | boolean>([
					["plan", "yes"],
					["alias", "slow"],
				]),
			),
		).toEqual([]);
		expect(runner.getFlagValues()).toEqual(
			new Map<string, boolean | string>([
				["plan", true],
				["alias", "slow"],
			]),
		);
		expect(runner.applyFlagValues({ alias: true, a: true })).toEqual([
			{ type: "error", message: 'Extension flag "--alias" requires a value' },
			{ type: "error", message: "Unknown option: --a" },
		]);
		expect(runner.applyFlagValues({ a: "1", b: true, plan: true })).toEqual([
			{ type: "error", message: "Unknown options: --a, --b" },
		]);
	});

	it("starts from given flag values on reload, so defaults do not overwrite them", async () => {
		const loaded = await instantiateExtensions([], {
			cwd: "/",
			inlineFactories: flagged,
			flagValues: new Map([["alias", "kept"]]),
		});
		expect(loaded.runtime.flagValues.get("alias")).toBe("kept");
		expect(loaded.runtime.flagValues.get("plan")).toBe(false);
	});
});

describe("actions", () => {
	function recordingActions(calls: unknown[]): ExtensionRuntimeActions {
		return {
			sendMessage: (message, options) => void calls.push(["sendMessage", message, options]),
			sendUserMessage: (content, options) => void calls.push(["sendUserMessage", content, options]),
			appendEntry: (type, data) => void calls.push(["appendEntry", type, data]),
			setSessionName: (name) => void calls.push(["setSessionName", name]),
			getSessionName: () => "named",
			setLabel: (id, label) => void calls.push(["setLabel", id, label]),
			getActiveTools: () => ["read"],
			getAllTools: () => [],
			setActiveTools: (names) => void calls.push(["setActiveTools", names]),
			refreshTools: () => void calls.push(["refreshTools"]),
			getCommands: () => [],
			setModel: async (model) => model.id === "ok",
			getThinkingLevel: () => "high",
			setThinkingLevel: (level) => void calls.push(["setThinkingLevel", level]),
		};
	}
	const contextActions = (overrides: Partial<ExtensionContextActions> = {}): ExtensionContextActions => ({
		getModel: () => ({ id: "current" }) as Model,
		isIdle: () => false,
		getSignal: () => undefined,
		abort: () => {},
		hasPendingMessages: () => true,
		shutdown: () => {},
		getContextUsage: () => ({ tokens: 10, contextWindow: 100, percent: 10 }),
		compact: async () => ({ summary: "s", firstKeptEntryId: "e", tokensBefore: 5, details: {} }),
		getSystemPrompt: () => "SYS",
		...overrides,
	});

	it("throw pi's not-initialized error while factories run", async () => {
		const attempts: Array<(pi: ExtensionAPI) => unknown> = [
			(pi) => pi.sendMessage({ customType: "x", content: "", display: false }),
			(pi) => pi.sendUserMessage("hi"),
			(pi) => pi.appendEntry("x"),
			(pi) => pi.setSessionName("n"),
			(pi) => pi.getActiveTools(),
			(pi) => pi.setThinkingLevel("low"),
		];
		const { loadErrors } = await runnerWith(...attempts.map((attempt) => (pi: ExtensionAPI) => void attempt(pi)));
		expect(loadErrors.map((e) => e.error)).toEqual(
			attempts.map(() => `Failed to load extension: ${RUNTIME_NOT_INITIALIZED_MESSAGE}`),
		);
		let api: ExtensionAPI | undefined;
		await runnerWith((pi) => {
			api = pi;
		});
		await expect(api!.setModel({ id: "m" } as Model)).rejects.toThrow(RUNTIME_NOT_INITIALIZED_MESSAGE);
	});

	it("delegate to the bound session actions", async () => {
		let api: ExtensionAPI | undefined;
		const { runner } = await runnerWith((pi) => {
			api = pi;
		});
		const calls: unknown[] = [];
		runner.bindCore(recordingActions(calls), contextActions());
		const pi = api!;
		pi.sendMessage({ customType: "note", content: "c", display: true }, { deliverAs: "nextTurn" });
		pi.sendUserMessage("hello", { deliverAs: "steer" });
		pi.appendEntry("state", { n: 1 });
		pi.setSessionName("my session");
		pi.setLabel("e1", "bookmark");
		pi.setActiveTools(["read", "bash"]);
		pi.setThinkingLevel("low");
		expect(pi.getSessionName()).toBe("named");
		expect(pi.getActiveTools()).toEqual(["read"]);
		expect(pi.getThinkingLevel()).toBe("high");
		expect(await pi.setModel({ id: "ok" } as Model)).toBe(true);
		expect(await pi.setModel({ id: "no-auth" } as Model)).toBe(false);
		expect(calls).toEqual([
			["sendMessage", { customType: "note", content: "c", display: true }, { deliverAs: "nextTurn" }],
			["sendUserMessage", "hello", { deliverAs: "steer" }],
			["appendEntry", "state", { n: 1 }],
			["setSessionName", "my session"],
			["setLabel", "e1", "bookmark"],
			["setActiveTools", ["read", "bash"]],
			["setThinkingLevel", "low"],
		]);
	});

	it("make sendMessage / sendUserMessage fire-and-forget, reporting failures as <runtime> errors", async () => {
		let api: ExtensionAPI | undefined;
		const { runner, errors } = await runnerWith((pi) => {
			api = pi;
		});
		runner.bindCore(
			{
				...recordingActions([]),
				sendMessage: async () => {
					throw new Error("Agent is busy");
				},
				sendUserMessage: () => {
					throw new Error("sync failure");
				},
			},
			contextActions(),
		);
		expect(() => api!.sendMessage({ customType: "x", content: [], display: false })).not.toThrow();
		expect(() => api!.sendUserMessage("hi")).not.toThrow();
		await new Promise((resolve) => setImmediate(resolve));
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<runtime>", event: "send_user_message", error: "sync failure", sentBy: "<inline:1>" },
			{ extensionPath: "<runtime>", event: "send_message", error: "Agent is busy", sentBy: "<inline:1>" },
		]);
	});

	it("answer ctx from the context actions, with pi's defaults before binding", async () => {
		const { runner } = await runnerWith();
		const ctx = runner.createContext();
		expect([
			ctx.model,
			ctx.isIdle(),
			ctx.signal,
			ctx.hasPendingMessages(),
			ctx.getContextUsage(),
			ctx.getSystemPrompt(),
		]).toEqual([undefined, true, undefined, false, undefined, ""]);
		expect([ctx.thinkingLevel, ctx.scopedModels, ctx.isProjectTrusted()]).toEqual(["off", [], false]);
		const signal = new AbortController().signal;
		const aborted: string[] = [];
		runner.bindCore(
			recordingActions([]),
			contextActions({
				getSignal: () => signal,
				abort: () => void aborted.push("abort"),
				isProjectTrusted: () => true,
				getScopedModels: () => [{ model: { id: "s" } as Model }],
			}),
		);
		expect([ctx.model?.id, ctx.isIdle(), ctx.signal, ctx.hasPendingMessages(), ctx.getSystemPrompt()]).toEqual([
			"current",
			false,
			signal,
			true,
			"SYS",
		]);
		expect([ctx.thinkingLevel, ctx.scopedModels.length, ctx.isProjectTrusted()]).toEqual(["high", 1, true]);
		ctx.abort();
		expect(aborted).toEqual(["abort"]);
		expect(runner.createContext()).toBe(ctx);
	});

	it("run ctx.compact in the background and report its outcome to the callbacks (or onError listeners)", async () => {
		const { runner, errors } = await runnerWith();
		let fail = false;
		runner.bindCore(
			recordingActions([]),
			contextActions({
				compact: async (instructions) => {
					if (fail) throw new Error("Nothing to compact");
					return { summary: `summary ${instructions}`, firstKeptEntryId: "e", tokensBefore: 1, details: {} };
				},
			}),
		);
		const done = new Promise<unknown>((resolve) =>
			runner.createContext().compact({ customInstructions: "focus", onComplete: resolve }),
		);
		expect(await done).toMatchObject({ summary: "summary focus" });
		fail = true;
		const failed = new Promise<Error>((resolve) => runner.createContext().compact({ onError: resolve }));
		expect((await failed).message).toBe("Nothing to compact");
		runner.createContext().compact();
		await new Promise((resolve) => setImmediate(resolve));
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<runtime>", event: "compact", error: "Nothing to compact" },
		]);
	});

	it("a failed ctx.compact of an extension's handler names that extension, as a refused sendMessage does", async () => {
		const { runner, errors } = await runnerWith((pi) => {
			pi.on("agent_start", (_event, ctx) => ctx.compact());
		});
		runner.bindCore(
			recordingActions([]),
			contextActions({
				compact: async () => {
					throw new Error("Nothing to compact");
				},
			}),
		);
		await runner.emit({ type: "agent_start" });
		await new Promise((resolve) => setImmediate(resolve));
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<runtime>", event: "compact", error: "Nothing to compact", sentBy: "<inline:1>" },
		]);
	});

	it("give a read-only view of the session manager", async () => {
		const manager = {
			getCwd: () => "/repo",
			getSessionDir: () => "/sessions",
			getSessionId: () => "id",
			getSessionFile: () => "/sessions/a.jsonl",
			getLeafId: () => null,
			getLeafEntry: () => undefined,
			getEntry: () => undefined,
			getLabel: () => undefined,
			getBranch: () => [],
			getHeader: () => null,
			getEntries: () => [],
			getTree: () => [],
			getSessionName: () => "s",
			appendMessage: () => "should not be reachable",
		};
		const { runner } = await createExtensionRunner([], { cwd: "/repo", sessionManager: manager });
		const view = runner.createContext().sessionManager as unknown as Record<string, unknown>;
		expect(typeof view.getSessionFile).toBe("function");
		expect((view.getSessionFile as () => string)()).toBe("/sessions/a.jsonl");
		// The manager's write is not reachable: a typed error names the call that writes through the session (pi#1781).
		expect(() => (view.appendMessage as () => unknown)()).toThrow(
			expect.objectContaining({ code: "EXTENSION", message: expect.stringContaining("Use pi.sendMessage()") }),
		);
		expect(view.notAMethod).toBeUndefined();
		const bare = await runnerWith();
		expect(() => bare.runner.createContext().sessionManager).toThrow(
			"ctx.sessionManager is not available: this runner has no session.",
		);
	});
});

describe("providers", () => {
	it("queues registrations made while loading and applies them at bindCore; afterwards immediately", async () => {
		const applied: unknown[] = [];
		const registry = {
			find: () => undefined,
			getAll: () => [],
			getAvailable: () => [],
			hasConfiguredAuth: () => true,
			registerProvider: (name: string, config: ProviderConfig) => void applied.push(["register", name, config.baseUrl]),
			unregisterProvider: (name: string) => void applied.push(["unregister", name]),
		};
		let api: ExtensionAPI | undefined;
		const { runner } = await createExtensionRunner([], {
			cwd: "/",
			modelRegistry: registry,
			inlineFactories: [
				(pi) => {
					api = pi;
					pi.registerProvider("proxy", { baseUrl: "https://proxy" });
					pi.registerProvider("dropped", { baseUrl: "https://x" });
					pi.unregisterProvider("dropped");
				},
			],
		});
		expect(applied).toEqual([]);
		runner.bindCore({} as ExtensionRuntimeActions, {} as ExtensionContextActions);
		expect(applied).toEqual([["register", "proxy", "https://proxy"]]);
		api!.registerProvider("late", { baseUrl: "https://late" });
		api!.unregisterProvider("proxy");
		expect(applied.slice(1)).toEqual([
			["register", "late", "https://late"],
			["unregister", "proxy"],
		]);
	});

	it("reports a queued registration that fails at bindCore, naming the extension", async () => {
		const { runner, errors } = await runnerWith((pi) => pi.registerProvider("p", {}));
		runner.bindCore({} as ExtensionRuntimeActions, {} as ExtensionContextActions, {
			registerProvider: () => {
				throw new Error("models need a baseUrl");
			},
		});
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<inline:1>", event: "register_provider", error: "models need a baseUrl" },
		]);
	});
});

describe("loading", () => {
	it("turns a throwing or rejecting factory into an error naming its path; the others load", async () => {
		const { runner, loadErrors } = await runnerWith(
			(pi) => pi.registerCommand("a", command()),
			(pi) => {
				pi.on("agent_start", () => {});
				pi.registerCommand("broken", command());
				throw new Error("factory bug");
			},
			async () => {
				await Promise.resolve();
				throw "rejected";
			},
			(pi) => pi.registerCommand("d", command()),
		);
		expect(loadErrors).toEqual([
			{ path: "<inline:2>", error: "Failed to load extension: factory bug" },
			{ path: "<inline:3>", error: "Failed to load extension: rejected" },
		]);
		expect(runner.getExtensionPaths()).toEqual(["<inline:1>", "<inline:4>"]);
		expect(runner.getRegisteredCommands().map((c) => c.name)).toEqual(["a", "d"]);
		expect(runner.hasHandlers("agent_start")).toBe(false);
	});

	it("numbers inline factories after inline records already given", async () => {
		const loaded = await instantiateExtensions([{ path: "<inline:1>", source: "inline", factory: () => {} }], {
			cwd: "/",
			inlineFactories: [() => {}],
		});
		expect(loaded.extensions.map((e) => e.path)).toEqual(["<inline:1>", "<inline:2>"]);
	});

	it("awaits async factories in order", async () => {
		const order: string[] = [];
		await runnerWith(
			async () => {
				await new Promise((resolve) => setTimeout(resolve, 5));
				order.push("slow first");
			},
			() => void order.push("second"),
		);
		expect(order).toEqual(["slow first", "second"]);
	});
});

describe("pi.events", () => {
	it("connects extensions; a throwing listener is reported as an error of its extension", async () => {
		const received: unknown[] = [];
		let sender: ExtensionAPI | undefined;
		const { errors } = await runnerWith(
			(pi) => pi.events.on("build:done", (data) => void received.push(data)),
			(pi) =>
				pi.events.on("build:done", () => {
					throw new Error("listener bug");
				}),
			(pi) => {
				sender = pi;
			},
		);
		sender!.events.emit("build:done", { ok: true });
		expect(received).toEqual([{ ok: true }]);
		expect(withoutStacks(errors)).toEqual([
			{ extensionPath: "<inline:2>", event: "events:build:done", error: "listener bug" },
		]);
	});

	it("is shared across load passes when the same bus is passed in", async () => {
		const bus = createEventBus();
		const received: unknown[] = [];
		await instantiateExtensions([], {
			cwd: "/",
			eventBus: bus,
			inlineFactories: [(pi) => pi.events.on("c", (d) => void received.push(d))],
		});
		await instantiateExtensions([], { cwd: "/", eventBus: bus, inlineFactories: [(pi) => pi.events.emit("c", 1)] });
		expect(received).toEqual([1]);
	});

	it("drops the listeners of a factory that failed", async () => {
		const bus = createEventBus();
		const received: unknown[] = [];
		await instantiateExtensions([], {
			cwd: "/",
			eventBus: bus,
			inlineFactories: [
				(pi) => {
					pi.events.on("c", (d) => void received.push(d));
					throw new Error("fails after subscribing");
				},
			],
		});
		bus.emit("c", 1);
		expect(received).toEqual([]);
	});
});
