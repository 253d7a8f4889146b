/**
 * Labels in the JSONL export of a branch (`/export <file>.jsonl`, `exportToJsonl`), replayed on real
 * session files through an `AgentSessionRuntime`, and read back by `/import`.
 *
 * tau#709 (PR): a pi-style session tree resolved a label only on the branch whose file lines held
 * it, so a bookmark set on a shared turn vanished once the user moved to another branch; the PR
 * resolves labels over the whole file, as pi's `/tree` does. Settle's tree does, but its JSONL
 * export copied the branch's lines as they were: a label set on a turn of the branch from another
 * branch was lost, and a label entry of the branch whose turn is on another branch went along,
 * naming an entry the file does not have. What the user should see: the exported file carries the
 * labels of the turns it holds, and only those, as `/fork` and `/clone` copy them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { manualDiskRuntime, readEntries, removeTempDirs } from "./disk-harness.js";

afterEach(() => removeTempDirs());

describe("tau#709 (PR): labels in the JSONL export of the current branch", () => {
	it("tau#709: a label set on a shared turn from another branch is in the export; one set on the other branch's turn is not", async () => {
		const { dir, provider, runtime } = await manualDiskRuntime();
		const session = runtime.session;
		provider.answer("answer one", "answer two", "answer three");
		await session.prompt("question one");
		await session.prompt("question two");
		const turns = session.sessionManager
			.getEntries()
			.filter((entry) => entry.type === "message" && entry.message.role !== "system");
		const [questionOne, answerOne, , answerTwo] = turns;
		// On the first branch: a bookmark on the turn both branches share.
		session.sessionManager.appendLabelChange(questionOne!.id, "before the refactor");
		await session.navigateTree(answerOne!.id);
		await session.prompt("question three");
		// On the second branch: a bookmark on the first branch's answer.
		session.sessionManager.appendLabelChange(answerTwo!.id, "rejected plan");
		expect(session.sessionManager.getLabel(questionOne!.id)).toBe("before the refactor");

		const exported = session.exportToJsonl(`${dir}/branch.jsonl`);
		const lines = readEntries(exported);
		const ids = new Set(lines.map((line) => line.id));
		const labels = lines.filter((line) => line.type === "label");
		expect(labels.map((line) => [line.targetId, line.label])).toEqual([[questionOne!.id, "before the refactor"]]);
		expect(labels.every((line) => ids.has(line.targetId))).toBe(true);

		// `/import` of the export: the bookmark is there, on the turn it was set on.
		const { cancelled } = await runtime.importFromJsonl(exported);
		expect(cancelled).toBe(false);
		const imported = runtime.session.sessionManager;
		expect(imported.getLabel(questionOne!.id)).toBe("before the refactor");
		expect(imported.getLabel(answerTwo!.id)).toBeUndefined();
		expect(
			imported
				.getBranch()
				.filter((entry) => entry.type === "message")
				.map((entry) => entry.message.role),
		).toEqual(["system", "user", "assistant", "user", "assistant"]);
	});
});
