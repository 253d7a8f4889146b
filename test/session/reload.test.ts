/**
 * `session.reload()` (behavior C.11) on a live session over real files: edited context files,
 * skills, templates, settings and extension modules take effect; the old extension runtime gets
 * `session_shutdown` and goes stale; the new one gets `session_start` / `resources_discover` with
 * reason `reload`; active tools and flag values carry over; the change is recorded in the transcript.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { STALE_EXTENSION_CONTEXT_MESSAGE } from "../../src/extensions/messages.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import type { SystemMessage } from "../../src/session/messages.js";
import { RELOAD_WHILE_BUSY } from "../../src/session/reload.js";
import { createHarness } from "../../src/testing/harness.js";
import { type LiveProject, openProject } from "./env-helpers.js";

interface TestLog {
	events: string[];
	captured: Record<string, unknown>;
	values: Record<string, unknown>;
}
const g = globalThis as unknown as { __settleReloadTest?: TestLog };

let p: LiveProject | undefined;
beforeEach(() => {
	g.__settleReloadTest = { events: [], captured: {}, values: {} };
});
afterEach(() => {
	p?.cleanup();
	p = undefined;
	delete g.__settleReloadTest;
});

/** An extension module that logs its lifecycle under `name` (generation = module load count). */
function lifecycleExtension(name: string, extra = ""): string {
	return `
import type { ExtensionAPI } from "settle";
const log = (globalThis as any).__settleReloadTest;
log.values["${name}:loads"] = ((log.values["${name}:loads"] as number) ?? 0) + 1;
const generation = log.values["${name}:loads"];
export default function (pi: ExtensionAPI) {
	log.captured["${name}:" + generation] = pi;
	pi.registerFlag("mode", { type: "string", default: "plain" });
	pi.on("session_start", (event: any) => { log.events.push("${name}" + generation + ":session_start:" + event.reason); });
	pi.on("session_shutdown", (event: any) => { log.events.push("${name}" + generation + ":session_shutdown:" + event.reason); });
	pi.on("resources_discover", (event: any) => { log.events.push("${name}" + generation + ":resources_discover:" + event.reason); });
	${extra}
}
`;
}

function systemMessages(p: LiveProject): SystemMessage[] {
	return p.session.messages.filter((message): message is SystemMessage => message.role === "system");
}

