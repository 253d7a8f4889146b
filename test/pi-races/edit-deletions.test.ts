/**
 * openclaw#19085 (and its duplicate #23375; OpenClaw wraps pi's tools): an `edit` whose `newText` is
 * `""` (delete the matched text) or only a line break was refused as "Missing required parameter:
 * newText"; six calls in a row failed, and the model could only delete a line by rewriting the
 * file. Replayed with a model's `edit` calls in a real session on real files.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Runs the model's `edit` calls (one turn each) in a real disk session whose cwd holds `files`. */
async function modelEdits(files: Record<string, string>, calls: Record<string, unknown>[]): Promise<Harness> {
	const harness = await createHarness({ persistence: "disk", initialActiveToolNames: ["edit"] });
	h = harness;
	for (const [name, content] of Object.entries(files)) writeFileSync(join(harness.tempDir, name), content);
	script(harness, [
		...calls.map((args) => fauxAssistantMessage([fauxToolCall("edit", args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("drop the unused imports");
	return harness;
}

const kotlin = [
	"package app",
	"",
	"import kotlinx.serialization.Serializable",
	"import kotlinx.serialization.json.Json",
	"import kotlinx.coroutines.flow.Flow",
	"",
	"@Serializable data class User(val name: String)",
	"",
].join("\n");

describe('openclaw#19085: edit refuses newText "" (or a bare line break) as a missing parameter', () => {
	it('openclaw#19085: the legacy form with newText "" deletes the import line; an edits[] entry with newText "\\n" joins two lines into one break', async () => {
		const harness = await modelEdits({ "User.kt": kotlin }, [
			{ path: "User.kt", oldText: "import kotlinx.serialization.json.Json\n", newText: "" },
			{ path: "User.kt", edits: [{ oldText: "import kotlinx.coroutines.flow.Flow\n\n", newText: "\n" }] },
		]);
		expect(toolResultTexts(harness)).toEqual([
			{ isError: false, text: "Successfully replaced 1 block(s) in User.kt." },
			{ isError: false, text: "Successfully replaced 1 block(s) in User.kt." },
		]);
		expect(readFileSync(join(harness.tempDir, "User.kt"), "utf8")).toBe(
			"package app\n\nimport kotlinx.serialization.Serializable\n\n@Serializable data class User(val name: String)\n",
		);
	});

	it('openclaw#19085: newText "" on a CRLF file takes the line and its CRLF, every other line keeps its CRLF', async () => {
		const harness = await modelEdits({ "User.kt": kotlin.replaceAll("\n", "\r\n") }, [
			{ path: "User.kt", edits: [{ oldText: "import kotlinx.serialization.json.Json\n", newText: "" }] },
		]);
		expect(toolResultTexts(harness)[0]?.isError).toBe(false);
		expect(readFileSync(join(harness.tempDir, "User.kt"), "utf8")).toBe(
			kotlin.replace("import kotlinx.serialization.json.Json\n", "").replaceAll("\n", "\r\n"),
		);
	});
});
