/**
 * Shared pieces of the differential tests against pi 0.73.1's SessionManager: random operations
 * both implementations accept, one driver that runs an operation on either, and snapshots of
 * everything a user can observe, with random entry ids and file paths replaced by their position
 * (ids and timestamps are random/clock-based in both, so they can only be compared by position).
 *
 * Deliberate differences (Settle follows spec/pi-behavior.md, i.e. newer pi, where 0.73.1 is older)
 * are normalized in ONE place each, named `DELIBERATE_*` below; everything else must be equal.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import fc from "fast-check";
import { usage } from "./helpers.js";

/** The part of both SessionManagers' surfaces the differential drives (pi's and Settle's signatures agree). */
export interface Store {
	appendMessage(message: object): string;
	appendThinkingLevelChange(level: "off" | "minimal" | "low" | "medium" | "high" | "xhigh"): string;
	appendModelChange(provider: string, modelId: string): string;
	appendCompaction(
		summary: string,
		firstKeptEntryId: string,
		tokensBefore: number,
		details?: unknown,
		fromHook?: boolean,
	): string;
	appendCustomEntry(customType: string, data?: unknown): string;
	appendCustomMessageEntry(customType: string, content: never, display: boolean, details?: unknown): string;
	appendSessionInfo(name: string): string;
	appendLabelChange(targetId: string, label: string | undefined): string;
	branch(id: string): void;
	resetLeaf(): void;
	branchWithSummary(id: string | null, summary: string, details?: unknown, fromHook?: boolean): string;
	createBranchedSession(leafId: string): string | undefined;
	newSession(): string | undefined;
	setSessionFile(path: string): void;
	getEntries(): Entry[];
	getLeafId(): string | null;
	getLeafEntry(): Entry | undefined;
	getEntry(id: string): Entry | undefined;
	getChildren(parentId: string | null): Entry[];
	getLabel(id: string): string | undefined;
	getBranch(fromId?: string): Entry[];
	getTree(): TreeNode[];
	getSessionName(): string | undefined;
	getHeader(): Record<string, unknown> | null;
	getSessionId(): string;
	getSessionFile(): string | undefined;
	buildSessionContext(): { messages: object[]; thinkingLevel: string; model: unknown };
}

export interface Entry {
	type: string;
	id: string;
	parentId: string | null;
	timestamp: string;
	[key: string]: unknown;
}

export interface TreeNode {
	entry: Entry;
	children: TreeNode[];
	label?: string;
	labelTimestamp?: string;
}

export const asStore = (manager: unknown): Store => manager as Store;

/** An id no entry has (ids are 8 hex chars or a UUID in both). */
export const UNKNOWN_ID = "no-such-entry";

// -------------------------------------------------------------------------------------------------
// Operations

/** A fraction in [0, 1) that picks from whatever list exists when the op runs (uniform, unlike fc.double). */
const pick = fc.integer({ min: 0, max: 999 }).map((n) => n / 1000);
/** An entry reference: usually an existing entry, sometimes an id that does not exist. */
const ref = fc.oneof({ weight: 9, arbitrary: pick }, { weight: 1, arbitrary: fc.constant(UNKNOWN_ID) });
const word = fc.constantFrom("a", "b", "fix it", "ok", "", "read a.txt", "ünïcode ✓");
const textBlocks = fc.array(
	word.map((text) => ({ type: "text" as const, text })),
	{ minLength: 1, maxLength: 2 },
);
const timestamp = fc.integer({ min: 1_700_000_000_000, max: 1_700_000_999_999 });
const details = fc.option(fc.record({ readFiles: fc.array(word, { maxLength: 2 }), modifiedFiles: fc.constant([]) }), {
	nil: undefined,
});
const fromHook = fc.option(fc.boolean(), { nil: undefined });

const userMessage = fc.record({
	role: fc.constant("user"),
	content: fc.oneof(word, textBlocks),
	timestamp,
});
const assistantMessage = fc
	.record({
		text: word,
		thinking: fc.option(word, { nil: undefined }),
		toolCall: fc.boolean(),
		provider: fc.constantFrom("faux", "openai"),
		model: fc.constantFrom("m1", "m2"),
		stopReason: fc.constantFrom("stop", "length", "error", "aborted"),
		timestamp,
	})
	.map((a) => ({
		role: "assistant",
		content: [
			...(a.thinking !== undefined ? [{ type: "thinking", thinking: a.thinking }] : []),
			{ type: "text", text: a.text },
			...(a.toolCall ? [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } }] : []),
		],
		api: "faux",
		provider: a.provider,
		model: a.model,
		usage,
		stopReason: a.toolCall ? "toolUse" : a.stopReason,
		...(a.stopReason === "error" ? { errorMessage: "boom" } : {}),
		timestamp: a.timestamp,
	}));
