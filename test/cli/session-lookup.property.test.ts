/**
 * `settle --session <id-prefix>` / `/resume <id-prefix>` read only the headers of sessions whose
 * id cannot match, yet answer exactly as the rule read from every file in full does (the
 * reference below: `SessionManager.list` filtered by the prefix, then every other project's
 * sessions): the same session, or the same error, for random folders of sessions with shared id
 * prefixes, other projects' sessions, a custom session dir, and files whose first line is not a
 * header (blank, garbage, not a session, a byte order mark).
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findSessionByIdPrefix, type SessionLookup } from "../../src/cli/session-lookup.js";
import { SettleError } from "../../src/errors.js";
import { listSessionsIn, sessionDirsUnder } from "../../src/store/discovery.js";
import type { SessionInfo } from "../../src/store/entries.js";
import { getDefaultSessionDirPath } from "../../src/store/paths.js";
import { SessionManager } from "../../src/store/session-manager.js";

let root: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "settle-session-lookup-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const kinds = ["header", "blankFirst", "garbageFirst", "notSession", "bom", "headerOnly"] as const;
const file = fc.record({
	id: fc.constantFrom("aa11", "aa22", "ab33", "b444", "aa11"),
	project: fc.constantFrom("here", "there"),
	kind: fc.constantFrom(...kinds),
	custom: fc.boolean(),
	minute: fc.integer({ min: 0, max: 50 }),
});
type FileSpec = typeof file extends fc.Arbitrary<infer T> ? T : never;

function contents(spec: FileSpec, cwd: string, index: number): string {
	const header = JSON.stringify({
		type: "session",
		version: 3,
		id: spec.id,
		timestamp: "2026-01-01T00:00:00.000Z",
		cwd,
	});
	const message = (role: string, text: string, minute: number) =>
		JSON.stringify({
			type: "message",
			id: `m${index}${role}`,
			parentId: null,
			timestamp: "2026-01-01T00:00:00.000Z",
			message: { role, content: text, timestamp: Date.UTC(2026, 0, 1, 0, minute) },
		});
	const body = [
		message("user", `question ${index}`, spec.minute),
		message("assistant", `answer ${index}`, spec.minute),
	];
	switch (spec.kind) {
		case "header":
			return [header, ...body, ""].join("\n");
		case "blankFirst":
			return ["", header, ...body, ""].join("\n");
		case "garbageFirst":
			return ["{not json", header, ...body, ""].join("\n");
		case "notSession":
			return [JSON.stringify({ type: "message", id: spec.id }), header, ...body, ""].join("\n");
		case "bom":
			return [`\ufeff${header}`, ...body, ""].join("\n");
		case "headerOnly":
			return `${header}\n`;
	}
}

// The rule as it was (src/cli/session-lookup.ts before it read headers first), verbatim: every
// session of the project read in full, then every other project's.
const LISTED = 5;
async function reference(prefix: string, lookup: SessionLookup): Promise<SessionInfo> {
	// No session's whole text: the lookup reads ids, names, paths, dates and first messages only.
	const sessions = await SessionManager.list(lookup.cwd, { sessionDir: lookup.sessionDir, messagesText: false });
	const matches = sessions.filter((info) => info.id.startsWith(prefix));
	if (matches.length === 1) return matches[0]!;
	if (matches.length > 1) {
		const shown = matches.slice(0, LISTED).map(describeInfo).join("; ");
		const more = matches.length > LISTED ? `; and ${matches.length - LISTED} more` : "";
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${matches.length} sessions of this project have an id starting with ${prefix}: ${shown}${more}. Give more of the id.`,
			{ details: { prefix, ids: matches.map((info) => info.id) } },
		);
	}
	const cwd = resolve(lookup.cwd);
	const isDefault = resolve(lookup.sessionDir) === getDefaultSessionDirPath(cwd, lookup.agentDir);
	const dirs = isDefault
		? (await sessionDirsUnder(join(resolve(lookup.agentDir), "sessions"))).filter(
				(dir) => resolve(dir) !== resolve(lookup.sessionDir),
			)
		: [resolve(lookup.sessionDir)];
	const elsewhere = (await listSessionsIn(dirs))
		.filter((info) => info.cwd !== "" && resolve(info.cwd) !== cwd)
		.filter((info) => info.id.startsWith(prefix));
	if (elsewhere.length > 0) {
		const [first] = elsewhere;
		const others =
			elsewhere.length > 1 ? ` (${elsewhere.length} sessions of other projects match; this is the newest)` : "";
		throw new SettleError(
			"NOT_FOUND",
			`No session of this project (${resolve(lookup.cwd)}) has an id starting with ${prefix}; session ${describeInfo(first!)} of the project ${first!.cwd} does${others}. To resume it there: ${lookup.resumeElsewhere(first!)}`,
			{
				details: {
					prefix,
					elsewhere: { id: first!.id, cwd: first!.cwd, path: first!.path, others: elsewhere.length - 1 },
				},
			},
		);
	}
	const latest =
		sessions.length === 0
			? " This project has no sessions yet."
			: ` The latest: ${sessions.slice(0, 3).map(describeInfo).join("; ")}${lookup.latestHint}`;
	throw new SettleError(
		"NOT_FOUND",
		`No session of this project has an id starting with ${prefix} (in ${lookup.sessionDir}), and none is named ${JSON.stringify(prefix.trim())} (/name names a session).${latest}`,
		{ details: { prefix, name: prefix.trim() } },
	);
}

function describeInfo(info: SessionInfo): string {
	const line = info.firstMessage.trim().replace(/\s*\n\s*/g, " ");
	const clipped = line.length > 40 ? `${line.slice(0, 39)}…` : line;
	return `${info.id} (${info.modified.toISOString()}, "${clipped}")`;
}

