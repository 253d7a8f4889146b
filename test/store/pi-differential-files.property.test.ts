/**
 * Differential properties over files, against pi 0.73.1's SessionManager: damaged files (both
 * load the same entries), old formats (v1/v2 generated at random: both migrate to the same
 * session and rewrite the same lines), and discovery over a temp session dir holding files
 * written by both (`list`, `listAll`, `continueRecent`, `findById`).
 */
import {
	cpSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir, track } from "./helpers.js";
import {
	asStore,
	DIFF_TIMEOUT_MS,
	normalizeContext,
	normalizeFile,
	type Op,
	opArbitrary,
	readLines,
	runOp,
	runs,
	type Store,
	snapshot,
} from "./pi-differential.helpers.js";

const CWD = "/work/project";
const OTHER_CWD = "/work/other";

const assistant = (text: string, timestamp: number) => ({
	role: "assistant",
	content: [{ type: "text", text }],
	api: "faux",
	provider: "faux",
	model: "m1",
	usage: {
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	},
	stopReason: "stop",
	timestamp,
});

/** Ops that stay in one file (no new, branched or reopened session). */
const fileOps = fc.array(
	opArbitrary.filter(
		(op) =>
			op.kind !== "reopen" && op.kind !== "switchFile" && op.kind !== "newSession" && op.kind !== "createBranched",
	),
	{ minLength: 1, maxLength: 25, size: "max" },
);

/** Writes a session with `writer` (both write lines pi can read); ends with an assistant message so pi writes it too. */
function writeSession(
	writer: "pi" | "settle",
	cwd: string,
	dir: string,
	ops: readonly Op[],
	lastTimestamp: number,
): string {
	const settle = writer === "settle" ? track(SessionManager.create(cwd, dir)) : undefined;
	const store = settle ? asStore(settle) : asStore(PiSessionManager.create(cwd, dir));
	for (const op of ops) if (op.kind !== "reopen" && op.kind !== "switchFile") runOp(store, op, writer);
	store.appendMessage({ role: "user", content: `last question ${lastTimestamp}`, timestamp: lastTimestamp - 1 });
	store.appendMessage(assistant("last answer", lastTimestamp));
	settle?.close();
	return store.getSessionFile()!;
}

/** Opens the same bytes with both (two copies, same file name): the same session. */
function openBoth(text: string, name = "s.jsonl") {
	const piFile = join(tempDir("pi-diff-pi-"), name);
	const stFile = join(tempDir("pi-diff-settle-"), name);
	writeFileSync(piFile, text);
	writeFileSync(stFile, text);
	const pi = asStore(PiSessionManager.open(piFile));
	const settle = track(SessionManager.open(stFile));
	return { pi, settle, st: asStore(settle), piFile, stFile };
}

function expectSameOnEveryBranch(st: Store, pi: Store): void {
	expect(snapshot(st, [])).toEqual(snapshot(pi, []));
	const stEntries = st.getEntries();
	pi.getEntries().forEach((entry, i) => {
		pi.branch(entry.id);
		st.branch(stEntries[i]!.id);
		expect(normalizeContext(st.buildSessionContext())).toEqual(normalizeContext(pi.buildSessionContext()));
	});
}

// -------------------------------------------------------------------------------------------------
// Damaged files

type Damage =
	| "blankLines"
	| "malformedMiddle"
	| "tornLast"
	| "noFinalNewline"
	| "bom"
	| "crlf"
	| "duplicateId"
	| "orphan"
	| "unknownType"
	| "timestamps";

const DAMAGES: readonly Damage[] = [
	"blankLines",
	"malformedMiddle",
	"tornLast",
	"noFinalNewline",
	"bom",
	"crlf",
	"duplicateId",
	"orphan",
	"unknownType",
	"timestamps",
];

