/**
 * A branch summary whose model answers after the user cancelled it, replayed against Settle on a
 * real session file, the model a hand-driven stream that ignores the abort signal (a provider or
 * proxy that completes normally after cancellation).
 *
 * atomic#2155 (review of a pi-based agent's summary writer): a summary request still in flight when
 * the branch was left could come back after the cancellation and was still saved, at the leaf the
 * session had moved on to. What the user should see: `/tree` → Summarize, Escape, a new prompt
 * answered; when the summarizer's answer arrives late it is dropped: no `branch_summary` in the
 * file, the leaf stays on the new answer, and the reopened session is the branch the user kept.
 */
import { describe, expect, it } from "vitest";
import { transcript } from "../cli/interactive.helpers.js";
import { diskSessionsPerTest, readEntries } from "./disk-harness.js";
import { comparable, reopenedContext, tick } from "./helpers.js";

const sessions = diskSessionsPerTest();

describe("atomic#2155: a branch summary answered after Escape", () => {
	it("atomic#2155: abortBranchSummary(), a prompt answered on the kept branch, then the summarizer answers: nothing is saved from it; the leaf and the reopened context stay on the kept branch", async () => {
		const { session, provider } = await sessions.session();
		provider.answer("answer one", "answer two");
		await session.prompt("first question");
		await session.prompt("second question");
		const entries = session.sessionManager.getEntries();
		const answerOne = entries.find(
			(e) => e.type === "message" && e.message.role === "assistant" && JSON.stringify(e.message).includes("answer one"),
		)!;

		const navigating = session.navigateTree(answerOne.id, { summarize: true });
		const summaryRequest = await provider.next();
		expect(session.isCompacting).toBe(true);
		session.abortBranchSummary();
		await expect(navigating).resolves.toEqual({ cancelled: true, aborted: true });

		// The user goes on where they were; the answer comes back before the late summary.
		provider.answer("answer three");
		await session.prompt("third question");
		const leafAfterPrompt = session.sessionManager.getLeafId();

		// The summarizer ignored the signal and completes normally.
		summaryRequest.finish(provider.reply("LATE SUMMARY of the second question"));
		await tick();

		const file = session.sessionFile!;
		expect(readEntries(file).filter((e) => e.type === "branch_summary")).toEqual([]);
		expect(JSON.stringify(readEntries(file))).not.toContain("LATE SUMMARY");
		expect(session.sessionManager.getLeafId()).toBe(leafAfterPrompt);
		expect(session.isCompacting).toBe(false);
		const kept = [
			"user: first question",
			"assistant: answer one",
			"user: second question",
			"assistant: answer two",
			"user: third question",
			"assistant: answer three",
		];
		expect(transcript(file)).toEqual(kept);
		// The live context and the one a resume rebuilds are that branch.
		expect(reopenedContext(file).map(comparable)).toEqual(session.messages.map(comparable));
		expect(session.messages.filter((m) => m.role === "user" || m.role === "assistant")).toHaveLength(6);
	});
});
