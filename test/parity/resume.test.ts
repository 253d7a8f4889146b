import { copyFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileShape, normalizeMessages } from "./normalize.js";
import { createPeer, makeTempDirs, type Peer, type PeerName, type PeerOptions } from "./peers.js";

const SETTINGS: PeerOptions = {
	settings: { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 15 } },
};

/** A session with a tool turn, a compaction and a reply after it, written by `name`. */
async function writeSession(name: PeerName): Promise<{ peer: Peer; file: string }> {
	const peer = await createPeer(name, SETTINGS);
	writeFileSync(join(peer.dirs.cwd, "a.txt"), "alpha\n");
	peer.script([
		{ text: "Reading.", toolCalls: [{ id: "call-1", name: "read", args: { path: "a.txt" } }] },
		{ text: "It says alpha." },
		{ text: "Second answer with enough words to be kept." },
		{ text: "Summary: a.txt says alpha." },
		{ text: "After compaction." },
	]);
	await peer.prompt("what is in a.txt?");
	await peer.prompt("and what does that mean for the project as a whole?");
	await peer.session.compact();
	await peer.prompt("thanks");
	await peer.quiesce();
	return { peer, file: peer.session.sessionFile ?? "" };
}

/** Opens a copy of `file` in a live session of `name`, sends one prompt, and returns what the model saw. */
async function resume(name: PeerName, file: string) {
	const dirs = makeTempDirs();
	const copy = join(dirs.sessionDir, basename(file));
	copyFileSync(file, copy);
	const peer = await createPeer(name, { ...SETTINGS, openFile: copy }, dirs);
	try {
		const before = normalizeMessages(peer.session.messages);
		peer.script([{ text: "Resumed." }]);
		await peer.prompt("continue");
		await peer.quiesce();
		return { before, request: peer.requests[0], after: fileShape(peer.fileEntries()).slice(-2) };
	} finally {
		peer.cleanup();
	}
}

describe("parity: resuming the other's session file", () => {
	it("pi and Settle continue either file with the same model context", async () => {
		const writers = [await writeSession("pi"), await writeSession("settle")];
		try {
			const [fromPi, fromSettle] = writers;
			const results = {
				piResumesPi: await resume("pi", fromPi?.file ?? ""),
				settleResumesPi: await resume("settle", fromPi?.file ?? ""),
				piResumesSettle: await resume("pi", fromSettle?.file ?? ""),
				settleResumesSettle: await resume("settle", fromSettle?.file ?? ""),
			};
			const reference = results.piResumesPi;
			expect(reference.request?.messages[0]).toContain("Summary: a.txt says alpha.");
			expect(reference.after).toEqual(["message:user", "message:assistant"]);
			expect(results.settleResumesPi).toEqual(reference);
			expect(results.piResumesSettle).toEqual(reference);
			expect(results.settleResumesSettle).toEqual(reference);
		} finally {
			for (const writer of writers) writer.peer.cleanup();
		}
	});
});
