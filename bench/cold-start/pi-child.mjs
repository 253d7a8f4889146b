// Cold-start child for bench/cold-start.ts: pi 0.73.1 imported from its package entry, an offline
// AgentSession created as ../shared/peers/pi-npm/harness.mjs does, then a first prompt (one `read`
// tool call, then a text reply). Prints one JSON line: time since process start and RSS per step.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";
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
const faux = registerFauxProvider({ provider: "faux", tokenSize: { min: 1_000_000, max: 1_000_000 } });
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
const cpu = process.cpuUsage();
const rssAfterCreateMiB = process.memoryUsage().rss / 1048576;

writeFileSync(join(cwd, "notes.txt"), "cold start\n");
faux.setResponses([
	fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
	fauxAssistantMessage("done"),
]);
await session.prompt("Read notes.txt");
const promptSettledAt = performance.now();
const messages = session.messages;
if (messages.at(-1)?.role !== "assistant" || messages.filter((m) => m.role === "toolResult").length !== 1) {
	throw new Error(`first prompt did not run a tool turn and a reply: ${JSON.stringify(messages)}`);
}
process.stdout.write(
	`${JSON.stringify({
		importsDoneMs: importsDoneAt,
		sessionCreatedMs: createdAt,
		firstPromptSettledMs: promptSettledAt,
		cpuToSessionCreatedMs: (cpu.user + cpu.system) / 1000,
		rssAfterImportMiB,
		rssAfterCreateMiB,
		rssAfterFirstPromptMiB: process.memoryUsage().rss / 1048576,
		tools: session.getActiveToolNames().length,
	})}\n`,
);
session.dispose();
rmSync(root, { recursive: true, force: true });
