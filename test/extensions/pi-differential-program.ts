/**
 * Random extension programs for the extension-API differential against pi 0.73.1
 * (pi-differential.property.test.ts). A {@link Program} is plain data: one to three extensions, each
 * a list of handlers (event + behaviour) and a command, the scripted model replies and the user's
 * prompts. {@link programExtensions} turns it into inline factories with identical source for both
 * peers; every handler writes what it receives into a shared log, so the payloads each extension
 * observes are compared, not only their effects.
 *
 * Restrictions (each because pi 0.73.1 is nondeterministic or differs by its test harness there):
 * - Calls that queue or start work (sendMessage, sendUserMessage, abort) are made only from hooks
 *   the agent loop awaits while it streams (`context`, `tool_call`, `tool_result`) and from commands.
 *   pi delivers `message_*`, `turn_*` and `agent_*` to extensions from its unawaited event queue
 *   (behavior C.10): what such a call meets (streaming or idle, which turn) depends on how far the
 *   loop got. There they only log. From `input`/`before_agent_start` the session is idle while a
 *   prompt is being prepared; a second prompt started from there races the first one on pi.
 * - Session writes (appendEntry, setLabel, setSessionName, setModel, setThinkingLevel) are made only from `input`,
 *   `before_agent_start` and commands: from a loop-awaited hook they would race pi's unawaited
 *   persistence of the previous `message_end` (C.10), so their place in pi's file is not defined.
 *   The same goes for an `input` handler that runs mid-run (a message a streaming hook queued): it
 *   skips them at run time ({@link runCall}).
 * - Tool changes likewise, for a documented difference ({@link TOOL_CALLS}).
 * - A `call` behaviour runs once per handler: a message queued from every `context` call would keep
 *   the run going forever.
 * - `before_provider_request` payload changes: pi-ai 0.73.1's faux provider never calls `onPayload`;
 *   the pi peer is built with `payloadHook` (test/parity/peers.ts) so both call it with the context.
 *   Summarization requests reach the handlers in Settle only (pi#8999): handlers skip them.
 * Documented Settle behaviour and pi 0.73.1 bugs kept out of the generator, each named where it is
 * taken out and pinned on both peers in pi-differential-divergences.test.ts: ctx.abort() only from
 * `context` ({@link callAllowed}); `triggerTurn` while streaming; one queueing call per command, last
 * ({@link oneQueueingCallLast}); `before_agent_start` for a run a custom message
 * triggers ({@link withoutTriggeredCustomStarts}); result shapes pi 0.73.1 fails on ({@link returnValue});
 * `streamingBehavior` of `input` ({@link payload}). What is taken out of the observation is named in
 * pi-differential-play.ts and the property test.
 *
 * Not covered: `user_bash` (pi 0.73.1 emits it from its interactive mode only, not from
 * `AgentSession.executeBash`), `session_before_tree`/`fork`/`switch` (tree and runtime work).
 */
import fc from "fast-check";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import type { ReplySpec, SharedExtension, SharedTool } from "../parity/peers.js";

export const EVENTS = [
	"input",
	"before_agent_start",
	"context",
	"before_provider_request",
	"tool_call",
	"tool_result",
	"message_start",
	"message_update",
	"message_end",
	"turn_start",
	"turn_end",
	"agent_start",
	"agent_end",
	"session_start",
	"session_before_compact",
	"session_compact",
	"model_select",
	"thinking_level_select",
] as const;
export type EventName = (typeof EVENTS)[number];

/** Hooks the loop awaits while streaming: queueing calls are deterministic there (module comment). */
const STREAMING_HOOKS: ReadonlySet<EventName> = new Set(["context", "tool_call", "tool_result"]);
/** Hooks run while a prompt is prepared (idle): session writes are deterministic there. */
const PREPARE_HOOKS: ReadonlySet<EventName> = new Set(["input", "before_agent_start"]);
/** Hooks whose return value is used (B.3); the rest get junk returns that must be ignored. */
const RESULT_HOOKS: ReadonlySet<EventName> = new Set([
	"input",
	"before_agent_start",
	"context",
	"before_provider_request",
	"tool_call",
	"tool_result",
	"message_end",
	"session_before_compact",
]);

export type ApiCall =
	| { kind: "sendMessage"; deliverAs?: "steer" | "followUp" | "nextTurn"; triggerTurn: boolean; display: boolean }
	| { kind: "sendUserMessage"; deliverAs?: "steer" | "followUp" }
	| { kind: "appendEntry" }
	| { kind: "setLabel" }
	| { kind: "sessionName" }
	| { kind: "setModel"; target: "same" | "faux-1" | "faux-2" }
	| { kind: "thinking"; level: "off" | "low" | "high" | "xhigh" }
	| { kind: "activeTools"; keep: "echo" | "none" | "all" }
	| { kind: "registerTool" }
	| { kind: "getCommands" }
	| { kind: "exec" }
	| { kind: "reads" }
	| { kind: "ui" }
	| { kind: "abort" };

