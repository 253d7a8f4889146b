/**
 * `session.lifecycle` and `runtime.lifecycle` are typed as the machines' own state paths (was:
 * `string`), so a host's comparison with a state that does not exist — e.g. `"compacting"`, whose
 * leaf is `"compacting.working"` — is a type error instead of a check that is never true. The type
 * check (`npx tsc --noEmit -p .`) is what fails without it; the runtime half shows the union is
 * exactly the machine's leaf states.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
// The names hosts import (settle/inspect).
import {
	type PromptOperationStatePath,
	promptOperationMachine,
	type RuntimeStatePath,
	runtimeMachine,
} from "../../src/inspect/index.js";
import { createTraceRecorder } from "../../src/inspect/trace.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { createHarness } from "../../src/testing/harness.js";

/** Every leaf state of a machine as a dotted path. */
interface Node {
	key: string;
	states: Record<string, Node>;
}
function leafPaths(node: Node, prefix = ""): string[] {
	const children = Object.values(node.states);
	if (children.length === 0) return [prefix];
	return children.flatMap((child) => leafPaths(child, prefix ? `${prefix}.${child.key}` : child.key));
}

const PROMPT_OPERATION_STATES = [
	"beforeSettle.aborting",
	"beforeSettle.awaitingInput",
	"beforeSettle.working",
	"branchSummary.aborting",
	"branchSummary.working",
	"compacting.aborting",
	"compacting.working",
	"idle",
	"postRun",
	"preflight",
	"retrying",
	"running.aborting",
	"running.compacting.aborting",
	"running.compacting.working",
	"running.working",
	"settling",
] as const satisfies readonly PromptOperationStatePath[];

describe("lifecycle types", () => {
	it("session.lifecycle is the prompt-operation machine's state paths, exactly", () => {
		expectTypeOf<AgentSession["lifecycle"]>().toEqualTypeOf<PromptOperationStatePath>();
		expectTypeOf<(typeof PROMPT_OPERATION_STATES)[number]>().toEqualTypeOf<PromptOperationStatePath>();
		expect(leafPaths(promptOperationMachine.root).sort()).toEqual([...PROMPT_OPERATION_STATES]);
		// @ts-expect-error not a state path: compaction's leaf is "compacting.working"
		const wrong: AgentSession["lifecycle"] = "compacting";
		expect(wrong).toBe("compacting");
	});

	it("runtime.lifecycle is the runtime machine's states", () => {
		expectTypeOf<AgentSessionRuntime["lifecycle"]>().toEqualTypeOf<RuntimeStatePath>();
		const states = [
			"active",
			"beforeSwitch",
			"creating",
			"disposed",
			"disposing",
			"invalidating",
			"opening",
			"rebinding",
			"rollingBack",
			"settlingCurrent",
			"shuttingDown",
			"withSession",
		] as const satisfies readonly RuntimeStatePath[];
		expectTypeOf<(typeof states)[number]>().toEqualTypeOf<RuntimeStatePath>();
		expect(leafPaths(runtimeMachine.root).sort()).toEqual([...states]);
		// @ts-expect-error not a state of the runtime machine
		const wrong: AgentSessionRuntime["lifecycle"] = "switching";
		expect(wrong).toBe("switching");
	});

	it("the state events of session.inspect / runtime.inspect / inspectSessions name the machines' states", async () => {
		type Observed<T extends (observer: never) => unknown> = Parameters<Parameters<T>[0]>[0];
		type SessionState = Extract<Observed<AgentSession["inspect"]>, { kind: "state" }>;
		type RuntimeState = Extract<Observed<AgentSessionRuntime["inspect"]>, { kind: "state" }>;
		type AnyState = Extract<Observed<AgentSessionRuntime["inspectSessions"]>, { kind: "state" }>;
		expectTypeOf<SessionState["to"]>().toEqualTypeOf<PromptOperationStatePath>();
		expectTypeOf<SessionState["from"]>().toEqualTypeOf<PromptOperationStatePath | null>();
		expectTypeOf<RuntimeState["to"]>().toEqualTypeOf<RuntimeStatePath>();
		expectTypeOf<AnyState["to"]>().toEqualTypeOf<PromptOperationStatePath | RuntimeStatePath>();
		// A recorder's observer (any machine) still fits every one of them.
		expectTypeOf(createTraceRecorder().observer).toExtend<Parameters<AgentSession["inspect"]>[0]>();
		const h = await createHarness();
		const states: PromptOperationStatePath[] = [];
		const subscription = h.session.inspect((event) => {
			if (event.kind === "state") states.push(event.to); // no cast: `to` is a state path
			// @ts-expect-error "retrying" has no substates: never a state event's `to`
			if (event.kind === "state" && event.to === "retrying.working") states.length = 0;
		});
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.session.prompt("hello");
		subscription.unsubscribe();
		h.cleanup();
		expect(states).toEqual([
			"idle",
			"preflight",
			"running.working",
			"postRun",
			"beforeSettle.working",
			"settling",
			"idle",
		]);
	});
});
