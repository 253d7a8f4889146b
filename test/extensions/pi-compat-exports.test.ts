/**
 * `@mariozechner/pi-coding-agent` value imports in extensions resolve to src/extensions/pi-compat.ts.
 * The session-file and token helpers it re-exports must answer as pi 0.73.1's own do, on the same
 * inputs: a pi extension that reads session files or estimates context use gets pi's results.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareCompaction } from "../../src/compaction/prepare.js";
import * as compat from "../../src/extensions/pi-compat.js";
import { wrapRegisteredTool, wrapRegisteredTools } from "../../src/extensions/wrapper.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { call, EntryLog } from "../compaction/builders.js";
import { withoutEmptyBranchSummaries } from "../compaction/pi-differential.compare.js";
import {
	branchArb,
	headings,
	PiSummarizer,
	requestParts,
	type SeenRequest,
	treeArb,
	treeReader,
} from "../compaction/pi-differential.helpers.js";
import { tempDir } from "./helpers.js";

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
			[300, true],
			[301, true],
			[301, false],
		] as const) {
			const s = { ...settings, enabled };
			expect(compat.shouldCompact(tokens, 400, s)).toBe(pi.shouldCompact(tokens, 400, s));
		}
		// DELIBERATE_RESERVE_CAPPED_AT_HALF_WINDOW (pi#8651): a reserve over half the window is capped
		// (here 50 of 100, threshold 50); pi 0.73.1 takes it as set (threshold 0).
		expect(pi.shouldCompact(1, 100, settings)).toBe(true);
		expect(compat.shouldCompact(1, 100, settings)).toBe(false);
		expect(compat.shouldCompact(51, 100, settings)).toBe(true);
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
});

// biome-ignore lint/suspicious/noExplicitAny: pi's functions take pi's own types; the values are the same JSON.
type Pi = any;

/** The value exports of pi 0.73.1 that pi-compat leaves out: terminal UI, pi's own process entry points, and the SDK classes pi shapes differently. */
const NOT_PROVIDED = [
	// Terminal UI (components, themes, key hints): extensions that use them need pi's TUI.
	"ArminComponent",
	"AssistantMessageComponent",
	"BashExecutionComponent",
	"BorderedLoader",
	"BranchSummaryMessageComponent",
	"CompactionSummaryMessageComponent",
	"CustomEditor",
	"CustomMessageComponent",
	"DynamicBorder",
	"ExtensionEditorComponent",
	"ExtensionInputComponent",
	"ExtensionSelectorComponent",
	"FooterComponent",
	"InteractiveMode",
	"LoginDialogComponent",
	"ModelSelectorComponent",
	"OAuthSelectorComponent",
	"SessionSelectorComponent",
	"SettingsSelectorComponent",
	"ShowImagesSelectorComponent",
	"SkillInvocationMessageComponent",
	"Theme",
	"ThemeSelectorComponent",
	"ThinkingSelectorComponent",
	"ToolExecutionComponent",
	"TreeSelectorComponent",
	"UserMessageComponent",
	"UserMessageSelectorComponent",
	"getLanguageFromPath",
	"getMarkdownTheme",
	"getSelectListTheme",
	"getSettingsListTheme",
	"highlightCode",
	"initTheme",
	"keyHint",
	"keyText",
	"rawKeyHint",
	"renderDiff",
	"truncateToVisualLines",
	"copyToClipboard",
	// pi's own process: its CLI, modes and RPC client, package manager, version.
	"main",
	"runPrintMode",
	"runRpcMode",
	"RpcClient",
	"DefaultPackageManager",
	"VERSION",
	"getShellConfig",
	// The SDK layer: Settle's classes of these names are exported from "settle" with Settle's options.
	"AgentSession",
	"AgentSessionRuntime",
	"AuthStorage",
	"FileAuthStorageBackend",
	"InMemoryAuthStorageBackend",
	"ModelRegistry",
	"DefaultResourceLoader",
	"ExtensionRunner",
	"createAgentSession",
	"createAgentSessionFromServices",
	"createAgentSessionRuntime",
	"createAgentSessionServices",
	"createExtensionRuntime",
	"discoverAndLoadExtensions",
].sort();

