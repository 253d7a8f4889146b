/**
 * A host running many sessions in one process (a web backend: one session per client, each with
 * its own cwd and session file under one shared agent dir): concurrent prompts with random
 * interleavings, where some sessions have a throwing extension, a failing tool, a provider error,
 * a throwing host listener, a stuck extension handler, or are disposed mid-run. Each session's log
 * on disk equals its `messages`, no event or message crosses sessions, the broken ones break only
 * themselves, a listener shared by all sessions is reported once per session naming it, and once
 * disposed (and their SessionManagers closed) nothing is left: no lock, no descriptor, no process
 * listener. Through the public SDK on real files. Random seeds; what each run must reach is built
 * in: every kind of client runs (outside the stuck client 0), and one client is disposed while its
 * second reply is held, so its prompt always ends SESSION_CLOSED.
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
	type AgentSession,
	createAgentSession,
	createFauxProvider,
	DefaultResourceLoader,
	defineTool,
	type FauxProvider,
	type FauxResponseFactory,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxToolCall,
	getDefaultSessionDir,
	InMemoryModelRuntime,
	SessionManager,
	SettingsManager,
} from "../../src/index.js";
import { openFilePaths } from "../lifetime/helpers.js";
import { captureProcessWarnings } from "./process-warnings.js";

const SESSIONS = 24;
const KINDS = ["ok", "throwingExtension", "failingTool", "providerError", "throwingListener"] as const;
type Kind = (typeof KINDS)[number];

const root = mkdtempSync(join(tmpdir(), "settle-many-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
// The LISTENER reports come through the host's handler (a hundred would otherwise be printed on stderr).
const captured = captureProcessWarnings({ routeListenerErrors: true });

const failing = defineTool({
	name: "failing",
	label: "Failing",
	description: "always fails",
	parameters: Type.Object({}),
	execute: async () => {
		throw new Error("tool exploded");
	},
});

/** Lets other sessions run `turns` times (setImmediate rounds) before a reply: the interleaving. */
async function yieldTurns(turns: number): Promise<void> {
	for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface Client {
	name: string;
	kind: Kind;
	cwd: string;
	session: AgentSession;
	faux: FauxProvider;
	ownManager: boolean;
	events: string[];
	texts: string[];
	extensionErrors: string[];
}

const processListenerCounts = () =>
	Object.fromEntries(process.eventNames().map((name) => [String(name), process.listenerCount(name)]));

async function openClient(run: string, index: number, kind: Kind, agentDir: string, stuck?: Promise<void>) {
	const name = `${run}c${index}`;
	const cwd = join(root, run, `client-${index}`);
	mkdirSync(cwd, { recursive: true });
	const faux = createFauxProvider();
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const settingsManager = SettingsManager.inMemory({ retry: { enabled: false } });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		extensionFactories: [
			(pi) => {
				pi.on("agent_start", async () => {
					if (stuck) await stuck;
					if (kind === "throwingExtension") throw new Error(`extension of ${name} broke`);
				});
				pi.on("tool_call", () => {
					if (kind === "throwingExtension") throw new Error(`extension of ${name} broke on tool_call`);
				});
			},
		],
	});
	// Half the clients pass their own SessionManager (the host closes it); the others let the session
	// make one under agentDir (dispose closes it).
	const ownManager = index % 2 === 0;
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		model: faux.getModel(),
		settingsManager,
		resourceLoader,
		...(ownManager ? { sessionManager: SessionManager.create(cwd, getDefaultSessionDir(cwd, agentDir)) } : {}),
		customTools: [failing],
	});
	const client: Client = { name, kind, cwd, session, faux, ownManager, events: [], texts: [], extensionErrors: [] };
	await session.bindExtensions({ onError: (e) => client.extensionErrors.push(String(e.error)) });
	session.subscribe((event) => {
		client.events.push(event.type);
		if (event.type === "message_end") client.texts.push(JSON.stringify(event.message));
	});
	return client;
}

/** Scripts each turn's replies; the first reply of turn `held.turn` waits for `held.until` (the dispose). */
function script(client: Client, turns: number[], held?: { turn: number; until: Promise<void> }): void {
	const steps = turns.flatMap((wait, turn): FauxResponseStep[] => {
		const replies = turnReplies(client, turn, wait);
		if (held?.turn !== turn) return replies;
		const [first, ...rest] = replies;
		const heldFirst: FauxResponseFactory = async (...args) => {
			await held.until;
			return typeof first === "function" ? first(...args) : first!;
		};
		return [heldFirst, ...rest];
	});
	client.faux.setResponses(steps);
}

