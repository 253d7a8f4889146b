/**
 * Cold-start child for bench/cold-start.ts (compiled to plain JS and run with `node`): imports
 * Settle's package entry and the AgentSession, then creates a session the way an SDK user would
 * (SessionManager on disk in a temp dir, in-memory settings, resource loader without discovery,
 * the faux provider) and prints one JSON line of timings.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as settle from "../../src/index.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { AgentSession } from "../../src/session/agent-session.js";

const importsDoneAt = performance.now();
const rssAfterImportMiB = process.memoryUsage().rss / 1048576;
const dir = mkdtempSync(join(tmpdir(), "settle-cold-start-"));
const faux = settle.createFauxProvider();
const modelRuntime = new InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);
const session = await AgentSession.create({
	sessionManager: settle.SessionManager.create(dir, join(dir, "sessions")),
	settingsManager: settle.SettingsManager.inMemory(),
	resourceLoader: settle.createTestResourceLoader(),
	modelRuntime,
	cwd: dir,
	model: faux.getModel(),
});
await session.bindExtensions();
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
session.sessionManager.close();
rmSync(dir, { recursive: true, force: true });