/** What Settle reports after opening the damaged file (the torn line and missing newline are repaired then). */
const REPORTED_ON_REOPEN: Record<Damage, string[]> = {
	blankLines: [],
	malformedMiddle: ["malformed_line"],
	tornLast: [],
	noFinalNewline: [],
	bom: [],
	crlf: [],
	duplicateId: ["duplicate_id"],
	orphan: ["missing_parent"],
	unknownType: [],
	timestamps: [],
};

/** Damages a session file's text at a position `at` in [0, 1) (never the header line). */
function damage(text: string, kind: Damage, at: number): string {
	const lines = text.split("\n").slice(0, -1);
	const i = 1 + Math.floor(at * (lines.length - 1));
	const entry = JSON.parse(lines[i]!) as Record<string, unknown>;
	switch (kind) {
		case "blankLines":
			lines.splice(i, 0, "", "   ");
			break;
		case "malformedMiddle":
			lines.splice(i, 0, '{"type":"message","id":"trunc');
			break;
		case "tornLast": {
			// A crash mid-write: the last line cut short, no newline.
			const last = lines.pop()!;
			return `${lines.join("\n")}\n${last.slice(0, 20)}`;
		}
		case "noFinalNewline":
			return lines.join("\n");
		case "bom":
			return `\uFEFF${text}`;
		case "crlf":
			return `${lines.join("\r\n")}\r\n`;
		case "duplicateId":
			// A later line reusing an id (same parent, so no cycle: pi would loop forever on one).
			lines.push(JSON.stringify({ ...entry, type: "custom", customType: "dup", data: { n: 1 } }));
			break;
		case "orphan":
			lines[i] = JSON.stringify({ ...entry, parentId: "deadbeef" });
			break;
		case "timestamps":
			// Clock skew or hand edits: entry times out of order, one unparsable (tree children sort by time).
			for (let j = 1; j < lines.length; j++) {
				const e = JSON.parse(lines[j]!) as Record<string, unknown>;
				const skewed = (j * 7919 + Math.floor(at * 1000)) % 11;
				e.timestamp = skewed === 10 ? "not a time" : new Date(1_700_000_000_000 + skewed * 1000).toISOString();
				lines[j] = JSON.stringify(e);
			}
			break;
		case "unknownType":
			lines.splice(
				i + 1,
				0,
				JSON.stringify({ type: "future_thing", id: "f0000001", parentId: entry.id, timestamp: entry.timestamp }),
			);
			break;
	}
	return `${lines.join("\n")}\n`;
}

describe("damaged files: pi 0.73.1 and Settle load the same entries", () => {
	it(
		"blank lines, malformed/torn/unterminated lines, BOM, CRLF, duplicate ids, orphans, unknown types, skewed times",
		() => {
			fc.assert(
				fc.property(
					fileOps,
					fc.constantFrom(...DAMAGES),
					fc.integer({ min: 0, max: 999 }).map((n) => n / 1000),
					(ops, kind, at) => {
						const source = writeSession("settle", CWD, tempDir("pi-diff-src-"), ops, 1_700_000_500_000);
						const text = damage(readFileSync(source, "utf8"), kind, at);
						const { pi, settle, st, piFile, stFile } = openBoth(text);
						expectSameOnEveryBranch(st, pi);

						// Appending after the damage: Settle first repairs the end of the file (torn bytes set
						// aside, missing newline added) so nothing it appends is lost when read back.
						st.appendMessage(assistant("after damage", 1_700_000_600_000));
						const expected = snapshot(st, []);
						settle.close();
						const reopened = track(SessionManager.open(stFile));
						expect(snapshot(asStore(reopened), [])).toEqual(expected);
						expect(reopened.getDiagnostics().map((d) => d.kind)).toEqual(REPORTED_ON_REOPEN[kind]);
						pi.appendMessage(assistant("after damage", 1_700_000_600_000));
						const piReopened = asStore(PiSessionManager.open(piFile));
						if (kind === "tornLast" || kind === "noFinalNewline") {
							// PI_BUG_APPEND_AFTER_UNTERMINATED_LINE: pi 0.73.1 appends straight after the last
							// bytes, so the new entry is glued to the damaged line and lost on the next load.
							expect(piReopened.getEntries().length).toBeLessThan(reopened.getEntries().length);
						} else {
							expect(snapshot(asStore(reopened), [])).toEqual(snapshot(piReopened, []));
						}
					},
				),
				{ numRuns: runs(40) },
			);
		},
		DIFF_TIMEOUT_MS,
	);
});

