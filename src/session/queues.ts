/**
 * Queues and side channels: the steering / follow-up display lists behind
 * `queue_update` and `pendingMessageCount`, and the messages that wait for a safe point — pending
 * bash executions, pending custom messages, and "next turn" custom messages.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { QueueChange } from "../../machines/prompt-operation.machine.js";
import type { Agent } from "../agent/agent.js";
import type { AgentMessage, ImageContent, Model, TextContent, UserMessage } from "../llm/types.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import { normalizePromptImages } from "./images.js";
import type { BashExecutionMessage, CustomMessage } from "./messages.js";
import type { PublicEvents } from "./public-events.js";
import type { Transcript } from "./transcript.js";

/** Longest queued text a {@link QueueChange} carries (traces show it; the lists keep the whole text). */
export const QUEUE_TEXT_MAX = 60;

/** A place in a queue's submission order ({@link SessionQueues.takeTurn}). */
export interface QueueTurn {
	/** The queue it takes its place in. */
	readonly kind: "steer" | "followUp";
	/** Settles once every message submitted before this one has been queued or dropped. */
	readonly turn: Promise<void>;
	/** Call once this message has been queued or dropped (again: no effect). */
	done: () => void;
	/** Runs this message's input hooks: a message of the same kind they send goes ahead of it. */
	runHooks: <T>(hooks: () => Promise<T>) => Promise<T>;
	/** From now until `done`, `clearQueue()` drops this message and returns `text` (it is on its way). */
	clearable: (text: string) => void;
	/** Whether `clearQueue()` dropped this message while it was on its way: it must not be queued. */
	readonly cleared: boolean;
}

/** A taken turn's own state: what it waits for may grow while its input hooks run. */
interface OpenTurn {
	kind: "steer" | "followUp";
	/** What this turn waits for: the turns before it, and the ones its hooks took ahead of it. */
	waitFor: Promise<void>;
	finished: boolean;
	/** Turns taken from inside this turn's input hooks (they go ahead of it). */
	ahead: Promise<void>[];
	/** The submitted text, once `clearQueue()` may drop the message ({@link QueueTurn.clearable}). */
	text?: string;
	cleared: boolean;
}

/**
 * The turn whose input hooks run in this async context, and its queues: a message a hook sends
 * (and awaits) was sent before the hooked message was built, so it takes its place ahead of it —
 * behind it, it would wait for the hook that waits for it.
 */
const hookedTurn = new AsyncLocalStorage<{ queues: SessionQueues; turn: OpenTurn }>();

/** The two display lists, as `clearQueue()` returns them. */
export interface QueuedTexts {
	steering: string[];
	followUp: string[];
}

/**
 * A listed queued text and the message Settle handed to the Agent for it: the list entry leaves at
 * that object's `message_start`, so another user message with the same text does not unlist it.
 */
interface QueuedEntry {
	text: string;
	message: UserMessage;
	/** The message's text and images before they are checked against the model that gets them. */
	unchecked?: { text: string; images: ImageContent[] };
}

export class SessionQueues {
	private steering: QueuedEntry[] = [];
	private followUp: QueuedEntry[] = [];
	/** Bash results recorded while streaming; flushed before `agent_settled` and before the next prompt. */
	private pendingBash: BashExecutionMessage[] = [];
	/** Custom messages sent while streaming without a turn; flushed at `turn_end`, before settling, before the next prompt. */
	private pendingCustom: CustomMessage[] = [];
	/** `deliverAs: "nextTurn"` custom messages, consumed by the next `prompt()`. */
	private nextTurn: CustomMessage[] = [];
	/**
	 * Per kind, settles once every message submitted so far has been queued or dropped: input hooks
	 * run side by side, and a slow hook must not let a later message overtake (atomic#2074).
	 */
	private submitted: Record<"steer" | "followUp", Promise<void>> = {
		steer: Promise.resolve(),
		followUp: Promise.resolve(),
	};
	/** Per kind, how many taken turns are not done yet: a message queued now would overtake them. */
	private openTurns: Record<"steer" | "followUp", number> = { steer: 0, followUp: 0 };
	/** Messages submitted and not yet queued or dropped that `clear()` drops too, in submission order. */
	private readonly onTheirWay = new Set<OpenTurn>();
	/** Turns taken for prompt requests the session's machine has not handed on yet, by request id. */
	private reservedTurns = new Map<string, QueueTurn>();
	/** Requests `clear()` dropped while they waited in the machine's mailbox, with their kind. */
	private readonly clearedRequests = new Map<string, "steer" | "followUp">();
	/** A queued text whose message has started (left its list) and has not reached its `message_end`. */
	private delivering: { list: QueuedEntry[]; index: number; entry: QueuedEntry } | undefined;

