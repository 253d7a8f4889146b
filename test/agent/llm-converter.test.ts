import { describe, expect, it, vi } from "vitest";
import { createLlmMessageConverter, defaultConvertMessageToLlm } from "../../src/agent/llm-converter.js";
import type { AgentMessage, Message } from "../../src/llm/types.js";
import { fauxAssistantMessage } from "../../src/testing/index.js";
import { user } from "./helpers.js";

const note = (text: string): AgentMessage => ({
	role: "custom",
	customType: "note",
	content: text,
	display: true,
	timestamp: 1,
});

describe("createLlmMessageConverter", () => {
	it("keeps user/assistant/toolResult by default and drops other roles", () => {
		const convert = createLlmMessageConverter();
		const a = user("a");
		const b = fauxAssistantMessage("b");
		expect(convert([a, note("x"), { role: "system", content: "s", timestamp: 1 }, b])).toEqual([a, b]);
	});

	it("extends one array incrementally, converting only new messages", () => {
		const perMessage = vi.fn(defaultConvertMessageToLlm);
		const convert = createLlmMessageConverter(perMessage);
		const transcript: AgentMessage[] = [user("1"), fauxAssistantMessage("2")];
		const first = convert(transcript);
		transcript.push(user("3"));
		const second = convert(transcript);
		expect(second).toBe(first);
		expect(second).toHaveLength(3);
		expect(perMessage).toHaveBeenCalledTimes(3);
	});

	it("expands one message into several and caches per message across arrays", () => {
		const perMessage = vi.fn((message: AgentMessage): Message | readonly Message[] | undefined =>
			message.role === "custom"
				? [user(`${String(message.content)}-1`), user(`${String(message.content)}-2`)]
				: defaultConvertMessageToLlm(message),
		);
		const convert = createLlmMessageConverter(perMessage);
		const shared = note("n");
		expect(convert([shared]).map((message) => (message.content as { text: string }[])[0]!.text)).toEqual([
			"n-1",
			"n-2",
		]);
		// A reassigned transcript (new array) sharing the message reuses its conversion.
		const rebuilt = convert([shared, user("u")]);
		expect(rebuilt).toHaveLength(3);
		expect(perMessage).toHaveBeenCalledTimes(2);
	});

	it("rebuilds when the transcript was truncated or its last converted element replaced", () => {
		const convert = createLlmMessageConverter();
		const transcript: AgentMessage[] = [user("1"), user("2")];
		convert(transcript);
		transcript.pop();
		expect(convert(transcript)).toHaveLength(1);
		const replacement = user("1b");
		transcript[0] = replacement;
		expect(convert(transcript)).toEqual([replacement]);
	});

	it("rebuilds when a consumer changed the returned array", () => {
		const convert = createLlmMessageConverter();
		const transcript: AgentMessage[] = [user("1")];
		const llm = convert(transcript);
		llm.push(user("intruder"));
		expect(convert(transcript)).toEqual([transcript[0]]);
	});
});
