/**
 * claude-code#11745, claude-code#15803: custom slash commands (`.md` prompt
 * templates) were read once at start-up; a user iterating on one edited the file, ran `/name`
 * again, and got the old text until they restarted and lost the conversation. A skill's body
 * (`/skill:name`) is read when it is used (claude-code#90904 is that bug for skills), so the two
 * disagreed about an edited file. What that user should see: `/name` expands the template as its
 * file says now; a template whose file went away or no longer parses still expands as loaded.
 * Driven through the public runtime on real files (pi 0.73.1 serves the start-up copy until
 * `/reload`).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";

const perTest = runtimePerTest();

/** The text of the last user message the model was sent in request `index`. */
function sentUserText(faux: FauxProvider, index: number): string {
	return JSON.stringify(faux.requests[index]!.messages.at(-1));
}

async function startWithTemplate(
	text: string,
): Promise<{ faux: FauxProvider; file: string; runtime: AgentSessionRuntime }> {
	const ws = perTest.workspace();
	const prompts = join(ws.alpha, ".settle", "prompts");
	mkdirSync(prompts, { recursive: true });
	const file = join(prompts, "review.md");
	writeFileSync(file, text);
	const faux = createFauxProvider();
	const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, ws.alpha));
	faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
	return { faux, file, runtime };
}

describe("claude-code#11745: an edited prompt template runs its old text until restart", () => {
	it("claude-code#11745, claude-code#15803: review.md edited between two /review calls: the second sends the edited text, arguments substituted", async () => {
		const { faux, file, runtime } = await startWithTemplate(
			"---\ndescription: Review a file\n---\nReview $1 for bugs (V1).\n",
		);
		await runtime.session.prompt("/review a.ts");
		expect(sentUserText(faux, 0)).toContain("Review a.ts for bugs (V1).");

		writeFileSync(file, "---\ndescription: Review a file\n---\nReview $1 for bugs and tests (V2).\n");
		await runtime.session.prompt("/review b.ts");
		const second = sentUserText(faux, 1);
		expect(second).toContain("Review b.ts for bugs and tests (V2).");
		expect(second).not.toContain("(V1)");
	});

	it("claude-code#11745: a template whose file was removed, or whose front matter no longer parses, still expands as it was loaded", async () => {
		const { faux, file, runtime } = await startWithTemplate("Review $1 for bugs (LOADED).\n");
		writeFileSync(file, "---\ndescription: [unclosed\n---\nReview $1 (BROKEN).\n");
		await runtime.session.prompt("/review a.ts");
		expect(sentUserText(faux, 0)).toContain("Review a.ts for bugs (LOADED).");

		rmSync(file);
		await runtime.session.prompt("/review b.ts");
		expect(sentUserText(faux, 1)).toContain("Review b.ts for bugs (LOADED).");
	});
});
