/**
 * Reports about the Anthropic prompt cache across turns, replayed over the wire (pi-ai's real
 * Anthropic client, a local server recording each request body):
 * - pi#1175: a plain-text user message was sent as a string without `cache_control`, so the
 *   conversation was never cached: every request wrote the cache, none read it.
 * - kern-ai#317: parallel tool results each carried a breakpoint; with the system and tool ones a
 *   request held 5 and Anthropic refused it ("A maximum of 4 blocks with cache_control").
 * - FlowDown#273: the request's tool schemas (and key order inside them) changed from turn to turn,
 *   so the cached prefix never matched.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicReply } from "../llm/wire/anthropic.js";
import type { RecordedRequest } from "../llm/wire/server.js";
import { useWireSession } from "../llm/wire/session.js";

const wireSession = useWireSession();

// biome-ignore lint/suspicious/noExplicitAny: request payloads are walked field by field
type Json = any;

/** Every `cache_control` in a request body, by where it sits. */
function breakpoints(body: Json): string[] {
	const found: string[] = [];
	for (const [i, block] of (body.system ?? []).entries()) if (block.cache_control) found.push(`system[${i}]`);
	for (const tool of body.tools ?? []) if (tool.cache_control) found.push(`tool ${tool.name}`);
	for (const [i, message] of body.messages.entries()) {
		if (!Array.isArray(message.content)) continue;
		for (const [j, block] of message.content.entries()) {
			if (block.cache_control) found.push(`messages[${i}].content[${j}]`);
		}
	}
	return found;
}

/** The body with its breakpoints taken out: what the provider's cache matches on. */
function withoutBreakpoints(body: Json): Json {
	return JSON.parse(JSON.stringify(body, (key, value) => (key === "cache_control" ? undefined : value)));
}

/** The JSON text of a request part, key order as sent. */
const bytes = (value: unknown) => JSON.stringify(value);

describe("pi#1175, kern-ai#317, FlowDown#273: the Anthropic cache prefix across turns", () => {
	it("each request marks the system, the tools and the last user message (never more than 4), and extends the previous request byte for byte", async () => {
		const w = await wireSession({ api: "anthropic-messages", settings: { defaultThinkingLevel: "medium" } });
		for (const name of ["a", "b", "c"]) writeFileSync(join(w.dir, `${name}.txt`), `file ${name}\n`);
		const signature = "EqQBCkYIBxgCKkDsig+/==";
		w.server.reply(
			anthropicReply(
				[
					{ type: "thinking", thinking: "Read the three files at once.", signature },
					...["a", "b", "c"].map((name) => ({
						type: "tool_use" as const,
						id: `toolu_${name}`,
						name: "read",
						input: { path: `${name}.txt` },
					})),
				],
				{ stopReason: "tool_use" },
			),
			anthropicReply([{ type: "text", text: "Three files." }]),
			anthropicReply([{ type: "text", text: "Still three." }]),
			anthropicReply([{ type: "text", text: "Yes." }]),
		);
		await w.session.prompt("read a, b and c");
		await w.session.prompt("how many?");
		await w.session.prompt("sure?");
		const bodies = w.server.requests.map((request: RecordedRequest) => request.body);
		expect(bodies).toHaveLength(4);

		// Breakpoints: the system prompt, the last tool, the last block of the last user message.
		for (const body of bodies) {
			const last = body.messages.length - 1;
			const lastBlock = body.messages[last].content.length - 1;
			expect(body.messages[last].role).toBe("user");
			expect(breakpoints(body)).toEqual([
				"system[0]",
				`tool ${body.tools.at(-1).name}`,
				`messages[${last}].content[${lastBlock}]`,
			]);
		}
		// The plain-text prompt (pi#1175) is a block with a breakpoint, not a bare string.
		expect(bodies[2].messages.at(-1).content).toEqual([
			{ type: "text", text: "how many?", cache_control: { type: "ephemeral" } },
		]);
		// Three parallel tool results are one user message, with one breakpoint (kern-ai#317).
		expect(bodies[1].messages[2].content.map((block: Json) => block.type)).toEqual([
			"tool_result",
			"tool_result",
			"tool_result",
		]);

		// System and tools are the same bytes on every request (FlowDown#273).
		for (const body of bodies.slice(1)) {
			expect(bytes(body.system)).toBe(bytes(bodies[0].system));
			expect(bytes(body.tools)).toBe(bytes(bodies[0].tools));
		}
		// Each request's messages start with the previous request's messages, unchanged; the
		// thinking block goes back with its text and signature as the model sent them.
		for (let i = 1; i < bodies.length; i++) {
			const previous = withoutBreakpoints(bodies[i - 1]).messages;
			const current = withoutBreakpoints(bodies[i]).messages;
			expect(bytes(current.slice(0, previous.length))).toBe(bytes(previous));
		}
		expect(bodies[3].messages[1].content[0]).toEqual({
			type: "thinking",
			thinking: "Read the three files at once.",
			signature,
		});
	});
});