	constructor(
		private readonly agent: Agent,
		private readonly events: PublicEvents,
		private readonly transcript: Transcript,
		/** Told each time the steering / follow-up lists change (the session passes it to its machine). */
		private readonly onChange: (change: QueueChange) => void = () => {},
		/** The model a message delivered now goes to: queued images are checked against it. */
		private readonly currentModel: () => Pick<Model, "provider" | "id" | "input"> | undefined = () => undefined,
	) {}

	/** Steering + follow-up texts waiting to be delivered. */
	get pendingMessageCount(): number {
		return this.steering.length + this.followUp.length;
	}

	get hasPendingBash(): boolean {
		return this.pendingBash.length > 0;
	}

	get hasPendingCustom(): boolean {
		return this.pendingCustom.length > 0;
	}

	/** The custom messages waiting for a safe point (read-only view). */
	get pendingCustomMessages(): readonly CustomMessage[] {
		return this.pendingCustom;
	}

	steeringTexts(): string[] {
		return texts(this.steering);
	}

	followUpTexts(): string[] {
		return texts(this.followUp);
	}

	/** The number of images each queued message carries, per list, in list order. */
	imageCounts(): { steering: number[]; followUp: number[] } {
		return { steering: imageCounts(this.steering), followUp: imageCounts(this.followUp) };
	}

	/**
	 * Takes a place in `kind`'s submission order for a message whose input hooks still run: `turn`
	 * settles when every message submitted before it has been queued or dropped; call `done` once
	 * this one has been (always, also when a hook handled or threw).
	 */
	takeTurn(kind: "steer" | "followUp"): QueueTurn {
		const hooked = hookedTurn.getStore();
		const parent =
			hooked?.queues === this && hooked.turn.kind === kind && !hooked.turn.finished ? hooked.turn : undefined;
		let resolve!: (value: Promise<void>) => void;
		const mine = new Promise<void>((settle) => {
			resolve = settle;
		});
		const own: OpenTurn = { kind, waitFor: Promise.resolve(), finished: false, ahead: [], cleared: false };
		if (parent) {
			// Ahead of the turn whose hook sent it, behind whatever that turn waited for.
			own.waitFor = parent.waitFor;
			parent.waitFor = parent.waitFor.then(() => mine);
			parent.ahead.push(mine);
		} else {
			own.waitFor = this.submitted[kind];
			this.submitted[kind] = own.waitFor.then(() => mine);
		}
		this.openTurns[kind]++;
		const done = (): void => {
			if (own.finished) return;
			own.finished = true;
			this.openTurns[kind]--;
			this.onTheirWay.delete(own);
			// A hook that did not await its message: the turns after this one still wait for it.
			resolve(Promise.all(own.ahead).then(() => {}));
		};
		return {
			kind,
			get turn() {
				return own.waitFor;
			},
			done,
			runHooks: (hooks) => hookedTurn.run({ queues: this, turn: own }, hooks),
			clearable: (text) => {
				if (own.finished || own.cleared) return;
				own.text = text;
				this.onTheirWay.add(own);
			},
			get cleared() {
				return own.cleared;
			},
		};
	}

	/**
	 * Takes `kind`'s turn for a `prompt()` / `sendUserMessage()` request when it is sent: the request
	 * may wait in the machine's mailbox while a `steer()` / `followUp()` made after it is queued at
	 * once. The busy preflight {@link claimReservedTurn claims} it; any other route (a new
	 * operation, a deferred prompt, dispose) must {@link releaseReservedTurn release} it, or
	 * `kind`'s later messages wait forever.
	 */
	reserveTurn(requestId: string, kind: "steer" | "followUp", clearableText?: string): void {
		const turn = this.takeTurn(kind);
		// Not an extension command (that runs, it is not queued): a clearQueue() from now on drops it.
		if (clearableText !== undefined) turn.clearable(clearableText);
		this.reservedTurns.set(requestId, turn);
	}