// -------------------------------------------------------------------------------------------------
// Migration

const oldTimestamp = fc.integer({ min: 0, max: 999 }).map((n) => new Date(1_690_000_000_000 + n * 1000).toISOString());
const text = fc.constantFrom("a", "fix it", "ok", "");
const oldMessage = fc.oneof(
	fc.record({ role: fc.constant("user"), content: text, timestamp: fc.nat(1000) }),
	text.map((t) => assistant(t, 5)),
	fc.record({
		role: fc.constant("hookMessage"),
		customType: fc.constantFrom("ext", "hook"),
		content: text,
		display: fc.boolean(),
		timestamp: fc.nat(1000),
	}),
	fc.record({
		role: fc.constant("toolResult"),
		toolCallId: fc.constant("c1"),
		toolName: fc.constant("read"),
		content: text.map((t) => [{ type: "text", text: t }]),
		isError: fc.boolean(),
		timestamp: fc.nat(1000),
	}),
);
/** An entry of an old file without its v2 ids; `keep` picks the compaction's first kept entry among the earlier ones. */
const oldEntry = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ type: fc.constant("message"), message: oldMessage, timestamp: oldTimestamp }) },
	{
		weight: 1,
		arbitrary: fc.record({
			type: fc.constant("thinking_level_change"),
			thinkingLevel: fc.constantFrom("off", "high"),
			timestamp: oldTimestamp,
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			type: fc.constant("model_change"),
			provider: fc.constant("openai"),
			modelId: fc.constantFrom("gpt-a", "gpt-b"),
			timestamp: oldTimestamp,
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			type: fc.constant("compaction"),
			summary: text,
			tokensBefore: fc.nat(100_000),
			keep: fc.integer({ min: 0, max: 999 }),
			timestamp: oldTimestamp,
		}),
	},
);

/** Entry types that came with v2 (they refer to other entries by id); `keep` picks the entry referred to. */
const V2_ONLY = new Set(["label", "branch_summary", "custom", "custom_message", "session_info"]);
const v2OnlyEntry = fc.oneof(
	fc.record({
		type: fc.constant("label"),
		label: fc.constantFrom("x", ""),
		keep: fc.nat(999),
		timestamp: oldTimestamp,
	}),
	fc.record({ type: fc.constant("branch_summary"), summary: text, keep: fc.nat(999), timestamp: oldTimestamp }),
	fc.record({ type: fc.constant("custom"), customType: fc.constant("ext"), data: fc.nat(9), timestamp: oldTimestamp }),
	fc.record({
		type: fc.constant("custom_message"),
		customType: fc.constant("ext"),
		content: text,
		display: fc.boolean(),
		timestamp: oldTimestamp,
	}),
	fc.record({ type: fc.constant("session_info"), name: fc.constantFrom("old name", " "), timestamp: oldTimestamp }),
);

/** v1: no ids, compactions point at their first kept line by index (the header is line 0). */
function v1File(entries: readonly Record<string, unknown>[], withVersion: boolean): string {
	const header = {
		type: "session",
		...(withVersion ? { version: 1 } : {}),
		id: "old-session",
		timestamp: "2023-07-22T04:26:40.000Z",
		cwd: CWD,
	};
	const lines = entries
		.filter((entry) => !V2_ONLY.has(entry.type as string))
		.map((entry, i) => {
			const { keep, ...rest } = entry;
			// Only earlier lines (pi 0.73.1 converts the index while it assigns ids, so a later one has none yet).
			return entry.type === "compaction" ? { ...rest, firstKeptEntryIndex: (keep as number) % (i + 1) } : rest;
		});
	return `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`;
}

