/**
 * A host that restores a session whose last message still waits for the model (the process died
 * after a tool result was saved, before the answer) and wants the model to carry on: pi's SDK had
 * no session-level way (pi#5961, pi#8026), and `session.agent.continue()` ran the model behind the
 * session's back (pi#8401). Replayed through the public SDK on real session files.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentSessionEvent, SessionManager, SettleError } from "../../src/index.js";
import { type DiskSession, diskSessionsPerTest, fileMessages, nextEvent } from "./disk-harness.js";

/** The text of an assistant message. */
function answerText(message: { role: string; content?: unknown } | undefined): string | undefined {
	if (message?.role !== "assistant") return undefined;
	return (message.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("");
}

const sessions = diskSessionsPerTest();

/**
 * A session file whose last message is a tool result: the model asked for `bash echo restored`,
 * the command ran and its result was saved, and the host went away before the answer.
 */
async function crashedAfterToolResult(): Promise<{ dir: string; file: string }> {
	const first = await sessions.session();
	first.provider.answer(
		first.provider.toolCallReply({
			type: "toolCall",
			id: "call-1",
			name: "bash",
			arguments: { command: "echo restored" },
		}),
	);
	const prompt = first.session.prompt("run the check").catch((error: unknown) => error);
	await first.provider.next();
	const file = first.session.sessionFile!;
	first.session.dispose();
	expect(await prompt).toMatchObject({ code: "SESSION_CLOSED" });
	first.session.sessionManager.close();
	return { dir: first.dir, file };
}

/** The host's restart: the file opened again in a new SDK session on its project. */
function reopen(dir: string, file: string): Promise<DiskSession> {
	return sessions.session({ cwd: dir, sessionManager: SessionManager.open(file, join(dir, "sessions")) });
}

describe("pi#5961, pi#8026: a restored transcript ending in a tool result, continued from the SDK", () => {
	it("session.continue() answers the saved tool result with no new user message, retrying a failed attempt as a prompt's run does, and saves the answer after it", async () => {
		const { dir, file } = await crashedAfterToolResult();
		expect(fileMessages(file).map((message) => message.role)).toEqual(["system", "user", "assistant", "toolResult"]);

		const host = await reopen(dir, file);
		const contexts: string[][] = [];
		const streamFn = host.provider.streamFn;
		host.session.agent.streamFn = (model, context, options) => {
			contexts.push(context.messages.map((message) => message.role));
			return streamFn(model, context, options);
		};
		const settled: AgentSessionEvent["type"][] = [];
		const continued = host.session.continue().then(() => settled.push(...host.events.map((event) => event.type)));

		const failed = await host.provider.next();
		const retrying = nextEvent(host.session, "auto_retry_start");
		failed.finish({ ...host.provider.reply(""), stopReason: "error", errorMessage: "503 overloaded" });
		host.clock.increment((await retrying).delayMs);
		(await host.provider.next()).finish(host.provider.reply("the check printed: restored"));
		await continued;

		// Both attempts sent the restored transcript as it was: it ends with the tool result.
		expect(contexts).toEqual([
			["user", "assistant", "toolResult"],
			["user", "assistant", "toolResult"],
		]);
		expect(settled.at(-1)).toBe("agent_settled");
		expect(settled).toContain("auto_retry_end");
		// Saved after the tool result: the failed attempt (as any run's) and the answer; no user message.
		const saved = fileMessages(file).filter((message) => message.role !== "system");
		expect(saved.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant", "assistant"]);
		expect(saved[3]).toMatchObject({ stopReason: "error", errorMessage: "503 overloaded" });
		expect(answerText(saved[4])).toBe("the check printed: restored");
		expect(host.session.isIdle).toBe(true);
	});
});

describe("pi#8401: continuing while a run is going, or with nothing waiting for an answer", () => {
	it("continue() during a run is refused BUSY and starts no nested run; on an answered transcript it is refused INVALID_ARGUMENT naming prompt(), nothing sent or written", async () => {
		const { dir, file } = await crashedAfterToolResult();
		const host = await reopen(dir, file);
		const running = host.session.continue();
		const request = await host.provider.next();
		const busy = await host.session.continue().catch((error: unknown) => error);
		expect(busy).toBeInstanceOf(SettleError);
		expect(busy).toMatchObject({ code: "BUSY", message: expect.stringContaining("waitForIdle()") });
		request.finish(host.provider.reply("done"));
		await running;
		expect(host.provider.requests).toHaveLength(1);

		const before = fileMessages(file);
		const answered = await host.session.continue().catch((error: unknown) => error);
		expect(answered).toMatchObject({
			code: "INVALID_ARGUMENT",
			message: expect.stringContaining("the last message is the assistant's answer"),
		});
		expect((answered as Error).message).toContain("prompt()");
		expect(host.provider.requests).toHaveLength(1);
		expect(fileMessages(file)).toEqual(before);
		// The session still takes a prompt.
		host.provider.answer("next answer");
		await host.session.prompt("and now?");
		expect(answerText(host.session.messages.at(-1))).toBe("next answer");
	});

	it("the host's own session.agent.continue() (or agent.prompt()) is refused INVALID_ARGUMENT naming session.continue(): no request, no event, the session still idle, and session.continue() then answers", async () => {
		const { dir, file } = await crashedAfterToolResult();
		const host = await reopen(dir, file);
		const before = fileMessages(file);
		const direct = await host.session.agent.continue().catch((error: unknown) => error);
		expect(direct).toBeInstanceOf(SettleError);
		expect(direct).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("session.continue()") });
		const directPrompt = await host.session.agent.prompt("hello").catch((error: unknown) => error);
		expect(directPrompt).toMatchObject({ code: "INVALID_ARGUMENT" });
		expect(host.provider.requests).toHaveLength(0);
		expect(host.events).toEqual([]);
		expect(host.session.isIdle).toBe(true);
		expect(fileMessages(file)).toEqual(before);

		const continued = host.session.continue();
		(await host.provider.next()).finish(host.provider.reply("answered"));
		await continued;
		expect(answerText(fileMessages(file).at(-1))).toBe("answered");
	});
});