function turnReplies(client: Client, turn: number, wait: number): FauxResponseStep[] {
	const reply = async () => {
		await yieldTurns(wait);
		return fauxAssistantMessage(`${client.name} answer ${turn}`);
	};
	if (client.kind === "failingTool" || client.kind === "throwingExtension")
		return [fauxAssistantMessage([fauxToolCall("failing", {})], { stopReason: "toolUse" }), reply];
	if (client.kind === "providerError")
		return [fauxAssistantMessage([], { stopReason: "error", errorMessage: `${client.name}: 400 bad request` })];
	return [reply];
}

/** The messages of a session file, read back through a fresh read-only SessionManager; none before it is written. */
function messagesOnDisk(file: string): unknown[] {
	if (!existsSync(file)) return [];
	const manager = SessionManager.open(file, undefined, undefined, { readOnly: true });
	try {
		return manager.buildSessionContext().messages;
	} finally {
		manager.close();
	}
}

/**
 * The kinds of the SESSIONS clients: every kind at least once among clients 1.. (client 0 hangs in
 * its handler, so its kind is never observed), at random places; the other places are random.
 */
const kindsWithEveryKind = fc
	.tuple(
		fc.array(fc.constantFrom(...KINDS), { minLength: SESSIONS, maxLength: SESSIONS }),
		fc.shuffledSubarray(
			Array.from({ length: SESSIONS - 1 }, (_, i) => i + 1),
			{ minLength: KINDS.length, maxLength: KINDS.length },
		),
	)
	.map(([kinds, places]) =>
		kinds.map((kind, index) => (places.includes(index) ? KINDS[places.indexOf(index)]! : kind)),
	);

/** `MANY_SESSIONS_SEED=<seed> MANY_SESSIONS_PATH=<path>` replays a failure fast-check printed. */
const replay =
	process.env.MANY_SESSIONS_SEED === undefined
		? {}
		: { seed: Number(process.env.MANY_SESSIONS_SEED), path: process.env.MANY_SESSIONS_PATH };

