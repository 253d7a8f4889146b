/**
 * Plays one tree / replacement scenario (tree-scenarios.ts) on a {@link RuntimePeer} and returns
 * what a user observes, with ids, session ids, file paths and timestamps replaced by names given in
 * order of first appearance (so the same entry has the same name on both peers):
 * - per action: its result (or error text), the leaf, the current session file and the messages the
 *   next prompt would send (`session.messages`);
 * - every public event of every session (with `session <n>` markers), every model request;
 * - the extension log: `session_before_tree` preparations, `session_tree` payloads, the replacement
 *   hooks (`session_before_switch`, `session_before_fork`, `session_start`, `session_shutdown`);
 * - the session dir: which files exist, and each file's header and entries.
 *
 * Settle's transcript `system` messages (behavior I.1, documented in normalize.ts) are not named:
 * a reference to one is replaced by its nearest named ancestor, and lists of entries leave them out.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import type { ExtensionAPI, NewSessionOptions } from "../../src/extensions/types.js";
import { emptyUsage } from "../../src/llm/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { sharedTools } from "./differential.js";
import { eventSequence, normalizeMessage, normalizeMessages } from "./normalize.js";
import type { ReplySpec, Step } from "./peers.js";
import type { RuntimePeer, RuntimePeerOptions, TreeSession } from "./tree-peers.js";
import type { ImportSource, ReplyKind, Target, TreeAction, TreeHooks, TreeScenario } from "./tree-scenarios.js";

export type Json = Record<string, unknown>;

/** The scripted summarizer's error text when a navigation's summary is to fail. */
export const SUMMARY_BACKEND_ERROR = "summary backend down";

/** The kept span of the differential's manual compactions (small, so there is something to summarize). */
const KEEP_RECENT_TOKENS = 5;

/** Holds the peer the hooks act on and what they log. */
export interface TreeHolder {
	peer?: RuntimePeer;
	log: string[];
}

/** An entry of the same file by id. */
export type EntryLookup = (id: string) => Json | undefined;

/**
 * A Settle-only entry (see the module comment): a transcript `system` message, a `context_edit`,
 * or, given the file's entries, a HOST_LEVEL_RECORDED one (tree-compare.ts): a
 * `thinking_level_change` to another level than the one its branch records before it, or a
 * HOST_MODEL_RECORDED one: a `model_change` to another model than its branch records before it.
 */
export function isSettleOnlyEntry(entry: Json, lookup?: EntryLookup): boolean {
	if (entry.type === "context_edit") return true;
	if (entry.type === "thinking_level_change") return lookup !== undefined && recordsHostLevel(entry, lookup);
	if (entry.type === "model_change") return lookup !== undefined && recordsHostModel(entry, lookup);
	return entry.type === "message" && (entry.message as Json | undefined)?.role === "system";
}

/**
 * HOST_MODEL_RECORDED: no step of the differential changes the model, so only opening a session
 * over a branch whose latest `model_change` or answer names another model does.
 */
function recordsHostModel(entry: Json, lookup: EntryLookup): boolean {
	let current = entry.parentId ? lookup(String(entry.parentId)) : undefined;
	while (current) {
		if (current.type === "model_change") {
			return current.provider !== entry.provider || current.modelId !== entry.modelId;
		}
		const message = current.type === "message" ? (current.message as Json) : undefined;
		if (message?.role === "assistant") return message.provider !== entry.provider || message.model !== entry.modelId;
		current = current.parentId ? lookup(String(current.parentId)) : undefined;
	}
	return false;
}

/** HOST_LEVEL_RECORDED: no step of the differential changes the level, so only opening a session does. */
function recordsHostLevel(entry: Json, lookup: EntryLookup): boolean {
	let current = entry.parentId ? lookup(String(entry.parentId)) : undefined;
	while (current && current.type !== "thinking_level_change") {
		current = current.parentId ? lookup(String(current.parentId)) : undefined;
	}
	return current !== undefined && current.thinkingLevel !== entry.thinkingLevel;
}

/** The level a branch records without its HOST_LEVEL_RECORDED entries (`off`, pi's default, when none). */
function recordedLevel(branch: readonly Json[], lookup: EntryLookup): unknown {
	const levels = branch.filter((entry) => entry.type === "thinking_level_change" && !isSettleOnlyEntry(entry, lookup));
	return levels.at(-1)?.thinkingLevel ?? "off";
}

/** The model a branch records without its HOST_MODEL_RECORDED entries, as `buildSessionContext` names it. */
function recordedModel(branch: readonly Json[], lookup: EntryLookup): unknown {
	let model: unknown = null;
	for (const entry of branch) {
		const message = entry.type === "message" ? (entry.message as Json) : undefined;
		if (message?.role === "assistant") model = { provider: message.provider, modelId: message.model };
		else if (entry.type === "model_change" && !isSettleOnlyEntry(entry, lookup)) {
			model = { provider: entry.provider, modelId: entry.modelId };
		}
	}
	return model;
}

/** JSON with sorted keys at every level. */
function sortedJson(value: unknown): string {
	return JSON.stringify(value, (_key, inner: unknown) =>
		inner && typeof inner === "object" && !Array.isArray(inner)
			? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
			: inner,
	);
}

