/**
 * gsd-2#3971 (also gsd-2#5147): an extension's `session_before_compact` returned `{ cancel: true }`
 * for the compaction that overflow recovery started (GSD's hook did so whenever its auto-mode was
 * active). The bundled pi ended that compaction with `willRetry: false` and returned: no error, no
 * retry, nothing queued went on, and the host waited forever for the unit to end — a "silent
 * session death". What the user should see: the operation ends once, with an error that names the
 * overflow and the cancelled compaction (or, when a follow-up was queued, with that follow-up
 * answered); the session is idle and the next prompt runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import {
	BIG_ANSWER,
	comparable,
	gate,
	overflowReply,
	recoveryLabels,
	reopenedContext,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** A session whose `session_before_compact` handler cancels every compaction while `cancelling()`. */
async function cancellingSession(cancelling: () => boolean, threshold = false): Promise<Harness> {
	return createHarness({
		persistence: "disk",
		...(threshold
			? { ...SMALL_WINDOW, settings: THRESHOLD_SETTINGS }
			: { settings: { compaction: { keepRecentTokens: 1 } } }),
		extensionFactories: [
			(pi: ExtensionAPI) => void pi.on("session_before_compact", () => (cancelling() ? { cancel: true } : undefined)),
		],
	});
}

describe("gsd-2#3971: an extension cancels the overflow recovery's compaction", () => {
	it("gsd-2#3971: overflow, session_before_compact cancels: one agent_settled naming the overflow and the cancel, nothing compacted, idle, the next prompt answered", async () => {
		let cancel = true;
		h = await cancellingSession(() => cancel);
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage("first answer"),
			overflowReply(),
			fauxAssistantMessage("answered after the cancel"),
		]);
		await h.session.prompt("first");
		const from = h.events.length;
		await h.session.prompt("second, which overflows");

		const labels = recoveryLabels(h.events.slice(from));
		expect(labels).toContain("compaction_start(overflow)");
		expect(labels).toContain("compaction_end(overflow,none,aborted=true,willRetry=false)");
		expect(labels.filter((label) => label === "agent_settled")).toHaveLength(1);
		expect(labels.at(-1)).toBe("agent_settled");
		const settled = h.eventsOfType("agent_settled").at(-1)!;
		expect(settled.errorMessage).toMatch(/context is too long for the model .* its compaction was cancelled/);
		expect(summaryRequests).toEqual([]);
		expect(h.session.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.isIdle).toBe(true);

		cancel = false;
		await h.session.prompt("third");
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["first", "third"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});

	it("gsd-2#3971: a follow-up queued during the overflowing request is delivered and answered after the cancel, in the same operation", async () => {
		h = await cancellingSession(() => true);
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage("first answer"),
			() => {
				void h!.session.followUp("next unit: run the tests");
				return overflowReply()();
			},
			fauxAssistantMessage("the tests pass"),
		]);
		await h.session.prompt("first");
		const from = h.events.length;
		await h.session.prompt("second, which overflows");

		const labels = recoveryLabels(h.events.slice(from));
		expect(labels).toContain("compaction_end(overflow,none,aborted=true,willRetry=false)");
		expect(labels.filter((label) => label === "agent_settled")).toHaveLength(1);
		expect(labels.at(-1)).toBe("agent_settled");
		expect(summaryRequests).toEqual([]);
		expect(userTexts(answerRequests.at(-1)!)).toEqual(["first", "next unit: run the tests"]);
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(h.session.isIdle).toBe(true);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
	});
});

/**
 * gsd-2#3165: GSD's hook kept cancelling every compaction after its auto-mode paused (a stale flag);
 * the user saw "Auto-compaction cancelled" again and again and, "depending on timing", the agent
 * redoing work. What the user should see: each cancelled compaction is reported and changes
 * nothing; every prompt is answered once, with the whole history.
 */
