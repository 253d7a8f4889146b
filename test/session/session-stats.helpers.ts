/**
 * Opens a session file with Settle's `AgentSession` and with pi 0.73.1's own (in-process, pi-ai's
 * faux provider, nothing read from ~/.pi) and returns what each `getSessionStats()` says, for the
 * session-stats tests. Each side gets its own copy: opening an old-format file migrates it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerFauxProvider } from "@mariozechner/pi-ai";
import * as pi from "@mariozechner/pi-coding-agent";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import type { Model } from "../../src/llm/types.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { AgentSession } from "../../src/session/agent-session.js";
import type { SessionStats, UsageTotals } from "../../src/session/session-stats.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";

/**
 * The fields both products compute alike (`sessionFile` names each side's copy; `contextUsage` its
 * model; `byModel` is Settle's own, checked in session-stats-by-model.property.test.ts;
 * DELIBERATE_CUMULATIVE_USAGE: `cumulative` is Settle's own too, checked in
 * session-stats-cumulative.property.test.ts).
 */
export type ComparableStats = Omit<SessionStats, "sessionFile" | "contextUsage" | "byModel" | "cumulative">;

export function comparable(stats: SessionStats): ComparableStats {
	const { sessionFile: _file, contextUsage: _usage, byModel: _byModel, cumulative: _cumulative, ...rest } = stats;
	return rest;
}

/** A model that is never asked anything: the stats tests only open sessions. */
export function idleModel(id = "idle-1"): Model {
	return {
		id,
		name: id,
		api: "idle-api",
		provider: "idle",
		baseUrl: "http://localhost",
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 200_000,
		maxTokens: 8192,
	};
}

/** Settle's `getSessionStats()` for the session in `file` (opened in place). */
export async function settleStatsOf(file: string, model: Model = idleModel()): Promise<SessionStats> {
	const sessionManager = SessionManager.open(file);
	const session = await AgentSession.create({
		sessionManager,
		settingsManager: SettingsManager.inMemory(),
		resourceLoader: createTestResourceLoader(),
		modelRuntime: new InMemoryModelRuntime([
			{
				provider: model.provider,
				models: [model],
				requiresAuth: false,
				streamFn: () => {
					throw new Error("the stats tests send no request");
				},
			},
		]),
		cwd: sessionManager.getCwd(),
		model,
		thinkingLevel: "off",
	});
	try {
		return session.getSessionStats();
	} finally {
		session.dispose();
		sessionManager.close();
	}
}

/** pi 0.73.1's `getSessionStats()` for the session in `file` (opened in place). */
export async function piStatsOf(file: string): Promise<SessionStats> {
	const root = mkdtempSync(join(tmpdir(), "settle-stats-pi-"));
	const agentDir = join(root, "agent");
	mkdirSync(agentDir);
	const faux = registerFauxProvider({ provider: "faux", models: [{ id: "faux-1" }] });
	try {
		const authStorage = pi.AuthStorage.inMemory();
		authStorage.setRuntimeApiKey("faux", "offline");
		const settingsManager = pi.SettingsManager.inMemory({});
		const resourceLoader = new pi.DefaultResourceLoader({
			cwd: root,
			agentDir,
			settingsManager,
			noExtensions: true,
			noSkills: true,
			noPromptTemplates: true,
			noThemes: true,
			noContextFiles: true,
		});
		await resourceLoader.reload();
		const { session } = await pi.createAgentSession({
			cwd: root,
			agentDir,
			model: faux.getModel("faux-1"),
			authStorage,
			modelRegistry: pi.ModelRegistry.inMemory(authStorage),
			settingsManager,
			resourceLoader,
			sessionManager: pi.SessionManager.open(file, undefined, root),
		});
		try {
			return session.getSessionStats() as SessionStats;
		} finally {
			session.dispose();
		}
	} finally {
		faux.unregister();
		rmSync(root, { recursive: true, force: true });
	}
}

/** Copies `file` into `dir` twice (one copy per product) and returns both paths. */
export function twoCopies(file: string, dir: string, name: string): { pi: string; settle: string } {
	const copies = { pi: join(dir, `${name}.pi.jsonl`), settle: join(dir, `${name}.settle.jsonl`) };
	copyFileSync(file, copies.pi);
	copyFileSync(file, copies.settle);
	return copies;
}

/** The oracle: the billed usage of every line of the file (assistant and tool-result messages, usage, compaction and branch summary entries). */
export function billedInFile(file: string): UsageTotals {
	const totals: UsageTotals = { tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, cost: 0 };
	for (const line of readFileSync(file, "utf8").split("\n")) {
		if (!line) continue;
		const entry = JSON.parse(line);
		const billed =
			entry.type === "message"
				? entry.message.role === "assistant" || entry.message.role === "toolResult"
					? entry.message.usage
					: undefined
				: ["usage", "compaction", "branch_summary"].includes(entry.type)
					? entry.usage
					: undefined;
		if (!billed) continue;
		totals.tokens.input += billed.input;
		totals.tokens.output += billed.output;
		totals.tokens.cacheRead += billed.cacheRead;
		totals.tokens.cacheWrite += billed.cacheWrite;
		totals.tokens.total += billed.input + billed.output + billed.cacheRead + billed.cacheWrite;
		totals.cost += billed.cost.total;
	}
	return totals;
}
