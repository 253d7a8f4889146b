/**
 * Input sent to a session its runtime has begun to replace (newSession / switchSession / fork still
 * pending): refused at once with BUSY saying what to do — not taken and ended later with
 * SESSION_CLOSED. If the replacement is cancelled (session_before_switch / session_before_fork) or
 * fails, the old session takes input again; nothing queued before the replacement is lost; and the
 * old session's extensions may still send to it (pi runs those sends on it).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { isReplacementRefusal } from "../../src/runtime/errors.js";
import type { AgentSessionRuntime, ForkResult } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SESSION_BEING_REPLACED, SESSION_REPLACED } from "../../src/session/texts.js";
import { rejection } from "../rejection.js";
import {
	assertUsable,
	loggingFactory,
	type RecordingFactory,
	startRuntime,
	userEntryId,
	writeClosedSession,
} from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let log: string[];
let rec: RecordingFactory;

/** Holds `session_before_switch` / `session_before_fork` until released, then cancels or not. */
interface Gate {
	entered: Promise<void>;
	release(cancel: boolean): void;
	/** Runs inside the handler, on the old session's extension API (before it waits). */
	during?: (pi: ExtensionAPI) => void;
}

let gate: Gate | undefined;

function newGate(): Gate {
	let entered!: () => void;
	let release!: (cancel: boolean) => void;
	const enteredPromise = new Promise<void>((resolve) => {
		entered = resolve;
	});
	const released = new Promise<boolean>((resolve) => {
		release = resolve;
	});
	const g: Gate = { entered: enteredPromise, release };
	(g as Gate & { wait(): Promise<boolean>; enter(): void }).wait = () => released;
	(g as Gate & { enter(): void }).enter = entered;
	return g;
}

/** An extension that parks the before-switch/fork events on {@link gate} (when one is set). */
function gatingExtension(pi: ExtensionAPI): void {
	const park = async () => {
		const g = gate as (Gate & { wait(): Promise<boolean>; enter(): void }) | undefined;
		if (!g) return undefined;
		g.during?.(pi);
		g.enter();
		return { cancel: await g.wait() };
	};
	pi.on("session_before_switch", park);
	pi.on("session_before_fork", park);
}

/** Every input call on `session` is refused with BUSY and the "being replaced" text, starting nothing. */
async function expectInputRefused(session: AgentSession): Promise<void> {
	const calls: (() => Promise<unknown>)[] = [
		() => session.prompt("during the switch"),
		() => session.steer("steer during the switch"),
		() => session.followUp("follow up during the switch"),
		() => session.sendUserMessage("user message during the switch"),
		() => session.sendCustomMessage({ customType: "note", content: "during", display: true }, { triggerTurn: true }),
	];
	for (const call of calls) {
		const error = await rejection(call());
		expect(error.code).toBe("BUSY");
		expect(error.message).toBe(SESSION_BEING_REPLACED);
		expect(isReplacementRefusal(error)).toBe(true);
	}
	expect(session.getSteeringMessages()).not.toContain("steer during the switch");
	expect(session.getFollowUpMessages()).not.toContain("follow up during the switch");
}

beforeEach(() => {
	log = [];
	gate = undefined;
	rec = loggingFactory(t.faux, log, [gatingExtension]);
});

// Before useRuntimeWorkspace's teardown disposes the runtime: a held handler would hold the dispose.
afterEach(() => {
	gate?.release(true);
});

async function start(): Promise<AgentSessionRuntime> {
	t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
	t.faux.setResponses([fauxAssistantMessage("first answer")]);
	await t.runtime.session.prompt("first");
	return t.runtime;
}

