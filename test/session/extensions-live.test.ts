/**
 * The extension API (behavior A.10) through a LIVE session: a project extension file on disk,
 * loaded by DefaultResourceLoader (jiti), bound to an AgentSession on the faux provider. The test
 * drives `pi.*` through the extension's own object (exposed on a global by the extension file)
 * and checks what the session, its file and the model see.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionAPI, ExtensionContext } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { type LiveProject, openProject } from "./env-helpers.js";

interface Probe {
	pi: ExtensionAPI;
	ctx: ExtensionContext | undefined;
	events: string[];
	payloads: unknown[];
	contextCopies: unknown[][];
}
const g = globalThis as unknown as { __settleApiProbe?: Probe };

/** The extension under test: records what it gets and exposes its `pi` object. */
const PROBE_EXTENSION = `
import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "settle";

export default function probe(pi: ExtensionAPI) {
	const probe = { pi, ctx: undefined, events: [], payloads: [], contextCopies: [] };
	(globalThis as any).__settleApiProbe = probe;
	pi.registerFlag("verbose", { type: "boolean", default: false, description: "Say more" });
	pi.registerTool({
		name: "probe_tool",
		label: "Probe",
		description: "Answers with the verbose flag",
		parameters: Type.Object({}),
		async execute(_id: string, _params: unknown, _signal: unknown, _onUpdate: unknown, ctx: any) {
			return { content: [{ type: "text", text: "verbose=" + String(pi.getFlag("verbose")) + " cwd=" + ctx.cwd }], details: {} };
		},
	});
	pi.registerCommand("probe", { description: "Probe command", handler: async (args: string) => { probe.events.push("command:" + args); } });
	pi.on("session_start", (event: any, ctx: any) => { probe.ctx = ctx; probe.events.push("session_start:" + event.reason); });
	pi.on("session_info_changed", (event: any) => { probe.events.push("session_info_changed:" + event.name); });
	pi.on("thinking_level_select", (event: any) => { probe.events.push("thinking_level_select:" + event.previousLevel + "->" + event.level); });
	pi.on("model_select", (event: any) => { probe.events.push("model_select:" + event.source + ":" + event.previousModel?.id + "->" + event.model.id); });
}
`;

let p: LiveProject | undefined;
beforeEach(() => {
	delete g.__settleApiProbe;
});
afterEach(() => {
	p?.cleanup();
	p = undefined;
	delete g.__settleApiProbe;
});

async function openProbe(options: Parameters<typeof openProject>[0] = {}): Promise<{ p: LiveProject; probe: Probe }> {
	const project = await openProject({
		...options,
		files: { ".settle/extensions/probe.ts": PROBE_EXTENSION, ...options.files },
	});
	p = project;
	const probe = g.__settleApiProbe;
	if (!probe) throw new Error("the probe extension did not load");
	return { p: project, probe };
}

