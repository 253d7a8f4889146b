import { describe, expect, it } from "vitest";
import { eventPayloads, fileShape, normalizeMessages, observe } from "./normalize.js";
import { createPeer, onBothPeers, type Peer, type PeerOptions } from "./peers.js";

/** keepRecentTokens is tiny so the short conversation is cut: 15 at the second user message, 10 inside its turn. */
function compactionSettings(keepRecentTokens: number): PeerOptions {
	return { settings: { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens } } };
}
const COMPACTION = compactionSettings(15);

/** Replaces entry ids in compaction events by the position of the entry in the comparable file shape. */
function compactionEvents(peer: Peer) {
	const entries = peer.fileEntries();
	const comparable = entries.filter((entry) => fileShape([entry]).length > 0);
	return eventPayloads(peer.recorded, ["compaction_start", "compaction_end"]).map((event) => {
		const result = event.result as Record<string, unknown> | undefined;
		if (!result) return event;
		const rawId = findCompaction(entries)?.firstKeptEntryId;
		const kept = comparable.findIndex((entry) => entry.id === rawId);
		return { ...event, result: { ...result, firstKeptEntryId: `${fileShape([comparable[kept] ?? {}])[0]} #${kept}` } };
	});
}

function findCompaction(entries: Record<string, unknown>[]) {
	return entries.findLast((entry) => entry.type === "compaction") as { firstKeptEntryId?: string } | undefined;
}

async function conversation(peer: Peer) {
	peer.script([
		{ text: "The first answer, with some words in it." },
		{ text: "The second answer, with some more words." },
		{ text: "Summary: the user asked two questions." },
		{ text: "Third answer after compaction." },
	]);
	await peer.prompt("first question about the project");
	await peer.prompt("second question about the code");
	peer.mark("compact");
	await peer.session.compact("Focus on the questions.");
	peer.mark("compacted");
	await peer.prompt("third question");
	await peer.quiesce();
}

describe("parity: manual compaction", () => {
	it.each([
		["at a user message", 15],
		["inside a turn (split turn)", 10],
	])("emits the same compaction events and builds the same context, cut %s", async (_cut, keepRecentTokens) => {
		const { pi, settle } = await onBothPeers(compactionSettings(keepRecentTokens), async (peer) => {
			await conversation(peer);
			return {
				...observe(peer),
				compaction: compactionEvents(peer),
				reopened: normalizeMessages(peer.openContext(peer.session.sessionFile ?? "")),
			};
		});
		expect(pi.requests[2]?.system).toBe("summarizer");
		expect(pi.compaction.map((event) => event.type)).toEqual(["compaction_start", "compaction_end"]);
		expect(pi.reopened).toEqual(pi.messages);
		expect(settle).toEqual(pi);
	});

	it("each opens the other's session file to the same context", async () => {
		const pi = await createPeer("pi", COMPACTION);
		const settle = await createPeer("settle", COMPACTION);
		try {
			await conversation(pi);
			await conversation(settle);
			const piFile = pi.session.sessionFile ?? "";
			const settleFile = settle.session.sessionFile ?? "";
			const own = normalizeMessages(pi.openContext(piFile));
			expect(own.length).toBeGreaterThan(2);
			expect(normalizeMessages(pi.openContext(settleFile))).toEqual(own);
			expect(normalizeMessages(settle.openContext(piFile))).toEqual(own);
			expect(normalizeMessages(settle.openContext(settleFile))).toEqual(own);
		} finally {
			pi.cleanup();
			settle.cleanup();
		}
	});
});
