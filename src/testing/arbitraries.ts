/**
 * fast-check arbitraries for random model scripts, for property tests of anything that drives a
 * model through the faux provider.
 */
import fc from "fast-check";
import { type FauxResponseFactory, fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "../llm/faux.js";
import type { AssistantMessage } from "../llm/types.js";

/** What a scripted reply does to a run. */
export type FauxScriptStepKind =
	| "text"
	| "thinking"
	| "toolCalls"
	| "retryableError"
	| "fatalError"
	| "overflowError"
	| "length";

/**
 * One scripted reply and what it is meant to be. fast-check prints a generated step in one line,
 * e.g. `toolCalls(write {"path":"a.txt"})` or `retryableError("503 Service Unavailable")`, so a
 * counterexample reads as the script it is (not as whole messages with usage and timestamps).
 */
export interface FauxScriptStep {
	kind: FauxScriptStepKind;
	message: AssistantMessage;
}

/** Error texts pi's auto-retry treats as transient (overloaded, rate limit, 5xx, network). */
export const RETRYABLE_ERROR_MESSAGES: readonly string[] = [
	"overloaded_error",
	"rate limit exceeded",
	"429 Too Many Requests",
	"503 Service Unavailable",
	"fetch failed",
	"socket hang up",
];

/** Error texts that are neither retryable nor a context overflow. */
export const FATAL_ERROR_MESSAGES: readonly string[] = [
	"invalid_request_error: messages: roles must alternate",
	"authentication_error: invalid x-api-key",
	"permission_error: model not allowed for this key",
];

/** Error texts providers send when the prompt exceeds the context window. */
export const OVERFLOW_ERROR_MESSAGES: readonly string[] = [
	"prompt is too long: 213462 tokens > 200000 maximum",
	"Your input exceeds the context window of this model",
];

/** Options of {@link fauxScriptArbitrary} and {@link fauxStepArbitrary}. */
export interface FauxScriptOptions {
	/**
	 * Tool names calls are drawn from. Pass your tools' names: the default, `["echo"]`, is a tool no
	 * session has unless you give it one (`customTools`), so its calls end as "Tool echo not found".
	 * Include unknown names on purpose to test lookups.
	 */
	toolNames?: readonly string[];
	/** Arguments of generated tool calls (default: a small flat record). */
	toolArguments?: fc.Arbitrary<Record<string, unknown>>;
	/** Kinds to draw from (default: text, thinking, toolCalls, retryableError, fatalError). */
	kinds?: readonly FauxScriptStepKind[];
	/** Most tool calls in one reply (default 3). */
	maxToolCalls?: number;
	/** Script length bounds (default 1–6). */
	minLength?: number;
	maxLength?: number;
}

/** The one-line form fast-check prints for a step (see {@link FauxScriptStep}). */
function describeStep(step: FauxScriptStep): string {
	const parts = step.message.content.map((block) => {
		if (block.type === "toolCall") return `${block.name} ${JSON.stringify(block.arguments)}`;
		if (block.type === "thinking") return `thinking ${JSON.stringify(block.thinking)}`;
		return JSON.stringify(block.text);
	});
	const error = step.message.errorMessage;
	return `${step.kind}(${error === undefined ? parts.join(", ") : JSON.stringify(error)})`;
}

/** A step fast-check prints with {@link describeStep}; the method is hidden from equality and spreads. */
function printable(kind: FauxScriptStepKind, message: AssistantMessage): FauxScriptStep {
	const step: FauxScriptStep = { kind, message };
	Object.defineProperty(step, fc.toStringMethod, { value: () => describeStep(step), enumerable: false });
	return step;
}

const DEFAULT_KINDS: readonly FauxScriptStepKind[] = ["text", "thinking", "toolCalls", "retryableError", "fatalError"];

const shortText = fc.string({ maxLength: 40 });

function defaultToolArguments(): fc.Arbitrary<Record<string, unknown>> {
	return fc.dictionary(
		fc.string({ minLength: 1, maxLength: 6 }),
		fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean()),
		{ maxKeys: 3 },
	);
}

/**
 * One scripted reply of a random kind. Tool-call ids are placeholders; {@link fauxScriptArbitrary}
 * makes them unique per script.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 *
 * fc.assert(fc.property(fauxStepArbitrary({ kinds: ["text"] }), (step) => step.message.stopReason === "stop"));
 * ```
 */
