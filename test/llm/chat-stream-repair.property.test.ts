/**
 * `repairedChatStream` over generated tool-call streams cut at random byte boundaries: a stream
 * numbered as OpenAI numbers it comes out byte for byte, and Ollama's whole calls at index 0, with
 * or without ids, come out one call per index with their own arguments.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { repairedChatStream } from "../../src/llm/chat-stream-repair.js";

type Call = { index: number; id?: string; type?: string; function: { name?: string; arguments: string } };

const line = (calls: Call[], finish: string | null = null) =>
	`data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: calls }, finish_reason: finish }] })}\n\n`;
const END = `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })}\n\ndata: [DONE]\n\n`;

/** `body` through the repair, handed over in pieces ending at `cuts` (byte offsets). */
async function repaired(body: string, cuts: number[]): Promise<string> {
	const bytes = new TextEncoder().encode(body);
	const ends = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
	const source = new ReadableStream<Uint8Array>({
		start(controller) {
			let at = 0;
			for (const end of [...ends, bytes.length]) {
				if (end > at) controller.enqueue(bytes.slice(at, end));
				at = Math.max(at, end);
			}
			controller.close();
		},
	});
	return new Response(repairedChatStream(source)).text();
}

/** The calls a client that joins deltas by index reads from `text`: id, name and arguments per index. */
function callsRead(text: string): { id: string; name: string; arguments: string }[] {
	const calls: { id: string; name: string; arguments: string }[] = [];
	for (const l of text.split("\n")) {
		if (!l.startsWith("data: {")) continue;
		const chunk = JSON.parse(l.slice(6)) as { choices?: { delta: { tool_calls?: Call[] } }[] };
		for (const delta of chunk.choices?.[0]?.delta.tool_calls ?? []) {
			calls[delta.index] ??= { id: "", name: "", arguments: "" };
			const call = calls[delta.index]!;
			call.id ||= delta.id ?? "";
			call.name ||= delta.function.name ?? "";
			call.arguments += delta.function.arguments;
		}
	}
	return calls;
}

const names = fc.constantFrom("bash", "read", "write", "edit");
const args = fc.dictionary(
	fc.constantFrom("path", "command", "content", "offset"),
	fc.oneof(fc.string(), fc.integer()),
	{
		minKeys: 1,
	},
);
const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe("repairedChatStream over generated streams", () => {
	it("a stream with one call per index, ids on the first delta, arguments in any pieces, comes out byte for byte at any cut", async () => {
		const stream = fc
			.array(fc.record({ name: names, args, splits: fc.array(fc.nat(), { maxLength: 6 }) }), {
				minLength: 1,
				maxLength: 4,
			})
			.map((calls) =>
				calls.flatMap(({ name, args: value, splits }, index) => {
					const json = JSON.stringify(value);
					const at = [...new Set(splits.map((s) => s % json.length))].sort((a, b) => a - b);
					const pieces = [0, ...at]
						.map((start, i) => json.slice(start, [...at, json.length][i]))
						.filter((p) => p !== "");
					return [
						line([{ index, id: `call_${index}x`, type: "function", function: { name, arguments: "" } }]),
						...pieces.map((piece) => line([{ index, function: { arguments: piece } }])),
					];
				}),
			);
		await fc.assert(
			fc.asyncProperty(stream, cuts, async (lines, at) => {
				const body = lines.join("") + END;
				expect(await repaired(body, at)).toBe(body);
			}),
			{ numRuns: 300 },
		);
	});

	it("ollama#15457: whole calls all at index 0, with or without ids, are read as one call each, with their own arguments, at any cut", async () => {
		const calls = fc.array(fc.record({ name: names, args, withId: fc.boolean() }), { minLength: 1, maxLength: 4 });
		await fc.assert(
			fc.asyncProperty(calls, cuts, async (sent, at) => {
				const body =
					sent
						.map(({ name, args: value, withId }, i) =>
							line([
								{
									index: 0,
									...(withId ? { id: `call_${i}o` } : {}),
									type: "function",
									function: { name, arguments: JSON.stringify(value) },
								},
							]),
						)
						.join("") + END;
				const read = callsRead(await repaired(body, at));
				expect(read.map(({ name, arguments: a }) => ({ name, args: JSON.parse(a) }))).toEqual(
					sent.map(({ name, args: value }) => ({ name, args: value })),
				);
				expect(new Set(read.map((c) => c.id)).size).toBe(sent.length);
				for (const c of read) expect(c.id).toMatch(/^call_/);
			}),
			{ numRuns: 300 },
		);
	});
});
