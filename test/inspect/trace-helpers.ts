/** Sessions whose trace the inspect tests read: the session file as written, and a recovered overflow. */
import { readFileSync } from "node:fs";
import type { LifecycleInspectionEvent } from "../../src/inspect/lifecycle-inspector.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";

/** The entries of the session file, in order, as written. */
export function fileEntries(harness: Harness): { id: string; type: string; targetId?: string }[] {
	return readFileSync(harness.session.sessionFile!, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as { id: string; type: string; targetId?: string });
}

/** The error a context overflow ends a model call with. */
export const OVERFLOW_ERROR = "prompt is too long: 213462 tokens > 200000 maximum";

/**
 * A session on disk (simulated clock, compaction on) answers one prompt; its second prompt's model
 * call overflows, the session compacts and the request re-runs ("answer"). Gives the harness (for
 * the caller to clean up) and the trace events of that second prompt.
 */
export async function tracedOverflow(): Promise<{ h: Harness; events: LifecycleInspectionEvent[] }> {
	const h = await createHarness({
		persistence: "disk",
		simulatedClock: true,
		settings: { compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 1 } },
	});
	h.setResponses([fauxAssistantMessage("The build uses esbuild.")]);
	await h.session.prompt("What does the build use?");
	h.setResponses([
		fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW_ERROR }),
		fauxAssistantMessage("## Goal\nsummary"),
		fauxAssistantMessage("answer"),
	]);
	const trace = h.session.trace();
	await h.settle(h.session.prompt("And how do I run it?"));
	trace.stop();
	return { h, events: trace.toJSON().events };
}
