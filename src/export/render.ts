/**
 * The export page as a string: pure, no I/O. The session travels as JSON in a
 * `<script type="application/json">` (every `<` escaped, so no content can close the tag), the page
 * script (page.ts) builds the view from it with DOM calls, and a Content-Security-Policy allows only
 * that script and the page's stylesheet (each by its sha256) and data: images.
 */
import { loadCrypto } from "../lazy-deps.js";
import type { SessionEntry, SessionHeader } from "../store/entries.js";
import { PAGE_CSS, PAGE_JS } from "./page.js";

/** What an export page shows. */
export interface ExportPageData {
	header: SessionHeader | null;
	entries: readonly SessionEntry[];
	/** The entry shown first (the session's current leaf). */
	leafId: string | null;
	/** The session's display name (latest `session_info`). */
	name?: string;
	/** Page title; default the name, else `Session <id>`. */
	title?: string;
}

/** Totals over every entry of the session (all branches), shown in the page header. */
export interface ExportStats {
	entries: number;
	messages: number;
	/** Leaves of the session tree. */
	branches: number;
	/**
	 * `provider/model` of every assistant message (the model the provider says answered, else the one
	 * asked) and model change, first use first.
	 */
	models: string[];
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** USD. */
	cost: number;
}

interface UsageLike {
	input?: unknown;
	output?: unknown;
	cacheRead?: unknown;
	cacheWrite?: unknown;
	cost?: { total?: unknown };
}

const finite = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/**
 * Token and cost totals of a session: assistant messages, tool results with nested usage,
 * compaction and branch summaries, and `usage` entries (model calls outside the transcript).
 *
 * @example
 * ```ts
 * const { models, output, cost } = exportStats(sessionManager.getEntries());
 * ```
 */
export function exportStats(entries: readonly SessionEntry[]): ExportStats {
	const stats: ExportStats = {
		entries: entries.length,
		messages: 0,
		branches: 0,
		models: [],
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		cost: 0,
	};
	const models = new Set<string>();
	const parents = new Set<string>();
	const add = (usage: UsageLike | undefined) => {
		if (!usage || typeof usage !== "object") return;
		stats.input += finite(usage.input);
		stats.output += finite(usage.output);
		stats.cacheRead += finite(usage.cacheRead);
		stats.cacheWrite += finite(usage.cacheWrite);
		stats.cost += finite(usage.cost?.total);
	};
	for (const entry of entries) {
		if (entry.parentId) parents.add(entry.parentId);
		switch (entry.type) {
			case "message": {
				stats.messages++;
				const message = entry.message as {
					role?: string;
					provider?: string;
					model?: string;
					responseModel?: string;
					usage?: UsageLike;
				};
				if (message?.role === "assistant") {
					// The model that answered (the provider's `responseModel`), as /session's usage by model.
					const answered = message.responseModel || message.model;
					if (message.provider && answered) models.add(`${message.provider}/${answered}`);
					add(message.usage);
				} else if (message?.role === "toolResult") add(message.usage);
				break;
			}
			case "model_change":
				models.add(`${entry.provider}/${entry.modelId}`);
				break;
			case "compaction":
			case "branch_summary":
			case "usage":
				add(entry.usage);
				break;
		}
	}
	stats.branches = entries.filter((entry) => !parents.has(entry.id)).length;
	stats.models = [...models];
	return stats;
}

const sha256 = (text: string) => `sha256-${loadCrypto().createHash("sha256").update(text, "utf8").digest("base64")}`;
let pageCsp: string | undefined;
/**
 * The page's Content-Security-Policy: its inline script and stylesheet by hash (no other `<style>`
 * element or `style` attribute applies). Hashed on the first export, not when Settle is imported.
 */
function pageContentSecurityPolicy(): string {
	if (pageCsp === undefined) {
		const SCRIPT_HASH = sha256(PAGE_JS);
		const STYLE_HASH = sha256(PAGE_CSS);
		pageCsp = `default-src 'none'; img-src data:; style-src '${STYLE_HASH}'; script-src '${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;
	}
	return pageCsp;
}

/**
 * One self-contained HTML page for a session: header with totals, the session tree (click an entry
 * to see the path from the root to it; the leaf is shown first), every kind of entry. Works from
 * file://, loads nothing.
 *
 * @example
 * ```ts
 * const html = renderSessionHtml({
 *   header: sessionManager.getHeader(),
 *   entries: sessionManager.getEntries(),
 *   leafId: sessionManager.getLeafId(),
 * });
 * ```
 */
export function renderSessionHtml(page: ExportPageData): string {
	return [...sessionHtmlPieces(page)].join("");
}

/** Text gathered before a piece is handed out: few writes, and never a copy of the whole session. */
const PIECE_CHARS = 1 << 16;

/**
 * The page of {@link renderSessionHtml} in pieces, in order, each at most about {@link PIECE_CHARS}
 * (or one entry): written one after the other, an export never holds the session's JSON, the page
 * and its UTF-8 bytes at once (one string of each, on top of the parsed entries, peaked at 7× the file).
 */
export function* sessionHtmlPieces(page: ExportPageData): Generator<string> {
	const title = page.title ?? page.name ?? `Session ${page.header?.id ?? ""}`.trim();
	const csp = pageContentSecurityPolicy();
	const json = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");
	// Keys in JSON.stringify's order of the object { title, header, name, leafId, entries, stats } (an undefined name left out).
	let text = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="settle">
<title>${escapeHtml(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<div id="app">
<nav id="tree" aria-label="Session tree"><div id="tree-rows"></div></nav>
<main id="main">
<header><h1 id="title"></h1><dl id="facts"></dl></header>
<noscript>This page needs JavaScript to show the session.</noscript>
<div id="entries"></div>
</main>
</div>
<script type="application/json" id="session-data">{"title":${json(title)},"header":${json(page.header)}${
		page.name === undefined ? "" : `,"name":${json(page.name)}`
	},"leafId":${json(page.leafId)},"entries":[`;
	for (let index = 0; index < page.entries.length; index++) {
		text += (index === 0 ? "" : ",") + json(page.entries[index]);
		if (text.length >= PIECE_CHARS) {
			yield text;
			text = "";
		}
	}
	text += `],"stats":${json(exportStats(page.entries))}}</script>
<script>${PAGE_JS}</script>
</body>
</html>
`;
	yield text;
}

function escapeHtml(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
