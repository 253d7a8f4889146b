/**
 * Test harness: live actors of the machines with controllable fake actors (fromPromise fakes that
 * wait until the test resolves or rejects them) and a SimulatedClock. No real timers anywhere.
 */
import {
	type AnyStateMachine,
	createActor,
	fromPromise,
	type InspectionEvent,
	SimulatedClock,
	type Snapshot,
} from "xstate";
import {
	type PromptOperationEmitted,
	type PromptOperationInput,
	promptOperationMachine,
	type RunOutcome,
} from "../../machines/prompt-operation.machine.js";
import { type RuntimeEmitted, type RuntimeMachineInput, runtimeMachine } from "../../machines/runtime.machine.js";
import { type ReloadEmitted, type ReloadMachineInput, reloadMachine } from "../../machines/runtime-reload.machine.js";

/** Lets every pending promise reaction run (fake actor results reach the machine synchronously after). */
export function flush(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** One started invocation of a fake actor. */
export interface Invocation {
	/** Actor id (`run`, `compaction`, `busyPreflight.r2`, …). */
	id: string;
	src: string;
	input: unknown;
	settled: boolean;
	resolve(output: unknown): void;
	reject(error: unknown): void;
}

/** Fake implementations for every actor name; each invocation waits for the test. */
export class FakeActors {
	readonly invocations: Invocation[] = [];

	/**
	 * Records a started invocation of the fake `src`; the promise returned settles when the test
	 * resolves or rejects it.
	 */
	invoke(src: string, id: string, input: unknown): Promise<unknown> {
		return new Promise((resolve, reject) => {
			const invocation: Invocation = {
				id,
				src,
				input,
				settled: false,
				resolve: (output) => {
					invocation.settled = true;
					resolve(output);
				},
				reject: (error) => {
					invocation.settled = true;
					reject(error);
				},
			};
			this.invocations.push(invocation);
		});
	}

	/**
	 * Records a request the machine emitted (`run_requested`, …) as an invocation of `src`; resolving
	 * or rejecting it sends the machine's answer event.
	 */
	request(src: string, input: unknown, answer: { done(output: unknown): void; failed(error: unknown): void }): void {
		const invocation: Invocation = {
			id: src,
			src,
			input,
			settled: false,
			resolve: (output) => {
				invocation.settled = true;
				answer.done(output);
			},
			reject: (error) => {
				invocation.settled = true;
				answer.failed(error);
			},
		};
		this.invocations.push(invocation);
	}

	/** The newest unsettled invocation with this actor id (or src). */
	pending(idOrSrc: string): Invocation | undefined {
		for (let i = this.invocations.length - 1; i >= 0; i--) {
			const invocation = this.invocations[i];
			if (invocation && !invocation.settled && (invocation.id === idOrSrc || invocation.src === idOrSrc)) {
				return invocation;
			}
		}
		return undefined;
	}

	/** Resolves the pending invocation of `idOrSrc`; throws when there is none (a test bug). */
	resolve(idOrSrc: string, output?: unknown): Invocation {
		const invocation = this.pending(idOrSrc);
		if (!invocation) throw new Error(`no pending invocation of ${idOrSrc}`);
		invocation.resolve(output);
		return invocation;
	}

	reject(idOrSrc: string, error: unknown): Invocation {
		const invocation = this.pending(idOrSrc);
		if (!invocation) throw new Error(`no pending invocation of ${idOrSrc}`);
		invocation.reject(error);
		return invocation;
	}

	count(src: string): number {
		return this.invocations.filter((invocation) => invocation.src === src).length;
	}

	inputs(src: string): unknown[] {
		return this.invocations.filter((invocation) => invocation.src === src).map((invocation) => invocation.input);
	}
}

export const PROMPT_ACTORS = ["busyPreflight", "compact", "navigateTree"] as const;

/** The prompt-operation machine's requests: emitted type → fake src and answer event prefix. */
export const PROMPT_REQUESTS: Record<string, readonly [src: string, answer: string]> = {
	preflight_requested: ["preflight", "PREFLIGHT"],
	run_requested: ["run", "RUN"],
	before_settle_requested: ["beforeSettle", "BEFORE_SETTLE"],
	settle_requested: ["settle", "SETTLE"],
};

export const RUNTIME_ACTORS = [
	"checkBeforeSwitch",
	"openTarget",
	"createSession",
	"settleCurrent",
	"shutdownCurrent",
	"invalidateCurrent",
	"disposeCurrent",
	"rebindSession",
	"runWithSession",
	"rollBack",
] as const;

/** A live actor plus its fakes, clock, emitted events and raw inspection events. */
export interface Harness<TEmitted> {
	actor: ReturnType<typeof createActor<AnyStateMachine>>;
	fakes: FakeActors;
	clock: SimulatedClock;
	emitted: TEmitted[];
	inspection: InspectionEvent[];
	/** Current state as a dotted path. */
	state(): string;
	send(event: { type: string; [key: string]: unknown }): Promise<void>;
	resolve(idOrSrc: string, output?: unknown): Promise<Invocation>;
	reject(idOrSrc: string, error: unknown): Promise<Invocation>;
	advance(ms: number): Promise<void>;
	emittedOf<T extends string>(type: T): Extract<TEmitted, { type: T }>[];
}

/** The fakes of each live actor system (a harness's actor and the children it invokes share one). */
const fakesOfSystem = new WeakMap<object, FakeActors>();
const providedMachines = new Map<AnyStateMachine, Map<string, AnyStateMachine>>();

/**
 * `machine` with every named actor replaced by a fake that records its invocation in the FakeActors
 * of the harness whose actor system runs it. Provided once per machine and names, not per harness:
 * `provide()` builds a new machine whose state nodes and transitions are set up again on first use,
 * which was most of the CPU of replaying thousands of short paths (prompt-operation.model.test.ts).
 */
function withFakes(machine: AnyStateMachine, actorNames: readonly string[]): AnyStateMachine {
	const byNames = providedMachines.get(machine) ?? new Map<string, AnyStateMachine>();
	providedMachines.set(machine, byNames);
	const key = actorNames.join(",");
	let provided = byNames.get(key);
	if (!provided) {
		const actors = Object.fromEntries(
			actorNames.map((src) => [
				src,
				fromPromise<unknown, unknown>(({ input, self, system }) => {
					const fakes = fakesOfSystem.get(system);
					if (!fakes) throw new Error(`fake ${src} invoked outside a harness`);
					return fakes.invoke(src, self.id, input);
				}),
			]),
		);
		provided = machine.provide({ actors } as never) as AnyStateMachine;
		byNames.set(key, provided);
	}
	return provided;
}

function createHarness<TEmitted extends { type: string }>(
	machine: AnyStateMachine,
	actorNames: readonly string[],
	input: unknown,
	requests: Record<string, readonly [string, string]> = {},
): Harness<TEmitted> {
	const fakes = new FakeActors();
	const clock = new SimulatedClock();
	const emitted: TEmitted[] = [];
	const inspection: InspectionEvent[] = [];
	const actor = createActor(withFakes(machine, actorNames), {
		clock,
		input,
		inspect: (event) => inspection.push(event),
	});
	fakesOfSystem.set(actor.system, fakes);
	// Requests become fake invocations (below); `emitted` keeps the notifications.
	actor.on("*", (event) => {
		if (!(event.type in requests)) emitted.push(event as unknown as TEmitted);
	});
	for (const [type, [src, answer]] of Object.entries(requests)) {
		actor.on(type, (event) =>
			// Answers arrive a microtask later, as a promise-based implementation's would.
			fakes.request(src, (event as unknown as { input: unknown }).input, {
				done: (output) => queueMicrotask(() => actor.send({ type: `${answer}_DONE`, output } as never)),
				failed: (error) => queueMicrotask(() => actor.send({ type: `${answer}_FAILED`, error } as never)),
			}),
		);
	}
	actor.start();
	return {
		actor,
		fakes,
		clock,
		emitted,
		inspection,
		state: () => pathOf((actor.getSnapshot() as Snapshot<unknown> & { value: unknown }).value),
		async send(event) {
			actor.send(event as never);
			await flush();
		},
		async resolve(idOrSrc, output) {
			const invocation = fakes.resolve(idOrSrc, output);
			await flush();
			return invocation;
		},
		async reject(idOrSrc, error) {
			const invocation = fakes.reject(idOrSrc, error);
			await flush();
			return invocation;
		},
		async advance(ms) {
			clock.increment(ms);
			await flush();
		},
		emittedOf: (type) => emitted.filter((event) => event.type === type) as never,
	};
}

export function pathOf(value: unknown): string {
	if (typeof value === "string") return value;
	if (value && typeof value === "object") {
		return Object.entries(value as Record<string, unknown>)
			.map(([key, child]) => {
				const rest = pathOf(child);
				return rest ? `${key}.${rest}` : key;
			})
			.join(",");
	}
	return "";
}

/** A started prompt-operation actor with fakes for its three actors and its four requests. */
export function promptHarness(input: PromptOperationInput = {}): Harness<PromptOperationEmitted> {
	return createHarness<PromptOperationEmitted>(promptOperationMachine, PROMPT_ACTORS, input, PROMPT_REQUESTS);
}

/** A started runtime actor with fakes for all nine actors. */
export function runtimeHarness(): Harness<RuntimeEmitted> {
	return createHarness<RuntimeEmitted>(runtimeMachine, RUNTIME_ACTORS, undefined);
}

/** A started runtime actor with its own bound on session_shutdown handlers. */
export function runtimeHarnessWith(input: RuntimeMachineInput): Harness<RuntimeEmitted> {
	return createHarness<RuntimeEmitted>(runtimeMachine, RUNTIME_ACTORS, input);
}

/** A started reload actor with fakes for its two steps. */
export function reloadHarness(input: ReloadMachineInput = { shutdownTimeoutMs: 10_000 }): Harness<ReloadEmitted> {
	return createHarness<ReloadEmitted>(
		reloadMachine,
		["shutdownExtensions", "loadExtensions", "bindExtensions", "startExtensions"],
		input,
	);
}

/** A run outcome with sensible defaults (a plain successful answer). */
export function outcome(overrides: Partial<RunOutcome> = {}): RunOutcome {
	return {
		stopReason: "stop",
		errorClass: "none",
		overThreshold: false,
		hasQueuedMessages: false,
		aborted: false,
		...overrides,
	};
}

export const retryable = (errorMessage = "503 Service Unavailable", extra: Partial<RunOutcome> = {}) =>
	outcome({ stopReason: "error", errorClass: "retryable", errorMessage, ...extra });
export const overflowError = (errorMessage = "prompt is too long: 213462 tokens > 200000 maximum") =>
	outcome({ stopReason: "error", errorClass: "overflow", errorMessage });
export const lengthOverflow = () => outcome({ stopReason: "length", errorClass: "length_overflow" });
export const fatal = (errorMessage = "invalid_api_key") =>
	outcome({ stopReason: "error", errorClass: "fatal", errorMessage });

/** Sends a PROMPT and lets the preflight start an operation. */
export async function startOperation(h: Harness<PromptOperationEmitted>, requestId = "r1", runPayload?: unknown) {
	await h.send({ type: "PROMPT", request: { requestId, payload: { text: `prompt ${requestId}` } } });
	await h.resolve(
		"preflight",
		runPayload === undefined ? { disposition: "started" } : { disposition: "started", runPayload },
	);
}