/** The shared extension: logs every tree and replacement hook and answers as the scenario says. */
export function treeHooks(hooks: TreeHooks, holder: TreeHolder) {
	return (api: ExtensionAPI) => {
		const log = (line: string) => holder.log.push(line);
		api.on("session_before_tree", (event, ctx) => {
			const p = event.preparation;
			const lookup: EntryLookup = (id) => ctx.sessionManager.getEntry(id) as unknown as Json | undefined;
			log(
				`session_before_tree ${JSON.stringify({
					targetId: p.targetId,
					oldLeafId: p.oldLeafId,
					commonAncestorId: p.commonAncestorId,
					entriesToSummarize: p.entriesToSummarize
						.filter((entry) => !isSettleOnlyEntry(entry as unknown as Json, lookup))
						.map((entry) => entry.id),
					userWantsSummary: p.userWantsSummary,
					customInstructions: p.customInstructions,
					replaceInstructions: p.replaceInstructions,
					label: p.label,
				})}`,
			);
			switch (hooks.beforeTree) {
				case "cancel":
					return { cancel: true };
				case "summary":
					return { summary: { summary: "summary from the extension", details: { by: "extension" } } };
				case "emptySummary":
					return { summary: { summary: "" } };
				case "override":
					return { customInstructions: "Overridden focus.", replaceInstructions: true, label: "from extension" };
				default:
					return undefined;
			}
		});
		api.on("session_tree", (event) => {
			const summary = event.summaryEntry as unknown as Json | undefined;
			log(
				`session_tree ${JSON.stringify({
					newLeafId: event.newLeafId,
					oldLeafId: event.oldLeafId,
					summaryEntry: summary ? normalizedEntry(summary) : undefined,
					fromExtension: event.fromExtension,
				})}`,
			);
		});
		api.on("session_before_switch", (event) => {
			log(`session_before_switch ${event.reason} ${event.targetSessionFile ?? "-"}`);
			return hooks.cancelSwitch.includes(event.reason as "new" | "resume") ? { cancel: true } : undefined;
		});
		api.on("session_before_fork", (event) => {
			log(`session_before_fork ${event.entryId} ${event.position}`);
			return hooks.cancelFork ? { cancel: true } : undefined;
		});
		api.on("session_start", (event) => {
			log(`session_start ${event.reason} ${event.previousSessionFile ?? "-"}`);
		});
		api.on("session_shutdown", (event) => {
			log(`session_shutdown ${event.reason} ${event.targetSessionFile ?? "-"}`);
		});
		api.registerCommand("forkat", {
			description: "Forks the session at an entry (ctx.fork)",
			handler: async (args, ctx) => {
				const [entryId = "", position = "before", withSession] = args.split(" ");
				try {
					const result = await ctx.fork(entryId, {
						position: position as "before" | "at",
						...withSessionOption(withSession === "true", "fork", log),
					});
					log(`command fork ${JSON.stringify(result)}`);
				} catch (error) {
					log(`command fork rejected: ${error instanceof Error ? error.message : String(error)}`);
				}
			},
		});
		api.registerCommand("navto", {
			description: "Navigates the tree (ctx.navigateTree)",
			handler: async (args, ctx) => {
				const [entryId = "", summarize = "false"] = args.split(" ");
				try {
					const result = (await ctx.navigateTree(entryId, { summarize: summarize === "true" })) as Json;
					const summary = result.summaryEntry as Json | undefined;
					const shown = { ...result, summaryEntry: summary ? normalizedEntry(summary) : undefined };
					// Sorted keys: the peers build the result in different orders.
					log(`command navigateTree ${sortedJson(shown)}`);
				} catch (error) {
					log(`command navigateTree rejected: ${error instanceof Error ? error.message : String(error)}`);
				}
			},
		});
		api.registerCommand("switchto", {
			description: "Switches to a session file (ctx.switchSession)",
			handler: async (args, ctx) => {
				const [file = "", withSession] = args.split(" ");
				try {
					const result = await ctx.switchSession(file, withSessionOption(withSession === "true", "switch", log));
					log(`command switchSession ${JSON.stringify(result)}`);
				} catch (error) {
					log(`command switchSession rejected: ${error instanceof Error ? error.message : String(error)}`);
				}
			},
		});
		api.registerCommand("freshwith", {
			description: "Starts a new session with setup / withSession callbacks (ctx.newSession)",
			handler: async (args, ctx) => {
				const [setup, withSession] = args.split(" ");
				const setupMode = setup === "fail" ? "fail" : setup === "true";
				try {
					const result = await ctx.newSession(replacementCallbacks(setupMode, withSession === "true", log));
					log(`command newSessionWith ${JSON.stringify(result)}`);
				} catch (error) {
					log(`command newSessionWith rejected: ${error instanceof Error ? error.message : String(error)}`);
				}
			},
		});
		api.registerCommand("fresh", {
			description: "Starts a new session (ctx.newSession)",
			handler: async (_args, ctx) => {
				const result = await ctx.newSession();
				log(`command newSession ${JSON.stringify(result)}`);
			},
		});
	};
}

