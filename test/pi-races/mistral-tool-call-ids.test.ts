/**
 * Tool call ids another model wrote, replayed to a Mistral model over Chat Completions. Mistral's
 * templates (its API, and vLLM or NIM serving Devstral) refuse any id but 9 letters or digits: "Tool
 * call id was … but must be a-z, A-Z, 0-9, with a length of 9". pi-ai before 0.73 had a
 * `requiresMistralToolIds` compat (on for a provider named `mistral` or a mistral.ai `baseUrl`);
 * 0.73.1 dropped it with Mistral's own API, so Claude's `toolu_…` ids went as they were.
 *
 * eca#233: a session that switched provider or model mid-conversation onto Mistral got that 400 on
 * every request. What the user should see: the answer, each call under 9 letters or digits, its
 * result under the same id, the same ids on the next request; the file keeps the ids as written.
 *
 * llxprt-code#760, mlx-lm#1375: the same rule enforced by a self-hosted Mistral model's template,
 * behind a provider Settle cannot tell is Mistral's. What the user should see: the refusal and the
 * models.json setting that fixes it; set, the prompt is answered (a real `settle -p`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, type Router, startWireServer } from "../llm/wire/server.js";
import { replayedChatCalls, type SentChatMessage, type WireModelSpec, wireProjectsPerTest } from "./helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const wireProject = wireProjectsPerTest("settle-mistral-ids-", "off");

const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;

/** Mistral's check on replayed ids, as its API answers it (400, code 3280). */
const mistralIds: Router = (request, next) => {
	if (!request.path.endsWith("/chat/completions")) return next();
	for (const message of request.body.messages as SentChatMessage[]) {
		const ids = [...(message.tool_calls ?? []).map((call) => call.id), message.tool_call_id ?? "abcdefghi"];
		const bad = ids.find((id) => !MISTRAL_ID.test(id));
		if (bad !== undefined) {
			return json(400, {
				object: "error",
				message: `Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`,
				type: "invalid_function_call",
				param: null,
				code: "3280",
			});
		}
	}
	return next();
};

const CLAUDE: WireModelSpec = { api: "anthropic-messages", provider: "anthropic", id: "claude-wire-1" };
/** Mistral's Chat Completions endpoint, as a models.json provider named `mistral` reaches it. */
const DEVSTRAL: WireModelSpec = {
	api: "openai-completions",
	provider: "mistral",
	id: "devstral-medium",
	name: "Devstral",
};

const bash = (id: string, command: string) => ({ type: "tool_use" as const, id, name: "bash", input: { command } });

describe("eca#233: a session switched onto Mistral mid-conversation replays another model's tool call ids", () => {
	it("eca#233: Claude's `toolu_…` calls go to mistral/devstral-medium under 9 letters or digits, each result under its call's; the answer arrives, the next request repeats the ids", async () => {
		const { server, model, open } = await wireProject([CLAUDE, DEVSTRAL], { route: mistralIds });
		const session = await open(CLAUDE);
		const first = "toolu_01A09q90qw90lq917835lq9";
		const second = "toolu_01B7zX2kq0Wd9mR3pLk8sT4v";
		server.reply(
			anthropicReply([bash(first, "echo alpha"), bash(second, "echo beta")], { stopReason: "tool_use" }),
			anthropicReply([{ type: "text", text: "Printed alpha and beta." }]),
			chatReply([{ type: "text", text: "First alpha, then beta." }], { model: "devstral-medium" }),
			chatReply([{ type: "text", text: "Still alpha and beta." }], { model: "devstral-medium" }),
		);
		await session.prompt("run echo alpha and echo beta");
		await session.setModel(model(DEVSTRAL));
		await session.prompt("what did the commands print?");

		expect(session.messages.at(-1)).toMatchObject({
			role: "assistant",
			provider: "mistral",
			stopReason: "stop",
			content: [{ type: "text", text: "First alpha, then beta." }],
		});
		const pairs = replayedChatCalls(server.requests[2]!);
		expect(pairs.map((pair) => pair.command)).toEqual(["echo alpha", "echo beta"]);
		expect(new Set(pairs.map((pair) => pair.id)).size).toBe(2);
		for (const pair of pairs) expect(pair.id).toMatch(MISTRAL_ID);
		expect(pairs[0]!.results).toEqual([expect.stringContaining("alpha")]);
		expect(pairs[1]!.results).toEqual([expect.stringContaining("beta")]);

		await session.prompt("and now?");
		expect(session.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ text: "Still alpha and beta." }] });
		expect(replayedChatCalls(server.requests[3]!)).toEqual(pairs);
		const file = readFileSync(session.sessionFile!, "utf8");
		expect(file).toContain(first);
		expect(file).toContain(second);
	});
});

describe("llxprt-code#760, mlx-lm#1375: a self-hosted Mistral model whose template checks the ids", () => {
	const cli = useCliProject("settle-mistral-template-");

	it("llxprt-code#760: a session with Claude's call continued on a local Devstral: the refusal names requiresMistralToolIds; with it set, the prompt is answered", async () => {
		const server = await startWireServer((request) =>
			mistralIds(request, () => chatReply([{ type: "text", text: "It printed alpha." }], { model: "coder" })),
		);
		cleanups.push(() => server.close());
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
		const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
		const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
		const claudeAnswer = (timestamp: number, stopReason: "toolUse" | "stop", content: AssistantMessage["content"]) =>
			sm.appendMessage({
				role: "assistant",
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				usage: { ...usage, cost },
				timestamp,
				content,
				stopReason,
			});
		sm.appendMessage({ role: "user", content: "run echo alpha", timestamp: 1 });
		claudeAnswer(2, "toolUse", [
			{ type: "toolCall", id: "toolu_01A09q90qw90lq917835lq9", name: "bash", arguments: { command: "echo alpha" } },
		]);
		sm.appendMessage({
			role: "toolResult",
			toolCallId: "toolu_01A09q90qw90lq917835lq9",
			toolName: "bash",
			content: [{ type: "text", text: "alpha" }],
			isError: false,
			timestamp: 3,
		});
		claudeAnswer(4, "stop", [{ type: "text", text: "Printed alpha." }]);
		const file = sm.getSessionFile()!;
		sm.close();

		const continued = () =>
			runSettleAsync(["--session", file, "--model", "local/coder", "-p", "what did it print?"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
		const refused = await continued();
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain("Tool call id was toolu_01A09q90qw90lq917835lq9 but must be a-z, A-Z, 0-9");
		expect(refused.stderr).toContain(`"compat": {"requiresMistralToolIds": true}`);

		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { compat: { requiresMistralToolIds: true } });
		const answered = await continued();
		expect(answered.stdout).toContain("It printed alpha.");
		expect(answered.code).toBe(0);
		const pairs = replayedChatCalls(server.requests.at(-1)!);
		expect(pairs).toHaveLength(1);
		expect(pairs[0]!.id).toMatch(MISTRAL_ID);
		expect(pairs[0]!.results).toEqual([expect.stringContaining("alpha")]);
	});
});
