/**
 * Shared pieces of the compaction differential against pi 0.73.1: random session entries both
 * implementations accept (linear branches and trees), random settings, recording summarizer models
 * for both sides (pi's faux provider, Settle's stream function), and the input views through which
 * Settle's documented token rules are expressed in pi's terms (each named `DELIBERATE_*`).
 */
import { type FauxProviderRegistration, fauxAssistantMessage, registerFauxProvider } from "@mariozechner/pi-ai";
import fc from "fast-check";
import type {
	AgentMessage,
	AssistantMessage,
	ImageContent,
	Model,
	StopReason,
	TextContent,
	ToolCall,
	Usage,
} from "../../src/llm/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { type RecordedRequest, scriptedStream } from "./builders.js";

// ---------------------------------------------------------------------------------------------
// Random content
// ---------------------------------------------------------------------------------------------

/** Short texts, texts with non-ASCII, and very long texts (tool results over the 2000-char cut). */
export const textArb: fc.Arbitrary<string> = fc.oneof(
	{ weight: 5, arbitrary: fc.string({ maxLength: 30 }) },
	{ weight: 1, arbitrary: fc.constant("") },
	{
		weight: 2,
		arbitrary: fc
			.tuple(fc.constantFrom("x", "é", "😀", "line\n", '{"a":1} '), fc.integer({ min: 50, max: 4000 }))
			.map(([unit, n]) => unit.repeat(n)),
	},
);

const pathArb: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 8, arbitrary: fc.constantFrom("src/a.ts", "src/b.ts", "README.md", "/abs/c.ts", "docs/d e.md") },
	{ weight: 1, arbitrary: fc.constantFrom("", 7, null) },
);

const toolCallArb: fc.Arbitrary<ToolCall> = fc
	.tuple(
		fc.constantFrom("read", "write", "edit", "bash", "ls", "grep"),
		fc.option(pathArb, { nil: undefined, freq: 6 }),
		fc.option(textArb, { nil: undefined }),
		fc.nat(999),
	)
	.map(([name, path, extra, n]) => {
		const args: Record<string, unknown> = {};
		if (path !== undefined) args.path = path;
		if (extra !== undefined) args[name === "bash" ? "command" : name === "write" ? "content" : "oldText"] = extra;
		if (n % 3 === 0) args.limit = n;
		return { type: "toolCall" as const, id: `call_${n}`, name, arguments: args };
	});

/** A real 1×1 PNG: data that is no image is left out of requests. */
const ONE_PIXEL_PNG =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const imageArb: fc.Arbitrary<ImageContent> = fc.constant({ type: "image", data: ONE_PIXEL_PNG, mimeType: "image/png" });
const textBlockArb: fc.Arbitrary<TextContent> = textArb.map((text) => ({ type: "text" as const, text }));

/** Content of user / custom / tool-result messages; `images` controls whether image blocks occur. */
function blocksArb(images: boolean): fc.Arbitrary<(TextContent | ImageContent)[]> {
	return fc.array(
		images ? fc.oneof({ weight: 4, arbitrary: textBlockArb }, { weight: 1, arbitrary: imageArb }) : textBlockArb,
		{
			maxLength: 3,
		},
	);
}

const usageArb: fc.Arbitrary<Usage | undefined> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc
			.record({ input: fc.nat(90_000), output: fc.nat(5000), totalTokens: fc.constantFrom(0, 1, 50_000, 150_000) })
			.map((u) => ({ ...emptyUsage(), ...u })),
	},
	{ weight: 1, arbitrary: fc.constant(emptyUsage()) },
	{ weight: 1, arbitrary: fc.constant(undefined) },
);

const stopReasonArb: fc.Arbitrary<StopReason> = fc.constantFrom(
	"stop",
	"toolUse",
	"length",
	"aborted",
	"error",
	"stop",
	"toolUse",
);

export const assistantArb: fc.Arbitrary<AssistantMessage> = fc
	.tuple(
		fc.array(
			fc.oneof(
				{ weight: 3, arbitrary: textBlockArb },
				{ weight: 1, arbitrary: textArb.map((thinking) => ({ type: "thinking" as const, thinking })) },
				{ weight: 3, arbitrary: toolCallArb },
			),
			{ maxLength: 4 },
		),
		usageArb,
		stopReasonArb,
	)
	.map(([content, usage, stopReason]) => {
		const message = {
			role: "assistant" as const,
			content,
			api: "faux:test",
			provider: "faux",
			model: "faux-1",
			usage,
			stopReason,
			...(stopReason === "error" ? { errorMessage: "boom" } : {}),
			timestamp: 0,
		};
		// Missing usage (older or foreign session files) is part of the input space.
		if (usage === undefined) delete (message as { usage?: Usage }).usage;
		return message as AssistantMessage;
	});

