/**
 * Input sent to a session while its runtime is being disposed (`runtime.dispose()` not resolved
 * yet): refused at once with SESSION_CLOSED saying so — not taken and ended later with
 * SESSION_CLOSED. Not BUSY (as during a replacement): a dispose cannot be cancelled, so waiting and
 * retrying cannot help, and isReplacementRefusal() stays false (hosts that retry those stop).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { isReplacementRefusal } from "../../src/runtime/errors.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SESSION_REPLACED, SESSION_RUNTIME_DISPOSED, SESSION_RUNTIME_DISPOSING } from "../../src/session/texts.js";
import { loggingFactory, type RecordingFactory, startRuntime } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let rec: RecordingFactory;

/** An event handler parked until released (then it returns `{ cancel }` where that means something). */
interface Gate {
	entered: Promise<void>;
	release(cancel?: boolean): void;
	park(): Promise<{ cancel: boolean }>;
}

function newGate(): Gate {
	let enter!: () => void;
	let release!: (cancel: boolean) => void;
	const entered = new Promise<void>((resolve) => {
		enter = resolve;
	});
	const released = new Promise<boolean>((resolve) => {
		release = resolve;
	});
	return {
		entered,
		release: (cancel = false) => release(cancel),
		park: async () => {
			enter();
			return { cancel: await released };
		},
	};
}

/** Gates for `session_shutdown` (any reason) and `session_before_switch`, when set. */
const gates: { shutdown?: Gate; beforeSwitch?: Gate } = {};

function gatingExtension(pi: ExtensionAPI): void {
	pi.on("session_shutdown", async (event) => {
		if (event.reason === "quit" && gates.shutdown) await gates.shutdown.park();
	});
	pi.on("session_before_switch", async () => (gates.beforeSwitch ? gates.beforeSwitch.park() : undefined));
}

beforeEach(() => {
	delete gates.shutdown;
	delete gates.beforeSwitch;
	rec = loggingFactory(t.faux, [], [gatingExtension]);
});

// Before useRuntimeWorkspace's teardown disposes the runtime: a parked handler would hold the dispose.
afterEach(() => {
	gates.shutdown?.release();
	gates.beforeSwitch?.release(true);
});

async function start(): Promise<AgentSessionRuntime> {
	t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
	t.faux.setResponses([fauxAssistantMessage("first answer")]);
	await t.runtime.session.prompt("first");
	return t.runtime;
}

/** Each input call on `session`, with the error it rejected with (all of them reject). */
async function refusals(session: AgentSession): Promise<SettleError[]> {
	const calls: (() => Promise<unknown>)[] = [
		() => session.prompt("during dispose"),
		() => session.steer("steer during dispose"),
		() => session.followUp("follow up during dispose"),
		() => session.sendUserMessage("user message during dispose"),
		() => session.sendCustomMessage({ customType: "note", content: "during", display: true }, { triggerTurn: true }),
	];
	const errors: SettleError[] = [];
	for (const call of calls) {
		const error = await call().then(
			() => undefined,
			(caught: unknown) => caught,
		);
		expect(error).toBeInstanceOf(SettleError);
		errors.push(error as SettleError);
	}
	return errors;
}

/** Every input call on `session` is refused with SESSION_CLOSED and `message`; nothing was queued. */
async function expectClosed(session: AgentSession, message: string): Promise<void> {
	for (const error of await refusals(session)) {
		expect([error.code, error.message]).toEqual(["SESSION_CLOSED", message]);
		expect(isReplacementRefusal(error)).toBe(false);
	}
	expect(session.getSteeringMessages()).toEqual([]);
	expect(session.getFollowUpMessages()).toEqual([]);
}

describe("input on a session whose runtime is being disposed", () => {
	it("is refused at once from the dispose() call on, through session_shutdown; after it, the disposed text", async () => {
		const r = await start();
		const session = r.session;
		gates.shutdown = newGate();
		const disposing = r.dispose();
		// Synchronously after the call: nothing was torn down yet.
		expect(session.isDisposed).toBe(false);
		await expectClosed(session, SESSION_RUNTIME_DISPOSING);
		await gates.shutdown.entered;
		expect(r.lifecycle).toBe("shuttingDown");
		await expectClosed(session, SESSION_RUNTIME_DISPOSING);
		expect(session.isDisposed).toBe(false);
		gates.shutdown.release();
		await disposing;
		expect(session.isDisposed).toBe(true);
		await expectClosed(session, SESSION_RUNTIME_DISPOSED);
		// Nothing sent during the dispose reached the model or the transcript.
		expect(JSON.stringify(session.messages)).not.toContain("during dispose");
	});

	it("during a replacement in progress: SESSION_CLOSED, not BUSY, whether the replacement is cancelled or goes through", async () => {
		for (const cancel of [true, false]) {
			const r = await start();
			const old = r.session;
			gates.beforeSwitch = newGate();
			const replacing = r.newSession();
			await gates.beforeSwitch.entered;
			expect((await refusals(old)).map((error) => error.code)).toEqual(Array(5).fill("BUSY"));
			gates.shutdown = newGate();
			const disposing = r.dispose();
			await expectClosed(old, SESSION_RUNTIME_DISPOSING);
			gates.beforeSwitch.release(cancel);
			delete gates.beforeSwitch;
			await replacing.catch(() => undefined);
			// The quit teardown runs on the session current now (the old one when cancelled, else the new one).
			await gates.shutdown.entered;
			expect(r.session === old).toBe(cancel);
			await expectClosed(r.session, SESSION_RUNTIME_DISPOSING);
			// Replaced (and disposed) on the way: its own closed text.
			if (!cancel) await expectClosed(old, SESSION_REPLACED);
			gates.shutdown.release();
			delete gates.shutdown;
			await disposing;
			await expectClosed(r.session, SESSION_RUNTIME_DISPOSED);
			t.runtime = undefined;
		}
	});
});
