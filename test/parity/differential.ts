/**
 * Plays one randomized differential scenario (differential-scenarios.ts) on a {@link Peer}: the
 * shared tools and extension hooks, the scripted steps, the actions, and what a user observes.
 *
 * Every reply is served by a step function: a request from the compaction summarizer gets a summary
 * (never in-stream actions, which would wait on pi's event queue from inside event handling), any
 * other request runs the step's in-stream actions first (after draining events, so both peers act
 * at the same point of the event stream), then gets the step's reply.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	buildReplySpec,
	FLAVOR_PREFIX,
	type HookFlags,
	type Scenario,
	type StreamAction,
} from "./differential-scenarios.js";
import { contextEdits, eventPayloads, eventSequence, fileMessages, fileShape, normalizeMessages } from "./normalize.js";
import type { Peer, PeerOptions, SharedExtension, SharedTool, Step } from "./peers.js";

/** Counter-based texts so every message in a run is distinct and readable. */
function counter() {
	let n = 0;
	return (prefix: string) => `${prefix} ${++n}`;
}

/** Holds the peer the tools and hooks act on (peers run one after the other). */
export interface PeerHolder {
	peer?: Peer;
	log: string[];
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

export function sharedTools(holder: PeerHolder): SharedTool[] {
	return [
		{
			name: "echo",
			label: "Echo",
			description: "Echoes its text",
			parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
			async execute(_id, params) {
				return { content: [{ type: "text", text: `echoed: ${String(params.text)}` }], details: {} };
			},
		},
		{
			name: "fail",
			label: "Fail",
			description: "Always fails",
			parameters: { type: "object", properties: {} },
			async execute() {
				throw new Error("fail tool failed on purpose");
			},
		},
		{
			name: "progress",
			label: "Progress",
			description: "Reports progress twice, then finishes",
			parameters: { type: "object", properties: {} },
			async execute(_id, _params, _signal, onUpdate) {
				for (const step of [1, 2]) onUpdate?.({ content: [{ type: "text", text: `step ${step}` }], details: { step } });
				return { content: [{ type: "text", text: "progress done" }], details: {} };
			},
		},
		{
			name: "nudge",
			label: "Nudge",
			description: "Steers a message into the run while it executes",
			parameters: { type: "object", properties: {} },
			async execute(id) {
				const peer = holder.peer;
				await new Promise<void>((resolve) => setImmediate(resolve));
				await peer?.drainEvents();
				await peer?.session.steer(`nudge from ${id}`);
				return { content: [{ type: "text", text: "nudged" }], details: {} };
			},
		},
		{
			name: "halt",
			label: "Halt",
			description: "Aborts the session and waits for the abort",
			parameters: { type: "object", properties: {} },
			async execute(_id, _params, signal) {
				const peer = holder.peer;
				const aborted = new Promise<void>((resolve) => {
					if (signal?.aborted) resolve();
					signal?.addEventListener("abort", () => resolve());
				});
				// A sibling tool of the same batch finishes first on both peers: pi's event queue only holds
				// its events after a macrotask turn.
				await new Promise<void>((resolve) => setImmediate(resolve));
				await peer?.drainEvents();
				peer?.mark("abort (halt tool)");
				void peer?.session.abort();
				await aborted;
				throw new Error("halted by abort");
			},
		},
	];
}

export function sharedHooks(flags: HookFlags, holder: PeerHolder): SharedExtension {
	return (api: ExtensionAPI) => {
		api.registerCommand("note", {
			description: "Records a note",
			handler: async (args) => {
				holder.log.push(`note(${args})`);
			},
		});
		if (flags.input) {
			api.on("input", (event) => {
				holder.log.push(`input ${event.text} (${event.source})`);
				if (event.text.startsWith("shout:"))
					return { action: "transform", text: event.text.slice(6).trim().toUpperCase() };
				if (event.text.startsWith("swallow")) return { action: "handled" };
				return undefined;
			});
		}
		if (flags.beforeAgentStart) {
			api.on("before_agent_start", (event) => {
				holder.log.push(`before_agent_start ${event.prompt}`);
				return { message: { customType: "note", content: `context for ${event.prompt}`, display: true } };
			});
		}
		// Not logged: pi 0.73.1 also runs `context` for the provider call it makes after a tool batch was
		// aborted (see fauxSteps in peers.ts), which never reaches a model. Its effect shows in `requests`.
		if (flags.context) {
			api.on("context", (event) => {
				const kept = event.messages.filter(
					(message) => !(message.role === "user" && JSON.stringify(message.content).includes("private")),
				);
				return { messages: kept };
			});
		}
		if (flags.toolCallBlock) {
			api.on("tool_call", (event) => {
				holder.log.push(`tool_call ${event.toolName}`);
				if (event.toolName === "fail") return { block: true, reason: "fail is blocked" };
				if (event.toolName === "echo" && typeof event.input.text === "string") {
					event.input.text = event.input.text.toUpperCase();
				}
				return undefined;
			});
		}
		if (flags.toolResult) {
			api.on("tool_result", (event) => {
				holder.log.push(`tool_result ${event.toolName} ${event.isError}`);
				if (event.toolName !== "echo" && event.toolName !== "read") return undefined;
				const text = event.content.map((block) => (block.type === "text" ? block.text : "")).join("");
				return { content: [{ type: "text", text: `[audited] ${text}` }] };
			});
		}
		if (flags.messageEnd) {
			api.on("message_end", (event) => {
				const message = event.message;
				if (message.role !== "assistant") return undefined;
				const content = message.content.map((block) =>
					block.type === "text" ? { ...block, text: `[checked] ${block.text}` } : block,
				);
				return { message: { ...message, content } };
			});
		}
	};
}

export function peerOptions(scenario: Scenario, holder: PeerHolder): PeerOptions {
	return {
		settings: {
			retry: { enabled: scenario.retry.enabled, maxRetries: scenario.retry.maxRetries, baseDelayMs: 1 },
			compaction: { enabled: scenario.compaction, reserveTokens: 16384, keepRecentTokens: 5 },
		},
		customTools: sharedTools(holder),
		extensions: [sharedHooks(scenario.hooks, holder)],
	};
}

/** Plays a scenario on one peer and returns what a user observes. */
export async function play(scenario: Scenario, peer: Peer, holder: PeerHolder) {
	holder.peer = peer;
	writeFileSync(join(peer.dirs.cwd, "notes.txt"), "first line\nsecond line\n");
	const text = counter();
	const errors: string[] = [];
	const attempt = async (label: string, action: () => Promise<unknown>) => {
		try {
			await action();
		} catch (error) {
			errors.push(`${label}: ${errorText(error)}`);
		}
	};
	const session = peer.session as Peer["session"] & {
		clearQueue(): { steering: readonly string[]; followUp: readonly string[] };
		sendUserMessage(content: string, options?: { deliverAs?: "steer" | "followUp" }): Promise<void>;
	};
	session.setSteeringMode(scenario.steeringMode);
	session.setFollowUpMode(scenario.followUpMode);
	if (scenario.abortOnRetry) {
		session.subscribe((event) => {
			if (event.type === "auto_retry_start") queueMicrotask(() => void session.abort());
		});
	}
	const pending: Promise<void>[] = [];
	const streamAction = async (action: StreamAction) => {
		switch (action.kind) {
			case "steer":
				return attempt("steer", () => session.steer(text("steered")));
			case "followUp":
				return attempt("followUp", () => session.followUp(text("followed up")));
			case "promptSteer":
				return peer.prompt(`${FLAVOR_PREFIX[action.flavor]}${text("prompt steer")}`, { streamingBehavior: "steer" });
			case "promptFollowUp":
				return peer.prompt(`${FLAVOR_PREFIX[action.flavor]}${text("prompt follow-up")}`, {
					streamingBehavior: "followUp",
				});
			case "promptBare":
				return peer.prompt(text("bare prompt"));
			case "userMessage":
				return attempt("sendUserMessage", () =>
					session.sendUserMessage(text(`user message ${action.deliverAs}`), { deliverAs: action.deliverAs }),
				);
			case "custom": {
				const options = {
					triggerTurn: action.triggerTurn,
					...(action.deliverAs ? { deliverAs: action.deliverAs } : {}),
				};
				// A custom message with triggerTurn sent while streaming is delivered in the run on both.
				return attempt("sendCustomMessage", () =>
					session.sendCustomMessage(
						{ customType: "ping", content: text(`custom ${action.deliverAs ?? "default"}`), display: true },
						options,
					),
				);
			}
			case "clearQueue":
				peer.mark(`clearQueue ${JSON.stringify(session.clearQueue())}`);
				return;
			case "commandPrompt":
				return peer.prompt(`/note ${text("while streaming")}`);
			case "commandSteer":
				return attempt("steer", () => session.steer(`/note ${text("steered")}`));
			case "commandFollowUp":
				return attempt("followUp", () => session.followUp(`/note ${text("followed up")}`));
			case "abort":
				peer.mark("abort (while streaming)");
				pending.push(session.abort());
				return;
			case "compact":
				peer.mark("compact (while streaming)");
				pending.push(
					session.compact().then(
						() => undefined,
						(error) => void errors.push(`compact: ${errorText(error)}`),
					),
				);
				return;
		}
	};
	let summaries = 0;
	const steps: Step[] = scenario.steps.map((step, index) => async (request) => {
		if (request.system === "summarizer") return { text: `summary ${++summaries}` };
		if (step.actions.length > 0) {
			await peer.drainEvents();
			for (const action of step.actions) await streamAction(action);
		}
		return buildReplySpec(step.reply, index, scenario.compaction);
	});
	// Enough plain answers after the scripted ones that no run starves.
	for (let i = 0; i < 40; i++) {
		steps.push(async (request) =>
			request.system === "summarizer" ? { text: `summary ${++summaries}` } : { text: `fallback ${i}` },
		);
	}
	peer.script(steps);
	for (const action of scenario.actions) {
		switch (action.kind) {
			case "prompt":
				await peer.prompt(
					`${FLAVOR_PREFIX[action.flavor]}${text("question")}`,
					action.streamingBehavior ? { streamingBehavior: action.streamingBehavior } : undefined,
				);
				break;
			case "followUp":
				await attempt("followUp", () => session.followUp(text("idle follow-up")));
				break;
			case "steer":
				await attempt("steer", () => session.steer(text("idle steer")));
				break;
			case "abort":
				peer.mark("abort (idle)");
				await session.abort();
				break;
			case "clearQueue":
				peer.mark(`clearQueue ${JSON.stringify(session.clearQueue())}`);
				break;
			case "userMessage":
				await attempt("sendUserMessage", () =>
					session.sendUserMessage(
						text("idle user message"),
						action.deliverAs ? { deliverAs: action.deliverAs } : undefined,
					),
				);
				break;
			case "custom":
				await attempt("sendCustomMessage", () =>
					session.sendCustomMessage(
						{ customType: "idle", content: text("idle custom"), display: true },
						{ triggerTurn: action.triggerTurn, ...(action.deliverAs ? { deliverAs: action.deliverAs } : {}) },
					),
				);
				break;
			case "compact":
				peer.mark("compact");
				await attempt("compact", () =>
					action.instructions ? session.compact("Focus on the questions.") : session.compact(),
				);
				break;
			case "command":
				await peer.prompt(`/note ${text("idle")}`);
				break;
		}
		await peer.quiesce();
		await Promise.all(pending.splice(0));
		await peer.quiesce();
	}
	return observeAll(peer, errors, holder.log);
}

/** Each comparable entry's parent, as the index of its nearest comparable ancestor (-1: none). */
export function fileTree(entries: readonly Record<string, unknown>[]): number[] {
	const comparable = entries.filter((entry) => fileShape([entry]).length > 0 && entry.type !== "session");
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	const index = new Map(comparable.map((entry, i) => [entry.id, i]));
	return comparable.map((entry) => {
		let parent = byId.get(entry.parentId);
		while (parent && !index.has(parent.id)) parent = byId.get(parent.parentId);
		return parent ? (index.get(parent.id) ?? -1) : -1;
	});
}

/**
 * For each compaction entry: how many comparable entries precede it and the position of its first
 * kept entry among them, e.g. `12 keeps from 9`.
 */
export function compactionCuts(entries: readonly Record<string, unknown>[]): string[] {
	const comparable = entries.filter((entry) => fileShape([entry]).length > 0);
	return comparable.flatMap((entry, index) =>
		entry.type === "compaction"
			? [`${index} keeps from ${comparable.findIndex((kept) => kept.id === entry.firstKeptEntryId)}`]
			: [],
	);
}

function reopenWithPi(file: string): unknown[] {
	return pi.SessionManager.open(file).buildSessionContext().messages;
}

function reopenWithSettle(file: string): unknown[] {
	const manager = SessionManager.open(file, undefined, undefined, { readOnly: true } as never);
	try {
		return manager.buildSessionContext().messages;
	} finally {
		manager.close();
	}
}

const PAYLOAD_EVENTS = [
	"tool_execution_update",
	"message_end",
	"turn_end",
	"agent_end",
	"tool_execution_start",
	"tool_execution_end",
	"queue_update",
	"auto_retry_start",
	"auto_retry_end",
	"compaction_start",
	"compaction_end",
];

export function observeAll(peer: Peer, errors: string[], log: string[]) {
	const session = peer.session as unknown as {
		pendingMessageCount: number;
		getSteeringMessages(): readonly string[];
		getFollowUpMessages(): readonly string[];
	};
	const entries = peer.fileEntries();
	const file = peer.session.sessionFile;
	return {
		// How each prompt() settled (resolved, or rejected with which text) is compared, not when: pi
		// 0.73.1 resolves before overflow recovery finishes (README, documented), so a prompt queued
		// during the recovery settles after it there, and since its agent event queue is not awaited it
		// sometimes resolves before its own `agent_end` is delivered (behavior C.10).
		events: eventSequence(peer.recorded).filter((token) => !token.startsWith("<<prompt ")),
		prompts: eventSequence(peer.recorded)
			.filter((token) => token.startsWith("<<prompt "))
			.sort(),
		payloads: eventPayloads(peer.recorded, PAYLOAD_EVENTS),
		requests: peer.requests,
		file: fileShape(entries),
		fileTree: fileTree(entries),
		fileMessages: fileMessages(entries),
		edits: contextEdits(entries),
		cuts: compactionCuts(entries),
		// The peer's session file as each product reopens it: pi's reader and Settle's must both see
		// the same context in pi's file and in Settle's.
		reopenedByPi: file && entries.length > 0 ? normalizeMessages(reopenWithPi(file)) : [],
		reopenedBySettle: file && entries.length > 0 ? normalizeMessages(reopenWithSettle(file)) : [],
		errors,
		extensionLog: [...log],
		state: {
			messages: normalizeMessages(peer.session.messages),
			isStreaming: peer.session.isStreaming,
			pendingMessageCount: session.pendingMessageCount,
			steering: [...session.getSteeringMessages()],
			followUp: [...session.getFollowUpMessages()],
		},
	};
}

export type Observation = Awaited<ReturnType<typeof play>>;
