/**
 * Randomized differential scenarios for pi 0.73.1 vs Settle: a fast-check generator of bounded
 * scenarios (scripted model replies, user actions while idle and while streaming, simple extension
 * hooks), a runner that plays one scenario on a {@link Peer}, and what it observes.
 *
 * Every reply is served by a step function: a request from the compaction summarizer gets a summary
 * (never in-stream actions, which would wait on pi's event queue from inside event handling), any
 * other request runs the step's in-stream actions first (after draining events, so both peers act
 * at the same point of the event stream), then gets the step's reply.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { contextEdits, eventPayloads, eventSequence, fileMessages, fileShape, normalizeMessages } from "./normalize.js";
import type { Peer, PeerOptions, ReplySpec, SharedExtension, SharedTool, Step } from "./peers.js";

export const OVERFLOW_ERROR = "prompt is too long: 213462 tokens > 200000 maximum";
const RETRYABLE_ERROR = "503 service unavailable";
const FATAL_ERROR = "invalid_api_key";

/** A tool call the model makes. */
export type CallKind =
	| "echo"
	| "echoBadArgs"
	| "fail"
	| "unknown"
	| "halt"
	| "progress"
	| "nudge"
	| "read"
	| "readMissing"
	| "readBadArgs";

export interface ReplyGen {
	thinking: boolean;
	text: boolean;
	calls: CallKind[];
	/** `normal` = stop / toolUse by content. */
	end: "normal" | "length" | "retryable" | "fatal" | "overflow";
}

/** Something done to the session while the model is answering (before the reply is returned). */
export type StreamAction =
	| { kind: "steer" | "followUp" | "promptBare" }
	| { kind: "promptSteer" | "promptFollowUp"; flavor: PromptFlavor }
	| { kind: "userMessage"; deliverAs: "steer" | "followUp" }
	| { kind: "custom"; deliverAs: "steer" | "followUp" | "nextTurn" | undefined; triggerTurn: boolean }
	| { kind: "clearQueue" }
	/** `/note …` through prompt() (runs at once), steer() or followUp() (both reject it). */
	| { kind: "commandPrompt" | "commandSteer" | "commandFollowUp" }
	/** Ends the list: `abort()`, or `compact()` (which aborts the run first). */
	| { kind: "abort" | "compact" };

/** Something done while the session is idle; the runner quiesces after each. */
export type IdleAction =
	| { kind: "prompt"; flavor: PromptFlavor; streamingBehavior: "steer" | "followUp" | undefined }
	| { kind: "followUp" | "steer" | "abort" | "clearQueue" }
	| { kind: "userMessage"; deliverAs: "steer" | "followUp" | undefined }
	| { kind: "custom"; deliverAs: "steer" | "followUp" | "nextTurn" | undefined; triggerTurn: boolean }
	| { kind: "compact"; instructions: boolean }
	/** An extension command (`/note …`): run at once, idle or streaming. */
	| { kind: "command" };

/** A prompt's text: plain, or one the `input` hook transforms (`shout`), handles (`swallow`), or the `context` hook drops (`private`). */
export type PromptFlavor = "plain" | "shout" | "swallow" | "private";
const flavor = fc.constantFrom<PromptFlavor>("plain", "plain", "shout", "swallow", "private");
const FLAVOR_PREFIX: Record<PromptFlavor, string> = {
	plain: "",
	shout: "shout: ",
	swallow: "swallow ",
	private: "private ",
};

/**
 * Extension hooks a scenario may install. Left out: `turn_end` / `agent_end` handlers that queue a
 * message. pi 0.73.1 runs extension handlers on an event queue its loop does not await (behavior
 * C.10), so such a message lands one or more turns later than on Settle (whose bridge is awaited),
 * depending on timing; one queued from `agent_end` is stranded until some later prompt runs (a pi
 * bug), where Settle delivers it in the same operation (behavior C.3 step 7).
 */
export interface HookFlags {
	input: boolean;
	context: boolean;
	/** `tool_call` blocks `fail` and patches `echo`'s text (upper case). */
	toolCallBlock: boolean;
	/** `tool_result` rewrites `echo` and `read` results. */
	toolResult: boolean;
	messageEnd: boolean;
	beforeAgentStart: boolean;
}

export interface Scenario {
	retry: { enabled: boolean; maxRetries: number };
	compaction: boolean;
	steeringMode: "all" | "one-at-a-time";
	followUpMode: "all" | "one-at-a-time";
	hooks: HookFlags;
	/** Aborts from a listener a microtask after `auto_retry_start` (cancels the backoff). */
	abortOnRetry: boolean;
	steps: { reply: ReplyGen; actions: StreamAction[] }[];
	actions: IdleAction[];
}