/** What a lookup gives: the session found (its whole info), or the error's code, message and details. */
async function outcome(run: () => Promise<SessionInfo>) {
	try {
		return { info: await run() };
	} catch (error) {
		if (!(error instanceof SettleError)) throw error;
		return { code: error.code, message: error.message, details: error.details };
	}
}

describe("findSessionByIdPrefix reads only headers that can match", () => {
	it("answers as the rule that reads every session in full", async () => {
		let run = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(file, { minLength: 0, maxLength: 8 }),
				fc.constantFrom("a", "aa", "aa1", "ab", "b", "c"),
				fc.boolean(),
				async (specs, prefix, customLookup) => {
					const base = join(root, `run${run++}`);
					const agentDir = join(base, "agent");
					const here = join(base, "here");
					const there = join(base, "there");
					const custom = join(base, "custom-sessions");
					specs.forEach((spec, index) => {
						const cwd = spec.project === "here" ? here : there;
						const dir = spec.custom ? custom : getDefaultSessionDirPath(cwd, agentDir);
						mkdirSync(dir, { recursive: true });
						const path = join(dir, `2026-01-01T00-00-00-000Z_${index}_${spec.id}.jsonl`);
						writeFileSync(path, contents(spec, cwd, index));
						const mtime = new Date(Date.UTC(2026, 0, 1, 1, spec.minute));
						utimesSync(path, mtime, mtime);
					});
					const lookup: SessionLookup = {
						cwd: here,
						agentDir,
						sessionDir: customLookup ? custom : getDefaultSessionDirPath(here, agentDir),
						resumeElsewhere: (info) => `resume ${info.path}`,
						latestHint: "",
					};
					const actual = await outcome(() => findSessionByIdPrefix(prefix, lookup));
					expect(actual).toEqual(await outcome(() => reference(prefix, lookup)));
				},
			),
			{ numRuns: 60 },
		);
	});
});

describe("findSessionByIdPrefix keeps no session's whole text", () => {
	it("the session found, here or in the link-named folder, has an empty allMessagesText; its first message is kept", async () => {
		const agentDir = join(root, "agent");
		const here = join(root, "here");
		const link = join(root, "link");
		const long = "x".repeat(1_000_000);
		const write = (cwd: string, id: FileSpec["id"]) => {
			const dir = getDefaultSessionDirPath(cwd, agentDir);
			mkdirSync(dir, { recursive: true });
			writeFileSync(
				join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`),
				contents({ id, project: "here", kind: "header", custom: false, minute: 1 }, cwd, 0).replace("answer 0", long),
			);
		};
		write(here, "aa11");
		write(link, "b444");
		const lookup: SessionLookup = {
			cwd: here,
			agentDir,
			sessionDir: getDefaultSessionDirPath(here, agentDir),
			resumeElsewhere: (info) => `resume ${info.path}`,
			latestHint: "",
			linkFolder: { cwd: link, sessionDir: getDefaultSessionDirPath(link, agentDir), project: here },
		};
		for (const prefix of ["aa", "b4"]) {
			const info = await findSessionByIdPrefix(prefix, lookup);
			expect(info).toMatchObject({ firstMessage: "question 0", messageCount: 2, allMessagesText: "" });
		}
	});
});