/** A user question and its answer, as `setup` callbacks and the import fixtures write them. */
function seededMessages(text: string) {
	return [
		{ role: "user" as const, content: `${text} question`, timestamp: 1 },
		{
			role: "assistant" as const,
			content: [{ type: "text" as const, text: `${text} answer` }],
			api: "faux",
			provider: "faux",
			model: "faux-1",
			usage: emptyUsage(),
			stopReason: "stop" as const,
			timestamp: 2,
		},
	];
}

/** What a failing `setup` callback throws (before it writes anything). */
export const SETUP_FAILURE = "setup failed on purpose";

/**
 * `newSession` callbacks that write and send messages: `setup` appends a question and its answer to
 * the new session manager (`"fail"`: throws {@link SETUP_FAILURE} first), `withSession` sends a user
 * message (a turn) from the new session's context.
 */
export function replacementCallbacks(setup: boolean | "fail", withSession: boolean, log: (line: string) => void) {
	const options: NewSessionOptions = { ...withSessionOption(withSession, "new", log) };
	if (setup === "fail")
		options.setup = async () => {
			throw new Error(SETUP_FAILURE);
		};
	else if (setup)
		options.setup = async (manager) => {
			for (const message of seededMessages("seeded")) manager.appendMessage(message as never);
		};
	return options;
}

/** A `withSession` callback (for a new session, a fork or a switch) that sends a user message, or none. */
function withSessionOption(
	withSession: boolean,
	after: "new" | "fork" | "switch",
	log: (line: string) => void,
): Pick<NewSessionOptions, "withSession"> {
	if (!withSession) return {};
	return {
		withSession: async (ctx) => {
			await ctx.sendUserMessage("hello from withSession");
			const branch = ctx.sessionManager.getBranch() as unknown as Json[];
			const messages = branch.filter((e) => e.type === "message" && !isSettleOnlyEntry(e));
			log(`withSession sent after ${after} (${messages.length} messages on the branch)`);
		},
	};
}

let importFixtures: string | undefined;

/** Files an `import` imports (by source), and the existing directory a `cwdOverride` names. */
type ImportFixtures = Record<Exclude<ImportSource, "own">, string> & { otherCwd: string };

/**
 * Session files to import, written once per process by pi's and by Settle's SessionManager, copied
 * under each peer's root (outside the session dir, so importing copies them in), plus a path that
 * does not exist and a copy of pi's file whose recorded cwd does not exist (`elsewhere`).
 */
function writeImportFixtures(peer: RuntimePeer): ImportFixtures {
	if (importFixtures === undefined) {
		const made = mkdtempSync(join(tmpdir(), "settle-tree-import-"));
		process.once("exit", () => rmSync(made, { recursive: true, force: true }));
		const piManager = pi.SessionManager.create(made, join(made, "pi"));
		for (const message of seededMessages("pi-made")) piManager.appendMessage(message as never);
		piManager.appendThinkingLevelChange("low");
		copyFileSync(piManager.getSessionFile()!, join(made, "pi-made.jsonl"));
		const settleManager = SessionManager.create(made, join(made, "settle"));
		for (const message of seededMessages("settle-made")) settleManager.appendMessage(message as never);
		settleManager.appendThinkingLevelChange("low");
		copyFileSync(settleManager.getSessionFile()!, join(made, "settle-made.jsonl"));
		settleManager.close();
		importFixtures = made;
	}
	const dir = join(peer.dirs.root, "import");
	mkdirSync(dir, { recursive: true });
	// The recorded cwd is the peer's project (importing checks that it exists).
	const cwds = { "pi-made": peer.dirs.cwd, "settle-made": peer.dirs.cwd, elsewhere: join(peer.dirs.root, "gone") };
	for (const [name, cwd] of Object.entries(cwds)) {
		const made = name === "elsewhere" ? "pi-made" : name;
		const text = readFileSync(join(importFixtures, `${made}.jsonl`), "utf8");
		writeFileSync(join(dir, `${name}.jsonl`), text.replaceAll(JSON.stringify(importFixtures), JSON.stringify(cwd)));
	}
	const otherCwd = join(peer.dirs.root, "other");
	mkdirSync(otherCwd, { recursive: true });
	return {
		"pi-made": join(dir, "pi-made.jsonl"),
		"settle-made": join(dir, "settle-made.jsonl"),
		missing: join(dir, "missing.jsonl"),
		elsewhere: join(dir, "elsewhere.jsonl"),
		otherCwd,
	};
}

interface ContextLike {
	messages: unknown[];
	model?: unknown;
	thinkingLevel?: unknown;
}

interface ManagerLike {
	buildSessionContext(): ContextLike;
	getBranch(): unknown[];
	getEntry(id: string): unknown;
}

/**
 * A `buildSessionContext()` result as compared: messages (Settle's transcript `system` ones left
 * out), model and thinking level (HOST_MODEL_RECORDED, HOST_LEVEL_RECORDED: the ones the branch
 * records without such entries).
 */