const callKind = fc.constantFrom<CallKind>(
	"echo",
	"echo",
	"echoBadArgs",
	"fail",
	"unknown",
	"halt",
	"progress",
	"nudge",
	"read",
	"readMissing",
	"readBadArgs",
);

const READS: ReadonlySet<CallKind> = new Set(["read", "readMissing", "readBadArgs"]);

/**
 * Tool calls of one reply. Constrained: a `read` call (real file I/O) is the only call of its reply:
 * its I/O finishes at no fixed point relative to a sibling call's events or abort, on either peer.
 */
const callsGen = fc.array(callKind, { maxLength: 2 }).map((calls) => {
	const read = calls.find((call) => READS.has(call));
	return read ? [read] : calls;
});

const replyGen: fc.Arbitrary<ReplyGen> = fc.record({
	thinking: fc.boolean(),
	text: fc.boolean(),
	calls: callsGen,
	end: fc.constantFrom<ReplyGen["end"]>(
		"normal",
		"normal",
		"normal",
		"normal",
		"length",
		"retryable",
		"fatal",
		"normal",
		"normal",
		"normal",
		"overflow",
	),
});

const streamAction: fc.Arbitrary<StreamAction> = fc.oneof(
	fc.record({ kind: fc.constantFrom("steer", "followUp", "promptBare" as const) }),
	fc.record({ kind: fc.constantFrom("promptSteer", "promptFollowUp" as const), flavor }),
	fc.record({ kind: fc.constant("userMessage" as const), deliverAs: fc.constantFrom("steer", "followUp" as const) }),
	// Constrained: `triggerTurn: false` while streaming is left out. Settle holds such a message until
	// the next safe point (behavior C.1 sendCustomMessage step 4, doc version); pi 0.73.1 ignores
	// triggerTurn while streaming and steers the message into the run.
	fc.record({
		kind: fc.constant("custom" as const),
		deliverAs: fc.constantFrom("steer", "followUp", "nextTurn", undefined),
		triggerTurn: fc.constant(true),
	}),
	fc.record({ kind: fc.constantFrom("clearQueue", "commandPrompt", "commandSteer", "commandFollowUp" as const) }),
) as fc.Arbitrary<StreamAction>;

/**
 * In-stream actions, optionally ending with one abort or compact. Constrained: nothing after it. While the
 * request is pending in a step, Settle ends the aborted stream at once (as a real provider's fetch
 * does) and pi's faux stream ends when the step returns, so actions placed after the abort would
 * interleave differently with the aborted message's events without either being wrong.
 */
const streamActions: fc.Arbitrary<StreamAction[]> = fc
	// Constrained: no compact() while streaming. pi 0.73.1's compact() disconnects from agent events
	// before it aborts the run, so the aborted run never ends for listeners (no message_end, turn_end,
	// agent_end) and its aborted message is not persisted (a pi bug). Settle ends and persists the run,
	// then compacts. Kept in the type for a later pi.
	.tuple(fc.array(streamAction, { maxLength: 3 }), fc.constantFrom(undefined, undefined, "abort" as const))
	.map(([actions, end]) => (end ? [...actions, { kind: end }] : actions))
	.filter((actions) => actions.length > 0);

const idleAction: fc.Arbitrary<IdleAction> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({
			kind: fc.constant("prompt" as const),
			flavor,
			// A streamingBehavior on an idle session is ignored: the prompt runs.
			streamingBehavior: fc.constantFrom(undefined, undefined, undefined, "steer", "followUp"),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("followUp", "steer", "abort", "clearQueue" as const) }) },
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("userMessage" as const),
			deliverAs: fc.constantFrom(undefined, "steer", "followUp"),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("custom" as const),
			deliverAs: fc.constantFrom("steer", "followUp", "nextTurn", undefined),
			triggerTurn: fc.boolean(),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), instructions: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("command" as const) }) },
) as fc.Arbitrary<IdleAction>;

/**
 * Constrained: with retry on, a retried request is not answered by a non-retryable error (fatal or
 * overflow). pi 0.73.1 then never emits `auto_retry_end` and keeps its attempt counter, so the next
 * operation's retries start at attempt 2 (a pi bug); Settle ends the retry with
 * `auto_retry_end{success:false, finalError}` (behavior C.3 step 5) and resets the counter.
 */
