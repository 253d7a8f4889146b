/**
 * claude-code#3003, kimi-code#269: a session interrupted while a tool ran was left with a tool call
 * and no result, and every later request was refused (400 "tool_use ids were found without
 * tool_result blocks"). Here the SDK host disposes the session mid-tool; the file is reopened with
 * `SessionManager.open` against a local Anthropic wire server and prompted again.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { startWireSession, type WireSession } from "../llm/wire/session.js";

let w: WireSession | undefined;
afterEach(async () => {
	await w?.dispose();
	w = undefined;
});

type SentBlock = { type: string; id?: string; tool_use_id?: string; is_error?: boolean; content?: unknown };
type SentMessage = { role: string; content: SentBlock[] | string };

describe("claude-code#3003: dispose() while a bash call runs, then reopen the file and prompt", () => {
	it("claude-code#3003: the reopened session's request answers the unfinished tool_use with an error tool_result right after it, and the answer arrives", async () => {
		w = await startWireSession({ api: "anthropic-messages" });
		const running = w.server;
		running.reply(
			anthropicReply([{ type: "tool_use", id: "toolu_01Sleep", name: "bash", input: { command: "sleep 30" } }], {
				stopReason: "tool_use",
			}),
		);
		const started = new Promise<void>((resolve) => {
			w!.session.subscribe((event) => {
				if (event.type === "tool_execution_start") resolve();
			});
		});
		const prompt = w.session.prompt("Wait for it").catch(() => undefined);
		await started;
		const file = w.session.sessionFile!;
		await w.session.dispose();
		await prompt;
		w.session.sessionManager.close();

		const reopened = SessionManager.open(file, join(w.dir, "sessions"));
		const { session } = await createAgentSession({
			cwd: w.dir,
			agentDir: w.dir,
			modelRuntime: w.session.modelRuntime,
			model: w.session.modelRuntime.getModel(w.model.provider, w.model.id)!,
			settingsManager: SettingsManager.inMemory({ retry: { enabled: false } }),
			sessionManager: reopened,
		});
		try {
			running.reply(anthropicReply([{ type: "text", text: "Picking up again." }]));
			await session.prompt("Go on");
			const sent = running.requests[1]!.body.messages as SentMessage[];
			const useAt = sent.findIndex(
				(m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use" && b.id === "toolu_01Sleep"),
			);
			expect(useAt).toBeGreaterThan(-1);
			const next = sent[useAt + 1]!;
			expect(next.role).toBe("user");
			const result = (next.content as SentBlock[]).find((b) => b.type === "tool_result");
			expect(result).toMatchObject({ tool_use_id: "toolu_01Sleep", is_error: true });
			const last = session.messages.at(-1)!;
			expect(last).toMatchObject({ role: "assistant", stopReason: "stop" });
		} finally {
			session.dispose();
			reopened.close();
		}
	});
});
