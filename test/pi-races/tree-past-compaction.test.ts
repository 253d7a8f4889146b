/**
 * Tree navigation across a compaction, replayed against Settle over HTTP: pi-ai's own OpenAI client
 * talks to a local server that answers as a Chat Completions provider does (`test/llm/wire`),
 * through a whole session from `createAgentSession` with real `compact()` calls, its JSONL on disk.
 *
 * chia1104.dev#3011 (a product built on pi): its branch walk stopped at a compaction, so `/tree` back
 * to a point before the compaction summarized the shared history too. What the user should see:
 * the branch summary covers only what was abandoned (the turns after the branch point, the
 * compaction's summary among them), the new branch's requests carry the turn at the branch point in
 * full, the branch summary and no part of the abandoned branch, and a later compaction there starts
 * afresh instead of updating the abandoned branch's summary.
 *
 * oh-my-pi#4090: a newer compaction rewrote the older ones on disk, so rewinding to a point between
 * them brought back a compaction whose data was gone. What the user should see: `/tree` to between
 * two compactions sends the first compaction's summary intact, and the file's earlier lines are
 * byte for byte what they were.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../src/store/entries.js";
import { chatReply } from "../llm/wire/openai.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { useWireSession, type WireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

/** Everything a Chat Completions request sends as messages, as one string. */
function sent(request: RecordedRequest): string {
	return JSON.stringify(request.body.messages);
}

function isSummaryRequest(request: RecordedRequest): boolean {
	return sent(request).includes("You are a context summarization assistant");
}

function isBranchSummaryRequest(request: RecordedRequest): boolean {
	return isSummaryRequest(request) && sent(request).includes("Summarize the conversation branch above");
}

/**
 * A session whose summary requests are answered by `summaryText(request)` and whose turns answer
 * `answer <question>`; the tail kept by a compaction is as small as can be.
 */
async function compactingSession(summaryText: (request: RecordedRequest) => string): Promise<WireSession> {
	const session = await wireSession({
		api: "openai-completions",
		model: { reasoning: false },
		settings: { compaction: { keepRecentTokens: 1 } },
		route: (request) => {
			if (isSummaryRequest(request)) return chatReply([{ type: "text", text: summaryText(request) }]);
			const users = (request.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user");
			const last = JSON.stringify(users.at(-1)?.content ?? "");
			const question = /question [A-Z0-9]+/.exec(last)?.[0] ?? "?";
			return chatReply([{ type: "text", text: `answer to ${question}` }]);
		},
	});
	return session;
}

function answerTo(entries: SessionEntry[], question: string): string {
	const found = entries.find(
		(entry) =>
			entry.type === "message" &&
			entry.message.role === "assistant" &&
			JSON.stringify(entry.message.content).includes(`answer to ${question}`),
	);
	if (!found) throw new Error(`no answer to ${question} in the session`);
	return found.id;
}

function modelRequests(session: WireSession): RecordedRequest[] {
	return session.server.requests.filter((request) => !isSummaryRequest(request));
}

describe("chia1104.dev#3011: /tree with a summary back past a compaction", () => {
	it("chia1104.dev#3011: the branch summary covers only the abandoned turns and the compaction's summary; the new branch sends the branch-point turn, the branch summary and nothing abandoned; its next compaction starts afresh", async () => {
		const w = await compactingSession((request) =>
			isBranchSummaryRequest(request) ? "## Goal\nBRANCH-SUMMARY-B-C-D" : "## Goal\nSUMMARY-OLD-BRANCH",
		);
		for (const question of ["question A", "question B", "question C"]) await w.session.prompt(question);
		await w.session.compact();
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
		await w.session.prompt("question D");

		const result = await w.session.navigateTree(answerTo(w.entries(), "question A"), { summarize: true });

		const branchRequests = w.server.requests.filter(isBranchSummaryRequest);
		expect(branchRequests).toHaveLength(1);
		const abandoned = sent(branchRequests[0]!);
		expect(abandoned).toContain("SUMMARY-OLD-BRANCH");
		expect(abandoned).toContain("question D");
		expect(abandoned).not.toContain("question A");
		expect(result.summaryEntry?.summary).toContain("BRANCH-SUMMARY-B-C-D");

		await w.session.prompt("question E");
		const onNewBranch = sent(modelRequests(w).at(-1)!);
		expect(onNewBranch).toContain("question A");
		expect(onNewBranch).toContain("answer to question A");
		expect(onNewBranch).toContain("BRANCH-SUMMARY-B-C-D");
		expect(onNewBranch).toContain("question E");
		for (const abandonedText of ["SUMMARY-OLD-BRANCH", "question B", "question C", "question D"]) {
			expect(onNewBranch).not.toContain(abandonedText);
		}

		const summaryRequestsBefore = w.server.requests.filter(isSummaryRequest).length;
		await w.session.compact();
		const newCompaction = w.server.requests.filter(isSummaryRequest).slice(summaryRequestsBefore);
		expect(newCompaction.length).toBeGreaterThan(0);
		for (const request of newCompaction) {
			expect(sent(request)).not.toContain("previous-summary");
			expect(sent(request)).not.toContain("SUMMARY-OLD-BRANCH");
		}
	});
});

describe("oh-my-pi#4090: /tree to between two compactions", () => {
	it("oh-my-pi#4090: after a second compaction, /tree to a turn between the two sends the first compaction's summary intact, and the file's earlier lines are unchanged", async () => {
		let summary = "## Goal\nSUMMARY-ONE-INTACT";
		const w = await compactingSession(() => summary);
		await w.session.prompt("question 1");
		await w.session.prompt("question 2");
		await w.session.compact();
		await w.session.prompt("question 3");
		const linesAfterFirst = readFileSync(w.session.sessionFile!, "utf8").split("\n").filter(Boolean);
		summary = "## Goal\nSUMMARY-TWO";
		await w.session.compact();
		await w.session.prompt("question 4");
		expect(w.entries().filter((entry) => entry.type === "compaction")).toHaveLength(2);

		await w.session.navigateTree(answerTo(w.entries(), "question 3"));
		await w.session.prompt("question 5");

		const request = sent(modelRequests(w).at(-1)!);
		expect(request).toContain("SUMMARY-ONE-INTACT");
		expect(request).toContain("question 3");
		expect(request).toContain("question 5");
		expect(request).not.toContain("SUMMARY-TWO");
		expect(request).not.toContain("question 4");
		const linesNow = readFileSync(w.session.sessionFile!, "utf8").split("\n").filter(Boolean);
		expect(linesNow.slice(0, linesAfterFirst.length)).toEqual(linesAfterFirst);
	});
});
