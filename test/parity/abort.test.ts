import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eventPayloads, observe } from "./normalize.js";
import { onBothPeers, type Peer, type SharedTool } from "./peers.js";

const LONG_REPLY = "This is a long answer that will be cut off somewhere in the middle of it.";

/**
 * Both faux providers pace chunks with `setTimeout` when `tokensPerSecond` is set. With fake
 * `setTimeout` the test releases one chunk at a time and lets each peer handle it completely (pi's
 * event queue included) before looking, so the abort lands after the same chunk on both peers.
 * Only timers are faked: `Date.now()` stays real (pi compares message and compaction timestamps).
 */
beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
afterEach(() => void vi.useRealTimers());

async function settleStep(peer: Peer): Promise<void> {
	await new Promise<void>((resolve) => setImmediate(resolve));
	await peer.drainEvents();
}

/** The assistant text of the latest recorded `message_update`. */
function streamedText(peer: Peer): string {
	for (let i = peer.recorded.length - 1; i >= 0; i--) {
		const entry = peer.recorded[i];
		if (entry?.kind !== "event" || entry.event.type !== "message_update") continue;
		const message = entry.event.message as { content: { text?: string }[] };
		return message.content.map((block) => block.text ?? "").join("");
	}
	return "";
}

/** Releases stream chunks until the streamed text has `chars` characters, then aborts. */
async function abortAfter(peer: Peer, chars: number): Promise<void> {
	for (let chunk = 0; streamedText(peer).length < chars; chunk++) {
		if (chunk > 100) throw new Error(`the stream never reached ${chars} characters`);
		vi.advanceTimersToNextTimer();
		await settleStep(peer);
	}
	peer.mark(`abort after ${JSON.stringify(streamedText(peer))}`);
	let aborted = false;
	const abort = peer.session.abort().then(() => {
		aborted = true;
	});
	// The provider notices the abort when its next chunk timer fires.
	while (!aborted) {
		vi.advanceTimersToNextTimer();
		await settleStep(peer);
	}
	await abort;
}

describe("parity: abort mid-stream", () => {
	it("persists the partial assistant message with stopReason aborted", async () => {
		const { pi, settle } = await onBothPeers({ tokensPerSecond: 1000 }, async (peer) => {
			peer.script([{ text: LONG_REPLY }]);
			const prompt = peer.prompt("explain");
			await abortAfter(peer, 12);
			await prompt;
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, ["message_end", "turn_end", "agent_end"]) };
		});
		const aborted = pi.fileMessages.at(-1) as { stopReason: string; content: { text: string }[] };
		expect(aborted.stopReason).toBe("aborted");
		expect(aborted.content[0]?.text).toBe(LONG_REPLY.slice(0, 12));
		expect(settle).toEqual(pi);
	});

	it("answers the next prompt with the aborted message in context", async () => {
		const { pi, settle } = await onBothPeers({ tokensPerSecond: 1000 }, async (peer) => {
			peer.script([{ text: LONG_REPLY }, { text: "Short." }]);
			const prompt = peer.prompt("explain");
			await abortAfter(peer, 8);
			await prompt;
			const next = peer.prompt("briefly");
			while (peer.requests.length < 2 || peer.session.isStreaming) {
				vi.advanceTimersToNextTimer();
				await settleStep(peer);
			}
			await next;
			await peer.quiesce();
			return observe(peer);
		});
		expect(pi.requests[1]?.messages).toEqual([
			"user: explain",
			"assistant: This is  (aborted: Request was aborted)",
			"user: briefly",
		]);
		expect(settle).toEqual(pi);
	});
});

describe("parity: abort during a tool call", () => {
	it("ends the run after the running tool sees the abort signal", async () => {
		let current: Peer | undefined;
		const waiter: SharedTool = {
			name: "wait_for_abort",
			label: "Wait",
			description: "Waits until aborted",
			parameters: { type: "object", properties: {} },
			async execute(_id, _params, signal) {
				const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
				await current?.drainEvents();
				current?.mark("abort");
				void current?.session.abort();
				await aborted;
				throw new Error("stopped by abort");
			},
		};
		const { pi, settle } = await onBothPeers(
			() => ({ customTools: [waiter] }),
			async (peer) => {
				current = peer;
				peer.script([
					{ toolCalls: [{ id: "call-1", name: "wait_for_abort", args: {} }] },
					{ text: "Should not be asked." },
					{ text: "Next answer." },
				]);
				await peer.prompt("wait");
				await peer.quiesce();
				await peer.prompt("next");
				await peer.quiesce();
				return {
					...observe(peer),
					payloads: eventPayloads(peer.recorded, ["tool_execution_end", "turn_end", "agent_end"]),
				};
			},
		);
		expect(pi.requests.map((request) => request.messages.at(-1))).toEqual(["user: wait", "user: next"]);
		expect(pi.messages).toContainEqual({
			role: "assistant",
			content: [],
			stopReason: "aborted",
			errorMessage: "Request was aborted",
		});
		expect(settle).toEqual(pi);
	});
});
