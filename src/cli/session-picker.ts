/**
 * This project's saved sessions as the chat lists them: `/resume` (no argument) and the `-r` /
 * `--resume` start-up question share the list, the lookup of an answer (a path or an id prefix)
 * and its errors. The picker runs before any session starts (as pi's `--resume`), so it needs only
 * the project's folders, not a runtime.
 */
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { SettleError } from "../errors.js";
import {
	conversationMessageCount,
	listCwdSessions,
	listSessionsIn,
	newestSessionFirst,
	sessionDirsUnder,
} from "../store/discovery.js";
import type { SessionInfo } from "../store/entries.js";
import { sessionLockHolder } from "../store/lock.js";
import { clip, firstLine, oneLineText } from "./interactive-render.js";
import { piResumeHint, piSessionHint } from "./pi-folder.js";
import {
	findSessionByIdPrefix,
	type LinkNamedSessionFolder,
	namesSessionFile,
	newerSessionFormatForCli,
	sessionFileInFolder,
} from "./session-lookup.js";

/** Where this project's sessions are: its session folder, and the link-named one (oh-my-pi#941). */
export interface ProjectSessionFolders {
	/** The project directory (sessions' header cwd). */
	cwd: string;
	agentDir: string;
	/** The project's session folder. */
	sessionDir: string;
	/** Sessions saved under the `--cwd` link path: this project's too. */
	linkFolder?: LinkNamedSessionFolder;
}

/** Where the list's lines go; `notice` is for hints (dimmed in the chat). */
export interface PickerOutput {
	print(line: string): void;
	notice(line: string): void;
}

/** This project's saved sessions, newest first; none: says so (and where pi's are) and returns []. */
export async function listProjectSessions(folders: ProjectSessionFolders, out: PickerOutput): Promise<SessionInfo[]> {
	const { cwd, sessionDir, linkFolder } = folders;
	const sessions = [
		// Without every message's text: the list shows none, and many long sessions would not fit (pi#4122).
		...(await listCwdSessions(sessionDir, cwd, false)),
		...(linkFolder ? await listCwdSessions(linkFolder.sessionDir, linkFolder.cwd, false) : []),
	].sort(newestSessionFirst());
	if (sessions.length === 0) {
		out.print("This project has no saved sessions yet.");
		const pi = piResumeHint({ cwd, agentDir: folders.agentDir });
		if (pi) out.notice(pi);
	}
	return sessions;
}

/**
 * The answer (to `-r`'s question, and `/resume`'s argument) that lists every project's sessions, as
 * Tab does in pi's picker. A word no session id starts with: ids are hexadecimal.
 */
export const ALL_SESSIONS = "all";

/**
 * The answer to `-r`'s question that lists the next sessions after those shown: a session past the
 * first page is reachable without knowing its id (claude-code#87392). Not hexadecimal either.
 */
export const MORE_SESSIONS = "more";

/** How many sessions the `-r` list shows at a time. */
const PAGE = 20;

/**
 * Every project's sessions where this project's are kept, newest first, each with its cwd: every
 * folder under `<agentDir>/sessions` when the project's folder is one of them (pi's `listAll`), else
 * the one folder given by `--session-dir` / `SETTLE_SESSION_DIR` / `sessionDir` (pi 0.73.1 lists the
 * agent folder's there too, none of the sessions kept in the chosen folder).
 */
export async function listAllSessions(folders: ProjectSessionFolders): Promise<SessionInfo[]> {
	const sessionsDir = resolve(folders.agentDir, "sessions");
	const inDefault = resolve(dirname(folders.sessionDir)) === sessionsDir;
	const dirs = inDefault ? await sessionDirsUnder(sessionsDir) : [resolve(folders.sessionDir)];
	return listSessionsIn(dirs, undefined, undefined, undefined, false);
}

/**
 * One line of the list: id, time, messages (the conversation's, as "Resumed … (N messages)" counts:
 * not the system prompt's records `SessionInfo.messageCount` has), name and first message;
 * `(current)` for `currentFile`, `(in use by process N)` for a session another live process writes
 * (`… on <host>` when that process runs on another machine, `(in use by another writer)` when its
 * lock names none).
 */
export function describeSession(info: SessionInfo, currentFile?: string): string {
	// Said before it is picked: resuming it would be refused (claude-code#87902).
	const current = info.path === currentFile ? " (current)" : inUseMark(info.path);
	// A name is read from the file as written: pi keeps its newlines, an extension may put escapes in it.
	const title = info.name ? `${oneLineText(info.name)}: ` : "";
	return `${info.id}  ${localMinute(info.modified)}  ${conversationMessageCount(info)} msgs  ${title}${clip(firstLine(info.firstMessage), 60)}${current}`;
}

