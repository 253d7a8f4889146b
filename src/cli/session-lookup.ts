/**
 * The one rule `settle --session <id-prefix>` and `/resume <id-prefix>` share for a partial id. A
 * session file's name without `.jsonl` (`<timestamp>_<id>`) stands for the id in it (kooky#37); pi
 * 0.73.1 matches ids only and finds no session.
 *
 * pi 0.73.1 (`resolveSessionPath` in its main.js) takes the newest of several matching sessions
 * without a word, and for a prefix that only another project's session has, asks on the terminal
 * whether to fork it here. Settle does not guess: several matches are an error listing them, and a
 * match in another project is an error naming that project and how to resume it there.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { SettleError } from "../errors.js";
import { shellWord } from "../shell-word.js";
import {
	listCwdSessions,
	listSessionsIn,
	newestSessionFirst,
	readSessionHeader,
	sessionDirsUnder,
} from "../store/discovery.js";
import { CURRENT_SESSION_VERSION, type SessionHeader, type SessionInfo } from "../store/entries.js";
import { getDefaultSessionDirPath } from "../store/paths.js";
import type { SessionManager } from "../store/session-manager.js";
import { sliceWholeCharacters } from "../tools/truncate.js";

/** Where the sessions are, and what the caller tells the user to do (its own commands). */
export interface SessionLookup {
	cwd: string;
	agentDir: string;
	/** The project's session dir (default: `<agentDir>/sessions/<cwd>`; a custom one is filtered by cwd). */
	sessionDir: string;
	/** How to resume another project's session `info` (`settle --cwd … --session …`, `/resume <path>`). */
	resumeElsewhere(info: SessionInfo): string;
	/** How to resume `info` in this project's folder, said instead when the folder it names is gone. */
	resumeHere?(info: SessionInfo): string;
	/** Appended to "The latest: …" when nothing matches (how to list or resume the latest). */
	latestHint: string;
	/** Sessions saved under the project's `--cwd` link path (oh-my-pi#941): this project's too. */
	linkFolder?: LinkNamedSessionFolder;
}

/**
 * The default session folder named after a path given through a symlink (`settle --cwd <link>`),
 * where Settle saved that project's sessions before it resolved `--cwd` (oh-my-pi#941); their
 * headers name `cwd`, the link path.
 */
export interface LinkNamedSessionFolder {
	/** The path as given (resolved, not through symlinks): the sessions' header cwd. */
	cwd: string;
	/** `getDefaultSessionDirPath(cwd, agentDir)`. */
	sessionDir: string;
	/** The real path `cwd` resolves to: the project these sessions belong to. */
	project: string;
}

/**
 * What opening a session file left out (malformed lines, a torn last line set aside, duplicate ids,
 * entries whose parent is gone) or read otherwise than stored (fields of the wrong type), one message
 * each: the conversation shown lacks them. Migrations
 * and a missing last newline lose nothing and are not reported. `settle --session` / `-c` print
 * them at startup, `/resume` and `/import` after the switch.
 *
 * @example
 * ```ts
 * for (const text of skippedLineWarnings(sessionManager)) console.warn(`Warning: ${text}`); // "Line 4 skipped: not valid JSON (…)."
 * ```
 */
export function skippedLineWarnings(manager: SessionManager): string[] {
	return manager
		.getDiagnostics()
		.filter((d) => d.kind !== "migrated" && d.kind !== "missing_newline")
		.map((d) => d.message);
}

/** How many matching sessions an error lists. */
const LISTED = 5;

/**
 * The project's one session whose id starts with `given` (or, when none does and `given` is a
 * session file's name without `.jsonl`, with the id in that name; else the one session named
 * `given`, pi#5018). Its info has no `allMessagesText` (`""`): no session is read for its text. Throws {@link SettleError}:
 * `INVALID_ARGUMENT` when several match (listing them: id, modified time, first message; details
 * `{ prefix, ids }`), `NOT_FOUND` when none does (naming another project's matching session and how
 * to resume it: there, or here through `resumeHere` when that project's folder is gone; else saying
 * no session is named `given` either, listing the project's latest sessions and naming another
 * project's session named `given` with how to resume it there (codex#30995); details
 * `{ prefix, elsewhere: { id, cwd, path, others } }` (`others`: how many more of other projects match) or
 * `{ prefix, name }`).
 *
 * @example
 * ```ts
 * const cwd = process.cwd();
 * const agentDir = getDefaultAgentDir();
 * try {
 *   const info = await findSessionByIdPrefix("0190f5c2", {
 *     cwd,
 *     agentDir,
 *     sessionDir: getDefaultSessionDirPath(cwd, agentDir),
 *     latestHint: "",
 *     resumeElsewhere: (other) => `cd ${other.cwd} && settle --session ${other.path}`,
 *   });
 *   SessionManager.open(info.path);
 * } catch (error) {
 *   if (error instanceof SettleError) console.error(error.message); // several match (listed), or none
 * }
 * ```
 */
