/**
 * The state changes' `details` are typed per machine (was: a map of JsonValue): `session.inspect` →
 * PromptOperationDetails, `runtime.inspect` → RuntimeDetails, `runtime.inspectSessions` → either,
 * told apart by `machine`. A key the machine never gives, or a value it cannot have (`runCause:
 * "timer"`), is a type error (`npx tsc --noEmit -p .` fails on an unused @ts-expect-error without the
 * typing). A custom `details` option replaces the built-in ones, so those streams stay
 * LifecycleDetails; code written for LifecycleDetails (a trace recorder's observer) still fits.
 * The runtime half keeps the types honest: every key and value a real retry, compaction-free run and
 * replacement streams is one the types name.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { RunCause } from "../../machines/prompt-operation.machine.js";
import {
	createTraceRecorder,
	type LifecycleDetails,
	type PromptOperationDetails,
	type RuntimeDetails,
} from "../../src/inspect/index.js";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime, RuntimeSessionsInspectionEvent } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { loggingFactory, runtimePerTest, startRuntime } from "../runtime/helpers.js";

/** Every key of each details type, at runtime; the `satisfies` checks below fail when the type gains or loses one. */
const PROMPT_OPERATION_KEYS = [
	"operationId",
	"runIndex",
	"runCause",
	"retryAttempt",
	"maxRetries",
	"retryDelayMs",
	"compactionReason",
	"willRetry",
	"abortRequested",
	"overflowRecoveryAttempted",
	"deferredPrompts",
] as const satisfies readonly (keyof PromptOperationDetails)[];
const RUNTIME_KEYS = ["requestId", "kind", "teardownReason"] as const satisfies readonly (keyof RuntimeDetails)[];
const RUN_CAUSES = ["prompt", "retry", "compaction", "queued", "boundary"] as const satisfies readonly RunCause[];

describe("typed details of inspection state changes", () => {
	it("per machine, by default; LifecycleDetails with a custom details option (type level)", () => {
		expectTypeOf<
			Exclude<keyof PromptOperationDetails, (typeof PROMPT_OPERATION_KEYS)[number]>
		>().toEqualTypeOf<never>();
		expectTypeOf<Exclude<keyof RuntimeDetails, (typeof RUNTIME_KEYS)[number]>>().toEqualTypeOf<never>();
		expectTypeOf<Exclude<RunCause, (typeof RUN_CAUSES)[number]>>().toEqualTypeOf<never>();
		// Both fit where LifecycleDetails is expected (saving, formatting, a JSON column).
		expectTypeOf<PromptOperationDetails>().toMatchTypeOf<LifecycleDetails>();
		expectTypeOf<RuntimeDetails>().toMatchTypeOf<LifecycleDetails>();

		const onSession = (session: AgentSession) =>
			session.inspect((e) => {
				if (e.kind !== "state") return;
				expectTypeOf(e.details).toEqualTypeOf<PromptOperationDetails>();
				expectTypeOf(e.details.runCause).toEqualTypeOf<RunCause | undefined>();
				// @ts-expect-error not a run cause of the prompt-operation machine
				if (e.details.runCause === "timer") return;
				// @ts-expect-error not a detail of the prompt-operation machine
				if (e.details.teardownReason) return;
				if (e.details.compactionReason === "overflow" && e.details.willRetry) return;
			});
		const onRuntime = (runtime: AgentSessionRuntime) =>
			runtime.inspect((e) => {
				if (e.kind !== "state") return;
				expectTypeOf(e.details).toEqualTypeOf<RuntimeDetails>();
				// @ts-expect-error not a replacement kind ("new", "switch", "fork", "import")
				if (e.details.kind === "clone") return;
				if (e.details.teardownReason === "quit") return;
			});
		const onBoth = (runtime: AgentSessionRuntime) =>
			runtime.inspectSessions((e) => {
				if (e.kind !== "state") return;
				if (e.machine === "runtime") {
					expectTypeOf(e.details).toEqualTypeOf<RuntimeDetails>();
					// @ts-expect-error a session detail is not a runtime detail
					if (e.details.runIndex) return;
					return;
				}
				expectTypeOf(e.details).toEqualTypeOf<PromptOperationDetails>();
			});
		const custom = (session: AgentSession, runtime: AgentSessionRuntime) => {
			session.inspect(
				(e) => {
					if (e.kind === "state") expectTypeOf(e.details).toEqualTypeOf<LifecycleDetails>();
				},
				{ details: () => ({ mine: 1 }) },
			);
			runtime.inspectSessions(
				(e) => {
					if (e.kind === "state") expectTypeOf(e.details).toEqualTypeOf<LifecycleDetails>();
				},
				{ details: () => ({ mine: 1 }) },
			);
			// A general observer (a trace recorder's) still fits every stream.
			const general: (event: LifecycleInspectionEvent) => void = createTraceRecorder().observer;
			session.inspect(general);
			runtime.inspect(general);
		};
		expect([onSession, onRuntime, onBoth, custom].every((f) => typeof f === "function")).toBe(true);
	});

	const perTest = runtimePerTest();

	it("every key and value a real retried prompt and a replacement stream is one the types name", async () => {
		const ws = perTest.workspace();
		const faux = createFauxProvider();
		const r = await perTest.runtime(startRuntime(loggingFactory(faux, []).factory, ws, ws.alpha));
		r.session.settingsManager.applyOverrides({ retry: { baseDelayMs: 1 } });
		const seen: RuntimeSessionsInspectionEvent[] = [];
		const subscription = r.inspectSessions((e) => seen.push(e));
		faux.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
			fauxAssistantMessage("one"),
		]);
		await r.session.prompt("hi");
		await r.newSession();
		subscription.unsubscribe();

		const changes = seen.filter((e) => e.kind === "state");
		const sessionDetails = changes.filter((e) => e.machine === "promptOperation").map((e) => e.details);
		const runtimeDetails = changes.filter((e) => e.machine === "runtime").map((e) => e.details);
		const keys = (details: object[]) => new Set(details.flatMap((d) => Object.keys(d)));
		expect(
			[...keys(sessionDetails)].filter((key) => !(PROMPT_OPERATION_KEYS as readonly string[]).includes(key)),
		).toEqual([]);
		expect([...keys(runtimeDetails)].filter((key) => !(RUNTIME_KEYS as readonly string[]).includes(key))).toEqual([]);
		const causes = new Set(sessionDetails.map((d) => d.runCause).filter((cause) => cause !== undefined));
		expect(causes).toEqual(new Set(["prompt", "retry"]));
		expect(runtimeDetails.map((d) => d.kind)).toContain("new");
		for (const d of sessionDetails) {
			for (const key of [
				"operationId",
				"runIndex",
				"retryAttempt",
				"maxRetries",
				"retryDelayMs",
				"deferredPrompts",
			] as const) {
				if (d[key] !== undefined) expect(typeof d[key]).toBe("number");
			}
			for (const key of ["abortRequested", "overflowRecoveryAttempted", "willRetry"] as const) {
				if (d[key] !== undefined) expect(typeof d[key]).toBe("boolean");
			}
		}
	});
});