const QUEUEING_CALLS = new Set(["sendMessage", "sendUserMessage", "abort"]);
const WRITING_CALLS = new Set(["appendEntry", "setLabel", "sessionName", "setModel", "thinking"]);
/**
 * Tool changes are made only while idle (prepare hooks, commands): made mid-run, Settle applies them
 * to the next request (behavior F.1 step 6, "effective on the next request") and pi 0.73.1's agent
 * loop to the next run (it snapshots the tools when a run starts). Pinned on both sides in
 * pi-differential-divergences.test.ts.
 */
const TOOL_CALLS = new Set(["activeTools", "registerTool"]);

export type Behavior =
	| { kind: "observe" }
	| { kind: "return"; variant: number }
	| { kind: "throw"; async: boolean }
	| { kind: "call"; call: ApiCall };

export interface HandlerSpec {
	event: EventName;
	behavior: Behavior;
}

export interface ExtensionSpec {
	handlers: HandlerSpec[];
	/** The command `/e<i>` runs these calls in order. */
	command: ApiCall[];
}

export type ToolKind = "echo" | "fail" | "dyn" | "unknown";

export interface ReplyGen {
	text: boolean;
	calls: ToolKind[];
}

export type UserAction =
	| { kind: "prompt" }
	| { kind: "command"; ext: number }
	| { kind: "unknownCommand" }
	/** `/shared` (0) or `/shared:<n>`: every extension registers a command named `shared` (A.10). */
	| { kind: "shared"; n: number }
	| { kind: "compact"; instructions: boolean };

export interface Program {
	extensions: ExtensionSpec[];
	replies: ReplyGen[];
	actions: UserAction[];
}

const apiCallArb: fc.Arbitrary<ApiCall> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("sendMessage" as const),
			deliverAs: fc.constantFrom(undefined, "steer" as const, "followUp" as const, "nextTurn" as const),
			triggerTurn: fc.boolean(),
			display: fc.boolean(),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant("sendUserMessage" as const),
			deliverAs: fc.constantFrom(undefined, "steer" as const, "followUp" as const),
		}),
	},
	fc.constant({ kind: "appendEntry" as const }),
	fc.constant({ kind: "setLabel" as const }),
	fc.constant({ kind: "sessionName" as const }),
	fc.record({
		kind: fc.constant("setModel" as const),
		target: fc.constantFrom("same" as const, "faux-1" as const, "faux-2" as const),
	}),
	fc.record({
		kind: fc.constant("thinking" as const),
		level: fc.constantFrom("off" as const, "low" as const, "high" as const, "xhigh" as const),
	}),
	fc.record({
		kind: fc.constant("activeTools" as const),
		keep: fc.constantFrom("echo" as const, "none" as const, "all" as const),
	}),
	fc.constant({ kind: "registerTool" as const }),
	fc.constant({ kind: "getCommands" as const }),
	fc.constant({ kind: "exec" as const }),
	fc.constant({ kind: "reads" as const }),
	fc.constant({ kind: "ui" as const }),
	fc.constant({ kind: "abort" as const }),
);

/** Whether a call may be made from a handler of `event` (module comment). */
function callAllowed(event: EventName, call: ApiCall): boolean {
	// ctx.abort() only from `context`. From `tool_call`: Settle answers the call "Operation aborted"
	// without running it (behavior F.4, "aborted during the hook"); pi 0.73.1 runs the tool (pinned in
	// pi-differential-divergences.test.ts). From `tool_result`: after the aborted batch pi 0.73.1's
	// loop still makes a request (running `context` for it) that never reaches a model; Settle makes
	// none (the same difference test/parity/peers.ts fauxSteps documents).
	if (call.kind === "abort") return event === "context";
	// `exec` (a real child process) only from commands: from a handler it takes wall-clock time, and
	// a handler of a message queued during a run (e.g. `input` of a context hook's sendUserMessage)
	// then races the run on both products, so the order of later hooks depends on the machine.
	if (call.kind === "exec") return false;
	if (QUEUEING_CALLS.has(call.kind)) return STREAMING_HOOKS.has(event);
	if (WRITING_CALLS.has(call.kind) || TOOL_CALLS.has(call.kind)) return PREPARE_HOOKS.has(event);
	// Observers (queue-delivered) only log.
	return STREAMING_HOOKS.has(event) || PREPARE_HOOKS.has(event);
}