const toolResultMessage = fc.record({
	role: fc.constant("toolResult"),
	toolCallId: fc.constant("call_1"),
	toolName: fc.constant("read"),
	content: textBlocks,
	details: fc.constant(undefined),
	isError: fc.boolean(),
	timestamp,
});
const bashMessage = fc.record(
	{
		role: fc.constant("bashExecution"),
		command: word,
		output: word,
		exitCode: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
		cancelled: fc.boolean(),
		truncated: fc.boolean(),
		excludeFromContext: fc.boolean(),
		timestamp,
	},
	{ requiredKeys: ["role", "command", "output", "cancelled", "truncated", "timestamp"] },
);
/** The legacy message form of a custom message (stored as a `message` entry). */
const customRoleMessage = fc.record({
	role: fc.constant("custom"),
	customType: fc.constantFrom("ext", "legacy"),
	content: fc.oneof(word, textBlocks),
	display: fc.boolean(),
	details: fc.constant(undefined),
	timestamp,
});

export type Op =
	| { kind: "message"; message: Record<string, unknown> }
	| { kind: "thinking"; level: "off" | "minimal" | "low" | "medium" | "high" | "xhigh" }
	| { kind: "model"; provider: string; modelId: string }
	| { kind: "compaction"; keep: number; summary: string; tokensBefore: number; details?: unknown; fromHook?: boolean }
	| { kind: "customEntry"; customType: string; data?: unknown }
	| { kind: "customMessage"; customType: string; content: unknown; display: boolean; details?: unknown }
	| { kind: "sessionInfo"; name: string }
	| { kind: "label"; target: number | string; label: string | undefined }
	| { kind: "branch"; target: number | string }
	| { kind: "resetLeaf" }
	| {
			kind: "branchWithSummary";
			target: number | string | null;
			summary: string;
			details?: unknown;
			fromHook?: boolean;
	  }
	| { kind: "createBranched"; target: number | string }
	| { kind: "newSession" }
	| { kind: "reopen" }
	| { kind: "switchFile"; target: number };

/** Ops that need the session factories or the files seen so far (run by the sequence, not {@link runOp}). */
export type SequenceOp = Extract<Op, { kind: "reopen" | "switchFile" }>;

const k = <K extends Op["kind"]>(kind: K) => fc.constant(kind);

export const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ kind: k("message"), message: userMessage }) },
	{ weight: 6, arbitrary: fc.record({ kind: k("message"), message: assistantMessage }) },
	{ weight: 2, arbitrary: fc.record({ kind: k("message"), message: toolResultMessage }) },
	{ weight: 1, arbitrary: fc.record({ kind: k("message"), message: bashMessage }) },
	{ weight: 1, arbitrary: fc.record({ kind: k("message"), message: customRoleMessage }) },
	{
		weight: 2,
		arbitrary: fc.record({ kind: k("thinking"), level: fc.constantFrom("off", "minimal", "low", "high", "xhigh") }),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: k("model"),
			provider: fc.constantFrom("faux", "anthropic"),
			modelId: fc.constantFrom("m1", "m3"),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record(
			{
				kind: k("compaction"),
				keep: pick,
				summary: word,
				tokensBefore: fc.nat(200_000),
				details,
				fromHook,
			},
			{ requiredKeys: ["kind", "keep", "summary", "tokensBefore"] },
		),
	},
	{
		weight: 1,
		arbitrary: fc.record(
			{ kind: k("customEntry"), customType: fc.constantFrom("state", "todo"), data: fc.jsonValue({ maxDepth: 1 }) },
			{ requiredKeys: ["kind", "customType"] },
		),
	},
	{
		weight: 2,
		arbitrary: fc.record(
			{
				kind: k("customMessage"),
				customType: fc.constantFrom("reminder", "ext"),
				content: fc.oneof(word, textBlocks),
				display: fc.boolean(),
				details: fc.jsonValue({ maxDepth: 1 }),
			},
			{ requiredKeys: ["kind", "customType", "content", "display"] },
		),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: k("sessionInfo"),
			name: fc.constantFrom("Refactor", "  padded  ", "two\nlines", "cr\r\nlf", "", "  "),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: k("label"),
			target: ref,
			label: fc.constantFrom<string | undefined>("start", "checkpoint", "", undefined),
		}),
	},
	{ weight: 3, arbitrary: fc.record({ kind: k("branch"), target: ref }) },
	{ weight: 1, arbitrary: fc.record({ kind: k("resetLeaf") }) },
	{
		weight: 2,
		arbitrary: fc.record(
			{
				kind: k("branchWithSummary"),
				target: fc.oneof({ weight: 8, arbitrary: ref }, { weight: 1, arbitrary: fc.constant(null) }),
				summary: word,
				details,
				fromHook,
			},
			{ requiredKeys: ["kind", "target", "summary"] },
		),
	},
	{ weight: 2, arbitrary: fc.record({ kind: k("createBranched"), target: ref }) },
	{ weight: 1, arbitrary: fc.record({ kind: k("newSession") }) },
	{ weight: 1, arbitrary: fc.record({ kind: k("reopen") }) },
	{ weight: 2, arbitrary: fc.record({ kind: k("switchFile"), target: pick }) },
);

