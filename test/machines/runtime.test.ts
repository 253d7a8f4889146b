import { describe, expect, it } from "vitest";
import { isReplacing, type RuntimeSnapshot, shutdownReasonFor } from "../../machines/runtime.machine.js";
import { runtimeHarness, runtimeHarnessWith } from "./harness.js";

type H = ReturnType<typeof runtimeHarness>;
const snap = (h: H) => h.actor.getSnapshot() as RuntimeSnapshot;
const created = { handle: "session B" };
const target = { sessionFile: "/sessions/b.jsonl", cwd: "/projects/b", handle: "manager B" };

/** Resolves every step of a replacement from the current state up to (not including) `stop`. */
async function runUntil(h: H, stop: string, overrides: Record<string, unknown> = {}) {
	const steps: [string, string, unknown][] = [
		["beforeSwitch", "checkBeforeSwitch", { cancelled: false }],
		["opening", "openTarget", target],
		["creating", "createSession", created],
		["settlingCurrent", "settleCurrent", undefined],
		["shuttingDown", "shutdownCurrent", undefined],
		["invalidating", "invalidateCurrent", undefined],
		["disposing", "disposeCurrent", undefined],
		["rebinding", "rebindSession", undefined],
		["withSession", "runWithSession", undefined],
	];
	const first = steps.findIndex(([state]) => state === h.state());
	for (const [state, actor, output] of steps.slice(Math.max(0, first))) {
		if (state === stop) return;
		expect(h.state()).toBe(state);
		await h.resolve(actor, state in overrides ? overrides[state] : output);
	}
}