/** v2: ids and parents (a random earlier parent: branches), `hookMessage` roles not yet renamed. */
function v2File(entries: readonly Record<string, unknown>[], parents: readonly number[]): string {
	const header = { type: "session", version: 2, id: "old-session", timestamp: "2023-07-22T04:26:40.000Z", cwd: CWD };
	const ids = entries.map((_, i) => `e${String(i).padStart(7, "0")}`);
	const lines = entries.map((entry, i) => {
		const { keep, ...rest } = entry;
		const parentId = i === 0 ? null : ids[(parents[i] ?? 0) % i]!;
		const base = { ...rest, id: ids[i], parentId };
		const earlier = ids[(keep as number) % (i + 1)];
		if (entry.type === "compaction") return { ...base, firstKeptEntryId: earlier };
		if (entry.type === "label") return { ...base, targetId: i === 0 ? "missing" : earlier };
		if (entry.type === "branch_summary") return { ...base, fromId: i === 0 ? "root" : earlier };
		return base;
	});
	return `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`;
}

describe("migration: v1/v2 files migrate to the same session and the same rewritten lines", () => {
	it(
		"random v1 (with and without a version field) and v2 files",
		() => {
			fc.assert(
				fc.property(
					fc.array(fc.oneof({ weight: 4, arbitrary: oldEntry }, { weight: 1, arbitrary: v2OnlyEntry }), {
						minLength: 1,
						maxLength: 30,
						size: "max",
					}),
					fc.constantFrom("v1", "v1-versioned", "v2"),
					fc.array(fc.nat(1000), { maxLength: 30 }),
					(entries, format, parents) => {
						const text = format === "v2" ? v2File(entries, parents) : v1File(entries, format === "v1-versioned");
						const { pi, settle, st, piFile, stFile } = openBoth(text);
						expect(snapshot(st, [])).toEqual(snapshot(pi, []));
						expect(readLines(stFile)[0]).toMatchObject({ version: 3 });
						// The rewritten files: the same lines (random v1 ids compared by position; key order aside).
						expect(normalizeFile(readLines(stFile), [])).toEqual(normalizeFile(readLines(piFile), []));
						expect(readLines(stFile).map((l) => l.timestamp)).toEqual(readLines(piFile).map((l) => l.timestamp));
						expectSameOnEveryBranch(st, pi);
						settle.close();

						// Idempotent: opening the migrated files again changes nothing, in either implementation,
						// and each opens the other's migrated file to the same session.
						const stBytes = readFileSync(stFile, "utf8");
						const piBytes = readFileSync(piFile, "utf8");
						const again = track(SessionManager.open(piFile));
						const piAgain = asStore(PiSessionManager.open(stFile));
						expect(readFileSync(stFile, "utf8")).toBe(stBytes);
						expect(readFileSync(piFile, "utf8")).toBe(piBytes);
						expect(snapshot(asStore(again), [])).toEqual(snapshot(piAgain, []));
						expect(again.getDiagnostics()).toEqual([]);
						again.close();
					},
				),
				{ numRuns: runs(60) },
			);
		},
		DIFF_TIMEOUT_MS,
	);
});

// -------------------------------------------------------------------------------------------------
// Discovery

interface Planned {
	writer: "pi" | "settle";
	cwd: string;
	ops: Op[];
	mtime: number;
}

const planned = fc.record({
	writer: fc.constantFrom<"pi" | "settle">("pi", "settle"),
	cwd: fc.constantFrom(CWD, CWD, CWD, OTHER_CWD),
	ops: fc.array(
		opArbitrary.filter(
			(op) =>
				op.kind !== "reopen" && op.kind !== "switchFile" && op.kind !== "newSession" && op.kind !== "createBranched",
		),
		{ maxLength: 8 },
	),
	mtime: fc.integer({ min: 0, max: 100_000 }),
});

/** Extra files a session dir may hold beside sessions. */
const extras = fc.subarray(["empty", "headerless", "v1", "notJsonl"] as const);

