/**
 * pi#4799: `/fork` at the session's first user message. pi started the fork with `newSession()`,
 * which named the file after one session id and wrote another into the header, and left the
 * header without `parentSession`: a script that looked a session up by its header id found no file,
 * and the fork showed as an unrelated session. What the user should see: the fork's file is named
 * after the id in its header (the id `get_state` reports), and its header names the session it was
 * forked from. Both peers run here as real `--mode rpc` child processes.
 */
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { type Peer, readSession, startPeer } from "../cli/rpc-differential.helpers.js";

const cli = useCliProject("settle-fork-first-message-");

interface ForkFacts {
	fileNamedAfterHeaderId: boolean;
	stateIdIsHeaderId: boolean;
	parentIsSource: boolean;
	userTexts: string[];
}

async function forkAtFirstMessage(peer: Peer): Promise<ForkFacts> {
	try {
		const first = peer.client.next((line) => line.type === peer.endEvent);
		expect(await peer.client.request({ id: "1", type: "prompt", message: "first" })).toMatchObject({ success: true });
		await first;
		const before = (await peer.client.request({ id: "2", type: "get_state" })).data as { sessionFile: string };
		const firstUser = readSession(before.sessionFile).find(
			(entry) => entry.type === "message" && (entry.message as { role: string }).role === "user",
		);
		expect(firstUser, `${peer.name}: the first user message`).toBeDefined();
		expect(await peer.client.request({ id: "3", type: "fork", entryId: firstUser!.id })).toMatchObject({
			success: true,
		});
		// The fork holds no message yet: its file is written with the first message.
		const second = peer.client.next((line) => line.type === peer.endEvent);
		expect(await peer.client.request({ id: "4", type: "prompt", message: "second" })).toMatchObject({
			success: true,
		});
		await second;
		const after = (await peer.client.request({ id: "5", type: "get_state" })).data as {
			sessionFile: string;
			sessionId: string;
		};
		expect(after.sessionFile).not.toBe(before.sessionFile);
		const entries = readSession(after.sessionFile);
		const header = entries[0] as { type: string; id: string; parentSession?: string };
		expect(header.type).toBe("session");
		return {
			fileNamedAfterHeaderId: basename(after.sessionFile).endsWith(`_${header.id}.jsonl`),
			stateIdIsHeaderId: after.sessionId === header.id,
			parentIsSource: header.parentSession === before.sessionFile,
			userTexts: entries.flatMap((entry) => {
				const message = entry.message as { role: string; content: unknown } | undefined;
				if (entry.type !== "message" || message?.role !== "user") return [];
				const content = message.content;
				return [typeof content === "string" ? content : (content as { text: string }[]).map((b) => b.text).join("")];
			}),
		};
	} finally {
		peer.client.child.stdin.end();
		await peer.client.exited;
	}
}

describe("pi#4799: a fork at the first message gets two session ids and no parent", () => {
	it("pi#4799: settle --mode rpc, fork at the first user message then prompt: the file is named after the header's id, get_state reports it, and the header names the source session", async () => {
		const facts = await forkAtFirstMessage(startPeer("settle", cli.dir, ["one", "two"]));
		expect(facts).toEqual({
			fileNamedAfterHeaderId: true,
			stateIdIsHeaderId: true,
			parentIsSource: true,
			userTexts: ["second"],
		});
	});

	it("pi#4799 (pi-peer): pi 0.73.1 names the fork's file after another id than its header's, and writes no parentSession", async () => {
		const facts = await forkAtFirstMessage(startPeer("pi", cli.dir, ["one", "two"]));
		expect(facts).toEqual({
			fileNamedAfterHeaderId: false,
			stateIdIsHeaderId: true,
			parentIsSource: false,
			userTexts: ["second"],
		});
	});
});