describe("pi-compat's value exports against pi 0.73.1's", () => {
	it("every value pi exports is provided, except the listed terminal UI, process and SDK ones", () => {
		const missing = Object.keys(pi)
			.filter((name) => !(name in compat))
			.sort();
		expect(missing).toEqual(NOT_PROVIDED);
	});

	it("wrapRegisteredTool(s) are Settle's (pi's signature; tested in test/extensions)", () => {
		expect(compat.wrapRegisteredTool).toBe(wrapRegisteredTool);
		expect(compat.wrapRegisteredTools).toBe(wrapRegisteredTools);
	});
});

/** A session with a previous compaction, file-touching tool calls, and a long last turn. */
function compactedBranch(): SessionEntry[] {
	const log = new EntryLog();
	log.user("first question");
	const kept = log.assistant("first answer");
	log.add({
		type: "compaction",
		summary: "## Goal\nearlier work",
		firstKeptEntryId: kept.id,
		tokensBefore: 10,
		details: { readFiles: ["old/r.ts"], modifiedFiles: [] },
	});
	log.user("x".repeat(400));
	log.assistant("y".repeat(400), [call("c1", "read", { path: "src/a.ts" })]);
	log.toolResult("c1", "read", "contents");
	log.user("z".repeat(400));
	log.assistant("edit it", [call("c2", "edit", { path: "src/b.ts", oldText: "a", newText: "b" })]);
	log.toolResult("c2", "edit", "ok");
	log.assistant("w".repeat(800));
	return log.entries;
}

/** The parts of a request both products build alike; the instructions' wording is Settle's own, their headings pi's. */
function comparable(request: SeenRequest) {
	const parts = requestParts(request.text);
	return {
		conversation: parts.conversation,
		previousSummary: parts.previousSummary,
		headings: headings(parts.instructions),
		focus: /\n\nAdditional focus: (.*)$/.exec(parts.instructions)?.[1],
		messageCount: request.messageCount,
		maxTokens: request.maxTokens,
		reasoning: request.reasoning,
		apiKey: request.apiKey,
		hasSystemPrompt: Boolean(request.systemPrompt),
	};
}

