/**
 * Every session runs the same prompt-operation machine definition: creating a session builds no
 * XState state nodes. (A machine built per session cost each session its 22 state nodes and
 * XState's per-node caches, and made XState's module-wide cache table — a WeakMap keyed by state
 * node — grow with the sessions created between two full GCs; it never shrinks.)
 */
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { countObjectsNamed, HEAP_SNAPSHOT_TEST_TIMEOUT_MS } from "./heap-census.js";
import { forceGc } from "./helpers.js";

async function promptedSession(): Promise<Harness> {
	const h = await createHarness();
	h.setResponses([fauxAssistantMessage([fauxToolCall("ls", {})]), fauxAssistantMessage("done")]);
	await h.session.prompt("list the files");
	return h;
}

describe("the prompt-operation machine", () => {
	it("is shared: live sessions, prompted, add no XState state node", {
		timeout: HEAP_SNAPSHOT_TEST_TIMEOUT_MS,
	}, async () => {
		const held: Harness[] = [await promptedSession()];
		await forceGc();
		const before = await countObjectsNamed("StateNode");
		for (let i = 0; i < 6; i++) held.push(await promptedSession());
		await forceGc();
		const after = await countObjectsNamed("StateNode");
		expect(after - before).toBe(0);
		// Each session still runs its own actor with its own answers: the last prompt went to each session.
		for (const h of held) expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant" });
		for (const h of held) h.cleanup();
	});
});
