/**
 * Plays a generated extension {@link Program} on one peer (test/parity/peers.ts) and returns what a
 * user and the extensions observe: the ordered public events, selected payloads, the extensions' log
 * of what each handler received and did, the `onError` reports, the model requests, the session file
 * and each `prompt()` outcome.
 */
import { compactionCuts, fileTree } from "../parity/differential.js";
import { eventPayloads, eventSequence, fileMessages, fileShape, normalizeMessages } from "../parity/normalize.js";
import type { Peer, PeerName, PeerOptions, Step } from "../parity/peers.js";
import {
	channelOf,
	type Program,
	type ProgramLog,
	programExtensions,
	programTools,
	replySpec,
	withoutMessageEndMarks,
} from "./pi-differential-program.js";

/** What a peer's run records besides its events (errors reported to `onError`, the extension log). */
export interface ProgramRecord {
	log: ProgramLog;
	/** `onError` reports, on the channels of {@link ProgramLog} (by the event that failed). */
	onError: ProgramLog;
}

export function newRecord(): ProgramRecord {
	return {
		log: { awaited: [], queued: [], detached: [], activity: { started: 0, running: 0 } },
		onError: { awaited: [], queued: [], detached: [], activity: { started: 0, running: 0 } },
	};
}

export function programPeerOptions(program: Program, record: ProgramRecord): PeerOptions {
	return {
		settings: { retry: { enabled: false }, compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 5 } },
		customTools: programTools(),
		extensions: programExtensions(program, record.log),
		payloadHook: true,
		reasoningModel: true,
		onError: (error) =>
			void record.onError[channelOf(error.event)].push(`${error.extensionPath} ${error.event}: ${error.error}`),
	};
}

const PAYLOAD_EVENTS = [
	"message_end",
	"turn_end",
	"agent_end",
	"tool_execution_start",
	"tool_execution_end",
	"queue_update",
	"compaction_end",
	"session_info_changed",
	"thinking_level_changed",
];

type Json = Record<string, unknown>;

/** Non-message entries with the fields both products define (ids as positions among comparable entries). */
function fileDetails(entries: readonly Json[]): unknown[] {
	const comparable = entries.filter((entry) => fileShape([entry]).length > 0);
	const position = new Map(comparable.map((entry, index) => [entry.id, index]));
	return comparable.flatMap((entry): Json[] => {
		switch (entry.type) {
			case "custom":
				return [{ type: entry.type, customType: entry.customType, data: entry.data }];
			case "label":
				return [{ type: entry.type, target: position.get(entry.targetId), label: entry.label }];
			case "session_info":
				return [{ type: entry.type, name: entry.name }];
			case "model_change":
				return [{ type: entry.type, provider: entry.provider, modelId: entry.modelId }];
			case "thinking_level_change":
				return [{ type: entry.type, thinkingLevel: entry.thinkingLevel }];
			case "compaction":
				return [
					{
						type: entry.type,
						summary: entry.summary,
						firstKept: position.get(entry.firstKeptEntryId),
						details: entry.details,
						fromHook: entry.fromHook,
					},
				];
			default:
				return [];
		}
	});
}

/** The tool call a log line is about (`e0 tool_call echo call-0-1 …`, `e0 [call-0-1] …`), if any. */
export function toolCallOf(line: string): string | undefined {
	return /^e\d (?:tool_call|tool_result) \S+ (\S+)/.exec(line)?.[1] ?? /^e\d \[(\S+)\]/.exec(line)?.[1];
}

/**
 * The log with each run of tool-hook lines grouped by tool call (stable: each call's own lines keep
 * their order). Both products run a batch's calls concurrently (behavior F.5); how the hooks of
 * different calls interleave follows each one's microtask scheduling, which nothing specifies (a
 * throwing handler costs Settle an extra tick).
 */
export function toolCallBlocks(lines: readonly string[], keyOf: (line: string) => string | undefined): string[] {
	const out: string[] = [];
	let block: string[] = [];
	const flush = () => {
		const order = [...new Set(block.map(keyOf))];
		out.push(...order.flatMap((key) => block.filter((line) => keyOf(line) === key)));
		block = [];
	};
	for (const line of lines) {
		if (keyOf(line) === undefined) {
			flush();
			out.push(line);
		} else block.push(line);
	}
	flush();
	return out;
}

/** onError reports of tool hooks, which name no call: a run of them is compared as a sorted list. */
export function toolErrorBlocks(lines: readonly string[]): string[] {
	const isTool = (line: string) => / (tool_call|tool_result): /.test(line);
	const out: string[] = [];
	let block: string[] = [];
	for (const line of [...lines, ""]) {
		if (isTool(line)) block.push(line);
		else {
			out.push(...block.sort());
			block = [];
			if (line !== "") out.push(line);
		}
	}
	return out;
}

/**
 * Waits until the peer is idle and no extension handler is still running or starting. A prompt an
 * extension started with sendUserMessage / sendMessage(triggerTurn) is not awaited by anyone: while
 * its `input` handlers run (an `exec` is real I/O) neither peer is streaming yet.
 */
async function settled(peer: Peer, log: ProgramLog): Promise<void> {
	for (;;) {
		const started = log.activity.started;
		await peer.quiesce();
		await new Promise<void>((resolve) => setImmediate(resolve));
		if (log.activity.running === 0 && log.activity.started === started && !peer.session.isStreaming) {
			await peer.quiesce();
			if (log.activity.started === started) return;
		}
		if (log.activity.running > 0) await new Promise<void>((resolve) => setTimeout(resolve, 1));
	}
}

