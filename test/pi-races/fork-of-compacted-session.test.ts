/**
 * A fork of a compacted session, found again and resumed, replayed with real `settle` child
 * processes on real session files.
 *
 * claude-code#48937: forking a compacted conversation made a file whose first user message was the
 * compaction summary; the session list skipped it, so the fork was invisible, and opened it started
 * as a blank slate. Settle's fork copies the whole branch (the compaction and what it kept): the
 * `-r` list shows the fork with the conversation's first message, and resumed, its context starts
 * with the summary.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/index.js";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, transcript } from "../cli/interactive.helpers.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-pi-races-fork-of-compacted-");

function chat(...args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("claude-code#48937: a fork of a compacted session", () => {
	it("claude-code#48937: --fork of a compacted session: settle -r lists the fork with the first message, and resumed, its context starts with the summary and goes on", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		const first = chat();
		await first.idle(0);
		await first.say("start the parser rewrite", "start the parser rewrite\n>");
		await first.say("second step", "second step\n>");
		expect(await first.say("/compact", "Compacted")).toContain("Compacted (manual): ");
		expect(await first.end()).toBe(0);
		const parent = bannerSessionFile(first.stdout);

		expect(
			runSettle(["--faux", "--fork", parent, "-p", "try it another way"], { cwd: cli.project, agentDir: cli.agentDir })
				.code,
		).toBe(0);
		const [fork] = sessionFilesUnder(cli.agentDir).filter((file) => file !== parent);
		const forkId = (JSON.parse(readFileSync(fork!, "utf8").split("\n")[0]!) as { id: string }).id;

		const picker = chat("-r");
		expect(await picker.until(RESUME_QUESTION)).toMatch(
			new RegExp(`  1\\. ${forkId}  .* msgs  start the parser rewrite\n`),
		);
		expect(await picker.say("1", "Resumed")).toContain(`Resumed ${forkId} (`);
		await picker.say("third step", "third step\n>");
		expect(await picker.end()).toBe(0);

		const { messages } = SessionManager.open(fork!).buildSessionContext();
		// After the system prompt record: the summary, not a blank slate.
		expect(messages.filter((message) => message.role !== "system")[0]?.role).toBe("compactionSummary");
		expect(transcript(fork!).slice(-4)).toEqual([
			"user: try it another way",
			"assistant: try it another way",
			"user: third step",
			"assistant: third step",
		]);
	});
});