const ENV_KEYS = ["PI_CODING_AGENT_DIR", "SETTLE_AGENT_DIR"] as const;
const savedEnv: Partial<Record<(typeof ENV_KEYS)[number], string | undefined>> = {};
beforeEach(() => {
	for (const key of ENV_KEYS) savedEnv[key] = process.env[key];
});
afterEach(() => {
	for (const key of ENV_KEYS) {
		if (savedEnv[key] === undefined) delete process.env[key];
		else process.env[key] = savedEnv[key];
	}
});

function populate(dir: string, sessions: readonly Planned[], extra: readonly string[]): void {
	mkdirSync(dir, { recursive: true });
	sessions.forEach((s, i) => {
		const file = writeSession(s.writer, s.cwd, dir, s.ops, 1_700_000_000_000 + i * 7919);
		const mtime = new Date(1_700_000_000_000 + s.mtime * 1000 + i);
		utimesSync(file, mtime, mtime);
	});
	const at = new Date(1_700_000_000_000 + 200_000_000);
	const write = (name: string, content: string) => {
		writeFileSync(join(dir, name), content);
		utimesSync(join(dir, name), at, at);
	};
	if (extra.includes("empty")) write("2020-empty.jsonl", "");
	if (extra.includes("headerless")) write("2020-headerless.jsonl", `${JSON.stringify({ type: "message", id: "x" })}\n`);
	if (extra.includes("notJsonl")) write("notes.txt", "not a session");
	if (extra.includes("v1")) {
		write(
			"2020-v1.jsonl",
			v1File(
				[
					{
						type: "message",
						message: { role: "user", content: "old", timestamp: 1 },
						timestamp: "2023-01-01T00:00:00.000Z",
					},
				],
				false,
			),
		);
	}
}

/** Whether the session file holds a user or assistant message (lines that do not parse are passed over). */
function holdsConversation(file: string): boolean {
	return readFileSync(file, "utf8")
		.split("\n")
		.some((line) => {
			try {
				const entry = JSON.parse(line) as { type?: unknown; message?: { role?: unknown } };
				const role = entry.type === "message" ? entry.message?.role : undefined;
				return (role === "user" || role === "assistant") && "content" in entry.message!;
			} catch {
				return false;
			}
		});
}

/** SessionInfo lists compared as sets (ties in `modified` may come in either order), each sorted newest first. */
function expectSameInfos(
	settle: readonly { path: string; modified: Date }[],
	pi: readonly { path: string; modified: Date }[],
) {
	const byPath = <T extends { path: string }>(list: readonly T[]) =>
		[...list].sort((a, b) => a.path.localeCompare(b.path));
	expect(byPath(settle)).toEqual(byPath(pi));
	for (const list of [settle, pi]) {
		for (let i = 1; i < list.length; i++)
			expect(list[i - 1]!.modified.getTime()).toBeGreaterThanOrEqual(list[i]!.modified.getTime());
	}
}