function contextView(manager: ManagerLike) {
	const context = manager.buildSessionContext();
	const lookup: EntryLookup = (id) => manager.getEntry(id) as Json | undefined;
	const branch = manager.getBranch() as Json[];
	const hostLevel = branch.some((entry) => entry.type === "thinking_level_change" && isSettleOnlyEntry(entry, lookup));
	const hostModel = branch.some((entry) => entry.type === "model_change" && isSettleOnlyEntry(entry, lookup));
	return {
		messages: normalizeMessages(context.messages.filter((m) => (m as Json).role !== "system")),
		model: hostModel ? recordedModel(branch, lookup) : (context.model ?? null),
		thinkingLevel: hostLevel ? recordedLevel(manager.getBranch() as Json[], lookup) : (context.thinkingLevel ?? null),
	};
}

interface TreeNodeLike {
	entry: Json;
	children: TreeNodeLike[];
	label?: string;
}

/**
 * The shape of `getTree()`: ids, types, labels, children (Settle-only nodes replaced by their
 * children). Both products list siblings oldest first (by timestamp, file order on a tie); where a
 * Settle-only node's children join their grandparent's, the joined list is put in that order again
 * (TRANSCRIPT_SYSTEM_LEAF: entries Settle appends under its transcript `system` entry are, for pi,
 * siblings of the entries appended under that entry's parent).
 */
function treeShape(
	nodes: TreeNodeLike[],
	fileOrder: Map<unknown, number>,
	lookup: EntryLookup,
): (Json & { at: TreeNodeLike })[] {
	const joined = nodes.some((node) => isSettleOnlyEntry(node.entry, lookup));
	const shapes = nodes.flatMap((node) => {
		const children = treeShape(node.children, fileOrder, lookup);
		if (isSettleOnlyEntry(node.entry, lookup)) return children;
		const role = node.entry.type === "message" ? `:${(node.entry.message as Json).role}` : "";
		return [{ id: node.entry.id, type: `${node.entry.type}${role}`, label: node.label ?? null, children, at: node }];
	});
	if (!joined) return shapes;
	const time = (shape: { at: TreeNodeLike }) => new Date(String(shape.at.entry.timestamp)).getTime();
	const position = (shape: { at: TreeNodeLike }) => fileOrder.get(shape.at.entry.id) ?? 0;
	return shapes.sort((a, b) => time(a) - time(b) || position(a) - position(b));
}

/** {@link treeShape} without the nodes it kept for sorting. */
function treeView(manager: { getTree(): unknown; getEntries(): unknown[] }): Json[] {
	const entries = manager.getEntries() as Json[];
	const fileOrder = new Map(entries.map((entry, index) => [entry.id, index]));
	const byId = new Map(entries.map((entry) => [String(entry.id), entry]));
	return JSON.parse(
		JSON.stringify(
			treeShape(manager.getTree() as TreeNodeLike[], fileOrder, (id) => byId.get(id)),
			(key, value) => (key === "at" ? undefined : value),
		),
	) as Json[];
}

/**
 * Every session file of the peer's dir opened by pi's SessionManager and by Settle's (read-only):
 * `buildSessionContext()` and the `getTree()` shape of each. A file is read alike by both products
 * when `pi` equals `settle`.
 */
function crossOpen(peer: RuntimePeer, files: readonly string[], strayCopies: readonly string[]) {
	// In order of appearance, as observeFiles: by name, two files made in the same millisecond sort
	// by the random part of their session ids, so the runs of the two peers could list them swapped.
	return filesInOrder(peer, files, strayCopies).map((file) => {
		const byPi = pi.SessionManager.open(file);
		const bySettle = SessionManager.open(file, undefined, undefined, { readOnly: true });
		const view = (manager: ManagerLike & { getTree(): unknown; getEntries(): unknown[] }) => ({
			context: contextView(manager),
			tree: treeView(manager),
		});
		const opened = { file, pi: view(byPi as never), settle: view(bySettle) };
		bySettle.close();
		return opened;
	});
}

export function treePeerOptions(scenario: TreeScenario, holder: TreeHolder): RuntimePeerOptions {
	return {
		extensions: [treeHooks(scenario.hooks, holder)],
		customTools: sharedTools({ log: [] }).filter((tool) => tool.name === "echo" || tool.name === "fail"),
		// Manual compaction only, keeping little so there is something to summarize.
		settings: { compaction: { enabled: false, keepRecentTokens: KEEP_RECENT_TOKENS } },
	};
}

/** An entry without id/timestamp; `normalizedFile` names its references. */
function normalizedEntry(entry: Json): Json {
	const { id: _id, timestamp: _timestamp, ...rest } = entry;
	if (rest.type === "message") rest.message = normalizeMessage(rest.message);
	if (rest.type === "branch_summary" && rest.usage !== undefined) rest.usage = "<usage>";
	if (rest.type === "compaction") {
		// The transcript system prompt Settle snapshots into a compaction (behavior I.1, normalize.ts).
		delete rest.systemMessage;
		// Counted by kind (normalize.ts): the faux providers count the system prompt, each product's own text.
		if (typeof rest.tokensBefore === "number" && rest.tokensBefore > 0) rest.tokensBefore = "<tokens>";
		if (rest.usage !== undefined) rest.usage = "<usage>";
	}
	return rest;
}

