/** The session's synchronous public listeners (`session.subscribe`). */
import { callListener, type ListenerOwner } from "../listener-errors.js";
import type { AgentSessionEvent, AgentSessionListener } from "./events.js";

/**
 * Delivers session events to listeners in subscription order. Each dispatch iterates a snapshot
 * (listeners added or removed during a dispatch take effect next time); a throwing listener is
 * skipped so it can never break the session's bookkeeping, and its failure is reported as a process
 * warning (`listener-errors.ts`).
 */
export class PublicEvents {
	private listeners: readonly AgentSessionListener[] = [];

	/**
	 * `owner`: the session, as a failing listener's `LISTENER` warning names it. Dropped by
	 * {@link clear}: an unsubscribe function a host keeps after dispose must not keep the session.
	 */
	constructor(private owner?: ListenerOwner) {}

	subscribe(listener: AgentSessionListener): () => void {
		this.listeners = [...this.listeners, listener];
		let active = true;
		return () => {
			if (!active) return;
			active = false;
			const index = this.listeners.indexOf(listener);
			if (index !== -1) this.listeners = [...this.listeners.slice(0, index), ...this.listeners.slice(index + 1)];
		};
	}

	get size(): number {
		return this.listeners.length;
	}

	emit(event: AgentSessionEvent): void {
		const listeners = this.listeners;
		for (let index = 0; index < listeners.length; index++) {
			callListener("session.subscribe", listeners[index]!, event, this.owner);
		}
	}

	clear(): void {
		this.listeners = [];
		this.owner = undefined;
	}
}
