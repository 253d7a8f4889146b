/**
 * oh-my-pi#41 / opencode#7724 / vercel-ai#7543: an OpenAI Responses session (`store: false`) whose
 * file already holds reasoning items without their encrypted content (written by pi, or by Settle
 * before it always asked for it). pi-ai sends each such item back by id alone; OpenAI, having
 * stored nothing, answers 404 "Item with id 'rs_…' not found" to every later turn, so the resumed
 * session is stuck. Replayed with a real session file, real `settle --session` processes and
 * pi-ai's real OpenAI client against a local server that refuses an item it cannot resolve as
 * OpenAI does.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { ENCRYPTED, type ResponsesInputItem, responsesReply, statelessOpenAi } from "../llm/wire/responses.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-responses-resumed-reasoning-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** A reasoning item as pi-ai saves it when the request did not ask for the encrypted content. */
const idOnly = (id: string, text: string) => ({
	type: "thinking" as const,
	thinking: text,
	thinkingSignature: JSON.stringify({ type: "reasoning", id, summary: [{ type: "summary_text", text }] }),
});

type Api = "openai-responses" | "openai-codex-responses";

/** A ChatGPT sign-in token as the Codex client reads it: the account id in its payload. */
const codexToken = () => {
	const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
	const claims = { "https://api.openai.com/auth": { chatgpt_account_id: "acct_wire" } };
	return `${part({ alg: "none" })}.${part(claims)}.signature`;
};

/** A session file from before: a read with its reasoning, the answer with its own. */
function writeOldSession(api: Api): string {
	const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
	const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	const assistant = { api, provider: "local", model: "coder", usage: { ...usage, cost } } as const;
	sm.appendMessage({ role: "user", content: "what is the secret in notes.txt?", timestamp: 1 });
	sm.appendMessage({
		role: "assistant",
		...assistant,
		timestamp: 2,
		content: [
			idOnly("rs_old1", "Read the notes first."),
			{ type: "toolCall", id: "call_old1|fc_old1", name: "read", arguments: { path: "notes.txt" } },
		],
		stopReason: "toolUse",
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: "call_old1|fc_old1",
		toolName: "read",
		content: [{ type: "text", text: "the secret is 42" }],
		isError: false,
		timestamp: 3,
	});
	sm.appendMessage({
		role: "assistant",
		...assistant,
		timestamp: 4,
		content: [idOnly("rs_old2", "The file says 42."), { type: "text", text: "It is 42." }],
		stopReason: "stop",
	});
	const file = sm.getSessionFile()!;
	sm.close();
	return file;
}

describe("oh-my-pi#41: a Responses session file holding reasoning items without encrypted content, resumed", () => {
	it.each<Api>(["openai-responses", "openai-codex-responses"])(
		"oh-my-pi#41 (%s): the next turns are answered: the items that cannot be resolved are not sent (their call and answer are), the new encrypted one is; the session file keeps the old reasoning text",
		async (api) => {
			server = await startWireServer(statelessOpenAi);
			const wire = server;
			const codex = api === "openai-codex-responses";
			writeLocalProvider(cli.agentDir, codex ? wire.url : `${wire.url}/v1`, {
				api,
				...(codex ? { apiKey: codexToken() } : {}),
				models: [{ id: "coder", reasoning: true }],
			});
			// The Codex client's WebSocket is not what is replayed here: its SSE requests are.
			if (codex) writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ transport: "sse" }));
			const file = writeOldSession(api);
			const reply = (summary: string, text: string) =>
				responsesReply([
					{ type: "reasoning", summary, encrypted: ENCRYPTED },
					{ type: "message", text },
				]);
			wire.reply(reply("Same file.", "Still 42."), reply("Still the same.", "42, again."));
			const turn = (prompt: string) =>
				runSettleAsync(["--session", file, "--model", "local/coder", "-p", prompt], {
					cwd: cli.project,
					agentDir: cli.agentDir,
				});

			const first = await turn("and now?");
			expect(first.stderr).not.toContain("not found");
			expect(first).toMatchObject({ code: 0, stdout: "Still 42.\n" });
			const second = await turn("once more?");
			expect(second).toMatchObject({ code: 0, stdout: "42, again.\n" });

			expect(wire.requests.map((request) => request.path)).toEqual(
				Array(2).fill(codex ? "/codex/responses" : "/v1/responses"),
			);
			const input = (n: number) => wire.requests[n]!.body.input as ResponsesInputItem[];
			for (const n of [0, 1]) {
				expect(input(n).filter((item) => item.type === "reasoning" && !item.encrypted_content)).toEqual([]);
				// The call and its output still pair by call_id, the old answer's text still goes.
				const call = input(n).find((item) => item.type === "function_call");
				expect(call).toMatchObject({ call_id: "call_old1" });
				// Without its item id, as pi-ai sends another model's calls: nothing pairs it with the reasoning left out.
				expect(call).not.toHaveProperty("id");
				expect(input(n).find((item) => item.type === "function_call_output")).toMatchObject({ call_id: "call_old1" });
				expect(JSON.stringify(input(n))).toContain("It is 42.");
			}
			// The reasoning the server answered with, encrypted, goes back on the next turn.
			expect(input(1).filter((item) => item.type === "reasoning")).toEqual([
				expect.objectContaining({ encrypted_content: ENCRYPTED }),
			]);

			const saved = readFileSync(file, "utf8");
			expect(saved).toContain("rs_old1");
			expect(saved).toContain("Read the notes first.");
			expect(saved).toContain("rs_old2");
			expect(saved).toContain("The file says 42.");
		},
	);
});