/** The entries a target kind picks among, in file order. */
function candidates(session: TreeSession, target: Target): Json[] {
	const manager = session.sessionManager;
	const entries = manager.getEntries().filter((entry) => !isSettleOnlyEntry(entry, (id) => manager.getEntry(id)));
	const role = (entry: Json) => (entry.type === "message" ? (entry.message as Json).role : undefined);
	switch (target.kind) {
		case "user":
		case "assistant":
		case "toolResult":
			return entries.filter((entry) => role(entry) === target.kind);
		case "branch_summary":
		case "custom_message":
		case "compaction":
			return entries.filter((entry) => entry.type === target.kind);
		case "root":
			return entries.slice(0, 1);
		default:
			return entries;
	}
}

function resolveTarget(session: TreeSession, target: Target): string | undefined {
	const found = candidates(session, target);
	return found.length === 0 ? undefined : String(found[target.pick % found.length]!.id);
}

function replyPlan(kind: ReplyKind, n: number): ReplySpec[] {
	if (kind === "text") return [{ text: `answer ${n}` }];
	const call = { id: `call_${n}`, name: kind, args: kind === "echo" ? { text: `word ${n}` } : {} };
	return [{ text: `calling ${kind}`, toolCalls: [call] }, { text: `answer ${n} after ${kind}` }];
}

/** Plays a scenario on one peer and returns what a user observes (not yet normalized). */
export async function playTree(scenario: TreeScenario, peer: RuntimePeer, holder: TreeHolder) {
	holder.peer = peer;
	const agentReplies: ReplySpec[] = [];
	let summaryOutcome: "ok" | "error" | "abort" = "ok";
	let questions = 0;
	const counters = { customs: 0 };
	let summaries = 0;
	const step: Step = async (request) => {
		if (request.system === "summarizer") {
			summaries++;
			if (summaryOutcome === "error") return { stopReason: "error", errorMessage: SUMMARY_BACKEND_ERROR };
			if (summaryOutcome === "abort") {
				peer.session.abortBranchSummary();
				return { stopReason: "aborted" };
			}
			return { text: `branch summary ${summaries}` };
		}
		return agentReplies.shift() ?? { text: "fallback answer" };
	};
	peer.script(Array.from({ length: 200 }, () => step));
	const fixtures = writeImportFixtures(peer);
	const timeline: Json[] = [];
	const files: string[] = [];
	const noteFile = () => {
		const file = peer.session.sessionFile;
		if (file && !files.includes(file)) files.push(file);
	};
	noteFile();
	const prompt = async (kind: ReplyKind) => {
		const n = ++questions;
		agentReplies.splice(0, agentReplies.length, ...replyPlan(kind, n));
		await peer.session.prompt(`question ${n}`);
		await peer.quiesce();
	};
	for (const kind of scenario.opening) await prompt(kind);
	noteFile();
	const leftCopies: string[] = [];
	for (const action of scenario.actions) {
		const record: Json = { action: describe(action) };
		const before = peer.session;
		try {
			record.result = await run(action, {
				peer,
				files,
				prompt,
				setSummary: (outcome) => {
					summaryOutcome = outcome;
				},
				counters,
				fixtures,
				leftCopies,
				log: (line) => holder.log.push(line),
				queueReply: () => {
					const n = ++questions;
					agentReplies.splice(0, agentReplies.length, ...replyPlan("text", n));
				},
			});
		} catch (error) {
			record.error = error instanceof Error ? error.message : String(error);
		}
		await peer.quiesce();
		noteFile();
		const session = peer.session;
		record.replaced = session !== before;
		record.cwd = peer.runtime.cwd;
		record.leaf = session.sessionManager.getLeafId();
		record.file = session.sessionFile;
		record.messages = normalizeMessages(session.messages.filter((m) => (m as Json).role !== "system"));
		record.context = contextView(session.sessionManager);
		timeline.push(record);
		if (endsRun(action, scenario.hooks)) break;
	}
	// IMPORT_CHECKS_CWD_FIRST: a copy a failed import left behind is not a file of the run (unless a later import made it current).
	const strayCopies = leftCopies.filter((file) => !files.includes(file));
	return {
		timeline,
		files,
		strayCopies,
		events: eventSequence(peer.recorded, { marks: true }),
		crossOpened: crossOpen(peer, files, strayCopies),
	};
}

/**
 * FAILED_SETUP_KEEPS_SESSION (tree-compare.ts): after a `newSession` whose `setup` throws, pi 0.73.1
 * is left with a new session its host never bound, Settle with the old one; nothing after that step
 * is comparable, so the run ends there (when `session_before_switch` does not cancel the step first).
 */
function endsRun(action: TreeAction, hooks: TreeHooks): boolean {
	return action.kind === "newSessionWith" && action.setup === "fail" && !hooks.cancelSwitch.includes("new");
}

function describe(action: TreeAction): string {
	return JSON.stringify(action);
}

interface RunContext {
	peer: RuntimePeer;
	files: string[];
	prompt: (kind: ReplyKind) => Promise<void>;
	setSummary: (outcome: "ok" | "error" | "abort") => void;
	counters: { customs: number };
	fixtures: ImportFixtures;
	/** Copies failed imports left in the session dir (IMPORT_CHECKS_CWD_FIRST). */
	leftCopies: string[];
	log: (line: string) => void;
	/** Scripts the agent's answer to a message sent by a callback. */
	queueReply: () => void;
}

