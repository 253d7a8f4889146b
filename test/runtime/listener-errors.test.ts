/**
 * A host's broken listener is skipped but never silent: `runtime.onSessionReplaced` and
 * `session.subscribe` listeners that throw or reject are reported as a process warning (a
 * SettleError with code LISTENER, the listener's error as cause), once per listener; the
 * replacement and the session go on, and nothing becomes an captured.unhandled rejection. Through the
 * public API on real session files.
 */

import { beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { setListenerErrorHandler } from "../../src/listener-errors.js";
import { assertUsable, loggingFactory, type RecordingFactory, startRuntime } from "./helpers.js";
import { captureProcessWarnings } from "./process-warnings.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let rec: RecordingFactory;
const captured = captureProcessWarnings();

beforeEach(() => {
	rec = loggingFactory(t.faux, []);
});

describe("listener errors", () => {
	it("onSessionReplaced: a throwing and a rejecting listener are each reported once; the replacements go on", async () => {
		t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		const r = t.runtime;
		const thrown = new Error("listener bug");
		const rejected = new Error("async listener bug");
		const calls: string[] = [];
		r.onSessionReplaced(() => {
			calls.push("throws");
			throw thrown;
		});
		r.onSessionReplaced(async () => {
			calls.push("rejects");
			throw rejected;
		});
		r.onSessionReplaced(({ reason }) => calls.push(`after ${reason}`));
		expect(await r.newSession()).toEqual({ cancelled: false });
		expect(calls).toEqual(["throws", "rejects", "after new"]);
		const [first, second] = await captured.until(2);
		expect(first).toBeInstanceOf(SettleError);
		// Named by the session the runtime runs now (the replacement).
		const { sessionId } = r.session;
		expect(first).toMatchObject({
			code: "LISTENER",
			cause: thrown,
			details: { source: "runtime.onSessionReplaced", sessionId, cwd: r.cwd },
		});
		expect(first!.message).toBe(
			`Session ${sessionId} (cwd ${r.cwd}): a runtime.onSessionReplaced listener failed: listener bug. It was skipped (the session goes on); fix the listener. Further failures of this listener are not reported.`,
		);
		expect(second).toMatchObject({ code: "LISTENER", cause: rejected });
		expect(r.lifecycle).toBe("active");
		await assertUsable(r.session, t.faux);

		// Again: the listeners are called (and skipped) again, but reported only the first time.
		expect(await r.newSession()).toEqual({ cancelled: false });
		expect(calls).toHaveLength(6);
		await assertUsable(r.session, t.faux);
		expect(captured.warnings).toHaveLength(2);
		expect(captured.unhandled).toEqual([]);
	});

	it("session.subscribe: a listener that throws on every event is reported once; the prompt completes", async () => {
		t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		const session = t.runtime.session;
		let calls = 0;
		const types: string[] = [];
		session.subscribe(() => {
			calls++;
			throw new TypeError("cannot read 'text' of undefined");
		});
		session.subscribe((event) => types.push(event.type));
		await assertUsable(session, t.faux, "hello");
		expect(types).toContain("agent_settled");
		expect(calls).toBe(types.length);
		expect(calls).toBeGreaterThan(1);
		const [warning] = await captured.until(1);
		expect(warning).toMatchObject({
			code: "LISTENER",
			details: { source: "session.subscribe", sessionId: session.sessionId, cwd: session.cwd },
		});
		expect(warning!.message).toContain(
			`Session ${session.sessionId} (cwd ${session.cwd}): a session.subscribe listener failed: cannot read 'text' of undefined.`,
		);
		expect(captured.warnings).toHaveLength(1);
		expect(captured.unhandled).toEqual([]);
	});

	it("setListenerErrorHandler: reports go to the host's handler and none is a process warning; a throwing handler's is", async () => {
		t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		const session = t.runtime.session;
		const routed: SettleError[] = [];
		const restore = setListenerErrorHandler((warning) => routed.push(warning));
		try {
			session.subscribe((event) => {
				if (event.type === "agent_start") throw new Error("logged by the host");
			});
			await assertUsable(session, t.faux, "hello");
			await captured.drained();
			expect(routed).toHaveLength(1);
			expect(routed[0]).toBeInstanceOf(SettleError);
			expect(routed[0]).toMatchObject({
				code: "LISTENER",
				cause: new Error("logged by the host"),
				details: { source: "session.subscribe", sessionId: session.sessionId, cwd: session.cwd },
			});
			expect(captured.warnings).toEqual([]);

			// A handler that throws loses nothing: that report is a process warning after all.
			const restoreRouting = setListenerErrorHandler(() => {
				throw new Error("the logger is down");
			});
			session.subscribe((event) => {
				if (event.type === "agent_start") throw new Error("second listener");
			});
			await assertUsable(session, t.faux, "again");
			const [warning] = await captured.until(1);
			expect(warning!.message).toContain("second listener");
			restoreRouting();
			expect(routed).toHaveLength(1);
		} finally {
			restore();
		}
		// Restored: process warnings again.
		session.subscribe((event) => {
			if (event.type === "agent_start") throw new Error("third listener");
		});
		await assertUsable(session, t.faux, "once more");
		const warnings = await captured.until(2);
		expect(warnings[1]!.message).toContain("third listener");
		expect(routed).toHaveLength(1);
	});

	it("session.subscribe: an async listener's rejection is reported, not an captured.unhandled rejection", async () => {
		t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
		t.runtime.session.subscribe(async (event) => {
			if (event.type === "agent_settled") throw new Error("saving the transcript failed");
		});
		await assertUsable(t.runtime.session, t.faux);
		const [warning] = await captured.until(1);
		expect(warning).toMatchObject({
			code: "LISTENER",
			message: expect.stringContaining("saving the transcript failed"),
		});
		expect(captured.unhandled).toEqual([]);
	});
});
