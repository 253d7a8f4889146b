/**
 * Forks of forks, and a second fork of the same session, replayed against Settle through an
 * `AgentSessionRuntime` on real session files.
 *
 * claude-code#85875: the first fork of a session copied its transcript; every later fork — of the
 * fork, or of the original again — silently made a session holding only metadata, so the model
 * started cold, and the second fork of the original could not be told apart from the first. What
 * the user should see: each fork holds the whole branch it was cut from, in its own file named
 * after its own id, its header naming the session it came from; the model sees that history.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentSessionRuntime, SessionManager } from "../../src/index.js";
import { transcript } from "../cli/interactive.helpers.js";
import { manualDiskRuntime, removeTempDirs } from "./disk-harness.js";

let runtime: AgentSessionRuntime | undefined;
afterEach(async () => {
	await runtime?.dispose();
	runtime = undefined;
	removeTempDirs();
});

function header(file: string): { id: string; parentSession?: string } {
	return JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string; parentSession?: string };
}

/** The reopened file's context, as `transcript` lines. */
function reopenedContext(file: string): string[] {
	const manager = SessionManager.open(file, { readOnly: true });
	const lines = manager
		.buildSessionContext()
		.messages.filter((m) => m.role === "user" || m.role === "assistant")
		.map((m) => {
			const content = typeof m.content === "string" ? m.content : (m.content as { text?: string }[])[0]?.text;
			return `${m.role}: ${content}`;
		});
	manager.close();
	return lines;
}

describe("claude-code#85875: a fork of a fork, and the original forked again", () => {
	it("claude-code#85875: fork, prompt in the fork, fork the fork, back to the original and fork it again, then fork before a message: every fork holds its branch, in its own file, naming its parent", async () => {
		const made = await manualDiskRuntime();
		runtime = made.runtime;
		const { provider } = made;
		provider.answer("a1", "a2");
		await runtime.session.prompt("q1");
		await runtime.session.prompt("q2");
		const original = runtime.session.sessionFile!;
		const originalBytes = readFileSync(original, "utf8");
		const twoTurns = ["user: q1", "assistant: a1", "user: q2", "assistant: a2"];

		await runtime.fork(runtime.session.sessionManager.getLeafId()!, { position: "at" });
		const first = runtime.session.sessionFile!;
		provider.answer("a3");
		await runtime.session.prompt("q3");
		expect(transcript(first)).toEqual([...twoTurns, "user: q3", "assistant: a3"]);

		await runtime.fork(runtime.session.sessionManager.getLeafId()!, { position: "at" });
		const forkOfFork = runtime.session.sessionFile!;
		expect(transcript(forkOfFork)).toEqual([...twoTurns, "user: q3", "assistant: a3"]);
		expect(reopenedContext(forkOfFork)).toEqual([...twoTurns, "user: q3", "assistant: a3"]);

		await runtime.switchSession(original);
		await runtime.fork(runtime.session.sessionManager.getLeafId()!, { position: "at" });
		const second = runtime.session.sessionFile!;
		expect(transcript(second)).toEqual(twoTurns);
		expect(reopenedContext(second)).toEqual(twoTurns);

		const q2 = runtime.session.sessionManager
			.getBranch()
			.find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message).includes("q2"))!;
		const before = await runtime.fork(q2.id);
		expect(before.selectedText).toBe("q2");
		const cut = runtime.session.sessionFile!;
		// Nothing to write yet (no message after the cut): the file appears with the next message.
		provider.answer("a2 again");
		await runtime.session.prompt("q2 again");
		expect(transcript(cut)).toEqual(["user: q1", "assistant: a1", "user: q2 again", "assistant: a2 again"]);

		const files = [original, first, forkOfFork, second, cut];
		expect(new Set(files).size).toBe(5);
		const ids = files.map((file) => header(file).id);
		expect(new Set(ids).size).toBe(5);
		for (const [index, file] of files.entries()) expect(basename(file)).toContain(ids[index]!);
		expect(files.map((file) => header(file).parentSession)).toEqual([undefined, original, first, original, second]);
		// The original was only read by every fork.
		expect(readFileSync(original, "utf8")).toBe(originalBytes);
	});
});
