/**
 * A replacement whose teardown aborted the old session's run, then failed before the commit point
 * (the host's `beforeSessionInvalidate` throws) and rolled back: the old session goes on, so it must
 * behave as before the teardown. Before, two marks the teardown set stayed set: every later
 * `prompt()` of the session rejected `SESSION_CLOSED` although its run answered, and a handler the
 * teardown's abort left behind was never refused (the session was taken for closing), so what it
 * did late landed in the session's later operations.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { SimulatedClock } from "../../src/testing/index.js";
import { fauxModelRuntime, recordingFactory, startRuntime } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();

/** A promise with its resolver. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { opened, open };
}

/**
 * A runtime whose session's first `turn_end` handler call ignores the abort until `late` opens, then
 * appends an entry (its outcome in `lateWrite`); prompted, then replaced: the teardown's abort leaves
 * that handler behind, and the host's invalidate callback throws, so the replacement rolls back.
 */
async function rolledBackAfterAbortingARun() {
	const clock = new SimulatedClock();
	const holding = gate();
	const late = gate();
	const acted = gate();
	const state = { held: undefined as AbortSignal | undefined, lateWrite: "" };
	const lateReviewer = (pi: ExtensionAPI) => {
		let calls = 0;
		pi.on("turn_end", async (_event, ctx) => {
			if (calls++ > 0) return;
			state.held = ctx.signal;
			holding.open();
			await late.opened;
			try {
				pi.appendEntry("review", { verdict: "late" });
				state.lateWrite = "ok";
			} catch (error) {
				state.lateWrite = (error as { code?: string }).code ?? String(error);
			}
			acted.open();
		});
	};
	const { factory } = recordingFactory({
		modelRuntime: () => fauxModelRuntime(t.faux),
		clock,
		resourceLoaderOptions: { extensionFactories: [lateReviewer], noExtensions: true },
	});
	t.runtime = await startRuntime(factory, t.ws, t.ws.alpha);
	const runtime = t.runtime;
	runtime.setBeforeSessionInvalidate(() => {
		throw new Error("invalidate failed");
	});
	const old = runtime.session;
	t.faux.setResponses([fauxAssistantMessage("report written")]);
	const first = old.prompt("write the report").catch((error: unknown) => error);
	await holding.opened;
	const replacing = runtime.newSession().catch((error: unknown) => error);
	const held = state.held!;
	if (!held.aborted) await new Promise((resolve) => held.addEventListener("abort", resolve, { once: true }));
	clock.increment(1000); // the abort's grace: the handler is left behind
	expect(await replacing).toMatchObject({ message: "invalidate failed" });
	await first;
	expect(runtime.session).toBe(old);
	runtime.setBeforeSessionInvalidate(undefined);
	return { runtime, session: old, late, acted, state };
}

describe("a replacement that aborted the old session's run, then rolled back", () => {
	it("the old session's next prompt resolves once answered (it rejected SESSION_CLOSED: the session was taken for torn down)", async () => {
		const { session } = await rolledBackAfterAbortingARun();
		t.faux.setResponses([fauxAssistantMessage("The summary is short.")]);
		const next = await session.prompt("and now the summary").then(
			() => "resolved",
			(error: unknown) => (error as { code?: string }).code ?? String(error),
		);
		expect(next).toBe("resolved");
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("the handler its abort left behind is refused when it resumes: the session goes on, its entry would land in a later operation (it was written)", async () => {
		const { session, late, acted, state } = await rolledBackAfterAbortingARun();
		late.open();
		await acted.opened;
		expect(state.lateWrite).toBe("STALE_CONTEXT");
		const entries = readFileSync(session.sessionFile!, "utf8")
			.split("\n")
			.filter((line) => line.includes('"customType":"review"'));
		expect(entries).toEqual([]);
	});
});
