/**
 * The session tree as `/tree` prints it in `settle -i`: one line per entry (short id, label, role or
 * kind, a one-line excerpt), branches drawn with `├─`/`└─`, the current branch marked `•` and the
 * current position `← here`. As pi's tree view: the branch holding the current position comes
 * first, and bookkeeping entries (model and thinking changes, labels, names, extension data, the
 * recorded system prompt, assistant messages that only call tools) are left out unless `all`.
 *
 * Bounded: at most `maxLines` lines. Rows are chosen by priority — the current position, the
 * current branch nearest to it (up to half the lines), labelled entries, the start and end of
 * every branch, the rest of the current branch, your messages, then everything else — and every
 * run of rows left out is one `… N entries` line. Pure: no I/O.
 */
import type { SessionEntry, SessionTreeNode } from "../store/entries.js";
import { storedText } from "../store/entry-shape.js";
import { clip, compactArgs, oneLineText, terminalSafe } from "./interactive-render.js";

/** Options of {@link renderSessionTree}. */
export interface TreeRenderOptions {
	/** At most this many lines (at least 3: a gap, the current position, a gap); default unbounded. */
	maxLines?: number;
	/** Every entry, bookkeeping included (default false). */
	all?: boolean;
}

/** What {@link renderSessionTree} returns. */
export interface RenderedTree {
	lines: string[];
	/** Entries the tree view shows without a bound (bookkeeping left out unless `all`). */
	total: number;
	/** Entries on a line of their own (the others are counted in `… N entries` lines). */
	shown: number;
	/** Ids of the entries shown, in output order. */
	shownIds: string[];
}

/** Characters of an entry's excerpt. */
const EXCERPT_CHARS = 72;
const LABEL_CHARS = 40;
/** Characters of branch drawing kept (8 levels); deeper lines start with `⋯`. */
const PREFIX_CHARS = 24;
/** How many characters of an id are shown (pi's ids are 8 hex characters). */
export const SHORT_ID_CHARS = 8;

/** A visible entry of the tree, with the hidden entries between it and its children spliced out. */
interface VisibleNode {
	entry: SessionEntry;
	label: string | undefined;
	children: VisibleNode[];
}

/** One line of the tree before bounding. */
interface Row {
	node: VisibleNode;
	/** Branch drawing before the entry. */
	prefix: string;
	/** Drawing was cut (a very deep branch). */
	deep: boolean;
	/** The first entry of a branch (its line has a `├─`/`└─` connector). */
	branchStart: boolean;
	/** The last entry of a branch (no children). */
	branchEnd: boolean;
	onPath: boolean;
	leaf: boolean;
}

/**
 * The tree of a session as lines, at most `maxLines` of them.
 *
 * @example
 * ```ts
 * import { SessionManager } from "settle";
 *
 * const manager = SessionManager.inMemory(process.cwd());
 * manager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * renderSessionTree(manager.getTree(), manager.getLeafId(), { maxLines: 40 }).lines;
 * // ["• 1a2b3c4d user: hi  ← here"]
 * ```
 */
export function renderSessionTree(
	roots: readonly SessionTreeNode[],
	leafId: string | null,
	options: TreeRenderOptions = {},
): RenderedTree {
	const pathIds = activePath(roots, leafId);
	const toolCalls = new Map<string, { name: string; arguments: unknown }>();
	const visibleRoots = visibleTree(roots, leafId, options.all ?? false, toolCalls);
	const rows = flatten(visibleRoots, pathIds, leafId);
	const maxLines = Math.max(3, Math.floor(options.maxLines ?? Number.POSITIVE_INFINITY));
	const shown = chooseRows(rows, maxLines);
	const lines: string[] = [];
	const shownIds: string[] = [];
	let index = 0;
	while (index < rows.length) {
		const row = rows[index]!;
		if (shown[index]) {
			lines.push(rowLine(row, toolCalls));
			shownIds.push(row.node.entry.id);
			index++;
			continue;
		}
		let end = index;
		let branches = 0;
		while (end < rows.length && !shown[end]) {
			if (rows[end]!.branchStart) branches++;
			end++;
		}
		const count = end - index;
		const inBranches = branches > 1 ? ` in ${branches} branches` : "";
		lines.push(`${drawing(row)}  … ${count} ${count === 1 ? "entry" : "entries"}${inBranches}`);
		index = end;
	}
	return { lines, total: rows.length, shown: shownIds.length, shownIds };
}