function withoutFatalRetryAnswers(scenario: Scenario): Scenario {
	if (!scenario.retry.enabled) return scenario;
	const steps = scenario.steps.map((step, index) => {
		const previous = scenario.steps[index - 1];
		const fatal = step.reply.end === "fatal" || step.reply.end === "overflow";
		return previous?.reply.end === "retryable" && fatal
			? { ...step, reply: { ...step.reply, end: "normal" as const } }
			: step;
	});
	return { ...scenario, steps };
}

const QUEUEING = new Set(["steer", "followUp", "promptSteer", "promptFollowUp", "userMessage", "custom"]);
const IDLE_QUEUEING = new Set(["steer", "followUp"]);

/**
 * Constrained: a scenario that queues messages (while streaming, from the `nudge` tool, or an idle
 * steer/follow-up) gets no
 * request that ends in an error it does not recover from. When a run ends in such an error with
 * messages still queued, Settle delivers them in the same operation (behavior C.3 step 7: continue
 * when `agent.hasQueuedMessages()`); pi 0.73.1 leaves them queued until the next prompt. Errors that
 * are recovered from stay: a retryable error (retry on) or an overflow (compaction on) whose next
 * step is an answer.
 */
function withoutErrorsWhileQueueing(scenario: Scenario): Scenario {
	const queueing =
		scenario.actions.some((action) => IDLE_QUEUEING.has(action.kind)) ||
		scenario.steps.some((step) => step.reply.calls.includes("nudge")) ||
		scenario.steps.some((step) =>
			step.actions.some(
				(action) => QUEUEING.has(action.kind) && !(action.kind === "custom" && action.deliverAs === "nextTurn"),
			),
		);
	if (!queueing) return scenario;
	const steps = scenario.steps.map((step, index) => {
		const next = scenario.steps[index + 1]?.reply.end ?? "normal";
		const answered = next === "normal" || next === "length";
		const recovered =
			(scenario.retry.enabled && step.reply.end === "retryable" && answered) ||
			(scenario.compaction && step.reply.end === "overflow" && answered);
		const error = step.reply.end !== "normal" && step.reply.end !== "length";
		return error && !recovered ? { ...step, reply: { ...step.reply, end: "normal" as const } } : step;
	});
	return { ...scenario, steps };
}

export const scenarioArb: fc.Arbitrary<Scenario> = fc
	.record({
		retry: fc.record({ enabled: fc.boolean(), maxRetries: fc.integer({ min: 1, max: 2 }) }),
		compaction: fc.boolean(),
		steeringMode: fc.constantFrom("all", "one-at-a-time" as const),
		followUpMode: fc.constantFrom("all", "one-at-a-time" as const),
		hooks: fc.record({
			input: fc.boolean(),
			context: fc.boolean(),
			toolCallBlock: fc.boolean(),
			toolResult: fc.boolean(),
			messageEnd: fc.boolean(),
			beforeAgentStart: fc.boolean(),
		}),
		abortOnRetry: fc.boolean(),
		steps: fc.array(
			fc.record({
				reply: replyGen,
				actions: fc.oneof(
					{ weight: 2, arbitrary: fc.constant([] as StreamAction[]) },
					{ weight: 1, arbitrary: streamActions },
				),
			}),
			{ minLength: 1, maxLength: 8 },
		),
		actions: fc.array(idleAction, { minLength: 1, maxLength: 4 }),
	})
	// The first request overflowing has nothing to compact: such runs would be discarded (piCompactedNothing).
	.map((scenario) => ({
		...scenario,
		steps: scenario.steps.map((step, index) =>
			index === 0 && step.reply.end === "overflow"
				? { ...step, reply: { ...step.reply, end: "normal" as const } }
				: step,
		),
	}))
	.map(withoutFatalRetryAnswers)
	.map(withoutErrorsWhileQueueing);

/** Counter-based texts so every message in a run is distinct and readable. */
function counter() {
	let n = 0;
	return (prefix: string) => `${prefix} ${++n}`;
}

