/**
 * Cold-start child for bench/cold-start.ts, run with `node`: imports `settle` by package name (the
 * package resolving itself through its `exports`: the `dist/` that `npm run build` made, as an
 * installed package resolves), creates a session the way an SDK user would
 * (SessionManager on disk in a temp dir, in-memory settings, resource loader without discovery,
 * the faux provider), then runs a first prompt (one `read` tool call, then a text reply). Prints one
 * JSON line: time since process start and RSS at each step.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as settle from "settle";

const importsDoneAt = performance.now();
const rssAfterImportMiB = process.memoryUsage().rss / 1048576;
const dir = mkdtempSync(join(tmpdir(), "settle-cold-start-"));
const faux = settle.createFauxProvider({ tokenSize: { min: 1_000_000, max: 1_000_000 } });
const modelRuntime = new settle.InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);
const session = await settle.AgentSession.create({
	sessionManager: settle.SessionManager.create(dir, join(dir, "sessions")),
	settingsManager: settle.SettingsManager.inMemory(),
	resourceLoader: settle.createTestResourceLoader(),
	modelRuntime,
	cwd: dir,
	model: faux.getModel(),
});
await session.bindExtensions();
const createdAt = performance.now();
const cpu = process.cpuUsage();
const rssAfterCreateMiB = process.memoryUsage().rss / 1048576;

writeFileSync(join(dir, "notes.txt"), "cold start\n");
faux.setResponses([
	settle.fauxAssistantMessage([settle.fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
	settle.fauxAssistantMessage("done"),
]);
await session.prompt("Read notes.txt");
const promptSettledAt = performance.now();
const reply = session.messages.at(-1);
if (reply?.role !== "assistant" || session.messages.filter((m) => m.role === "toolResult").length !== 1) {
	throw new Error(`first prompt did not run a tool turn and a reply: ${JSON.stringify(session.messages)}`);
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
session.sessionManager.close();
rmSync(dir, { recursive: true, force: true });
