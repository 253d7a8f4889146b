/**
 * Session names over a session's life, replayed against Settle with real `settle` child processes
 * on real session files.
 *
 * claude-code#29922: a session renamed with `/rename` went back to its earlier
 * name in the picker once the context was compacted. claude-code#23610: the name was replaced after
 * the session was resumed and worked in. claude-code#39414: the resume picker did not show the name
 * at all, only the first message. Settle keeps the name in `session_info` entries of the file; the
 * latest one in the file is the name, through compactions and resumes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, readEntries, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-session-names-");

function chat(...args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("claude-code#29922, claude-code#23610: a session's name after compaction and resume", () => {
	it("claude-code#29922: /name, /compact, /name again: settle -r lists the new name; resumed from the list and continued with -c, the name stays and is written once per /name", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		const first = chat();
		await first.idle(0);
		await first.say("start the parser rewrite", "start the parser rewrite\n>");
		expect(await first.say("/name parser")).toContain("Session name: parser\n");
		await first.say("second step", "second step\n>");
		expect(await first.say("/compact", "Compacted")).toContain("Compacted (manual): ");
		expect(await first.say("/name parser rewrite")).toContain("Session name: parser rewrite\n");
		await first.say("after the compaction", "after the compaction\n>");
		expect(await first.end()).toBe(0);
		const file = bannerSessionFile(first.stdout);
		const id = (JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string }).id;

		const picker = chat("-r");
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toMatch(new RegExp(`  1\\. ${id}  .* msgs  parser rewrite: start the parser rewrite\n`));
		expect(await picker.say("1", "Resumed")).toContain(`Resumed ${id} (`);
		await picker.say("third step", "third step\n>");
		expect(await picker.end()).toBe(0);

		expect(runSettle(["--faux", "-c", "-p", "fourth step"], { cwd: cli.project, agentDir: cli.agentDir }).code).toBe(0);

		const again = chat("-r");
		expect(await again.until(RESUME_QUESTION)).toMatch(
			new RegExp(`  1\\. ${id}  .* msgs  parser rewrite: start the parser rewrite\n`),
		);
		again.send("");
		await again.until(">");
		expect(await again.end()).toBe(0);
		const entries = readEntries(file);
		expect(entries.filter((entry) => entry.type === "session_info").map((entry) => entry.name)).toEqual([
			"parser",
			"parser rewrite",
		]);
		expect(entries.filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(transcript(file).slice(-4)).toEqual([
			"user: third step",
			"assistant: third step",
			"user: fourth step",
			"assistant: fourth step",
		]);
	});
});
