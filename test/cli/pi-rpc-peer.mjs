// pi 0.73.1's own RPC mode (runRpcMode) on pi-ai's faux provider, for test/cli/rpc-parity.test.ts.
// Usage: node pi-rpc-peer.mjs <cwd> <agentDir> <sessionDir> <replies.json>   (replies: strings, then echo)
import { readFileSync } from "node:fs";
import { fauxAssistantMessage, registerFauxProvider } from "@mariozechner/pi-ai";
import { AuthStorage, ModelRegistry, SettingsManager } from "@mariozechner/pi-coding-agent";
import { runPiRpc } from "./pi-rpc-runtime.mjs";

const [cwd, agentDir, sessionDir, repliesPath] = process.argv.slice(2);
const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1", name: "Faux Model" }] });
faux.setResponses(JSON.parse(readFileSync(repliesPath, "utf8")).map((text) => fauxAssistantMessage(text)));
const authStorage = AuthStorage.inMemory();
authStorage.setRuntimeApiKey("faux", "offline");
const modelRegistry = ModelRegistry.inMemory(authStorage);
const settingsManager = SettingsManager.inMemory({});
await runPiRpc({ cwd, agentDir, sessionDir, authStorage, settingsManager, modelRegistry, model: faux.getModel() });