const handlerArb: fc.Arbitrary<HandlerSpec> = fc
	.record({
		// Biased toward the hooks whose results and calls matter; every event stays possible.
		event: fc.oneof(
			{ weight: 2, arbitrary: fc.constantFrom(...EVENTS) },
			{
				weight: 1,
				arbitrary: fc.constantFrom<EventName>("context", "tool_call", "tool_result", "session_before_compact"),
			},
		),
		behavior: fc.oneof(
			{ weight: 2, arbitrary: fc.constant<Behavior>({ kind: "observe" }) },
			{ weight: 4, arbitrary: fc.record({ kind: fc.constant("return" as const), variant: fc.nat({ max: 5 }) }) },
			{ weight: 1, arbitrary: fc.record({ kind: fc.constant("throw" as const), async: fc.boolean() }) },
			{ weight: 3, arbitrary: fc.record({ kind: fc.constant("call" as const), call: apiCallArb }) },
		),
	})
	.map((spec): HandlerSpec => {
		const behavior = spec.behavior;
		if (behavior.kind !== "call") return spec;
		if (!callAllowed(spec.event, behavior.call)) return { event: spec.event, behavior: { kind: "observe" } };
		// Constrained: a custom message sent with `triggerTurn: false` during a run waits for the next
		// safe point in Settle (behavior C.1 sendCustomMessage step 4, doc version; README); pi 0.73.1
		// ignores triggerTurn while streaming and steers it into the run. The same constraint as
		// test/parity/differential-scenarios.ts.
		const call = behavior.call;
		if (call.kind === "sendMessage" && call.deliverAs !== "nextTurn" && STREAMING_HOOKS.has(spec.event)) {
			return { event: spec.event, behavior: { kind: "call", call: { ...call, triggerTurn: true } } };
		}
		return spec;
	});

/**
 * A command makes at most one queueing call, as its last: sendUserMessage / sendMessage with
 * triggerTurn from an idle session start a prompt without awaiting it, and pi 0.73.1 runs that
 * prompt's first steps (the `input` handlers) synchronously inside the call, Settle from the next
 * microtask; so a later call of the same command, or a second queueing call, would meet a run in a
 * different state.
 */
function oneQueueingCallLast(calls: ApiCall[]): ApiCall[] {
	const queueing = calls.find((call) => QUEUEING_CALLS.has(call.kind));
	return [...calls.filter((call) => !QUEUEING_CALLS.has(call.kind)), ...(queueing ? [queueing] : [])];
}

const extensionArb: fc.Arbitrary<ExtensionSpec> = fc.record({
	handlers: fc.array(handlerArb, { minLength: 1, maxLength: 6 }),
	command: fc.array(apiCallArb, { minLength: 0, maxLength: 3 }).map(oneQueueingCallLast),
});

export const programArb: fc.Arbitrary<Program> = fc
	.record({
		extensions: fc.array(extensionArb, { minLength: 1, maxLength: 3 }),
		replies: fc.array(
			fc.record({
				text: fc.boolean(),
				calls: fc.array(fc.constantFrom<ToolKind>("echo", "echo", "fail", "dyn", "unknown"), { maxLength: 2 }),
			}),
			{ minLength: 1, maxLength: 5 },
		),
		actions: fc.array(
			fc.oneof(
				{ weight: 4, arbitrary: fc.constant<UserAction>({ kind: "prompt" }) },
				{ weight: 3, arbitrary: fc.record({ kind: fc.constant("command" as const), ext: fc.nat({ max: 2 }) }) },
				{ weight: 1, arbitrary: fc.constant<UserAction>({ kind: "unknownCommand" }) },
				{ weight: 1, arbitrary: fc.record({ kind: fc.constant("shared" as const), n: fc.nat({ max: 3 }) }) },
				{ weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), instructions: fc.boolean() }) },
			),
			{ minLength: 1, maxLength: 4 },
		),
	})
	.map((program) => ({
		...program,
		actions: program.actions.map((action) =>
			action.kind === "command" ? { ...action, ext: action.ext % program.extensions.length } : action,
		),
	}))
	.map(withoutTriggeredCustomStarts)
	.map(withoutMidRunToolChanges);

/**
 * Constrained: when a streaming hook queues a user message (sendUserMessage from `context`,
 * `tool_call` or `tool_result`), `input` handlers make no tool changes: that message's `input` runs
 * mid-run, where the tool changes differ by design (TOOL_CALLS; seed -443699532 path
 * 3503:2:1:4:3:4:4:5:6:6:6:6:6:6:6:6:7, a `registerTool` from `input`: Settle's next request offers
 * the tool, pi's run does not).
 */
function withoutMidRunToolChanges(program: Program): Program {
	const queuesMidRun = program.extensions.some((extension) =>
		extension.handlers.some(
			(handler) =>
				STREAMING_HOOKS.has(handler.event) &&
				handler.behavior.kind === "call" &&
				handler.behavior.call.kind === "sendUserMessage",
		),
	);
	if (!queuesMidRun) return program;
	return {
		...program,
		extensions: program.extensions.map((extension) => ({
			...extension,
			handlers: extension.handlers.map((handler) =>
				handler.event === "input" && handler.behavior.kind === "call" && TOOL_CALLS.has(handler.behavior.call.kind)
					? { event: handler.event, behavior: { kind: "observe" as const } }
					: handler,
			),
		})),
	};
}

/**
 * Constrained: with a `before_agent_start` handler, commands send custom messages without
 * `triggerTurn`. Settle runs `before_agent_start` for the operation such a message starts (pi#5581,
 * pi#8773, as newer pi does); pi 0.73.1 does not, and keeps the previous operation's prompt override
 * in its agent state for that run. Pinned in pi-differential-divergences.test.ts.
 */