/**
 * Which entry kinds occur. `pure`: user / assistant / tool results and entries that carry no
 * message, where the two products' cut rules differ only by DELIBERATE_CUT_AT_OR_BEFORE. `mixed`
 * adds bash runs, custom messages (as entries and as `custom` messages), branch summaries and user
 * images.
 */
export type Mode = "pure" | "mixed";

/** A random entry body; compaction and branch-summary ids are resolved when the path is built. */
export type EntrySpec =
	| { kind: "user"; content: string | (TextContent | ImageContent)[] }
	| { kind: "assistant"; message: AssistantMessage }
	| { kind: "toolResult"; content: (TextContent | ImageContent)[]; isError: boolean; toolName: string }
	| { kind: "bash"; command: string; output: string; exitCode: number | undefined; excluded: boolean }
	| { kind: "customRole"; content: string | (TextContent | ImageContent)[]; display: boolean }
	| { kind: "customMessage"; content: string | (TextContent | ImageContent)[]; display: boolean }
	| { kind: "branchSummary"; summary: string; details: unknown; fromHook: boolean }
	| { kind: "compaction"; summary: string; keptPick: number; details: unknown; fromHook: boolean; tokensBefore: number }
	| { kind: "meta"; type: "model_change" | "thinking_level_change" | "label" | "custom" | "session_info" };

const recordedListsArb: fc.Arbitrary<unknown> = fc.oneof(
	fc.record({
		readFiles: fc.array(fc.constantFrom("src/a.ts", "old/r.ts", "README.md"), { maxLength: 2 }),
		modifiedFiles: fc.array(fc.constantFrom("src/b.ts", "old/m.ts"), { maxLength: 2 }),
	}),
	fc.constantFrom(undefined, { custom: true }, { readFiles: "nope" }),
);

const summaryArb = fc.oneof(
	{ weight: 6, arbitrary: fc.constantFrom("## Goal\nship it", "earlier summary", "S".repeat(900), "") },
	{ weight: 1, arbitrary: textArb },
);

export function entrySpecArb(mode: Mode): fc.Arbitrary<EntrySpec> {
	const images = mode === "mixed";
	const common: fc.WeightedArbitrary<EntrySpec>[] = [
		{
			weight: 4,
			arbitrary: fc.oneof(textArb, blocksArb(images)).map((content) => ({ kind: "user" as const, content })),
		},
		{ weight: 6, arbitrary: assistantArb.map((message) => ({ kind: "assistant" as const, message })) },
		{
			weight: 4,
			arbitrary: fc
				.record({ content: blocksArb(true), isError: fc.boolean(), toolName: fc.constantFrom("read", "bash", "edit") })
				.map((r) => ({ kind: "toolResult" as const, ...r })),
		},
		{
			weight: 1,
			arbitrary: fc
				.constantFrom("model_change", "thinking_level_change", "label", "custom", "session_info")
				.map((type) => ({ kind: "meta" as const, type })),
		},
		{
			weight: 1,
			arbitrary: fc
				.record({
					summary: summaryArb,
					keptPick: fc.nat(),
					details: recordedListsArb,
					fromHook: fc.boolean(),
					tokensBefore: fc.nat(200_000),
				})
				.map((r) => ({ kind: "compaction" as const, ...r })),
		},
	];
	if (mode === "pure") return fc.oneof(...common);
	return fc.oneof(
		...common,
		{
			weight: 1,
			arbitrary: fc
				.record({
					command: textArb,
					output: textArb,
					exitCode: fc.constantFrom(0, 1, undefined),
					excluded: fc.boolean(),
				})
				.map((r) => ({ kind: "bash" as const, ...r })),
		},
		{
			weight: 1,
			arbitrary: fc
				.record({ content: fc.oneof(textArb, blocksArb(true)), display: fc.boolean() })
				.map((r) => ({ kind: "customMessage" as const, ...r })),
		},
		{
			weight: 1,
			arbitrary: fc
				.record({ content: fc.oneof(textArb, blocksArb(true)), display: fc.boolean() })
				.map((r) => ({ kind: "customRole" as const, ...r })),
		},
		{
			weight: 1,
			arbitrary: fc
				.record({ summary: summaryArb, details: recordedListsArb, fromHook: fc.boolean() })
				.map((r) => ({ kind: "branchSummary" as const, ...r })),
		},
	);
}

