/**
 * pi#8311: `reload()` keeps the active tool names; when the extension that shadowed a built-in
 * (a sandboxing `bash`) throws while it reloads, its name resolved to the unrestricted built-in —
 * no error, nothing the model or the user could see. What the user should see: the reload fails
 * closed (the name is left inactive, the load error says so), and a fixed extension brings it back.
 * pi-code#81: a plan mode's read-only tool set came back after `/reload` with every extension
 * tool active again (pi's reload adds them all). What the user should see: the set they had.
 * pi-agents#91: an extension that registers its `agent` tool in `session_start` (it needs the
 * session's cwd) lost it for good after `reload()` in an SDK program that bound the extensions with
 * no callbacks: the reload never sent `session_start` again. What the user should see: the tool
 * back after the reload, in the next request, and run when the model calls it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

/** The sandboxing extension's `bash`: it only says where it ran. */
function registerSandboxedBash(pi: ExtensionAPI): void {
	pi.registerTool({
		name: "bash",
		label: "bash",
		description: "Runs a command in the sandbox",
		parameters: { type: "object", properties: { command: { type: "string" } } },
		execute: async () => ({ content: [{ type: "text", text: "ran in the sandbox" }], details: {} }),
	});
}

describe("pi#8311: reload() fails open when the extension owning a tool name fails to reload", () => {
	it("pi#8311: the sandboxed bash is left inactive, not replaced by the built-in; the load error names it; a fixed extension brings it back", async () => {
		let broken = false;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					if (broken) throw new Error("sandbox init failed: xcrun not found");
					registerSandboxedBash(pi);
				},
			],
		});
		const marker = join(h.tempDir, "escaped.txt");
		const bashCall = () =>
			fauxAssistantMessage([fauxToolCall("bash", { command: `echo escaped > ${marker}` })], { stopReason: "toolUse" });
		const results = () =>
			h.session.messages.flatMap((message) =>
				message.role === "toolResult"
					? [message.content.map((part) => (part.type === "text" ? part.text : "")).join("")]
					: [],
			);
		script(h, [
			bashCall(),
			fauxAssistantMessage("ok"),
			bashCall(),
			fauxAssistantMessage("ok"),
			bashCall(),
			fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("run it");
		expect(results()).toEqual(["ran in the sandbox"]);

		broken = true;
		await h.session.reload();
		expect(h.session.getActiveToolNames()).not.toContain("bash");
		expect(h.session.extensionLoadErrors.map((error) => error.error)).toEqual([
			expect.stringContaining("sandbox init failed"),
			expect.stringContaining('Tool "bash" that this extension provided is left inactive after the reload'),
		]);
		await h.session.prompt("run it again");
		// The model's call is refused as an unknown tool; no shell ran.
		expect(results()[1]).toContain("bash");
		expect(results()[1]).not.toBe("ran in the sandbox");
		expect(existsSync(marker)).toBe(false);

		broken = false;
		await h.session.reload();
		expect(h.session.getActiveToolNames()).toContain("bash");
		expect(h.session.extensionLoadErrors).toEqual([]);
		await h.session.prompt("and now");
		expect(results()[2]).toBe("ran in the sandbox");
		expect(existsSync(marker)).toBe(false);
	});
	it("pi#8311: an extension that loads but no longer registers its bash gives the name back to the built-in (a deliberate change, no load error)", async () => {
		let sandboxed = true;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					if (!sandboxed) return;
					registerSandboxedBash(pi);
				},
			],
		});
		const marker = join(h.tempDir, "built-in.txt");
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: `echo built-in > ${marker}` })], { stopReason: "toolUse" }),
			fauxAssistantMessage("ok"),
		]);
		sandboxed = false;
		await h.session.reload();
		expect(h.session.extensionLoadErrors).toEqual([]);
		expect(h.session.getActiveToolNames()).toContain("bash");
		await h.session.prompt("run it");
		expect(existsSync(marker)).toBe(true);
	});
});

describe("pi-code#81: /reload lifts a plan mode's tool restriction (every extension tool active again)", () => {
	it("pi-code#81: a restricted set survives reload(); extension tools turned off stay off, a tool an extension adds with the reload becomes active; the next request offers exactly that", async () => {
		let withIndexer = false;
		const tool = (name: string) => ({
			name,
			label: name,
			description: `The ${name} tool`,
			parameters: { type: "object" as const, properties: {} },
			execute: async () => ({ content: [{ type: "text" as const, text: name }], details: {} }),
		});
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool(tool("todo"));
					pi.registerTool(tool("memory"));
					if (withIndexer) pi.registerTool(tool("indexer"));
				},
			],
		});
		expect(h.session.getActiveToolNames()).toEqual(["read", "bash", "edit", "write", "todo", "memory"]);
		// Plan mode: read-only, plus the extension's todo list.
		h.session.setActiveToolsByName(["read", "grep", "todo"]);
		await h.session.reload();
		expect(h.session.getActiveToolNames()).toEqual(["read", "grep", "todo"]);

		withIndexer = true;
		await h.session.reload();
		expect(h.session.getActiveToolNames()).toEqual(["read", "grep", "todo", "indexer"]);
		const { answerRequests } = script(h, [fauxAssistantMessage("planned")]);
		await h.session.prompt("plan it");
		expect(answerRequests[0]!.tools?.map((t) => t.name)).toEqual(["read", "grep", "todo", "indexer"]);
	});
});

describe("pi-agents#91: a tool registered in session_start, then reload() on an SDK session bound without callbacks", () => {
	it("pi-agents#91: after reload() the session_start tool is registered again, in the next request, and runs when called", async () => {
		const starts: string[] = [];
		h = await createHarness({
			persistence: "disk",
			bindExtensions: false,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("session_start", (event) => {
						starts.push(event.reason);
						pi.registerTool({
							name: "agent",
							label: "agent",
							description: "Runs a sub-agent",
							parameters: { type: "object", properties: {} },
							execute: async (_id, _params, _signal, _onUpdate, ctx) => ({
								content: [{ type: "text", text: `sub-agent ran in ${ctx.cwd}` }],
								details: {},
							}),
						});
					});
				},
			],
		});
		await h.session.bindExtensions({});
		await h.session.reload();

		expect(starts).toEqual(["startup", "reload"]);
		expect(h.session.getActiveToolNames()).toContain("agent");
		const { answerRequests } = script(h, [
			fauxAssistantMessage([fauxToolCall("agent", {})], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("delegate it");
		expect(answerRequests[0]!.tools?.map((t) => t.name)).toContain("agent");
		expect(toolResultTexts(h)).toEqual([{ isError: false, text: `sub-agent ran in ${h.session.cwd}` }]);
	});
});