describe("runtime machine: replacement", () => {
	it("creates the target session first, then tears the old one down, then rebinds and runs withSession", async () => {
		const h = runtimeHarness();
		const withSession = () => undefined;
		await h.send({
			type: "SWITCH",
			requestId: "q1",
			sessionFile: "/sessions/b.jsonl",
			cwdOverride: "/elsewhere",
			withSession,
		});
		expect(isReplacing(snap(h))).toBe(true);
		expect(snap(h).can({ type: "NEW", requestId: "q2" })).toBe(false);
		await runUntil(h, "end");
		expect(h.state()).toBe("active");
		expect(h.fakes.invocations.map((i) => i.src)).toEqual([
			"checkBeforeSwitch",
			"openTarget",
			"createSession",
			"settleCurrent",
			"shutdownCurrent",
			"invalidateCurrent",
			"disposeCurrent",
			"rebindSession",
			"runWithSession",
		]);
		const request = {
			kind: "switch",
			requestId: "q1",
			sessionFile: "/sessions/b.jsonl",
			cwdOverride: "/elsewhere",
			withSession,
		};
		expect(h.fakes.inputs("openTarget")).toEqual([{ request }]);
		expect(h.fakes.inputs("createSession")).toEqual([{ request, target }]);
		for (const teardown of ["shutdownCurrent", "invalidateCurrent", "disposeCurrent"]) {
			expect(h.fakes.inputs(teardown)).toEqual([{ reason: "resume", targetSessionFile: "/sessions/b.jsonl" }]);
		}
		expect(h.fakes.inputs("rebindSession")).toEqual([{ request, created }]);
		expect(h.emitted.map((e) => e.type)).toEqual(["replacement_started", "session_committed", "replacement_completed"]);
		expect(h.emittedOf("session_committed")).toEqual([{ type: "session_committed", requestId: "q1", created }]);
		expect(snap(h).context.completedReplacements).toBe(1);
		expect(snap(h).context.request).toBeUndefined();
		expect(isReplacing(snap(h))).toBe(false);
	});

	it("maps request kinds to pi's session_shutdown reasons", () => {
		expect(["new", "switch", "fork", "import"].map((kind) => shutdownReasonFor(kind as never))).toEqual([
			"new",
			"resume",
			"fork",
			"resume",
		]);
	});

	it("a fork defaults to position before and reports the selected text", async () => {
		const h = runtimeHarness();
		await h.send({ type: "FORK", requestId: "f1", entryId: "e7", withSession: () => undefined });
		expect(h.fakes.inputs("checkBeforeSwitch")[0]).toMatchObject({
			request: { kind: "fork", entryId: "e7", position: "before" },
		});
		await runUntil(h, "end", { opening: { ...target, selectedText: "fix the parser" } });
		expect(h.fakes.inputs("shutdownCurrent")[0]).toMatchObject({ reason: "fork" });
		expect(h.emittedOf("replacement_completed")).toEqual([
			{ type: "replacement_completed", requestId: "f1", selectedText: "fix the parser" },
		]);
	});

	it("skips withSession when the request has none (import, or new without a callback)", async () => {
		const h = runtimeHarness();
		await h.send({ type: "IMPORT", requestId: "i1", inputPath: "/tmp/x.jsonl" });
		await runUntil(h, "withSession");
		expect(h.state()).toBe("active");
		expect(h.fakes.count("runWithSession")).toBe(0);
		await h.send({ type: "NEW", requestId: "n1", parentSession: "/sessions/a.jsonl" });
		await runUntil(h, "withSession", { opening: { cwd: "/projects/a", handle: "m" } });
		expect(h.state()).toBe("active");
		expect(h.fakes.inputs("shutdownCurrent")[1]).toEqual({ reason: "new" });
		expect(snap(h).context.completedReplacements).toBe(2);
	});

	it("an extension cancel changes nothing", async () => {
		const h = runtimeHarness();
		await h.send({ type: "NEW", requestId: "n1" });
		await h.resolve("checkBeforeSwitch", { cancelled: true });
		expect(h.state()).toBe("active");
		expect(h.fakes.invocations.map((i) => i.src)).toEqual(["checkBeforeSwitch"]);
		expect(h.emitted.map((e) => e.type)).toEqual(["replacement_started", "replacement_cancelled"]);
	});

	it.each([
		["beforeSwitch", "checkBeforeSwitch"],
		["opening", "openTarget"],
		["creating", "createSession"],
	] as const)("a failure in %s leaves the old session untouched (no teardown at all)", async (state, actor) => {
		const h = runtimeHarness();
		const error = new Error(`${actor} failed`);
		await h.send({ type: "SWITCH", requestId: "q1", sessionFile: "/sessions/b.jsonl" });
		await runUntil(h, state);
		await h.reject(actor, error);
		expect(h.state()).toBe("active");
		expect(h.fakes.count("shutdownCurrent")).toBe(0);
		expect(h.fakes.count("disposeCurrent")).toBe(0);
		expect(h.emittedOf("replacement_failed")).toEqual([
			{ type: "replacement_failed", requestId: "q1", phase: state, error, rolledBack: false },
		]);
		expect(h.emittedOf("session_committed")).toEqual([]);
		expect(snap(h).context.request).toBeUndefined();
	});

	it.each([
		["shuttingDown", "shutdownCurrent"],
		["invalidating", "invalidateCurrent"],
	] as const)(
		"a failure in %s rolls back: the prepared session is dropped, the old one is never disposed",
		async (state, actor) => {
			const h = runtimeHarness();
			const error = new Error("disk full");
			await h.send({ type: "SWITCH", requestId: "q1", sessionFile: "/sessions/b.jsonl" });
			await runUntil(h, state);
			await h.reject(actor, error);
			expect(h.state()).toBe("rollingBack");
			expect(h.fakes.inputs("rollBack")).toEqual([
				{
					request: { kind: "switch", requestId: "q1", sessionFile: "/sessions/b.jsonl" },
					created,
					failedPhase: state,
					error,
					shutdownAnnounced: true,
				},
			]);
			await h.resolve("rollBack");
			expect(h.state()).toBe("active");
			expect(h.fakes.count("disposeCurrent")).toBe(0);
			expect(h.emittedOf("replacement_failed")).toEqual([
				{ type: "replacement_failed", requestId: "q1", phase: state, error, rolledBack: true },
			]);
			expect(h.emittedOf("session_committed")).toEqual([]);
		},
	);

	it("a failing rollback still returns to active and reports the original failure", async () => {
		const h = runtimeHarness();
		await h.send({ type: "NEW", requestId: "n1" });
		await runUntil(h, "shuttingDown");
		await h.reject("shutdownCurrent", new Error("boom"));
		await h.reject("rollBack", new Error("rollback failed too"));
		expect(h.state()).toBe("active");
		expect(h.emittedOf("replacement_failed")[0]).toMatchObject({ phase: "shuttingDown", rolledBack: true });
	});

	it("after the commit point failures are reported but the replacement completes", async () => {
		const h = runtimeHarness();
		await h.send({ type: "NEW", requestId: "n1", withSession: () => undefined });
		await runUntil(h, "disposing");
		await h.reject("disposeCurrent", new Error("dispose threw"));
		expect(h.state()).toBe("rebinding");
		expect(h.emittedOf("teardown_error")).toEqual([
			{ type: "teardown_error", phase: "disposing", error: new Error("dispose threw") },
		]);
		expect(h.emittedOf("session_committed")).toHaveLength(1);
		await h.resolve("rebindSession");
		await h.reject("runWithSession", new Error("caller callback threw"));
		expect(h.state()).toBe("active");
		expect(h.emittedOf("replacement_completed")).toEqual([
			{ type: "replacement_completed", requestId: "n1", error: new Error("caller callback threw") },
		]);
	});

	it("a failing rebind completes with the error and skips withSession", async () => {
		const h = runtimeHarness();
		await h.send({ type: "NEW", requestId: "n1", withSession: () => undefined });
		await runUntil(h, "rebinding");
		await h.reject("rebindSession", new Error("host rebind failed"));
		expect(h.state()).toBe("active");
		expect(h.fakes.count("runWithSession")).toBe(0);
		expect(h.emittedOf("replacement_completed")[0]?.error).toEqual(new Error("host rebind failed"));
	});
});

