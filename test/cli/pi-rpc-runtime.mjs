// pi 0.73.1's RPC mode over a runtime whose sessions use the given faux model and services, with
// every resource kind switched off; shared by the RPC peers (pi-rpc-peer.mjs, pi-rpc-differential-peer.mjs).
import {
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	runRpcMode,
	SessionManager,
} from "@mariozechner/pi-coding-agent";

const resourceLoaderOptions = {
	noExtensions: true,
	// Extensions a test loads into pi too (pi's `-ne -e <path>`): a JSON array of paths, none by default.
	additionalExtensionPaths: JSON.parse(process.env.PI_PEER_EXTENSIONS ?? "[]"),
	noSkills: true,
	noPromptTemplates: true,
	noThemes: true,
	noContextFiles: true,
};

/** Runs pi's RPC mode on stdin/stdout until stdin ends; a new session file in `sessionDir`. */
export async function runPiRpc({ cwd, agentDir, sessionDir, authStorage, settingsManager, modelRegistry, model }) {
	const factory = async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
		const services = await createAgentSessionServices({
			cwd,
			agentDir,
			authStorage,
			settingsManager,
			modelRegistry,
			resourceLoaderOptions,
		});
		const result = await createAgentSessionFromServices({
			services,
			sessionManager,
			sessionStartEvent,
			model,
			thinkingLevel: "off",
		});
		return { ...result, services, diagnostics: services.diagnostics };
	};
	const sessionManager = SessionManager.create(cwd, sessionDir);
	await runRpcMode(await createAgentSessionRuntime(factory, { cwd, agentDir, sessionManager }));
}
