/**
 * pi#6937: Qwen on DashScope's OpenAI-compatible endpoint (128k window), its context grown past the
 * window, answered `finish_reason: "length"` with a few hundred tokens of partial text (not 0), the
 * input mostly cached. pi's overflow check took a `length` stop for an overflow only with zero
 * output, so no overflow compaction ran: a threshold compaction with `willRetry: false`, the cut
 * answer left as the turn's end, the context shown at 120%. What the user should see: the cut
 * answer taken for the full context it is, compacted once and answered, without typing `continue`.
 *
 * A whole session on pi-ai's OpenAI client against a local server, its JSONL on disk.
 */
import { describe, expect, it } from "vitest";
import { chatReply } from "../llm/wire/openai.js";
import type { RecordedRequest, Router } from "../llm/wire/server.js";
import { lastAssistant, useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

const systemText = (request: RecordedRequest): string => String(request.body?.messages?.[0]?.content ?? "");
const summaries: Router = (request, next) =>
	systemText(request).startsWith("You are a context summarization assistant")
		? chatReply([{ type: "text", text: "## Goal\nwire summary" }])
		: next();

describe("pi#6937: a length stop with some output, its input over the window, was not taken for an overflow", () => {
	it("pi#6937: 154,959 input tokens (154,112 cached) in a 128k window, 462 tokens of cut text: the session compacts for the overflow and the request is answered; one agent_settled per prompt", async () => {
		const w = await wireSession({
			api: "openai-completions",
			route: summaries,
			model: { contextWindow: 128_000, maxTokens: 32_768 },
			settings: { compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			chatReply([{ type: "text", text: "read the files" }], { usage: { prompt: 2_000, completion: 20 } }),
			chatReply([{ type: "text", text: "The refactor touches three modules: the pars" }], {
				finishReason: "length",
				usage: { prompt: 154_959, completion: 462, cached: 154_112 },
			}),
			chatReply([{ type: "text", text: "The refactor touches three modules." }], {
				usage: { prompt: 3_000, completion: 30 },
			}),
		);
		await w.session.prompt("read the repo");
		await w.session.prompt("plan the refactor");

		expect(w.eventsOf("compaction_end")).toMatchObject([{ reason: "overflow", aborted: false, willRetry: true }]);
		expect(lastAssistant(w)).toMatchObject({
			stopReason: "stop",
			content: [{ type: "text", text: "The refactor touches three modules." }],
		});
		const rerun = JSON.stringify(w.server.requests.at(-1)!.body.messages);
		expect(rerun).toContain("wire summary");
		expect(rerun).toContain("plan the refactor");
		// The cut answer is not sent back as if it were the model's last word.
		expect(rerun).not.toContain("the pars");
		expect(w.eventsOf("agent_settled")).toHaveLength(2);
		expect(w.eventsOf("agent_settled").at(-1)!.errorMessage).toBeUndefined();
	});
});
