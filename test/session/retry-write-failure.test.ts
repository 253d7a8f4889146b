/**
 * A retry first writes a `context_edit` that takes the failed attempt out of the model context
 * (an overflow recovery too, before it compacts). When that write fails (the session file deleted, or written to by another program, between the
 * failure and the retry), the retry cannot go on: no request is resent, `prompt()` fails with the
 * typed IO error after `agent_settled`, and what the file holds stays as it was. Real session on
 * disk, pi-ai's OpenAI client against a local server that fails once with a retryable status.
 */
import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { json, type RecordedRequest, type Router } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

const OVERLOADED = { error: { type: "overloaded_error", message: "Overloaded" } };

/** Prompts "two", whose answer fails once with a retryable 529; `meddle` runs at its `agent_end{willRetry}`. */
async function failedRetry(meddle: (file: string) => void) {
	const w = await wireSession({ api: "openai-completions", settings: { defaultThinkingLevel: "off" } });
	w.server.reply(
		chatReply([{ type: "text", text: "first answer" }]),
		json(529, OVERLOADED),
		chatReply([{ type: "text", text: "retried answer" }]),
	);
	await w.session.prompt("one");
	const file = w.session.sessionFile!;
	const order: string[] = [];
	w.session.subscribe((event) => {
		if (event.type === "agent_end" && event.willRetry && existsSync(file)) meddle(file);
		if (event.type === "agent_settled") order.push("agent_settled");
	});
	const outcome = await w.session.prompt("two").then(
		() => "resolved",
		(error: unknown) => {
			order.push("rejected");
			return error;
		},
	);
	return { outcome, order, file, w };
}

describe("the retry's context edit cannot be written", () => {
	it("regression: the session file deleted before the retry: the failed write was swallowed, the retry ended with nothing said and prompt() resolved; now prompt() fails with the IO error and nothing is resent", async () => {
		const { outcome, order, w } = await failedRetry((file) => rmSync(file));
		expect(outcome).toBeInstanceOf(SettleError);
		expect(outcome).toMatchObject({ code: "IO", details: { reason: "deleted" } });
		expect((outcome as Error).message).toMatch(/was deleted while this session was open/);
		expect(order).toEqual(["agent_settled", "rejected"]);
		expect(w.server.requests).toHaveLength(2);
		expect(w.eventsOf("auto_retry_end")).toEqual([expect.objectContaining({ success: false })]);
		expect(w.session.lifecycle).toBe("idle");
	});

	it("the session file written to by another program before the retry: prompt() fails with the IO error, and the file keeps every line it held (nothing appended after the other program's line)", async () => {
		let held = "";
		const { outcome, file, w } = await failedRetry((path) => {
			appendFileSync(path, '{"type":"note","from":"another program"}\n');
			held = readFileSync(path, "utf8");
		});
		expect(outcome).toMatchObject({ code: "IO", details: { reason: "changed" } });
		expect(readFileSync(file, "utf8")).toBe(held);
		// The failed attempt is saved (it was written before the other program's line).
		expect(held).toContain('"errorMessage"');
		expect(w.server.requests).toHaveLength(2);
	});

	it("regression: overflow recovery with the session file deleted at agent_end: taking the failed request out of the context could not be written and the compaction's error was dropped (prompt() resolved); now prompt() fails with the IO error and nothing is resent", async () => {
		const systemText = (request: RecordedRequest): string => String(request.body?.messages?.[0]?.content ?? "");
		const summaries: Router = (request, next) =>
			systemText(request).startsWith("You are a context summarization assistant")
				? chatReply([{ type: "text", text: "## Goal\nwire summary" }])
				: next();
		const w = await wireSession({
			api: "openai-completions",
			route: summaries,
			settings: { defaultThinkingLevel: "off", compaction: { keepRecentTokens: 1 } },
		});
		w.server.reply(
			chatReply([{ type: "text", text: "first answer" }]),
			openAiError(400, "Input length (265330) exceeds model's maximum context length (262144).", "BadRequestError"),
			chatReply([{ type: "text", text: "never" }]),
		);
		await w.session.prompt("one");
		const file = w.session.sessionFile!;
		w.session.subscribe((event) => {
			if (event.type === "agent_end" && existsSync(file)) rmSync(file);
		});
		const outcome = await w.session.prompt("two").then(
			() => "resolved",
			(error: unknown) => error,
		);
		expect(outcome).toMatchObject({ code: "IO", details: { reason: "deleted" } });
		expect(w.server.requests).toHaveLength(2);
		expect(w.session.lifecycle).toBe("idle");
	});
});
