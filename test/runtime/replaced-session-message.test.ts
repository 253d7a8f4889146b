/**
 * A host that kept a reference to `runtime.session` and calls it after the runtime replaced it (or
 * was disposed) gets SESSION_CLOSED saying what happened and what to use instead, not the generic
 * "create a new session". A session disposed by its own host keeps the generic text.
 */
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SESSION_DISPOSED, SESSION_REPLACED, SESSION_RUNTIME_DISPOSED } from "../../src/session/texts.js";
import { createHarness } from "../../src/testing/index.js";
import { loggingFactory, startRuntime, userEntryId, writeClosedSession } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
const log: string[] = [];

async function closedError(call: () => Promise<unknown> | unknown): Promise<SettleError> {
	let error: unknown;
	try {
		await call();
	} catch (caught) {
		error = caught;
	}
	expect(error).toBeInstanceOf(SettleError);
	expect((error as SettleError).code).toBe("SESSION_CLOSED");
	return error as SettleError;
}

/** Every kind of call on a closed session gives the same text: prompt, steer, compact, reload. */
async function messagesOf(session: AgentSession): Promise<string[]> {
	return [
		(await closedError(() => session.prompt("still there?"))).message,
		(await closedError(() => session.steer("hey"))).message,
		(await closedError(() => session.compact())).message,
		(await closedError(() => session.reload())).message,
	];
}

describe("calls on a session the runtime no longer holds", () => {
	it("after newSession, switchSession and fork: 'replaced by its runtime … use runtime.session'", async () => {
		const rec = loggingFactory(t.faux, log, []);
		const other = await writeClosedSession(rec, t.ws, t.faux, log, t.ws.beta, "beta work");
		const r = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		t.runtime = r;
		t.faux.setResponses([fauxAssistantMessage("answer")]);
		await r.session.prompt("first");

		const replaced: AgentSession[] = [];
		for (const replace of [
			() => r.newSession(),
			() => r.switchSession(other),
			() => r.fork(userEntryId(r.session, "beta work")),
		]) {
			replaced.push(r.session);
			await replace();
		}
		for (const session of replaced) {
			expect(await messagesOf(session)).toEqual(Array(4).fill(SESSION_REPLACED));
		}
		expect(SESSION_REPLACED).toContain("Use runtime.session");
		// The current session works, and a disposed runtime's last session says so.
		t.faux.setResponses([fauxAssistantMessage("still here")]);
		await r.session.prompt("current");
		const last = r.session;
		await r.dispose();
		expect(await messagesOf(last)).toEqual(Array(4).fill(SESSION_RUNTIME_DISPOSED));
	});

	it("a session its host disposed keeps the generic text", async () => {
		const h = await createHarness();
		h.cleanup();
		expect(await messagesOf(h.session)).toEqual(Array(4).fill(SESSION_DISPOSED));
	});
});
