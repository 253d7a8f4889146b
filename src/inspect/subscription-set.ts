/** Inspection subscriptions an owner (a session, a runtime) ends when it is disposed. */
import { callListener, type InspectionListenerSource, type ListenerOwner } from "../listener-errors.js";

/**
 * What `session.inspect()`, `runtime.inspect()` and `runtime.inspectSessions()` return. Stop the
 * stream either way: `subscription.unsubscribe()` (XState's `inspect` convention) or
 * `subscription()` — the same call as the function `session.subscribe()` returns, so one cleanup
 * works for both. Safe to call twice, also after the owner was disposed.
 *
 * @example
 * ```ts
 * const stops = [session.subscribe((e) => console.log(e.type)), session.inspect((e) => console.log(e.kind))];
 * await session.prompt("hi");
 * for (const stop of stops) stop(); // or: subscription.unsubscribe()
 * ```
 */
export interface InspectionSubscription {
	/** Stops the stream (the same as {@link InspectionSubscription.unsubscribe}). */
	(): void;
	/** Stops the stream. */
	unsubscribe(): void;
}

/**
 * The handle for a stream `stop` ends: callable, with `unsubscribe` the same function; `stop` runs
 * once, however often the handle is called.
 */
export function inspectionSubscription(stop: () => void): InspectionSubscription {
	let stopped = false;
	const handle = () => {
		if (stopped) return;
		stopped = true;
		stop();
	};
	return Object.assign(handle, { unsubscribe: handle });
}

/**
 * The live inspection subscriptions of one actor. A handle forgets the actor once it is
 * unsubscribed or the set is closed, so a handle (or a trace recorder) a host keeps after
 * disposing the owner retains nothing of it: the inner subscription reaches the actor system,
 * and through it the whole session.
 *
 * @example
 * ```ts
 * const subscriptions = new InspectionSubscriptionSet("session.inspect");
 * const handle = subscriptions.add(session.inspect((event) => console.log(event.kind)));
 * subscriptions.closeAll(); // on dispose; handle.unsubscribe() is a no-op now
 * ```
 */
export class InspectionSubscriptionSet {
	private readonly live = new Set<InspectionSubscription>();
	private readonly ends = new WeakMap<InspectionSubscription, () => void>();
	private closed = false;

	/**
	 * `source`: the API the subscriptions came from, and `owner` the session, as a failing `onEnd`'s
	 * `LISTENER` warning names them.
	 */
	constructor(
		private readonly source: InspectionListenerSource,
		private readonly owner?: ListenerOwner,
	) {}

	/** Whether any subscription is live (work done only for inspection can be skipped otherwise). */
	get watched(): boolean {
		return this.live.size > 0;
	}

	/**
	 * Wraps `inner`; after {@link closeAll} the new handle is closed at once. `onEnd` is called once
	 * when {@link closeAll} ends the subscription (the owner was disposed), not on `unsubscribe()`. An
	 * `onEnd` that throws or rejects is reported (a `LISTENER` process warning) and the others still run.
	 */
	add(inner: { unsubscribe(): void }, onEnd?: () => void): InspectionSubscription {
		const live = this.live;
		let current: { unsubscribe(): void } | undefined = inner;
		const handle = inspectionSubscription(() => {
			const subscription = current;
			if (!subscription) return;
			current = undefined;
			live.delete(handle);
			subscription.unsubscribe();
		});
		live.add(handle);
		if (onEnd) this.ends.set(handle, onEnd);
		if (this.closed) this.end(handle);
		return handle;
	}

	private end(handle: InspectionSubscription): void {
		const onEnd = this.ends.get(handle);
		this.ends.delete(handle);
		handle.unsubscribe();
		// The observer's problem (reported once, never thrown): the owner's dispose goes on.
		if (onEnd) callListener(`${this.source} onEnd`, onEnd, undefined, this.owner);
	}

	/** Ends every subscription; later ones end at once. Must not throw. */
	closeAll(): void {
		this.closed = true;
		for (const handle of [...this.live]) {
			try {
				this.end(handle);
			} catch {
				// an XState unsubscribe does not throw; nothing else to undo
			}
		}
	}
}
