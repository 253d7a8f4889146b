import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventPayloads, observe } from "./normalize.js";
import { onBothPeers, type Peer } from "./peers.js";

function observeQueues(peer: Peer) {
	return { ...observe(peer), queueUpdates: eventPayloads(peer.recorded, ["queue_update"]) };
}

describe("parity: steering and follow-up during a run", () => {
	it("delivers steer() after the tool batch and followUp() when the run would stop", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			writeFileSync(join(peer.dirs.cwd, "a.txt"), "contents of a\n");
			peer.script([
				async () => {
					await peer.drainEvents();
					await peer.session.steer("also check b");
					await peer.session.followUp("then summarize");
					return { toolCalls: [{ id: "call-1", name: "read", args: { path: "a.txt" } }] };
				},
				{ text: "Checked b." },
				{ text: "Summary." },
			]);
			await peer.prompt("check a");
			await peer.quiesce();
			return observeQueues(peer);
		});
		expect(pi.requests.map((r) => r.messages.at(-1))).toEqual([
			"user: check a",
			"user: also check b",
			"user: then summarize",
		]);
		expect(settle).toEqual(pi);
	});

	it("queues prompts sent with streamingBehavior and delivers them one at a time", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([
				async () => {
					await peer.drainEvents();
					await peer.prompt("steer one", { streamingBehavior: "steer" });
					await peer.prompt("steer two", { streamingBehavior: "steer" });
					await peer.prompt("follow one", { streamingBehavior: "followUp" });
					await peer.prompt("follow two", { streamingBehavior: "followUp" });
					return { text: "first" };
				},
				{ text: "second" },
				{ text: "third" },
				{ text: "fourth" },
				{ text: "fifth" },
			]);
			await peer.prompt("start");
			await peer.quiesce();
			return observeQueues(peer);
		});
		expect(pi.requests).toHaveLength(5);
		expect(pi.queueUpdates).toContainEqual({
			type: "queue_update",
			steering: ["steer one", "steer two"],
			followUp: ["follow one", "follow two"],
		});
		expect(settle).toEqual(pi);
	});

	it("delivers the whole queue at once in mode all", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.session.setSteeringMode("all");
			peer.session.setFollowUpMode("all");
			peer.script([
				async () => {
					await peer.drainEvents();
					await peer.session.steer("s1");
					await peer.session.steer("s2");
					await peer.session.followUp("f1");
					await peer.session.followUp("f2");
					return { text: "first" };
				},
				{ text: "after steering" },
				{ text: "after follow-ups" },
			]);
			await peer.prompt("start");
			await peer.quiesce();
			return observeQueues(peer);
		});
		expect(pi.requests).toHaveLength(3);
		expect(pi.requests[1]?.messages.slice(-2)).toEqual(["user: s1", "user: s2"]);
		expect(settle).toEqual(pi);
	});

	it("picks up a follow-up queued while idle at the next prompt", async () => {
		const { pi, settle } = await onBothPeers({}, async (peer) => {
			peer.script([{ text: "one" }, { text: "two" }, { text: "three" }]);
			await peer.prompt("first");
			await peer.session.followUp("queued while idle");
			await peer.prompt("second");
			await peer.quiesce();
			return observeQueues(peer);
		});
		expect(pi.requests.map((r) => r.messages.at(-1))).toEqual([
			"user: first",
			"user: second",
			"user: queued while idle",
		]);
		expect(settle).toEqual(pi);
	});
});