describe(`${SESSIONS} concurrent sessions in one process`, () => {
	it("interleaved prompts keep each log in order and each failure to its own session; dispose leaves nothing", async () => {
		const listenersBefore = processListenerCounts();
		const descriptorsBefore = new Set(openFilePaths());
		let run = 0;
		await fc.assert(
			fc.asyncProperty(
				kindsWithEveryKind,
				fc.array(fc.array(fc.nat({ max: 6 }), { minLength: 2, maxLength: 2 }), {
					minLength: SESSIONS,
					maxLength: SESSIONS,
				}),
				// Client 0 is the stuck one; one of the others is disposed in every run.
				fc.integer({ min: 1, max: SESSIONS - 1 }),
				fc.nat({ max: 8 }),
				async (kinds, waits, disposedIndex, disposeAfterTurns) => {
					const tag = `r${run++}`;
					const agentDir = join(root, tag, "agent");
					captured.warnings.length = 0;
					let release!: () => void;
					const stuck = new Promise<void>((resolve) => (release = resolve));
					// Client 0 hangs in an extension handler until released; the others must not wait for it.
					const clients: Client[] = [];
					for (let i = 0; i < SESSIONS; i++)
						clients.push(await openClient(tag, i, kinds[i]!, agentDir, i === 0 ? stuck : undefined));
					const shared = (event: { type: string }) => {
						if (event.type === "agent_start") throw new Error("shared listener broke");
					};
					// The disposed client's second reply waits for its dispose, so the dispose lands mid-run
					// (before or during that request, as disposeAfterTurns falls) in every run.
					let disposeDone!: () => void;
					const disposedNow = new Promise<void>((resolve) => (disposeDone = resolve));
					const disposed = clients[disposedIndex]!;
					for (const [index, client] of clients.entries()) {
						if (client.kind === "throwingListener") client.session.subscribe(shared);
						script(client, waits[index]!, client === disposed ? { turn: 1, until: disposedNow } : undefined);
					}

					const stuckPrompt = clients[0]!.session.prompt(`${clients[0]!.name} question 0`);
					const outcomes = await Promise.all(
						clients.slice(1).map(async (client) => {
							const results: string[] = [];
							for (let turn = 0; turn < 2; turn++) {
								if (client === disposed && turn === 1) {
									// Disposed while the other sessions run (its reply is still pending).
									const pending = client.session.prompt(`${client.name} question ${turn}`);
									await yieldTurns(disposeAfterTurns);
									client.session.dispose();
									disposeDone();
									results.push(
										await pending.then(
											() => "ok",
											(e: { code?: string }) => String(e.code),
										),
									);
									break;
								}
								await client.session.prompt(`${client.name} question ${turn}`);
								results.push("ok");
							}
							return results;
						}),
					);
					expect(clients[0]!.session.lifecycle).toBe("running.working");
					clients[0]!.session.dispose();
					release();
					await expect(stuckPrompt).rejects.toMatchObject({ code: "SESSION_CLOSED" });

					for (const [index, client] of clients.entries()) {
						const outcome = index === 0 ? [] : outcomes[index - 1]!;
						if (client !== disposed && index !== 0) expect(outcome).toEqual(["ok", "ok"]);
						if (client === disposed) expect(outcome).toEqual(["ok", "SESSION_CLOSED"]);
						// The log on disk is the session's transcript, in order.
						const file = client.session.sessionFile!;
						expect(messagesOnDisk(file)).toEqual(client.session.messages);
						// No cross-talk: every question and answer this session saw or heard is its own.
						const mentioned = client.texts.join("\n").match(/r\d+c\d+ (question|answer)/g) ?? [];
						expect(mentioned.every((m) => m.startsWith(`${client.name} `))).toBe(true);
						if (index !== 0 && client !== disposed)
							expect(client.events.filter((type) => type === "agent_settled")).toHaveLength(2);
						// Extension failures reach only the session they happened in.
						if (client.kind === "throwingExtension" && index !== 0 && client !== disposed)
							expect(client.extensionErrors).toContain(`extension of ${client.name} broke`);
						expect(client.extensionErrors.every((e) => e.includes(`${client.name} `))).toBe(true);
					}

					// One warning per session whose shared listener failed, naming that session.
					const broken = clients.filter((c) => c.kind === "throwingListener" && c.events.includes("agent_start"));
					// Every kind runs outside client 0, so a shared listener breaks in every run.
					expect(broken.length).toBeGreaterThan(0);
					await captured.drained();
					// Nothing else is warned about (no MaxListenersExceededWarning on a shared object).
					expect(captured.warnings.filter((w) => w.code !== "LISTENER").map((w) => `${w.name}: ${w.message}`)).toEqual(
						[],
					);
					const listenerWarnings = captured.warnings;
					expect(listenerWarnings.map((w) => w.details?.cwd).sort()).toEqual(broken.map((c) => c.cwd).sort());
					for (const warning of listenerWarnings) {
						const owner = clients.find((c) => c.cwd === warning.details?.cwd)!;
						expect(warning.details).toMatchObject({ source: "session.subscribe", sessionId: owner.session.sessionId });
						expect(warning.message).toBe(
							`Session ${owner.session.sessionId} (cwd ${owner.cwd}): a session.subscribe listener failed: shared listener broke. It was skipped (the session goes on); fix the listener. Further failures of this listener are not reported.`,
						);
					}

					// The host's dispose: the session, then a SessionManager it passed in (that one stays the host's).
					for (const client of clients) {
						client.session.dispose();
						if (client.ownManager) client.session.sessionManager.close();
					}
					const sessionsDir = join(agentDir, "sessions");
					const left = existsSync(sessionsDir) ? readdirSync(sessionsDir, { recursive: true }).map(String) : [];
					expect(left.filter((path) => path.endsWith(".lock"))).toEqual([]);
					expect(openFilePaths().filter((path) => path.startsWith(root) && !descriptorsBefore.has(path))).toEqual([]);
					expect(processListenerCounts()).toEqual(
						expect.objectContaining(
							Object.fromEntries(Object.keys(listenersBefore).map((k) => [k, listenersBefore[k]])),
						),
					);
					expect(captured.unhandled).toEqual([]);
				},
			),
			{ numRuns: 4, endOnFailure: true, ...replay },
		);
		// Listeners on the process do not grow with the number of sessions (signal-exit, loaded by the
		// session-file lock, adds one per signal once per process; beside its SIGXFSZ one, Settle's no-op
		// listener keeps a write past the file size limit an EFBIG error: lazy-deps.ts).
		for (const [name, count] of Object.entries(processListenerCounts()))
			expect(count, name).toBeLessThanOrEqual((listenersBefore[name] ?? 0) + (name === "SIGXFSZ" ? 2 : 1));
	}, 30_000);
});