describe("registrations", () => {
	it("registerTool, registerCommand, registerFlag / getFlag work in the session", async () => {
		const { p, probe } = await openProbe({ fixture: "live-app" });
		expect(probe.pi.getFlag("verbose")).toBe(false);
		p.session.extensionRunner.setFlagValue("verbose", true);
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("probe_tool", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await p.session.prompt("probe it");
		expect(p.faux.requests[1]!.messages.at(-1)).toMatchObject({
			content: [{ type: "text", text: `verbose=true cwd=${p.cwd}` }],
		});
		await p.session.prompt("/probe now please");
		expect(probe.events).toContain("command:now please");
		const commands = probe.pi.getCommands().map((command) => `${command.source}:${command.name}`);
		expect(commands).toEqual(
			expect.arrayContaining(["extension:probe", "extension:ticket", "prompt:fix", "skill:skill:deploy"]),
		);
	});
});

describe("session metadata", () => {
	it("appendEntry writes a custom entry and emits entry_appended; setSessionName / getSessionName; setLabel", async () => {
		const { p, probe } = await openProbe();
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hi");
		probe.pi.appendEntry("bookmark", { note: "remember this" });
		const appended = p.events.filter((event) => event.type === "entry_appended");
		expect(appended).toHaveLength(1);
		expect(appended[0]).toMatchObject({
			entry: { type: "custom", customType: "bookmark", data: { note: "remember this" } },
		});

		probe.pi.setSessionName("Login bug");
		expect(probe.pi.getSessionName()).toBe("Login bug");
		expect(p.session.sessionName).toBe("Login bug");
		expect(p.events.filter((event) => event.type === "session_info_changed")).toEqual([
			{ type: "session_info_changed", name: "Login bug" },
		]);
		expect(probe.events).toContain("session_info_changed:Login bug");

		const userEntry = p.sessionManager.getEntries().find((entry) => entry.type === "message")!;
		probe.pi.setLabel(userEntry.id, "start");
		expect(p.sessionManager.getLabel(userEntry.id)).toBe("start");

		// All of it is in the file.
		const lines = readFileSync(p.session.sessionFile!, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		expect(lines.map((line) => line.type)).toEqual(expect.arrayContaining(["custom", "session_info", "label"]));
	});

	it("exec runs a real child process in the session cwd", async () => {
		const { p, probe } = await openProbe();
		const result = await probe.pi.exec("node", ["-e", "process.stdout.write(process.cwd()); process.exit(3)"]);
		expect(result).toMatchObject({ stdout: p.cwd, code: 3, killed: false });
	});
});

describe("tools", () => {
	it("getActiveTools, getAllTools (with source info) and setActiveTools, which changes the next request's tools and prompt", async () => {
		const { p, probe } = await openProbe();
		expect(probe.pi.getActiveTools()).toEqual(["read", "bash", "edit", "write", "probe_tool"]);
		const all = probe.pi.getAllTools();
		expect(all.find((tool) => tool.name === "probe_tool")?.sourceInfo).toMatchObject({
			path: join(p.cwd, ".settle/extensions/probe.ts"),
			scope: "project",
			source: "auto",
			baseDir: join(p.cwd, ".settle"),
		});
		expect(all.find((tool) => tool.name === "grep")?.sourceInfo).toMatchObject({
			path: "<builtin:grep>",
			source: "builtin",
		});
		probe.pi.setActiveTools(["grep", "probe_tool"]);
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hi");
		expect(p.faux.requests[0]!.tools?.map((tool) => tool.name)).toEqual(["grep", "probe_tool"]);
		expect(p.faux.requests[0]!.systemPrompt).toContain("- grep:");
		expect(p.faux.requests[0]!.systemPrompt).not.toContain("- read:");
	});
});

describe("models and thinking", () => {
	it("setModel resolves false without auth and true with it (model_select); thinking level get/set with events", async () => {
		const { p, probe } = await openProbe({
			faux: { models: [{ id: "fast" }, { id: "deep", reasoning: true }] },
		});
		const other = (await import("../../src/llm/faux.js")).createFauxProvider({ provider: "locked", api: "locked-api" });
		p.modelRuntime.registerFauxProvider(other, { apiKey: null });
		expect(await probe.pi.setModel(other.getModel()!)).toBe(false);
		expect(p.session.model?.id).toBe("fast");
		expect(await probe.pi.setModel(p.faux.getModel("deep")!)).toBe(true);
		expect(p.session.model?.id).toBe("deep");
		expect(probe.events).toContain("model_select:set:fast->deep");

		probe.pi.setThinkingLevel("high");
		expect(probe.pi.getThinkingLevel()).toBe("high");
		expect(p.events.filter((event) => event.type === "thinking_level_changed").at(-1)).toEqual({
			type: "thinking_level_changed",
			level: "high",
		});
		expect(probe.events.at(-1)).toMatch(/^thinking_level_select:.*->high$/);
		expect(probe.ctx?.thinkingLevel).toBe("high");
		expect(probe.ctx?.model?.id).toBe("deep");

		const cycled = await p.session.cycleModel();
		expect(cycled).toMatchObject({ model: { id: "fast" }, thinkingLevel: "off", isScoped: false });
		expect(probe.events).toContain("model_select:cycle:deep->fast");
	});
});

describe("messages from extensions", () => {
	it("sendMessage and sendUserMessage are fire-and-forget; a failure is reported as an extension error", async () => {
		const { p, probe } = await openProbe();
		p.faux.setResponses([fauxAssistantMessage("saw it")]);
		probe.pi.sendMessage({ customType: "ci", content: "Build failed on main", display: true }, { triggerTurn: true });
		await p.session.waitForIdle();
		expect(p.faux.requests[0]!.messages.at(-1)).toMatchObject({
			role: "user",
			content: [{ type: "text", text: "Build failed on main" }],
		});

		// While streaming without deliverAs the session rejects; the extension gets an error report, not a throw.
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		p.faux.setResponses([
			async () => {
				await gate;
				return fauxAssistantMessage("slow");
			},
			fauxAssistantMessage("follow-up handled"),
		]);
		const running = p.session.prompt("slow");
		await new Promise((resolve) => setImmediate(resolve));
		expect(() => probe.pi.sendUserMessage("interrupting")).not.toThrow();
		probe.pi.sendUserMessage("after this", { deliverAs: "followUp" });
		await new Promise((resolve) => setImmediate(resolve));
		release();
		await running;
		expect(p.errors).toEqual([
			expect.objectContaining({
				extensionPath: "<runtime>",
				event: "send_user_message",
				error: expect.stringContaining("Agent is already processing"),
			}),
		]);
		expect(p.faux.requests.at(-1)!.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "after this" }] });
	});
});

