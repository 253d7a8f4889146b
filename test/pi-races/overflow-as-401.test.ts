/**
 * kimi-code#2613: Kimi Code's `k3-256k` refuses a request past its 256K window with HTTP 401, an
 * `authentication_error` whose text is `k3-256k supports only 256K context.` The harness took every
 * 401 for a refused credential: it refreshed a still-valid token, retried a request that could not
 * succeed, and told the user "Authentication required". What the user should see: the overflow
 * compacted and the request answered, with no word from them; and when nothing can be compacted,
 * the provider's text as a provider failure, not a key to check.
 *
 * A whole session on pi-ai's Anthropic client against a local server, and a real `settle -p`
 * against a local OpenAI-compatible one.
 */
import { describe, expect, it } from "vitest";
import { type AssistantMessage, failureOf } from "../../src/index.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicError, anthropicReply } from "../llm/wire/anthropic.js";
import { openAiError } from "../llm/wire/openai.js";
import { type RecordedRequest, type Router, startWireServer } from "../llm/wire/server.js";
import { expectOverflowCompactedAndAnswered, useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();
const cli = useCliProject("settle-pi-races-overflow-as-401-");

const KIMI_OVERFLOW = "k3-256k supports only 256K context.";

const systemText = (request: RecordedRequest): string => JSON.stringify(request.body?.system ?? "");
const summaries: Router = (request, next) =>
	systemText(request).includes("You are a context summarization assistant")
		? anthropicReply([{ type: "text", text: "## Goal\nwire summary" }])
		: next();

describe("kimi-code#2613: a context overflow reported as HTTP 401 `authentication_error`", () => {
	it("kimi-code#2613: `401 authentication_error: k3-256k supports only 256K context.` compacts and re-runs the request; the answer arrives with no further prompt", async () => {
		const w = await wireSession({
			api: "anthropic-messages",
			route: summaries,
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			anthropicReply([{ type: "text", text: "first answer" }]),
			anthropicError(401, "authentication_error", KIMI_OVERFLOW),
			anthropicReply([{ type: "text", text: "answer after compaction" }]),
		);
		await w.session.prompt("first question");
		await w.session.prompt("second question");

		expectOverflowCompactedAndAnswered(w, "second question");
	});

	it("kimi-code#2613: on the first request (nothing to compact) the failure is typed PROVIDER, not NO_AUTH: the provider's text, no key to check", async () => {
		const w = await wireSession({ api: "anthropic-messages", route: summaries });
		w.server.reply(anthropicError(401, "authentication_error", KIMI_OVERFLOW));
		await w.session.prompt("a very long first question");

		// The unanswered request leaves the context (nothing re-runs it); its answer is the run's last message_end.
		const last = w.eventsOf("message_end").at(-1)!.message as AssistantMessage;
		expect(last).toMatchObject({ stopReason: "error", errorMessage: expect.stringContaining(KIMI_OVERFLOW) });
		expect(failureOf(last)).toMatchObject({ code: "PROVIDER", details: { status: 401 } });
	});

	it("kimi-code#2613: settle -p whose first request is refused exits 1 with the provider's text, not 4 with a key to set", async () => {
		const server = await startWireServer(() => openAiError(401, KIMI_OVERFLOW, "authentication_error"));
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			const run = await runSettleAsync(["--model", "local/coder", "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(run.stderr).toContain(KIMI_OVERFLOW);
			expect(run.stderr).not.toContain("Set the provider's key");
			expect(run.code).toBe(1);
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});