describe("discovery over a session dir written by both", () => {
	it(
		"list, listAll, findById and continueRecent",
		async () => {
			await fc.assert(
				fc.asyncProperty(fc.array(planned, { maxLength: 6 }), extras, async (sessions, extra) => {
					const agentDir = tempDir("pi-diff-agent-");
					const dir = join(agentDir, "sessions", "--work-project--");
					const otherDir = join(agentDir, "sessions", "--work-other--");
					populate(dir, sessions, extra);
					populate(
						otherDir,
						sessions.filter((s) => s.cwd === OTHER_CWD),
						[],
					);

					// DELIBERATE_LIST_FILTERS_CWD: given a custom session dir, Settle lists (and continues,
					// and finds) only the sessions of `cwd` in it; pi 0.73.1 returns every session there.
					const piList = await PiSessionManager.list(CWD, dir);
					const stList = await SessionManager.list(CWD, dir);
					expectSameInfos(
						stList,
						piList.filter((info) => info.cwd === CWD),
					);
					expectSameInfos(await SessionManager.listAll(dir), piList);

					for (const info of piList) {
						const expected = info.cwd === CWD ? info.path : undefined;
						expect(SessionManager.findById(CWD, info.id, dir)).toBe(expected);
					}
					expect(SessionManager.findById(CWD, "no-such-session", dir)).toBeUndefined();

					// continueRecent on two copies (both rewrite a migrated file), without other cwds' sessions.
					for (const name of readdirSync(dir)) {
						const header = readLines(join(dir, name).endsWith(".jsonl") ? join(dir, name) : undefined)[0];
						if (header?.cwd === OTHER_CWD) rmSync(join(dir, name));
					}
					const piCopy = tempDir("pi-diff-recent-pi-");
					const stCopy = tempDir("pi-diff-recent-settle-");
					cpSync(dir, piCopy, { recursive: true, preserveTimestamps: true });
					cpSync(dir, stCopy, { recursive: true, preserveTimestamps: true });
					// DELIBERATE_CONTINUE_BY_LAST_MESSAGE: Settle continues what `settle -c` does, the latest
					// session by pi's `modified` (its last message) that holds a user or assistant message (a
					// file with none only when no other is left); pi 0.73.1 takes the newest file by mtime.
					// Both open the file picked alike: Settle's pick is compared with pi's open of it.
					const ours = piList.filter((info) => info.cwd === CWD);
					const conversations = ours.filter((info) => holdsConversation(info.path));
					const pool = conversations.length > 0 ? conversations : ours;
					const latest = Math.max(...pool.map((info) => info.modified.getTime()));
					const picks = pool.filter((info) => info.modified.getTime() === latest).map((info) => basename(info.path));
					// A file's mtime is never earlier than its last message (entries are stamped as they are
					// written): the planned mtimes, some earlier, moved up to it in both copies.
					for (const info of ours) {
						for (const copy of [piCopy, stCopy]) {
							const file = join(copy, basename(info.path));
							const at = new Date(Math.max(statSync(file).mtimeMs, info.modified.getTime()));
							utimesSync(file, at, at);
						}
					}
					const stManager = track(SessionManager.continueRecent(CWD, stCopy));
					const stRecent = asStore(stManager);
					const continued = existsSync(stRecent.getSessionFile()!);
					expect(continued).toBe(picks.length > 0);
					const piRecent = asStore(
						continued
							? PiSessionManager.open(join(piCopy, basename(stRecent.getSessionFile()!)), piCopy, CWD)
							: PiSessionManager.continueRecent(CWD, piCopy),
					);
					if (continued) expect(picks).toContain(basename(stRecent.getSessionFile()!));
					expect(snapshot(stRecent, [])).toEqual(snapshot(piRecent, []));
					stManager.close();

					// Every session under the agent dir (pi's listAll reads no dir argument: both follow their env var).
					process.env.PI_CODING_AGENT_DIR = agentDir;
					process.env.SETTLE_AGENT_DIR = agentDir;
					expectSameInfos(await SessionManager.listAll(), await PiSessionManager.listAll());
				}),
				{ numRuns: runs(25) },
			);
		},
		DIFF_TIMEOUT_MS,
	);
});

// -------------------------------------------------------------------------------------------------
// forkFrom

