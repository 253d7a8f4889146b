/**
 * Forks made while the model is still writing its answer, replayed against Settle through an
 * `AgentSessionRuntime` on real session files, the model a hand-driven stream stalled mid-text.
 *
 * opencode#43994: `/fork` while the parent's assistant was still running copied that unfinished
 * assistant into the child; its end never reached the child, which showed the turn as running
 * forever. hermes-webui#5993: "Fork from here" on an earlier, settled message did nothing while
 * an answer streamed. garcon#418: a fork at a message shown on screen but not yet in the saved
 * transcript cut at the wrong message or failed with an opaque "message not found". What the
 * user should see: a fork at an earlier message, or of the whole branch, is made at once while
 * the answer streams; it holds only settled messages (never the half-written answer); the original
 * keeps the partial answer, marked aborted, and the fork answers. A fork at an entry the session
 * does not hold is a typed error saying what to pass, and the running answer is not disturbed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type AgentSessionRuntime, SessionManager } from "../../src/index.js";
import { transcript } from "../cli/interactive.helpers.js";
import { manualDiskRuntime, removeTempDirs, textDelta } from "./disk-harness.js";

let runtime: AgentSessionRuntime | undefined;
afterEach(async () => {
	await runtime?.dispose();
	runtime = undefined;
	removeTempDirs();
});

/** A runtime with one settled turn ("q1" → "a1") and a second answer stalled after "half an ans". */
async function midAnswer() {
	const made = await manualDiskRuntime();
	runtime = made.runtime;
	made.provider.answer("a1");
	await runtime.session.prompt("q1");
	const old = runtime.session;
	const running = old.prompt("q2").catch((error: unknown) => (error as { code?: string }).code);
	const streaming = textDelta(old);
	const request = await made.provider.next();
	request.beginText("half an ans");
	await streaming;
	return { ...made, runtime: made.runtime, old, running, request };
}

function reopened(file: string): string[] {
	const manager = SessionManager.open(file, { readOnly: true });
	const roles = manager.buildSessionContext().messages.map((m) => m.role);
	manager.close();
	return roles.filter((role) => role !== "system");
}

describe("opencode#43994, hermes-webui#5993, garcon#418: a fork made while an answer streams", () => {
	it("opencode#43994: runtime.fork(leaf, at) mid-answer: the fork ends on the question, no half-written answer; the original keeps the partial answer marked aborted; the fork answers", async () => {
		const { runtime: rt, provider, old, running } = await midAnswer();
		const original = old.sessionFile!;
		expect(old.isStreaming).toBe(true);
		expect(await rt.fork(old.sessionManager.getLeafId()!, { position: "at" })).toMatchObject({ cancelled: false });
		expect(await running).toBe("SESSION_CLOSED");
		const fork = rt.session.sessionFile!;
		expect(transcript(fork)).toEqual(["user: q1", "assistant: a1", "user: q2"]);
		expect(reopened(fork)).toEqual(["user", "assistant", "user"]);
		expect(transcript(original)).toEqual(["user: q1", "assistant: a1", "user: q2", "assistant: half an ans [aborted]"]);

		provider.answer("a2 in the fork");
		await rt.session.prompt("go on");
		expect(rt.session.isStreaming).toBe(false);
		expect(transcript(fork).slice(3)).toEqual(["user: go on", "assistant: a2 in the fork"]);
	});

	it("hermes-webui#5993: runtime.fork(earlier settled answer, at) mid-answer is made at once: the fork holds what came before and answers; the original keeps the partial answer", async () => {
		const { runtime: rt, provider, old, running } = await midAnswer();
		const original = old.sessionFile!;
		const a1 = old.sessionManager.getBranch().find((e) => e.type === "message" && e.message.role === "assistant")!;
		expect(await rt.fork(a1.id, { position: "at" })).toMatchObject({ cancelled: false });
		expect(await running).toBe("SESSION_CLOSED");
		expect(transcript(rt.session.sessionFile!)).toEqual(["user: q1", "assistant: a1"]);
		expect(transcript(original).at(-1)).toBe("assistant: half an ans [aborted]");
		provider.answer("another a2");
		await rt.session.prompt("another q2");
		expect(transcript(rt.session.sessionFile!)).toEqual([
			"user: q1",
			"assistant: a1",
			"user: another q2",
			"assistant: another a2",
		]);
	});

	it("garcon#418: a fork at a message the file does not hold (only on screen) mid-answer: a typed error saying what to pass; the answer goes on and is saved whole", async () => {
		const { runtime: rt, provider, old, running, request } = await midAnswer();
		await expect(rt.fork("message-7-on-screen", { position: "at" })).rejects.toMatchObject({
			name: "InvalidForkEntryError",
			code: "INVALID_ARGUMENT",
			message: expect.stringContaining("Pass an id from runtime.session.sessionManager.getEntries()"),
		});
		expect(rt.session).toBe(old);
		expect(old.isStreaming).toBe(true);
		request.finish(provider.reply("half an answer, then the rest"));
		expect(await running).toBeUndefined();
		expect(transcript(old.sessionFile!)).toEqual([
			"user: q1",
			"assistant: a1",
			"user: q2",
			"assistant: half an answer, then the rest",
		]);
	});
});