export function fauxStepArbitrary(options: FauxScriptOptions = {}): fc.Arbitrary<FauxScriptStep> {
	const toolNames = options.toolNames ?? ["echo"];
	const toolArguments = options.toolArguments ?? defaultToolArguments();
	const kinds = options.kinds ?? DEFAULT_KINDS;
	const byKind: Record<FauxScriptStepKind, fc.Arbitrary<FauxScriptStep>> = {
		text: shortText.map((text) => printable("text", fauxAssistantMessage(text))),
		thinking: fc
			.tuple(shortText, shortText)
			.map(([thinking, text]) => printable("thinking", fauxAssistantMessage([fauxThinking(thinking), fauxText(text)]))),
		toolCalls: fc
			.tuple(
				fc.option(shortText, { nil: undefined }),
				fc.array(fc.tuple(fc.constantFrom(...toolNames), toolArguments), {
					minLength: 1,
					maxLength: options.maxToolCalls ?? 3,
				}),
			)
			.map(([text, calls]) =>
				printable(
					"toolCalls",
					fauxAssistantMessage(
						[
							...(text === undefined ? [] : [fauxText(text)]),
							...calls.map(([name, args], index) => fauxToolCall(name, args, { id: `call-${index}` })),
						],
						{ stopReason: "toolUse" },
					),
				),
			),
		retryableError: fc
			.constantFrom(...RETRYABLE_ERROR_MESSAGES)
			.map((errorMessage) =>
				printable("retryableError", fauxAssistantMessage("", { stopReason: "error", errorMessage })),
			),
		fatalError: fc
			.constantFrom(...FATAL_ERROR_MESSAGES)
			.map((errorMessage) => printable("fatalError", fauxAssistantMessage("", { stopReason: "error", errorMessage }))),
		overflowError: fc
			.constantFrom(...OVERFLOW_ERROR_MESSAGES)
			.map((errorMessage) =>
				printable("overflowError", fauxAssistantMessage("", { stopReason: "error", errorMessage })),
			),
		length: shortText.map((text) => printable("length", fauxAssistantMessage(text, { stopReason: "length" }))),
	};
	return fc.oneof(...kinds.map((kind) => byKind[kind]));
}

/**
 * A random model script: a list of replies with unique tool-call ids (`s<step>-c<index>`).
 * Queue it with `faux.setResponses(script.map((step) => step.message))`.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 *
 * await fc.assert(
 *   fc.asyncProperty(fauxScriptArbitrary({ toolNames: ["echo", "missing"] }), async (script) => {
 *     faux.setResponses(script.map((step) => step.message));
 *     await agent.prompt("go");
 *   }),
 *   { numRuns: 50 },
 * );
 * ```
 */
export function fauxScriptArbitrary(options: FauxScriptOptions = {}): fc.Arbitrary<FauxScriptStep[]> {
	return fc
		.array(fauxStepArbitrary(options), { minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 6 })
		.map((steps) =>
			steps.map((step, stepIndex) =>
				printable(step.kind, {
					...step.message,
					content: step.message.content.map((block) =>
						block.type === "toolCall" ? { ...block, id: `s${stepIndex}-${block.id.replace("call-", "c")}` } : block,
					),
				}),
			),
		);
}

/**
 * The faux steps of `script`, each waiting for `scheduler` before it streams: queue them with
 * `h.setResponses(…)` and every model reply becomes a task fast-check orders among your own
 * (steer, abort, a tool's await), so a property explores the interleavings and its seed replays
 * one. Each task is labelled `reply <n> <step>` in the scheduler's report, e.g.
 * `reply 0 toolCalls(write {"path":"a.txt"})`.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 *
 * await fc.assert(
 *   fc.asyncProperty(fauxScriptArbitrary(), fc.scheduler(), async (script, s) => {
 *     const h = await createHarness({ simulatedClock: true });
 *     h.setResponses(scheduledFauxResponses(s, script));
 *     void s.schedule(Promise.resolve(), "steer").then(() => h.session.steer("use tabs"));
 *     await s.waitFor(h.settle(h.session.prompt("go")));
 *     h.cleanup();
 *   }),
 *   { numRuns: 10 },
 * );
 * ```
 */
export function scheduledFauxResponses(
	scheduler: fc.Scheduler,
	script: readonly FauxScriptStep[],
): FauxResponseFactory[] {
	return script.map(
		(step, index) => () =>
			scheduler.schedule(Promise.resolve(), `reply ${index} ${describeStep(step)}`).then(() => step.message),
	);
}