const BASE_TIME = Date.parse("2026-01-01T00:00:00.000Z");

/** Turns specs into entries; `parents[i]` is the parent index of entry i (-1: root). */
export function buildEntries(specs: readonly EntrySpec[], parents: readonly number[]): SessionEntry[] {
	const entries: SessionEntry[] = [];
	const pathTo = (index: number): number[] => {
		const path: number[] = [];
		for (let i = index; i >= 0; i = parents[i]!) path.push(i);
		return path.reverse();
	};
	specs.forEach((spec, i) => {
		const time = BASE_TIME + i * 1000;
		const base = {
			id: `e${String(i).padStart(3, "0")}`,
			parentId: parents[i]! >= 0 ? `e${String(parents[i]).padStart(3, "0")}` : null,
			timestamp: new Date(time).toISOString(),
		};
		const message = (m: AgentMessage): SessionEntry => ({ ...base, type: "message", message: m });
		switch (spec.kind) {
			case "user":
				entries.push(message({ role: "user", content: spec.content, timestamp: time }));
				break;
			case "assistant":
				entries.push(message({ ...spec.message, timestamp: time }));
				break;
			case "toolResult":
				entries.push(
					message({
						role: "toolResult",
						toolCallId: `call_${i}`,
						toolName: spec.toolName,
						content: spec.content,
						isError: spec.isError,
						timestamp: time,
					}),
				);
				break;
			case "bash":
				entries.push(
					message({
						role: "bashExecution",
						command: spec.command,
						output: spec.output,
						exitCode: spec.exitCode,
						cancelled: false,
						truncated: false,
						...(spec.excluded ? { excludeFromContext: true } : {}),
						timestamp: time,
					}),
				);
				break;
			case "customRole":
				entries.push(
					message({
						role: "custom",
						customType: "ext",
						content: spec.content,
						display: spec.display,
						details: undefined,
						timestamp: time,
					}),
				);
				break;
			case "customMessage":
				entries.push({
					...base,
					type: "custom_message",
					customType: "ext",
					content: spec.content,
					display: spec.display,
				});
				break;
			case "branchSummary":
				entries.push({
					...base,
					type: "branch_summary",
					fromId: "root",
					summary: spec.summary,
					...(spec.details === undefined ? {} : { details: spec.details }),
					...(spec.fromHook ? { fromHook: true } : {}),
				});
				break;
			case "compaction": {
				// The first kept entry is on the compaction's own path (as a real compaction writes it), or unknown.
				const path = pathTo(i).slice(0, -1);
				const kept = spec.keptPick % (path.length + 1);
				const firstKeptEntryId = kept === path.length ? "gone" : entries[path[kept]!]!.id;
				entries.push({
					...base,
					type: "compaction",
					summary: spec.summary,
					firstKeptEntryId,
					tokensBefore: spec.tokensBefore,
					...(spec.details === undefined ? {} : { details: spec.details }),
					...(spec.fromHook ? { fromHook: true } : {}),
				});
				break;
			}
			case "meta":
				entries.push(metaEntry(spec.type, base));
				break;
		}
	});
	return entries;
}

function metaEntry(
	type: Extract<EntrySpec, { kind: "meta" }>["type"],
	base: Pick<SessionEntry, "id" | "parentId" | "timestamp">,
): SessionEntry {
	switch (type) {
		case "model_change":
			return { ...base, type, provider: "faux", modelId: "faux-1" };
		case "thinking_level_change":
			return { ...base, type, thinkingLevel: "high" };
		case "label":
			return { ...base, type, targetId: base.parentId ?? base.id, label: "mark" };
		case "custom":
			return { ...base, type, customType: "ext-state", data: { n: 1 } };
		case "session_info":
			return { ...base, type, name: "named" };
	}
}

/** A linear branch (root first), in either mode. */
export function branchArb(mode: Mode, maxLength = 30): fc.Arbitrary<SessionEntry[]> {
	return fc.array(entrySpecArb(mode), { minLength: 1, maxLength }).map((specs) =>
		buildEntries(
			specs,
			specs.map((_, i) => i - 1),
		),
	);
}

