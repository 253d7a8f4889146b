/**
 * Invariants of the interactive mode's printing and questions, on random inputs: a tool call is
 * always one line of its own whatever streamed before it, plain output never carries an escape
 * code, compact arguments stay on one bounded line, and typed lines answer questions in order.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSlashCommand } from "../../src/cli/interactive-commands.js";
import {
	compactArgs,
	createStyle,
	outputLineSafe,
	streamSafe,
	TranscriptPrinter,
} from "../../src/cli/interactive-render.js";
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

	it("regression: a model's answer or a tool's output cannot drive the terminal (OSC 52 clipboard, cursor moves), however the text is split", () => {
		// Text with control characters and escape sequences mixed in, split into random deltas.
		const hostile = fc.string({
			unit: fc.oneof(
				fc.constantFrom("\x1b", "\x07", "\r", "\n", "\t", "\x9b", "\x7f", "\x00", "]52;c;aGk=", "[2J", "[31m"),
				fc.string({ minLength: 1, maxLength: 3 }),
			),
			maxLength: 30,
		});
		const cuts = (text: string) =>
			fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 5 }).map((at) => {
				const points = [0, ...at.filter((i) => i < text.length).sort((a, b) => a - b), text.length];
				return points.slice(1).map((end, index) => text.slice(points[index], end));
			});
		const scenario = fc
			.record({ text: hostile, output: hostile, color: fc.boolean(), thinking: fc.boolean() })
			.chain((base) => cuts(base.text).map((deltas) => ({ ...base, deltas })));
		fc.assert(
			fc.property(scenario, ({ text, output, color, thinking, deltas }) => {
				let printed = "";
				const printer = new TranscriptPrinter((chunk) => {
					printed += chunk;
				}, createStyle(color));
				for (const delta of deltas) {
					const assistantMessageEvent = thinking
						? { type: "thinking_delta", contentIndex: 0, delta, partial }
						: { type: "text_delta", contentIndex: 0, delta, partial };
					printer.handle({ type: "message_update", message, assistantMessageEvent } as AgentSessionEvent);
				}
				printer.handle({
					type: "tool_execution_start",
					toolCallId: "t",
					toolName: "bash",
					args: { command: "cat x" },
				} as AgentSessionEvent);
				printer.handle({
					type: "tool_execution_end",
					toolCallId: "t",
					toolName: "bash",
					result: { content: [{ type: "text", text: output }], details: undefined },
					isError: false,
				} as AgentSessionEvent);
				// Only the printer's own colours (SGR) may remain; no other control character but newline and tab.
				// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
				const withoutStyle = printed.replace(/\x1b\[[0-9;]*m/g, "");
				// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
				expect(withoutStyle).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
				// The answer's text is all there, as one safe text, whatever the split.
				expect(withoutStyle).toContain(
					streamSafe(text)
						.split("\n")
						.find((line) => line !== "") ?? "",
				);
			}),
			{ numRuns: 300 },
		);
		expect(streamSafe("ok\r\n\x1b]52;c;aGk=\x07")).toBe("ok\n␛]52;c;aGk=␇");
		expect(outputLineSafe("\x1b[31mred\x1b[0m\tdone\x1b]52;c;x\x07")).toBe("red done␛]52;c;x␇");
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
