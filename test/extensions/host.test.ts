import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { createExtensionRunner, resourcePathsFromDiscovery } from "../../src/extensions/runner.js";
import { createExtensionHarness } from "../../src/extensions/testing.js";
import type { ExtensionFactory as TypedFactory } from "../../src/extensions/types.js";
import { createHeadlessUIContext, isHeadlessUIContext, plainTheme } from "../../src/extensions/ui.js";
import type { LoadedExtension, ExtensionFactory as LoaderFactory } from "../../src/resources/types.js";
import { tempDir } from "./helpers.js";

describe("headless UI context", () => {
	it("answers dialogs like pi's print mode and records what was asked", async () => {
		const forwarded: unknown[] = [];
		const ui = createHeadlessUIContext({ onNotify: (n) => forwarded.push(n), historyLimit: 2 });
		expect(await ui.select("Pick", ["a", "b"])).toBeUndefined();
		expect(await ui.confirm("Sure?", "really")).toBe(false);
		expect(await ui.input("Name")).toBeUndefined();
		expect(await ui.editor("Edit", "x")).toBeUndefined();
		expect(await ui.custom(() => null)).toBeUndefined();
		expect(ui.dialogs).toEqual([{ kind: "editor", title: "Edit" }, { kind: "custom" }]);
		ui.notify("one");
		ui.notify("two", "warning");
		ui.notify("three", "error");
		expect(ui.notifications).toEqual([
			{ message: "two", type: "warning" },
			{ message: "three", type: "error" },
		]);
		expect(forwarded).toHaveLength(3);
		ui.setStatus("build", "ok");
		ui.setStatus("gone", "x");
		ui.setStatus("gone", undefined);
		ui.setWidget("w", ["line"], { placement: "belowEditor" });
		ui.setTitle("T");
		ui.setEditorText("draft");
		ui.pasteToEditor("+");
		expect([...ui.statuses]).toEqual([["build", "ok"]]);
		expect(ui.widgets.get("w")).toEqual({ content: ["line"], placement: "belowEditor" });
		expect([ui.title, ui.getEditorText()]).toEqual(["T", "draft+"]);
		expect(ui.theme.fg("accent", ui.theme.bold("x"))).toBe("x");
		expect(ui.setTheme("dark")).toEqual({ success: false, error: "UI not available" });
		expect(isHeadlessUIContext(ui)).toBe(true);
	});

	it("makes hasUI false; a host UI makes it true and sets the mode", async () => {
		const { runner } = await createExtensionRunner([], { cwd: "/" });
		const ctx = runner.createContext();
		expect([ctx.hasUI, ctx.mode]).toEqual([false, "print"]);
		const hostUI = { ...createHeadlessUIContext(), theme: plainTheme } as never;
		runner.setUIContext(hostUI, "rpc");
		expect([ctx.hasUI, ctx.mode, ctx.ui]).toEqual([true, "rpc", hostUI]);
		runner.setUIContext();
		expect(ctx.hasUI).toBe(false);
	});
});

describe("host helpers", () => {
	it("gives withSession callbacks a context whose sends return the session's promises", async () => {
		const harness = await createExtensionHarness();
		const ctx = harness.runner.createReplacedSessionContext();
		await ctx.sendUserMessage("after replacement");
		await ctx.sendMessage({ customType: "n", content: "x", display: true }, { triggerTurn: true });
		expect(harness.calls).toEqual([
			{ action: "sendUserMessage", content: "after replacement" },
			{
				action: "sendMessage",
				message: { customType: "n", content: "x", display: true },
				options: { triggerTurn: true },
			},
		]);
		expect(typeof ctx.fork).toBe("function");
	});

	it("labels discovered resource paths with the contributing extension, as pi does", () => {
		expect(
			resourcePathsFromDiscovery({
				skillPaths: [{ path: "/ext/skills", extensionPath: "/home/u/.settle/agent/extensions/my-ext.ts" }],
				promptPaths: [{ path: "/p", extensionPath: "<inline:2>", metadata: { scope: "user" } }],
				themePaths: [],
			}),
		).toEqual({
			skillPaths: [
				{
					path: "/ext/skills",
					metadata: {
						source: "extension:my-ext",
						scope: "temporary",
						origin: "top-level",
						baseDir: "/home/u/.settle/agent/extensions",
					},
				},
			],
			promptPaths: [{ path: "/p", metadata: { source: "extension:inline:2", scope: "user", origin: "top-level" } }],
			themePaths: [],
		});
	});

	it("accepts typed factories where the resource loader stores factories, and loader records as input", async () => {
		const typed: TypedFactory = (pi) => pi.registerCommand("typed", { handler: async () => {} });
		const stored: LoaderFactory = typed;
		const record: LoadedExtension = {
			path: "/x/ext.ts",
			resolvedPath: "/x/ext.ts",
			source: "explicit",
			factory: stored,
		};
		const { runner } = await createExtensionRunner([record], { cwd: "/x" });
		expect(runner.getRegisteredCommands().map((c) => [c.invocationName, c.sourceInfo])).toEqual([
			["typed", { path: "/x/ext.ts", source: "local", scope: "temporary", origin: "top-level", baseDir: "/x" }],
		]);
	});
});