function withoutTriggeredCustomStarts(program: Program): Program {
	const hooked = program.extensions.some((extension) =>
		extension.handlers.some((handler) => handler.event === "before_agent_start"),
	);
	if (!hooked) return program;
	return {
		...program,
		extensions: program.extensions.map((extension) => ({
			...extension,
			command: extension.command.map((call) =>
				call.kind === "sendMessage" && call.deliverAs !== "nextTurn" ? { ...call, triggerTurn: false } : call,
			),
		})),
	};
}

/**
 * pi 0.73.1 delivers these to extensions from its event queue, which the agent loop does not await
 * (behavior C.10): on pi they lag behind the loop, so a `context` or `tool_call` handler can run
 * before the previous `message_end`/`turn_end` handlers did. Settle's bridge is awaited. Their log
 * lines are kept on their own channel: each channel's order is compared, not the interleaving.
 */
export const QUEUED_EVENTS: ReadonlySet<string> = new Set([
	"message_start",
	"message_update",
	"message_end",
	"turn_start",
	"turn_end",
	"agent_start",
	"agent_end",
]);

/**
 * Dispatched without being awaited by the session on both (behavior B.3 "fire-and-forget"): where
 * their later handlers run relative to the caller's next steps follows each product's microtask
 * scheduling (a throwing handler costs pi 0.73.1 no tick and Settle one), and two such dispatches
 * can overlap. Their lines are compared as a sorted list.
 */
export const DETACHED_EVENTS: ReadonlySet<string> = new Set(["thinking_level_select"]);

/** The log channel of a handler of `event`. */
export function channelOf(event: string): "awaited" | "queued" | "detached" {
	return QUEUED_EVENTS.has(event) ? "queued" : DETACHED_EVENTS.has(event) ? "detached" : "awaited";
}

/** What one peer's extensions saw and did, per channel (see {@link QUEUED_EVENTS}). */
export interface ProgramLog {
	/** Handlers the loop or the session awaits, commands, and what their calls returned. */
	awaited: string[];
	/** Handlers of {@link QUEUED_EVENTS}. */
	queued: string[];
	/** Handlers of {@link DETACHED_EVENTS}. */
	detached: string[];
	/** Handler and command invocations so far, and how many have not settled yet. */
	activity: { started: number; running: number };
}

/** Counts `result` as running until it settles (see {@link ProgramLog.activity}). */
function tracked<T>(log: ProgramLog, result: T): T {
	if (!(result instanceof Promise)) return result;
	log.activity.running++;
	const done = () => void log.activity.running--;
	result.then(done, done);
	return result;
}

type Rec = Record<string, unknown>;

/** The loose view of pi's / Settle's API the generated handlers use (both have these members). */
interface LooseApi {
	on(event: string, handler: (event: Rec, ctx: LooseCtx) => unknown): void;
	registerCommand(
		name: string,
		options: { description: string; handler: (args: string, ctx: LooseCtx) => unknown },
	): void;
	registerTool(tool: unknown): void;
	sendMessage(message: Rec, options?: Rec): void;
	sendUserMessage(content: string, options?: Rec): void;
	appendEntry(customType: string, data?: unknown): void;
	setSessionName(name: string): void;
	getSessionName(): string | undefined;
	setLabel(entryId: string, label: string | undefined): void;
	exec(command: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number; killed: boolean }>;
	getActiveTools(): string[];
	getAllTools(): { name: string }[];
	setActiveTools(names: string[]): void;
	getCommands(): { name: string; source: string; description?: string }[];
	setModel(model: unknown): Promise<boolean>;
	getThinkingLevel(): string;
	setThinkingLevel(level: string): void;
}

interface LooseCtx {
	model?: { id: string };
	thinkingLevel?: string;
	hasUI: boolean;
	isIdle(): boolean;
	hasPendingMessages(): boolean;
	abort(): void;
	getSystemPrompt(): string;
	sessionManager: {
		getLeafId(): string | null;
		getEntries(): Rec[];
		getSessionName?(): string | undefined;
		getLabel?(id: string): string | undefined;
	};
	ui: {
		notify(message: string, type?: string): void;
		confirm(title: string, message: string): Promise<boolean>;
		select(title: string, options: string[]): Promise<string | undefined>;
		input(title: string): Promise<string | undefined>;
		setStatus(key: string, text: string | undefined): void;
	};
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return `<${typeof content}>`;
	return content
		.map((block: Rec) =>
			block.type === "text"
				? String(block.text)
				: block.type === "toolCall"
					? `[call ${String(block.name)} ${JSON.stringify(block.arguments)}]`
					: block.type === "thinking"
						? "[thinking]"
						: `[${String(block.type)}]`,
		)
		.join(" ");
}