/** ` (in use by …)` for a session file another writer holds; "" when none does, or this process. */
function inUseMark(file: string): string {
	const holder = sessionLockHolder(file);
	if (!holder) return "";
	if (holder.pid === undefined) return " (in use by another writer)";
	// A pid alone is not this process: containers sharing a sessions folder each number theirs from 1.
	const host = holder.hostname !== hostname() ? ` on ${holder.hostname}` : "";
	return holder.pid === process.pid && !host ? "" : ` (in use by process ${holder.pid}${host})`;
}

/**
 * `YYYY-MM-DD HH:MM` on the user's clock (the process's time zone), as the clock on their screen
 * reads: the file's UTC time unmarked read hours off (plannotator-tui#71).
 */
function localMinute(date: Date): string {
	const two = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/**
 * A `SESSION_LOCKED` refusal to open a session (`-r`, `/resume`, `/import`), told in the chat's terms
 * (the store's text names `manager.close()` and `readOnly`, which no chat user can reach): who holds
 * the file, `outcome` (what did not happen), `next` (what the chat offers now), and the fork that
 * carries on from the file without writing it (claude-code#87902). Undefined for any other error,
 * and for a lock of this process.
 *
 * @example
 * ```ts
 * declare const error: SettleError; // code SESSION_LOCKED
 * sessionLockedInChat(error, "so it was not resumed", "Pick another."); // "Session file /s.jsonl is in use by process 7 on ci-1: …"
 * ```
 */
export function sessionLockedInChat(error: unknown, outcome: string, next: string): string | undefined {
	if (!(error instanceof SettleError) || error.code !== "SESSION_LOCKED") return undefined;
	const { file, holderPid, holderHost } = (error.details ?? {}) as Record<string, unknown>;
	if (typeof file !== "string" || (holderPid === process.pid && holderHost === hostname())) return undefined;
	const who =
		typeof holderPid === "number"
			? `process ${holderPid}${typeof holderHost === "string" ? ` on ${holderHost}` : ""}`
			: "another writer";
	return `Session file ${file} is in use by ${who}: only one process may write a session at a time, ${outcome}. ${next} To carry on from what it holds in a new session, run settle --fork ${file} (a fork only reads it).`;
}

/**
 * The session file `args` names: a file path, or an id prefix of this project's sessions (the rule
 * `settle --session` follows). Throws `NOT_FOUND` (naming pi's file when pi has it) or the lookup's
 * `INVALID_ARGUMENT` for an ambiguous prefix.
 */
export async function findProjectSession(folders: ProjectSessionFolders, args: string): Promise<string> {
	const { sessionDir, linkFolder } = folders;
	const inFolder = sessionFileInFolder(args, sessionDir);
	if (inFolder !== undefined) return inFolder;
	if (namesSessionFile(args)) {
		const path = resolve(args);
		if (!existsSync(path)) throw new SettleError("NOT_FOUND", `No session file ${path}.`);
		return path;
	}
	const lookup = { cwd: folders.cwd, agentDir: folders.agentDir };
	try {
		const info = await findSessionByIdPrefix(args, {
			...lookup,
			sessionDir,
			...(linkFolder ? { linkFolder } : {}),
			latestHint: " (/resume lists them).",
			resumeElsewhere: (other) => `/resume ${other.path}`,
			// /resume asks to go on here when the session's folder is gone.
			resumeHere: (other) => `/resume ${other.path}`,
		});
		return info.path;
	} catch (error) {
		// Not found here, but pi may have it: say which file, and that /resume takes its path.
		const notFound = error instanceof SettleError && error.code === "NOT_FOUND" && !error.details?.elsewhere;
		const pi = notFound ? piSessionHint({ ...lookup, prefix: args, open: (file) => `/resume ${file}` }) : undefined;
		if (pi) throw new SettleError("NOT_FOUND", `${(error as SettleError).message} ${pi}`, { cause: error });
		throw error;
	}
}

/** Whether `path` is in the link-named folder (resumed as this project's session, oh-my-pi#941). */
export function inLinkFolder(folders: ProjectSessionFolders, path: string): boolean {
	return folders.linkFolder !== undefined && resolve(dirname(path)) === folders.linkFolder.sessionDir;
}

/**
 * `settle -r` / `--resume` (pi's session picker, as questions), before any session starts: lists
 * this project's sessions as `/resume` does, numbered, and asks which one to continue. Its number
 * or an id prefix resolves to that file, which `open` opens (its error, or a lookup's, is said and
 * the question asked again); `all` lists every project's sessions ({@link listAllSessions}),
 * numbered, each with its cwd, and asks again; `more` lists the next 20 of the list, numbered on
 * (every session is reachable without its id); an empty line is `"new"`. With no session of this
 * project it says so and asks only when another project has one (else `"new"`).
 * Resolves undefined when the question was cancelled (Ctrl+C, end of input): pi then exits.
 *
 * @example
 * ```ts
 * const folders = { cwd: "/work/app", agentDir: "/home/me/.settle/agent", sessionDir: "/tmp/sessions" };
 * const out = { print: console.log, notice: console.log };
 * const picked = await pickSession(folders, out, async () => "", (path) => path);
 * // picked: "new" (an empty answer, or no saved session)
 * ```
 */
export async function pickSession<T>(
	folders: ProjectSessionFolders,
	out: PickerOutput,
	ask: (question: string) => Promise<string | undefined>,
	open: (path: string) => T | Promise<T>,
): Promise<T | "new" | undefined> {
	const sessions = await listProjectSessions(folders, out);
	// The list answers refer to (this project's, or every project's after `all`) and how much of it is shown.
	let list = sessions;
	let shown: SessionInfo[] = [];
	// After `all`: every project's sessions, an id prefix looked up among them first.
	let every: SessionInfo[] | undefined;
	if (sessions.length === 0) {
		// None here: another project's may be the one wanted (pi's picker: Tab), else a new session.
		const others = (await listAllSessions(folders)).length;
		if (others === 0) {
			out.print("Starting a new session.");
			return "new";
		}
		out.print(
			`Other projects have ${others} saved session${others === 1 ? "" : "s"}: answer ${ALL_SESSIONS} to list them.`,
		);
	} else {
		out.print("Sessions of this project, newest first:");
		shown = showPage(list, shown, out, false);
	}
	for (;;) {
		const answer = await ask(
			`Resume which session? (number or id prefix, ${ALL_SESSIONS} for every project's, empty for a new session): `,
		);
		if (answer === undefined) {
			out.print("No session selected.");
			return undefined;
		}
		const choice = answer.trim();
		if (!choice) {
			out.print("Starting a new session.");
			return "new";
		}
		if (choice.toLowerCase() === ALL_SESSIONS) {
			every = await listAllSessions(folders);
			list = every;
			out.print(every.length === 0 ? "No saved sessions in any project." : "Sessions of every project, newest first:");
			shown = showPage(list, [], out, true);
			continue;
		}
		if (choice.toLowerCase() === MORE_SESSIONS) {
			if (shown.length < list.length) shown = showPage(list, shown, out, every !== undefined);
			else out.print(list.length === 0 ? "No sessions to list." : "No older sessions: all are listed above.");
			continue;
		}
		// A number of the list (an id prefix such as "01…" starts with a zero, which no number does).
		const numbered = /^[1-9]\d*$/.test(choice) ? shown[Number(choice) - 1] : undefined;
		const byId = every?.filter((info) => info.id.startsWith(choice));
		const listed = numbered ?? (byId?.length === 1 ? byId[0] : undefined);
		try {
			// The list is a snapshot: another process may have deleted the file since, and opening a
			// missing path would start an empty session there, claimed as resumed (oh-my-pi#11491).
			if (listed && !existsSync(listed.path)) {
				throw new SettleError(
					"NOT_FOUND",
					`Session ${listed.id} is gone: ${listed.path} was deleted after this list was made (by another process?). Pick another, or press Enter for a new session.`,
					{ details: { path: listed.path } },
				);
			}
			return await open(listed ? listed.path : await findProjectSession(folders, choice));
		} catch (error) {
			const locked = sessionLockedInChat(
				error,
				"so it was not resumed",
				"Pick another, or press Enter for a new session.",
			);
			const newer = newerSessionFormatForCli(error);
			out.print(`Error: ${locked ?? newer ?? (error instanceof Error ? error.message : String(error))}`);
		}
	}
}

/**
 * Prints the next page of `list` after the `shown` sessions, numbered on from them, and how many
 * older ones are left; returns the sessions shown now. `withCwd`: each session's cwd under it.
 */
function showPage(
	list: readonly SessionInfo[],
	shown: readonly SessionInfo[],
	out: PickerOutput,
	withCwd: boolean,
): SessionInfo[] {
	const from = shown.length;
	const page = list.slice(from, from + PAGE);
	const width = String(from + page.length).length;
	for (const [index, info] of page.entries()) {
		out.print(`  ${String(from + index + 1).padStart(width)}. ${describeSession(info)}`);
		if (withCwd) out.print(`  ${" ".repeat(width)}  in ${info.cwd || "(no cwd)"}`);
	}
	const rest = list.length - from - page.length;
	if (rest > 0) {
		out.notice(`  … and ${rest} older: answer ${MORE_SESSIONS} to list the next ${Math.min(rest, PAGE)}`);
	}
	return [...shown, ...page];
}
