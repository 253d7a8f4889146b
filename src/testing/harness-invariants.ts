/**
 * `harnessViolations`: everything a property test of an agent should hold once its prompts have
 * settled, in one call — the event protocol, extension failures, the session at rest, timers, and
 * the log on disk, queued messages (DESIGN §8, invariants 1, 2, 4 and 6).
 */
import { existsSync } from "node:fs";
import { SettleError } from "../errors.js";
import type { AgentMessage } from "../llm/types.js";
import { SessionManager } from "../store/session-manager.js";
import type { Harness } from "./harness.js";
import { queueViolations } from "./queue-invariants.js";
import { sessionEventViolations } from "./session-invariants.js";

/**
 * Lists what is wrong with a harness whose prompts have all settled; `[]` when nothing is:
 * - every {@link sessionEventViolations} of `h.events` (runs, retries, compactions, one
 *   `agent_settled` per operation);
 * - every extension handler that threw (`h.extensionErrors`: extension, event, message and the
 *   `file:line:column` it was thrown at) — the
 *   session carries on past them, so a protocol check alone never sees them;
 * - a session that is not idle (a prompt, tool or handler still running);
 * - timers still set on the simulated clock (a backoff nobody will fire);
 * - log entries out of `message_end` order (messages and custom messages);
 * - with `persistence: "disk"`, a reopened session file whose context differs from
 *   `session.messages` (named without its temp path, so a replayed failure reads the same).
 *
 * Throws `SettleError` `SESSION_CLOSED` when called after `h.cleanup()` on a harness whose session
 * file went with its temp dir: the file check could not run.
 *
 * - every queued steering / follow-up text not delivered exactly once, still listed, or returned
 *   by `clearQueue()` ({@link queueViolations}, invariant 4).
 *
 * Each line says what broke and where.
 *
 * @example
 * ```ts
 * const h = await createHarness({ simulatedClock: true, persistence: "disk" });
 * h.setResponses([fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }), fauxAssistantMessage("ok")]);
 * await h.settle(h.session.prompt("hi"));
 * harnessViolations(h); // []
 * h.cleanup();
 * ```
 */
export function harnessViolations(
	harness: Pick<Harness, "session" | "events" | "extensionErrors" | "pendingTimerCount"> &
		Partial<Pick<Harness, "clearedQueue">>,
): string[] {
	const { session } = harness;
	const violations = sessionEventViolations(harness.events);
	for (const error of harness.extensionErrors) {
		const at = throwSite(error.stack);
		violations.push(
			`extension ${error.extensionPath}: its ${error.event} handler threw: ${error.error}${at ? ` (thrown at ${at})` : ""}`,
		);
	}
	if (session.lifecycle !== "idle") {
		violations.push(
			`session not idle (lifecycle ${session.lifecycle}): check after h.settle(prompt) resolves; a tool or handler that never returns keeps it here`,
		);
	}
	const timers = harness.pendingTimerCount();
	if (timers > 0) violations.push(`${timers} timer(s) still set on the simulated clock after settling`);
	violations.push(...logOrderViolations(session.sessionManager.getEntries(), harness.events));
	violations.push(...queueViolations(harness));
	const file = session.sessionFile;
	if (file !== undefined && existsSync(file)) violations.push(...reopenViolations(file, session.messages));
	else if (file !== undefined && session.isDisposed) {
		// h.cleanup() removed the temp dir: the file check would pass by not running.
		throw new SettleError(
			"SESSION_CLOSED",
			`harnessViolations(h) ran after h.cleanup(): the session file is gone with the harness's temp dir, so whether it reopens to the live context cannot be checked. Call harnessViolations(h) before h.cleanup() (inside the try, with cleanup in the finally or an afterEach).`,
		);
	}
	return violations;
}

/** Where an error was thrown: its stack's first frame (`file:line:column`), so a violation points at the handler's line. */
function throwSite(stack: string | undefined): string | undefined {
	const frame = stack?.split("\n").find((line) => line.trimStart().startsWith("at "));
	if (!frame) return undefined;
	const text = frame.trim().slice(3);
	return /\(([^()]+)\)$/.exec(text)?.[1] ?? text;
}

type LoggedItem = { label: string; json: string };

function item(message: AgentMessage): LoggedItem {
	if (message.role === "custom") return { label: `custom ${message.customType}`, json: `custom:${message.customType}` };
	return { label: message.role, json: JSON.stringify(message) };
}

function logOrderViolations(
	entries: ReturnType<SessionManager["getEntries"]>,
	events: Pick<Harness, "events">["events"],
): string[] {
	const logged = entries.flatMap((entry): LoggedItem[] =>
		entry.type === "message"
			? [item(entry.message)]
			: entry.type === "custom_message"
				? [{ label: `custom ${entry.customType}`, json: `custom:${entry.customType}` }]
				: [],
	);
	const ended = events.flatMap((event) => (event.type === "message_end" ? [item(event.message)] : []));
	for (let index = 0; index < Math.max(logged.length, ended.length); index++) {
		const entry = logged[index];
		const event = ended[index];
		if (entry?.json === event?.json) continue;
		return [
			`log order: logged message ${index} is ${entry ? entry.label : "missing"}, but message_end ${index} was ${event ? event.label : "never emitted"} (${logged.length} logged, ${ended.length} message_end)`,
		];
	}
	return [];
}

/** Custom messages take their timestamp from the entry when reopened; everything else is byte-equal. */
function comparable(message: AgentMessage): string {
	if (message.role !== "custom") return JSON.stringify(message);
	const { timestamp: _timestamp, ...rest } = message;
	return JSON.stringify({ ...rest, content: rest.content ?? [] });
}

function reopenViolations(file: string, live: readonly AgentMessage[]): string[] {
	const reopened = SessionManager.open(file, undefined, undefined, { readOnly: true });
	let context: AgentMessage[];
	try {
		context = reopened.buildSessionContext().messages;
	} finally {
		reopened.close();
	}
	for (let index = 0; index < Math.max(context.length, live.length); index++) {
		const a = live[index];
		const b = context[index];
		if (a !== undefined && b !== undefined && comparable(a) === comparable(b)) continue;
		return [
			`reopened session file: context message ${index} is ${b ? b.role : "missing"}, the live session has ${a ? a.role : "nothing"} there (${context.length} vs ${live.length} messages)`,
		];
	}
	return [];
}