function messageSummary(message: unknown): string {
	const m = (message ?? {}) as Rec;
	if (m.role === "custom") return `custom(${String(m.customType)}): ${textOf(m.content)}`;
	if (m.role === "toolResult")
		return `toolResult(${String(m.toolName)}${m.isError ? " error" : ""}): ${textOf(m.content)}`;
	if (m.role === "assistant") return `assistant(${String(m.stopReason)}): ${textOf(m.content)}`;
	return `${String(m.role)}: ${textOf(m.content)}`;
}

/** Settle's transcript `system` messages are a documented extra (test/parity/normalize.ts). */
/** A compaction or branch-summary request's payload (the faux providers' payload is the context). */
function isSummarizerPayload(payload: unknown): boolean {
	const prompt = (payload as Rec | undefined)?.systemPrompt;
	return typeof prompt === "string" && prompt.startsWith("You are a context summarization assistant");
}

function isSystem(message: unknown): boolean {
	return (message as Rec | undefined)?.role === "system";
}

/** Comparable session entries: without Settle's system-message and context_edit entries (normalize.ts). */
function comparableEntries(entries: Rec[]): Rec[] {
	return entries.filter(
		(entry) => entry.type !== "context_edit" && !(entry.type === "message" && isSystem(entry.message)),
	);
}

/** Markers `+e<i>` the generated before_agent_start handlers append to the system prompt. */
function promptMarks(systemPrompt: unknown): string {
	return (String(systemPrompt).match(/\+e\d/g) ?? []).join("");
}

/** What a handler of `event` receives, as one log line. */
function payload(event: EventName, e: Rec, ctx: LooseCtx): string {
	switch (event) {
		case "input":
			// Not `streamingBehavior`: Settle sets it while streaming (behavior B.3, doc version), pi 0.73.1
			// never does. Pinned in pi-differential-divergences.test.ts.
			return `${String(e.text)} (${String(e.source)})`;
		case "before_agent_start":
			return `${String(e.prompt)} sys[${promptMarks(e.systemPrompt)}]`;
		case "context":
			return `sys[${promptMarks(ctx.getSystemPrompt())}] ${(e.messages as unknown[])
				.filter((m) => !isSystem(m))
				.map(messageSummary)
				.join(" | ")}`;
		case "before_provider_request":
			return `${((e.payload as Rec)?.messages as unknown[] | undefined)?.filter((m) => !isSystem(m)).length ?? "?"} messages`;
		case "tool_call":
			return `${String(e.toolName)} ${String(e.toolCallId)} ${JSON.stringify(e.input)}`;
		case "tool_result":
			return `${String(e.toolName)} ${String(e.toolCallId)} ${JSON.stringify(e.input)} -> ${textOf(e.content)} ${JSON.stringify(e.details ?? null)} ${String(e.isError)}`;
		case "message_start":
		case "message_update":
		case "message_end":
			return messageSummary(e.message);
		case "turn_start":
			return `turn ${String(e.turnIndex)}`;
		case "turn_end":
			return `turn ${String(e.turnIndex)} ${messageSummary(e.message)} results ${(e.toolResults as unknown[]).length}`;
		case "agent_start":
			return "";
		case "agent_end":
			return (e.messages as unknown[])
				.filter((m) => !isSystem(m))
				.map((m) => String((m as Rec).role))
				.join(",");
		case "session_start":
			return String(e.reason);
		case "session_before_compact": {
			const preparation = e.preparation as Rec;
			return `instructions=${String(e.customInstructions)} summarize ${(preparation.messagesToSummarize as unknown[]).filter((m) => !isSystem(m)).length} split=${String(preparation.isSplitTurn)}`;
		}
		case "session_compact":
			return `${String((e.compactionEntry as Rec).summary)} fromExtension=${String(e.fromExtension)}`;
		case "model_select":
			return `${String((e.model as Rec)?.id)} from ${String((e.previousModel as Rec | undefined)?.id)} (${String(e.source)})`;
		case "thinking_level_select":
			return `${String(e.level)} from ${String(e.previousLevel)}`;
	}
}

function text(value: string) {
	return [{ type: "text" as const, text: value }];
}

/** What a `message_end` replacement appends to texts (` ~e<i>`), see {@link withoutMessageEndMarks}. */
export const MESSAGE_END_MARK = "~e";

/**
 * Texts without `message_end` replacement marks. pi 0.73.1 applies a replacement from its unawaited
 * event queue (behavior C.10): the loop can build the next request (and call `context`) before it
 * lands; Settle's bridge is awaited. Taken out of the requests and the `context` log only; the
 * replaced messages are compared in the events, the file and the final state.
 */
export function withoutMessageEndMarks(line: string): string {
	return line.replace(/ ~e\d/g, "");
}

