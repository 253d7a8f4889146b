/**
 * A session named while its first answer streams, replayed against Settle through an
 * `AgentSessionRuntime` on real JSONL files, read back as a session list reads them.
 *
 * kimi-cli#1640: a session renamed while its first turn was still being processed lost the name:
 * the title generated when the turn ended replaced it. Settle generates no title; what must hold is
 * that a name set mid-run is saved at once, stays the name after the answer (and after an abort),
 * and leaves the conversation as it was: the reopened context equals the live one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/index.js";
import { manualDiskRuntime, readEntries, removeTempDirs, textDelta } from "./disk-harness.js";
import { comparable, reopenedContext } from "./helpers.js";

afterEach(() => removeTempDirs());

async function namedMidRun(end: "answer" | "abort") {
	const { dir, sessionDir, provider, runtime } = await manualDiskRuntime();
	const session = runtime.session;
	const streaming = textDelta(session);
	const run = session.prompt("plan the migration");
	const request = await provider.next();
	request.beginText("Step one");
	await streaming;
	session.setSessionName("db migration");
	const file = session.sessionFile!;
	// Saved at once, before the answer ends.
	expect(readEntries(file).filter((entry) => entry.type === "session_info")).toMatchObject([{ name: "db migration" }]);
	if (end === "answer") request.finish(provider.reply("Step one: back up."));
	else await session.abort();
	await run;
	provider.answer("Step two: migrate.");
	await session.prompt("go on");
	expect(session.sessionName).toBe("db migration");
	expect(reopenedContext(file).map(comparable)).toEqual(session.messages.map(comparable));
	const [info] = await SessionManager.list(dir, sessionDir);
	expect(info).toMatchObject({ path: file, name: "db migration", firstMessage: "plan the migration" });
	expect(readEntries(file).filter((entry) => entry.type === "session_info")).toHaveLength(1);
	await runtime.dispose();
	return { file, session };
}

describe("kimi-cli#1640: a session named while its first answer streams", () => {
	it("kimi-cli#1640: setSessionName mid-stream: the name is on disk at once, stays after the answer and the next turn, the list shows it, and the reopened context equals the live one", async () => {
		const { session } = await namedMidRun("answer");
		expect(session.messages.filter((m) => m.role === "assistant")).toHaveLength(2);
	});

	it("kimi-cli#1640: setSessionName mid-stream, then the run aborted: the name stays, and the next turn is answered", async () => {
		await namedMidRun("abort");
	});
});