export async function findSessionByIdPrefix(given: string, lookup: SessionLookup): Promise<SessionInfo> {
	let prefix = given;
	let matches = await projectSessionsWithIdPrefix(prefix, lookup);
	const named = matches.length === 0 ? idOfSessionFileName(given) : undefined;
	if (named !== undefined) {
		// A session file's name (kooky#37): the id in it.
		prefix = named;
		matches = await projectSessionsWithIdPrefix(prefix, lookup);
	}
	if (matches.length === 0) {
		const named = await projectSessionsNamed(given, lookup);
		if (named !== undefined) return named;
	}
	if (matches.length === 1) return matches[0]!;
	if (matches.length > 1) {
		const shown = matches.slice(0, LISTED).map(describe).join("; ");
		const more = matches.length > LISTED ? `; and ${matches.length - LISTED} more` : "";
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${matches.length} sessions of this project have an id starting with ${prefix}: ${shown}${more}. Give more of the id.`,
			{ details: { prefix, ids: matches.map((info) => info.id) } },
		);
	}
	const elsewhere = await otherProjectsSessions(prefix, lookup);
	if (elsewhere.length > 0) {
		const [first] = elsewhere;
		const others =
			elsewhere.length > 1 ? ` (${elsewhere.length} sessions of other projects match; this is the newest)` : "";
		// A removed worktree or a moved project: a way out through that folder would fail too (claude-code#28314).
		const way = wayThere(first!, lookup);
		throw new SettleError(
			"NOT_FOUND",
			`No session of this project (${resolve(lookup.cwd)}) has an id starting with ${prefix}; session ${describe(first!)} of the project ${first!.cwd} does${others}${way}`,
			{
				details: {
					prefix,
					elsewhere: { id: first!.id, cwd: first!.cwd, path: first!.path, others: elsewhere.length - 1 },
				},
			},
		);
	}
	// Only now every session of the project is read in full: the message names the latest ones.
	const sessions = await listCwdSessions(lookup.sessionDir, lookup.cwd, false);
	const latest =
		sessions.length === 0
			? " This project has no sessions yet."
			: ` The latest: ${sessions.slice(0, 3).map(describe).join("; ")}${lookup.latestHint}`;
	// --session and /resume take a name too (pi#5018): say that none matched either.
	const elsewhereNamed = await namedElsewhere(given.trim(), lookup);
	throw new SettleError(
		"NOT_FOUND",
		`No session of this project has an id starting with ${prefix} (in ${lookup.sessionDir}), and none is named ${JSON.stringify(given.trim())} (/name names a session).${latest}${elsewhereNamed}`,
		{ details: { prefix, name: given.trim() } },
	);
}

/**
 * The project's one session named `given` (pi#5018: a stored launch command finds its session
 * again), undefined when none is. Throws `INVALID_ARGUMENT` when several are (a fork keeps its
 * name), listing them: appending to a guess is what an id prefix two sessions share is refused for.
 */
async function projectSessionsNamed(given: string, lookup: SessionLookup): Promise<SessionInfo | undefined> {
	const name = given.trim();
	if (name === "") return undefined;
	const named = (await listCwdSessions(lookup.sessionDir, lookup.cwd, false)).filter((info) => info.name === name);
	if (named.length <= 1) return named[0];
	const shown = named.slice(0, LISTED).map(describe).join("; ");
	const more = named.length > LISTED ? `; and ${named.length - LISTED} more` : "";
	throw new SettleError(
		"INVALID_ARGUMENT",
		`${named.length} sessions of this project are named "${name}": ${shown}${more}. Give its id or a prefix of it.`,
		{ details: { name, ids: named.map((info) => info.id) } },
	);
}

/** How pi and Settle name a session file, `.jsonl` left off: `<ISO timestamp, ':' and '.' as '-'>_<id>`. */
const SESSION_FILE_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_(.+)$/;

/**
 * The id (or id prefix) in a session file's name given where an id is expected (kooky#37: tools
 * take a session's identifier from its file name), else undefined.
 */
function idOfSessionFileName(value: string): string | undefined {
	return SESSION_FILE_NAME.exec(value)?.[1];
}

/**
 * The file `value` names in the project's session folder when `value` is a bare file name ending in
 * `.jsonl` (no folder in it) that is not in the cwd but is there (kooky#37: a session's file name,
 * copied from a listing of that folder), else undefined.
 */
export function sessionFileInFolder(value: string, sessionDir: string): string | undefined {
	if (value.includes("/") || value.includes("\\") || !value.endsWith(".jsonl")) return undefined;
	if (existsSync(resolve(value))) return undefined;
	const path = join(resolve(sessionDir), value);
	return existsSync(path) ? path : undefined;
}

/**
 * Whether `value`, given where a session is expected (`--session`, `--fork`, `/resume`), names a
 * file rather than a session's id or name: it looks like a path (a folder separator, or `.jsonl` at
 * the end), or it is a bare word naming a session file in the cwd. A bare word naming another file
 * or a folder (a project's `docs/`, an empty `notes`) is an id prefix or a name, as pi takes every
 * bare word: that file is neither opened as a session nor written into.
 */
export function namesSessionFile(value: string): boolean {
	if (value.includes("/") || value.includes("\\") || value.endsWith(".jsonl")) return true;
	return readSessionHeader(resolve(value)) !== null;
}

/**
 * Sessions of the other projects with an id starting with `prefix` (or, given `name`, named so; each
 * is then read in full): every project dir under `<agentDir>/sessions`, or the whole custom dir.
 */
async function otherProjectsSessions(prefix: string, lookup: SessionLookup, name?: string): Promise<SessionInfo[]> {
	const cwd = resolve(lookup.cwd);
	const isDefault = resolve(lookup.sessionDir) === getDefaultSessionDirPath(cwd, lookup.agentDir);
	// The project's own dir too: another cwd can share it (`a/b` and `a-b` both map to `--a-b--`).
	const dirs = isDefault
		? await sessionDirsUnder(join(resolve(lookup.agentDir), "sessions"))
		: [resolve(lookup.sessionDir)];
	const wanted =
		name === undefined ? (info: SessionInfo) => info.id.startsWith(prefix) : (info: SessionInfo) => info.name === name;
	const byHeader = name === undefined ? (header: SessionHeader) => header.id.startsWith(prefix) : undefined;
	const all = await listSessionsIn(dirs, undefined, undefined, byHeader, false);
	const link = lookup.linkFolder?.cwd;
	return all.filter(
		(info) => wanted(info) && info.cwd !== "" && resolve(info.cwd) !== cwd && resolve(info.cwd) !== link,
	);
}

/**
 * Where another project's session named `name` is, and how to resume it (codex#30995: a name
 * resolves in this project only, as the picker and `-c` do), else "".
 */
async function namedElsewhere(name: string, lookup: SessionLookup): Promise<string> {
	if (name === "") return "";
	const [first] = await otherProjectsSessions("", lookup, name);
	if (!first) return "";
	return ` Session ${first.id} of the project ${first.cwd} is named ${JSON.stringify(name)}${wayThere(first, lookup)}`;
}

/** How to resume another project's session: there, or here when its folder is gone (claude-code#28314). */
function wayThere(info: SessionInfo, lookup: SessionLookup): string {
	return lookup.resumeHere && !existsSync(info.cwd)
		? `; that folder no longer exists. To resume it in this one: ${lookup.resumeHere(info)}`
		: `. To resume it there: ${lookup.resumeElsewhere(info)}`;
}

/**
 * `SessionManager.list(cwd, sessionDir)` narrowed to the ids starting with `prefix`, newest first.
 * Only files whose header has such an id are read in full: resuming by id in a folder of
 * months-long sessions reads their headers, not their transcripts. No `allMessagesText`: a match
 * or a listed candidate needs its id, path, date and first message, not a copy of every message.
 */
async function projectSessionsWithIdPrefix(prefix: string, lookup: SessionLookup): Promise<SessionInfo[]> {
	// SessionManager.list's rule: any session dir may hold other projects' sessions too.
	const cwd = resolve(lookup.cwd);
	const own = await listSessionsIn(
		[resolve(lookup.sessionDir)],
		undefined,
		(info) => info.id.startsWith(prefix) && info.cwd !== "" && resolve(info.cwd) === cwd,
		(header) => header.id.startsWith(prefix),
		false,
	);
	const link = lookup.linkFolder;
	if (!link) return own;
	const linked = await listSessionsIn(
		[link.sessionDir],
		undefined,
		(info) => info.id.startsWith(prefix) && info.cwd !== "" && resolve(info.cwd) === link.cwd,
		(header) => header.id.startsWith(prefix),
		false,
	);
	return [...own, ...linked].sort(newestSessionFirst());
}

function describe(info: SessionInfo): string {
	return `${info.id} (${info.modified.toISOString()}, "${clip(info.firstMessage)}")`;
}

function clip(text: string): string {
	const line = text.trim().replace(/\s*\n\s*/g, " ");
	return line.length > 40 ? `${sliceWholeCharacters(line, 39)}…` : line;
}

/**
 * The store's refusal to write a session file of a newer format version (pi#9426), told in the
 * terms of `settle` and the chat: its way out names the SDK's `readOnly`, which neither offers;
 * `settle --export` reads such a file. Undefined for any other error.
 *
 * @example
 * ```ts
 * declare const error: SettleError; // code INVALID_SESSION_FILE, details { path, version: 4 }
 * newerSessionFormatForCli(error); // "Session file /s.jsonl uses session format v4, … settle --export /s.jsonl …"
 * ```
 */
export function newerSessionFormatForCli(error: unknown): string | undefined {
	if (!(error instanceof SettleError) || error.code !== "INVALID_SESSION_FILE") return undefined;
	const { path, version } = (error.details ?? {}) as { path?: unknown; version?: unknown };
	if (typeof path !== "string" || typeof version !== "number" || version <= CURRENT_SESSION_VERSION) return undefined;
	return (
		`Session file ${path} uses session format v${version}, newer than this version of Settle understands ` +
		`(v${CURRENT_SESSION_VERSION}); nothing was changed. Upgrade Settle to continue it; ` +
		`settle --export ${shellWord(path)} writes the entries this version can read to an HTML page.`
	);
}