/** The value a `return` behaviour gives: valid and invalid shapes per event (B.3). */
function returnValue(event: EventName, variant: number, e: Rec, i: number): unknown {
	const tag = `+e${i}`;
	switch (event) {
		case "input":
			return [
				undefined,
				{ action: "continue" },
				{ action: "transform", text: `${String(e.text)} ${tag}` },
				{ action: "handled" },
				// Not `{action: "transform"}` without text: pi 0.73.1 passes `text: undefined` on and its
				// prompt() rejects with a TypeError; Settle reports it to onError and ignores the transform
				// (pinned in pi-differential-divergences.test.ts).
				{ action: "continue", text: "ignored" },
				{ action: "bogus" },
			][variant];
		case "before_agent_start": {
			const message = {
				customType: `note-e${i}`,
				content: `note ${tag} for ${String(e.prompt)}`,
				display: true,
				details: { i },
			};
			return [
				{ message },
				{ systemPrompt: `${String(e.systemPrompt)} ${tag}` },
				{ message, systemPrompt: `${String(e.systemPrompt)} ${tag}` },
				{ message: { ...message, display: false } },
				undefined,
				"junk",
			][variant];
		}
		case "context": {
			const messages = e.messages as Rec[];
			return [
				{ messages: messages.filter((m) => m.role !== "custom") },
				{ messages: [...messages, { role: "user", content: text(`injected ${tag}`), timestamp: 0 }] },
				{
					messages: messages.map((m) =>
						m.role === "user" ? { ...m, content: text(`${textOf(m.content)} ${tag}`) } : m,
					),
				},
				undefined,
				// Not `{messages: <not an array>}`: pi 0.73.1's run fails without an assistant message;
				// Settle reports it to onError and keeps the messages (pinned in
				// pi-differential-divergences.test.ts).
				{ messages: messages.slice(0, 1) },
				{},
			][variant];
		}
		case "before_provider_request": {
			const p = e.payload as Rec;
			return [
				{
					...p,
					messages: [...(p.messages as unknown[]), { role: "user", content: text(`payload ${tag}`), timestamp: 0 }],
				},
				undefined,
				p,
				{
					...p,
					messages: [...(p.messages as unknown[]), { role: "user", content: text(`payload ${tag}`), timestamp: 0 }],
				},
				undefined,
				p,
			][variant];
		}
		case "tool_call": {
			const input = e.input as Rec;
			if (variant === 2 && typeof input.text === "string") input.text = `${input.text} ${tag}`;
			return [
				{ block: true, reason: `blocked by e${i}` },
				{ block: true },
				undefined,
				{ block: false },
				{ block: "yes", reason: 42 },
				"junk",
			][variant];
		}
		case "tool_result":
			return [
				{ content: text(`rewritten by e${i}`) },
				{ details: { by: i } },
				{ isError: true },
				{ isError: false, content: text(`cleared by e${i}`) },
				// Not `{content: <not an array>}`: pi 0.73.1 stores it and a later compaction fails; Settle
				// reports and ignores it (fixed defect, test/extensions/tool-result-content-not-array.test.ts;
				// pinned on both in pi-differential-divergences.test.ts).
				{ content: [] },
				{ content: text(`${textOf(e.content)} ${tag}`), details: { chained: i } },
			][variant];
		case "message_end": {
			const m = e.message as Rec;
			if (isSystem(m)) return undefined;
			const mark = `${MESSAGE_END_MARK}${i}`;
			const content = Array.isArray(m.content)
				? (m.content as Rec[]).map((b) => (b.type === "text" ? { ...b, text: `${String(b.text)} ${mark}` } : b))
				: `${String(m.content)} ${mark}`;
			return [
				{ message: { ...m, content } },
				{
					message: {
						role: m.role === "user" ? "assistant" : "user",
						content: text(`wrong role ${mark}`),
						timestamp: 0,
					},
				},
				// Not `content: null`: Settle stores `[]` (behavior C.10, doc version); pi 0.73.1 keeps null
				// and its run ends without `turn_end` (pinned in pi-differential-divergences.test.ts).
				// (A replacement that changes the text in other ways would reach pi's next request late, see
				// withoutMessageEndMarks: an unchanged copy.)
				{ message: { ...m } },
				undefined,
				{},
				"junk",
			][variant];
		}
		case "session_before_compact": {
			const preparation = e.preparation as Rec;
			return [
				{ cancel: true },
				{
					compaction: {
						summary: `custom summary by e${i}`,
						firstKeptEntryId: preparation.firstKeptEntryId,
						tokensBefore: preparation.tokensBefore,
						details: { by: i },
					},
				},
				{ cancel: false },
				undefined,
				// Not `{}`: after a supplied compaction it keeps it in Settle, pi 0.73.1 drops it
				// (pinned in pi-differential-divergences.test.ts).
				null,
				{
					compaction: {
						summary: `custom summary by e${i}`,
						firstKeptEntryId: preparation.firstKeptEntryId,
						tokensBefore: preparation.tokensBefore,
					},
				},
			][variant];
		}
		default:
			return { ignored: true };
	}
}

/** A tool registered at runtime by an extension (`registerTool` call). */
function dynTool(i: number) {
	return {
		name: "dyn",
		label: "Dyn",
		description: `Registered at runtime by e${i}`,
		parameters: { type: "object", properties: { text: { type: "string" } } },
		async execute(_id: string, params: Rec) {
			return { content: text(`dyn e${i}: ${String(params.text ?? "")}`), details: { i } };
		},
	};
}

