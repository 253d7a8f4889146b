/** Message and model builders shared by the recovery and compaction tests. */
import type { AssistantMessage, Model, StopReason, ToolCall, Usage } from "../../src/llm/types.js";
import { emptyUsage } from "../../src/llm/types.js";

export const testModel: Model = {
	id: "test-model",
	name: "Test Model",
	api: "faux:test",
	provider: "faux",
	baseUrl: "http://localhost",
	reasoning: false,
	input: ["text", "image"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 200_000,
	maxTokens: 32_000,
};

export function usage(partial: Partial<Omit<Usage, "cost">> = {}): Usage {
	return { ...emptyUsage(), ...partial };
}

export function assistant(
	options: {
		text?: string;
		stopReason?: StopReason;
		errorMessage?: string;
		usage?: Partial<Omit<Usage, "cost">>;
		toolCalls?: ToolCall[];
		model?: Pick<Model, "provider" | "id">;
		timestamp?: number;
	} = {},
): AssistantMessage {
	const model = options.model ?? testModel;
	return {
		role: "assistant",
		content: [
			...(options.text === undefined ? [] : [{ type: "text" as const, text: options.text }]),
			...(options.toolCalls ?? []),
		],
		api: "faux:test",
		provider: model.provider,
		model: model.id,
		usage: usage(options.usage),
		stopReason: options.stopReason ?? "stop",
		...(options.errorMessage === undefined ? {} : { errorMessage: options.errorMessage }),
		timestamp: options.timestamp ?? 1,
	};
}

export function failed(errorMessage: string, model: Pick<Model, "provider" | "id"> = testModel): AssistantMessage {
	return assistant({ stopReason: "error", errorMessage, model });
}
