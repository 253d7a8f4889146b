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
import { bannerSessionFile, Repl, readEntries, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-tree-move-unsaved-");
const QUESTION = "Choose 1-3 (empty to cancel): ";

function repl(args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

/** The id of the message entry of `file` with `role` and text `text`. */
function messageId(file: string, role: string, text: string): string {
	const found = readEntries(file).find((entry) => {
		const message = entry.message as { role: string; content: unknown } | undefined;
		if (entry.type !== "message" || message?.role !== role) return false;
		const content = message.content;
		const body =
			typeof content === "string" ? content : (content as { text?: string }[]).map((part) => part.text ?? "").join("");
		return body === text;
	});
	if (!found) throw new Error(`no ${role} message "${text}" in ${file}`);
	return String(found.id);
}

/** `/tree <id>` answered "No summary": the output until the next prompt. */
async function goTo(chat: Repl, id: string): Promise<string> {
	const from = chat.mark();
	chat.send(`/tree ${id}`);
	await chat.until(QUESTION, from);
	await chat.say("1");
	return chat.stdout.slice(from);
}

describe("tau#702: a /tree move, then quitting before the next message", () => {
	it("tau#702: /tree back says the move is saved with the next message; quit, settle -c resumes at the branch written last, as said; a move followed by a message is resumed", async () => {
		const chat = repl([]);
		await chat.idle(0);
		await chat.say("one", "one\n>");
		await chat.say("two", "two\n>");
		const file = bannerSessionFile(chat.stdout);
		const moved = await goTo(chat, messageId(file, "assistant", "one"));
		expect(moved).toContain(`${UNSAVED_POSITION_NOTICE}\n`);
		// Back onto the entry written last: that is where a reopened file resumes anyway.
		expect(await goTo(chat, messageId(file, "assistant", "two"))).not.toContain(UNSAVED_POSITION_NOTICE);
		expect(await goTo(chat, messageId(file, "assistant", "one"))).toContain(UNSAVED_POSITION_NOTICE);
		expect(await chat.end()).toBe(0);

		const resumed = repl(["-c"]);
		expect(await resumed.idle(0)).toContain("last answer: two\n");
		await resumed.say("three", "three\n>");
		expect(transcript(file).slice(-2)).toEqual(["user: three", "assistant: three"]);
		// "three" followed "two": the move was not saved, as the notice said.
		const three = readEntries(file).find((entry) => entry.id === messageId(file, "user", "three"))!;
		expect(three.parentId).toBe(messageId(file, "assistant", "two"));

		// A move followed by a message is saved with it.
		await goTo(resumed, messageId(file, "assistant", "one"));
		await resumed.say("alt", "alt\n>");
		expect(await resumed.end()).toBe(0);
		const again = repl(["-c"]);
		expect(await again.idle(0)).toContain("last answer: alt\n");
		expect(await again.end()).toBe(0);
		const alt = readEntries(file).find((entry) => entry.id === messageId(file, "user", "alt"))!;
		expect(alt.parentId).toBe(messageId(file, "assistant", "one"));
	});
});