/** Runs one API call and logs what it returned. */
async function runCall(
	call: ApiCall,
	api: LooseApi,
	ctx: LooseCtx,
	i: number,
	log: (line: string) => void,
	streaming = false,
) {
	const tag = `e${i}`;
	// An `input` handler reached mid-run (the message a streaming hook queued, `streaming`) writes
	// nothing: there its write races pi's unawaited persistence of the running message (C.10), the
	// module comment's rule for loop-awaited hooks (seed 409945443 path
	// 1128:2:1:1:1:2:1:2:3:3:3:4:4:4:4:4:4:6:5: a setSessionName while a command's custom message ran;
	// pi wrote `session_info` before that message's entry, Settle after; pinned in
	// pi-differential-divergences.test.ts). It logs that it skipped, so the handler is still compared.
	if (streaming && WRITING_CALLS.has(call.kind)) {
		log(`${call.kind}: not made mid-run`);
		return;
	}
	switch (call.kind) {
		case "sendMessage":
			api.sendMessage(
				{ customType: `msg-${tag}`, content: `message from ${tag}`, display: call.display, details: { i } },
				{ triggerTurn: call.triggerTurn, ...(call.deliverAs ? { deliverAs: call.deliverAs } : {}) },
			);
			return;
		case "sendUserMessage":
			api.sendUserMessage(`user message from ${tag}`, call.deliverAs ? { deliverAs: call.deliverAs } : undefined);
			return;
		case "appendEntry":
			api.appendEntry(`entry-${tag}`, { i });
			return;
		case "setLabel": {
			const leaf = ctx.sessionManager.getLeafId();
			if (leaf) api.setLabel(leaf, `label ${tag}`);
			log(`label set: ${leaf ? "yes" : "no leaf"}`);
			return;
		}
		case "sessionName":
			api.setSessionName(`name ${tag}`);
			log(`name: ${String(api.getSessionName())}`);
			return;
		case "setModel": {
			// Built from ctx.model: pi's test registry does not list faux models (pi-ai registers them).
			const model =
				call.target === "same"
					? ctx.model
					: { ...ctx.model, id: call.target, reasoning: call.target === "faux-2", name: `Model ${call.target}` };
			log(`setModel ${call.target}: ${String(await api.setModel(model))} thinking=${api.getThinkingLevel()}`);
			return;
		}
		case "thinking":
			api.setThinkingLevel(call.level);
			log(`thinking: ${api.getThinkingLevel()}`);
			return;
		case "activeTools": {
			const all = api.getAllTools().map((tool) => tool.name);
			const keep = call.keep === "all" ? all : call.keep === "none" ? [] : all.filter((name) => name === "echo");
			api.setActiveTools(keep);
			log(`tools: all=${all.join(",")} active=${api.getActiveTools().join(",")}`);
			return;
		}
		case "registerTool":
			api.registerTool(dynTool(i));
			log(`registered: active=${api.getActiveTools().join(",")}`);
			return;
		case "getCommands":
			log(
				`commands: ${api
					.getCommands()
					.map((command) => `${command.name}(${command.source}: ${command.description})`)
					.join(",")}`,
			);
			return;
		case "exec": {
			const result = await api.exec("echo", [`exec ${tag}`]);
			log(`exec: ${JSON.stringify(result.stdout)} code=${result.code} killed=${result.killed}`);
			return;
		}
		case "reads": {
			// Not while a loop-awaited hook runs (`streaming`): pi persists the run's messages from its
			// unawaited event queue (C.10), so what its session holds there depends on how far the queue got.
			const entries = streaming
				? "<not compared>"
				: comparableEntries(ctx.sessionManager.getEntries())
						.map((entry) => entry.type)
						.join(",");
			log(`reads: idle=${ctx.isIdle()} pending=${ctx.hasPendingMessages()} entries=${entries} model=${ctx.model?.id}`);
			return;
		}
		case "ui": {
			ctx.ui.notify(`note from ${tag}`, "info");
			ctx.ui.setStatus(tag, "busy");
			const answers = [
				await ctx.ui.confirm("Sure?", "Really"),
				await ctx.ui.select("Pick", ["a", "b"]),
				await ctx.ui.input("Name"),
			];
			log(`ui: hasUI=${ctx.hasUI} ${JSON.stringify(answers)}`);
			return;
		}
		case "abort":
			log("abort");
			ctx.abort();
			return;
	}
}

/** The extensions of a program, as factories writing into `log`. */
export function programExtensions(program: Program, log: ProgramLog): SharedExtension[] {
	return [...program.extensions.map((spec, i) => generated(spec, i, log)), observer(log)];
}

/**
 * Loaded last on both peers: logs the system prompt each request is built with (the `+e<i>` marks a
 * `before_agent_start` override added), which the normalized requests do not show.
 */
