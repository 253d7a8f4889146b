/**
 * Finding a fork again right after making it, replayed against Settle with real `settle` child
 * processes on real session files.
 *
 * codex#39553: a fork made with `/fork` was already on disk and resumable by its id, yet the resume
 * picker did not offer it until a new message was sent in it. In Settle the fork's messages are
 * copies stamped with the original's times, and the lists (`-r`, `/resume`) and `-c` order sessions
 * by their last message: after `/fork` and quitting, `settle -c` went back to the original and
 * appended there, and `-r` listed the fork second. The fork just made is the latest session.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, transcript } from "../cli/interactive.helpers.js";
import { savedSession } from "./helpers.js";

const cli = useCliProject("settle-pi-races-continue-after-fork-");

describe("codex#39553: a session forked and left before any new message", () => {
	it("codex#39553: /fork then quit: settle -r lists the fork first and settle -c continues the fork, not the original; the original keeps its bytes", async () => {
		const originalId = savedSession(cli, "first question").id;
		expect(savedSession(cli, "second question", { args: ["-c"] }).id).toBe(originalId);

		const chat = new Repl(["--faux", "-c"], { cwd: cli.project, agentDir: cli.agentDir });
		const banner = await chat.idle(0);
		const originalFile = bannerSessionFile(banner);
		const forked = await chat.say("/fork", "Forked into a new session");
		const forkFile = /Forked into a new session \((\S+\.jsonl)\)/.exec(forked)![1]!;
		expect(await chat.end()).toBe(0);
		const forkId = /_([^_]+)\.jsonl$/.exec(forkFile)![1]!;
		expect(transcript(forkFile)).toEqual(["user: first question", "assistant: first question"]);
		const originalBytes = readFileSync(originalFile, "utf8");

		const picker = new Repl(["--faux", "-r"], { cwd: cli.project, agentDir: cli.agentDir });
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toMatch(new RegExp(`  1\\. ${forkId}  .*2 msgs  first question\n  2\\. ${originalId}  .*4 msgs`));
		picker.send("");
		await picker.until(">");
		expect(await picker.end()).toBe(0);

		expect(savedSession(cli, "second question, asked another way", { args: ["-c"] }).id).toBe(forkId);
		expect(transcript(forkFile)).toEqual([
			"user: first question",
			"assistant: first question",
			"user: second question, asked another way",
			"assistant: second question, asked another way",
		]);
		expect(readFileSync(originalFile, "utf8")).toBe(originalBytes);
	});
});
