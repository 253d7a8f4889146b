/**
 * A replacement (fork) while the old session still runs a summarizing tree navigation: the call
 * rejects with SESSION_CLOSED, and its message names what was cut (a navigation), not "prompt".
 */
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
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
