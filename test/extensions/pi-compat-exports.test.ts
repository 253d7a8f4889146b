/**
 * `@mariozechner/pi-coding-agent` value imports in extensions resolve to src/extensions/pi-compat.ts.
 * The session-file and token helpers it re-exports must answer as pi 0.73.1's own do, on the same
 * inputs: a pi extension that reads session files or estimates context use gets pi's results.
 */
import * as pi from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import * as compat from "../../src/extensions/pi-compat.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

const usage = (totalTokens: number) => ({
	input: 10,
	output: 5,
	cacheRead: 2,
	cacheWrite: 1,
	totalTokens,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const assistant = (content: unknown[], stopReason: string, timestamp: number) => ({
	role: "assistant",
	content,
	api: "x",
	provider: "p",
	model: "m",
	usage: usage(timestamp === 2 ? 18 : 0),
	stopReason,
	timestamp,
});
const line = (entry: object) => JSON.stringify(entry);
const at = (second: number) => `2025-01-01T00:00:0${second}.000Z`;

/** A v3 file: a tool turn, a compaction keeping its second half, a message after it, and a torn line. */
const FILE = [
	line({ type: "session", version: 3, id: "s1", timestamp: at(0), cwd: "/tmp" }),
	line({
		type: "message",
		id: "a1",
		parentId: null,
		timestamp: at(1),
		message: { role: "user", content: "hello", timestamp: 1 },
	}),
	line({
		type: "message",
		id: "a2",
		parentId: "a1",
		timestamp: at(2),
		message: assistant([{ type: "text", text: "hi" }], "stop", 2),
	}),
	line({
		type: "message",
		id: "a3",
		parentId: "a2",
		timestamp: at(3),
		message: { role: "user", content: "more ".repeat(50), timestamp: 3 },
	}),
	line({
		type: "message",
		id: "a4",
		parentId: "a3",
		timestamp: at(4),
		message: assistant([{ type: "toolCall", id: "c", name: "read", arguments: { path: "x" } }], "toolUse", 4),
	}),
	line({
		type: "message",
		id: "a5",
		parentId: "a4",
		timestamp: at(5),
		message: {
			role: "toolResult",
			toolCallId: "c",
			toolName: "read",
			content: [{ type: "text", text: "data" }],
			isError: false,
			timestamp: 5,
		},
	}),
	line({
		type: "compaction",
		id: "a6",
		parentId: "a5",
		timestamp: at(6),
		summary: "sum",
		firstKeptEntryId: "a3",
		tokensBefore: 100,
	}),
	'{"type":"message","id":"a7"',
	line({
		type: "message",
		id: "a8",
		parentId: "a6",
		timestamp: at(8),
		message: { role: "user", content: "after", timestamp: 8 },
	}),
].join("\n");

/** A v1 file: no ids, a `hookMessage`, a compaction by index. */
const V1 = [
	{ type: "session", id: "s", timestamp: at(0), cwd: "/" },
	{
		type: "message",
		timestamp: at(1),
		message: { role: "hookMessage", customType: "x", content: "c", display: true, timestamp: 1 },
	},
	{ type: "compaction", timestamp: at(2), summary: "s", firstKeptEntryIndex: 1, tokensBefore: 1 },
];

describe("pi-compat re-exports answer as pi 0.73.1's", () => {
	const entries = pi.parseSessionEntries(FILE);
	const body = entries.filter((entry) => entry.type !== "session") as pi.SessionEntry[];

	it("parseSessionEntries, buildSessionContext, getLatestCompactionEntry, CURRENT_SESSION_VERSION", () => {
		expect(compat.parseSessionEntries(FILE)).toEqual(entries);
		expect(compat.buildSessionContext(body as never)).toEqual(pi.buildSessionContext(body));
		expect(compat.buildSessionContext(body as never, "a4")).toEqual(pi.buildSessionContext(body, "a4"));
		expect(compat.getLatestCompactionEntry(body as never)).toEqual(pi.getLatestCompactionEntry(body));
		expect(compat.CURRENT_SESSION_VERSION).toBe(pi.CURRENT_SESSION_VERSION);
	});

	it("migrateSessionEntries gives ids, a parent chain, firstKeptEntryId and the custom role", () => {
		const ours = structuredClone(V1);
		const theirs = structuredClone(V1);
		compat.migrateSessionEntries(ours);
		pi.migrateSessionEntries(theirs as never);
		// Ids are random: compare which entry each id points to.
		const shape = (migrated: Record<string, unknown>[]) => {
			const index = new Map(migrated.map((entry, i) => [entry.id, i]));
			return migrated.map((entry) => ({
				...entry,
				id: typeof entry.id,
				parentId: entry.parentId === null ? null : index.get(entry.parentId),
				...(entry.firstKeptEntryId ? { firstKeptEntryId: index.get(entry.firstKeptEntryId) } : {}),
			}));
		};
		expect(shape(ours)).toEqual(shape(theirs));
		expect(ours[1]).toMatchObject({ message: { role: "custom" } });
	});

	it("calculateContextTokens, shouldCompact, DEFAULT_COMPACTION_SETTINGS, estimateTokens, findTurnStartIndex", () => {
		for (const total of [0, 50]) {
			expect(compat.calculateContextTokens(usage(total))).toBe(pi.calculateContextTokens(usage(total)));
		}
		const settings = { enabled: true, reserveTokens: 100, keepRecentTokens: 1 };
		for (const [tokens, enabled] of [
			[100, true],
			[101, true],
			[101, false],
		] as const) {
			const s = { ...settings, enabled };
			expect(compat.shouldCompact(tokens, 200, s)).toBe(pi.shouldCompact(tokens, 200, s));
		}
		expect(compat.DEFAULT_COMPACTION_SETTINGS).toEqual(pi.DEFAULT_COMPACTION_SETTINGS);
		for (const entry of body) {
			if (entry.type !== "message") continue;
			expect(compat.estimateTokens(entry.message as never)).toBe(pi.estimateTokens(entry.message));
		}
		for (const index of [0, 3, 4, 6]) {
			expect(compat.findTurnStartIndex(body as never, index, 0)).toBe(pi.findTurnStartIndex(body, index, 0));
		}
	});

	it("parseSkillBlock reads the block the prompt pipeline writes for /skill:name", () => {
		for (const text of [
			'<skill name="a" location="/x/SKILL.md">\nReferences are relative to /x.\n\nbody\n</skill>\n\nargs',
			'<skill name="a" location="/x/SKILL.md">\nReferences are relative to /x.\n\nbody\n</skill>',
			"plain text",
		]) {
			expect(compat.parseSkillBlock(text)).toEqual(pi.parseSkillBlock(text));
		}
	});

	it("SessionManager and SettingsManager are Settle's (pi's API, differential-tested in test/store and test/settings)", () => {
		expect(compat.SessionManager).toBe(SessionManager);
		expect(compat.SettingsManager).toBe(SettingsManager);
		const manager = compat.SessionManager.inMemory("/tmp");
		manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		expect(manager.buildSessionContext().messages).toHaveLength(1);
	});

	it("leaves out the names whose Settle function differs from pi's on purpose", () => {
		for (const name of ["compact", "generateSummary", "findCutPoint", "formatSkillsForPrompt"]) {
			expect(name in compat, name).toBe(false);
		}
	});
});