/** Resolves a reference against the store's own entries (the same position on both sides). */
export function resolveRef(entries: readonly Entry[], target: number | string): string {
	if (typeof target === "string" || entries.length === 0) return typeof target === "string" ? target : UNKNOWN_ID;
	return entries[Math.floor(target * entries.length)]!.id;
}

/**
 * Entries `createBranchedSession` may start from in the differential: those whose root path has
 * no label entry before a non-label entry.
 *
 * PI_BUG_BRANCHED_LABEL_PARENTS: pi 0.73.1 drops the label entries from the path but keeps the
 * parentId of the entry after each one, so that entry points at an id not in the new file and
 * becomes an orphan root (the branched session's context loses everything before it). Settle
 * re-links the path. Shown on its own in pi-differential.property.test.ts.
 */
export function branchableEntries(store: Store): Entry[] {
	return store.getEntries().filter((entry) => {
		const path = store.getBranch(entry.id);
		let lastNonLabel = -1;
		for (let i = 0; i < path.length; i++) if (path[i]!.type !== "label") lastNonLabel = i;
		return path.slice(0, lastNonLabel).every((e) => e.type !== "label");
	});
}

// -------------------------------------------------------------------------------------------------
// Running

export type Outcome = { ok: unknown } | { error: string };

export function attempt(fn: () => unknown): Outcome {
	try {
		return { ok: fn() };
	} catch (error) {
		return { error: error instanceof Error ? error.message : String(error) };
	}
}

/**
 * Runs one op (except a {@link SequenceOp}) on a store. `side` selects the checks of
 * the branch_summary `fromId`, where the two differ on purpose (see DELIBERATE_BRANCH_SUMMARY_FROM_ID).
 */