function buildReplySpec(reply: ReplyGen, index: number, compaction: boolean): ReplySpec {
	const spec: ReplySpec = {};
	if (reply.thinking) spec.thinking = `thought ${index}`;
	if (reply.text) spec.text = `answer ${index}`;
	const calls = reply.calls.map((kind, i) => {
		const id = `call-${index}-${i}`;
		switch (kind) {
			case "echo":
				return { id, name: "echo", args: { text: `echo ${index}.${i}` } };
			case "echoBadArgs":
				return { id, name: "echo", args: { text: 42 } };
			case "fail":
				return { id, name: "fail", args: {} };
			case "unknown":
				return { id, name: "no_such_tool", args: { x: 1 } };
			case "progress":
				return { id, name: "progress", args: {} };
			case "nudge":
				return { id, name: "nudge", args: {} };
			case "read":
				return { id, name: "read", args: { path: "notes.txt" } };
			case "readMissing":
				return { id, name: "read", args: { path: "missing.txt" } };
			case "readBadArgs":
				return { id, name: "read", args: { file: "notes.txt" } };
			default:
				return { id, name: "halt", args: {} };
		}
	});
	// Constrained: a `length` reply makes no tool calls. Settle answers such calls with "was not executed:
	// the response hit the output token limit" (behavior F.3, newer pi); pi 0.73.1 runs them.
	if (calls.length > 0 && reply.end !== "length") spec.toolCalls = calls;
	switch (reply.end) {
		case "length":
			// Constrained: with compaction on, Settle treats a `length` stop as a recoverable truncation
			// (behavior C.5, doc version: omit it and compact); pi 0.73.1 keeps it.
			if (!compaction) spec.stopReason = "length";
			break;
		case "retryable":
			return { stopReason: "error", errorMessage: RETRYABLE_ERROR };
		case "fatal":
			return { stopReason: "error", errorMessage: FATAL_ERROR };
		case "overflow":
			return { stopReason: "error", errorMessage: OVERFLOW_ERROR };
	}
	return spec;
}

