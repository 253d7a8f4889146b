/**
 * `queueViolations`: DESIGN §8 invariant 4 — every queued steering / follow-up text is delivered
 * exactly once, or still listed, or dropped by `clearQueue()` — checked after a harness settles.
 */
import type { AgentMessage } from "../llm/types.js";
import type { Harness } from "./harness.js";

/** Per text: how often it was queued, delivered, is listed and was cleared. */
interface Account {
	kinds: Set<"steering" | "followUp">;
	queued: number;
	delivered: number[];
	listed: number;
	cleared: number;
}

/**
 * Lists every queued steering / follow-up text that was not accounted for exactly once; `[]` when
 * all were. A text counts as queued each time it joins a list in a `queue_update` event (so
 * `steer`, `followUp`, `prompt(…, { streamingBehavior })` and extensions' queued messages all
 * count, with the text as queued, after input handlers and templates), and is accounted for by a
 * user message in the session log, by `getSteeringMessages()` / `getFollowUpMessages()`, or by
 * what `session.clearQueue()` returned (`h.clearedQueue`). Each line names the text, how often it
 * was queued, and where it was found (the log positions of its user messages).
 *
 * Texts are matched by content, so give queued texts their own wording: a prompt with the same
 * text counts as a delivery. A delivered message whose images left notes (a resize's dimensions,
 * a dropped image's hint) after its text counts for the text as listed. {@link harnessViolations} includes these lines.
 *
 * @example
 * ```ts
 * const h = await createHarness();
 * h.setResponses([fauxAssistantMessage("ok"), fauxAssistantMessage("done")]);
 * const done = h.session.prompt("go");
 * await h.nextEvent("message_end"); // the run is under way
 * await h.session.followUp("then the tests");
 * await h.settle(done);
 * queueViolations(h); // []: delivered once, no longer listed
 * h.cleanup();
 * ```
 */
export function queueViolations(
	harness: Pick<Harness, "session" | "events"> & Partial<Pick<Harness, "clearedQueue">>,
): string[] {
	const { session } = harness;
	const accounts = new Map<string, Account>();
	const account = (text: string): Account => {
		let found = accounts.get(text);
		if (!found) {
			found = { kinds: new Set(), queued: 0, delivered: [], listed: 0, cleared: 0 };
			accounts.set(text, found);
		}
		return found;
	};
	let steering: string[] = [];
	let followUp: string[] = [];
	for (const event of harness.events) {
		if (event.type !== "queue_update") continue;
		for (const text of added(steering, event.steering)) {
			const entry = account(text);
			entry.queued++;
			entry.kinds.add("steering");
		}
		for (const text of added(followUp, event.followUp)) {
			const entry = account(text);
			entry.queued++;
			entry.kinds.add("followUp");
		}
		steering = event.steering;
		followUp = event.followUp;
	}
	if (accounts.size === 0) return [];
	let position = 0;
	for (const entry of session.sessionManager.getEntries()) {
		if (entry.type !== "message") continue;
		const text = userText(entry.message);
		if (text !== undefined) (accounts.get(text) ?? accounts.get(withoutImageNotes(text)))?.delivered.push(position);
		position++;
	}
	for (const text of [...session.getSteeringMessages(), ...session.getFollowUpMessages()]) {
		const entry = accounts.get(text);
		if (entry) entry.listed++;
	}
	for (const cleared of harness.clearedQueue ?? []) {
		for (const text of [...cleared.steering, ...cleared.followUp]) {
			const entry = accounts.get(text);
			if (entry) entry.cleared++;
		}
	}
	const violations: string[] = [];
	for (const [text, entry] of accounts) {
		const found = entry.delivered.length + entry.listed + entry.cleared;
		if (found === entry.queued) continue;
		violations.push(describe(text, entry, found));
	}
	return violations;
}

function describe(text: string, entry: Account, found: number): string {
	const delivered = entry.delivered.length;
	const problem =
		found < entry.queued
			? `${entry.queued - found} lost (neither delivered, still listed, nor returned by clearQueue())`
			: delivered > entry.queued
				? "delivered more often than queued"
				: delivered > 0 && entry.listed > 0
					? "delivered and still listed"
					: entry.cleared > 0 && delivered > 0
						? "returned by clearQueue() and delivered"
						: "accounted for more than once";
	const where =
		delivered === 0
			? "delivered 0×"
			: `delivered ${delivered}× (log message${delivered > 1 ? "s" : ""} ${entry.delivered.join(", ")})`;
	const kinds = [...entry.kinds].join("/");
	return `queued ${kinds} text ${JSON.stringify(text)}: ${problem} — queued ${entry.queued}×, ${where}, still listed ${entry.listed}×, cleared ${entry.cleared}×`;
}

/** The texts in `next` beyond those in `previous` (multisets: one queue_update adds at most one). */
function added(previous: readonly string[], next: readonly string[]): string[] {
	const remaining = new Map<string, number>();
	for (const text of previous) remaining.set(text, (remaining.get(text) ?? 0) + 1);
	const result: string[] = [];
	for (const text of next) {
		const left = remaining.get(text) ?? 0;
		if (left > 0) remaining.set(text, left - 1);
		else result.push(text);
	}
	return result;
}

/**
 * `text` without the blocks its images appended (a resized image's dimension note, a dropped
 * one's hint, each block after a blank line): the lists show a queued message's text as sent.
 */
function withoutImageNotes(text: string): string {
	let rest = text;
	for (;;) {
		const at = rest.lastIndexOf("\n\n");
		if (at === -1) return rest;
		const lines = rest.slice(at + 2).split("\n");
		if (!lines.every((line) => /^\[Image[ :]/.test(line))) return rest;
		rest = rest.slice(0, at);
	}
}

/** A user message's text as the queues match it (text blocks joined without separator). */
function userText(message: AgentMessage): string | undefined {
	if (message.role !== "user") return undefined;
	if (typeof message.content === "string") return message.content;
	let text = "";
	for (const block of message.content) if (block.type === "text") text += block.text;
	return text;
}