/** Plays `program` on `peer`; `record` is the one passed to {@link programPeerOptions}. */
export async function playProgram(program: Program, peer: Peer, record: ProgramRecord) {
	let n = 0;
	const errors: string[] = [];
	let summaries = 0;
	const steps: Step[] = program.replies.map(
		(reply, index) => async (request) =>
			request.system === "summarizer" ? { text: `summary ${++summaries}` } : replySpec(reply, index),
	);
	for (let i = 0; i < 30; i++) {
		steps.push(async (request) =>
			request.system === "summarizer" ? { text: `summary ${++summaries}` } : { text: `fallback ${i}` },
		);
	}
	peer.script(steps);
	const session = peer.session as Peer["session"] & { sessionName?: string };
	for (const action of program.actions) {
		switch (action.kind) {
			case "prompt":
				await peer.prompt(`question ${++n}`);
				break;
			case "command":
				await peer.prompt(`/e${action.ext} arg ${++n}`);
				break;
			case "unknownCommand":
				await peer.prompt(`/nosuch ${++n}`);
				break;
			case "shared":
				// Plain `/shared` that two extensions register: Settle refuses it (pi#1061), pi sends it to the
				// model. Neither peer gets it here; pi-differential-divergences.test.ts pins both sides.
				if (action.n === 0 && program.extensions.length >= 2) break;
				await peer.prompt(`/shared${action.n === 0 ? "" : `:${action.n}`} arg ${++n}`);
				break;
			case "compact":
				peer.mark("compact");
				try {
					await (action.instructions ? session.compact("Focus on the questions.") : session.compact());
				} catch (error) {
					// Settle names the extension that cancelled (pi#7492); pi says "Compaction cancelled" alone.
					const text = error instanceof Error ? error.message : String(error);
					errors.push(
						`compact: ${text.replace(/^Compaction cancelled by the extension [\s\S]*$/, "Compaction cancelled")}`,
					);
				}
				break;
		}
		await settled(peer, record.log);
	}
	const entries = peer.fileEntries();
	// `entry_appended` for `appendEntry` is the doc version's public event (behavior B.2), which
	// Settle emits and pi 0.73.1 does not have; the entries themselves are compared in the file.
	const appended = peer.recorded.flatMap((item) =>
		item.kind === "event" && item.event.type === "entry_appended" ? [String((item.event.entry as Json).type)] : [],
	);
	// `queue_update` is emitted when a message is queued, directly; pi 0.73.1 delivers the agent's
	// events from its unawaited queue (behavior C.10), so a message queued from a `context` or
	// `tool_call` handler is announced before pi delivers the `message_end` that preceded the hook.
	// The updates are compared in their own order.
	// Markers are left out of the sequence: pi's prompt() can resolve before its queue delivered the
	// run's last events (C.10); the outcomes are compared in `prompts`.
	// `extension_notify` / `extension_dialog` are Settle's: with no UI bound (as here) it reports each
	// `ctx.ui` notification and dialog as a session event, where pi drops them; the answers the
	// extensions got are compared in their log.
	const events = peer.recorded.filter(
		(item) =>
			item.kind === "event" &&
			item.event.type !== "entry_appended" &&
			item.event.type !== "queue_update" &&
			item.event.type !== "extension_notify" &&
			item.event.type !== "extension_dialog",
	);
	// `compaction_end.cancelledBy` is Settle's (pi#7492): the rest of the payload is compared.
	const payloads = eventPayloads(peer.recorded, PAYLOAD_EVENTS).map(({ cancelledBy: _settles, ...event }) => event);
	return {
		appended,
		events: eventSequence(events, { marks: false }),
		prompts: eventSequence(peer.recorded).filter((token) => token.startsWith("<<prompt ")),
		payloads: payloads.filter((event) => event.type !== "queue_update"),
		queueUpdates: payloads.filter((event) => event.type === "queue_update"),
		requests: peer.requests.map((request) => ({
			...request,
			messages: request.messages.map(withoutMessageEndMarks),
		})),
		awaitedLog: toolCallBlocks(
			record.log.awaited.map((line) => (/^e\d context /.test(line) ? withoutMessageEndMarks(line) : line)),
			toolCallOf,
		),
		queuedLog: [...record.log.queued],
		detachedLog: [...record.log.detached].sort(),
		onErrorAwaited: toolErrorBlocks(record.onError.awaited),
		onErrorQueued: [...record.onError.queued],
		onErrorDetached: [...record.onError.detached].sort(),
		errors,
		file: fileShape(entries),
		cuts: compactionCuts(entries),
		// The session's entries in memory: before the first assistant message neither peer has written
		// its file, so a compaction there shows only here (read by the property's cut discard, not compared).
		memory: memoryShape(peer),
		fileTree: fileTree(entries),
		fileMessages: fileMessages(entries),
		fileDetails: fileDetails(entries),
		state: { messages: normalizeMessages(peer.session.messages), isStreaming: peer.session.isStreaming },
	};
}

/** The shape and compaction cuts of the session's entries in memory (both peers expose `sessionManager.getEntries()`). */
function memoryShape(peer: Peer): { file: string[]; cuts: string[] } {
	const manager = (peer.session as unknown as { sessionManager: { getEntries(): Record<string, unknown>[] } })
		.sessionManager;
	const entries = manager.getEntries();
	return { file: fileShape(entries), cuts: compactionCuts(entries) };
}

export type ProgramObservation = Awaited<ReturnType<typeof playProgram>>;

/** One record per peer, for `onBothPeers`. */
export function records(): Record<PeerName, ProgramRecord> {
	return { pi: newRecord(), settle: newRecord() };
}