describe("ExtensionHarness.callTool", () => {
	const tool = (
		execute: (id: string, params: unknown) => Promise<{ content: { type: "text"; text: string }[]; details: unknown }>,
	) => ({
		name: "probe",
		label: "Probe",
		description: "test tool",
		parameters: Type.Object({ n: Type.Number() }),
		execute,
	});

	it("reports unknown tools and invalid arguments as error results", async () => {
		const harness = await createExtensionHarness({
			cwd: tempDir(),
			factories: [
				(pi) => pi.registerTool(tool(async () => ({ content: [{ type: "text", text: "ran" }], details: {} }))),
			],
		});
		expect((await harness.callTool("nope", {})).result.content).toEqual([
			{ type: "text", text: "Tool nope not found" },
		]);
		const invalid = await harness.callTool("probe", { n: "not a number" });
		expect(invalid.isError).toBe(true);
		expect(invalid.blocked).toBe(false);
	});

	it("blocks when a tool_call handler throws, turns a throwing tool into an error result, and applies tool_result overrides", async () => {
		let mode: "throw-hook" | "throw-tool" | "override" = "throw-hook";
		const harness = await createExtensionHarness({
			cwd: tempDir(),
			factories: [
				(pi) => {
					pi.registerTool(
						tool(async () => {
							if (mode === "throw-tool") throw new Error("tool failed");
							return { content: [{ type: "text", text: "raw" }], details: { raw: true } };
						}),
					);
					pi.on("tool_call", () => {
						if (mode === "throw-hook") throw new Error("hook failed");
					});
					pi.on("tool_result", (event) =>
						mode === "override" ? { content: [{ type: "text", text: `wrapped ${event.input.n}` }] } : undefined,
					);
				},
			],
		});
		expect(await harness.callTool("probe", { n: 1 })).toMatchObject({
			blocked: true,
			isError: true,
			result: { content: [{ type: "text", text: "hook failed" }] },
		});
		mode = "throw-tool";
		expect(await harness.callTool("probe", { n: 2 })).toMatchObject({
			blocked: false,
			isError: true,
			result: { content: [{ type: "text", text: "tool failed" }] },
		});
		mode = "override";
		expect(await harness.callTool("probe", { n: 3 })).toMatchObject({
			isError: false,
			result: { content: [{ type: "text", text: "wrapped 3" }], details: { raw: true } },
		});
	});

	it("checks a tool_call handler's rewrite as a session does: arguments it broke block the call naming the extension, ones valid once coerced run coerced", async () => {
		const received: unknown[] = [];
		let rewrite: (input: Record<string, unknown>) => void = () => {};
		const harness = await createExtensionHarness({
			cwd: tempDir(),
			factories: [
				(pi) => {
					pi.registerTool(
						tool(async (_id: string, params: unknown) => {
							received.push(params);
							return { content: [{ type: "text", text: "ran" }], details: {} };
						}),
					);
					pi.on("tool_call", (event) => rewrite(event.input as Record<string, unknown>));
				},
			],
		});
		rewrite = (input) => {
			delete input.n;
		};
		const broken = await harness.callTool("probe", { n: 1 });
		expect(broken).toMatchObject({ blocked: true, isError: true });
		expect(broken.result.content[0]).toMatchObject({
			text: expect.stringContaining(
				"The tool_call handler of <inline:1> changed the arguments of probe into ones it cannot take, so the call was not run.",
			),
		});
		rewrite = (input) => {
			input.n = "30";
		};
		expect(await harness.callTool("probe", { n: 1 })).toMatchObject({ blocked: false, isError: false });
		expect(received).toEqual([{ n: 30 }]);
	});

	it("records recorded actions and state: entries, labels, model, thinking level", async () => {
		let api: Parameters<TypedFactory>[0] | undefined;
		const harness = await createExtensionHarness({
			hasAuth: (model) => model.provider !== "locked",
			factories: [
				(pi) => {
					api = pi;
				},
			],
		});
		api!.appendEntry("state", { step: 1 });
		api!.setLabel(harness.entries[0]!.id, "checkpoint");
		api!.setThinkingLevel("high");
		expect(await api!.setModel({ id: "m", provider: "open" } as never)).toBe(true);
		expect(await api!.setModel({ id: "x", provider: "locked" } as never)).toBe(false);
		expect(harness.entries.map((e) => e.type)).toEqual(["custom", "label"]);
		expect(harness.sessionManager.getLabel(harness.entries[0]!.id)).toBe("checkpoint");
		expect([harness.model?.id, harness.thinkingLevel, api!.getThinkingLevel()]).toEqual(["m", "high", "high"]);
		expect(harness.callsOf("setModel").map((c) => c.accepted)).toEqual([true, false]);
	});
});

describe("wrapRegisteredTool", () => {
	it("runs the tool with the runner's context at execution time, and refuses once the runner is stale", async () => {
		const { wrapRegisteredTool } = await import("../../src/extensions/wrapper.js");
		const { runner } = await createExtensionRunner([], {
			cwd: "/work/here",
			inlineFactories: [
				(pi) =>
					pi.registerTool({
						name: "where",
						label: "Where",
						description: "cwd",
						parameters: Type.Object({}),
						execute: async (_id, _params, _signal, _onUpdate, ctx) => ({
							content: [{ type: "text", text: ctx.cwd }],
							details: undefined,
						}),
					}),
			],
		});
		const agentTool = wrapRegisteredTool(runner.getAllRegisteredTools()[0]!, runner);
		expect(agentTool.name).toBe("where");
		expect((await agentTool.execute("1", {})).content).toEqual([{ type: "text", text: "/work/here" }]);
		runner.invalidate();
		await expect(agentTool.execute("2", {})).rejects.toThrow("stale");
	});
});