describe("runtime machine: dispose", () => {
	it("settles the run, shuts down, invalidates and disposes with reason quit, then is final", async () => {
		const h = runtimeHarness();
		await h.send({ type: "DISPOSE" });
		expect(h.state()).toBe("settlingCurrent");
		await h.resolve("settleCurrent");
		expect(h.state()).toBe("shuttingDown");
		await h.resolve("shutdownCurrent");
		await h.resolve("invalidateCurrent");
		await h.resolve("disposeCurrent");
		expect(h.state()).toBe("disposed");
		expect(h.actor.getSnapshot().status).toBe("done");
		expect(h.fakes.inputs("disposeCurrent")).toEqual([{ reason: "quit" }]);
		expect(h.emittedOf("runtime_disposed")).toHaveLength(1);
		expect(h.fakes.count("createSession")).toBe(0);
	});

	it("failures on the quit path never stop it", async () => {
		const h = runtimeHarness();
		await h.send({ type: "DISPOSE" });
		await h.reject("settleCurrent", new Error("0"));
		await h.reject("shutdownCurrent", new Error("a"));
		await h.reject("invalidateCurrent", new Error("b"));
		await h.reject("disposeCurrent", new Error("c"));
		expect(h.state()).toBe("disposed");
		expect(h.emittedOf("teardown_error").map((e) => e.phase)).toEqual([
			"settlingCurrent",
			"shuttingDown",
			"invalidating",
			"disposing",
		]);
		expect(h.fakes.count("rollBack")).toBe(0);
	});

	it("a DISPOSE during a replacement runs right after it", async () => {
		const h = runtimeHarness();
		await h.send({ type: "NEW", requestId: "n1" });
		await h.resolve("checkBeforeSwitch", { cancelled: false });
		await h.send({ type: "DISPOSE" });
		expect(h.state()).toBe("opening");
		await h.resolve("openTarget", target);
		await runUntil(h, "withSession");
		expect(h.state()).toBe("settlingCurrent");
		expect(h.emittedOf("replacement_completed")).toHaveLength(1);
		await h.resolve("settleCurrent");
		await h.resolve("shutdownCurrent");
		await h.resolve("invalidateCurrent");
		await h.resolve("disposeCurrent");
		expect(h.state()).toBe("disposed");
		expect(h.fakes.inputs("shutdownCurrent")).toEqual([
			{ reason: "new", targetSessionFile: "/sessions/b.jsonl" },
			{ reason: "quit" },
		]);
	});
});

