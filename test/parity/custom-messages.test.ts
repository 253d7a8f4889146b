import { describe, expect, it } from "vitest";
import { eventPayloads, observe } from "./normalize.js";
import { onBothPeers } from "./peers.js";

describe("parity: custom messages", () => {
	it("triggers a turn, waits for the next turn, and follows up while streaming", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([
				{ text: "Reacting to the trigger." },
				async () => {
					await peer.drainEvents();
					await peer.session.sendCustomMessage(
						{ customType: "later", content: "delivered as a follow-up", display: true },
						{ deliverAs: "followUp", triggerTurn: true },
					);
					return { text: "Answer to the prompt." };
				},
				{ text: "Answer to the follow-up." },
			]);
			await peer.session.sendCustomMessage(
				{ customType: "trigger", content: "build finished", display: true, details: { ok: true } },
				{ triggerTurn: true },
			);
			await peer.quiesce();
			await peer.session.sendCustomMessage(
				{ customType: "context", content: "rides along with the next prompt", display: false },
				{ deliverAs: "nextTurn" },
			);
			await peer.prompt("next prompt");
			await peer.quiesce();
			return { ...observe(peer), payloads: eventPayloads(peer.recorded, ["message_end", "agent_end"]) };
		});
		expect(pi.requests.map((request) => request.messages.at(-1))).toEqual([
			"user: build finished",
			"user: rides along with the next prompt",
			"user: delivered as a follow-up",
		]);
		expect(settle).toEqual(pi);
	});
});