describe("forkFrom: pi 0.73.1 and Settle copy a session into another cwd the same way", () => {
	it(
		"sessions written by either, forked by both: same entries, header and file, source untouched",
		() => {
			fc.assert(
				fc.property(fc.constantFrom<"pi" | "settle">("pi", "settle"), fileOps, (writer, ops) => {
					const source = writeSession(writer, CWD, tempDir("pi-diff-src-"), ops, 1_700_000_500_000);
					const before = readFileSync(source, "utf8");
					const pi = asStore(PiSessionManager.forkFrom(source, OTHER_CWD, tempDir("pi-diff-fork-pi-")));
					const settle = track(SessionManager.forkFrom(source, OTHER_CWD, tempDir("pi-diff-fork-settle-")));
					const st = asStore(settle);
					expect(readFileSync(source, "utf8")).toBe(before);
					expect(snapshot(st, [source])).toEqual(snapshot(pi, [source]));
					// Copied, not re-created: the very same ids, in both.
					expect(JSON.parse(JSON.stringify(st.getEntries()))).toEqual(JSON.parse(JSON.stringify(pi.getEntries())));
					expect(st.getHeader()).toMatchObject({ cwd: OTHER_CWD, parentSession: source, version: 3 });
					// Written at once by both, and appending continues the same way.
					expect(normalizeFile(readLines(st.getSessionFile()), [source])).toEqual(
						normalizeFile(readLines(pi.getSessionFile()), [source]),
					);
					st.appendMessage(assistant("after fork", 1_700_000_700_000));
					pi.appendMessage(assistant("after fork", 1_700_000_700_000));
					expect(normalizeFile(readLines(st.getSessionFile()), [source])).toEqual(
						normalizeFile(readLines(pi.getSessionFile()), [source]),
					);
					settle.close();
				}),
				{ numRuns: runs(25) },
			);
		},
		DIFF_TIMEOUT_MS,
	);

	it("refuses a missing, empty or header-less source with pi's message", () => {
		const dir = tempDir("pi-diff-fork-bad-");
		const empty = join(dir, "empty.jsonl");
		const headerless = join(dir, "headerless.jsonl");
		writeFileSync(empty, "");
		writeFileSync(headerless, `${JSON.stringify({ type: "message", id: "x", parentId: null })}\n`);
		for (const source of [join(dir, "missing.jsonl"), empty, headerless]) {
			const piError = (() => {
				try {
					PiSessionManager.forkFrom(source, OTHER_CWD, tempDir("pi-diff-fork-pi-"));
				} catch (error) {
					return (error as Error).message;
				}
			})();
			expect(piError).toBe(`Cannot fork: source session file is empty or invalid: ${source}`);
			expect(() => SessionManager.forkFrom(source, OTHER_CWD, tempDir("pi-diff-fork-settle-"))).toThrow(piError);
		}
	});
});

// -------------------------------------------------------------------------------------------------
// open's optional arguments

describe("open(path, sessionDir, cwdOverride): the same as pi 0.73.1", () => {
	it("cwd and session dir from the arguments, header untouched, branched files go to the session dir", () => {
		fc.assert(
			fc.property(fileOps, fc.boolean(), fc.boolean(), (ops, withDir, withCwd) => {
				const source = writeSession("pi", CWD, tempDir("pi-diff-src-"), ops, 1_700_000_500_000);
				const copy = join(tempDir("pi-diff-open-"), basename(source));
				cpSync(source, copy);
				const sessionDir = withDir ? tempDir("pi-diff-open-dir-") : undefined;
				const cwd = withCwd ? OTHER_CWD : undefined;
				const pi = PiSessionManager.open(source, sessionDir, cwd);
				const settle = track(SessionManager.open(copy, sessionDir, cwd));
				expect(settle.getCwd()).toBe(pi.getCwd());
				expect(settle.getHeader()).toEqual(pi.getHeader());
				if (withDir) expect(settle.getSessionDir()).toBe(pi.getSessionDir());
				const leaf = settle.getLeafId()!;
				const piBranched = pi.createBranchedSession(leaf)!;
				const stBranched = settle.createBranchedSession(leaf)!;
				expect(stBranched.startsWith(withDir ? sessionDir! : dirname(copy))).toBe(true);
				expect(piBranched.startsWith(withDir ? sessionDir! : dirname(source))).toBe(true);
				expect(settle.getHeader()).toMatchObject({ cwd: pi.getHeader()!.cwd, parentSession: copy });
				expect(pi.getHeader()).toMatchObject({ parentSession: source });
				settle.close();
			}),
			{ numRuns: runs(20) },
		);
	});
});