export function runOp(store: Store, op: Exclude<Op, SequenceOp>, side: "pi" | "settle"): Outcome {
	const entries = store.getEntries();
	switch (op.kind) {
		case "message":
			return attempt(() => store.appendMessage(structuredClone(op.message)));
		case "thinking":
			return attempt(() => store.appendThinkingLevelChange(op.level));
		case "model":
			return attempt(() => store.appendModelChange(op.provider, op.modelId));
		case "compaction":
			if (entries.length === 0) return { ok: "skipped: nothing to keep" };
			return attempt(() =>
				store.appendCompaction(op.summary, resolveRef(entries, op.keep), op.tokensBefore, op.details, op.fromHook),
			);
		case "customEntry":
			return attempt(() => store.appendCustomEntry(op.customType, structuredClone(op.data)));
		case "customMessage":
			return attempt(() =>
				store.appendCustomMessageEntry(op.customType, structuredClone(op.content) as never, op.display, op.details),
			);
		case "sessionInfo":
			return attempt(() => store.appendSessionInfo(op.name));
		case "label":
			return attempt(() => store.appendLabelChange(resolveRef(entries, op.target), op.label));
		case "branch":
			return attempt(() => store.branch(resolveRef(entries, op.target)));
		case "resetLeaf":
			return attempt(() => store.resetLeaf());
		case "branchWithSummary": {
			const target = op.target === null ? null : resolveRef(entries, op.target);
			const previousLeaf = store.getLeafId();
			const outcome = attempt(() => store.branchWithSummary(target, op.summary, op.details, op.fromHook));
			if ("ok" in outcome) {
				const entry = store.getEntry(outcome.ok as string)!;
				// DELIBERATE_BRANCH_SUMMARY_FROM_ID: pi (0.73.1, and the later sources we read) records the
				// branch target in `fromId`; Settle records the leaf the user came from, as spec D.3
				// says. Each side is checked against its own rule here; snapshots then mask the field.
				const expected = side === "pi" ? (target ?? "root") : (previousLeaf ?? "root");
				if (entry.fromId !== expected) {
					return { error: `${side} branch_summary fromId ${String(entry.fromId)}, expected ${expected}` };
				}
			}
			return outcome;
		}
		case "createBranched": {
			let id: string;
			if (typeof op.target === "string") id = op.target;
			else {
				const candidates = branchableEntries(store);
				if (candidates.length === 0) return { ok: "skipped: nothing to branch from" };
				id = candidates[Math.floor(op.target * candidates.length)]!.id;
			}
			return attempt(() => store.createBranchedSession(id));
		}
		case "newSession":
			return attempt(() => store.newSession());
	}
}

// -------------------------------------------------------------------------------------------------
// Snapshots

/** Replaces ids by their position in the entry list and session files by their order of appearance. */
export class Canon {
	private readonly ids = new Map<string, string>();
	constructor(
		entries: readonly { id?: unknown }[],
		private readonly files: string[],
	) {
		entries.forEach((entry, i) => {
			if (typeof entry.id === "string" && !this.ids.has(entry.id)) this.ids.set(entry.id, `#${i}`);
		});
	}

	id(id: unknown): unknown {
		if (typeof id !== "string") return id;
		if (id === "root" || id === UNKNOWN_ID) return id;
		return this.ids.get(id) ?? `?unknown-id`;
	}

	file(path: unknown): unknown {
		if (typeof path !== "string") return path;
		let i = this.files.indexOf(path);
		if (i < 0) i = this.files.push(path) - 1;
		return `file#${i}`;
	}

	text(value: string): string {
		let out = value;
		for (const [id, canon] of this.ids) out = out.split(id).join(canon);
		return out;
	}
}

/**
 * DELIBERATE_SESSION_NAME_NEWLINES: spec D.2 (newer pi) collapses newlines in a session name to
 * spaces; pi 0.73.1 only trims. Applied to both sides.
 */
const collapseName = (name: unknown) => (typeof name === "string" ? name.replace(/[\r\n]+/g, " ").trim() : name);

