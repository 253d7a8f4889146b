/**
 * pi 0.73.1's own AgentSessionRuntime on pi-ai's faux provider, no resources: the reference side of
 * the runtime parity tests (the same steps run through Settle's runtime beside it).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { FAUX_KEY } from "../parity/peers.js";

/** The folders a runtime parity test's side works in, under one temp `root` (the caller removes it). */
export interface RuntimeDirs {
	root: string;
	cwd: string;
	agentDir: string;
	sessionDir: string;
}

/** Creates `root` (in the temp folder, named from `prefix`) with its `cwd`, `agent` and `sessions` folders. */
export function makeRuntimeDirs(prefix: string): RuntimeDirs {
	const root = mkdtempSync(join(tmpdir(), prefix));
	const dirs = { root, cwd: join(root, "cwd"), agentDir: join(root, "agent"), sessionDir: join(root, "sessions") };
	for (const dir of [dirs.cwd, dirs.agentDir, dirs.sessionDir]) mkdirSync(dir, { recursive: true });
	return dirs;
}

type PiModel = Parameters<typeof pi.createAgentSessionFromServices>[0]["model"];

/** Creates pi's runtime in `dirs.cwd`, writing sessions to `dirs.sessionDir`; `model` answers every request. */
export async function createPiFauxRuntime(
	dirs: { cwd: string; agentDir: string; sessionDir: string },
	model: PiModel,
	extensionFactories: pi.ExtensionFactory[] = [],
): Promise<pi.AgentSessionRuntime> {
	const authStorage = pi.AuthStorage.inMemory();
	authStorage.setRuntimeApiKey("faux", FAUX_KEY);
	const modelRegistry = pi.ModelRegistry.inMemory(authStorage);
	const settingsManager = pi.SettingsManager.inMemory({});
	const resourceLoaderOptions = {
		extensionFactories,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	};
	const factory: pi.CreateAgentSessionRuntimeFactory = async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
		const services = await pi.createAgentSessionServices({
			cwd,
			agentDir,
			authStorage,
			settingsManager,
			modelRegistry,
			resourceLoaderOptions,
		});
		const result = await pi.createAgentSessionFromServices({
			services,
			sessionManager,
			...(sessionStartEvent ? { sessionStartEvent } : {}),
			model,
			thinkingLevel: "off",
		});
		return { ...result, services, diagnostics: services.diagnostics };
	};
	return pi.createAgentSessionRuntime(factory, {
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		sessionManager: pi.SessionManager.create(dirs.cwd, dirs.sessionDir),
	});
}
