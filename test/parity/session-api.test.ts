/**
 * Session methods pi's SDK users call directly, outside the prompt pipeline (behavior A.3):
 * thinking-level cycling and the fork list, compared with pi 0.73.1 on the same scripts.
 */
import { describe, expect, it } from "vitest";
import { onBothPeers, type Peer } from "./peers.js";

interface ThinkingApi {
	supportsThinking(): boolean;
	cycleThinkingLevel(): string | undefined;
	readonly thinkingLevel: string;
}

interface ReplacedContextApi {
	createReplacedSessionContext(): {
		sendUserMessage(content: string): Promise<void>;
		sendMessage(message: { customType: string; content: string; display: boolean }, options?: object): Promise<void>;
		isIdle(): boolean;
	};
}

interface ForkApi {
	getUserMessagesForForking(): { entryId: string; text: string }[];
	navigateTree(targetId: string, options?: { summarize?: boolean }): Promise<{ editorText?: string }>;
}

/** What cycling six times shows: each result, the level, the events and the entries written. */
async function cycleSixTimes(peer: Peer) {
	const session = peer.session as unknown as ThinkingApi;
	peer.script([{ text: "ok" }]);
	await peer.prompt("hello");
	await peer.quiesce();
	const cycled: unknown[] = [];
	for (let i = 0; i < 6; i++) cycled.push([session.cycleThinkingLevel() ?? "undefined", session.thinkingLevel]);
	return {
		supportsThinking: session.supportsThinking(),
		cycled,
		events: peer.recorded.flatMap((r) =>
			r.kind === "event" && r.event.type === "thinking_level_changed" ? [r.event.level] : [],
		),
		entries: peer.fileEntries().flatMap((e) => (e.type === "thinking_level_change" ? [e.thinkingLevel] : [])),
	};
}

describe("parity: session API outside the prompt pipeline", () => {
	it("cycleThinkingLevel walks a reasoning model's levels and wraps to off, recording each change", async () => {
		const { pi, settle } = await onBothPeers({ reasoningModel: true, startOnReasoningModel: true }, cycleSixTimes);
		expect(pi.supportsThinking).toBe(true);
		expect(pi.cycled).toEqual([
			["minimal", "minimal"],
			["low", "low"],
			["medium", "medium"],
			["high", "high"],
			["off", "off"],
			["minimal", "minimal"],
		]);
		expect(settle).toEqual(pi);
	});

	it("cycleThinkingLevel changes nothing on a model without reasoning", async () => {
		const { pi, settle } = await onBothPeers({ reasoningModel: true }, cycleSixTimes);
		expect(pi.supportsThinking).toBe(false);
		expect(pi.cycled).toEqual(Array.from({ length: 6 }, () => ["undefined", "off"]));
		expect(pi.events).toEqual([]);
		expect(settle).toEqual(pi);
	});

	it("getUserMessagesForForking lists every user message of the file, all branches, in file order", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			const session = peer.session as unknown as ForkApi;
			peer.script([{ text: "one" }, { text: "two" }, { text: "three" }]);
			await peer.prompt("first");
			await peer.prompt("second");
			await peer.quiesce();
			const second = session.getUserMessagesForForking().find((m) => m.text === "second");
			if (!second) throw new Error("second user message not listed");
			// Back to before "second": the next prompt starts a sibling branch.
			const navigated = await session.navigateTree(second.entryId);
			await peer.prompt("third");
			await peer.quiesce();
			// Positions among the file's user-message entries (Settle's file also holds system messages).
			const ids = peer
				.fileEntries()
				.filter((e) => e.type === "message" && (e.message as { role: string }).role === "user")
				.map((e) => e.id);
			return {
				editorText: navigated.editorText,
				listed: session.getUserMessagesForForking().map((m) => ({ at: ids.indexOf(m.entryId), text: m.text })),
			};
		});
		expect(pi.listed.map((m) => m.text)).toEqual(["first", "second", "third"]);
		expect(settle).toEqual(pi);
	});

	it("createReplacedSessionContext gives a context whose sends resolve once the run they start has ended", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			const ctx = (peer.session as unknown as ReplacedContextApi).createReplacedSessionContext();
			peer.script([{ text: "answer" }, { text: "again" }]);
			await ctx.sendUserMessage("from the context");
			peer.mark(`sendUserMessage resolved, idle ${ctx.isIdle()}`);
			await ctx.sendMessage({ customType: "note", content: "n", display: true }, { triggerTurn: true });
			peer.mark(`sendMessage resolved, idle ${ctx.isIdle()}`);
			await peer.quiesce();
			return peer.recorded.flatMap((r) =>
				r.kind === "mark" ? [r.label] : r.event.type === "agent_end" ? ["agent_end"] : [],
			);
		});
		expect(pi).toEqual([
			"agent_end",
			"sendUserMessage resolved, idle true",
			"agent_end",
			"sendMessage resolved, idle true",
		]);
		expect(settle).toEqual(pi);
	});
});