/** The entry types pi's compaction turns into a message (its `getMessageFromEntryForCompaction`). */
const MESSAGE_ENTRY_TYPES = new Set(["message", "custom_message", "branch_summary"]);

/**
 * PI_COMPACTS_NOTHING_TO_SUMMARIZE (tree-pi-bugs.test.ts): whether pi 0.73.1's `compact()` would find
 * nothing before its kept span and still summarize (an empty conversation sent to the model, a
 * compaction of nothing written) where Settle refuses with `Nothing to compact (session too small)`.
 * Such a compact is not played. Decided on the branch without Settle-only entries by pi's own rule:
 * its `prepareCompaction` span and cut (pi's exported `findCutPoint`); false where pi refuses too.
 */
function piSummarizesNothing(branch: Json[]): boolean {
	const byId = new Map(branch.map((entry) => [String(entry.id), entry]));
	const entries = branch.filter((entry) => !isSettleOnlyEntry(entry, (id) => byId.get(id)));
	const last = entries[entries.length - 1];
	if (!last || last.type === "compaction") return false;
	let start = 0;
	for (let i = entries.length - 1; i >= 0; i--) {
		if (entries[i]!.type !== "compaction") continue;
		const kept = entries.findIndex((entry) => entry.id === entries[i]!.firstKeptEntryId);
		start = kept >= 0 ? kept : i + 1;
		break;
	}
	const cut = pi.findCutPoint(entries as never, start, entries.length, KEEP_RECENT_TOKENS);
	if (entries[cut.firstKeptEntryIndex]?.id === undefined) return false;
	const carriesMessage = (from: number, to: number) =>
		entries.slice(from, to).some((entry) => MESSAGE_ENTRY_TYPES.has(String(entry.type)));
	const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
	return (
		!carriesMessage(start, historyEnd) &&
		!(cut.isSplitTurn && carriesMessage(cut.turnStartIndex, cut.firstKeptEntryIndex))
	);
}

/** The earlier files on disk (not the current one) a switch may go to; see PI_OPEN_MISSING_FILE_CWD. */
function earlierFiles(peer: RuntimePeer, files: string[]): string[] {
	// PI_OPEN_MISSING_FILE_CWD (tree-pi-bugs.test.ts): pi 0.73.1 resumes a file not written yet
	// (a new session without a conversation) in process.cwd(); only written files are resumed.
	const onDisk = peer.sessionFiles();
	return files.filter((file) => file !== peer.session.sessionFile && onDisk.includes(file));
}

async function run(action: TreeAction, context: RunContext): Promise<unknown> {
	const { peer, files, prompt, setSummary, counters } = context;
	const session = peer.session;
	switch (action.kind) {
		case "prompt":
			await prompt(action.reply);
			return "prompted";
		case "navigate": {
			const target = resolveTarget(session, action.target);
			if (target === undefined) return "no target";
			if (namedLeaf(session) === target) return "skipped: TRANSCRIPT_SYSTEM_LEAF";
			setSummary(action.summary);
			const result = await session.navigateTree(target, {
				summarize: action.summarize,
				...(action.customInstructions !== undefined ? { customInstructions: action.customInstructions } : {}),
				...(action.replaceInstructions !== undefined ? { replaceInstructions: action.replaceInstructions } : {}),
				...(action.label !== undefined ? { label: action.label } : {}),
			});
			const summary = result.summaryEntry as Json | undefined;
			return { ...result, summaryEntry: summary ? normalizedEntry(summary) : undefined, target };
		}
		case "custom": {
			const n = ++counters.customs;
			await session.sendCustomMessage({ customType: "note", content: `note ${n}`, display: true });
			return "sent";
		}
		case "compact":
			if (piSummarizesNothing(session.sessionManager.getBranch())) return "skipped: PI_COMPACTS_NOTHING_TO_SUMMARIZE";
			setSummary("ok");
			await session.compact();
			return "compacted";
		case "label": {
			const target = resolveTarget(session, action.target);
			if (target === undefined) return "no target";
			session.sessionManager.appendLabelChange(target, action.label);
			return { target };
		}
		case "fork": {
			const target = resolveTarget(session, action.target);
			if (target === undefined) return "no target";
			const skipped = forkSkipped(session, target, action.position);
			if (skipped) return `skipped: ${skipped}`;
			if (action.withSession) context.queueReply();
			if (action.via === "runtime")
				return await peer.runtime.fork(target, {
					position: action.position,
					...withSessionOption(action.withSession, "fork", context.log),
				});
			await session.prompt(`/forkat ${target} ${action.position} ${action.withSession}`);
			return "command";
		}
		case "newSession":
			if (action.via === "runtime") return await peer.runtime.newSession();
			await session.prompt("/fresh");
			return "command";
		case "switchBack": {
			const earlier = earlierFiles(peer, files);
			if (earlier.length === 0) return "no earlier file";
			const file = earlier[action.pick % earlier.length]!;
			if (action.withSession) context.queueReply();
			// pi's semantics (an earlier file may be unwritten: a new session starts there); pi has no such option.
			const options = { ...withSessionOption(action.withSession, "switch", context.log), createIfMissing: true };
			return { ...(await peer.runtime.switchSession(file, options)), file };
		}
		case "commandSwitch": {
			const earlier = earlierFiles(peer, files);
			if (earlier.length === 0) return "no earlier file";
			const file = earlier[action.pick % earlier.length]!;
			if (action.withSession) context.queueReply();
			await session.prompt(`/switchto ${file} ${action.withSession}`);
			return { command: true, file };
		}
		case "import": {
			let file: string;
			if (action.source === "own") {
				const earlier = earlierFiles(peer, files);
				if (earlier.length === 0) return "no earlier file";
				file = earlier[action.pick % earlier.length]!;
			} else file = context.fixtures[action.source];
			const skipped = importSkipped(peer, file);
			if (skipped) return `skipped: ${skipped}`;
			const destination = join(peer.dirs.sessionDir, basename(file));
			const copied = !existsSync(destination);
			try {
				const override = action.cwdOverride ? context.fixtures.otherCwd : undefined;
				return { ...(await peer.runtime.importFromJsonl(file, override)), file };
			} catch (error) {
				// IMPORT_CHECKS_CWD_FIRST (tree-compare.ts): whether the failed import left a copy behind.
				if (copied && existsSync(destination)) context.leftCopies.push(destination);
				throw error;
			}
		}
		case "newSessionWith": {
			if (action.withSession) context.queueReply();
			if (action.via === "runtime") {
				const result = await peer.runtime.newSession(
					replacementCallbacks(action.setup, action.withSession, context.log),
				);
				return result;
			}
			await session.prompt(`/freshwith ${action.setup} ${action.withSession}`);
			return "command";
		}
		case "commandNavigate": {
			const target = resolveTarget(session, action.target);
			if (target === undefined) return "no target";
			if (namedLeaf(session) === target) return "skipped: TRANSCRIPT_SYSTEM_LEAF";
			setSummary(action.summary);
			await session.prompt(`/navto ${target} ${action.summarize}`);
			return { command: true, target };
		}
	}
}