describe("runtime machine: bounded wait for session_shutdown (pi#9811)", () => {
	it("a shutdown still running at the bound is reported once and the replacement goes on to the commit", async () => {
		const h = runtimeHarness();
		await h.send({ type: "NEW", requestId: "n1" });
		await runUntil(h, "shuttingDown");
		expect(h.state()).toBe("shuttingDown");
		await h.advance(9_999);
		expect(h.state()).toBe("shuttingDown");
		await h.advance(1);
		expect(h.emittedOf("shutdown_timed_out")).toEqual([
			{ type: "shutdown_timed_out", reason: "new", timeoutMs: 10_000 },
		]);
		expect(h.state()).toBe("invalidating");
		await runUntil(h, "withSession");
		expect(h.state()).toBe("active");
		expect(h.emittedOf("replacement_completed")).toEqual([{ type: "replacement_completed", requestId: "n1" }]);
	});

	it("a shutdown that returns in time leaves no timer: nothing is reported however long the next one waits", async () => {
		const h = runtimeHarnessWith({ shutdownTimeoutMs: 50 });
		await h.send({ type: "NEW", requestId: "n1" });
		await runUntil(h, "shuttingDown");
		await h.advance(49);
		await runUntil(h, "withSession");
		await h.advance(60_000);
		expect(h.emittedOf("shutdown_timed_out")).toEqual([]);
		expect(h.state()).toBe("active");
	});

	it("dispose is bounded the same way (reason quit); Infinity waits as long as the handlers take", async () => {
		const bounded = runtimeHarnessWith({ shutdownTimeoutMs: 2_000 });
		await bounded.send({ type: "DISPOSE" });
		await bounded.resolve("settleCurrent");
		await bounded.advance(2_000);
		expect(bounded.emittedOf("shutdown_timed_out")).toEqual([
			{ type: "shutdown_timed_out", reason: "quit", timeoutMs: 2_000 },
		]);
		expect(bounded.state()).toBe("invalidating");

		const unbounded = runtimeHarnessWith({ shutdownTimeoutMs: Number.POSITIVE_INFINITY });
		await unbounded.send({ type: "DISPOSE" });
		await unbounded.resolve("settleCurrent");
		await unbounded.advance(30 * 24 * 3_600_000);
		expect(unbounded.state()).toBe("shuttingDown");
		expect(unbounded.emittedOf("shutdown_timed_out")).toEqual([]);
	});

	it("after a replacement the new session's own bound times its teardown", async () => {
		const h = runtimeHarnessWith({ shutdownTimeoutMs: 10_000 });
		await h.send({ type: "NEW", requestId: "n1" });
		await runUntil(h, "withSession", { creating: { handle: "session B", shutdownTimeoutMs: 500 } });
		await h.send({ type: "DISPOSE" });
		await h.resolve("settleCurrent");
		await h.advance(500);
		expect(h.emittedOf("shutdown_timed_out")).toEqual([{ type: "shutdown_timed_out", reason: "quit", timeoutMs: 500 }]);
	});
});

describe("runtime machine: the old run settles before session_shutdown (pi-desktop#46), bounded on its own", () => {
	it("a run that does not settle within settleTimeoutMs is reported and session_shutdown starts with its own full bound", async () => {
		const h = runtimeHarnessWith({ settleTimeoutMs: 2_000, shutdownTimeoutMs: 10_000 });
		await h.send({ type: "SWITCH", requestId: "s1", sessionFile: "/sessions/b.jsonl" });
		await runUntil(h, "settlingCurrent");
		expect(h.state()).toBe("settlingCurrent");
		expect(h.fakes.count("shutdownCurrent")).toBe(0);
		await h.advance(1_999);
		expect(h.state()).toBe("settlingCurrent");
		await h.advance(1);
		expect(h.emittedOf("settle_timed_out")).toEqual([{ type: "settle_timed_out", reason: "resume", timeoutMs: 2_000 }]);
		expect(h.state()).toBe("shuttingDown");
		// The handlers get all of shutdownTimeoutMs: the run's grace did not eat into it.
		await h.advance(9_999);
		expect(h.state()).toBe("shuttingDown");
		expect(h.emittedOf("shutdown_timed_out")).toEqual([]);
		await h.advance(1);
		expect(h.emittedOf("shutdown_timed_out")).toEqual([
			{ type: "shutdown_timed_out", reason: "resume", timeoutMs: 10_000 },
		]);
		await runUntil(h, "withSession");
		expect(h.emittedOf("replacement_completed")).toEqual([{ type: "replacement_completed", requestId: "s1" }]);
	});

	it("a run that settles in time: no report, and session_shutdown follows at once", async () => {
		const h = runtimeHarness();
		await h.send({ type: "DISPOSE" });
		await h.advance(1_999);
		await h.resolve("settleCurrent");
		expect(h.state()).toBe("shuttingDown");
		await h.advance(60_000);
		expect(h.emittedOf("settle_timed_out")).toEqual([]);
		expect(h.fakes.inputs("settleCurrent")).toEqual([{ reason: "quit" }]);
	});

	it("settleTimeoutMs Infinity waits for the run as long as it takes", async () => {
		const h = runtimeHarnessWith({ settleTimeoutMs: Number.POSITIVE_INFINITY });
		await h.send({ type: "DISPOSE" });
		await h.advance(30 * 24 * 3_600_000);
		expect(h.state()).toBe("settlingCurrent");
		expect(h.emittedOf("settle_timed_out")).toEqual([]);
	});
});
