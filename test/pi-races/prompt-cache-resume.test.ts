/**
 * claude-code#43657, claude-code#93490: after `--continue` / `--resume` the first request re-wrote
 * the whole conversation into the cache (5.9% hits): the history was rebuilt in another form than
 * the live session had sent it (a message as a plain string instead of the blocks it went out as).
 * Replayed over the Anthropic wire (pi-ai's real client, a local server recording each body): a
 * session with a tool call and its signed thinking, a `!` command, an aborted answer (and, in the
 * second case, a compaction) is closed and opened again in a new session object from its file; the
 * resumed request must begin with the live session's last request, byte for byte.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicPartial, anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { API_KEY, abortAtFirstDelta, useWireSession, type WireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();
let reopened: AgentSession | undefined;
afterEach(() => {
	reopened?.dispose();
	reopened = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: request payloads are walked field by field
type Json = any;
const bytes = (value: unknown) => JSON.stringify(value);
const isSummary = (request: RecordedRequest) =>
	bytes(request.body?.system ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));

function withoutBreakpoints(body: Json): Json {
	return JSON.parse(JSON.stringify(body, (key, value) => (key === "cache_control" ? undefined : value)));
}

async function reopen(w: WireSession): Promise<AgentSession> {
	const modelRuntime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
		providers: [],
		useEnvironment: false,
		credentials: AuthStorage.inMemory({ [w.model.provider]: API_KEY }),
	});
	modelRuntime.registerPiAiProvider(w.model.provider, [w.model], { defaultModelId: w.model.id });
	const { session } = await createAgentSession({
		cwd: w.dir,
		agentDir: w.dir,
		modelRuntime,
		model: modelRuntime.getModel(w.model.provider, w.model.id)!,
		settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 1 }, compaction: { keepRecentTokens: 1 } }),
		sessionManager: SessionManager.open(w.session.sessionFile!, join(w.dir, "sessions")),
	});
	return session;
}

describe("claude-code#43657, claude-code#93490: the first request after a resume", () => {
	it.each([
		["a tool call with thinking, a `!` command and an aborted answer", false],
		["the same, then a compaction", true],
	])("after %s, the resumed request begins with the live session's last request, byte for byte", async (_, compact) => {
		const w = await wireSession({
			api: "anthropic-messages",
			settings: { defaultThinkingLevel: "medium", compaction: { keepRecentTokens: 1 } },
			route: (request, next) =>
				isSummary(request) ? anthropicReply([{ type: "text", text: "## Goal\nthe summary" }]) : next(),
		});
		writeFileSync(join(w.dir, "a.txt"), "file a\n");
		w.server.reply(
			anthropicReply(
				[
					{ type: "thinking", thinking: "Look.", signature: "sig1" },
					{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } },
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "read it" }]),
		);
		await w.session.prompt("read a");
		await w.session.executeBash("echo from-user");
		w.server.reply(anthropicPartial([{ type: "text", text: "a long answer that will be aborted" }], 5, "hang"));
		await abortAtFirstDelta(w, "talk");
		w.server.reply(anthropicReply([{ type: "text", text: "third" }]));
		await w.session.prompt("third");
		if (compact) {
			await w.session.compact();
			w.server.reply(anthropicReply([{ type: "text", text: "after compaction" }]));
			await w.session.prompt("after");
		}
		const live = w.server.requests.filter((r) => !isSummary(r)).at(-1)!.body;

		w.session.dispose();
		w.session.sessionManager.close();
		reopened = await reopen(w);
		w.server.reply(anthropicReply([{ type: "text", text: "resumed" }]));
		await reopened.prompt("resumed");
		const resumed = w.server.requests.at(-1)!.body;
		expect(bytes(resumed.system)).toBe(bytes(live.system));
		expect(bytes(resumed.tools)).toBe(bytes(live.tools));
		const previous = withoutBreakpoints(live).messages;
		const current = withoutBreakpoints(resumed).messages;
		// What the live request held: the summary, or the whole history (signed thinking, the `!` output).
		for (const part of compact ? ["the summary"] : ['"signature":"sig1"', "from-user"]) {
			expect(bytes(previous)).toContain(part);
		}
		expect(bytes(current.slice(0, previous.length))).toBe(bytes(previous));
	});
});