/**
 * The leaf, or its nearest ancestor that is not Settle-only. TRANSCRIPT_SYSTEM_LEAF: after a
 * navigation to a user message Settle's leaf can be the transcript `system` entry written before it
 * (behavior I.1, normalize.ts), whose parent is pi's leaf; navigating to that parent is a no-op in
 * pi and a real move (out of the system entry) in Settle. Such navigations are not played; for pi
 * they would be the target-is-the-leaf no-op.
 */
function namedLeaf(session: TreeSession): string | null {
	const manager = session.sessionManager;
	const named = nearestNamed(manager, manager.getEntry(String(manager.getLeafId())));
	return named ? String(named.id) : null;
}

/** The entry, or its nearest ancestor that is not Settle-only (undefined: none). */
function nearestNamed(manager: TreeSession["sessionManager"], entry: Json | undefined): Json | undefined {
	let current = entry;
	while (current && isSettleOnlyEntry(current, (id) => manager.getEntry(id))) {
		current = manager.getEntry(String(current.parentId));
	}
	return current;
}

/**
 * Forks pi 0.73.1 gets wrong, not played (each pinned on both peers):
 * - PI_FORK_LOSES_UNWRITTEN_PATH (tree-pi-bugs.test.ts): a path without an assistant message: pi
 *   opens a file its `createBranchedSession` never wrote, so the new session loses the path, its
 *   parent and its cwd (it gets `process.cwd()`).
 * - PI_BUG_BRANCHED_LABEL_PARENTS (test/store/pi-differential.property.test.ts): a path with a label
 *   entry: pi's `createBranchedSession` orphans the entry after each label.
 * - PI_FORK_DROPS_CWD_OVERRIDE (tree-pi-bugs.test.ts): a session opened with a `cwdOverride`: pi
 *   re-opens its file without the override, so the fork runs in the file's recorded cwd.
 */
export function forkSkipped(session: TreeSession, target: string, position: "before" | "at"): string | undefined {
	const manager = session.sessionManager;
	const entry = manager.getEntry(target);
	if (!entry) return undefined;
	const isUser = entry.type === "message" && (entry.message as Json).role === "user";
	if (position === "before" && !isUser) return undefined; // both reject it
	// Decided on the path without Settle-only entries: a user message written after navigating to a
	// root user message is a root in pi and the child of Settle's transcript `system` entry (behavior
	// I.1), an empty path on both (tree-regressions.test.ts fork-before-root-user-skipped-on-one-peer).
	let current = nearestNamed(manager, position === "at" ? entry : manager.getEntry(String(entry.parentId)));
	if (!current) return undefined; // an empty path: both start a new session (pi's `!targetLeafId`)
	if (manager.getCwd() !== manager.getHeader()?.cwd) return "PI_FORK_DROPS_CWD_OVERRIDE";
	let assistant = false;
	for (; current; current = manager.getEntry(String(current.parentId))) {
		if (current.type === "label") return "PI_BUG_BRANCHED_LABEL_PARENTS";
		if (current.type === "message" && (current.message as Json).role === "assistant") assistant = true;
	}
	return assistant ? undefined : "PI_FORK_LOSES_UNWRITTEN_PATH";
}