/** The ids from a root down to the leaf. */
function activePath(roots: readonly SessionTreeNode[], leafId: string | null): Set<string> {
	const path = new Set<string>();
	if (leafId === null) return path;
	const parents = new Map<string, string | null>();
	const stack = [...roots];
	while (stack.length > 0) {
		const node = stack.pop()!;
		for (const child of node.children) {
			parents.set(child.entry.id, node.entry.id);
			stack.push(child);
		}
	}
	let id: string | null | undefined = leafId;
	while (id && !path.has(id)) {
		path.add(id);
		id = parents.get(id);
	}
	// An unknown leaf id (a broken file) marks nothing.
	return parents.has(leafId) || roots.some((root) => root.entry.id === leafId) ? path : new Set();
}

/** The tree without the hidden entries; their children hang from the nearest shown ancestor. */
function visibleTree(
	roots: readonly SessionTreeNode[],
	leafId: string | null,
	all: boolean,
	toolCalls: Map<string, { name: string; arguments: unknown }>,
): VisibleNode[] {
	const result: VisibleNode[] = [];
	// Pre-order, children in order: a hidden entry's children keep their place among its siblings.
	const stack: { node: SessionTreeNode; parent: VisibleNode[] }[] = [];
	for (let index = roots.length - 1; index >= 0; index--) stack.push({ node: roots[index]!, parent: result });
	while (stack.length > 0) {
		const { node, parent } = stack.pop()!;
		collectToolCalls(node.entry, toolCalls);
		let children = parent;
		if (all || node.entry.id === leafId || node.label !== undefined || !isBookkeeping(node.entry)) {
			const visible: VisibleNode = { entry: node.entry, label: node.label, children: [] };
			parent.push(visible);
			children = visible.children;
		}
		for (let index = node.children.length - 1; index >= 0; index--) {
			stack.push({ node: node.children[index]!, parent: children });
		}
	}
	return result;
}

/** Entries pi's tree view leaves out by default, and Settle's recorded system prompts. */
function isBookkeeping(entry: SessionEntry): boolean {
	switch (entry.type) {
		case "message": {
			const message = entry.message as { role: string; content?: unknown; stopReason?: string };
			if (message.role === "system") return true;
			if (message.role !== "assistant") return false;
			const failed =
				message.stopReason !== undefined && message.stopReason !== "stop" && message.stopReason !== "toolUse";
			return !failed && textOf(message.content).trim() === "";
		}
		case "custom_message":
		case "compaction":
		case "branch_summary":
			return false;
		default:
			return true;
	}
}

function collectToolCalls(entry: SessionEntry, toolCalls: Map<string, { name: string; arguments: unknown }>): void {
	if (entry.type !== "message" || entry.message.role !== "assistant") return;
	const content = (entry.message as { content?: unknown }).content;
	if (!Array.isArray(content)) return;
	for (const block of content as { type?: string; id?: string; name?: string; arguments?: unknown }[]) {
		if (block?.type === "toolCall" && typeof block.id === "string") {
			toolCalls.set(block.id, { name: String(block.name), arguments: block.arguments });
		}
	}
}

/** Pre-order rows, the child on the current branch first (iterative: a long session is a deep tree). */
function flatten(roots: VisibleNode[], pathIds: Set<string>, leafId: string | null): Row[] {
	const rows: Row[] = [];
	type Item = { node: VisibleNode; prefix: string; base: string; deep: boolean; branchStart: boolean };
	const stack: Item[] = [];
	const pushChildren = (children: VisibleNode[], base: string, deep: boolean, prefix: string) => {
		const ordered = activeFirst(children, pathIds);
		if (ordered.length === 1) {
			stack.push({ node: ordered[0]!, prefix, base, deep, branchStart: false });
			return;
		}
		for (let index = ordered.length - 1; index >= 0; index--) {
			const last = index === ordered.length - 1;
			const own = cut(base + (last ? "└─ " : "├─ "));
			const next = cut(base + (last ? "   " : "│  "));
			stack.push({
				node: ordered[index]!,
				prefix: own.text,
				base: next.text,
				deep: deep || own.cut || next.cut,
				branchStart: true,
			});
		}
	};
	pushChildren(roots, "", false, "");
	while (stack.length > 0) {
		const item = stack.pop()!;
		const { node } = item;
		rows.push({
			node,
			prefix: item.prefix,
			deep: item.deep,
			branchStart: item.branchStart,
			branchEnd: node.children.length === 0,
			onPath: pathIds.has(node.entry.id),
			leaf: node.entry.id === leafId,
		});
		pushChildren(node.children, item.base, item.deep, item.base);
	}
	return rows;
}

