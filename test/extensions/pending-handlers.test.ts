/**
 * `runner.pendingHandlers()` (what `settle` names when a handler never settles) and a
 * `before_agent_start` result whose `systemPrompt` is not a string.
 */
import { describe, expect, it } from "vitest";
import { runnerWith, withoutStacks } from "./helpers.js";

const emitStart = (runner: Awaited<ReturnType<typeof runnerWith>>["runner"]) =>
	runner.emitBeforeAgentStart("hi", undefined, "base prompt", { cwd: "/" } as never);

describe("pendingHandlers", () => {
	it("lists a handler while it runs and forgets it once it resolved or threw", async () => {
		let release!: () => void;
		const { runner, errors } = await runnerWith(
			(pi) => pi.on("agent_start", () => new Promise<void>((resolve) => (release = resolve))),
			(pi) =>
				pi.on("agent_end", () => {
					throw new Error("broken");
				}),
		);
		expect(runner.pendingHandlers()).toEqual([]);
		const started = runner.emit({ type: "agent_start" });
		expect(runner.pendingHandlers()).toEqual([{ extensionPath: "<inline:1>", event: "agent_start" }]);
		release();
		await started;
		expect(runner.pendingHandlers()).toEqual([]);
		await runner.emit({ type: "agent_end", messages: [] });
		expect(runner.pendingHandlers()).toEqual([]);
		expect(errors.map((e) => e.error)).toEqual(["broken"]);
	});

	it("names a command by its invocation and a tool_call handler by its event", async () => {
		const { runner } = await runnerWith((pi) => {
			pi.registerCommand("wait", { handler: () => new Promise(() => {}) });
			pi.on("tool_call", () => new Promise(() => {}));
		});
		void runner.dispatchCommand("/wait now");
		void runner.emitToolCall({ type: "tool_call", toolName: "x", toolCallId: "1", input: {} } as never);
		await new Promise((resolve) => setImmediate(resolve));
		expect(runner.pendingHandlers()).toEqual([
			{ extensionPath: "<inline:1>", event: "command:wait" },
			{ extensionPath: "<inline:1>", event: "tool_call" },
		]);
	});
});

describe("before_agent_start systemPrompt that is not a string", () => {
	it("regression: {systemPrompt: 42} became the system prompt; now it is reported and the prompt kept", async () => {
		const { runner, errors } = await runnerWith((pi) =>
			pi.on("before_agent_start", () => ({ systemPrompt: 42 as unknown as string })),
		);
		expect(await emitStart(runner)).toBeUndefined();
		expect(withoutStacks(errors)).toEqual([
			{
				extensionPath: "<inline:1>",
				event: "before_agent_start",
				error: "A before_agent_start handler returned a systemPrompt that is not a string (number); it was ignored.",
			},
		]);
	});

	it("a string systemPrompt still chains", async () => {
		const { runner, errors } = await runnerWith(
			(pi) => pi.on("before_agent_start", () => ({ systemPrompt: 7 as unknown as string })),
			(pi) => pi.on("before_agent_start", (event) => ({ systemPrompt: `${event.systemPrompt} + more` })),
		);
		expect(await emitStart(runner)).toEqual({ systemPrompt: "base prompt + more" });
		expect(errors).toHaveLength(1);
	});
});
