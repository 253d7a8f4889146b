/**
 * A host's broken inspection callback is skipped but never silent: an observer of
 * `session.inspect` / `runtime.inspectSessions`, or its `onEnd`, that throws or rejects is reported
 * as a process warning (a SettleError with code LISTENER, its error as `cause`), once per callback;
 * the session settles, the other observers get every event and their `onEnd`, and nothing becomes
 * an captured.unhandled rejection. Through the public API: real sessions and a real runtime on disk.
 */

import { afterEach, describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { SettleError } from "../../src/errors.js";
import {
	createLifecycleInspector,
	inspectActor,
	type LifecycleInspectionEvent,
} from "../../src/inspect/lifecycle-inspector.js";
import { type InspectorServer, serveInspector } from "../../src/inspect/live-server.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { assertUsable, createWorkspace, loggingFactory, startRuntime, type Workspace } from "../runtime/helpers.js";
import { captureProcessWarnings } from "../runtime/process-warnings.js";
import { openStream } from "./live-helpers.js";
import { sampleMachine } from "./sample-machine.js";

let h: Harness | undefined;
let ws: Workspace | undefined;
let runtime: AgentSessionRuntime | undefined;
let inspector: InspectorServer | undefined;
const captured = captureProcessWarnings();

afterEach(async () => {
	await inspector?.close();
	await runtime?.dispose();
	h?.cleanup();
	ws?.cleanup();
	inspector = undefined;
	runtime = undefined;
	h = undefined;
	ws = undefined;
});

const states = (events: readonly LifecycleInspectionEvent[]) =>
	events.flatMap((e) => (e.kind === "state" ? [e.to] : []));

describe("inspection callbacks that fail", () => {
	it("session.inspect: a throwing onEnd is one LISTENER warning; the others get every event and their onEnd", async () => {
		h = await createHarness();
		const broken = new Error("onEnd bug");
		const seenByBroken: LifecycleInspectionEvent[] = [];
		const seenByOther: LifecycleInspectionEvent[] = [];
		const ends: string[] = [];
		h.session.inspect((e) => seenByBroken.push(e), {
			onEnd: () => {
				ends.push("broken");
				throw broken;
			},
		});
		h.session.inspect((e) => seenByOther.push(e), { onEnd: () => ends.push("other") });
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.session.prompt("hello");
		expect(h.eventsOfType("agent_settled")).toHaveLength(1);

		h.session.dispose();
		expect(ends).toEqual(["broken", "other"]);
		const [warning] = await captured.until(1);
		expect(warning).toBeInstanceOf(SettleError);
		const { sessionId, cwd } = h.session;
		expect(warning).toMatchObject({
			code: "LISTENER",
			cause: broken,
			details: { source: "session.inspect onEnd", sessionId, cwd },
		});
		expect(warning!.message).toBe(
			`Session ${sessionId} (cwd ${cwd}): a session.inspect onEnd listener failed: onEnd bug. It was skipped (the session goes on); fix the listener. Further failures of this listener are not reported.`,
		);
		expect(states(seenByOther)).toEqual(states(seenByBroken));
		expect(states(seenByOther).at(-1)).toBe("idle");
		await captured.drained();
		expect(captured.warnings).toHaveLength(1);
		expect(captured.unhandled).toEqual([]);
	});

	it("session.inspect: an observer throwing on every event is reported once; the prompts settle and the others see all", async () => {
		h = await createHarness();
		let calls = 0;
		const seen: LifecycleInspectionEvent[] = [];
		h.session.inspect(() => {
			calls++;
			throw new TypeError("cannot read 'to' of undefined");
		});
		h.session.inspect((e) => seen.push(e));
		h.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await h.session.prompt("one");
		await h.session.prompt("two");
		expect(h.eventsOfType("agent_settled")).toHaveLength(2);
		expect(calls).toBe(seen.length);
		expect(states(seen).filter((s) => s === "idle")).toHaveLength(3); // the current state, then once per prompt
		const [warning] = await captured.until(1);
		expect(warning).toMatchObject({
			code: "LISTENER",
			details: { source: "session.inspect", sessionId: h.session.sessionId, cwd: h.session.cwd },
			message: expect.stringContaining("a session.inspect listener failed: cannot read 'to' of undefined."),
		});
		await captured.drained();
		expect(captured.warnings).toHaveLength(1);
		expect(captured.unhandled).toEqual([]);
	});

	it("session.inspect: an async onEnd's rejection is reported, not an captured.unhandled rejection", async () => {
		h = await createHarness();
		const rejected = new Error("flushing the trace failed");
		h.session.inspect(() => {}, {
			onEnd: async () => {
				throw rejected;
			},
		});
		h.session.dispose();
		const [warning] = await captured.until(1);
		expect(warning).toMatchObject({ code: "LISTENER", cause: rejected, details: { source: "session.inspect onEnd" } });
		await captured.drained();
		expect(captured.warnings).toHaveLength(1);
		expect(captured.unhandled).toEqual([]);
	});

	it("runtime.inspectSessions: a throwing onEnd is reported under its own name; the live inspector still ends its page", async () => {
		ws = createWorkspace();
		const faux = createFauxProvider();
		runtime = await startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha);
		const broken = new Error("runtime onEnd bug");
		const seen: string[] = [];
		runtime.inspectSessions((e) => seen.push(e.machine), {
			onEnd: () => {
				throw broken;
			},
		});
		inspector = await serveInspector(runtime);
		const page = await openStream(inspector.url);
		await assertUsable(runtime.session, faux);
		await runtime.newSession();
		await assertUsable(runtime.session, faux);
		expect(new Set(seen)).toEqual(new Set(["runtime", "promptOperation"]));

		await runtime.dispose();
		await page.ended;
		expect(page.frames.at(-1)).toEqual({ event: "end", data: '{"reason":"disposed","target":"runtime"}' });
		const [warning] = await captured.until(1);
		expect(warning).toMatchObject({
			code: "LISTENER",
			cause: broken,
			details: { source: "runtime.inspectSessions onEnd" },
		});
		await captured.drained();
		expect(captured.warnings).toHaveLength(1);
		expect(captured.unhandled).toEqual([]);
	});

	it("a details option that throws: one LISTENER warning, every state change still goes out (with no details)", async () => {
		const failing = new Error("user details bug");
		const actor = createActor(sampleMachine).start();
		const states: { to: string; details: unknown }[] = [];
		let calls = 0;
		inspectActor(
			actor,
			(e) => {
				if (e.kind === "state") states.push({ to: e.to, details: e.details });
			},
			{
				details: () => {
					calls++;
					throw failing;
				},
			},
		);
		actor.send({ type: "GO" });
		expect(states).toEqual([
			{ to: "off", details: {} },
			{ to: "on.warming", details: {} },
		]);
		expect(calls).toBe(2);
		const [warning] = await captured.until(1);
		expect(warning).toMatchObject({ code: "LISTENER", cause: failing, details: { source: "inspectActor details" } });
		expect(warning?.message).toMatch(/^An inspectActor details listener failed: user details bug\./);
		await captured.drained();
		expect(captured.warnings).toHaveLength(1);
		actor.stop();
	});

	it("your own machines: inspectActor and createLifecycleInspector observers are reported by their own names", async () => {
		const failing = new Error("user observer bug");
		const viaOption = createActor(sampleMachine, {
			inspect: createLifecycleInspector(() => {
				throw failing;
			}),
		}).start();
		const actor = createActor(sampleMachine).start();
		const seen: string[] = [];
		inspectActor(actor, async () => {
			throw failing;
		});
		inspectActor(actor, (e) => {
			if (e.kind === "state") seen.push(e.to);
		});
		actor.send({ type: "GO" });
		viaOption.send({ type: "GO" });
		expect(seen).toEqual(["off", "on.warming"]);
		expect(actor.getSnapshot().status).toBe("active");
		expect(viaOption.getSnapshot().value).toEqual({ on: "warming" });
		const found = await captured.until(2);
		expect(found.map((w) => w.details?.source).sort()).toEqual(["createLifecycleInspector", "inspectActor"]);
		expect(found.every((w) => w.code === "LISTENER" && w.cause === failing)).toBe(true);
		await captured.drained();
		expect(captured.warnings).toHaveLength(2);
		expect(captured.unhandled).toEqual([]);
		actor.stop();
		viaOption.stop();
	});
});