function activeFirst(children: VisibleNode[], pathIds: Set<string>): VisibleNode[] {
	const index = children.findIndex((child) => pathIds.has(child.entry.id));
	if (index <= 0) return children;
	return [children[index]!, ...children.slice(0, index), ...children.slice(index + 1)];
}

function cut(text: string): { text: string; cut: boolean } {
	return text.length > PREFIX_CHARS ? { text: text.slice(-PREFIX_CHARS), cut: true } : { text, cut: false };
}

/**
 * Which rows get a line of their own within `maxLines`: rows in priority order, each taken while
 * the lines (shown rows plus one per run of left-out rows) stay within the bound.
 */
function chooseRows(rows: Row[], maxLines: number): boolean[] {
	const shown = new Array<boolean>(rows.length).fill(false);
	if (rows.length <= maxLines) return shown.fill(true);
	let lines = 1; // everything left out: one `… N entries` line
	const take = (index: number): boolean => {
		if (shown[index]) return true;
		const hiddenBefore = index > 0 && !shown[index - 1];
		const hiddenAfter = index < rows.length - 1 && !shown[index + 1];
		// The row's line, minus the run it was in, plus the runs left on either side.
		const next = lines + (hiddenBefore ? 1 : 0) + (hiddenAfter ? 1 : 0);
		if (next > maxLines) return false;
		shown[index] = true;
		lines = next;
		return true;
	};
	const leafIndex = rows.findIndex((row) => row.leaf);
	if (leafIndex !== -1) take(leafIndex);
	// The current branch, from the current position up, while it fills at most half the lines.
	const pathRows = rows.flatMap((row, index) => (row.onPath && !row.leaf ? [index] : [])).reverse();
	const nearBudget = Math.floor(maxLines / 2);
	const near = pathRows.slice(0, Math.max(0, nearBudget - 1));
	for (const index of near) take(index);
	for (let index = 0; index < rows.length; index++) if (rows[index]!.node.label !== undefined) take(index);
	for (let index = 0; index < rows.length; index++) {
		const row = rows[index]!;
		if (index === 0 || row.branchStart || (row.branchEnd && !row.onPath)) take(index);
	}
	for (const index of pathRows) take(index);
	for (let index = rows.length - 1; index >= 0; index--) if (isUserMessage(rows[index]!.node.entry)) take(index);
	for (let index = 0; index < rows.length; index++) take(index);
	return shown;
}

function isUserMessage(entry: SessionEntry): boolean {
	return entry.type === "message" && entry.message.role === "user";
}

function drawing(row: Row): string {
	return `${row.deep ? "⋯" : ""}${row.prefix}`;
}

function rowLine(row: Row, toolCalls: Map<string, { name: string; arguments: unknown }>): string {
	const { entry, label } = row.node;
	const marker = row.onPath ? "• " : "  ";
	const labelText = label !== undefined ? `[${clip(oneLineText(label), LABEL_CHARS)}] ` : "";
	const here = row.leaf ? "  ← here" : "";
	return `${drawing(row)}${marker}${shortId(entry.id)} ${labelText}${describeEntry(entry, toolCalls)}${here}`;
}

/** The first characters of an entry id, as `/tree` shows them (terminal-safe: ids come from the file). */
export function shortId(id: string): string {
	return terminalSafe(id.slice(0, SHORT_ID_CHARS));
}

/**
 * One line about an entry: its role or kind and an excerpt (`user: fix the test`, `→ bash ls`,
 * `[model: faux-1]`), at most about 80 characters.
 *
 * @example
 * ```ts
 * describeEntry({ type: "model_change", id: "1a2b3c4d", parentId: null, timestamp: "", provider: "faux", modelId: "faux-1" });
 * // "[model: faux/faux-1]"
 * ```
 */