/** Holds the peer the tools and hooks act on (peers run one after the other). */
export interface PeerHolder {
	peer?: Peer;
	log: string[];
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

export function sharedTools(holder: PeerHolder): SharedTool[] {
	return [
		{
			name: "echo",
			label: "Echo",
			description: "Echoes its text",
			parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
			async execute(_id, params) {
				return { content: [{ type: "text", text: `echoed: ${String(params.text)}` }], details: {} };
			},
		},
		{
			name: "fail",
			label: "Fail",
			description: "Always fails",
			parameters: { type: "object", properties: {} },
			async execute() {
				throw new Error("fail tool failed on purpose");
			},
		},
		{
			name: "progress",
			label: "Progress",
			description: "Reports progress twice, then finishes",
			parameters: { type: "object", properties: {} },
			async execute(_id, _params, _signal, onUpdate) {
				for (const step of [1, 2]) onUpdate?.({ content: [{ type: "text", text: `step ${step}` }], details: { step } });
				return { content: [{ type: "text", text: "progress done" }], details: {} };
			},
		},
		{
			name: "nudge",
			label: "Nudge",
			description: "Steers a message into the run while it executes",
			parameters: { type: "object", properties: {} },
			async execute(id) {
				const peer = holder.peer;
				await new Promise<void>((resolve) => setImmediate(resolve));
				await peer?.drainEvents();
				await peer?.session.steer(`nudge from ${id}`);
				return { content: [{ type: "text", text: "nudged" }], details: {} };
			},
		},
		{
			name: "halt",
			label: "Halt",
			description: "Aborts the session and waits for the abort",
			parameters: { type: "object", properties: {} },
			async execute(_id, _params, signal) {
				const peer = holder.peer;
				const aborted = new Promise<void>((resolve) => {
					if (signal?.aborted) resolve();
					signal?.addEventListener("abort", () => resolve());
				});
				// A sibling tool of the same batch finishes first on both peers: pi's event queue only holds
				// its events after a macrotask turn.
				await new Promise<void>((resolve) => setImmediate(resolve));
				await peer?.drainEvents();
				peer?.mark("abort (halt tool)");
				void peer?.session.abort();
				await aborted;
				throw new Error("halted by abort");
			},
		},
	];
}

export function sharedHooks(flags: HookFlags, holder: PeerHolder): SharedExtension {
	return (api: ExtensionAPI) => {
		api.registerCommand("note", {
			description: "Records a note",
			handler: async (args) => {
				holder.log.push(`note(${args})`);
			},
		});
		if (flags.input) {
			api.on("input", (event) => {
				holder.log.push(`input ${event.text} (${event.source})`);
				if (event.text.startsWith("shout:"))
					return { action: "transform", text: event.text.slice(6).trim().toUpperCase() };
				if (event.text.startsWith("swallow")) return { action: "handled" };
				return undefined;
			});
		}
		if (flags.beforeAgentStart) {
			api.on("before_agent_start", (event) => {
				holder.log.push(`before_agent_start ${event.prompt}`);
				return { message: { customType: "note", content: `context for ${event.prompt}`, display: true } };
			});
		}
		// Not logged: pi 0.73.1 also runs `context` for the provider call it makes after a tool batch was
		// aborted (see fauxSteps in peers.ts), which never reaches a model. Its effect shows in `requests`.
		if (flags.context) {
			api.on("context", (event) => {
				const kept = event.messages.filter(
					(message) => !(message.role === "user" && JSON.stringify(message.content).includes("private")),
				);
				return { messages: kept };
			});
		}
		if (flags.toolCallBlock) {
			api.on("tool_call", (event) => {
				holder.log.push(`tool_call ${event.toolName}`);
				if (event.toolName === "fail") return { block: true, reason: "fail is blocked" };
				if (event.toolName === "echo" && typeof event.input.text === "string") {
					event.input.text = event.input.text.toUpperCase();
				}
				return undefined;
			});
		}
		if (flags.toolResult) {
			api.on("tool_result", (event) => {
				holder.log.push(`tool_result ${event.toolName} ${event.isError}`);
				if (event.toolName !== "echo" && event.toolName !== "read") return undefined;
				const text = event.content.map((block) => (block.type === "text" ? block.text : "")).join("");
				return { content: [{ type: "text", text: `[audited] ${text}` }] };
			});
		}
		if (flags.messageEnd) {
			api.on("message_end", (event) => {
				const message = event.message;
				if (message.role !== "assistant") return undefined;
				const content = message.content.map((block) =>
					block.type === "text" ? { ...block, text: `[checked] ${block.text}` } : block,
				);
				return { message: { ...message, content } };
			});
		}
	};
}

export function peerOptions(scenario: Scenario, holder: PeerHolder): PeerOptions {
	return {
		settings: {
			retry: { enabled: scenario.retry.enabled, maxRetries: scenario.retry.maxRetries, baseDelayMs: 1 },
			compaction: { enabled: scenario.compaction, reserveTokens: 16384, keepRecentTokens: 5 },
		},
		customTools: sharedTools(holder),
		extensions: [sharedHooks(scenario.hooks, holder)],
	};
}

/** Plays a scenario on one peer and returns what a user observes. */
export async function play(scenario: Scenario, peer: Peer, holder: PeerHolder) {
	holder.peer = peer;
	writeFileSync(join(peer.dirs.cwd, "notes.txt"), "first line\nsecond line\n");
	const text = counter();
	const errors: string[] = [];
	const attempt = async (label: string, action: () => Promise<unknown>) => {
		try {
			await action();
		} catch (error) {
			errors.push(`${label}: ${errorText(error)}`);
		}
	};
	const session = peer.session as Peer["session"] & {
		clearQueue(): { steering: readonly string[]; followUp: readonly string[] };
		sendUserMessage(content: string, options?: { deliverAs?: "steer" | "followUp" }): Promise<void>;
	};
	session.setSteeringMode(scenario.steeringMode);
	session.setFollowUpMode(scenario.followUpMode);
	if (scenario.abortOnRetry) {
		session.subscribe((event) => {
			if (event.type === "auto_retry_start") queueMicrotask(() => void session.abort());
		});
	}
	const pending: Promise<void>[] = [];
	const streamAction = async (action: StreamAction) => {
		switch (action.kind) {
			case "steer":
				return attempt("steer", () => session.steer(text("steered")));
			case "followUp":
				return attempt("followUp", () => session.followUp(text("followed up")));
			case "promptSteer":
				return peer.prompt(`${FLAVOR_PREFIX[action.flavor]}${text("prompt steer")}`, { streamingBehavior: "steer" });
			case "promptFollowUp":
				return peer.prompt(`${FLAVOR_PREFIX[action.flavor]}${text("prompt follow-up")}`, {
					streamingBehavior: "followUp",
				});
			case "promptBare":
				return peer.prompt(text("bare prompt"));
			case "userMessage":
				return attempt("sendUserMessage", () =>
					session.sendUserMessage(text(`user message ${action.deliverAs}`), { deliverAs: action.deliverAs }),
				);
			case "custom": {
				const options = {
					triggerTurn: action.triggerTurn,
					...(action.deliverAs ? { deliverAs: action.deliverAs } : {}),
				};
				// A custom message with triggerTurn sent while streaming is delivered in the run on both.
				return attempt("sendCustomMessage", () =>
					session.sendCustomMessage(
						{ customType: "ping", content: text(`custom ${action.deliverAs ?? "default"}`), display: true },
						options,
					),
				);
			}
			case "clearQueue":
				peer.mark(`clearQueue ${JSON.stringify(session.clearQueue())}`);
				return;
			case "commandPrompt":
				return peer.prompt(`/note ${text("while streaming")}`);
			case "commandSteer":
				return attempt("steer", () => session.steer(`/note ${text("steered")}`));
			case "commandFollowUp":
				return attempt("followUp", () => session.followUp(`/note ${text("followed up")}`));
			case "abort":
				peer.mark("abort (while streaming)");
				pending.push(session.abort());
				return;
			case "compact":
				peer.mark("compact (while streaming)");
				pending.push(
					session.compact().then(
						() => undefined,
						(error) => void errors.push(`compact: ${errorText(error)}`),
					),
				);
				return;
		}
	};
	let summaries = 0;
	const steps: Step[] = scenario.steps.map((step, index) => async (request) => {
		if (request.system === "summarizer") return { text: `summary ${++summaries}` };
		if (step.actions.length > 0) {
			await peer.drainEvents();
			for (const action of step.actions) await streamAction(action);
		}
		return buildReplySpec(step.reply, index, scenario.compaction);
	});
	// Enough plain answers after the scripted ones that no run starves.
	for (let i = 0; i < 40; i++) {
		steps.push(async (request) =>
			request.system === "summarizer" ? { text: `summary ${++summaries}` } : { text: `fallback ${i}` },
		);
	}
	peer.script(steps);
	for (const action of scenario.actions) {
		switch (action.kind) {
			case "prompt":
				await peer.prompt(
					`${FLAVOR_PREFIX[action.flavor]}${text("question")}`,
					action.streamingBehavior ? { streamingBehavior: action.streamingBehavior } : undefined,
				);
				break;
			case "followUp":
				await attempt("followUp", () => session.followUp(text("idle follow-up")));
				break;
			case "steer":
				await attempt("steer", () => session.steer(text("idle steer")));
				break;
			case "abort":
				peer.mark("abort (idle)");
				await session.abort();
				break;
			case "clearQueue":
				peer.mark(`clearQueue ${JSON.stringify(session.clearQueue())}`);
				break;
			case "userMessage":
				await attempt("sendUserMessage", () =>
					session.sendUserMessage(
						text("idle user message"),
						action.deliverAs ? { deliverAs: action.deliverAs } : undefined,
					),
				);
				break;
			case "custom":
				await attempt("sendCustomMessage", () =>
					session.sendCustomMessage(
						{ customType: "idle", content: text("idle custom"), display: true },
						{ triggerTurn: action.triggerTurn, ...(action.deliverAs ? { deliverAs: action.deliverAs } : {}) },
					),
				);
				break;
			case "compact":
				peer.mark("compact");
				await attempt("compact", () =>
					action.instructions ? session.compact("Focus on the questions.") : session.compact(),
				);
				break;
			case "command":
				await peer.prompt(`/note ${text("idle")}`);
				break;
		}
		await peer.quiesce();
		await Promise.all(pending.splice(0));
		await peer.quiesce();
	}
	return observeAll(peer, errors, holder.log);
}

/** Each comparable entry's parent, as the index of its nearest comparable ancestor (-1: none). */
export function fileTree(entries: readonly Record<string, unknown>[]): number[] {
	const comparable = entries.filter((entry) => fileShape([entry]).length > 0 && entry.type !== "session");
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	const index = new Map(comparable.map((entry, i) => [entry.id, i]));
	return comparable.map((entry) => {
		let parent = byId.get(entry.parentId);
		while (parent && !index.has(parent.id)) parent = byId.get(parent.parentId);
		return parent ? (index.get(parent.id) ?? -1) : -1;
	});
}

/**
 * For each compaction entry: how many comparable entries precede it and the position of its first
 * kept entry among them, e.g. `12 keeps from 9`.
 */
export function compactionCuts(entries: readonly Record<string, unknown>[]): string[] {
	const comparable = entries.filter((entry) => fileShape([entry]).length > 0);
	return comparable.flatMap((entry, index) =>
		entry.type === "compaction"
			? [`${index} keeps from ${comparable.findIndex((kept) => kept.id === entry.firstKeptEntryId)}`]
			: [],
	);
}

function reopenWithPi(file: string): unknown[] {
	return pi.SessionManager.open(file).buildSessionContext().messages;
}

function reopenWithSettle(file: string): unknown[] {
	const manager = SessionManager.open(file, undefined, undefined, { readOnly: true } as never);
	try {
		return manager.buildSessionContext().messages;
	} finally {
		manager.close();
	}
}

const PAYLOAD_EVENTS = [
	"tool_execution_update",
	"message_end",
	"turn_end",
	"agent_end",
	"tool_execution_start",
	"tool_execution_end",
	"queue_update",
	"auto_retry_start",
	"auto_retry_end",
	"compaction_start",
];

export function observeAll(peer: Peer, errors: string[], log: string[]) {
	const session = peer.session as unknown as {
		pendingMessageCount: number;
		getSteeringMessages(): readonly string[];
		getFollowUpMessages(): readonly string[];
	};
	const entries = peer.fileEntries();
	const file = peer.session.sessionFile;
	return {
		// How each prompt() settled (resolved, or rejected with which text) is compared, not when: pi
		// 0.73.1 resolves before overflow recovery finishes (README, documented), so a prompt queued
		// during the recovery settles after it there, and since its agent event queue is not awaited it
		// sometimes resolves before its own `agent_end` is delivered (behavior C.10).
		events: eventSequence(peer.recorded).filter((token) => !token.startsWith("<<prompt ")),
		prompts: eventSequence(peer.recorded)
			.filter((token) => token.startsWith("<<prompt "))
			.sort(),
		payloads: eventPayloads(peer.recorded, PAYLOAD_EVENTS),
		requests: peer.requests,
		file: fileShape(entries),
		fileTree: fileTree(entries),
		fileMessages: fileMessages(entries),
		edits: contextEdits(entries),
		cuts: compactionCuts(entries),
		// The peer's session file as each product reopens it: pi's reader and Settle's must both see
		// the same context in pi's file and in Settle's.
		reopenedByPi: file && entries.length > 0 ? normalizeMessages(reopenWithPi(file)) : [],
		reopenedBySettle: file && entries.length > 0 ? normalizeMessages(reopenWithSettle(file)) : [],
		errors,
		extensionLog: [...log],
		state: {
			messages: normalizeMessages(peer.session.messages),
			isStreaming: peer.session.isStreaming,
			pendingMessageCount: session.pendingMessageCount,
			steering: [...session.getSteeringMessages()],
			followUp: [...session.getFollowUpMessages()],
		},
	};
}

export type Observation = Awaited<ReturnType<typeof play>>;

/**
 * Whether pi 0.73.1 ran a compaction with nothing to summarize. On an overflow with nothing to cut,
 * pi sends an empty conversation to the summarizer, writes a compaction, keeps the failed request in
 * context and emits extra `compaction_end` events; Settle (README "An overflow recovery", behavior
 * C.5 `prepareCompaction` returns nothing) emits no compaction events and ends the request with the
 * overflow error. Such runs are discarded: the outcomes differ by design, and pi's is broken.
 */
export function piCompactedNothing(pi: Observation, settle: Observation): boolean {
	// Only when everything before pi's first compaction agrees: an earlier divergence is still reported.
	const before = pi.file.slice(0, pi.file.indexOf("compaction"));
	if (settle.file.slice(0, before.length).join(",") !== before.join(",")) return false;
	return pi.requests.some(
		(request) => request.system === "summarizer" && /<conversation>\s*<\/conversation>/.test(request.messages[0] ?? ""),
	);
}

/** `input` hook entries for texts given to steer()/followUp(); see {@link comparable}. */
export const QUEUED_INPUT_LOG = /^input (steered|followed up|idle follow-up|idle steer \d+|nudge from \S+) /;

/**
 * One peer's observation with the documented differences taken out; the test checks each one
 * holds before it is taken out:
 * - `edits`: Settle persists a `context_edit` omitting each failed attempt (behavior C.4 step 5 / C.5,
 *   I.5); pi 0.73.1 writes none.
 * - `extensionLog`: Settle runs the `input` hook for steer()/followUp() texts (behavior C.1 "Related
 *   entry points", doc version); pi 0.73.1's steer()/followUp() skip it. The generated queued texts
 *   never match a transforming rule, so only the log differs.
 * - `requests`: the `message_end` hook's `[checked] ` mark is taken out of the requests. pi 0.73.1
 *   applies a `message_end` replacement from its event queue, which its loop does not await
 *   (behavior C.10): when the queue lags (tool updates), the next request is built before the
 *   replacement lands. Settle's bridge is awaited. The replaced message is still compared in the
 *   events, the file and the final state.
 * - Texts: each peer's temp dir reads `<root>`, and the `read` tool's missing-file error is compared by
 *   kind: Settle says `File not found: <path>` (src/tools/fs-errors.ts, an actionable message), pi
 *   0.73.1 passes Node's `ENOENT: no such file or directory, access '<path>'` through.
 * - `requests` and `state.messages`: a failed attempt that was retried (or whose retry was
 *   cancelled) or that overflowed is taken out. Settle persists its omission (`context_edit`, behavior C.4 step 5, I.5);
 *   pi 0.73.1 only drops it from agent state, so it comes back into pi's context when a compaction
 *   rebuilds the context from the file.
 */
export function comparable(raw: Observation): Omit<Observation, "edits" | "cuts"> {
	const observation = scrubbed(raw);
	const { edits: _edits, cuts: _cuts, ...rest } = observation;
	return {
		...rest,
		extensionLog: observation.extensionLog.filter((line) => !QUEUED_INPUT_LOG.test(line)),
		requests: observation.requests.map((request) => ({
			...request,
			messages: request.messages
				.filter(
					(message) =>
						message !== `assistant:  (error: ${RETRYABLE_ERROR})` &&
						message !== `assistant:  (error: ${OVERFLOW_ERROR})`,
				)
				.map((message) => message.replaceAll("[checked] ", "")),
		})),
		state: {
			...observation.state,
			messages: observation.state.messages.filter((message) => !isFailedAttempt(message)),
		},
		// Settle's reader honours the `context_edit` omissions in Settle's files; pi's files have none.
		reopenedBySettle: observation.reopenedBySettle.filter((message) => !isFailedAttempt(message)),
	};
}

function scrubbed(observation: Observation): Observation {
	const json = JSON.stringify(observation)
		.replace(/\/[^"']*?settle-parity-[A-Za-z0-9]+/g, "<root>")
		.replace(/ENOENT: no such file or directory, access '([^']*)'/g, "file not found: $1")
		.replace(/File not found: /g, "file not found: ");
	return JSON.parse(json) as Observation;
}

/** A failed request Settle omits from context: a retried or overflowing error (behavior C.4/C.5, I.5). */
function isFailedAttempt(message: unknown): boolean {
	const m = message as { role?: string; stopReason?: string; errorMessage?: string };
	return (
		m.role === "assistant" &&
		m.stopReason === "error" &&
		(m.errorMessage === RETRYABLE_ERROR || m.errorMessage === OVERFLOW_ERROR)
	);
}

/**
 * Whether the first compaction cut differs while the session files agree up to that compaction.
 * Settle's cut point deliberately differs from pi 0.73.1's (src/compaction/cut-point.ts): it cuts at
 * the nearest valid point at or before the crossing entry, so at least `keepRecentTokens` are kept
 * (pi cuts after it and can keep less), and counts `custom_message` entries (pi skips them when
 * adding up tokens); so one may find nothing to compact where the other compacts. Everything after
 * the first such compaction differs by design; runs where it happens are discarded. A divergence
 * before that compaction is still reported.
 */
export function cutDiffersByDesign(pi: Observation, settle: Observation): boolean {
	const k = pi.cuts.findIndex((cut, i) => cut !== settle.cuts[i]);
	if (k === -1 && pi.cuts.length === settle.cuts.length) return false;
	const at = k === -1 ? pi.cuts.length : k;
	/** The file up to its `at`-th compaction entry, or undefined without one. */
	const prefix = (observation: Observation) => {
		let seen = -1;
		const end = observation.file.findIndex((shape) => shape === "compaction" && ++seen === at);
		return end === -1 ? undefined : observation.file.slice(0, end);
	};
	const [a, b] = [prefix(pi), prefix(settle)];
	if (a && b) return a.join(",") === b.join(",");
	// One compacted where the other found nothing to compact: the other's file must start the same.
	const [compacted, other] = a ? [a, settle.file] : [b ?? [], pi.file];
	return other.slice(0, compacted.length).join(",") === compacted.join(",");
}

/**
 * Whether pi 0.73.1 dropped the previous compaction's summary. When a split-turn compaction has no
 * history before the turn (everything since the previous compaction is the turn's prefix), pi writes
 * "No prior history." where the previous summary was (a pi bug: the earlier summary is lost); Settle
 * carries the previous summary forward (src/compaction/summarize.ts). Runs where this happens with
 * identical session files are discarded: all later context differs by that text.
 */
export function piDroppedPreviousSummary(pi: Observation, settle: Observation): boolean {
	const dropped = (observation: Observation) =>
		observation.state.messages.some(
			(message) =>
				(message as { role?: string }).role === "compactionSummary" &&
				String((message as { summary?: unknown }).summary).startsWith("No prior history.\n\n---"),
		);
	return pi.cuts.length > 1 && dropped(pi) && !dropped(settle) && pi.file.join(",") === settle.file.join(",");
}
