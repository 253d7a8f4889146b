/**
 * cherry-studio#5051, pi#6514 (PR): an answer stopped mid-stream is left out of later requests, so
 * the prompt before it and the next prompt went as two user messages in a row; DeepSeek's reasoner
 * refused every later request, "deepseek-reasoner does not support successive user or assistant
 * messages (messages[1] and messages[2] in your input)". Here the answer was Claude's and the
 * session then switched to DeepSeek. What the user should see: the answer, both prompts in the
 * request, in one user message; the file keeps the aborted answer and both prompts.
 *
 * Over HTTP through pi-ai's own clients (Anthropic, then OpenAI Chat for DeepSeek) to a local
 * server that refuses successive roles as DeepSeek does, a whole session from `createAgentSession`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicEvents } from "../llm/wire/anthropic.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { sse, startWireServer } from "../llm/wire/server.js";
import { API_KEY, wireModel } from "../llm/wire/session.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type SentMessage = { role: string; content?: unknown };

describe("cherry-studio#5051: an answer stopped mid-stream, then DeepSeek's reasoner", () => {
	it("cherry-studio#5051: after the abort and a switch to deepseek/deepseek-reasoner, the next prompt is answered; both prompts go in one user message", async () => {
		const server = await startWireServer((request, next) => {
			if (!request.path.endsWith("/chat/completions")) return next();
			const roles = (request.body.messages as SentMessage[]).map((message) => message.role);
			const at = roles.findIndex((role, i) => i > 0 && role !== "tool" && role === roles[i - 1]);
			if (at < 0) return next();
			return openAiError(
				400,
				`deepseek-reasoner does not support successive user or assistant messages (messages[${at - 1}] and messages[${at}] in your input). You should interleave the user/assistant messages in the message sequence.`,
				"invalid_request_error",
			);
		});
		const dir = mkdtempSync(join(tmpdir(), "settle-successive-user-"));
		cleanups.push(async () => {
			await server.close();
			rmSync(dir, { recursive: true, force: true });
		});
		const runtime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
			providers: [],
			useEnvironment: false,
			credentials: AuthStorage.inMemory({ anthropic: API_KEY, deepseek: API_KEY }),
		});
		runtime.registerPiAiProvider("anthropic", [wireModel("anthropic-messages", server.url)]);
		runtime.registerPiAiProvider("deepseek", [
			wireModel("openai-completions", server.url, { provider: "deepseek", id: "deepseek-reasoner", name: "R1" }),
		]);
		const { session } = await createAgentSession({
			cwd: dir,
			agentDir: dir,
			modelRuntime: runtime,
			model: runtime.getModel("anthropic", "claude-wire-1")!,
			thinkingLevel: "off",
			settingsManager: SettingsManager.inMemory({ retry: { enabled: false } }),
			sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		});
		cleanups.push(() => {
			session.dispose();
		});
		const events = anthropicEvents([{ type: "text", text: "Definitely, here is a long PARTIAL text" }]);
		const cut = events.findIndex((event) => JSON.stringify(event.data).includes("PARTIAL"));
		server.reply(
			sse(events.slice(0, cut + 1), "hang"),
			chatReply([{ type: "text", text: "Your first message asked for a long text." }], {
				model: "deepseek-reasoner",
			}),
		);
		const reached = new Promise<void>((resolve) => {
			const off = session.subscribe((event) => {
				if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
					off();
					resolve();
				}
			});
		});
		const first = session.prompt("reply with some long text");
		await reached;
		await session.abort();
		await first;
		await server.waitForClientClose(1);
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });

		await session.setModel(runtime.getModel("deepseek", "deepseek-reasoner")!);
		await session.prompt("what did my first message ask for?");

		expect(session.messages.at(-1)).toMatchObject({
			role: "assistant",
			provider: "deepseek",
			stopReason: "stop",
			content: [{ type: "text", text: "Your first message asked for a long text." }],
		});
		const sent = server.requests[1]!.body.messages as SentMessage[];
		expect(sent.map((message) => message.role).slice(1)).toEqual(["user"]);
		const prompt = JSON.stringify(sent[1]!.content);
		expect(prompt).toContain("reply with some long text");
		expect(prompt).toContain("what did my first message ask for?");
		expect(prompt.indexOf("reply with some long text")).toBeLessThan(prompt.indexOf("what did my first"));
		expect(prompt).not.toContain("PARTIAL");

		const file = readFileSync(session.sessionFile!, "utf8");
		expect(file).toContain('"stopReason":"aborted"');
		expect(file).toContain("reply with some long text");
		expect(file).toContain("what did my first message ask for?");
	});
});