export function describeEntry(
	entry: SessionEntry,
	toolCalls: ReadonlyMap<string, { name: string; arguments: unknown }> = new Map(),
): string {
	// Every field may come from an imported or hand-edited file: each goes through excerpt, name or
	// shortId, which make it one line with no control character.
	const excerpt = (text: string) => clip(oneLineText(text), EXCERPT_CHARS);
	// Names from the file (model ids, custom types, tool names) are one line too: a hand-edited or
	// extension-written value with a line break would split the row.
	const name = (value: unknown) => excerpt(String(value));
	const loose = entry as unknown as Record<string, unknown>;
	switch (entry.type) {
		case "message": {
			const message = entry.message as unknown as Record<string, unknown> & { role: string };
			const text = textOf(message.content);
			switch (message.role) {
				case "user":
					return `user: ${excerpt(text)}`;
				case "assistant": {
					if (text.trim()) return `assistant: ${excerpt(text)}`;
					if (message.stopReason === "aborted") return "assistant: (aborted)";
					if (message.stopReason === "error") return `assistant: error: ${excerpt(String(message.errorMessage ?? ""))}`;
					const calls = Array.isArray(message.content)
						? (message.content as { type?: string; name?: string }[]).filter((block) => block?.type === "toolCall")
						: [];
					return calls.length > 0
						? `assistant: → ${excerpt(calls.map((call) => call.name).join(", "))}`
						: "assistant: (no content)";
				}
				case "toolResult": {
					const call = toolCalls.get(String(message.toolCallId));
					const failed = message.isError === true ? " (failed)" : "";
					if (!call) return `→ ${name(message.toolName ?? "tool")}${failed}`;
					return `→ ${excerpt(`${call.name} ${compactArgs(call.arguments)}`.trimEnd())}${failed}`;
				}
				case "bashExecution":
					return `! ${excerpt(String(message.command ?? ""))}`;
				case "custom":
					return `[${name(message.customType)}] ${excerpt(text)}`;
				case "system":
					return "[system prompt]";
				default:
					return `[${name(message.role)}]`;
			}
		}
		case "custom_message":
			return `[${name(entry.customType)}] ${excerpt(textOf(entry.content))}`;
		case "compaction":
			return `[compaction: ${Math.round(entry.tokensBefore / 1000)}k tokens]`;
		case "branch_summary":
			return `[branch summary] ${excerpt(storedText(entry.summary) ?? "")}`;
		case "model_change":
			return `[model: ${name(`${entry.provider}/${entry.modelId}`)}]`;
		case "thinking_level_change":
			return `[thinking: ${name(entry.thinkingLevel)}]`;
		case "custom":
			return `[custom: ${name(entry.customType)}]`;
		case "label":
			return `[label of ${shortId(entry.targetId)}: ${storedText(entry.label) === undefined ? "(cleared)" : excerpt(entry.label!)}]`;
		case "session_info":
			return `[name: ${storedText(entry.name) ? excerpt(entry.name!) : "(none)"}]`;
		case "context_edit":
			return `[context edit of ${shortId(entry.targetId)}]`;
		case "usage":
			return `[usage: ${name(loose.kind)}]`;
		default:
			return `[${name(loose.type)}]`;
	}
}

/** The text parts of a message's content (a string, or text blocks). */
function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	let text = "";
	for (const block of content as { type?: string; text?: string }[]) {
		if (block?.type === "text" && typeof block.text === "string") text += block.text;
	}
	return text;
}

/**
 * The entries whose id starts with `prefix` (an exact id wins over longer ones that start with it).
 *
 * @example
 * ```ts
 * matchEntryIds(["1a2b3c4d", "1a2bffff"], "1a2b"); // both
 * ```
 */
export function matchEntryIds(ids: readonly string[], prefix: string): string[] {
	const wanted = prefix.trim().toLowerCase();
	if (!wanted) return [];
	const exact = ids.find((id) => id.toLowerCase() === wanted);
	if (exact !== undefined) return [exact];
	return ids.filter((id) => id.toLowerCase().startsWith(wanted));
}
