/**
 * The runtime replacement the docs tell a reader to step through in `runtime-trace-example.html`
 * ("↑/↓ step through each replacement (beforeSwitch → opening → … → active)", in README.md and in
 * visualizations/README.md, which `npm run viz` writes) is the path the recorded example really
 * takes: a reader looking for a state the page never shows, or surprised by one the text skips,
 * stops trusting both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { recordRuntimeExampleTrace } from "../../src/inspect/example-traces.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCS = ["README.md", "visualizations/README.md"];

/** The states named in a doc's "step through each replacement (a → b → …)", line breaks joined. */
function documentedReplacement(doc: string): string[] {
	const text = readFileSync(join(ROOT, doc), "utf8").replace(/\s+/g, " ");
	const match = /step through each replacement \(([^)]*)\)/.exec(text);
	if (!match) throw new Error(`${doc} no longer says which states a replacement steps through`);
	return match[1]!.split("→").map((state) => state.trim());
}

describe("the documented replacement path of the runtime example trace", () => {
	it.each(DOCS)(
		"regression: %s names every state a replacement of the example goes through (settlingCurrent was left out)",
		async (doc) => {
			const { events } = await recordRuntimeExampleTrace();
			const runtimeStates = events.flatMap((event) =>
				event.kind === "state" && event.machine === "runtime" ? [String(event.to)] : [],
			);
			// The first replacement (/new): from its beforeSwitch to the active it ends in.
			const start = runtimeStates.indexOf("beforeSwitch");
			const end = runtimeStates.indexOf("active", start);
			expect(documentedReplacement(doc)).toEqual(runtimeStates.slice(start, end + 1));
		},
	);
});
