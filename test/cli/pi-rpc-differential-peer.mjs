// pi 0.73.1's own RPC mode (runRpcMode) on pi-ai's faux provider, driven by test/cli/rpc-differential.property.test.ts.
// Usage: node pi-rpc-differential-peer.mjs <cwd> <agentDir> <sessionDir> <script.json> <settings JSON>
// The script has Settle's `--faux-script` format (test/cli/rpc-differential.helpers.ts mirrors it): one step per
// model call, a string or { text?, thinking?, toolCalls?, stopReason?, errorMessage? }; once it runs out the model
// echoes the last user message, as `settle --faux-script` does.
import { readFileSync } from "node:fs";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";
import { AuthStorage, ModelRegistry, SettingsManager } from "@mariozechner/pi-coding-agent";
import { runPiRpc } from "./pi-rpc-runtime.mjs";

const [cwd, agentDir, sessionDir, scriptPath, settingsJson] = process.argv.slice(2);
const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1", name: "Faux Model" }] });

function toStep(step) {
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
		...(step.errorMessage !== undefined ? { errorMessage: step.errorMessage } : {}),
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

const steps = JSON.parse(readFileSync(scriptPath, "utf8")).map(toStep);
// Enough echo steps for any scenario the test generates.
faux.setResponses([...steps, ...Array.from({ length: 500 }, () => echo)]);
const authStorage = AuthStorage.inMemory();
authStorage.setRuntimeApiKey("faux", "offline");
const modelRegistry = ModelRegistry.inMemory(authStorage);
// The faux model in the registry too, so that get_available_models / set_model / cycle_model see it (as Settle's).
const { id, name, reasoning, input, cost, contextWindow, maxTokens, baseUrl } = faux.getModel();
modelRegistry.registerProvider("faux", {
	api: faux.api,
	baseUrl,
	apiKey: "offline",
	models: [{ id, name, reasoning, input, cost, contextWindow, maxTokens }],
});
// The settings Settle gets in settings.json: compaction.keepRecentTokens small enough that a manual compact has
// something to summarize after two exchanges, and the scenario's retry backoff.
const settingsManager = SettingsManager.inMemory(JSON.parse(settingsJson));
await runPiRpc({ cwd, agentDir, sessionDir, authStorage, settingsManager, modelRegistry, model: faux.getModel() });