describe("hooks around the request", () => {
	it("before_provider_request sees (and may replace) the payload; context handlers get their own copy", async () => {
		const seen: unknown[] = [];
		const { p } = await openProbe({
			extensionFactories: [
				(pi) => {
					pi.on("before_provider_request", (event) => {
						seen.push(event.payload);
						const payload = event.payload as Context;
						return { ...payload, systemPrompt: `${payload.systemPrompt}\n\n[payload edited]` };
					});
					pi.on("context", (event) => {
						event.messages.push({ role: "user", content: "injected by context", timestamp: Date.now() });
					});
				},
			],
		});
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hi");
		expect(seen).toHaveLength(1);
		expect(p.faux.requests[0]!.systemPrompt?.endsWith("[payload edited]")).toBe(false);
		const factoryContexts: Context[] = [];
		p.faux.setResponses([
			(context) => {
				factoryContexts.push(context);
				return fauxAssistantMessage("ok");
			},
		]);
		await p.session.prompt("again");
		// The factory gets the replaced payload; the recorded request is what the Agent sent.
		expect(factoryContexts[0]!.systemPrompt?.endsWith("[payload edited]")).toBe(true);
		expect(p.faux.requests[1]!.messages.at(-1)).toMatchObject({ content: "injected by context" });
		// The transcript and the file never saw the injected message.
		expect(JSON.stringify(p.session.messages)).not.toContain("injected by context");
		expect(readFileSync(p.session.sessionFile!, "utf8")).not.toContain("injected by context");
	});

	it("without a context handler the Agent gets no transformContext hook (no copy per request)", async () => {
		const { p } = await openProbe();
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hi");
		expect(p.session.agent.transformContext).toBeUndefined();
	});

	it("user_bash can answer executeBash itself or fail closed; without it the command runs", async () => {
		let mode: "answer" | "throw" | "pass" = "answer";
		const { p } = await openProbe({
			extensionFactories: [
				(pi) =>
					pi.on("user_bash", (event) => {
						if (mode === "throw") throw new Error("sandbox unavailable");
						if (mode === "pass") return undefined;
						return {
							result: { output: `sandboxed: ${event.command}`, exitCode: 0, cancelled: false, truncated: false },
						};
					}),
			],
		});
		const answered = await p.session.executeBash("touch created-by-bash");
		expect(answered.output).toBe("sandboxed: touch created-by-bash");
		expect(existsSync(join(p.cwd, "created-by-bash"))).toBe(false);
		mode = "throw";
		await expect(p.session.executeBash("touch created-by-bash")).rejects.toThrow("sandbox unavailable");
		expect(existsSync(join(p.cwd, "created-by-bash"))).toBe(false);
		mode = "pass";
		const ran = await p.session.executeBash("touch created-by-bash && echo made");
		expect(ran).toMatchObject({ output: "made\n", exitCode: 0 });
		expect(existsSync(join(p.cwd, "created-by-bash"))).toBe(true);
		const executions = p.session.messages.filter((message) => message.role === "bashExecution");
		expect(executions).toHaveLength(2);
	});

	it("regression: abortBash() while a user_bash handler runs cancels the command (the abort was lost and it ran)", async () => {
		let release: (() => void) | undefined;
		let handlerEntered: (() => void) | undefined;
		const entered = new Promise<void>((resolve) => {
			handlerEntered = resolve;
		});
		const { p } = await openProbe({
			extensionFactories: [
				(pi) =>
					pi.on("user_bash", async () => {
						handlerEntered!();
						await new Promise<void>((resolve) => {
							release = resolve;
						});
						return undefined;
					}),
			],
		});
		const running = p.session.executeBash("touch created-by-bash");
		await entered;
		expect(p.session.isBashRunning).toBe(true);
		p.session.abortBash();
		release!();
		const result = await running;
		expect(result).toMatchObject({ cancelled: true, exitCode: undefined });
		expect(existsSync(join(p.cwd, "created-by-bash"))).toBe(false);
		expect(p.session.isBashRunning).toBe(false);
	});

	it("resources_discover adds skills and templates the session then uses", async () => {
		const { p } = await openProbe({
			files: {
				"extra/skills/triage/SKILL.md":
					"---\nname: triage\ndescription: Triage an incoming bug.\n---\nAsk for logs first.\n",
				"extra/prompts/standup.md": "---\ndescription: Standup\n---\nSummarize yesterday for $@.\n",
			},
			extensionFactories: [
				(pi) =>
					pi.on("resources_discover", (event) => ({
						skillPaths: [join(event.cwd, "extra/skills")],
						promptPaths: [join(event.cwd, "extra/prompts")],
					})),
			],
		});
		p.faux.setResponses([fauxAssistantMessage("a"), fauxAssistantMessage("b")]);
		await p.session.prompt("/standup the team");
		expect(p.faux.requests[0]!.messages.at(-1)).toMatchObject({
			content: [{ type: "text", text: "Summarize yesterday for the team." }],
		});
		expect(p.faux.requests[0]!.systemPrompt).toContain("<name>triage</name>");
		await p.session.prompt("/skill:triage crash on start");
		expect(JSON.stringify(p.faux.requests[1]!.messages.at(-1))).toContain("Ask for logs first.");
	});
});