/** A random tree (one root; every other entry's parent is an earlier entry) and two entries in it. */
export const treeArb: fc.Arbitrary<{ entries: SessionEntry[]; from: string; to: string }> = fc
	.tuple(fc.constantFrom<Mode>("pure", "mixed"), fc.integer({ min: 1, max: 30 }))
	.chain(([mode, n]) =>
		fc.record({
			specs: fc.array(entrySpecArb(mode), { minLength: n, maxLength: n }),
			parentPicks: fc.array(fc.nat(), { minLength: n, maxLength: n }),
			bias: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
			from: fc.nat(n - 1),
			to: fc.nat(n - 1),
		}),
	)
	.map(({ specs, parentPicks, bias, from, to }) => {
		// Mostly chains (the previous entry is the parent), with forks at random earlier entries.
		const parents = specs.map((_, i) => (i === 0 ? -1 : bias[i] ? i - 1 : parentPicks[i]! % i));
		const entries = buildEntries(specs, parents);
		return { entries, from: entries[from]!.id, to: entries[to]!.id };
	});

/** Read-only tree access over an entry list, the shape both products' branch-summary collectors read. */
export function treeReader(entries: readonly SessionEntry[]) {
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	return {
		getEntry: (id: string) => byId.get(id),
		getBranch(fromId?: string): SessionEntry[] {
			const path: SessionEntry[] = [];
			for (
				let entry = fromId ? byId.get(fromId) : undefined;
				entry;
				entry = entry.parentId ? byId.get(entry.parentId) : undefined
			) {
				path.push(entry);
			}
			return path.reverse();
		},
	};
}

/** Random compaction settings, scaled to the message sizes above (a few tokens to a few thousand). */
export const settingsArb = fc.record({
	enabled: fc.boolean(),
	keepRecentTokens: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 6000 })),
	reserveTokens: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.constant(16_384)),
});

// ---------------------------------------------------------------------------------------------
// Input views: Settle's documented token rules, expressed in pi's terms
// ---------------------------------------------------------------------------------------------

/**
 * DELIBERATE_USER_IMAGES_COUNTED: Settle counts an image in a user message as 4800 characters,
 * like pi does for tool results and custom messages (src/llm/tokens.ts `estimateMessageTokens`);
 * pi 0.73.1 counts user images as nothing. In pi's terms: each user image is a 4800-character text.
 *
 * DELIBERATE_ZERO_USAGE_IS_NO_USAGE: a response whose usage counts no tokens is treated like one
 * without usage (src/llm/tokens.ts `validAssistantUsage`), so the estimate falls back to the
 * messages instead of counting the context as empty; pi 0.73.1 takes such usage as 0 tokens.
 *
 * DELIBERATE_EXCLUDED_BASH_UNCOUNTED: a `!!` bash message (`excludeFromContext`) is never sent, so
 * Settle's estimate counts it as 0 (openclaw#121147: it filled the kept span at compaction and the
 * context usage); pi 0.73.1 counts its command and output. In pi's terms: its texts are empty.
 *
 * DELIBERATE_CJK_COUNTED: Settle counts a CJK character as 4 estimate characters (about one token,
 * src/llm/tokens.ts `estimateMessageTokens`, pi#2562); pi 0.73.1 counts 1. `textArb` holds no CJK,
 * so no view is needed here; test/pi-races/compaction-cjk-estimate.test.ts pins the difference.
 *
 * The view keeps a map back to the original messages so pi's outputs can be compared with Settle's.
 */
export function tokenView(messages: readonly AgentMessage[]): {
	view: AgentMessage[];
	original: Map<object, AgentMessage>;
} {
	const original = new Map<object, AgentMessage>();
	const view = messages.map((message) => {
		const converted = tokenViewOf(message);
		if (converted !== message) original.set(converted, message);
		return converted;
	});
	return { view, original };
}

export function tokenViewOf(message: AgentMessage): AgentMessage {
	if (message.role === "bashExecution" && message.excludeFromContext) return { ...message, command: "", output: "" };
	if (message.role === "user" && Array.isArray(message.content) && message.content.some((b) => b.type === "image")) {
		return {
			...message,
			content: message.content.map((block) =>
				block.type === "image" ? { type: "text" as const, text: "i".repeat(4800) } : block,
			),
		};
	}
	if (message.role === "assistant" && message.usage) {
		const u = message.usage;
		if ((u.totalTokens || u.input + u.output + u.cacheRead + u.cacheWrite) <= 0) {
			const { usage: _zero, ...rest } = message;
			return rest as AssistantMessage;
		}
	}
	return message;
}

