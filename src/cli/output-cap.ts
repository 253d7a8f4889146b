/**
 * What `settle -p` (stderr) and `settle -i` (a chat notice) say when an answer stopped at its
 * output token cap (`stopReason: "length"`, not a full context: that one is compacted and
 * continued): it is cut short, how many tokens it got, and where the cap comes from. pi-ai asks for
 * the model's `maxTokens`, at most 32000 (a thinking budget comes out of the same cap).
 */
import { PI_AI_DEFAULT_MAX_TOKENS } from "../llm/errors.js";
import type { AssistantMessage, Model } from "../llm/types.js";

/**
 * The sentence for an answer cut at the output cap; `thinkingLevel` names how the user lowers the
 * thinking level where they are (`--thinking` on the command line, `/thinking` in the chat).
 */
export function outputCapText(last: AssistantMessage, model: Model | undefined, thinkingLevel: string): string {
	const tokens = last.usage?.output ? ` after ${last.usage.output} tokens` : "";
	const text = last.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	const where = text ? "" : " before any text";
	const thinking = last.content.some((block) => block.type === "thinking")
		? `; thinking spends the same tokens: a lower ${thinkingLevel} level leaves more for the answer`
		: "";
	const of = model ? ` of ${model.provider}/${model.id} (${model.maxTokens})` : "";
	const raise =
		model && model.maxTokens > 0 && model.maxTokens < PI_AI_DEFAULT_MAX_TOKENS
			? ': raise it in models.json ("modelOverrides" for a built-in provider\'s model)'
			: `, of which a request asks for at most ${PI_AI_DEFAULT_MAX_TOKENS} (plus a thinking budget): ask for a shorter answer, or one in parts`;
	const cap = `The cap comes from the "maxTokens"${of}${raise}`;
	return `the answer stopped at the output token limit${tokens}${where}: it is cut short. ${cap}${thinking}.`;
}