describe("gsd-2#3165: a hook that cancels every threshold compaction", () => {
	it("gsd-2#3165: each threshold compaction cancelled: every prompt answered once with the whole history, no run repeated, one agent_settled each, nothing written", async () => {
		h = await cancellingSession(() => true, true);
		const { summaryRequests, answerRequests } = script(h, [
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage(BIG_ANSWER),
			fauxAssistantMessage("third answer"),
			fauxAssistantMessage("fourth answer"),
		]);
		for (const text of ["a", "b", "c", "d"]) await h.session.prompt(text);
		// Each cancelled compaction ends aborted with no result; the prompts run on regardless.
		const labels = recoveryLabels(h.events.slice()).filter((label) => /^compaction_end|^agent_settled/.test(label));
		expect(new Set(labels)).toEqual(
			new Set(["compaction_end(threshold,none,aborted=true,willRetry=false)", "agent_settled"]),
		);
		expect(h.eventsOfType("agent_settled")).toEqual(Array.from({ length: 4 }, () => ({ type: "agent_settled" })));
		// One request per prompt (nothing re-run), each with the whole history.
		expect(answerRequests.map((request) => userTexts(request))).toEqual([
			["a"],
			["a", "b"],
			["a", "b", "c"],
			["a", "b", "c", "d"],
		]);
		expect(h.session.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
		expect(h.session.isIdle).toBe(true);
		expect(reopenedContext(h.session.sessionFile!).map(comparable)).toEqual(h.session.messages.map(comparable));
		expect(summaryRequests).toEqual([]);
	});
});

/**
 * pi#7492: `compact()` threw the same "Compaction cancelled" whoever cancelled — the user (Esc),
 * the session's own abort, or an extension's `session_before_compact` — and `compaction_end` said
 * no more, so a loop of cancelled compactions could not be traced. openclaw#41100: an extension's
 * handler returned `{ cancel: true }` and `/compact` said only "Compaction cancelled", with no hint
 * why. What the user should see: a cancel by an extension names that extension (the error and
 * `compaction_end.cancelledBy`); a cancel by `abort()` stays a plain "Compaction cancelled".
 */
describe("pi#7492, openclaw#41100: who cancelled the compaction", () => {
	const ALLOWS = (pi: ExtensionAPI) => void pi.on("session_before_compact", () => undefined);
	const CANCELS = (pi: ExtensionAPI) => void pi.on("session_before_compact", () => ({ cancel: true }));

	it("pi#7492: compact() cancelled by the second of two extensions rejects ABORTED naming that extension and what to do; compaction_end carries its path; nothing written", async () => {
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [ALLOWS, CANCELS],
		});
		const { summaryRequests } = script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const [, canceller] = h.session.extensionRunner.getExtensionPaths();
		const error = await h.session.compact().then(
			() => undefined,
			(failure: unknown) => failure,
		);
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "ABORTED" });
		expect((error as SettleError).message).toBe(
			`Compaction cancelled by the extension ${canceller}: its session_before_compact handler returned { cancel: true }. Nothing was summarized or written; to compact, change what that handler checks, or run without the extension.`,
		);
		expect(h.eventsOfType("compaction_end")).toEqual([
			{
				type: "compaction_end",
				reason: "manual",
				result: undefined,
				aborted: true,
				willRetry: false,
				cancelledBy: canceller,
			},
		]);
		expect(summaryRequests).toEqual([]);
		expect(h.session.sessionManager.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
	});

	it("pi#7492: a threshold compaction an extension cancels: compaction_end names it; abort() during a handler still ends a plain 'Compaction cancelled' with no cancelledBy", async () => {
		h = await cancellingSession(() => true, true);
		script(h, [fauxAssistantMessage(BIG_ANSWER), fauxAssistantMessage(BIG_ANSWER)]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const [path] = h.session.extensionRunner.getExtensionPaths();
		expect(h.eventsOfType("compaction_end").at(-1)).toMatchObject({
			reason: "threshold",
			aborted: true,
			cancelledBy: path,
		});

		h.cleanup();
		const held = gate();
		h = await createHarness({
			persistence: "disk",
			settings: { compaction: { keepRecentTokens: 1 } },
			extensionFactories: [(pi: ExtensionAPI) => void pi.on("session_before_compact", () => held.promise)],
		});
		script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("a");
		await h.session.prompt("b");
		const compacting = h.session.compact().then(
			() => undefined,
			(failure: unknown) => failure,
		);
		await h.nextEvent("compaction_start");
		await h.session.abort();
		held.release();
		expect(await compacting).toMatchObject({ code: "ABORTED", message: "Compaction cancelled" });
		const end = h.eventsOfType("compaction_end").at(-1);
		expect(end).toMatchObject({ reason: "manual", aborted: true });
		expect(end).not.toHaveProperty("cancelledBy");
	});
});
