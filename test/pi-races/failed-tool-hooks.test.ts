/**
 * Reports about the hook that runs after a tool, for calls that failed. claude-code#72996 (and
 * claude-code#24908 before it, closed not planned): the `Edit` rejections a model hits most ("String to
 * replace not found in file") fired neither `PostToolUse` nor `PostToolUseFailure`; claude-code#6371:
 * a Bash command exiting non-zero skipped `PostToolUse`; codex#24907: `PostToolUse` runs only for
 * successful tools. The hook authors wanted the failures most (a linter after an edit, failure
 * telemetry, guidance for the model) and saw nothing.
 *
 * Replayed through the SDK harness on the faux model with Settle's built-in `edit` and `bash` (real
 * file, real shell): an extension's `tool_result` handler hears each failed call with `isError: true`
 * and its error text, and what it adds reaches the model's next request beside the error.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

const textOfBlocks = (content: readonly { type: string; text?: string }[]) =>
	content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("claude-code#72996, claude-code#6371, codex#24907: the after-tool hook skipped failed calls", () => {
	it("claude-code#72996, claude-code#6371, codex#24907: a rejected edit and a bash exit 3 each reach tool_result with isError and the error; the note the handler adds is in the model's next request", async () => {
		const heard: { toolName: string; isError: boolean; text: string }[] = [];
		let nextRequest: Context | undefined;
		const answerAfterTools = (context: Context) => {
			nextRequest = context;
			return fauxAssistantMessage("done");
		};
		h = await createHarness({
			initialActiveToolNames: ["edit", "bash"],
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.on("tool_result", (event) => {
						heard.push({ toolName: event.toolName, isError: event.isError, text: textOfBlocks(event.content) });
						if (!event.isError) return undefined;
						return { content: [...event.content, { type: "text", text: `\n[check] ${event.toolName} failed` }] };
					});
				},
			],
		});
		writeFileSync(join(h.tempDir, "app.ts"), "export const port = 3000;\n");
		script(h, [
			fauxAssistantMessage(
				[fauxToolCall("edit", { path: "app.ts", edits: [{ oldText: "port = 8080", newText: "port = 80" }] })],
				{
					stopReason: "toolUse",
				},
			),
			fauxAssistantMessage([fauxToolCall("bash", { command: "echo building; exit 3" })], { stopReason: "toolUse" }),
			answerAfterTools,
		]);
		await h.session.prompt("change the port and build");

		const editError =
			"Could not find the exact text in app.ts. The old text must match exactly including all whitespace and newlines.";
		const bashError = "building\n\n\nCommand exited with code 3";
		expect(heard).toEqual([
			{ toolName: "edit", isError: true, text: editError },
			{ toolName: "bash", isError: true, text: bashError },
		]);
		expect(toolResultTexts(h)).toEqual([
			{ isError: true, text: `${editError}\n[check] edit failed` },
			{ isError: true, text: `${bashError}\n[check] bash failed` },
		]);
		const sent = nextRequest?.messages.flatMap((message) =>
			message.role === "toolResult" ? [textOfBlocks(message.content)] : [],
		);
		expect(sent).toEqual([`${editError}\n[check] edit failed`, `${bashError}\n[check] bash failed`]);
		expect(h.eventsOfType("tool_execution_end").map((end) => [end.toolName, end.isError])).toEqual([
			["edit", true],
			["bash", true],
		]);
		expect(readFileSync(join(h.tempDir, "app.ts"), "utf8")).toBe("export const port = 3000;\n");
	});
});
