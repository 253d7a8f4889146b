/**
 * Lifetime test kit: a forced full GC (without changing the vitest config), a FinalizationRegistry
 * tracker that says which labelled objects were collected, and the process's open descriptors.
 */
import { createHook } from "node:async_hooks";
import { readdirSync, readlinkSync } from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Lets promise reactions, I/O callbacks and finalizers run. */
export function tick(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** Full GCs with turns of the event loop between them, so finalization callbacks run. */
export async function forceGc(rounds = 6): Promise<void> {
	for (let i = 0; i < rounds; i++) {
		gc();
		await tick();
	}
}

/**
 * Tracks objects by label; {@link collected} forces GC and returns the labels whose object is gone.
 * The tracker itself holds no strong reference to what it tracks.
 */
export class CollectionTracker {
	private readonly gone = new Set<string>();
	private readonly labels: string[] = [];
	private readonly registry = new FinalizationRegistry<string>((label) => this.gone.add(label));

	track(target: object, label: string): void {
		this.labels.push(label);
		this.registry.register(target, label);
	}

	/** Labels still alive after a forced GC (sorted). */
	async alive(): Promise<string[]> {
		await forceGc();
		return this.labels.filter((label) => !this.gone.has(label)).sort();
	}
}

/** Paths of this process's open file descriptors (Linux `/proc/self/fd`); [] elsewhere. */
export function openFilePaths(): string[] {
	const paths: string[] = [];
	let fds: string[];
	try {
		fds = readdirSync("/proc/self/fd");
	} catch {
		return paths;
	}
	for (const fd of fds) {
		try {
			paths.push(readlinkSync(`/proc/self/fd/${fd}`));
		} catch {
			// closed while we looked
		}
	}
	return paths;
}

/** How many active resources of each kind keep the event loop alive. */
export function activeResources(): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
	return counts;
}

/** Kinds of active resources (see {@link activeResources}) that are more numerous now than in `before`, with the surplus. */
export function resourcesAddedSince(before: Record<string, number>): Record<string, number> {
	const added: Record<string, number> = {};
	for (const [kind, count] of Object.entries(activeResources())) {
		const surplus = count - (before[kind] ?? 0);
		if (surplus > 0) added[kind] = surplus;
	}
	return added;
}

/**
 * Counts the timers created from now on that are still pending: `pending()` all of them, unref'd ones
 * included (which `process.getActiveResourcesInfo()` does not list): a lock-refresh or kill timer
 * left running; `pendingRefed()` only those that keep the process alive. Timers created before the
 * call are never counted, so one that an earlier test left and that fires meanwhile changes nothing.
 * Call `stop()` when done.
 */
export function trackTimers(): { pending(): number; pendingRefed(): number; stop(): void } {
	const live = new Map<number, { hasRef?: () => boolean }>();
	const hook = createHook({
		init(asyncId, type, _triggerAsyncId, resource) {
			if (type === "Timeout") live.set(asyncId, resource as { hasRef?: () => boolean });
		},
		destroy(asyncId) {
			live.delete(asyncId);
		},
	}).enable();
	return {
		pending: () => live.size,
		pendingRefed: () => [...live.values()].filter((timer) => timer.hasRef?.() !== false).length,
		stop: () => {
			hook.disable();
		},
	};
}
