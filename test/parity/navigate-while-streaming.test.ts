/**
 * `navigateTree()` while a response streams (behavior C.13, first sentence): Settle refuses with
 * newer pi's text, pi 0.73.1 has no such guard and moves the leaf under the running operation.
 * A named difference (README "Coming from pi"), pinned here on both sides.
 */
import { describe, expect, it } from "vitest";
import { fileShape } from "./normalize.js";
import { onBothPeers, type Peer } from "./peers.js";

interface TreeApi {
	navigateTree(targetId: string): Promise<{ cancelled: boolean; editorText?: string }>;
	sessionManager: { getLeafId(): string | null };
}

async function navigateDuringSecondAnswer(peer: Peer) {
	const session = peer.session as unknown as TreeApi;
	let outcome = "not called";
	peer.script([
		{ text: "answer one" },
		async () => {
			const firstUser = peer
				.fileEntries()
				.find((entry) => entry.type === "message" && (entry.message as { role: string }).role === "user");
			try {
				const result = await session.navigateTree(String(firstUser?.id));
				outcome = `resolved ${JSON.stringify(result)}`;
			} catch (error) {
				outcome = `rejected: ${error instanceof Error ? error.message : String(error)}`;
			}
			return { text: "answer two" };
		},
	]);
	await peer.prompt("first");
	await peer.prompt("second");
	await peer.quiesce();
	const file = peer.fileEntries();
	// What the file's leaf branch holds once the operation is over.
	const byId = new Map(file.map((entry) => [entry.id, entry]));
	const branch: Record<string, unknown>[] = [];
	for (let entry = byId.get(session.sessionManager.getLeafId()); entry; entry = byId.get(entry.parentId)) {
		branch.unshift(entry);
	}
	return { outcome, file: fileShape(file), branch: fileShape(branch) };
}

describe("parity: navigateTree while a response streams (C.13)", () => {
	it("Settle refuses with newer pi's text and the run ends on its branch; pi 0.73.1 moves the leaf under the running operation", async () => {
		const { pi, settle } = await onBothPeers({}, navigateDuringSecondAnswer);
		expect(settle.outcome).toBe(
			"rejected: Wait for the current response to finish before navigating the session tree.",
		);
		expect(settle.branch).toEqual([
			"model_change",
			"thinking_level_change",
			"message:user",
			"message:assistant",
			"message:user",
			"message:assistant",
		]);
		// pi 0.73.1: the navigation succeeds mid-run (the leaf goes back before "first", its text to the
		// editor) and the run's answer is then appended where the leaf now is: a branch holding an
		// answer without its question.
		expect(pi.outcome).toBe('resolved {"editorText":"first","cancelled":false}');
		expect(pi.branch).toEqual(["model_change", "thinking_level_change", "message:assistant"]);
		expect(pi.file.filter((shape) => shape.startsWith("message:"))).toEqual(
			settle.file.filter((shape) => shape.startsWith("message:")),
		);
	});
});
