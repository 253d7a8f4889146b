/**
 * A caller's long-lived AbortSignal (one per host, per connection, per tab) passed to many
 * operations in a row: each operation removes the listener it added once it ends, so the signal
 * never accumulates listeners (Node warns MaxListenersExceeded at 11) and still aborts the next one.
 */
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentLoop } from "../../src/agent/agent-loop.js";
import type { AgentTool } from "../../src/agent/types.js";
import { compact, generateBranchSummary, generateSummary, prepareCompaction } from "../../src/compaction/index.js";
import { execCommand } from "../../src/extensions/exec.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createAllTools } from "../../src/tools/index.js";

const OPERATIONS = 15;

let dir: string;
let controller: AbortController;
let warnings: string[];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
const listeners = () => getEventListeners(controller.signal, "abort").length;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-lifetime-signal-"));
	writeFileSync(join(dir, "a.txt"), "alpha\nbeta\n");
	controller = new AbortController();
	warnings = [];
	process.on("warning", onWarning);
});
afterEach(() => {
	process.off("warning", onWarning);
	rmSync(dir, { recursive: true, force: true });
});

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: Date.now() });

describe("a long-lived AbortSignal", () => {
	it.each([
		["read", { path: "a.txt" }],
		["bash", { command: "echo hi" }],
		["edit", { path: "a.txt", edits: [{ oldText: "alpha", newText: "alpha" }] }],
		["write", { path: "b.txt", content: "x" }],
		["grep", { pattern: "beta" }],
		["find", { pattern: "*.txt" }],
		["ls", {}],
	])(`%s tool: no listener left after ${OPERATIONS} calls`, async (name, args) => {
		const tool = createAllTools(dir)[name as keyof ReturnType<typeof createAllTools>] as AgentTool;
		for (let i = 0; i < OPERATIONS; i++) {
			await tool.execute(`call-${i}`, args as never, controller.signal, () => {}).catch(() => {});
		}
		expect(listeners()).toBe(0);
		expect(warnings).toEqual([]);
	});

	it("bash tool: a command still running when the signal fires is killed, the others left nothing behind", async () => {
		const bash = createAllTools(dir).bash;
		for (let i = 0; i < OPERATIONS; i++) await bash.execute(`call-${i}`, { command: "true" }, controller.signal);
		const running = bash.execute("last", { command: "sleep 30" }, controller.signal);
		expect(listeners()).toBe(1);
		controller.abort();
		await expect(running).rejects.toMatchObject({ code: "ABORTED" });
		expect(listeners()).toBe(0);
	});

	it("pi.exec (execCommand): no listener left", async () => {
		for (let i = 0; i < OPERATIONS; i++) await execCommand("true", [], dir, { signal: controller.signal });
		expect(listeners()).toBe(0);
		expect(warnings).toEqual([]);
	});

	it("runAgentLoop with sequential and parallel tool calls: no listener left", async () => {
		const faux = createFauxProvider();
		const tools = createAllTools(dir);
		for (let i = 0; i < OPERATIONS; i++) {
			faux.setResponses([
				fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" })]),
				fauxAssistantMessage([fauxToolCall("read", { path: "a.txt" }), fauxToolCall("ls", {})]),
				fauxAssistantMessage("done"),
			]);
			await runAgentLoop(
				[user(`turn ${i}`)],
				{ systemPrompt: "", messages: [], tools: [tools.read, tools.ls] },
				{ model: faux.getModel()!, convertToLlm: (messages) => messages as never },
				() => {},
				controller.signal,
				faux.streamFn,
			);
		}
		expect(listeners()).toBe(0);
		expect(warnings).toEqual([]);
	});

	it("compaction summaries (generateSummary, compact, generateBranchSummary): no listener left", async () => {
		const faux = createFauxProvider();
		const model = faux.getModel()!;
		const manager = SessionManager.inMemory(dir);
		for (let i = 0; i < 6; i++) {
			manager.appendMessage(user(`question ${i} ${"words ".repeat(200)}`));
			manager.appendMessage(fauxAssistantMessage(`answer ${i} ${"words ".repeat(200)}`));
		}
		const preparation = prepareCompaction(manager.getBranch(), {
			enabled: true,
			reserveTokens: 1000,
			keepRecentTokens: 100,
		});
		expect(preparation).toBeDefined();
		const options = { model, streamFn: faux.streamFn, signal: controller.signal };
		for (let i = 0; i < OPERATIONS; i++) {
			faux.setResponses([
				fauxAssistantMessage("summary"),
				fauxAssistantMessage("history summary"),
				fauxAssistantMessage("prefix summary"),
			]);
			await generateSummary([user("hello"), fauxAssistantMessage("hi")], { ...options, reserveTokens: 1000 });
			await compact(preparation!, options);
			faux.setResponses([fauxAssistantMessage("branch summary")]);
			await generateBranchSummary(manager.getEntries(), options);
		}
		expect(listeners()).toBe(0);
		expect(warnings).toEqual([]);
	});
});
