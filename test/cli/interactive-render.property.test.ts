/**
 * Invariants of the interactive mode's printing and questions, on random inputs: a tool call is
 * always one line of its own whatever streamed before it, plain output never carries an escape
 * code, compact arguments stay on one bounded line, and typed lines answer questions in order.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSlashCommand } from "../../src/cli/interactive-commands.js";
import { compactArgs, createStyle, TranscriptPrinter } from "../../src/cli/interactive-render.js";
import { LineQuestions } from "../../src/cli/interactive-ui.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import type { AgentSessionEvent } from "../../src/session/events.js";

const ESC = String.fromCharCode(27);

const partial = { role: "assistant", content: [] } as unknown as AssistantMessage;
const message = partial;

/** A random streamed event: text or thinking deltas, or a whole tool call with its result. */
const streamEvent: fc.Arbitrary<AgentSessionEvent[]> = fc.oneof(
	fc.string({ maxLength: 12 }).map((delta) => [
		{
			type: "message_update",
			message,
			assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial },
		} as AgentSessionEvent,
	]),
	fc.string({ maxLength: 12 }).map((delta) => [
		{
			type: "message_update",
			message,
			assistantMessageEvent: { type: "thinking_delta", contentIndex: 0, delta, partial },
		} as AgentSessionEvent,
	]),
	fc
		.record({ command: fc.string({ maxLength: 30 }), output: fc.string({ maxLength: 40 }), isError: fc.boolean() })
		.map(({ command, output, isError }) => [
			{ type: "tool_execution_start", toolCallId: "t", toolName: "bash", args: { command } } as AgentSessionEvent,
			{
				type: "tool_execution_end",
				toolCallId: "t",
				toolName: "bash",
				result: { content: [{ type: "text", text: output }], details: undefined },
				isError,
			} as AgentSessionEvent,
		]),
);

describe("interactive printing (properties)", () => {
	it("each tool call starts a line of its own, and plain output has no escape codes", () => {
		fc.assert(
			fc.property(fc.array(streamEvent, { maxLength: 12 }), (groups) => {
				let output = "";
				const printer = new TranscriptPrinter((text) => {
					output += text;
				}, createStyle(false));
				for (const event of groups.flat()) printer.handle(event);
				expect(output).not.toContain(ESC);
				const calls = groups.flat().filter((event) => event.type === "tool_execution_start").length;
				expect(output.split("\n").filter((line) => line.startsWith("→ bash")).length).toBe(calls);
			}),
			{ numRuns: 200 },
		);
	});

	it("compact arguments are one line of at most 160 characters and never throw", () => {
		fc.assert(
			fc.property(fc.jsonValue({ maxDepth: 3 }), (args) => {
				const text = compactArgs(args);
				expect(text).not.toContain("\n");
				expect(text.length).toBeLessThanOrEqual(160);
			}),
			{ numRuns: 300 },
		);
	});

	it("a slash command keeps its arguments as typed (trimmed); other lines are not commands", () => {
		fc.assert(
			fc.property(fc.stringMatching(/^[a-z][a-z0-9:-]{0,10}$/), fc.string({ maxLength: 20 }), (name, args) => {
				expect(parseSlashCommand(`/${name} ${args}`)).toEqual({ name, args: args.trim() });
				expect(parseSlashCommand(`${name} /${args}`)).toBeUndefined();
			}),
			{ numRuns: 200 },
		);
	});

	it("typed lines answer questions first come, first served; each question is shown once it is first in line", async () => {
		await fc.assert(
			fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (count) => {
				const shown: string[] = [];
				const questions = new LineQuestions((text) => shown.push(text));
				const answers = Array.from({ length: count }, (_, index) => questions.ask(`q${index}`));
				expect(shown).toEqual(["q0"]);
				for (let index = 0; index < count; index++) expect(questions.answer(`a${index}`)).toBe(true);
				expect(await Promise.all(answers)).toEqual(Array.from({ length: count }, (_, index) => `a${index}`));
				expect(shown).toEqual(Array.from({ length: count }, (_, index) => `q${index}`));
				expect(questions.answer("nobody asked")).toBe(false);
			}),
			{ numRuns: 20 },
		);
	});
});
