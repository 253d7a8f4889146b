/**
 * pi#9687 (SoL-Pi's online context compaction, also pi-continue#24): an extension calls
 * `ctx.abort()` on purpose while the model's next request is in flight, then `ctx.compact()` once
 * the session settles. The provider's transport ended the cut request as an error ("This operation
 * was aborted", as fetch reports an aborted request) and pi saved and showed it as one:
 * `stopReason: "error"`, "Error: This operation was aborted". What that user should see: the cut
 * answer is an abort (`aborted`), nothing is retried, the compaction runs, and the file reopens to
 * the live context.
 */
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/index.js";
import { diskSessionsPerTest, fileMessages, readEntries } from "./disk-harness.js";
import { comparable, reopenedContext, until } from "./helpers.js";

const { session } = diskSessionsPerTest();

describe("pi#9687: ctx.abort() on purpose, then ctx.compact(): the cut request is saved as an error", () => {
	it("pi#9687: a request cut by the extension's ctx.abort() whose provider reports the abort as an error is saved as aborted, not retried; the compaction then runs", async () => {
		let compacted = 0;
		const compactErrors: string[] = [];
		let decided = false;
		const {
			session: s,
			provider,
			events,
		} = await session({
			settings: { retry: { enabled: true, baseDelayMs: 1 }, compaction: { keepRecentTokens: 1 } },
			extensionFactories: [
				(pi) => {
					// The boundary decision: abort the streaming answer, compact once everything settled.
					pi.on("message_update", (_event, ctx) => {
						if (decided) return;
						decided = true;
						ctx.abort();
					});
					pi.on("agent_settled", (_event, ctx) => {
						if (!decided || compacted > 0) return;
						ctx.compact({
							onComplete: () => compacted++,
							onError: (error) => compactErrors.push(error.message),
						});
					});
				},
			],
		});
		provider.answer("first answer", "second answer");
		await s.prompt("warm up");
		await s.prompt("more");
		// The transport listens for the abort before the session does, and ends the request as an
		// error at once, the way a cut fetch reports it.
		provider.onRequest = (request) =>
			request.signal?.addEventListener("abort", () =>
				request.finish({
					...provider.reply(""),
					content: [],
					stopReason: "error",
					errorMessage: "This operation was aborted",
				} satisfies AssistantMessage),
			);
		const done = s.prompt("keep going");
		const request = await provider.next();
		provider.onRequest = undefined;
		request.beginText("Let me look");
		await done;
		provider.answer("## Goal\nsummary");
		await until({ session: s } as never, () => compacted + compactErrors.length > 0, "the compaction ended");

		expect(compactErrors).toEqual([]);
		expect(events.some((event) => event.type === "auto_retry_start")).toBe(false);
		const file = s.sessionFile!;
		const assistants = fileMessages(file).filter((message) => message.role === "assistant");
		expect(assistants.map((message) => message.stopReason)).toEqual(["stop", "stop", "aborted"]);
		expect(readEntries(file).some((entry) => entry.type === "compaction")).toBe(true);
		expect(reopenedContext(file).map(comparable)).toEqual(s.messages.map(comparable));
	});
});
