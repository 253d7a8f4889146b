import { describe, expect, it } from "vitest";
import { contextEdits, eventPayloads, observe } from "./normalize.js";
import { onBothPeers, type PeerOptions } from "./peers.js";

// pi sleeps the backoff for real (1 ms, 2 ms, ...); Settle's backoff runs on the simulated clock that
// quiesce() advances. The delays reported in auto_retry_start are the same numbers on both.
const RETRY: PeerOptions = { settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } } };
const RETRY_EVENTS = ["auto_retry_start", "auto_retry_end", "agent_end"];

describe("parity: auto-retry", () => {
	it("retries a transient error and succeeds, with the failed attempt out of the retried context", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.script([
				{ stopReason: "error", errorMessage: "503 service unavailable" },
				{ stopReason: "error", errorMessage: "overloaded_error" },
				{ text: "Recovered." },
			]);
			await peer.prompt("hello");
			await peer.quiesce();
			return {
				...observe(peer),
				payloads: eventPayloads(peer.recorded, RETRY_EVENTS),
				edits: contextEdits(peer.fileEntries()),
			};
		});
		expect(pi.requests.map((r) => r.messages)).toEqual([["user: hello"], ["user: hello"], ["user: hello"]]);
		expect(pi.payloads.filter((p) => p.type !== "agent_end")).toHaveLength(3);
		// Documented difference (behavior C.4 step 5, I.5): Settle persists the omission of each failed
		// attempt; pi 0.73.1 drops it from agent state only. Everything else must be equal.
		expect(pi.edits).toEqual([]);
		expect(settle.edits).toEqual(["omit message:assistant(error)", "omit message:assistant(error)"]);
		expect({ ...settle, edits: [] }).toEqual(pi);
	});

	it("gives up after maxRetries with the final error", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.script([
				{ stopReason: "error", errorMessage: "429 rate limit" },
				{ stopReason: "error", errorMessage: "429 rate limit" },
				{ stopReason: "error", errorMessage: "429 rate limit again" },
				{ text: "Later." },
			]);
			await peer.prompt("hello");
			await peer.quiesce();
			await peer.prompt("try again");
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, RETRY_EVENTS) };
		});
		expect(pi.payloads).toContainEqual({
			type: "auto_retry_end",
			success: false,
			attempt: 2,
			finalError: "429 rate limit again",
		});
		expect(settle).toEqual(pi);
	});

	it("does not retry a non-transient error", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.script([{ stopReason: "error", errorMessage: "invalid_api_key" }, { text: "ok" }]);
			await peer.prompt("hello");
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, RETRY_EVENTS) };
		});
		expect(pi.requests).toHaveLength(1);
		expect(settle).toEqual(pi);
	});

	it("cancels the backoff on abort with finalError Retry cancelled", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.session.subscribe((event) => {
				// A microtask later both are waiting out the backoff (pi's sleep has its abort controller).
				if (event.type === "auto_retry_start") queueMicrotask(() => void peer.session.abort());
			});
			peer.script([{ stopReason: "error", errorMessage: "503 service unavailable" }, { text: "Next." }]);
			await peer.prompt("hello");
			await peer.quiesce();
			await peer.prompt("again");
			await peer.quiesce();
			return {
				...observe(peer),
				payloads: eventPayloads(peer.recorded, RETRY_EVENTS),
				edits: contextEdits(peer.fileEntries()),
			};
		});
		expect(pi.payloads).toContainEqual({
			type: "auto_retry_end",
			success: false,
			attempt: 1,
			finalError: "Retry cancelled",
		});
		expect(pi.requests).toHaveLength(2);
		expect(settle.edits).toEqual(["omit message:assistant(error)"]);
		expect({ ...settle, edits: [] }).toEqual(pi);
	});

	// C.4 success detection: pi 0.73.1 ends a retry with success at any non-error assistant message,
	// an aborted one included; Settle ends it as cancelled, like an abort in the backoff
	// (DELIBERATE_ABORTED_RETRY_CANCELLED, test/parity/differential-compare.ts). Same events, same order.
	it("the retried attempt is aborted: pi reports the retry as a success, Settle as cancelled; then both answer the next prompt", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.script([
				{ stopReason: "error", errorMessage: "503 service unavailable" },
				async () => {
					await peer.drainEvents();
					void peer.session.abort();
					return { text: "never streamed" };
				},
				{ text: "Next." },
			]);
			await peer.prompt("hello");
			await peer.quiesce();
			await peer.prompt("again");
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, RETRY_EVENTS) };
		});
		expect(pi.payloads.filter((p) => p.type === "auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: true, attempt: 1 },
		]);
		expect(settle.payloads.filter((p) => p.type === "auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
		]);
		expect(pi.requests.map((r) => r.messages.at(-1))).toEqual(["user: hello", "user: hello", "user: again"]);
		const cancelledInPi = pi.payloads.map((p) =>
			p.type === "auto_retry_end"
				? { type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" }
				: p,
		);
		expect(settle).toEqual({ ...pi, payloads: cancelledInPi });
	});
	// I.11: the retry ends with success at the message_end of the first non-error answer, even when
	// that answer is a tool call in the middle of the retried run (before the tool runs).
	it("a retried run whose answer is a tool call reports success before the tool runs", async () => {
		const { pi, settle } = await onBothPeers(RETRY, async (peer) => {
			peer.script([
				{ stopReason: "error", errorMessage: "503 service unavailable" },
				{ toolCalls: [{ id: "call-1", name: "ls", args: {} }] },
				{ text: "Listed." },
			]);
			await peer.prompt("list");
			await peer.quiesce();
			return eventPayloads(peer.recorded, [...RETRY_EVENTS, "tool_execution_start", "message_end"]).map((event) =>
				event.type === "message_end"
					? `message_end ${(event.message as { role: string }).role}`
					: event.type === "auto_retry_end"
						? `auto_retry_end ${String(event.success)} ${String(event.attempt)}`
						: event.type,
			);
		});
		expect(pi.filter((line) => line !== "message_end system")).toEqual([
			"message_end user",
			"message_end assistant",
			"agent_end",
			"auto_retry_start",
			"message_end assistant",
			"auto_retry_end true 1",
			"tool_execution_start",
			"message_end toolResult",
			"message_end assistant",
			"agent_end",
		]);
		expect(settle.filter((line) => line !== "message_end system")).toEqual(pi);
	});
});