describe("reload", () => {
	it("picks up edited AGENTS.md, skills, templates and extension code; the change is recorded as a system patch", async () => {
		p = await openProject({ fixture: "live-app" });
		p.faux.setResponses([fauxAssistantMessage("first")]);
		await p.session.prompt("hello");

		p.write("AGENTS.md", "# Live app\n\nUse pnpm, not npm.\n");
		p.write(
			".settle/skills/rollback/SKILL.md",
			"---\nname: rollback\ndescription: Roll a deployment back.\n---\nRun ./scripts/rollback.sh.\n",
		);
		p.write(".settle/prompts/fix.md", "---\ndescription: Fix\n---\nPlease fix $1 now.\n");
		p.write(
			".settle/extensions/tickets.ts",
			`import { Type } from "@sinclair/typebox";
export default function (pi: any) {
	pi.registerTool({
		name: "query_ticket",
		label: "Query Ticket",
		description: "Look up a ticket (v2)",
		promptSnippet: "Look up a ticket (v2)",
		parameters: Type.Object({ id: Type.String() }),
		async execute(_id: string, params: { id: string }) {
			return { content: [{ type: "text", text: "v2 " + params.id }], details: {} };
		},
	});
}
`,
		);
		await p.session.reload();

		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("query_ticket", { id: "9" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await p.session.prompt("/fix the-login");
		const request = p.faux.requests[1]!;
		expect(request.systemPrompt).toContain("Use pnpm, not npm.");
		expect(request.systemPrompt).not.toContain("Run `npm test`");
		expect(request.systemPrompt).toContain("<name>rollback</name>");
		expect(request.systemPrompt).toContain("- query_ticket: Look up a ticket (v2)");
		expect(request.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "Please fix the-login now." }] });
		expect(p.faux.requests[2]!.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "v2 9" }] });

		const systems = systemMessages(p);
		expect(systems.map((message) => message.kind)).toEqual(["baseline", "patch"]);
		expect((systems[1]!.sections ?? []).map((section) => section.id).sort()).toEqual(
			["guidelines", "project_context", "skills", "tools"].sort(),
		);
		expect(systems[1]!.content).toBe(request.systemPrompt);
		// The transcript and the session file were kept.
		expect(p.session.messages.filter((message) => message.role === "user")).toHaveLength(2);
	});

	it("sends session_shutdown to the old extensions, then session_start and resources_discover to the new; the old pi is stale", async () => {
		p = await openProject({ files: { ".settle/extensions/life.ts": lifecycleExtension("life") } });
		const log = g.__settleReloadTest!;
		expect(log.events).toEqual(["life1:session_start:startup", "life1:resources_discover:startup"]);
		await p.session.reload();
		expect(log.events).toEqual([
			"life1:session_start:startup",
			"life1:resources_discover:startup",
			"life1:session_shutdown:reload",
			"life2:session_start:reload",
			"life2:resources_discover:reload",
		]);
		const oldPi = log.captured["life:1"] as { getActiveTools(): string[] };
		const newPi = log.captured["life:2"] as { getActiveTools(): string[] };
		expect(() => oldPi.getActiveTools()).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(newPi.getActiveTools()).toEqual(["read", "bash", "edit", "write"]);
	});

	it("keeps flag values, the active tools that are still registered, and activates new extension tools", async () => {
		const tool = (name: string) => `pi.registerTool({ name: "${name}", label: "${name}", description: "${name}",
			parameters: { type: "object", properties: {} },
			async execute() { return { content: [{ type: "text", text: "${name}" }], details: {} }; } });`;
		p = await openProject({
			files: {
				".settle/extensions/life.ts": lifecycleExtension(
					"life",
					`${tool("alpha")} ${tool("beta")} log.values["flag:" + generation] = pi.getFlag("mode");`,
				),
			},
		});
		const log = g.__settleReloadTest!;
		expect(log.values["flag:1"]).toBe("plain");
		p.session.extensionRunner.setFlagValue("mode", "strict");
		p.session.setActiveToolsByName(["read", "alpha"]);

		p.write(
			".settle/extensions/life.ts",
			lifecycleExtension(
				"life",
				`${tool("alpha")} ${tool("gamma")} log.values["flag:" + generation] = pi.getFlag("mode");`,
			),
		);
		await p.session.reload();
		expect(log.values["flag:2"]).toBe("strict");
		// alpha stays active, beta is gone, gamma is new and active.
		expect(p.session.getActiveToolNames()).toEqual(["read", "alpha", "gamma"]);
		expect(p.session.getAllTools().map((info) => info.name)).not.toContain("beta");
	});

	it("applies changed settings: queue modes, blocked images and the bash command prefix", async () => {
		p = await openProject({ fixture: "live-app" });
		expect(p.session.followUpMode).toBe("all");
		p.write(
			".settle/settings.json",
			JSON.stringify({
				followUpMode: "one-at-a-time",
				steeringMode: "all",
				images: { blockImages: true },
				shellCommandPrefix: "export GREETING=reloaded",
			}),
		);
		await p.session.reload();
		expect(p.session.followUpMode).toBe("one-at-a-time");
		expect(p.session.steeringMode).toBe("all");

		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("bash", { command: "echo $GREETING" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		await p.session.prompt("look", {
			images: [
				{
					type: "image",
					data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
					mimeType: "image/png",
				},
			],
		});
		expect(p.faux.requests[0]!.messages[0]).toMatchObject({
			content: [
				{ type: "text", text: "look" },
				{ type: "text", text: "Image reading is disabled." },
			],
		});
		expect(p.faux.requests[1]!.messages.at(-1)).toMatchObject({
			role: "toolResult",
			content: [{ type: "text", text: "reloaded\n" }],
		});
		// The transcript still holds the image; only the request was changed.
		expect(p.session.messages.find((message) => message.role === "user")).toMatchObject({
			content: [{ type: "text" }, { type: "image" }],
		});
	});

	it("rejects while an operation runs; a prompt sent during a reload runs on the reloaded resources", async () => {
		p = await openProject({ fixture: "live-app" });
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		p.faux.setResponses([
			async () => {
				await gate;
				return fauxAssistantMessage("slow");
			},
		]);
		const running = p.session.prompt("slow one");
		await new Promise((resolve) => setImmediate(resolve));
		expect(p.session.isStreaming).toBe(true);
		const rejected = await p.session.reload().catch((error: unknown) => error);
		expect(rejected).toBeInstanceOf(SettleError);
		expect(rejected).toMatchObject({ code: "BUSY", message: RELOAD_WHILE_BUSY });
		release();
		await running;

		p.write("AGENTS.md", "Edited just before the reload.");
		p.faux.setResponses([fauxAssistantMessage("fresh")]);
		const reloading = p.session.reload();
		const prompting = p.session.prompt("after");
		await Promise.all([reloading, prompting]);
		expect(p.faux.requests[1]!.systemPrompt).toContain("Edited just before the reload.");
	});

	it("a prompt sent during a reload that fails is refused with RELOAD_FAILED naming the cause; nothing reaches the model, a later prompt runs", async () => {
		p = await openProject({ files: { ".settle/extensions/life.ts": lifecycleExtension("life") } });
		p.faux.setResponses([fauxAssistantMessage("later")]);
		const reloading = p.session.reload({
			beforeSessionStart: () => Promise.reject(new Error("host UI could not rebind")),
		});
		const prompting = p.session.prompt("sent during the reload").catch((error: unknown) => error);
		await expect(reloading).rejects.toThrow("host UI could not rebind");
		const refused = await prompting;
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({
			code: "RELOAD_FAILED",
			message: expect.stringContaining("a reload that failed (host UI could not rebind); it was not run"),
		});
		expect(p.faux.requests).toHaveLength(0);
		expect(p.session.messages.filter((m) => m.role === "user")).toEqual([]);
		// The failure refused only the prompts that waited for it.
		await p.session.prompt("after the failure");
		expect(p.faux.requests).toHaveLength(1);
	});

	it("overlapping reload() calls run one after the other, each to its end; a prompt sent meanwhile runs once, after the last", async () => {
		p = await openProject({ files: { ".settle/extensions/life.ts": lifecycleExtension("life") } });
		const log = g.__settleReloadTest!;
		p.faux.setResponses([fauxAssistantMessage("once")]);
		const first = p.session.reload();
		const prompting = p.session.prompt("during both").then(() => log.events.push("prompt settled"));
		const second = p.session.reload();
		await Promise.all([first, second, prompting]);
		expect(log.events.filter((event) => !event.includes("resources_discover"))).toEqual([
			"life1:session_start:startup",
			"life1:session_shutdown:reload",
			"life2:session_start:reload",
			"life2:session_shutdown:reload",
			"life3:session_start:reload",
			"prompt settled",
		]);
		expect(p.faux.requests).toHaveLength(1);
		expect(p.session.messages.filter((m) => m.role === "user")).toHaveLength(1);
	});

	it("ctx.reload() from a command reloads; the command's old ctx is stale afterwards", async () => {
		p = await openProject({
			files: {
				".settle/extensions/life.ts": lifecycleExtension(
					"life",
					`pi.registerCommand("refresh", { handler: async (_args: string, ctx: any) => {
						await ctx.reload();
						try { ctx.cwd; log.values.after = "usable"; } catch (error: any) { log.values.after = error.message; }
					} });`,
				),
			},
		});
		const log = g.__settleReloadTest!;
		await p.session.prompt("/refresh");
		expect(log.values.after).toBe(STALE_EXTENSION_CONTEXT_MESSAGE);
		expect(log.events).toContain("life2:session_start:reload");
		expect(p.faux.callCount).toBe(0);
	});

	it("without host bindings the new extensions get no session_start (the old ones still get session_shutdown)", async () => {
		p = await openProject({ bind: false, files: { ".settle/extensions/life.ts": lifecycleExtension("life") } });
		await p.session.reload();
		expect(g.__settleReloadTest!.events).toEqual(["life1:session_shutdown:reload"]);
		expect(g.__settleReloadTest!.values["life:loads"]).toBe(2);
	});

	it("runs beforeSessionStart after loading and before session_start", async () => {
		p = await openProject({ files: { ".settle/extensions/life.ts": lifecycleExtension("life") } });
		const log = g.__settleReloadTest!;
		await p.session.reload({
			beforeSessionStart: () => {
				log.events.push(`host:before:${String(log.values["life:loads"])}`);
			},
		});
		expect(log.events.slice(2)).toEqual([
			"life1:session_shutdown:reload",
			"host:before:2",
			"life2:session_start:reload",
			"life2:resources_discover:reload",
		]);
	});

	it("reports a module that no longer loads and keeps the others; fixing it and reloading loads it again", async () => {
		p = await openProject({ fixture: "live-app" });
		p.write(".settle/extensions/broken.ts", "export default function (pi) { pi.registerTool( }\n");
		await p.session.reload();
		expect(p.session.extensionLoadErrors).toEqual([
			{ path: join(p.cwd, ".settle/extensions/broken.ts"), error: expect.stringContaining("Failed to load extension") },
		]);
		expect(p.session.getActiveToolNames()).toContain("query_ticket");
		rmSync(join(p.cwd, ".settle/extensions/broken.ts"));
		await p.session.reload();
		expect(p.session.extensionLoadErrors).toEqual([]);
	});

	it("unregisters providers the old extensions registered; the new ones register theirs", async () => {
		const provider = (id: string) => `
export default function (pi: any) {
	pi.registerProvider("ext-models", {
		api: "ext-api",
		baseUrl: "http://localhost:1",
		models: [{ id: "${id}", name: "${id}", input: ["text"] }],
		apiKey: "none",
		streamSimple: () => { throw new Error("not used"); },
	});
}
`;
		p = await openProject({ files: { ".settle/extensions/models.ts": provider("first") } });
		expect(p.modelRuntime.getModel("ext-models", "first")).toBeDefined();
		p.write(".settle/extensions/models.ts", provider("second"));
		await p.session.reload();
		expect(p.modelRuntime.getModel("ext-models", "first")).toBeUndefined();
		expect(p.modelRuntime.getModel("ext-models", "second")).toBeDefined();
		rmSync(join(p.cwd, ".settle/extensions/models.ts"));
		await p.session.reload();
		expect(p.modelRuntime.getAll().map((model) => model.provider)).toEqual(["faux"]);
	});

	it("keeps the transcript, the session file and the model", async () => {
		p = await openProject({ fixture: "live-app", faux: { models: [{ id: "a" }, { id: "b" }] } });
		await p.session.setModel(p.faux.getModel("b")!, { persist: false });
		p.faux.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await p.session.prompt("one");
		const file = p.session.sessionFile;
		const before = p.session.messages.slice();
		await p.session.reload();
		expect(p.session.sessionFile).toBe(file);
		expect(p.session.model?.id).toBe("b");
		expect(p.session.messages).toEqual(before);
		await p.session.prompt("two");
		const context = p.faux.requests[1] as Context;
		expect(context.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
	});

	it("a dispose during the reload's session_shutdown stops it there: nothing new is loaded, reload() rejects SESSION_CLOSED", async () => {
		let dispose: (() => void) | undefined;
		p = await openProject({
			files: { ".settle/extensions/life.ts": lifecycleExtension("life") },
			extensionFactories: [(pi) => pi.on("session_shutdown", () => dispose?.())],
		});
		dispose = () => p!.session.dispose();
		await expect(p.session.reload()).rejects.toMatchObject({ code: "SESSION_CLOSED" });
		const log = g.__settleReloadTest!;
		expect(log.values["life:loads"]).toBe(1);
		expect(log.events).not.toContain("life2:session_start:reload");
		await expect(p.session.reload()).rejects.toMatchObject({ code: "SESSION_CLOSED" });
	});

	it("a dispose during the reload's beforeSessionStart stops it there: the new extensions are stale and get no session_start", async () => {
		p = await openProject({ files: { ".settle/extensions/life.ts": lifecycleExtension("life") } });
		const session = p.session;
		await expect(session.reload({ beforeSessionStart: () => void session.dispose() })).rejects.toMatchObject({
			code: "SESSION_CLOSED",
		});
		const log = g.__settleReloadTest!;
		expect(log.values["life:loads"]).toBe(2);
		expect(log.events).not.toContain("life2:session_start:reload");
		const newPi = log.captured["life:2"] as { getActiveTools(): string[] };
		expect(() => newPi.getActiveTools()).toThrow(STALE_EXTENSION_CONTEXT_MESSAGE);
	});

	it("with the in-memory test loader, skills added by resources_discover are not doubled by a reload", async () => {
		const h = await createHarness({
			extensionFactories: [
				(pi) => pi.on("resources_discover", (event) => ({ skillPaths: [join(event.cwd, "skills")] })),
			],
		});
		try {
			mkdirSync(join(h.tempDir, "skills/lint"), { recursive: true });
			writeFileSync(
				join(h.tempDir, "skills/lint/SKILL.md"),
				"---\nname: lint\ndescription: Lint.\n---\nRun the linter.\n",
			);
			await h.session.reload();
			await h.session.reload();
			expect(h.resourceLoader.getSkills().skills.map((skill) => skill.name)).toEqual(["lint"]);
		} finally {
			h.cleanup();
		}
	});
});
