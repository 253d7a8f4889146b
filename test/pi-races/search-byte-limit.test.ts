/**
 * code_puppy#903: `grep` capped its matches silently; an agent auditing which code paths skip a PII
 * shield saw 50 of 441, reported all-clear, and a guard test built on that list stayed green.
 * claude-supertool#622: a cut output that does not say how much it dropped "turns a partial result
 * into a confident wrong answer". In Settle, as in pi, the match limit says so, but when the 50 KB
 * byte limit cuts first the notice read "[1000 matches limit reached. Use limit=2000 for more, or
 * refine pattern. 50.0KB limit reached]" over about 110 matches: nothing said how many were shown,
 * and a higher limit would show no more. Replayed with a model's `grep` and `find` calls in a real
 * session over a real tree.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Each tool result the model received, in call order. */
function toolResults(harness: Harness): { text: string; details: unknown }[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
						details: message.details,
					},
				]
			: [],
	);
}

/** 30 folders of 100 handlers, each calling `sendToModel(` on a 400-character line. */
async function auditProject(calls: { name: string; args: Record<string, unknown> }[]): Promise<Harness> {
	const harness = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep", "find"] });
	h = harness;
	for (let folder = 0; folder < 30; folder++) {
		mkdirSync(join(harness.tempDir, `service${folder}`));
		for (let file = 0; file < 100; file++) {
			writeFileSync(
				join(harness.tempDir, `service${folder}`, `handler-${file}.ts`),
				`export const reply = sendToModel(${"userText, ".repeat(38)}shield);\n`,
			);
		}
	}
	script(harness, [
		...calls.map((call) => fauxAssistantMessage([fauxToolCall(call.name, call.args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("which handlers send user text to the model?");
	return harness;
}

/** The match lines of a grep result (its notice left out). */
const matchLines = (text: string) => text.slice(0, text.lastIndexOf("\n\n[")).split("\n");

describe("code_puppy#903, claude-supertool#622: a cut search result does not say how much of it is shown", () => {
	it("code_puppy#903: grep with limit 1000 over 3,000 long matches says how many it shows of how many, that a higher limit shows no more; the narrower grep it suggests shows a folder whole", async () => {
		const harness = await auditProject([
			{ name: "grep", args: { pattern: "sendToModel\\(", limit: 1000 } },
			{ name: "grep", args: { pattern: "sendToModel\\(", path: "service7", limit: 1000 } },
		]);
		const [wide, narrow] = toolResults(harness);
		const shown = matchLines(wide!.text).length;
		expect(shown).toBeLessThan(1000);
		expect(wide!.text.slice(wide!.text.lastIndexOf("\n\n[") + 2)).toBe(
			"[1000 matches limit reached. Use limit=2000 for more, or refine pattern. " +
				`50.0KB limit reached: showing the first ${shown} of 1000 lines. A higher limit shows no more; narrow the path, glob or pattern to see the rest]`,
		);
		expect(matchLines(narrow!.text)).toHaveLength(100);
		expect(narrow!.text).not.toContain("limit reached");
	});

	it("claude-supertool#622: find over 3,000 files cut at 50 KB says how many paths it shows of the 3,000 found", async () => {
		const harness = await auditProject([{ name: "find", args: { pattern: "*.ts", limit: 5000 } }]);
		const [find] = toolResults(harness);
		const notice = find!.text.slice(find!.text.lastIndexOf("\n\n[") + 2);
		const paths = find!.text.slice(0, find!.text.lastIndexOf("\n\n[")).split("\n");
		expect(notice).toBe(
			`[50.0KB limit reached: showing the first ${paths.length} of 3000 lines. A higher limit shows no more; narrow the path, glob or pattern to see the rest]`,
		);
		expect(paths.length).toBeLessThan(3000);
		expect(find!.details).toMatchObject({ truncation: { outputLines: paths.length, totalLines: 3000 } });
	});
});
