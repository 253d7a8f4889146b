/**
 * Tool names a model writes with a namespace in front. OpenAI's GPT-5 models, trained on Codex's
 * transcripts, call `functions.read` where the tool is `read` (Codex's harness puts tools under
 * the `functions` namespace); every call was refused "Tool functions.read not found" (maki#505).
 */
import type { AssistantMessage } from "../llm/types.js";

const NAMESPACE = "functions.";

/**
 * `message` with each tool call named `functions.<tool>` renamed `<tool>`, when `<tool>` is one of
 * `tools` and the whole name is not: the call runs, and the saved answer names the tool as the
 * model was told it (no later request replays a name the provider did not declare). Any other name
 * is left as it is. The same message when nothing is renamed.
 *
 * @example
 * ```ts
 * const answer = fauxAssistantMessage([fauxToolCall("functions.read", { path: "a.txt" })]);
 * const named = withNamespacedToolNames(answer, [{ name: "read" }, { name: "bash" }]);
 * expect(named.content[0]).toMatchObject({ type: "toolCall", name: "read" });
 * ```
 */
export function withNamespacedToolNames(
	message: AssistantMessage,
	tools: readonly { name: string }[] | undefined,
): AssistantMessage {
	let content: AssistantMessage["content"] | undefined;
	for (const [index, block] of message.content.entries()) {
		if (block.type !== "toolCall" || !block.name.startsWith(NAMESPACE)) continue;
		const bare = block.name.slice(NAMESPACE.length);
		if (!tools?.some((tool) => tool.name === bare) || tools.some((tool) => tool.name === block.name)) continue;
		content ??= [...message.content];
		content[index] = { ...block, name: bare };
	}
	return content ? { ...message, content } : message;
}