describe("pi-compat compaction functions take pi's arguments and answer as pi's, on the same scripted model", () => {
	let plain: PiSummarizer;
	let reasoning: PiSummarizer;
	beforeAll(() => {
		plain = new PiSummarizer(false, 128_000);
		reasoning = new PiSummarizer(true, 128_000);
	});
	afterAll(() => {
		plain.dispose();
		reasoning.dispose();
	});

	/** Runs pi's call, then Settle's, each with the same scripted answers; returns both results and requests. */
	async function both<T>(
		model: PiSummarizer,
		answers: Parameters<PiSummarizer["script"]>[0],
		run: (side: Pi) => Promise<T>,
	): Promise<{ pi: T | Error; settle: T | Error; piRequests: SeenRequest[]; settleRequests: SeenRequest[] }> {
		const once = async (side: Pi) => {
			model.requests.length = 0;
			model.script(answers);
			const result = await run(side).catch((error: Error) => error);
			return { result, requests: [...model.requests] };
		};
		const theirs = await once(pi);
		const ours = await once(compat);
		return { pi: theirs.result, settle: ours.result, piRequests: theirs.requests, settleRequests: ours.requests };
	}

	it("compact: whole turns and a split turn, update mode, focus, reasoning level: same requests, same result", async () => {
		const branch = compactedBranch();
		for (const [keepRecentTokens, model, thinking] of [
			[150, plain, undefined],
			[250, reasoning, "high"],
			[1, plain, undefined],
		] as const) {
			const settings = { ...pi.DEFAULT_COMPACTION_SETTINGS, keepRecentTokens };
			const preparation = prepareCompaction(branch, settings)!;
			const answers = [{ text: "## Goal\nsummary" }, { text: "## Original Request\nprefix" }];
			const run = await both(model, answers, (side) =>
				side.compact(preparation, model.model(), "key-1", { "x-h": "1" }, "the tests", undefined, thinking),
			);
			expect(run.settle).toEqual(run.pi);
			expect(run.settle).not.toBeInstanceOf(Error);
			const order = (requests: SeenRequest[]) =>
				requests.map(comparable).sort((a, b) => a.conversation.localeCompare(b.conversation));
			// PI_BUG_SPLIT_TURN_PREFIX_DROPS_FOCUS (pi#9348): Settle's split-turn prefix request carries the
			// focus as its history request does; pi 0.73.1's leaves it out.
			const ours = order(run.settleRequests).map((request) => {
				if (!request.headings.includes("## Context for Suffix")) return request;
				expect(request.focus).toBe("the tests");
				return { ...request, focus: undefined };
			});
			expect(ours).toEqual(order(run.piRequests));
		}
		// The cases above cover a split turn (two requests) and a whole one.
		const splits = [150, 250, 1].map(
			(keep) => prepareCompaction(branch, { ...pi.DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keep })!.isSplitTurn,
		);
		expect(splits).toContain(true);
		expect(splits).toContain(false);
	});

	it("compact: a provider error rejects with pi's text; an empty answer is an empty summary, as pi", async () => {
		const preparation = prepareCompaction(compactedBranch(), {
			...pi.DEFAULT_COMPACTION_SETTINGS,
			keepRecentTokens: 1,
		})!;
		const failed = await both(plain, [{ error: "529 overloaded" }], (side) =>
			side.compact(preparation, plain.model(), "k"),
		);
		expect(failed.pi).toBeInstanceOf(Error);
		expect((failed.settle as Error).message).toBe((failed.pi as Error).message);

		const empty = await both(plain, [{ text: "" }, { text: "" }], (side) =>
			side.compact(preparation, plain.model(), "k"),
		);
		expect(empty.settle).toEqual(empty.pi);
	});

	it("generateSummary: first and update mode, focus, errors and empty answers as pi's", async () => {
		const messages = compactedBranch().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
		for (const [previousSummary, focus] of [
			[undefined, undefined],
			["## Goal\nold", "the API"],
			["", undefined],
		] as const) {
			const run = await both(plain, [{ text: "## Goal\nnew" }], (side) =>
				side.generateSummary(messages, plain.model(), 2000, "k", undefined, undefined, focus, previousSummary),
			);
			expect(run.settle).toBe(run.pi);
			expect(run.settleRequests.map(comparable)).toEqual(run.piRequests.map(comparable));
		}
		const failed = await both(plain, [{ error: "boom" }], (side) =>
			side.generateSummary(messages, plain.model(), 2000, "k"),
		);
		expect((failed.settle as Error).message).toBe((failed.pi as Error).message);
		expect((failed.settle as Error).message).toBe("Summarization failed: boom");
		// A model pi-ai does not serve (one only Settle's model runtime knows) fails in both, with the api named.
		const unknown = { ...plain.model(), api: "settle-only" } as Pi;
		const unserved = await both(plain, [], (side) => side.generateSummary(messages, unknown, 2000, "k"));
		expect((unserved.pi as Error).message).toMatch(/settle-only/);
		expect((unserved.settle as Error).message).toMatch(/^Summarization failed: .*settle-only/);
		const empty = await both(plain, [{ text: "" }], (side) => side.generateSummary(messages, plain.model(), 2000, "k"));
		expect(empty.settle).toBe("");
		expect(empty.pi).toBe("");
	});

	it("generateBranchSummary: summary with file lists, focus or replaced prompt, nothing to summarize, errors, abort", async () => {
		const entries = compactedBranch();
		const signal = new AbortController().signal;
		for (const options of [
			{},
			{ customInstructions: "the edits" },
			{ customInstructions: "Only list the files.", replaceInstructions: true },
			{ reserveTokens: 1000 },
		]) {
			const run = await both(plain, [{ text: "## Goal\nbranch" }], (side) =>
				side.generateBranchSummary(entries, { model: plain.model(), apiKey: "k", signal, ...options }),
			);
			expect(run.settle).toEqual(run.pi);
			expect((run.settle as { readFiles: string[] }).readFiles).toContain("src/a.ts");
			expect(run.settleRequests.map(comparable)).toEqual(run.piRequests.map(comparable));
		}
		// A 400-token window: pi asks for 2048 tokens with the whole branch prompt, more than the window.
		// DELIBERATE_BRANCH_REQUEST_FITS_WINDOW (kdeps#566): the prompt and the answer (capped at half the
		// window, DELIBERATE_RESERVE_CAPPED_AT_HALF_WINDOW) leave no room for the conversation, so Settle
		// sends nothing and answers pi's `{ error }` shape with what to do.
		const small = { ...plain.model(), contextWindow: 400 };
		const tight = await both(plain, [{ text: "## Goal\nbranch" }], (side) =>
			side.generateBranchSummary(entries, { model: small, apiKey: "k", signal, reserveTokens: 200 }),
		);
		expect(tight.piRequests.map((request) => request.maxTokens)).toEqual([2048]);
		expect(tight.settleRequests).toEqual([]);
		expect(tight.settle).toEqual({ error: expect.stringContaining("shorten the custom instructions") });

		const nothing = await both(plain, [], (side) =>
			side.generateBranchSummary([], { model: plain.model(), apiKey: "k", signal }),
		);
		expect(nothing.settle).toEqual({ summary: "No content to summarize" });
		expect(nothing.settle).toEqual(nothing.pi);

		const failed = await both(plain, [{ error: "529 overloaded" }], (side) =>
			side.generateBranchSummary(entries, { model: plain.model(), apiKey: "k", signal }),
		);
		expect(failed.settle).toEqual({ error: "529 overloaded" });
		expect(failed.settle).toEqual(failed.pi);

		const aborted = AbortSignal.abort();
		const cancelled = await both(plain, [{ text: "late" }], (side) =>
			side.generateBranchSummary(entries, { model: plain.model(), apiKey: "k", signal: aborted }),
		);
		expect(cancelled.settle).toEqual({ aborted: true });
		expect(cancelled.settle).toEqual(cancelled.pi);
	});

	it("findCutPoint, findTurnStartIndex, estimateTokens, getLastAssistantUsage, prepareBranchEntries: pi's answers on random branches", () => {
		fc.assert(
			fc.property(
				branchArb("mixed"),
				fc.nat(),
				fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 6000 })),
				fc.nat(20_000),
				(entries, startPick, keep, budget) => {
					const start = startPick % entries.length;
					expect(compat.findCutPoint(entries, start, entries.length, keep)).toEqual(
						pi.findCutPoint(entries as Pi, start, entries.length, keep),
					);
					for (let i = start; i < entries.length; i++) {
						expect(compat.findTurnStartIndex(entries, i, start)).toBe(pi.findTurnStartIndex(entries as Pi, i, start));
						const entry = entries[i]!;
						if (entry.type === "message")
							expect(compat.estimateTokens(entry.message)).toBe(pi.estimateTokens(entry.message as Pi));
					}
					expect(compat.getLastAssistantUsage(entries)).toEqual(pi.getLastAssistantUsage(entries as Pi));
					const ours = compat.prepareBranchEntries(entries, budget);
					const theirs = pi.prepareBranchEntries(entries as Pi, budget);
					// DELIBERATE_EMPTY_BRANCH_SUMMARY_SKIPPED: an empty branch summary is no message in Settle.
					expect(ours.messages).toEqual(withoutEmptyBranchSummaries(theirs.messages));
					expect(ours.totalTokens).toBe(theirs.totalTokens);
					// Files of entries dropped for the budget still count in Settle (pi forgets them).
					for (const kind of ["read", "written", "edited"] as const) {
						expect([...ours.fileOps[kind]]).toEqual(expect.arrayContaining([...theirs.fileOps[kind]]));
					}
				},
			),
			{ numRuns: 300 },
		);
	});

	it("collectEntriesForBranchSummary: pi's entries and common ancestor on random trees", () => {
		fc.assert(
			fc.property(treeArb, ({ entries, from, to }) => {
				const tree = treeReader(entries);
				expect(compat.collectEntriesForBranchSummary(tree, from, to)).toEqual(
					pi.collectEntriesForBranchSummary(tree as Pi, from, to),
				);
			}),
			{ numRuns: 200 },
		);
		expect(() => compat.collectEntriesForBranchSummary(treeReader([]), "a", "missing")).toThrow(
			/Entry missing not found/,
		);
	});
});