/** The same view applied to the messages inside branch entries (entries are copied, ids kept). */
export function entriesTokenView(entries: readonly SessionEntry[]): {
	view: SessionEntry[];
	original: Map<object, AgentMessage>;
} {
	const original = new Map<object, AgentMessage>();
	const view = entries.map((entry) => {
		if (entry.type !== "message") return entry;
		const converted = tokenViewOf(entry.message);
		if (converted === entry.message) return entry;
		original.set(converted, entry.message);
		return { ...entry, message: converted };
	});
	return { view, original };
}

export function back(original: Map<object, AgentMessage>, messages: readonly unknown[]): unknown[] {
	return messages.map((message) => original.get(message as object) ?? message);
}

// ---------------------------------------------------------------------------------------------
// Summarizer models
// ---------------------------------------------------------------------------------------------

/** What a summarizer request looked like, in terms both products share. */
export interface SeenRequest {
	systemPrompt: string | undefined;
	/** The text of the one user message. */
	text: string;
	messageCount: number;
	maxTokens: number | undefined;
	reasoning: unknown;
	apiKey: unknown;
}

/** A summarizer answer: a text, or a provider error. */
export type Answer = { text: string } | { error: string };

export const answerArb: fc.Arbitrary<Answer> = fc.oneof(
	{ weight: 6, arbitrary: fc.constantFrom("## Goal\nsummary one", "summary two\nline", "x").map((text) => ({ text })) },
	{ weight: 1, arbitrary: fc.constant({ error: "529 overloaded" }) },
);

/** pi's side: its faux provider, answering by request order and recording each request. */
export class PiSummarizer {
	readonly requests: SeenRequest[] = [];
	private readonly faux: FauxProviderRegistration;

	constructor(reasoning: boolean, contextWindow: number) {
		this.faux = registerFauxProvider({
			provider: "faux",
			models: [{ id: "faux-1", reasoning, contextWindow, maxTokens: 32_000 }],
		});
	}

	model(): Model {
		return this.faux.getModel() as unknown as Model;
	}

	script(answers: readonly Answer[]): void {
		this.faux.setResponses(
			answers.map((answer) => (context, options) => {
				const message = context.messages[0];
				this.requests.push({
					systemPrompt: context.systemPrompt,
					text:
						message && Array.isArray(message.content)
							? message.content.map((b) => (b.type === "text" ? b.text : "")).join("")
							: String(message?.content),
					messageCount: context.messages.length,
					maxTokens: options?.maxTokens,
					reasoning: (options as { reasoning?: unknown } | undefined)?.reasoning,
					apiKey: options?.apiKey,
				});
				return "text" in answer
					? fauxAssistantMessage(answer.text)
					: fauxAssistantMessage("", { stopReason: "error", errorMessage: answer.error });
			}),
		);
	}

	dispose(): void {
		this.faux.unregister();
	}
}

/** Settle's side: the scripted stream function of test/compaction/builders.ts. */
export function settleSummarizer(answers: readonly Answer[]): {
	streamFn: ReturnType<typeof scriptedStream>["streamFn"];
	requests: () => SeenRequest[];
} {
	const { streamFn, requests } = scriptedStream(
		answers.map((a) => ("text" in a ? { text: a.text } : { error: a.error })),
	);
	return {
		streamFn,
		requests: () => requests.map(seen),
	};
}

function seen(request: RecordedRequest): SeenRequest {
	const message = request.context.messages[0];
	return {
		systemPrompt: request.context.systemPrompt,
		text:
			message && Array.isArray(message.content)
				? message.content.map((b) => (b.type === "text" ? b.text : "")).join("")
				: String(message?.content),
		messageCount: request.context.messages.length,
		maxTokens: request.options?.maxTokens,
		reasoning: request.options?.reasoning,
		apiKey: request.options?.apiKey,
	};
}

/** The parts of a summarization request text: `<conversation>`, optional `<previous-summary>`, instructions. */
export interface RequestParts {
	conversation: string;
	previousSummary: string | undefined;
	instructions: string;
}

export function requestParts(text: string): RequestParts {
	const match =
		/^<conversation>\n([\s\S]*)\n<\/conversation>\n\n(?:<previous-summary>\n([\s\S]*)\n<\/previous-summary>\n\n)?([\s\S]*)$/.exec(
			text,
		);
	if (!match) throw new Error(`not a summarization request: ${text.slice(0, 200)}`);
	return { conversation: match[1]!, previousSummary: match[2], instructions: match[3]! };
}

/** Markdown headings of a prompt, in order: the summary format both products ask for. */
export function headings(prompt: string): string[] {
	return prompt.split("\n").filter((line) => /^#{1,3} /.test(line));
}
