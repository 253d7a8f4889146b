// Settle's `--faux-script` format for pi-ai's faux provider, shared by the pi peers of the CLI and RPC
// differentials: a step is a string or { text?, thinking?, toolCalls?, stopReason?, errorMessage? }; once
// the script runs out the model echoes the last user message, as `settle --faux-script` does.
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "@mariozechner/pi-ai";

/** One scripted step as pi-ai's faux assistant message. */
export function fauxScriptStep(step) {
	if (typeof step === "string") return fauxAssistantMessage(step);
	const content = [];
	if (step.thinking !== undefined) content.push(fauxThinking(step.thinking));
	if (step.text !== undefined) content.push(fauxText(step.text));
	for (const call of step.toolCalls ?? []) {
		content.push(fauxToolCall(call.name, call.arguments ?? {}, call.id !== undefined ? { id: call.id } : {}));
	}
	const stopReason = step.stopReason ?? (step.toolCalls?.length ? "toolUse" : "stop");
	return fauxAssistantMessage(content, {
		stopReason,
		...(step.errorMessage !== undefined ? { errorMessage: String(step.errorMessage) } : {}),
	});
}

/** The answer once the script ran out: the last user message's text. */
export function echoLastUser(context) {
	const user = context.messages.findLast((message) => message.role === "user");
	if (!user) return fauxAssistantMessage("(nothing to echo)");
	const text =
		typeof user.content === "string"
			? user.content
			: user.content
					.filter((part) => part.type === "text")
					.map((part) => part.text)
					.join("\n");
	return fauxAssistantMessage(text);
}