	/**
	 * Whether `clearQueue()` dropped `requestId` before the machine handed it on (its kind, once):
	 * whichever way the machine routes it, it must not be queued or run.
	 */
	takeClearedRequest(requestId: string): "steer" | "followUp" | undefined {
		const kind = this.clearedRequests.get(requestId);
		this.clearedRequests.delete(requestId);
		return kind;
	}

	/** The turn reserved for `requestId`, now the caller's to finish (undefined when none was). */
	claimReservedTurn(requestId: string): QueueTurn | undefined {
		const turn = this.reservedTurns.get(requestId);
		this.reservedTurns.delete(requestId);
		return turn;
	}

	/** Gives up the turn reserved for `requestId`: the request will not be queued. */
	releaseReservedTurn(requestId: string): void {
		this.claimReservedTurn(requestId)?.done();
	}

	/** Gives up every reserved turn (the session is disposed: its machine routes nothing more). */
	releaseReservedTurns(): void {
		for (const requestId of [...this.reservedTurns.keys()]) this.releaseReservedTurn(requestId);
		this.clearedRequests.clear();
	}

	/** Whether a message of `kind` submitted earlier is still on its way (its turn is not done). */
	hasOpenTurn(kind: "steer" | "followUp"): boolean {
		return this.openTurns[kind] > 0;
	}

	/**
	 * Queues a steering user message: display list, `queue_update`, then the Agent's queue. The
	 * message says `messageText` (the text with the notes its images left), the lists show `text`.
	 * Its images are checked when it is delivered, against the model then in use, as a prompt's are
	 * against the model that answers it: a model switched to after queueing decides.
	 */
	queueSteer(text: string, images?: ImageContent[], messageText = text): void {
		const entry = queuedEntry(text, messageText, images);
		this.steering.push(entry);
		this.changed("queued", "steering", text);
		this.emitUpdate();
		this.agent.steer(entry.message);
	}

	/** Queues a follow-up user message (see {@link queueSteer}). */
	queueFollowUp(text: string, images?: ImageContent[], messageText = text): void {
		const entry = queuedEntry(text, messageText, images);
		this.followUp.push(entry);
		this.changed("queued", "followUp", text);
		this.emitUpdate();
		this.agent.followUp(entry.message);
	}

	/**
	 * At the `message_start` of a user message: when it is a queued message (the same object, not
	 * only the same text), takes it off its list and emits `queue_update`, before listeners see the
	 * message. Free when nothing is queued.
	 */
	onUserMessageStart(message: AgentMessage): void {
		if (this.steering.length === 0 && this.followUp.length === 0) return;
		if (message.role !== "user") return;
		let list = this.steering;
		let index = indexOfMessage(list, message);
		if (index === -1) {
			list = this.followUp;
			index = indexOfMessage(list, message);
			if (index === -1) return;
		}
		const entry = list.splice(index, 1)[0]!;
		if (entry.unchecked) {
			// Still the queue's own object: nobody has seen it, and the request is built after this.
			const checked = normalizePromptImages(entry.unchecked.text, entry.unchecked.images, this.currentModel());
			entry.message.content = userMessage(checked.text, checked.images).content;
		}
		this.delivering = { list, index, entry };
		this.changed("delivered", list === this.steering ? "steering" : "followUp", entry.text);
		this.emitUpdate();
	}

	/** At the `message_end` of a user message (persisted right after its listeners): delivered. */
	onUserMessageEnd(): void {
		this.delivering = undefined;
	}