function observer(log: ProgramLog): SharedExtension {
	return (typed: ExtensionAPI) => {
		const api = typed as unknown as LooseApi;
		api.on("context", (_event, ctx) => void log.awaited.push(`observer sys[${promptMarks(ctx.getSystemPrompt())}]`));
	};
}

function generated(spec: ExtensionSpec, i: number, log: ProgramLog): SharedExtension {
	return (typed: ExtensionAPI) => {
		const api = typed as unknown as LooseApi;
		let lastQueued = "";
		for (const handler of spec.handlers) {
			const { event, behavior } = handler;
			const channel = log[channelOf(event)];
			const writeLine = (line: string) => void channel.push(`e${i} ${line}`);
			let called = false;
			api.on(event, (e, ctx) => tracked(log, handle(e, ctx)));
			const handle = (e: Rec, ctx: LooseCtx): unknown => {
				// Settle runs `before_provider_request` on summarization requests too (pi#8999); pi 0.73.1
				// only on turns. Handlers pass them over unseen, so both peers observe turns alike (Settle's
				// side: test/pi-races/extension-request-hooks.test.ts).
				if (event === "before_provider_request" && isSummarizerPayload(e.payload)) return undefined;
				log.activity.started++;
				// What a call made from a tool hook logs names the tool call (see toolCallBlocks in play).
				const write =
					typeof e.toolCallId === "string"
						? (line: string) => void channel.push(`e${i} [${String(e.toolCallId)}] ${line}`)
						: writeLine;
				if (event.startsWith("message_") && isSystem(e.message)) return undefined;
				// Streaming granularity is each faux provider's own: one line per run of updates, without
				// the partial text.
				const line =
					event === "message_update"
						? `message_update ${String((e.message as Rec).role)}`
						: `${event} ${payload(event, e, ctx)}`;
				if (QUEUED_EVENTS.has(event)) {
					if (event === "message_update" && lastQueued === line) return undefined;
					lastQueued = line;
				}
				write(line);
				switch (behavior.kind) {
					case "observe":
						return undefined;
					case "return":
						return RESULT_HOOKS.has(event) ? returnValue(event, behavior.variant, e, i) : { ignored: true };
					case "throw": {
						// An `input` handler reached mid-run (a message a streaming hook queued) says so: its
						// report races the dispatch that queued it (runtimeErrorsAsOwnChannel in the property).
						const where = event === "input" && !ctx.isIdle() ? " mid-run" : "";
						if (behavior.async) return Promise.reject(new Error(`e${i} ${event} failed${where} (async)`));
						throw new Error(`e${i} ${event} failed${where}`);
					}
					case "call":
						// Once per handler: a message queued from every `context` call would keep the run going.
						if (called) return undefined;
						called = true;
						// An `input` handler of a message a streaming hook queued (sendUserMessage) runs mid-run
						// too (seed 494356137 path 359:2:1:3:3:3:3:4:5:5:5:5:5:5:5:5:5:5:5:5: its `reads` of the
						// session while a command's custom message ran; pi's did not hold that message yet, C.10).
						return runCall(
							behavior.call,
							api,
							ctx,
							i,
							write,
							STREAMING_HOOKS.has(event) || (event === "input" && !ctx.isIdle()),
						).then(() => undefined);
				}
			};
		}
		const write = (line: string) => void log.awaited.push(`e${i} ${line}`);
		api.registerCommand("shared", {
			description: `Shared name, e${i}`,
			handler: async (args) => void write(`command /shared ${JSON.stringify(args)}`),
		});
		api.registerCommand(`e${i}`, {
			description: `Command of e${i}`,
			handler: (args, ctx) =>
				tracked(
					log,
					(async () => {
						log.activity.started++;
						write(`command /e${i} ${JSON.stringify(args)}`);
						for (const call of spec.command) await runCall(call, api, ctx, i, write);
					})(),
				),
		});
	};
}

/** The custom tools both peers get (`dyn` comes from an extension at runtime). */
export function programTools(): SharedTool[] {
	return [
		{
			name: "echo",
			label: "Echo",
			description: "Echoes its text",
			parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
			async execute(_id, params) {
				return { content: text(`echoed: ${String(params.text)}`), details: { echoed: true } };
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
	];
}

/** The reply a generated step gives. */
export function replySpec(reply: ReplyGen, index: number): ReplySpec {
	const spec: ReplySpec = {};
	if (reply.text || reply.calls.length === 0) spec.text = `answer ${index}`;
	const calls = reply.calls.map((kind, i) => {
		const id = `call-${index}-${i}`;
		switch (kind) {
			case "echo":
				return { id, name: "echo", args: { text: `echo ${index}.${i}` } };
			case "fail":
				return { id, name: "fail", args: {} };
			case "dyn":
				return { id, name: "dyn", args: { text: `dyn ${index}.${i}` } };
			default:
				return { id, name: "no_such_tool", args: {} };
		}
	});
	if (calls.length > 0) spec.toolCalls = calls;
	return spec;
}
