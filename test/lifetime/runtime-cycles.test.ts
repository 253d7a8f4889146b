/**
 * An AgentSessionRuntime in a long-lived host: after many new / resume / fork / import cycles (each
 * with a prompt), every replaced session and its services are collectable, only the current
 * session file is locked, and a disposed runtime leaves no lock, timer or handle behind, even
 * with the host's inspection handles still kept.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import {
	createWorkspace,
	fauxModelRuntime,
	locksUnder,
	recordingFactory,
	startRuntime,
	userEntryId,
	type Workspace,
} from "../runtime/helpers.js";
import { countLiveObjects, HEAP_SNAPSHOT_TEST_TIMEOUT_MS } from "./heap-census.js";
import { activeResources, CollectionTracker, resourcesAddedSince, tick, trackTimers } from "./helpers.js";

let ws: Workspace;
beforeEach(() => {
	ws = createWorkspace();
});
afterEach(() => {
	ws.cleanup();
});

/** A runtime whose every services get a fresh faux provider (a shared one records every request, and so every tool). */
async function startFauxRuntime(): Promise<{ runtime: AgentSessionRuntime; faux: () => FauxProvider }> {
	let latest: FauxProvider | undefined;
	const rec = recordingFactory({
		modelRuntime: () => {
			latest = createFauxProvider();
			return fauxModelRuntime(latest);
		},
		resourceLoaderOptions: { noExtensions: true },
	});
	const runtime = await startRuntime(
		async (target) => {
			const result = await rec.factory(target);
			rec.built.length = 0;
			return result;
		},
		ws,
		ws.alpha,
	);
	return { runtime, faux: () => latest! };
}

async function promptCurrent(runtime: AgentSessionRuntime, faux: () => FauxProvider, text: string): Promise<void> {
	faux().setResponses([fauxAssistantMessage(`answer: ${text}`)]);
	await runtime.session.prompt(text);
}

/** Runs `cycles` rounds of new → prompt → resume the first file → fork → import; tracks every replaced session. */
async function cycle(
	runtime: AgentSessionRuntime,
	faux: () => FauxProvider,
	tracker: CollectionTracker,
	cycles: number,
) {
	await promptCurrent(runtime, faux, "first");
	const firstFile = runtime.session.sessionFile!;
	const track = (label: string) => {
		tracker.track(runtime.session, `${label}.session`);
		tracker.track(runtime.session.agent, `${label}.agent`);
		tracker.track(runtime.session.extensionRunner, `${label}.runner`);
		tracker.track(runtime.services, `${label}.services`);
	};
	for (let i = 0; i < cycles; i++) {
		track(`c${i}.start`);
		await runtime.newSession();
		await promptCurrent(runtime, faux, `new ${i}`);
		const newFile = runtime.session.sessionFile!;
		track(`c${i}.new`);
		await runtime.switchSession(firstFile);
		await promptCurrent(runtime, faux, `resumed ${i}`);
		track(`c${i}.resumed`);
		await runtime.fork(userEntryId(runtime.session, `resumed ${i}`));
		track(`c${i}.fork`);
		await runtime.importFromJsonl(newFile);
	}
}

describe("runtime replacement cycles", () => {
	it("every replaced session, agent, runner and services is collectable; only the current file is locked", async () => {
		const timers = trackTimers();
		const { runtime, faux } = await startFauxRuntime();
		const tracker = new CollectionTracker();
		await cycle(runtime, faux, tracker, 4);
		expect(await tracker.alive()).toEqual([]);
		expect(locksUnder(ws.root)).toEqual([`${runtime.session.sessionFile}.lock`]);
		// The current file's lock-refresh timer (unref'd) is the only timer left.
		expect(timers.pending()).toBe(1);
		await runtime.dispose();
		await tick();
		expect(locksUnder(ws.root)).toEqual([]);
		expect(timers.pending()).toBe(0);
		timers.stop();
	});

	it("a replacement rolled back after its session was made kept that discarded session until the next replacement", async () => {
		const tracker = new CollectionTracker();
		let made = 0;
		const rec = recordingFactory({
			modelRuntime: () => fauxModelRuntime(createFauxProvider()),
			resourceLoaderOptions: { noExtensions: true },
		});
		const runtime = await startRuntime(
			async (target) => {
				const result = await rec.factory(target);
				rec.built.length = 0;
				tracker.track(result.session, `made ${made++}`);
				return result;
			},
			ws,
			ws.alpha,
		);
		const first = runtime.session;
		// The host's beforeSessionInvalidate throws after the new session was made: rolled back.
		runtime.setBeforeSessionInvalidate(() => {
			throw new Error("invalidate failed");
		});
		await expect(runtime.newSession()).rejects.toThrow("invalidate failed");
		expect(runtime.session).toBe(first);
		expect(await tracker.alive()).toEqual(["made 0"]);
		await runtime.dispose();
	});

	it("runtime.inspect or session.trace handles kept by the host retained the disposed runtime and its sessions", async () => {
		const before = activeResources();
		const tracker = new CollectionTracker();
		const kept = await (async () => {
			const { runtime, faux } = await startFauxRuntime();
			const handles = [runtime.inspect(() => {}), runtime.session.inspect(() => {}), runtime.session.trace()];
			await cycle(runtime, faux, tracker, 2);
			handles.push(runtime.session.trace());
			tracker.track(runtime, "runtime");
			tracker.track(runtime.session, "last.session");
			await runtime.dispose();
			return handles;
		})();
		expect(await tracker.alive()).toEqual([]);
		expect(resourcesAddedSince(before)).toEqual({});
		expect(locksUnder(ws.root)).toEqual([]);
		expect(kept).toHaveLength(4);
	});

	it("an inspector attached for the runtime's life kept a record of every replacement step (the heap grew per switch)", {
		timeout: HEAP_SNAPSHOT_TEST_TIMEOUT_MS,
	}, async () => {
		const { runtime, faux } = await startFauxRuntime();
		const inspector = runtime.inspect(() => {});
		const sessionInspector = runtime.session.inspect(() => {});
		const switches = async (count: number) => {
			for (let i = 0; i < count; i++) {
				faux().setResponses([fauxAssistantMessage("done")]);
				await runtime.session.prompt(`switch ${i}`);
				await runtime.newSession();
			}
		};
		await switches(20);
		await countLiveObjects(); // the first snapshot sets up what every later one reuses
		await switches(5);
		const before = await countLiveObjects();
		const count = 40;
		await switches(count);
		const after = await countLiveObjects();
		// Measured: 13 to 19 objects whatever the count; a record per replacement step was ~300 (7 per switch).
		expect(after - before).toBeLessThan(count);
		inspector.unsubscribe();
		sessionInspector.unsubscribe();
		await runtime.dispose();
	});
});
