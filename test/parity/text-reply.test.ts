import { describe, expect, it } from "vitest";
import { eventPayloads, observe } from "./normalize.js";
import { onBothPeers } from "./peers.js";

describe("parity: plain text reply", () => {
	it("emits the same events, keeps the same messages and writes the same entries as pi", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([{ text: "Hello there, how can I help?" }]);
			await peer.prompt("hi");
			await peer.quiesce();
			const [header] = peer.fileEntries();
			return {
				...observe(peer),
				payloads: eventPayloads(peer.recorded, ["message_end", "turn_end", "agent_end"]),
				header: { type: header?.type, version: header?.version, cwdIsSessionCwd: header?.cwd === peer.dirs.cwd },
			};
		});
		expect(pi.events).toContain("message_end(assistant)");
		expect(settle).toEqual(pi);
	});

	it("agrees on a thinking + text reply over two prompts", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([{ thinking: "the user greets", text: "Hello." }, { text: "Still here." }]);
			await peer.prompt("hi");
			await peer.prompt("are you there?");
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, ["message_end", "agent_end"]) };
		});
		expect(pi.requests).toHaveLength(2);
		expect(settle).toEqual(pi);
	});
});
