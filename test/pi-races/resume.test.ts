/**
 * pi's reports about the state a session carries across a restart, a resume and a switch —
 * the model and thinking level it records (pi#6822, pi#1225) — replayed against Settle on real
 * JSONL files and a real `settings.json`. What the user should see: the session comes back on the
 * model and thinking level it last recorded, and resuming never rewrites the user's defaults.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	createAgentSession,
	createAgentSessionRuntime,
	createAgentSessionRuntimeFactory,
	DefaultResourceLoader,
	InMemoryModelRuntime,
	type Model,
	SessionManager,
	SettingsManager,
} from "../../src/index.js";
import { SimulatedClock } from "../../src/testing/index.js";
import { ManualProvider, readEntries } from "./disk-harness.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "settle-pi-races-resume-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/** The manual provider with a second, reasoning model; `modelIds` lists the model of every request. */
function twoModels() {
	const provider = new ManualProvider();
	const reasoning: Model = { ...provider.model, id: "manual-2", name: "Manual reasoning", reasoning: true };
	const modelIds: string[] = [];
	const modelRuntime = new InMemoryModelRuntime([
		{
			provider: "manual",
			models: [provider.model, reasoning],
			streamFn: (model, context, options) => {
				modelIds.push(model.id);
				return provider.streamFn(model, context, options);
			},
			requiresAuth: false,
		},
	]);
	return { provider, reasoning, modelRuntime, modelIds };
}

/** A session file as pi writes it, `entries` after the header (ids and parents as given). */
function writePiFile(file: string, cwd: string, entries: Record<string, unknown>[]): void {
	const timestamp = "2026-07-19T10:00:00.000Z";
	const header = { type: "session", version: 3, id: "0199ffff-0000-7000-8000-000000000001", timestamp, cwd };
	writeFileSync(
		file,
		`${[header, ...entries.map((e) => ({ timestamp, ...e }))].map((e) => JSON.stringify(e)).join("\n")}\n`,
	);
}

describe("pi#6822: promptless sessions restore the default model over persisted model_change state", () => {
	it("pi#6822: reopening a file that records a model and thinking level but no message yet comes back on them; the first request goes to that model and nothing re-records the default", async () => {
		const dir = tempDir();
		const { provider, modelRuntime, modelIds } = twoModels();
		// pi 0.80.10's file: the session started on the default (manual-1), the user picked manual-2
		// at "high", then quit before sending anything.
		const file = join(dir, "promptless.jsonl");
		writePiFile(file, dir, [
			{ type: "model_change", id: "m1", parentId: null, provider: "manual", modelId: "manual-1" },
			{ type: "thinking_level_change", id: "t1", parentId: "m1", thinkingLevel: "off" },
			{ type: "model_change", id: "m2", parentId: "t1", provider: "manual", modelId: "manual-2" },
			{ type: "thinking_level_change", id: "t2", parentId: "m2", thinkingLevel: "high" },
		]);
		const settingsManager = SettingsManager.inMemory({ defaultProvider: "manual", defaultModel: "manual-1" });
		const agentDir = join(dir, "agent");
		const resourceLoader = new DefaultResourceLoader({ cwd: dir, agentDir, settingsManager, noExtensions: true });
		await resourceLoader.reload();
		const { session, modelFallbackMessage } = await createAgentSession({
			cwd: dir,
			agentDir,
			modelRuntime,
			settingsManager,
			resourceLoader,
			sessionManager: SessionManager.open(file, join(dir, "sessions")),
		});
		cleanups.unshift(() => session.dispose());
		expect(modelFallbackMessage).toBeUndefined();
		expect(session.model?.id).toBe("manual-2");
		expect(session.thinkingLevel).toBe("high");
		provider.answer("answered on the picked model");
		await session.prompt("first question");
		expect(modelIds).toEqual(["manual-2"]);
		// The file's last model_change before the first message is still the user's pick.
		const entries = readEntries(file);
		const firstMessage = entries.findIndex((entry) => entry.type === "message");
		const recorded = entries.slice(0, firstMessage).filter((entry) => entry.type === "model_change");
		expect(recorded.at(-1)).toMatchObject({ modelId: "manual-2" });
		expect(
			entries
				.slice(0, firstMessage)
				.filter((entry) => entry.type === "thinking_level_change")
				.at(-1),
		).toMatchObject({ thinkingLevel: "high" });
	});
});

describe("pi#1225: resuming sessions created via /new or fork resets thinking level to off", () => {
	it("pi#1225: with defaultThinkingLevel high in settings.json, a session started with /new and one pi wrote without a thinking entry both resume at high; settings.json keeps its bytes", async () => {
		const dir = tempDir();
		const { provider, reasoning, modelRuntime } = twoModels();
		const agentDir = join(dir, "agent");
		mkdirSync(agentDir, { recursive: true });
		const settingsFile = join(agentDir, "settings.json");
		writeFileSync(settingsFile, `${JSON.stringify({ defaultThinkingLevel: "high" }, null, 2)}\n`);
		const settingsBytes = readFileSync(settingsFile, "utf8");
		const factory = createAgentSessionRuntimeFactory({
			modelRuntime,
			model: reasoning,
			clock: new SimulatedClock(),
			resourceLoaderOptions: { noExtensions: true },
		});
		const runtime = await createAgentSessionRuntime(factory, {
			cwd: dir,
			agentDir,
			sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		});
		cleanups.unshift(() => void runtime.dispose());
		expect(runtime.session.thinkingLevel).toBe("high");
		// Steps 2–6 of the report: /new, a message answered at high, /new, /resume that session.
		await runtime.newSession();
		provider.answer("answered at high");
		await runtime.session.prompt("a message in the /new session");
		const fromNew = runtime.session.sessionFile!;
		await runtime.newSession();
		await runtime.switchSession(fromNew);
		expect(runtime.session.thinkingLevel).toBe("high");
		// "About 40% of my sessions don't have entries for thinking level": a file pi wrote without one.
		const withoutEntry = join(dir, "no-thinking-entry.jsonl");
		writePiFile(withoutEntry, dir, [
			{ type: "model_change", id: "m1", parentId: null, provider: "manual", modelId: "manual-2" },
			{
				type: "message",
				id: "u1",
				parentId: "m1",
				message: { role: "user", content: [{ type: "text", text: "old question" }], timestamp: 1 },
			},
			{ type: "message", id: "a1", parentId: "u1", message: { ...provider.reply("old answer"), model: "manual-2" } },
		]);
		const fileBytes = readFileSync(withoutEntry, "utf8");
		await runtime.switchSession(withoutEntry);
		expect(runtime.session.model?.id).toBe("manual-2");
		expect(runtime.session.thinkingLevel).toBe("high");
		expect(readFileSync(withoutEntry, "utf8")).toBe(fileBytes);
		expect(readFileSync(settingsFile, "utf8")).toBe(settingsBytes);
		await runtime.dispose();
	});
});
