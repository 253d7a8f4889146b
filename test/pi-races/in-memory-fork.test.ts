/**
 * pi#8724: `pi --no-session`, a tool running, `/fork` at an earlier user message. pi reused the
 * in-memory session manager for the replacement and switched it before aborting the tool, so the
 * aborted tool's result (and the turn after it) landed in the fork, which then started with
 * `toolResult -> assistant`; every strict provider rejects the next request. What the user should
 * see: the fork holds only the branch before the chosen message; the tool call and its result stay
 * together in the session that made the call, and the fork's next request pairs every result.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
	createAgentSessionRuntime,
	createAgentSessionRuntimeFactory,
	InMemoryModelRuntime,
	SessionManager,
} from "../../src/index.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { fauxToolCall, SimulatedClock } from "../../src/testing/index.js";
import { diskSession, ManualProvider, removeTempDirs } from "./disk-harness.js";
import { blockingTool } from "./helpers.js";

afterEach(() => removeTempDirs());

/** Roles of the conversation's messages (the system prompt left out), with a tool result's call id and an assistant's tool-call ids. */
function shape(messages: AgentMessage[]): string[] {
	return messages.flatMap((message) => {
		if (message.role === "toolResult") return [`toolResult(${message.toolCallId})`];
		if (message.role === "assistant") {
			const calls = message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
			return [calls.length > 0 ? `assistant(${calls.join(",")})` : "assistant"];
		}
		return message.role === "system" ? [] : [message.role];
	});
}

describe("pi#8724: an in-memory fork while a tool runs writes the tool's result into the replacement session", () => {
	it("pi#8724: runtime.fork() at an earlier user message while a tool runs, no session file: the fork holds only what came before that message; the call and its result stay in the old session", async () => {
		const { dir, cleanup } = await diskSession();
		cleanup();
		const provider = new ManualProvider();
		let started!: () => void;
		const toolStarted = new Promise<void>((resolve) => (started = resolve));
		const modelRuntime = new InMemoryModelRuntime([
			{ provider: "manual", models: [provider.model], streamFn: provider.streamFn, requiresAuth: false },
		]);
		const factory = createAgentSessionRuntimeFactory({
			modelRuntime,
			model: provider.model,
			clock: new SimulatedClock(),
			customTools: [blockingTool(() => started())],
			resourceLoaderOptions: { noExtensions: true },
		});
		const runtime = await createAgentSessionRuntime(factory, {
			cwd: dir,
			agentDir: `${dir}/agent`,
			sessionManager: SessionManager.inMemory(dir),
		});
		const old = runtime.session;
		expect(old.sessionFile).toBeUndefined();
		provider.answer("the first answer");
		await old.prompt("first question");
		provider.answer({
			...provider.reply(""),
			content: [fauxToolCall("wait_for_ci", {}, { id: "call-ci" })],
			stopReason: "toolUse",
		});
		const running = old.prompt("wait for CI").catch((error: unknown) => (error as { code?: string }).code);
		await toolStarted;
		const firstUser = old.sessionManager
			.getEntries()
			.find((entry) => entry.type === "message" && entry.message.role === "user")!;
		const forked = await runtime.fork(firstUser.id);
		expect(forked).toMatchObject({ cancelled: false, selectedText: "first question" });
		await running;
		const fork = runtime.session;
		expect(fork).not.toBe(old);
		expect(fork.sessionFile).toBeUndefined();
		// Forked before the first user message: nothing of the old conversation, nothing of the aborted turn.
		expect(shape(fork.messages)).toEqual([]);
		expect(shape(fork.sessionManager.buildSessionContext().messages)).toEqual([]);
		// The old session kept the call with its result.
		const oldShape = shape(old.sessionManager.buildSessionContext().messages);
		expect(oldShape.slice(0, 4)).toEqual(["user", "assistant", "user", "assistant(call-ci)"]);
		expect(oldShape.filter((role) => role.startsWith("toolResult"))).toEqual(["toolResult(call-ci)"]);
		// The fork answers; its request starts with the user's message, no result without its call.
		provider.answer("answered in the fork");
		await fork.prompt("first question, rephrased");
		expect(shape(fork.messages)).toEqual(["user", "assistant"]);
		await runtime.dispose();
	});
});