	/**
	 * On dispose: a queued text whose message started but never reached the log goes back to its
	 * place in its list, so the lists name exactly what was not delivered. No `queue_update` (a
	 * disposed session emits nothing); the machine hears it, so a trace ends with the lists as left.
	 */
	restoreUndelivered(): void {
		const delivering = this.delivering;
		if (!delivering) return;
		this.delivering = undefined;
		// clear() since then replaced the lists: the text was dropped on purpose.
		if (delivering.list !== this.steering && delivering.list !== this.followUp) return;
		delivering.list.splice(Math.min(delivering.index, delivering.list.length), 0, delivering.entry);
		this.changed("restored", delivering.list === this.steering ? "steering" : "followUp", delivering.entry.text);
	}

	/**
	 * Empties the Agent's queues and returns the texts that will now not be delivered. A text the
	 * run has already taken for this turn (from `turn_start` until its `message_start`) is still
	 * delivered, so it stays listed and is not returned. Messages still in their input hooks are
	 * dropped too (their callers see {@link QueueTurn.cleared}) and their texts returned. Custom
	 * messages extensions queued stay queued.
	 */
	clear(): QueuedTexts {
		const removed = this.agent.clearAllQueues();
		// Only the user's listed texts are taken back: an extension's custom message stays queued, in
		// its place (pi#9886: destroyed, neither returned nor delivered).
		const listed = new Set<AgentMessage>([...this.steering, ...this.followUp].map((entry) => entry.message));
		for (const message of removed.steering) if (!listed.has(message)) this.agent.steer(message);
		for (const message of removed.followUp) if (!listed.has(message)) this.agent.followUp(message);
		const [steering, keptSteering] = splitCleared(this.steering, removed.steering);
		const [followUp, keptFollowUp] = splitCleared(this.followUp, removed.followUp);
		this.steering = keptSteering;
		this.followUp = keptFollowUp;
		const cleared = { steering: texts(steering), followUp: texts(followUp) };
		// Sent before this call, still in their input hooks: queued after it, the user's "clear, then
		// abort" (Esc, RPC clear_queue + abort) delivered them anyway. Dropped too, after the listed ones.
		for (const turn of this.onTheirWay) {
			turn.cleared = true;
			(turn.kind === "steer" ? cleared.steering : cleared.followUp).push(turn.text!);
		}
		const dropped = cleared.steering.length + cleared.followUp.length;
		this.onTheirWay.clear();
		// Requests still in the machine's mailbox: their places end now (later messages need not wait
		// for the machine), and the route it gives them refuses them.
		for (const [requestId, turn] of this.reservedTurns) {
			if (!turn.cleared) continue;
			this.reservedTurns.delete(requestId);
			this.clearedRequests.set(requestId, turn.kind);
			turn.done();
		}
		if (dropped > 0) this.changed("cleared");
		this.emitUpdate();
		return cleared;
	}

	/** Holds a bash result until the next safe point. */
	holdBash(message: BashExecutionMessage): void {
		this.pendingBash.push(message);
	}

	/** Holds a custom message until the next safe point. */
	holdCustom(message: CustomMessage): void {
		this.pendingCustom.push(message);
	}

	addNextTurn(message: CustomMessage): void {
		this.nextTurn.push(message);
	}

	/** The next-turn messages not taken yet (a copy). */
	nextTurnMessages(): CustomMessage[] {
		return this.nextTurn.slice();
	}

	/** Takes the next-turn messages (the queue is emptied). */
	takeNextTurn(): CustomMessage[] {
		const messages = this.nextTurn;
		this.nextTurn = [];
		return messages;
	}

	/** Puts back next-turn messages a prompt took but never sent (ahead of any added since). */
	restoreNextTurn(messages: readonly CustomMessage[]): void {
		this.nextTurn = [...messages, ...this.nextTurn];
	}

	/** Appends pending bash results to the transcript and the log (no message events, as in pi). */
	flushPendingBash(): void {
		if (this.pendingBash.length === 0) return;
		const pending = this.pendingBash;
		this.pendingBash = [];
		for (let index = 0; index < pending.length; index++) {
			try {
				this.transcript.append(pending[index]!);
			} catch (error) {
				// Not written (a full disk, the file deleted): it and the rest wait for the next flush.
				this.pendingBash = [...pending.slice(index), ...this.pendingBash];
				throw error;
			}
		}
	}

