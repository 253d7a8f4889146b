// pi 0.73.1's own RPC mode (runRpcMode) on pi-ai's faux provider, driven by test/cli/rpc-differential.property.test.ts.
// Usage: node pi-rpc-differential-peer.mjs <cwd> <agentDir> <sessionDir> <script.json> <settings JSON>
// The script has Settle's `--faux-script` format (test/cli/rpc-differential.helpers.ts mirrors it): one step per
// model call, a string or { text?, thinking?, toolCalls?, stopReason?, errorMessage? }; once it runs out the model
// echoes the last user message, as `settle --faux-script` does.
import { readFileSync } from "node:fs";
import { registerFauxProvider } from "@mariozechner/pi-ai";
import { AuthStorage, ModelRegistry, SettingsManager } from "@mariozechner/pi-coding-agent";
import { echoLastUser, fauxScriptStep } from "./pi-faux-script.mjs";
import { runPiRpc } from "./pi-rpc-runtime.mjs";

const [cwd, agentDir, sessionDir, scriptPath, settingsJson] = process.argv.slice(2);
const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1", name: "Faux Model" }] });

const steps = JSON.parse(readFileSync(scriptPath, "utf8")).map(fauxScriptStep);
// Enough echo steps for any scenario the test generates.
faux.setResponses([...steps, ...Array.from({ length: 500 }, () => echoLastUser)]);
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