function plain<T>(value: T): T {
	return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

export function normalizeEntry(entry: Entry | undefined, canon: Canon): unknown {
	if (!entry) return entry;
	const out = plain(entry) as Record<string, unknown>;
	delete out.timestamp;
	out.id = canon.id(out.id);
	out.parentId = canon.id(out.parentId);
	if ("targetId" in out) out.targetId = canon.id(out.targetId);
	if ("firstKeptEntryId" in out) out.firstKeptEntryId = canon.id(out.firstKeptEntryId);
	if (out.type === "branch_summary") out.fromId = "<masked: DELIBERATE_BRANCH_SUMMARY_FROM_ID>";
	if (out.type === "session_info") out.name = collapseName(out.name);
	return out;
}

export function normalizeMessage(message: object): unknown {
	const out = plain(message) as Record<string, unknown>;
	// Derived messages take their entry's clock-based timestamp.
	if (out.role === "compactionSummary" || out.role === "branchSummary" || out.role === "custom") delete out.timestamp;
	if (out.role === "branchSummary") out.fromId = "<masked: DELIBERATE_BRANCH_SUMMARY_FROM_ID>";
	return out;
}

export function normalizeContext(context: ReturnType<Store["buildSessionContext"]>): unknown {
	return { ...context, messages: context.messages.map(normalizeMessage) };
}

function treeShape(nodes: readonly TreeNode[], canon: Canon, store: Store, entries: readonly Entry[]): unknown[] {
	return nodes.map((node) => {
		// The label timestamp must be that of the latest label entry for the target (kept by createBranchedSession).
		const labelEntries = entries.filter((e) => e.type === "label" && e.targetId === node.entry.id);
		return {
			id: canon.id(node.entry.id),
			label: node.label,
			labelTimestampIsLatestLabelEntry:
				node.labelTimestamp === undefined ? undefined : node.labelTimestamp === labelEntries.at(-1)?.timestamp,
			children: treeShape(node.children, canon, store, entries),
		};
	});
}

/** Everything a user can observe through the store's getters, with positions for ids. */
export function snapshot(store: Store, files: string[]): unknown {
	const entries = store.getEntries();
	const canon = new Canon(entries, files);
	const header = store.getHeader()!;
	const file = store.getSessionFile();
	const timestampInName = typeof header.timestamp === "string" ? header.timestamp.replace(/[:.]/g, "-") : "";
	return {
		entries: entries.map((e) => normalizeEntry(e, canon)),
		byId: entries.map((e) => normalizeEntry(store.getEntry(e.id), canon)),
		leaf: canon.id(store.getLeafId()),
		leafEntry: normalizeEntry(store.getLeafEntry(), canon),
		branch: store.getBranch().map((e) => canon.id(e.id)),
		branches: entries.map((e) => store.getBranch(e.id).map((b) => canon.id(b.id))),
		unknownBranch: store.getBranch(UNKNOWN_ID),
		tree: treeShape(store.getTree(), canon, store, entries),
		children: [null, ...entries.map((e) => e.id)].map((id) => store.getChildren(id).map((c) => canon.id(c.id))),
		labels: entries.map((e) => store.getLabel(e.id)),
		name: collapseName(store.getSessionName()),
		header: {
			type: header.type,
			version: header.version,
			cwd: header.cwd,
			parentSession: canon.file(header.parentSession),
			idIsSessionId: header.id === store.getSessionId(),
		},
		file: file === undefined ? undefined : canon.file(file),
		fileNamedAfterHeader: file === undefined ? undefined : basename(file) === `${timestampInName}_${header.id}.jsonl`,
		context: normalizeContext(store.buildSessionContext()),
	};
}

/** An outcome with returned ids and file paths replaced by positions (after the op). */
export function normalizeOutcome(store: Store, outcome: Outcome, files: string[]): unknown {
	const canon = new Canon(store.getEntries(), files);
	if ("error" in outcome) return { error: canon.text(outcome.error) };
	const value = outcome.ok;
	if (typeof value !== "string" || value.startsWith("skipped")) return { ok: value };
	return { ok: value.endsWith(".jsonl") ? canon.file(value) : canon.id(value) };
}

/** Lines of a session file, parsed; [] when it does not exist. */
export function readLines(file: string | undefined): Record<string, unknown>[] {
	if (!file || !existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A file's lines (header first) normalized like snapshot entries; the header's random id and clock time dropped. */
export function normalizeFile(lines: readonly Record<string, unknown>[], files: string[]): unknown[] {
	const [header, ...entries] = lines;
	const canon = new Canon(entries, files);
	if (!header) return [];
	const { id: _id, timestamp: _timestamp, ...rest } = header;
	return [
		{ ...rest, parentSession: canon.file(rest.parentSession) },
		...entries.map((e) => normalizeEntry(e as Entry, canon)),
	];
}

export function hasRole(entries: readonly Entry[], roles: readonly string[]): boolean {
	return entries.some((e) => e.type === "message" && roles.includes((e.message as { role: string }).role));
}

const RUNS_SCALE = (() => {
	const scale = Number(process.env.PI_DIFF_RUNS_SCALE ?? "1");
	return Number.isFinite(scale) && scale > 0 ? scale : 1;
})();

/**
 * `numRuns` for a differential property: `n` by default (the suite stays fast), scaled by
 * `PI_DIFF_RUNS_SCALE` for a deeper search (e.g. `PI_DIFF_RUNS_SCALE=20 npx vitest run test/store/pi-differential`).
 */
export function runs(n: number): number {
	return Math.max(1, Math.round(n * RUNS_SCALE));
}

/** The test timeout for a differential property, scaled with its runs. */
export const DIFF_TIMEOUT_MS = 30_000 * Math.max(1, RUNS_SCALE);
