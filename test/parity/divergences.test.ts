/**
 * Where Settle and pi 0.73.1 differ on purpose, found by the randomized differential
 * (differential.property.test.ts constrains or normalizes each of these away). Each test pins both
 * sides: what pi 0.73.1 does, and what Settle does instead.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { eventPayloads, eventSequence, fileShape } from "./normalize.js";
import { onBothPeers, type Peer } from "./peers.js";

const RETRY = { settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } } };

function retryEvents(peer: Peer) {
	return eventPayloads(peer.recorded, ["auto_retry_start", "auto_retry_end"]).map((event) =>
		event.type === "auto_retry_start"
			? `start ${event.attempt}`
			: `end ${event.success} ${event.finalError ?? ""}`.trim(),
	);
}

describe("parity divergences found by the differential", () => {
	it("a retried request answered by a non-retryable error ends the retry (pi 0.73.1 leaks the attempt count)", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.script([
				{ stopReason: "error", errorMessage: "503 service unavailable" },
				{ stopReason: "error", errorMessage: "invalid_api_key" },
				{ stopReason: "error", errorMessage: "503 service unavailable" },
				{ stopReason: "error", errorMessage: "503 service unavailable" },
				{ text: "Recovered." },
			]);
			await peer.prompt("one");
			await peer.quiesce();
			await peer.prompt("two");
			await peer.quiesce();
			return { retries: retryEvents(peer), requests: peer.requests.length };
		});
		// pi: no auto_retry_end after invalid_api_key, and the next operation's first retry is attempt 2.
		expect(pi).toEqual({ retries: ["start 1", "start 2", "end false 503 service unavailable"], requests: 4 });
		expect(settle).toEqual({
			retries: ["start 1", "end false invalid_api_key", "start 1", "start 2", "end true"],
			requests: 5,
		});
	});

	it("compact() while streaming ends and persists the aborted run first (pi 0.73.1 drops its end events)", async () => {
		const settings = { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 5 } };
		const { pi, settle } = await onBothPeers({ settings }, async (peer) => {
			let compacting: Promise<unknown> | undefined;
			peer.script([
				{ text: "First answer with enough words to be summarized later on." },
				async () => {
					await peer.drainEvents();
					peer.mark("compact");
					compacting = peer.session.compact();
					return { text: "Never finished." };
				},
				{ text: "Summary." },
			]);
			await peer.prompt("first question");
			await peer.prompt("second question");
			await compacting;
			await peer.quiesce();
			const sequence = eventSequence(peer.recorded).filter((token) => !token.startsWith("<<prompt "));
			return {
				afterCompact: sequence.slice(sequence.indexOf("<<compact>>") + 1, sequence.indexOf("compaction_start")),
				file: fileShape(peer.fileEntries()),
			};
		});
		expect(pi.afterCompact).toEqual([]);
		expect(pi.file).not.toContain("message:assistant(aborted)");
		expect(settle.afterCompact).toEqual([
			"message_start(assistant)",
			"message_end(assistant)",
			"turn_end(assistant)",
			"agent_end",
		]);
		expect(settle.file).toContain("message:assistant(aborted)");
	});

	it("a follow-up queued from an agent_end handler runs in the same operation (pi 0.73.1 strands it)", async () => {
		const followUpOnce = (api: ExtensionAPI) => {
			let sent = false;
			api.on("agent_end", () => {
				if (sent) return;
				sent = true;
				api.sendUserMessage("follow-up from agent_end", { deliverAs: "followUp" });
			});
		};
		const { pi, settle } = await onBothPeers({ extensions: [followUpOnce] }, async (peer) => {
			peer.script([{ text: "First." }, { text: "Answer to the follow-up." }]);
			await peer.prompt("go");
			await peer.quiesce();
			const session = peer.session as unknown as { getFollowUpMessages(): readonly string[] };
			return { requests: peer.requests.length, stillQueued: [...session.getFollowUpMessages()] };
		});
		expect(pi).toEqual({ requests: 1, stillQueued: ["follow-up from agent_end"] });
		expect(settle).toEqual({ requests: 2, stillQueued: [] });
	});

	it("a split-turn compaction with no history keeps the previous summary (pi 0.73.1 writes No prior history.)", async () => {
		const settings = {
			compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 5 },
			retry: { enabled: true, baseDelayMs: 1 },
		};
		const { pi, settle } = await onBothPeers({ settings }, async (peer) => {
			peer.script([
				{ text: "The first answer, with some words in it." },
				{ stopReason: "error", errorMessage: "prompt is too long: 213462 tokens > 200000 maximum" },
				{ text: "summary of the first exchange" },
				{ text: "The second answer, after the overflow was compacted." },
				{ text: "summary of the turn prefix" },
			]);
			await peer.prompt("first question about the project");
			await peer.prompt("second question about the project");
			await peer.quiesce();
			await peer.session.compact();
			const summaries = peer.fileEntries().flatMap((entry) => (entry.type === "compaction" ? [entry.summary] : []));
			return { summaries, file: fileShape(peer.fileEntries()) };
		});
		expect(settle.file).toEqual(pi.file);
		expect(pi.summaries[1]).toMatch(
			/^No prior history\.\n\n---\n\n\*\*Turn Context \(split turn\):\*\*\n\nsummary of the turn prefix/,
		);
		expect(settle.summaries[1]).toMatch(
			/^summary of the first exchange\n[\s\S]*\*\*Turn Context \(split turn\):\*\*\n\nsummary of the turn prefix/,
		);
	});

	it("messages queued when a run ends in a non-retryable error are delivered at once (behavior C.3 step 7)", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([
				async () => {
					await peer.drainEvents();
					await peer.session.steer("queued during the failing request");
					return { stopReason: "error", errorMessage: "invalid_api_key" };
				},
				{ text: "Answer to the steer." },
				{ text: "Answer to the next prompt." },
			]);
			await peer.prompt("first");
			await peer.quiesce();
			const queuedAfterError = peer.session as unknown as { pendingMessageCount: number };
			const pending = queuedAfterError.pendingMessageCount;
			await peer.prompt("second");
			await peer.quiesce();
			return { pending, lastMessages: peer.requests.map((request) => request.messages.at(-1)) };
		});
		// pi 0.73.1 keeps the steer queued until the next prompt's run picks it up.
		expect(pi).toEqual({ pending: 1, lastMessages: ["user: first", "user: queued during the failing request"] });
		expect(settle).toEqual({
			pending: 0,
			lastMessages: ["user: first", "user: queued during the failing request", "user: second"],
		});
	});

	it("an overflow recovery failure is reported once (pi 0.73.1 reports it again at the next prompt)", async () => {
		const overflow = "prompt is too long: 213462 tokens > 200000 maximum";
		const settings = {
			compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 15 },
			retry: { enabled: true, baseDelayMs: 1 },
		};
		const { pi, settle } = await onBothPeers({ settings }, async (peer) => {
			peer.script([
				{ text: "The first answer, with some words in it." },
				{ stopReason: "error", errorMessage: overflow },
				{ text: "Summary of the first exchange." },
				{ stopReason: "error", errorMessage: overflow },
				{ text: "Answer to the third question." },
			]);
			await peer.prompt("first question about the project");
			await peer.prompt("second question: please explain the architecture of the whole project in detail");
			await peer.quiesce();
			peer.mark("third prompt");
			await peer.prompt("third question");
			await peer.quiesce();
			return eventSequence(peer.recorded)
				.filter((token) => /^(compaction_|agent_start|<<third)/.test(token))
				.join(" ");
		});
		// Behavior C.5: "recovery was already attempted in this operation". pi 0.73.1's flag outlives
		// the operation and the failed request stays in its context, so the next prompt's pre-send
		// check (C.1 step 9) emits the failure again before that prompt's run starts.
		const failedOnce =
			"agent_start agent_start compaction_start compaction_end agent_start compaction_end <<third prompt>> compaction_end agent_start";
		expect(pi).toBe(failedOnce);
		expect(settle).toBe(failedOnce.replace("<<third prompt>> compaction_end", "<<third prompt>>"));
	});

	// Behavior C.1 `abort()`: it aborts a retry backoff, a compaction and a branch summary too.
	// pi 0.73.1's abort() only stops the agent run, so a manual compaction finishes regardless.
	it("abort() during a manual compact() cancels it (pi 0.73.1 lets the compaction finish)", async () => {
		const settings = { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } };
		const { pi, settle } = await onBothPeers({ settings }, async (peer) => {
			peer.script([
				{ text: "one" },
				{ text: "two" },
				async () => {
					peer.mark("abort");
					void peer.session.abort();
					return { text: "Summary." };
				},
				{ text: "Turn prefix." },
			]);
			await peer.prompt("first");
			await peer.prompt("second");
			const outcome = await peer.session.compact().then(
				() => "compacted",
				(error: Error) => error.message,
			);
			return {
				outcome,
				ends: eventPayloads(peer.recorded, ["compaction_end"]).map((end) => `aborted ${end.aborted}`),
				compacted: fileShape(peer.fileEntries()).includes("compaction"),
			};
		});
		expect(pi).toEqual({ outcome: "compacted", ends: ["aborted false"], compacted: true });
		expect(settle).toEqual({ outcome: "Compaction cancelled", ends: ["aborted true"], compacted: false });
	});
});

describe("parity divergences: the tool result contract (behavior F.3, newer pi)", () => {
	it("a tool that returns isError: true gives an error result (pi 0.73.1 ignores the flag and only counts a throw)", async () => {
		const flagging = {
			name: "probe",
			label: "Probe",
			description: "reports a failure without throwing",
			parameters: { type: "object", properties: {}, required: [] },
			async execute() {
				return { content: [{ type: "text", text: "exit 1" }], details: {}, isError: true };
			},
		};
		const { pi, settle } = await onBothPeers({ customTools: [flagging as never] }, async (peer) => {
			peer.script([{ toolCalls: [{ id: "call-1", name: "probe", args: {} }] }, { text: "Seen." }]);
			await peer.prompt("run it");
			await peer.quiesce();
			return {
				ends: eventPayloads(peer.recorded, ["tool_execution_end"]).map((event) => event.isError),
				request: peer.requests[1]?.messages.at(-1),
			};
		});
		expect(pi).toEqual({ ends: [false], request: "toolResult probe: exit 1" });
		expect(settle).toEqual({ ends: [true], request: "toolResult probe error: exit 1" });
	});
});
