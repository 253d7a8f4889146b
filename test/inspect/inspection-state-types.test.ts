/**
 * The inspection streams' state changes carry `from` / `to` typed as the inspected machine's state
 * paths (was: `string`): `session.inspect` → PromptOperationStatePath, `runtime.inspect` →
 * RuntimeStatePath, `runtime.inspectSessions` → either, told apart by `machine`. A comparison with a
 * state the machine does not have (`"compacting"`, whose leaf is `"compacting.working"`; `"switching"`)
 * is a type error (`npx tsc --noEmit -p .` fails on an unused @ts-expect-error without the typing).
 * The runtime half keeps the types honest: every `from` / `to` a real prompt and replacement stream
 * is one of the machine's leaf paths.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
	type PromptOperationStatePath,
	promptOperationMachine,
	type RuntimeStatePath,
	runtimeMachine,
} from "../../src/inspect/index.js";
import type { StateChangeEvent } from "../../src/inspect/lifecycle-inspector.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime, RuntimeSessionsInspectionEvent } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { loggingFactory, runtimePerTest, startRuntime } from "../runtime/helpers.js";

type SessionObserverEvent = Parameters<Parameters<AgentSession["inspect"]>[0]>[0];
type RuntimeObserverEvent = Parameters<Parameters<AgentSessionRuntime["inspect"]>[0]>[0];

interface Node {
	key: string;
	states: Record<string, Node>;
}
function leafPaths(node: Node, prefix = ""): string[] {
	const children = Object.values(node.states);
	if (children.length === 0) return [prefix];
	return children.flatMap((child) => leafPaths(child, prefix ? `${prefix}.${child.key}` : child.key));
}

describe("typed from/to of inspection state changes", () => {
	it("session.inspect: PromptOperationStatePath; runtime.inspect: RuntimeStatePath (type level)", () => {
		expectTypeOf<Extract<SessionObserverEvent, { kind: "state" }>>().toEqualTypeOf<
			StateChangeEvent<PromptOperationStatePath>
		>();
		expectTypeOf<Extract<SessionObserverEvent, { kind: "state" }>["to"]>().toEqualTypeOf<PromptOperationStatePath>();
		expectTypeOf<
			Extract<SessionObserverEvent, { kind: "state" }>["from"]
		>().toEqualTypeOf<PromptOperationStatePath | null>();
		expectTypeOf<Extract<RuntimeObserverEvent, { kind: "state" }>["to"]>().toEqualTypeOf<RuntimeStatePath>();
		// Untyped observers (a trace recorder's) are still accepted.
		expectTypeOf<(event: StateChangeEvent | { kind: "event" }) => void>().toBeFunction();

		const onSession = (e: SessionObserverEvent) => {
			if (e.kind !== "state") return false;
			// @ts-expect-error not a state path of the prompt-operation machine: its leaf is "compacting.working"
			if (e.to === "compacting") return true;
			// @ts-expect-error a runtime state is not a session state
			if (e.from === "beforeSwitch") return true;
			return e.to === "compacting.working" || e.from === "idle";
		};
		const onRuntime = (e: RuntimeObserverEvent) => {
			if (e.kind !== "state") return false;
			// @ts-expect-error not a state of the runtime machine
			if (e.to === "switching") return true;
			return e.to === "beforeSwitch" || e.from === "active";
		};
		const onBoth = (e: RuntimeSessionsInspectionEvent) => {
			if (e.kind !== "state") return false;
			if (e.machine === "runtime") {
				// @ts-expect-error a session state is not a runtime state
				if (e.to === "running.working") return true;
				return e.to === "disposing";
			}
			return e.to === "running.working";
		};
		expect([onSession, onRuntime, onBoth].every((f) => typeof f === "function")).toBe(true);
	});

	const perTest = runtimePerTest();

	it("every from/to streamed by a real prompt and replacement is one of the machine's leaf paths", async () => {
		const ws = perTest.workspace();
		const faux = createFauxProvider();
		const r = await perTest.runtime(startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha));
		const seen: RuntimeSessionsInspectionEvent[] = [];
		const subscription = r.inspectSessions((e) => seen.push(e));
		faux.setResponses([fauxAssistantMessage("one")]);
		await r.session.prompt("hi");
		await r.newSession();
		faux.setResponses([fauxAssistantMessage("two")]);
		await r.session.prompt("again");
		subscription.unsubscribe();

		const states = { runtime: leafPaths(runtimeMachine.root), promptOperation: leafPaths(promptOperationMachine.root) };
		const changes = seen.filter((e) => e.kind === "state");
		expect(new Set(seen.map((e) => e.machine))).toEqual(new Set(["runtime", "promptOperation"]));
		for (const change of changes) {
			expect(states[change.machine]).toContain(change.to);
			if (change.from !== null) expect(states[change.machine]).toContain(change.from);
		}
		const runtimeTargets = changes.filter((e) => e.machine === "runtime").map((e) => e.to);
		expect(runtimeTargets).toContain("beforeSwitch");
		expect(changes.filter((e) => e.machine === "promptOperation").map((e) => e.to)).toContain("running.working");
	});
});
