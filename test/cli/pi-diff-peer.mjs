// pi 0.73.1's own CLI (dist/main.js `main`) with pi-ai's faux provider as its model, for the CLI
// differential (test/cli/pi-differential-process.property.test.ts). The faux model answers like
// `settle --faux-script <file>`: the script's steps (Settle's script format, read from the file
// named by PI_DIFF_SCRIPT), then it echoes the last user message. The model is registered by an
// inline extension (pi's `extensionFactories`); the agent dir's settings.json selects it.
// Usage: PI_CODING_AGENT_DIR=<dir> PI_DIFF_SCRIPT=<file.json> node pi-diff-peer.mjs <pi arguments…>
import { readFileSync } from "node:fs";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";
import { main } from "../../node_modules/@mariozechner/pi-coding-agent/dist/main.js";

const faux = registerFauxProvider({ api: "faux", provider: "faux", models: [{ id: "faux-1", name: "Faux Model" }] });

function toMessage(step) {
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

function echo(context) {
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

const script = process.env.PI_DIFF_SCRIPT ? JSON.parse(readFileSync(process.env.PI_DIFF_SCRIPT, "utf8")) : [];
faux.setResponses([...script.map(toMessage), ...Array.from({ length: 32 }, () => echo)]);

const [model] = faux.models;
const fauxExtension = (pi) => {
	pi.registerProvider("faux", {
		api: "faux",
		baseUrl: model.baseUrl,
		apiKey: "faux-key",
		models: [
			{
				id: model.id,
				name: model.name,
				reasoning: model.reasoning,
				input: model.input,
				cost: model.cost,
				contextWindow: model.contextWindow,
				maxTokens: model.maxTokens,
			},
		],
	});
};

await main(process.argv.slice(2), { extensionFactories: [fauxExtension] });