	/**
	 * Appends pending custom messages to the transcript and the log; public listeners get a
	 * `message_start` + `message_end` pair for each (extensions don't, as in pi).
	 */
	flushPendingCustom(): void {
		if (this.pendingCustom.length === 0) return;
		const pending = this.pendingCustom;
		this.pendingCustom = [];
		for (let index = 0; index < pending.length; index++) {
			try {
				this.appendCustom(pending[index]!);
			} catch (error) {
				// As for bash results: what was not written stays pending, in order.
				this.pendingCustom = [...pending.slice(index), ...this.pendingCustom];
				throw error;
			}
		}
	}

	/**
	 * Writes the held bash results, then the held custom messages, as the operation's end would have
	 * (dispose mid-run: the command ran, its result must not vanish from the log). No events: the
	 * session is closing. Stops at the first the log refuses. Returns the messages written.
	 */
	writeHeldAtDispose(): AgentMessage[] {
		const held = [...this.pendingBash, ...this.pendingCustom];
		this.pendingBash = [];
		this.pendingCustom = [];
		const written: AgentMessage[] = [];
		for (const message of held) {
			try {
				this.transcript.append(message);
			} catch {
				break;
			}
			written.push(message);
		}
		return written;
	}

	/** A custom message added to the context outside a run (synthetic message events for listeners). */
	appendCustom(message: CustomMessage): void {
		this.transcript.append(message);
		this.events.emit({ type: "message_start", message });
		this.events.emit({ type: "message_end", message });
	}

	private changed(change: QueueChange["change"], queue?: QueueChange["queue"], text?: string): void {
		const report: QueueChange = { steering: this.steering.length, followUp: this.followUp.length, change };
		if (queue !== undefined) report.queue = queue;
		if (text !== undefined) report.text = shortQueueText(text);
		this.onChange(report);
	}

	private emitUpdate(): void {
		this.events.emit({ type: "queue_update", steering: texts(this.steering), followUp: texts(this.followUp) });
	}
}

/** A queued text on one line, at most {@link QUEUE_TEXT_MAX} characters (`…` when cut). */
export function shortQueueText(text: string): string {
	// A long text is cut before collapsing its whitespace: the change costs the same for any length.
	const line = text
		.slice(0, QUEUE_TEXT_MAX * 4)
		.replace(/\s+/g, " ")
		.trim();
	const cut = line.length > QUEUE_TEXT_MAX || text.length > QUEUE_TEXT_MAX * 4;
	return cut ? `${sliceWholeCharacters(line, QUEUE_TEXT_MAX - 1)}…` : line;
}

/** A user message with the text first, then the images. */
export function userMessage(text: string, images?: readonly ImageContent[]): UserMessage {
	const content: (TextContent | ImageContent)[] = [{ type: "text", text }];
	if (images) for (const image of images) content.push(image);
	return { role: "user", content, timestamp: Date.now() };
}

function queuedEntry(text: string, messageText: string, images: ImageContent[] | undefined): QueuedEntry {
	const entry: QueuedEntry = { text, message: userMessage(messageText, images) };
	if (images && images.length > 0) entry.unchecked = { text: messageText, images };
	return entry;
}

/**
 * Splits a display list into the entries whose messages were still in the Agent's queue (`removed`;
 * cleared) and those the run had already taken (kept).
 */
function splitCleared(
	list: QueuedEntry[],
	removed: readonly AgentMessage[],
): [cleared: QueuedEntry[], kept: QueuedEntry[]] {
	const pending = new Set<AgentMessage>(removed);
	const cleared: QueuedEntry[] = [];
	const kept: QueuedEntry[] = [];
	for (const entry of list) (pending.has(entry.message) ? cleared : kept).push(entry);
	return [cleared, kept];
}

/** Where the entry queued as `message` is: by identity (a user message with the same text may be another). */
function indexOfMessage(list: readonly QueuedEntry[], message: UserMessage): number {
	return list.findIndex((entry) => entry.message === message);
}

function imageCounts(list: readonly QueuedEntry[]): number[] {
	return list.map((entry) =>
		typeof entry.message.content === "string"
			? 0
			: entry.message.content.filter((part) => part.type === "image").length,
	);
}

function texts(list: readonly QueuedEntry[]): string[] {
	return list.map((entry) => entry.text);
}
