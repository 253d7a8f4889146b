/**
 * A tool whose execute resolves to something that is not a tool result (easy in an extension: jiti
 * loads it without a type check) ends its call with an error result that says what it returned and
 * what it must return. The malformed value is never persisted, so the session's next requests work.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { TOOL_RESULT_SHAPE, toolResultProblem } from "../../src/agent/tool-result-check.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { createHarness, fauxAssistantMessage, fauxToolCall, type Harness } from "../../src/testing/index.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A session whose `odd` tool comes from an extension FILE returning `resultSource` (a JS expression). */
async function sessionWithExtensionTool(
	resultSource: string,
	persistence: "memory" | "disk" = "memory",
): Promise<Harness> {
	const dir = mkdtempSync(join(tmpdir(), "settle-tool-result-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	const file = join(dir, "odd-tool.ts");
	writeFileSync(
		file,
		[
			"export default function (pi: any) {",
			"\tpi.registerTool({",
			'\t\tname: "odd", label: "Odd", description: "returns something odd",',
			'\t\tparameters: { type: "object", properties: {} },',
			`\t\texecute: async () => (${resultSource}),`,
			"\t});",
			"}",
		].join("\n"),
	);
	const probe = await createHarness();
	const resourceLoader = new DefaultResourceLoader({
		cwd: probe.tempDir,
		agentDir: join(dir, "agent"),
		settingsManager: probe.settingsManager,
		additionalExtensionPaths: [file],
	});
	await resourceLoader.reload();
	probe.cleanup();
	const h = await createHarness({ resourceLoader, persistence });
	cleanups.push(() => h.cleanup());
	expect(h.session.extensionLoadErrors).toEqual([]);
	return h;
}

function toolResults(h: Harness): ToolResultMessage[] {
	return h.session.messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

describe("a tool result that is not one", () => {
	it.each([
		['"deployed"', 'Tool odd returned a string ("deployed") instead of a result'],
		[
			'{ content: "deployed" }',
			'Tool odd returned a result whose content is a string ("deployed"), not an array of blocks',
		],
		[
			'{ content: [{ text: "deployed" }] }',
			'Tool odd returned a result whose content[0] has type undefined, not "text" or "image"',
		],
		[
			'{ content: [{ type: "text", text: 42 }] }',
			"Tool odd returned a result whose content[0] is a text block whose text is a number (42), not a string",
		],
		[
			'{ content: [{ type: "image", data: null, mimeType: "image/png" }] }',
			"Tool odd returned a result whose content[0] is an image block without string data and mimeType",
		],
		["undefined", "Tool odd returned no result"],
	])("execute resolving to %s ends the call with an error saying what to return", async (source, expected) => {
		const h = await sessionWithExtensionTool(source);
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("odd", {})], { stopReason: "toolUse" }),
			() => fauxAssistantMessage("after the tool"),
			() => fauxAssistantMessage("next prompt"),
		]);
		await h.session.prompt("go");
		const [end] = h.eventsOfType("tool_execution_end");
		expect(end).toMatchObject({ toolName: "odd", isError: true });
		expect(end!.result.content).toEqual([{ type: "text", text: `${expected}: ${TOOL_RESULT_SHAPE}` }]);
		// The session is not poisoned: the request after the tool and the next prompt are answered.
		await h.session.prompt("again");
		const answers = h.session.messages.filter((message) => message.role === "assistant").slice(-2);
		expect(answers.map((message) => [message.stopReason, message.errorMessage])).toEqual([
			["stop", undefined],
			["stop", undefined],
		]);
		expect(toolResults(h).map((message) => message.isError)).toEqual([true]);
	});

	it("a long string returned instead of a result is quoted cut before an emoji, never between its halves, in the session file", async () => {
		// The quote keeps 40 characters; the 40th is the first half of the emoji.
		const h = await sessionWithExtensionTool(`"${"d".repeat(39)}\u{1F680} deployed to production"`, "disk");
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("odd", {})], { stopReason: "toolUse" }),
			() => fauxAssistantMessage("after the tool"),
		]);
		await h.session.prompt("go");
		const written = readFileSync(h.sessionManager.getSessionFile()!, "utf8");
		expect(written).not.toMatch(/\\ud83d/i);
		const results = written
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { message?: ToolResultMessage })
			.flatMap((entry) => (entry.message?.role === "toolResult" ? [entry.message] : []));
		expect(results.map((message) => message.content)).toEqual([
			[
				{
					type: "text",
					text: `Tool odd returned a string (${JSON.stringify(`${"d".repeat(39)}…`)}) instead of a result: ${TOOL_RESULT_SHAPE}`,
				},
			],
		]);
	});

	it("well-formed results pass unchanged: text and image blocks, missing content (empty), isError kept", async () => {
		const h = await sessionWithExtensionTool(
			'{ content: [{ type: "text", text: "a" }, { type: "image", data: "AAAA", mimeType: "image/png" }], details: { n: 1 }, isError: true }',
		);
		h.setResponses([
			fauxAssistantMessage([fauxToolCall("odd", {})], { stopReason: "toolUse" }),
			() => fauxAssistantMessage("ok"),
		]);
		await h.session.prompt("go");
		expect(toolResults(h)).toMatchObject([
			{
				isError: true,
				details: { n: 1 },
				content: [
					{ type: "text", text: "a" },
					{ type: "image", data: "AAAA", mimeType: "image/png" },
				],
			},
		]);
		expect(toolResultProblem({ details: {} })).toBeUndefined();
		expect(toolResultProblem({ content: [] })).toBeUndefined();
	});

	it("property: whatever execute resolves to, the persisted tool result has well-formed content blocks", async () => {
		const block = fc.oneof(
			fc.record({ type: fc.constant("text"), text: fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)) }),
			fc.record({ type: fc.constant("image"), data: fc.oneof(fc.string(), fc.constant(null)), mimeType: fc.string() }),
			fc.record({ type: fc.string(), text: fc.string() }),
			fc.anything(),
		);
		const value = fc.oneof(
			fc.record({ content: fc.array(block, { maxLength: 3 }) }, { requiredKeys: [] }),
			fc.record({ content: fc.anything() }),
			fc.anything(),
		);
		const h = await createHarness({
			extensionFactories: [
				(pi) =>
					pi.registerTool({
						name: "odd",
						label: "Odd",
						description: "returns the value under test",
						parameters: { type: "object", properties: {} },
						execute: async () => (globalThis as { oddResult?: unknown }).oddResult as never,
					}),
			],
		});
		cleanups.push(() => h.cleanup());
		const wellFormed = (content: unknown) =>
			Array.isArray(content) &&
			content.every(
				(item) =>
					(item?.type === "text" && typeof item.text === "string") ||
					(item?.type === "image" && typeof item.data === "string" && typeof item.mimeType === "string"),
			);
		await fc.assert(
			fc.asyncProperty(value, async (result) => {
				(globalThis as { oddResult?: unknown }).oddResult = result;
				h.setResponses([
					fauxAssistantMessage([fauxToolCall("odd", {})], { stopReason: "toolUse" }),
					() => fauxAssistantMessage("ok"),
				]);
				await h.session.prompt("go");
				const last = toolResults(h).at(-1)!;
				expect(wellFormed(last.content)).toBe(true);
				// Rejected exactly when the checker names a problem; a valid result's content is kept as it was.
				if (toolResultProblem(result) !== undefined) expect(last.isError).toBe(true);
				else expect(last.content).toEqual((result as { content?: unknown }).content ?? []);
				expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
			}),
			{ numRuns: 60 },
		);
		delete (globalThis as { oddResult?: unknown }).oddResult;
	});
});
