/**
 * Settle's faux provider against pi-ai 0.73.1's `registerFauxProvider` (H.1), on the same request
 * and the same scripted steps: event sequences, final messages byte for byte (`JSON.stringify`, so
 * key order counts: it is what a session file stores), usage estimates and the prompt cache.
 * Normalized: the provider's `api` id (pi-ai's is random per registration) and the random part of a
 * default tool-call id (pi-ai: `tool:<ms>:<random>`, Settle: `tool:<ms>:<counter>`).
 */
import * as piAi from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import * as settle from "../../src/llm/faux.js";
import type { Context } from "../../src/llm/types.js";

type Builders = Pick<typeof settle, "fauxAssistantMessage" | "fauxText" | "fauxThinking" | "fauxToolCall">;
interface Side {
	builders: Builders;
	setResponses(steps: unknown[]): void;
	stream(options?: Record<string, unknown>): AsyncIterable<{ type: string; delta?: string }> & {
		result(): Promise<Record<string, unknown>>;
	};
	cleanup(): void;
}

const context = {
	systemPrompt: "You are a test assistant.",
	messages: [{ role: "user", content: "hello there friend", timestamp: 1 }],
	tools: [],
} as unknown as Context;

function piSide(): Side {
	const faux = piAi.registerFauxProvider({ provider: "faux", tokenSize: { min: 1, max: 1 } });
	const model = faux.getModel();
	return {
		builders: piAi as unknown as Builders,
		setResponses: (steps) => faux.setResponses(steps as never),
		stream: (options = {}) => piAi.streamSimple(model, context as never, options) as never,
		cleanup: () => faux.unregister(),
	};
}

function settleSide(): Side {
	const faux = settle.createFauxProvider({ tokenSize: { min: 1, max: 1 } });
	const model = faux.getModel()!;
	return {
		builders: settle,
		setResponses: (steps) => faux.setResponses(steps as never),
		stream: (options = {}) => faux.streamFn(model, context, options) as never,
		cleanup: () => {},
	};
}

/** The events and the final message as one string (keys in their order). */
async function played(stream: ReturnType<Side["stream"]>): Promise<string> {
	const events: string[] = [];
	for await (const event of stream)
		events.push(event.delta !== undefined ? `${event.type}:${event.delta}` : event.type);
	const final = await stream.result();
	const content = (final.content as Record<string, unknown>[]).map((block) =>
		block.type === "toolCall" ? { ...block, id: String(block.id).replace(/^tool:\d+:.*$/, "tool:<ms>:<n>") } : block,
	);
	return JSON.stringify({ events, final: { ...final, api: "<api>", timestamp: "<t>", content } });
}

type Case = (side: Side) => Promise<unknown>;

async function onBoth(scenario: Case): Promise<{ pi: unknown; settle: unknown }> {
	const results: Record<string, unknown> = {};
	for (const [name, make] of [
		["pi", piSide],
		["settle", settleSide],
	] as const) {
		const side = make();
		try {
			results[name] = await scenario(side);
		} finally {
			side.cleanup();
		}
	}
	return results as { pi: unknown; settle: unknown };
}

describe("faux provider: the same as pi-ai 0.73.1's", () => {
	it("a thinking + text + tool call reply: events, message and usage", async () => {
		const { pi, settle: ours } = await onBoth(async (side) => {
			const b = side.builders;
			side.setResponses([
				b.fauxAssistantMessage(
					[b.fauxThinking("think hard"), b.fauxText("Hello world"), b.fauxToolCall("echo", { a: 1 })],
					{
						stopReason: "toolUse",
					},
				),
			]);
			return played(side.stream());
		});
		expect(ours).toEqual(pi);
	});

	it("failures: an empty queue (usage estimated), a throwing factory (no usage), scripted error and aborted replies", async () => {
		const { pi, settle: ours } = await onBoth(async (side) => {
			const b = side.builders;
			const out = [await played(side.stream())];
			side.setResponses([
				() => {
					throw new Error("boom");
				},
				b.fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error" }),
				b.fauxAssistantMessage("partial", { stopReason: "aborted", errorMessage: "stopped" }),
			]);
			for (let i = 0; i < 3; i++) out.push(await played(side.stream()));
			return out;
		});
		expect(ours).toEqual(pi);
	});

	it("an abort before the start and one mid-stream: pi's text, the content streamed so far, errorMessage before timestamp", async () => {
		const { pi, settle: ours } = await onBoth(async (side) => {
			const b = side.builders;
			const before = new AbortController();
			before.abort();
			side.setResponses([b.fauxAssistantMessage("never"), b.fauxAssistantMessage("one two three four five six")]);
			const out = [await played(side.stream({ signal: before.signal }))];
			const mid = new AbortController();
			const stream = side.stream({ signal: mid.signal });
			const events: string[] = [];
			for await (const event of stream) {
				events.push(event.type);
				if (event.type === "text_delta" && events.filter((type) => type === "text_delta").length === 2) mid.abort();
			}
			const final = await stream.result();
			out.push(JSON.stringify({ events, final: { ...final, api: "<api>", timestamp: "<t>" } }));
			return out;
		});
		expect(ours).toEqual(pi);
	});

	it("the prompt cache of a session: a throwing factory leaves it alone", async () => {
		const { pi, settle: ours } = await onBoth(async (side) => {
			const b = side.builders;
			const out: string[] = [];
			side.setResponses([
				() => {
					throw new Error("boom");
				},
				b.fauxAssistantMessage("ok"),
				b.fauxAssistantMessage("ok"),
			]);
			for (let i = 0; i < 3; i++) out.push(await played(side.stream({ sessionId: "s1" })));
			return out;
		});
		expect(ours).toEqual(pi);
	});
});
