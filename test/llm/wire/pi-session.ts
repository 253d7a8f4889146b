/**
 * pi 0.73.1's own AgentSession (`@mariozechner/pi-coding-agent`) against a {@link WireServer}, to
 * compare with Settle on the same wire. Offline like the peer harness: in-memory auth with a
 * runtime key, in-memory settings, no resource discovery, the JSONL in a temp dir.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	AuthStorage,
	createAgentSession,
	DefaultResourceLoader,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";
import { type Router, startWireServer, type WireServer } from "./server.js";
import { API_KEY, type WireApi, wireModel } from "./session.js";

export interface PiWireSession {
	server: WireServer;
	// biome-ignore lint/suspicious/noExplicitAny: pi's session, driven through its public API only
	session: any;
	dir: string;
	events: { type: string; [key: string]: unknown }[];
	dispose(): Promise<void>;
}

export async function startPiWireSession(options: {
	api: WireApi;
	settings?: Record<string, unknown>;
	route?: Router;
	cwd?: (dir: string) => void;
}): Promise<PiWireSession> {
	const server = await startWireServer(options.route);
	const dir = mkdtempSync(join(tmpdir(), "settle-wire-pi-"));
	const agentDir = join(dir, ".agent");
	mkdirSync(agentDir);
	options.cwd?.(dir);
	const model = wireModel(options.api, server.url);
	const authStorage = AuthStorage.inMemory();
	authStorage.setRuntimeApiKey(model.provider, API_KEY);
	const settingsManager = SettingsManager.inMemory({
		...options.settings,
		// pi's own switch for the SDK's transport retries; Settle's wire sessions force 0 the same way.
		retry: { baseDelayMs: 1, provider: { maxRetries: 0 }, ...(options.settings?.retry as object) },
	});
	const resourceLoader = new DefaultResourceLoader({
		cwd: dir,
		agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir,
		// biome-ignore lint/suspicious/noExplicitAny: Settle's Model is pi-ai's shape
		model: model as any,
		authStorage,
		modelRegistry: ModelRegistry.inMemory(authStorage),
		settingsManager,
		resourceLoader,
		sessionManager: SessionManager.create(dir, join(dir, "sessions")),
	});
	await session.bindExtensions({});
	const events: PiWireSession["events"] = [];
	session.subscribe((event: PiWireSession["events"][number]) => {
		events.push(event);
	});
	return {
		server,
		session,
		dir,
		events,
		dispose: async () => {
			session.dispose();
			await server.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
