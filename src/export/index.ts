/**
 * Session HTML export (pi's `--export`, `/export`, RPC `export_html`): one standalone page per
 * session, written via a temp file and a rename so a reader never sees half a page.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { SettleError } from "../errors.js";
import type { SessionDiagnostic, SessionEntry } from "../store/entries.js";
import { SessionManager } from "../store/session-manager.js";
import { sessionHtmlPieces } from "./render.js";
import { refuseSessionFileAsOutput, writeFileAtomically } from "./write-file.js";

export { type ExportPageData, type ExportStats, exportStats, renderSessionHtml } from "./render.js";

/** Options of {@link exportSessionToHtml}. */
export interface ExportHtmlOptions {
	/**
	 * Where to write (relative to the process cwd; missing folders are created). Default
	 * `settle-session-<session file name without .jsonl>.html` in the process cwd, as pi names its
	 * `pi-session-….html` (an in-memory session: `settle-session-<session id>.html`).
	 */
	outputPath?: string;
	/** Page title; default the session name, else `Session <id>`. */
	title?: string;
	/**
	 * Told about each line of the session file left out of the page (malformed, torn, duplicate
	 * ids…): the page holds what loads, and the file is not changed (`settle --export` prints these
	 * as warnings). Format migrations and a missing last newline are not reported.
	 */
	onDiagnostic?: (diagnostic: SessionDiagnostic) => void;
}

/** Diagnostics that do not mean anything was left out of the page. */
const HARMLESS_DIAGNOSTICS: ReadonlySet<SessionDiagnostic["kind"]> = new Set(["migrated", "missing_newline"]);

/**
 * Writes a session as one self-contained HTML page and returns the path written, as given (or the
 * default name). `source` is a session's {@link SessionManager} or the path of a session file (opened
 * read-only: no lock, nothing rewritten; old formats are migrated in memory). A manager's entries
 * in memory make the page, also for an in-memory session (`--no-session`) or one whose file is not
 * written yet.
 *
 * Throws `SettleError`: `NOT_FOUND` "File not found: <path>" for a missing file; `INVALID_ARGUMENT`
 * "Nothing to export yet - start a conversation first" for a session with no message yet, and for an `outputPath` that is the session
 * file itself (the page would replace the session); `IO` when the page cannot be written (a folder,
 * no permission). Nothing is left behind when it throws.
 *
 * @example
 * ```ts
 * const path = await exportSessionToHtml("sessions/2026-05-01_0196….jsonl"); // "settle-session-2026-05-01_0196….html"
 * await exportSessionToHtml(session.sessionManager, { outputPath: "review.html", title: "Review" });
 * await exportSessionToHtml("damaged.jsonl", { onDiagnostic: (d) => console.warn(d.message) }); // "Line 3 skipped: …"
 * ```
 */
export async function exportSessionToHtml(
	source: SessionManager | string,
	options: ExportHtmlOptions = {},
): Promise<string> {
	const { manager, file, close } = openSource(source);
	try {
		if (options.onDiagnostic) {
			for (const diagnostic of manager.getDiagnostics()) {
				if (!HARMLESS_DIAGNOSTICS.has(diagnostic.kind)) options.onDiagnostic(diagnostic);
			}
		}
		// In pieces: the page is never one string (nor one buffer) beside the session it is made of.
		const html = sessionHtmlPieces({
			header: manager.getHeader(),
			entries: manager.getEntries(),
			leafId: manager.getLeafId(),
			name: manager.getSessionName(),
			title: options.title,
		});
		const defaultPath = `settle-session-${file === undefined ? manager.getSessionId() : basename(file, ".jsonl")}.html`;
		const outputPath = options.outputPath ?? defaultPath;
		refuseSessionFileAsOutput(file, outputPath, "HTML export", defaultPath);
		writeFileAtomically(outputPath, html, "HTML export");
		return outputPath;
	} finally {
		close();
	}
}

function openSource(source: SessionManager | string): {
	manager: SessionManager;
	file: string | undefined;
	close(): void;
} {
	if (typeof source === "string") {
		if (!existsSync(source)) {
			throw new SettleError("NOT_FOUND", `File not found: ${source}`, { details: { path: source } });
		}
		const manager = SessionManager.open(source, undefined, undefined, { readOnly: true });
		return { manager, file: source, close: () => manager.close() };
	}
	// Settle writes a new session's file with the first user or assistant message (pi: the first
	// answer) and an in-memory session (--no-session) never; the page is made from the entries in
	// memory, so both are exported once they have a message (pi-subagents#94; pi refuses an in-memory
	// session, which left a CI run with no page of what it did: pi-coding-agent-action#282).
	const file = source.getSessionFile();
	if ((file === undefined || !existsSync(file)) && !source.getEntries().some(isExportedMessage)) {
		throw new SettleError("INVALID_ARGUMENT", "Nothing to export yet - start a conversation first", {
			...(file === undefined ? {} : { details: { path: file } }),
		});
	}
	return { manager: source, file, close: () => {} };
}

/** A message of any kind, which the page shows (model and thinking changes alone are nothing to export). */
function isExportedMessage(entry: SessionEntry): boolean {
	return entry.type === "message" || entry.type === "custom_message";
}