/**
 * IMPORT_REFUSES_OVERWRITE (src/runtime/targets.ts `openImport`; PI_IMPORT_OVERWRITES_SESSION_FILE in
 * tree-pi-bugs.test.ts): when the session dir already holds a file of the imported file's name that
 * is the current session, or differs from it, pi 0.73.1 copies over it (losing what it held) and
 * Settle refuses with a typed error. Such imports are not played.
 */
function importSkipped(peer: RuntimePeer, file: string): string | undefined {
	const destination = join(peer.dirs.sessionDir, basename(file));
	if (destination === file || !existsSync(destination)) return undefined;
	const differs = readFileSync(destination, "utf8") !== readFileSync(file, "utf8");
	return destination === peer.session.sessionFile || differs ? "IMPORT_REFUSES_OVERWRITE" : undefined;
}

/** Everything the peer left on disk: the session dir's files, in order of appearance. */
export function observeFiles(peer: RuntimePeer, files: readonly string[], strayCopies: readonly string[]) {
	return filesInOrder(peer, files, strayCopies).map((file) => ({ file, entries: peer.fileEntries(file) }));
}

/** The session dir's files (less stray copies): the run's own in order of appearance, then the others by name. */
function filesInOrder(peer: RuntimePeer, files: readonly string[], strayCopies: readonly string[]): string[] {
	const onDisk = peer.sessionFiles().filter((file) => !strayCopies.includes(file));
	return [...files.filter((file) => onDisk.includes(file)), ...onDisk.filter((file) => !files.includes(file))];
}

export type TreeRun = Awaited<ReturnType<typeof playTree>> & {
	disk: ReturnType<typeof observeFiles>;
	log: string[];
	requests: RuntimePeer["requests"];
	root: string;
	memoryFiles: string[];
};

/**
 * The run with every id, session id and path replaced by names in order of first appearance
 * (files in the order they became current, entries in file order, numbered per file: `f2e3` is
 * the third entry first seen in file2), and each file's entries
 * normalized (Settle-only entries left out, references to them moved to the nearest named ancestor).
 */
export function normalizeRun(run: TreeRun) {
	const byId = new Map<string, Json>();
	const lookup: EntryLookup = (id) => byId.get(id);
	const names = new Map<string, string>();
	run.disk.forEach(({ file, entries }, index) => {
		names.set(file, `file${index + 1}`);
		const header = entries[0];
		if (header?.type === "session") names.set(String(header.id), `session${index + 1}`);
		// Numbered per file (files only grow at the end): an entry one peer appends to an earlier file
		// later in the run does not rename the entries of the files after it, so the timeline records
		// before that step stay comparable (compactionDiffersByDesign finds the first step that differs).
		let entryCount = 0;
		for (const entry of entries.slice(1)) {
			byId.set(String(entry.id), entry);
			if (!isSettleOnlyEntry(entry, lookup) && !names.has(String(entry.id)))
				names.set(String(entry.id), `f${index + 1}e${++entryCount}`);
		}
	});
	let unwritten = 0;
	for (const file of run.memoryFiles) if (!names.has(file)) names.set(file, `unwritten${++unwritten}`);
	/** The name of an entry, or of its nearest named ancestor (null: none). */
	const nameOf = (id: unknown): unknown => {
		let current = typeof id === "string" ? byId.get(id) : undefined;
		if (!current) return typeof id === "string" ? (names.get(id) ?? "<unwritten id>") : id;
		while (current && isSettleOnlyEntry(current, lookup)) current = byId.get(String(current.parentId));
		return current ? names.get(String(current.id)) : null;
	};
	const disk = run.disk.map(({ entries }) =>
		entries.flatMap((entry) => {
			if (entry.type === "session") {
				const { id: _id, timestamp: _timestamp, ...header } = entry;
				return [header];
			}
			if (isSettleOnlyEntry(entry, lookup)) return [];
			const out = normalizedEntry(entry);
			out.parentId = nameOf(entry.parentId);
			if (typeof out.targetId === "string") out.targetId = nameOf(out.targetId);
			if (typeof out.fromId === "string" && out.fromId !== "root") out.fromId = nameOf(out.fromId);
			return [out];
		}),
	);
	const timeline = run.timeline.map((record) => ({ ...record, leaf: nameOf(record.leaf) }));
	// Bounded, so the digits of a millisecond timestamp are not taken for an id.
	const idPattern = /(?<![0-9A-Za-z])[0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?(?![0-9A-Za-z])/g;
	const scrub = (value: unknown) => {
		let json = JSON.stringify(value);
		// Longest first: file paths contain session ids.
		for (const [raw, name] of [...names].sort((a, b) => b[0].length - a[0].length)) {
			if (raw.includes("/")) json = json.replaceAll(raw, name);
		}
		json = json.replace(idPattern, (id) => {
			const named = nameOf(id);
			return typeof named === "string" ? named : String(named);
		});
		return JSON.parse(json.replaceAll(run.root, "<root>")) as unknown;
	};
	return scrub({
		timeline,
		events: run.events,
		log: run.log,
		requests: run.requests,
		files: disk,
		crossOpened: run.crossOpened,
		strayCopies: run.strayCopies,
	}) as {
		timeline: Json[];
		events: string[];
		log: string[];
		requests: unknown[];
		files: Json[][];
		crossOpened: { file: string; pi: Json; settle: Json }[];
		strayCopies: string[];
	};
}
