/**
 * A replacement (fork) while the old session still runs a summarizing tree navigation, or a dispose
 * while it compacts: the call rejects with SESSION_CLOSED, and its message names what was cut (a
 * navigation, a compaction), not "prompt".
 */
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness } from "../../src/testing/harness.js";
import { loggingFactory, startRuntime, userEntryId } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();

/** Starts a runtime with two exchanges, and a summary reply that waits until released. */
async function twoExchangesAndAHeldSummary() {
	const r = await startRuntime(loggingFactory(t.faux, []).factory, t.ws, t.ws.alpha);
	t.runtime = r;
	for (const text of ["first", "second"]) {
		t.faux.setResponses([fauxAssistantMessage(`answer to ${text}`)]);
		await r.session.prompt(text);
	}
	let reached!: () => void;
	const summaryAsked = new Promise<void>((resolve) => {
		reached = resolve;
	});
	let release!: () => void;
	const released = new Promise<void>((resolve) => {
		release = resolve;
	});
	t.faux.setResponses([
		async () => {
			reached();
			await released;
			return fauxAssistantMessage("## Goal\nsummary");
		},
	]);
	return { r, summaryAsked, release };
}

function outcome(promise: Promise<unknown>): Promise<string> {
	return promise.then(
		() => "resolved",
		(error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
	);
}

describe("a replacement cuts an operation of the old session: the message names it", () => {
	it("a summarizing navigateTree() cut by fork() rejects naming the navigation", async () => {
		const { r, summaryAsked, release } = await twoExchangesAndAHeldSummary();
		const old = r.session;
		const navigating = outcome(old.navigateTree(userEntryId(old, "first"), { summarize: true }));
		await summaryAsked;
		await r.fork(userEntryId(old, "second"));
		release();
		expect(await navigating).toBe("SESSION_CLOSED: The AgentSession was disposed before this navigation settled.");
	});
});

describe("a dispose cuts a compaction: the message names it", () => {
	it("a compact() whose summary request is in flight, cut by session.dispose(), rejects naming the compaction", async () => {
		const h = await createHarness({
			settings: { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } },
		});
		try {
			for (const text of ["first", "second"]) {
				h.setResponses([fauxAssistantMessage(`answer to ${text}`)]);
				await h.session.prompt(text);
			}
			let reached!: () => void;
			const summaryAsked = new Promise<void>((resolve) => {
				reached = resolve;
			});
			// The summary never comes: only the dispose ends the compaction.
			h.setResponses([
				async () => {
					reached();
					await new Promise(() => {});
					return fauxAssistantMessage("never");
				},
			]);
			const compacting = outcome(h.session.compact());
			await summaryAsked;
			h.session.dispose();
			expect(await compacting).toBe("SESSION_CLOSED: The AgentSession was disposed before this compaction settled.");
		} finally {
			h.cleanup();
		}
	});
});
