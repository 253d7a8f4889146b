/**
 * Copying the session out after moving around its tree, replayed against Settle with a real
 * `settle -i` child process (the faux model) on real session files.
 *
 * dot314#4 (a pi extension that moves a session by copying its branch): after `/tree` navigation
 * onto a branch that was not the last one written, the copy reopened on the other branch (or on a
 * cut history); with the position reset to before the first message it came back with the whole
 * history instead of an empty one. What the user should see with `/clone`: the copy holds the
 * branch the user is on, not the one written last; at the very start the copy holds no message;
 * the original file is left as it was.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, messageEntry, navigateTree, Repl, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-clone-after-tree-");

describe("dot314#4: copying the session out after /tree navigation", () => {
	it("dot314#4: /tree back onto the older branch, /clone: the copy holds that branch, not the one written last; at the start the copy starts empty; the original keeps its bytes", async () => {
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("one", "one\n>");
		await chat.say("two", "two\n>");
		const original = bannerSessionFile(chat.stdout);
		// A second branch after "one", written last.
		expect(await navigateTree(chat, messageEntry(original, "user", "two").id)).toContain("just before your message");
		await chat.say("three", "three\n>");
		expect(transcript(original)).toEqual([
			"user: one",
			"assistant: one",
			"user: two",
			"assistant: two",
			"user: three",
			"assistant: three",
		]);
		// Back onto the first branch: nothing is written for the move.
		expect(await navigateTree(chat, messageEntry(original, "assistant", "two").id)).toContain("Now at ");
		const originalBytes = readFileSync(original, "utf8");

		const cloned = await chat.say("/clone");
		const [, , copy] = /^Cloned into a new session (\S+): (\S+\.jsonl)$/m.exec(cloned) ?? [];
		expect(copy).toBeDefined();
		expect(transcript(copy!)).toEqual(["user: one", "assistant: one", "user: two", "assistant: two"]);
		// The next message in the copy follows "two", and the model sees that branch.
		await chat.say("four", "four\n>");
		expect(transcript(copy!)).toEqual([
			"user: one",
			"assistant: one",
			"user: two",
			"assistant: two",
			"user: four",
			"assistant: four",
		]);

		// Before the first message: the copy starts empty (with the model and level recorded before it).
		expect(await navigateTree(chat, messageEntry(copy!, "user", "one").id)).toContain("just before your message");
		const emptyClone = await chat.say("/clone");
		const [, , empty] = /^Cloned into a new session (\S+): (\S+\.jsonl)$/m.exec(emptyClone) ?? [];
		expect(empty).toBeDefined();
		expect(empty).not.toBe(copy);
		await chat.say("five", "five\n>");
		expect(transcript(empty!)).toEqual(["user: five", "assistant: five"]);
		expect(await chat.end()).toBe(0);
		expect(readFileSync(original, "utf8")).toBe(originalBytes);
	});
});
