// pi 0.73.1's own CLI (dist/main.js `main`) with pi-ai's faux provider as its model, for the CLI
// differential (test/cli/pi-differential-process.property.test.ts). The faux model answers like
// `settle --faux-script <file>`: the script's steps (Settle's script format, read from the file
// named by PI_DIFF_SCRIPT), then it echoes the last user message. The model is registered by an
// inline extension (pi's `extensionFactories`); the agent dir's settings.json selects it.
// Usage: PI_CODING_AGENT_DIR=<dir> PI_DIFF_SCRIPT=<file.json> node pi-diff-peer.mjs <pi arguments…>
import { readFileSync } from "node:fs";
import { registerFauxProvider } from "@mariozechner/pi-ai";
import { main } from "../../node_modules/@mariozechner/pi-coding-agent/dist/main.js";
import { echoLastUser, fauxScriptStep } from "./pi-faux-script.mjs";

const faux = registerFauxProvider({ api: "faux", provider: "faux", models: [{ id: "faux-1", name: "Faux Model" }] });

const script = process.env.PI_DIFF_SCRIPT ? JSON.parse(readFileSync(process.env.PI_DIFF_SCRIPT, "utf8")) : [];
faux.setResponses([...script.map(fauxScriptStep), ...Array.from({ length: 32 }, () => echoLastUser)]);

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