describe("pi-compat skill and context-file functions answer as pi's", () => {
	const skill = (dir: string, name: string, front: string) => {
		mkdirSync(join(dir, name), { recursive: true });
		writeFileSync(join(dir, name, "SKILL.md"), `---\n${front}\n---\nBody of ${name}.\n`);
	};

	/** A pi project (`.pi/` only) with user, project and extra skills, a collision, a hidden one and bad files. */
	function fixture() {
		const root = tempDir();
		const cwd = join(root, "repo");
		const agentDir = join(root, "agent");
		skill(join(agentDir, "skills"), "review", 'name: review\ndescription: Review <code> & "tests"');
		skill(join(cwd, ".pi", "skills"), "review", "name: review\ndescription: project copy");
		skill(
			join(cwd, ".pi", "skills"),
			"hidden",
			"name: hidden\ndescription: not listed\ndisable-model-invocation: true",
		);
		skill(join(cwd, ".pi", "skills"), "Bad_Name", "description: loads with warnings");
		skill(join(cwd, ".pi", "skills"), "no-description", "name: no-description");
		const extra = join(root, "extra");
		skill(extra, "deploy", "name: deploy\ndescription: Ship it");
		writeFileSync(join(extra, "notes.md"), "---\ndescription: a root file skill\n---\nnotes\n");
		writeFileSync(join(root, "plain.txt"), "not markdown");
		symlinkSync(join(extra, "deploy"), join(root, "deploy-link"));
		return { root, cwd, agentDir, extra };
	}

	it("loadSkillsFromDir, loadSkills, formatSkillsForPrompt, loadProjectContextFiles, createSyntheticSourceInfo", () => {
		const { root, cwd, agentDir, extra } = fixture();
		for (const source of ["user", "project", "path", "my-ext"]) {
			expect(compat.loadSkillsFromDir({ dir: extra, source })).toEqual(pi.loadSkillsFromDir({ dir: extra, source }));
		}
		expect(compat.loadSkillsFromDir({ dir: join(root, "none"), source: "path" })).toEqual({
			skills: [],
			diagnostics: [],
		});

		const paths = [
			extra,
			"plain.txt",
			"missing",
			join(root, "deploy-link"),
			join(extra, "notes.md"),
			join(agentDir, "skills"),
		];
		for (const includeDefaults of [true, false]) {
			const options = {
				cwd,
				agentDir,
				skillPaths: paths.map((p) => (p.startsWith("/") ? p : join(root, p))),
				includeDefaults,
			};
			const ours = compat.loadSkills(options);
			const theirs = pi.loadSkills(options);
			// pi reads a file reached again through a symlink, reports its warnings, then drops it; Settle skips it unread.
			const readTwice = (diagnostic: { path?: string }) => diagnostic.path?.includes("deploy-link");
			expect(ours).toEqual({ ...theirs, diagnostics: theirs.diagnostics.filter((d) => !readTwice(d)) });
			expect(theirs.diagnostics.some(readTwice)).toBe(true);
			expect(compat.formatSkillsForPrompt(ours.skills)).toBe(pi.formatSkillsForPrompt(theirs.skills as Pi));
		}
		expect(
			compat.formatSkillsForPrompt(compat.loadSkills({ cwd, agentDir, skillPaths: [], includeDefaults: true }).skills),
		).toMatch(/^\n\nThe following skills/);
		expect(compat.formatSkillsForPrompt([])).toBe(pi.formatSkillsForPrompt([]));

		// Context files: the agent folder's, then from the root down to cwd; CLAUDE.md where there is no AGENTS.md.
		writeFileSync(join(agentDir, "AGENTS.md"), "global rules");
		writeFileSync(join(root, "CLAUDE.md"), "root rules");
		writeFileSync(join(cwd, "AGENTS.md"), "repo rules");
		writeFileSync(join(cwd, "CLAUDE.md"), "ignored next to AGENTS.md");
		const contextFiles = compat.loadProjectContextFiles({ cwd, agentDir });
		expect(contextFiles).toEqual(pi.loadProjectContextFiles({ cwd, agentDir }));
		expect(contextFiles.map((file) => file.content)).toEqual(["global rules", "root rules", "repo rules"]);

		for (const options of [
			{ source: "inline" },
			{ source: "npm:x", scope: "user" as const, origin: "package" as const, baseDir: "/b" },
		]) {
			expect(compat.createSyntheticSourceInfo("<x>", options)).toEqual(pi.createSyntheticSourceInfo("<x>", options));
		}
	});
});
