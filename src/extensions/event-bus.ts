/** The bus behind `pi.events`: extensions talk to each other on named channels. */
import { errorMessage } from "../errors.js";
import type { EventBusController } from "./types.js";

/** Called when a bus listener throws or rejects. */
export type EventBusErrorHandler = (channel: string, error: unknown) => void;

/**
 * Creates a bus. `emit` calls the channel's listeners synchronously in subscription order (a
 * listener added during an emit is not called by that emit); async listeners are not awaited.
 * A listener that throws or rejects never reaches the emitter: it goes to `onError` (default:
 * `console.error`, as pi does).
 *
 * @example
 * ```ts
 * const bus = createEventBus();
 * const off = bus.on("build:done", (data) => console.log(data));
 * bus.emit("build:done", { ok: true });
 * off();
 * ```
 */
export function createEventBus(onError: EventBusErrorHandler = defaultErrorHandler): EventBusController {
	// Each subscription is its own entry, so subscribing one function twice and unsubscribing once keeps one.
	const channels = new Map<string, Array<{ listener: (data: unknown) => void | Promise<void> }>>();
	const report = (channel: string, error: unknown) => {
		try {
			onError(channel, error);
		} catch {
			// An error reporter must not break the emitter.
		}
	};
	return {
		emit(channel, data) {
			const listeners = channels.get(channel);
			if (!listeners) return;
			for (const { listener } of listeners) {
				try {
					const result = listener(data);
					if (result && typeof (result as Promise<void>).then === "function") {
						(result as Promise<void>).then(undefined, (error) => report(channel, error));
					}
				} catch (error) {
					report(channel, error);
				}
			}
		},
		on(channel, handler) {
			const entry = { listener: handler };
			channels.set(channel, [...(channels.get(channel) ?? []), entry]);
			let active = true;
			return () => {
				if (!active) return;
				active = false;
				const remaining = (channels.get(channel) ?? []).filter((other) => other !== entry);
				if (remaining.length > 0) channels.set(channel, remaining);
				else channels.delete(channel);
			};
		},
		clear() {
			channels.clear();
		},
	};
}

function defaultErrorHandler(channel: string, error: unknown): void {
	console.error(`Event handler error (${channel}): ${errorMessage(error)}`);
}
