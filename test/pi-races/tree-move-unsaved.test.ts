/**
 * A `/tree` move followed by quitting, replayed against Settle with real `settle -i` child
 * processes (the faux model) on a real session file.
 *
 * tau#700, tau#702 (tau keeps pi's session format): pi writes nothing for a plain `/tree` move; a
 * reopened file resumes at the entry written last. A user who moved back and quit before sending
 * anything found `-c` on the branch they had left, and the next message went there. Settle keeps
 * pi's rule (the file stays pi's format); what the user should see: the move says it is not saved
 * until the next message, and `-c` then does what it said. A move onto the entry written last, or
 * one followed by a message, needs no such word and is resumed.
 */
import { describe, expect, it } from "vitest";
import { UNSAVED_POSITION_NOTICE } from "../../src/cli/interactive-tree-commands.js";
import { useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, messageEntry, navigateTree, Repl, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-tree-move-unsaved-");

function repl(args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("tau#702: a /tree move, then quitting before the next message", () => {
	it("tau#702: /tree back says the move is saved with the next message; quit, settle -c resumes at the branch written last, as said; a move followed by a message is resumed", async () => {
		const chat = repl([]);
		await chat.idle(0);
		await chat.say("one", "one\n>");
		await chat.say("two", "two\n>");
		const file = bannerSessionFile(chat.stdout);
		const moved = await navigateTree(chat, messageEntry(file, "assistant", "one").id);
		expect(moved).toContain(`${UNSAVED_POSITION_NOTICE}\n`);
		// Back onto the entry written last: that is where a reopened file resumes anyway.
		expect(await navigateTree(chat, messageEntry(file, "assistant", "two").id)).not.toContain(UNSAVED_POSITION_NOTICE);
		expect(await navigateTree(chat, messageEntry(file, "assistant", "one").id)).toContain(UNSAVED_POSITION_NOTICE);
		expect(await chat.end()).toBe(0);

		const resumed = repl(["-c"]);
		expect(await resumed.idle(0)).toContain("last answer: two\n");
		await resumed.say("three", "three\n>");
		expect(transcript(file).slice(-2)).toEqual(["user: three", "assistant: three"]);
		// "three" followed "two": the move was not saved, as the notice said.
		const three = messageEntry(file, "user", "three");
		expect(three.parentId).toBe(messageEntry(file, "assistant", "two").id);

		// A move followed by a message is saved with it.
		await navigateTree(resumed, messageEntry(file, "assistant", "one").id);
		await resumed.say("alt", "alt\n>");
		expect(await resumed.end()).toBe(0);
		const again = repl(["-c"]);
		expect(await again.idle(0)).toContain("last answer: alt\n");
		expect(await again.end()).toBe(0);
		const alt = messageEntry(file, "user", "alt");
		expect(alt.parentId).toBe(messageEntry(file, "assistant", "one").id);
	});
});
