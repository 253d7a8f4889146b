/**
 * Reports about what an extension can call and receive, replayed against Settle through the SDK
 * harness on the faux model (inline extension factories, a real session file on disk).
 *
 * pi#9761: an extension tool whose `execute` returns an object without `content` (`{ output:
 * "done" }`) crashed pi's TUI. What that user should see: the call ends as an error result that
 * says what `execute` returned and what it must return — not an empty success, which silently drops
 * the tool's output from what the model sees.
 *
 * pi#1781: a tool that moved the session with `ctx.sessionManager.branchWithSummary()` (pi hands
 * extensions the manager itself) changed the file — `/tree` showed the switch — while the model went
 * on seeing the other branch. What the extension author should see: the write refused with a typed
 * error naming the API that does it through the session; the file and the model's context untouched.
 *
 * Held, pinned here: pi#7864, `pi.exec({ timeout })` on a child that ignores SIGTERM never settled
 * (pi checked `proc.killed`, true once the signal is sent, so SIGKILL never came) and a
 * signal-killed child reported exit code 0; pi#7193, `pi.events` listeners of the extensions a
 * reload replaced went on hearing the shared bus (every reload one more copy), and disposal left
 * them too; oh-my-pi#12875, a `tool_execution_update` after the call's `tool_execution_end`;
 * oh-my-pi#5465 (review), a `tool_result` handler that rewrites only the content of a failed call
 * turned it into a success; pi#5663, `pi.setActiveTools(undefined)` threw an untyped
 * "toolNames is not iterable"; siclaw#355, a schema built with TypeBox 0.34 (its kind a symbol)
 * switched off argument coercion, and `"10"` for an integer parameter failed validation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TOOL_RESULT_SHAPE } from "../../src/agent/tool-result-check.js";
import { createEventBus } from "../../src/extensions/event-bus.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { fileAppears } from "../cli/interactive.helpers.js";
import { fileEntries, script } from "./helpers.js";

let h: Harness;
afterEach(() => h?.cleanup());

const call = (name: string, args: Record<string, unknown> = {}) =>
	fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });

const textOfResult = (message: ToolResultMessage) =>
	message.content.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("pi#9761: an extension tool returning an object without content", () => {
	it("pi#9761: execute resolving to { output } ends the call with an error naming the stray field; the model and the file get that error, the session goes on", async () => {
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "my_tool",
						label: "My tool",
						description: "returns a non-conforming result object",
						parameters: { type: "object", properties: {} },
						// What a JavaScript extension can return: jiti loads it without a type check.
						execute: async () => ({ output: "done" }) as never,
					});
					pi.registerTool({
						name: "quiet_tool",
						label: "Quiet tool",
						description: "returns details only: an empty result",
						parameters: { type: "object", properties: {} },
						execute: async () => ({ details: { ran: true } }) as never,
					});
				},
			],
		});
		script(h, [call("my_tool"), call("quiet_tool"), fauxAssistantMessage("after the tools")]);
		await h.session.prompt("use my_tool");

		const expected = `Tool my_tool returned a result without content (it has "output" instead): ${TOOL_RESULT_SHAPE}`;
		const ends = h.eventsOfType("tool_execution_end");
		expect(ends.map((end) => [end.toolName, end.isError])).toEqual([
			["my_tool", true],
			["quiet_tool", false],
		]);
		expect(ends[0]!.result.content).toEqual([{ type: "text", text: expected }]);
		// The model is told; a result of the other fields alone stays an empty success.
		const sent = h.faux.requests[1]!.messages.filter(
			(message): message is ToolResultMessage => message.role === "toolResult",
		);
		expect(sent.map((message) => [message.isError, textOfResult(message)])).toEqual([[true, expected]]);
		const saved = fileEntries(h.session.sessionFile!).flatMap((entry) =>
			entry.type === "message" && entry.message?.role === "toolResult" ? [entry.message as ToolResultMessage] : [],
		);
		expect(saved.map((message) => [message.toolName, message.isError, textOfResult(message)])).toEqual([
			["my_tool", true, expected],
			["quiet_tool", false, ""],
		]);
		const last = h.session.messages.at(-1);
		expect(last).toMatchObject({ role: "assistant", stopReason: "stop", content: [{ text: "after the tools" }] });
	});
});

describe("pi#7864: pi.exec's timeout never force-kills a child that ignores SIGTERM", () => {
	it("pi#7864: a timed-out child that traps SIGTERM is SIGKILLed and the call settles with killed: true and a signal exit code, never 0; a plain timed-out child reports SIGTERM's code", async () => {
		let api!: ExtensionAPI;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		// exec's timeout and its 5 s SIGKILL grace are this process's timers: faked, so that the test
		// does not sit out the grace; the children and their signals are real.
		const dir = mkdtempSync(join(tmpdir(), "settle-exec-kill-"));
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		try {
			const stubbornRun = api.exec(
				"sh",
				["-c", `trap '' TERM; echo started; : > '${join(dir, "trapped")}'; while :; do sleep 0.1; done`],
				{ timeout: 200 },
			);
			await fileAppears(dir, "trapped");
			await vi.advanceTimersByTimeAsync(200); // the timeout: SIGTERM, ignored
			await vi.advanceTimersByTimeAsync(5000); // the grace: SIGKILL
			const stubborn = await stubbornRun;
			expect(stubborn).toMatchObject({ stdout: "started\n", killed: true, code: 128 + constants.signals.SIGKILL });
			const plainRun = api.exec("sleep", ["30"], { timeout: 200 });
			await vi.advanceTimersByTimeAsync(200);
			const plain = await plainRun;
			expect(plain).toMatchObject({ killed: true, code: 128 + constants.signals.SIGTERM });
			await vi.advanceTimersByTimeAsync(5000); // its due SIGKILL, to a process already gone
		} finally {
			vi.useRealTimers();
			rmSync(dir, { recursive: true, force: true });
		}
	}, 30_000);
});

describe("pi#7193: pi.events listeners survive reloads and disposal", () => {
	it("pi#7193: after two reloads only the newest extensions hear the shared bus, once; after dispose none does, while the host's own listener keeps hearing it", async () => {
		const bus = createEventBus();
		const heard: string[] = [];
		bus.on("ping", (data) => void heard.push(`host ${data}`));
		let generation = 0;
		h = await createHarness({
			eventBus: bus,
			extensionFactories: [
				(pi: ExtensionAPI) => {
					const mine = ++generation;
					pi.events.on("ping", (data) => void heard.push(`extension gen ${mine} ${data}`));
					pi.on("session_start", () => {
						pi.events.on("ping", (data) => void heard.push(`session_start gen ${mine} ${data}`));
					});
				},
			],
		});
		await h.session.reload();
		await h.session.reload();
		bus.emit("ping", 1);
		expect(heard).toEqual(["host 1", "extension gen 3 1", "session_start gen 3 1"]);
		h.session.dispose();
		bus.emit("ping", 2);
		expect(heard.slice(3)).toEqual(["host 2"]);
	});
});

describe("oh-my-pi#12875: tool_execution_update can arrive after tool_execution_end", () => {
	it("oh-my-pi#12875: a tool that keeps calling onUpdate after it returned gets no update past its tool_execution_end", async () => {
		let lateUpdateSent!: () => void;
		const late = new Promise<void>((resolve) => {
			lateUpdateSent = resolve;
		});
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "progress",
						label: "Progress",
						description: "reports progress, then once more after returning",
						parameters: { type: "object", properties: {} },
						execute: async (_id, _params, _signal, onUpdate) => {
							onUpdate?.({ content: [{ type: "text", text: "halfway" }], details: {} });
							setTimeout(() => {
								onUpdate?.({ content: [{ type: "text", text: "late" }], details: {} });
								lateUpdateSent();
							}, 0);
							return { content: [{ type: "text", text: "done" }], details: {} };
						},
					});
				},
			],
		});
		// The next answer waits for the late update: it comes while the run goes on.
		script(h, [
			call("progress"),
			async () => {
				await late;
				return fauxAssistantMessage("ok");
			},
		]);
		await h.session.prompt("go");
		const lifecycle = h.events.flatMap((event) =>
			event.type === "tool_execution_update"
				? [`update ${(event.partialResult.content[0] as { text: string }).text}`]
				: event.type === "tool_execution_start" || event.type === "tool_execution_end"
					? [event.type]
					: [],
		);
		expect(lifecycle).toEqual(["tool_execution_start", "update halfway", "tool_execution_end"]);
	});
});

describe("oh-my-pi#5465: a tool_result handler that rewrites a failed call's content", () => {
	it("oh-my-pi#5465: a handler returning only content keeps a returned isError and a thrown error failed; one returning isError: false clears it", async () => {
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					const tool = (name: string, execute: () => Promise<never>) =>
						pi.registerTool({
							name,
							label: name,
							description: name,
							parameters: { type: "object", properties: {} },
							execute,
						});
					tool(
						"returns_error",
						async () => ({ content: [{ type: "text", text: "bad" }], details: {}, isError: true }) as never,
					);
					tool("throws", async () => {
						throw new Error("boom");
					});
					tool("cleared", async () => {
						throw new Error("flaky");
					});
					pi.on("tool_result", (event) => ({
						content: [{ type: "text", text: `redacted ${event.toolName}` }],
						...(event.toolName === "cleared" ? { isError: false } : {}),
					}));
				},
			],
		});
		script(h, [call("returns_error"), call("throws"), call("cleared"), fauxAssistantMessage("ok")]);
		await h.session.prompt("go");
		const results = h.session.messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
		expect(results.map((message) => [message.toolName, message.isError, textOfResult(message)])).toEqual([
			["returns_error", true, "redacted returns_error"],
			["throws", true, "redacted throws"],
			["cleared", false, "redacted cleared"],
		]);
		expect(h.eventsOfType("tool_execution_end").map((end) => end.isError)).toEqual([true, true, false]);
	});
});

describe("pi#5663: pi.setActiveTools(undefined) throws 'toolNames is not iterable'", () => {
	it("pi#5663: setActiveTools(undefined) is refused with a typed INVALID_ARGUMENT that says nothing changed; the active set stays", async () => {
		let api!: ExtensionAPI;
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					api = pi;
				},
			],
		});
		api.setActiveTools(["read", "bash"]);
		expect(() => api.setActiveTools(undefined as never)).toThrow(
			expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/No tool was changed/) }),
		);
		expect(api.getActiveTools()).toEqual(["read", "bash"]);
	});
});

describe("siclaw#355: a TypeBox 0.34 schema switches off argument coercion", () => {
	it("siclaw#355: an integer and a boolean sent as strings reach execute as a number and a boolean, whatever kind symbol the schema carries", async () => {
		const kind = Symbol.for("TypeBox.Kind");
		// What TypeBox 0.34's Type.Object({ panelId: Type.Integer(), on: Type.Boolean() }) builds.
		const parameters = {
			[kind]: "Object",
			type: "object",
			properties: { panelId: { [kind]: "Integer", type: "integer" }, on: { [kind]: "Boolean", type: "boolean" } },
			required: ["panelId", "on"],
		};
		const received: unknown[] = [];
		h = await createHarness({
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "get_panel_image",
						label: "Panel",
						description: "renders a panel",
						parameters: parameters as never,
						execute: async (_id, params) => {
							received.push(params);
							return { content: [{ type: "text", text: "rendered" }], details: {} };
						},
					});
				},
			],
		});
		script(h, [call("get_panel_image", { panelId: "10", on: "true" }), fauxAssistantMessage("ok")]);
		await h.session.prompt("render panel 10");
		expect(received).toEqual([{ panelId: 10, on: true }]);
		expect(h.eventsOfType("tool_execution_end").map((end) => end.isError)).toEqual([false]);
	});
});

describe("pi#1781: a write through ctx.sessionManager from a tool", () => {
	it("pi#1781: branchWithSummary() and appendCustomEntry() from a tool are typed EXTENSION errors naming ctx.navigateTree / pi.appendEntry; nothing is written, the next request holds the same branch, reads still work", async () => {
		const thrown: unknown[] = [];
		let entriesSeen = 0;
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerTool({
						name: "checkout",
						label: "Checkout",
						description: "goes back to an earlier point of the conversation",
						parameters: { type: "object", properties: {} },
						execute: async (_id, _params, _signal, _onUpdate, ctx) => {
							const manager = ctx.sessionManager as unknown as Record<string, (...args: unknown[]) => unknown>;
							entriesSeen = ctx.sessionManager.getEntries().length;
							const first = ctx.sessionManager.getEntries()[0]!.id;
							for (const write of [
								() => manager.branchWithSummary!(first, "the token was 42"),
								() => manager.appendCustomEntry!("tag", { name: "start" }),
							]) {
								try {
									write();
								} catch (error) {
									thrown.push(error);
								}
							}
							return { content: [{ type: "text", text: "checked out" }], details: {} };
						},
					});
				},
			],
		});
		script(h, [call("checkout"), fauxAssistantMessage("done")]);
		await h.session.prompt("check out the start");
		expect(entriesSeen).toBeGreaterThan(0);
		expect(thrown).toEqual([
			expect.objectContaining({
				code: "EXTENSION",
				message: expect.stringMatching(
					/^ctx\.sessionManager\.branchWithSummary\(\) is not available: ctx\.sessionManager is read-only.*Use ctx\.navigateTree\(targetId, \{ summarize: true \}\) from a command\.$/,
				),
			}),
			expect.objectContaining({
				code: "EXTENSION",
				message: expect.stringMatching(
					/^ctx\.sessionManager\.appendCustomEntry\(\) is not available.*Use pi\.appendEntry\(customType, data\)\.$/,
				),
			}),
		]);
		const types = fileEntries(h.session.sessionFile!).map((entry) => entry.type);
		expect(types).not.toContain("branch_summary");
		expect(types).not.toContain("custom");
		// The request after the tool carries the whole branch: the prompt, the call and its result.
		const roles = h.faux.requests[1]!.messages.map((message) => message.role);
		expect(roles.slice(-3)).toEqual(["user", "assistant", "toolResult"]);
	});
});
