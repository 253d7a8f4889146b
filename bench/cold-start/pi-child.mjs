// Cold-start child for bench/cold-start.ts: pi 0.73.1 imported from its package entry, then an
// offline AgentSession created as ../shared/peers/pi-npm/harness.mjs does. Prints one JSON line.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerFauxProvider } from "@mariozechner/pi-ai";
import {
	AuthStorage,
	createAgentSession,
	DefaultResourceLoader,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";

const importsDoneAt = performance.now();
const rssAfterImportMiB = process.memoryUsage().rss / 1048576;
const root = mkdtempSync(join(tmpdir(), "pi-cold-start-"));
const cwd = join(root, "cwd");
const agentDir = join(root, "agent");
for (const dir of [cwd, agentDir]) mkdirSync(dir, { recursive: true });
const faux = registerFauxProvider({ provider: "faux" });
const authStorage = AuthStorage.inMemory();
authStorage.setRuntimeApiKey("faux", "offline-dummy-key");
const settingsManager = SettingsManager.inMemory({});
const resourceLoader = new DefaultResourceLoader({
	cwd,
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
	cwd,
	agentDir,
	model: faux.getModel(),
	thinkingLevel: "off",
	authStorage,
	modelRegistry: ModelRegistry.inMemory(authStorage),
	settingsManager,
	resourceLoader,
	sessionManager: SessionManager.create(cwd, join(root, "sessions")),
});
await session.bindExtensions({});
const createdAt = performance.now();
process.stdout.write(
	`${JSON.stringify({
		importsDoneMs: importsDoneAt,
		sessionCreatedMs: createdAt,
		rssAfterImportMiB,
		rssAfterCreateMiB: process.memoryUsage().rss / 1048576,
		tools: session.getActiveToolNames().length,
	})}\n`,
);
session.dispose();
rmSync(root, { recursive: true, force: true });