describe("input on a session being replaced", () => {
	it("is refused at once, from the first step of newSession, switchSession and fork; the new session takes it", async () => {
		const r = await start();
		const other = await writeClosedSession(rec, t.ws, t.faux, log, t.ws.beta, "beta work");
		const replacements: [string, () => Promise<ForkResult>][] = [
			["new", () => r.newSession()],
			["switch", () => r.switchSession(other)],
			["fork", () => r.fork(userEntryId(r.session, "beta work"))],
		];
		for (const [kind, replace] of replacements) {
			const old = r.session;
			gate = newGate();
			const replacing = replace();
			// Refused right away, still inside session_before_switch/fork: nothing was torn down yet.
			await expectInputRefused(old);
			await gate.entered;
			expect(r.lifecycle, kind).toBe("beforeSwitch");
			await expectInputRefused(old);
			expect(old.isDisposed).toBe(false);
			gate.release(false);
			gate = undefined;
			expect(await replacing).toMatchObject({ cancelled: false });
			// The replaced session is closed; the current one answers.
			const closed = await rejection(old.prompt("late"));
			expect([closed.code, closed.message]).toEqual(["SESSION_CLOSED", SESSION_REPLACED]);
			expect(r.session).not.toBe(old);
			expect(await assertUsable(r.session, t.faux, `after ${kind}`)).toBe(`yes: after ${kind}`);
		}
	});

	it("after an extension cancels (session_before_switch / session_before_fork) the old session takes input again", async () => {
		const r = await start();
		for (const replace of [() => r.newSession(), () => r.fork(userEntryId(r.session, "first"))]) {
			const old = r.session;
			gate = newGate();
			const replacing = replace();
			await gate.entered;
			await expectInputRefused(old);
			gate.release(true);
			gate = undefined;
			expect(await replacing).toMatchObject({ cancelled: true });
			expect(r.session).toBe(old);
			expect(await assertUsable(old, t.faux, "still mine")).toBe("yes: still mine");
			await old.steer("a steer after the cancel");
			expect(old.getSteeringMessages()).toEqual(["a steer after the cancel"]);
			old.clearQueue();
		}
	});

	it("after a replacement fails before its commit point the old session takes input again", async () => {
		const r = await start();
		const old = r.session;
		rec.failNext(new Error("no services for you"));
		await expect(r.newSession()).rejects.toThrow("no services for you");
		expect(r.session).toBe(old);
		expect(await assertUsable(old, t.faux, "after the failure")).toBe("yes: after the failure");
	});

	it("nothing queued before the replacement is lost: delivered after a cancel, still listed after a commit", async () => {
		const r = await start();
		const old = r.session;
		await old.steer("queued steer");
		await old.followUp("queued follow-up");
		gate = newGate();
		const cancelled = r.newSession();
		await gate.entered;
		await expectInputRefused(old);
		expect(old.getSteeringMessages()).toEqual(["queued steer"]);
		expect(old.getFollowUpMessages()).toEqual(["queued follow-up"]);
		gate.release(true);
		gate = undefined;
		expect(await cancelled).toEqual({ cancelled: true });
		// Cancelled: the next run delivers both.
		t.faux.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await old.prompt("go on");
		const userTexts = old.messages
			.filter((m) => m.role === "user")
			.map((m) =>
				typeof m.content === "string" ? m.content : m.content.map((c) => ("text" in c ? c.text : "")).join(""),
			);
		expect(userTexts.slice(-3)).toEqual(expect.arrayContaining(["queued steer", "queued follow-up", "go on"]));
		expect(old.getSteeringMessages()).toEqual([]);
		expect(old.getFollowUpMessages()).toEqual([]);

		// Committed: what was queued stays listed on the replaced session (to send again on the new one).
		await old.steer("steer before commit");
		await old.followUp("follow-up before commit");
		gate = newGate();
		const committed = r.newSession();
		await gate.entered;
		await expectInputRefused(old);
		gate.release(false);
		gate = undefined;
		await committed;
		expect(old.getSteeringMessages()).toEqual(["steer before commit"]);
		expect(old.getFollowUpMessages()).toEqual(["follow-up before commit"]);
	});

	it("the old session's extensions may still send to it during session_before_switch (as in pi)", async () => {
		const r = await start();
		const old = r.session;
		gate = newGate();
		gate.during = (pi) => pi.sendUserMessage("sent by the extension while it decides");
		t.faux.setResponses([fauxAssistantMessage("extension answer")]);
		const replacing = r.newSession();
		await gate.entered;
		await expectInputRefused(old);
		gate.release(true);
		gate = undefined;
		expect(await replacing).toEqual({ cancelled: true });
		await old.waitForExtensionRuns();
		expect(old.messages.map((m) => m.role === "user" && m.content)).toContainEqual(
			expect.arrayContaining([expect.objectContaining({ text: "sent by the extension while it decides" })]),
		);
	});

	it("runtime.waitForReplacement() resolves at once when none runs, and after the replacement otherwise", async () => {
		const r = await start();
		await r.waitForReplacement();
		const old = r.session;
		gate = newGate();
		const replacing = r.newSession();
		await gate.entered;
		let waited = false;
		const waiting = r.waitForReplacement().then(() => {
			waited = true;
		});
		await Promise.resolve();
		expect(waited).toBe(false);
		gate.release(false);
		gate = undefined;
		await replacing;
		await waiting;
		expect(r.lifecycle).toBe("active");
		expect(r.session).not.toBe(old);
	});
});
