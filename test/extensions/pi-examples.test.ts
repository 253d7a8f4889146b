/**
 * pi 0.73.1's published example extensions, loaded UNCHANGED from node_modules through the real
 * loader (src/resources, jiti) and run through the ExtensionRunner. Value imports from
 * `@mariozechner/pi-coding-agent` resolve to Settle's pi-compat module via a jiti alias; type
 * imports are erased. No UI: `hasUI` is false, as in pi's print mode.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instantiateExtensions } from "../../src/extensions/loader.js";
import { piCompatModuleUrl } from "../../src/extensions/pi-compat.js";
import { createExtensionHarness, type ExtensionHarness } from "../../src/extensions/testing.js";
import { defaultExtensionAliases, extensionEntriesAt, loadExtensions } from "../../src/resources/extensions.js";
import type { LoadedExtension } from "../../src/resources/types.js";
import { bundledExtensionAliases } from "./bundle-aliases.js";
import { tempDir } from "./helpers.js";

const EXAMPLES = resolve(
	fileURLToPath(new URL("../../node_modules/@mariozechner/pi-coding-agent/examples/extensions", import.meta.url)),
);
const aliases = () => ({
	...defaultExtensionAliases(),
	"@mariozechner/pi-coding-agent": fileURLToPath(piCompatModuleUrl),
});

async function loadExamples(
	names: string[],
	withAliases: Record<string, string> = aliases(),
): Promise<{ extensions: LoadedExtension[]; errors: unknown[] }> {
	const candidates = names.flatMap((name) =>
		extensionEntriesAt(join(EXAMPLES, name)).map((path) => ({ path, source: "explicit" as const })),
	);
	const result = await loadExtensions(candidates, {
		cwd: tempDir(),
		agentDir: tempDir(),
		projectTrusted: true,
		aliases: withAliases,
	});
	return { extensions: result.extensions, errors: result.errors };
}

async function harnessFor(name: string, options: { cwd?: string; idle?: boolean } = {}): Promise<ExtensionHarness> {
	const { extensions, errors } = await loadExamples([name]);
	expect(errors).toEqual([]);
	expect(extensions).toHaveLength(1);
	const harness = await createExtensionHarness({
		extensions,
		cwd: options.cwd ?? tempDir(),
		idle: options.idle ?? true,
	});
	expect(harness.loadErrors).toEqual([]);
	return harness;
}

// tool-override.ts computes its log path from getAgentDir() when imported: point it at a temp folder.
let agentDir = "";
const previousAgentDir = process.env.SETTLE_AGENT_DIR;
beforeAll(() => {
	agentDir = mkdtempSync(join(tmpdir(), "settle-pi-examples-agent-"));
	process.env.SETTLE_AGENT_DIR = agentDir;
});
afterAll(() => {
	if (previousAgentDir === undefined) delete process.env.SETTLE_AGENT_DIR;
	else process.env.SETTLE_AGENT_DIR = previousAgentDir;
	rmSync(agentDir, { recursive: true, force: true });
});

describe("permission-gate.ts", () => {
	it("blocks rm -rf without a UI and lets safe commands run the real bash tool", async () => {
		const harness = await harnessFor("permission-gate.ts");
		const dangerous = await harness.callTool("bash", { command: "rm -rf build" });
		expect(dangerous).toMatchObject({
			blocked: true,
			decision: { block: true, reason: "Dangerous command blocked (no UI for confirmation)" },
			isError: true,
			result: { content: [{ type: "text", text: "Dangerous command blocked (no UI for confirmation)" }] },
		});
		expect((await harness.callTool("bash", { command: "sudo ls" })).blocked).toBe(true);
		const safe = await harness.callTool("bash", { command: "echo gate-open" });
		expect(safe.blocked).toBe(false);
		expect(safe.isError).toBe(false);
		expect(safe.result.content).toEqual([{ type: "text", text: "gate-open\n" }]);
		expect(harness.ui.dialogs).toEqual([]);
	});
});

describe("protected-paths.ts", () => {
	it("blocks writes to .env and .git/ but lets the real write tool write elsewhere", async () => {
		const cwd = tempDir();
		const harness = await harnessFor("protected-paths.ts", { cwd });
		const blocked = await harness.callTool("write", { path: ".env", content: "SECRET=1" });
		expect(blocked).toMatchObject({ blocked: true, decision: { block: true, reason: 'Path ".env" is protected' } });
		expect(existsSync(join(cwd, ".env"))).toBe(false);
		expect(
			(await harness.callTool("edit", { path: ".git/config", edits: [{ oldText: "a", newText: "b" }] })).blocked,
		).toBe(true);
		const allowed = await harness.callTool("write", { path: "notes.txt", content: "hello" });
		expect(allowed).toMatchObject({ blocked: false, isError: false });
		expect(readFileSync(join(cwd, "notes.txt"), "utf-8")).toBe("hello");
		// hasUI is false: the extension does not notify.
		expect(harness.notifications).toEqual([]);
	});
});

describe("input-transform.ts", () => {
	it("transforms ?quick, handles ping and time, and leaves other input alone", async () => {
		const harness = await harnessFor("input-transform.ts");
		expect(await harness.input("?quick What is TypeScript?")).toEqual({
			action: "transform",
			text: "Respond briefly in 1-2 sentences: What is TypeScript?",
		});
		expect(await harness.input("ping")).toEqual({ action: "handled" });
		expect(await harness.input("?quick   ")).toEqual({ action: "handled" });
		expect(await harness.input("time")).toEqual({ action: "handled" });
		expect(await harness.input("explain closures")).toEqual({ action: "continue" });
		expect(await harness.input("ping", "extension")).toEqual({ action: "continue" });
		expect(harness.notifications.slice(0, 2)).toEqual([
			{ message: "pong", type: "info" },
			{ message: "Usage: ?quick <question>", type: "warning" },
		]);
		expect(harness.notifications).toHaveLength(3);
	});
});

describe("dynamic-tools.ts", () => {
	it("registers a tool at session start and more from a command; they become active and run", async () => {
		const harness = await harnessFor("dynamic-tools.ts");
		expect(harness.runner.getAllRegisteredTools()).toEqual([]);
		await harness.start();
		expect(harness.runner.getAllRegisteredTools().map((t) => [t.definition.name, t.sourceInfo.path])).toEqual([
			["echo_session", join(EXAMPLES, "dynamic-tools.ts")],
		]);
		expect(harness.callsOf("refreshTools")).toHaveLength(1);
		expect(harness.activeTools).toContain("echo_session");
		expect(harness.notifications).toEqual([{ message: "Registered dynamic tool: echo_session", type: "info" }]);

		expect(await harness.command("/add-echo-tool Shout_Echo")).toBe(true);
		expect(await harness.command("/add-echo-tool not valid!")).toBe(true);
		expect(await harness.command("/add-echo-tool shout_echo")).toBe(true);
		expect(harness.notifications.slice(1)).toEqual([
			{ message: "Registered dynamic tool: shout_echo", type: "info" },
			{ message: "Usage: /add-echo-tool <tool_name> (lowercase, numbers, underscores)", type: "warning" },
			{ message: "Tool already registered: shout_echo", type: "warning" },
		]);
		expect(harness.activeTools).toEqual(expect.arrayContaining(["echo_session", "shout_echo"]));
		const info = harness.runner.getAllRegisteredTools().find((t) => t.definition.name === "shout_echo")!.definition;
		expect(info.promptSnippet).toBe("Echo back user-provided text with [shout_echo] prefix");

		const call = await harness.callTool("shout_echo", { message: "hi" });
		expect(call.result).toEqual({
			content: [{ type: "text", text: "[shout_echo] hi" }],
			details: { tool: "shout_echo", prefix: "[shout_echo] " },
		});
		// Arguments are validated against the extension's typebox 1.x schema.
		const invalid = await harness.callTool("echo_session", {});
		expect(invalid.isError).toBe(true);
		expect(invalid.result.content[0]).toMatchObject({ text: expect.stringContaining("message") });
	});
});

describe("tool-override.ts (value imports from @mariozechner/pi-coding-agent)", () => {
	it("replaces the built-in read tool, blocks sensitive paths and logs access under getAgentDir()", async () => {
		const cwd = tempDir();
		const harness = await harnessFor("tool-override.ts", { cwd });
		const registry = harness.runner.getAllRegisteredTools();
		expect(registry.map((t) => [t.definition.name, t.definition.label])).toEqual([["read", "read (audited)"]]);

		const denied = await harness.callTool("read", { path: ".env" });
		expect(denied.result.content[0]).toMatchObject({
			type: "text",
			text: expect.stringContaining('Access denied: ".env"'),
		});
		const log = readFileSync(join(agentDir, "read-access.log"), "utf-8");
		expect(log).toContain(`BLOCKED: ${join(cwd, ".env")} (matches blocked pattern)`);

		expect(await harness.command("/read-log")).toBe(true);
		expect(harness.notifications.at(-1)?.message).toContain("Recent file access:");
	});
});

describe("send-user-message.ts", () => {
	it("sends user messages from commands, with deliverAs while the agent is busy", async () => {
		const harness = await harnessFor("send-user-message.ts");
		await harness.command("/ask What is 2+2?");
		await harness.command("/askwith details");
		harness.idle = false;
		await harness.command("/ask ignored while busy");
		await harness.command("/steer Focus on tests");
		await harness.command("/followup And then?");
		expect(harness.callsOf("sendUserMessage")).toEqual([
			{ action: "sendUserMessage", content: "What is 2+2?" },
			{
				action: "sendUserMessage",
				content: [
					{ type: "text", text: "User request: details" },
					{ type: "text", text: "Please respond concisely." },
				],
			},
			{ action: "sendUserMessage", content: "Focus on tests", options: { deliverAs: "steer" } },
			{ action: "sendUserMessage", content: "And then?", options: { deliverAs: "followUp" } },
		]);
		expect(harness.notifications).toEqual([
			{ message: "Agent is busy. Use /steer or /followup instead.", type: "warning" },
			{ message: "Follow-up queued", type: "info" },
		]);
	});
});

describe("session-name.ts", () => {
	it("sets and shows the session name", async () => {
		const harness = await harnessFor("session-name.ts");
		await harness.command("/session-name");
		await harness.command("/session-name Feature work");
		await harness.command("/session-name");
		expect(harness.sessionName).toBe("Feature work");
		expect(harness.entries.map((e) => e.type)).toEqual(["session_info"]);
		expect(harness.notifications.map((n) => n.message)).toEqual([
			"No session name set",
			"Session named: Feature work",
			"Session: Feature work",
		]);
	});
});

describe("event-bus.ts", () => {
	it("delivers pi.events between handlers of the extension", async () => {
		const harness = await harnessFor("event-bus.ts");
		await harness.start();
		await harness.command("/emit deploy finished");
		expect(harness.notifications).toEqual([
			{ message: "Event from event-bus-example: Session started", type: "info" },
			{ message: "Event from /emit command: deploy finished", type: "info" },
		]);
	});
});

describe("every published example", () => {
	it("runs its factory, except the two terminal editors and the one with an uninstalled dependency", async () => {
		const names = readdirSync(EXAMPLES).filter(
			(name) => name.endsWith(".ts") || statSync(join(EXAMPLES, name)).isDirectory(),
		);
		const { extensions, errors } = await loadExamples(names, bundledExtensionAliases());
		const loaded = await instantiateExtensions(extensions, { cwd: tempDir() });
		// Examples that replace the same tool (bash, read, …) are reported as conflicts, as pi does when loading them together.
		const conflicts = loaded.errors.filter((e) => / conflicts with /.test(e.error));
		expect(conflicts.map((e) => e.error.split(" conflicts")[0])).toContain('Tool "bash"');
		const failures = [...errors, ...loaded.errors.filter((e) => !conflicts.includes(e))].map((e) => {
			const { path, error } = e as { path: string; error: string };
			return [path.slice(EXAMPLES.length + 1), error.split("\n")[0]];
		});
		expect(failures.sort()).toEqual([
			// CustomEditor is a terminal UI class: not provided without a terminal UI.
			[
				"modal-editor.ts",
				"Failed to load extension: Class extends value undefined is not a constructor or null (thrown at modal-editor.ts:28)",
			],
			[
				"rainbow-editor.ts",
				"Failed to load extension: Class extends value undefined is not a constructor or null (thrown at rainbow-editor.ts:44)",
			],
			[
				"sandbox/index.ts",
				"Failed to load extension: Cannot find module '@anthropic-ai/sandbox-runtime'. Install it where the extension can find it: npm install @anthropic-ai/sandbox-runtime in the extension's folder or a folder above it.",
			],
		]);
		expect(names.length).toBe(72);
		expect(loaded.extensions.length).toBeGreaterThanOrEqual(names.length - 3);
		// 72 real modules through jiti, their pi imports resolved to the bundle of the current sources
		// (bundle-aliases.ts), as in the published package: about 1 s. With the sources' aliases each
		// module evaluated pi-compat's sources anew through jiti (no module cache): 20 s of CPU, 51 s
		// on a loaded box. The single-example tests above keep the sources' aliases.
	}, 120_000);
});
