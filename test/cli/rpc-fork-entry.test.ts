/**
 * RPC `fork` at an entry it cannot fork at answers with pi's exact text, as pi 0.73.1 does (both run
 * here as real child processes), although the SDK's `InvalidForkEntryError` goes on to say what to
 * pass instead (test/runtime/runtime.test.ts): an assistant message, a non-message entry, an
 * unknown id. The session is unchanged after each.
 */
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import { type Line, type Peer, readSession, startPeers } from "./rpc-differential.helpers.js";

const cli = useCliProject("settle-rpc-fork-entry-");

describe("settle --rpc fork: pi's text for an entry it cannot fork at", () => {
	it("an assistant message, a model_change entry and an unknown id: the same response as pi, and the session stays", async () => {
		const { pi, settle } = startPeers(cli.dir, ["the answer"]);
		const seen: Record<string, Line[]> = {};
		try {
			for (const peer of [pi, settle] as Peer[]) {
				const ended = peer.client.next((line) => line.type === peer.endEvent);
				expect(await peer.client.request({ id: "1", type: "prompt", message: "first" })).toMatchObject({
					success: true,
				});
				await ended;
				const state = (await peer.client.request({ id: "2", type: "get_state" })).data as { sessionFile: string };
				const entries = readSession(state.sessionFile);
				const assistant = entries.find(
					(entry) => entry.type === "message" && (entry.message as { role: string }).role === "assistant",
				);
				const modelChange = entries.find((entry) => entry.type === "model_change");
				expect(assistant, `${peer.name}: an assistant entry`).toBeDefined();
				expect(modelChange, `${peer.name}: a model_change entry`).toBeDefined();
				const responses: Line[] = [];
				for (const [id, entryId] of [
					["3", assistant!.id],
					["4", modelChange!.id],
					["5", "no-such-entry"],
				] as const) {
					responses.push(await peer.client.request({ id, type: "fork", entryId }));
				}
				const after = (await peer.client.request({ id: "6", type: "get_state" })).data as { sessionFile: string };
				expect(after.sessionFile).toBe(state.sessionFile);
				seen[peer.name] = responses;
			}
		} finally {
			for (const peer of [pi, settle]) peer.client.child.stdin.end();
			await Promise.all([pi.client.exited, settle.client.exited]);
		}
		const expected = ["3", "4", "5"].map((id) => ({
			id,
			type: "response",
			command: "fork",
			success: false,
			error: "Invalid entry ID for forking",
		}));
		expect(seen.pi).toEqual(expected);
		expect(seen.settle).toEqual(expected);
	});
});
