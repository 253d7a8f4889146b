/**
 * Per-model thinking levels (spec C.12, newer pi's `modelThinkingLevels` in settings.json, keyed
 * `provider/modelId`): a model switch asks for explicit > that model's entry > `defaultThinkingLevel`
 * > the current level (of a model that reasons) > `medium`, clamped to the model; a new session
 * starts with its model's entry. Real settings files in a temp agent folder and project.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { type LiveProject, openProject } from "./env-helpers.js";

const MODELS = [{ id: "plain" }, { id: "deep", reasoning: true }, { id: "wide", reasoning: true }];

let p: LiveProject | undefined;
const dirs: string[] = [];
afterEach(() => {
	p?.cleanup();
	p = undefined;
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function globalSettings(project: LiveProject): Record<string, unknown> {
	return JSON.parse(readFileSync(join(project.agentDir, "settings.json"), "utf8"));
}

function thinkingEntries(project: LiveProject): string[] {
	return project.sessionManager
		.getEntries()
		.flatMap((entry) => (entry.type === "thinking_level_change" ? [entry.thinkingLevel] : []));
}

describe("modelThinkingLevels in settings.json", () => {
	it("setModel starts the model at its own level from the file, clamped, without saving it as the default; a model without one gets defaultThinkingLevel", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: {
				"settings.json": JSON.stringify({
					defaultThinkingLevel: "low",
					modelThinkingLevels: { "faux/deep": "high", "faux/plain": "xhigh" },
				}),
			},
		});
		const model = (id: string) => p!.modelRuntime.getModel("faux", id)!;

		await p.session.setModel(model("deep"));
		expect(p.session.thinkingLevel).toBe("high");
		// The model's own level is not saved as everyone's default.
		expect(globalSettings(p)).toMatchObject({ defaultThinkingLevel: "low" });
		await p.session.setModel(model("wide"));
		expect(p.session.thinkingLevel).toBe("low");
		// `plain` cannot reason: its entry is clamped to off.
		await p.session.setModel(model("plain"));
		expect(p.session.thinkingLevel).toBe("off");
		await p.session.setModel(model("deep"));
		expect(p.session.thinkingLevel).toBe("high");
		expect(thinkingEntries(p).slice(-4)).toEqual(["high", "low", "off", "high"]);
	});

	it("an explicit level (setModel's thinkingLevel, a scoped model's) wins over the model's entry", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: { "settings.json": JSON.stringify({ modelThinkingLevels: { "faux/deep": "high" } }) },
		});
		const deep = p.modelRuntime.getModel("faux", "deep")!;
		await p.session.setModel(deep, { thinkingLevel: "minimal" });
		expect(p.session.thinkingLevel).toBe("minimal");

		await p.session.setModel(p.modelRuntime.getModel("faux", "plain")!);
		p.session.setScopedModels([
			{ model: p.modelRuntime.getModel("faux", "plain")! },
			{ model: deep, thinkingLevel: "low" },
		]);
		const cycled = await p.session.cycleModel();
		expect(cycled).toMatchObject({ model: { id: "deep" }, thinkingLevel: "low", isScoped: true });
	});

	it("cycleModel through all models applies each model's entry", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: {
				"settings.json": JSON.stringify({ modelThinkingLevels: { "faux/deep": "minimal", "faux/wide": "high" } }),
			},
		});
		expect(p.session.model?.id).toBe("plain");
		expect(await p.session.cycleModel()).toMatchObject({ model: { id: "deep" }, thinkingLevel: "minimal" });
		expect(await p.session.cycleModel()).toMatchObject({ model: { id: "wide" }, thinkingLevel: "high" });
		expect(await p.session.cycleModel("backward")).toMatchObject({ model: { id: "deep" }, thinkingLevel: "minimal" });
	});

	it("a project entry overrides the global one for the same model", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: {
				"settings.json": JSON.stringify({ modelThinkingLevels: { "faux/deep": "high", "faux/wide": "low" } }),
			},
			files: { ".settle/settings.json": JSON.stringify({ modelThinkingLevels: { "faux/deep": "minimal" } }) },
		});
		expect(p.settings.getModelThinkingLevel("faux", "deep")).toBe("minimal");
		expect(p.settings.getModelThinkingLevel("faux", "wide")).toBe("low");
		await p.session.setModel(p.modelRuntime.getModel("faux", "deep")!);
		expect(p.session.thinkingLevel).toBe("minimal");
	});

	it("a bad entry is reported with its key and dropped alone; the others apply", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: {
				"settings.json": JSON.stringify({ modelThinkingLevels: { "faux/deep": "extreme", "faux/wide": "high" } }),
			},
		});
		expect(
			p.settings
				.getErrors()
				.map((error) => error.error.message)
				.join("\n"),
		).toContain("modelThinkingLevels.faux/deep");
		expect(p.settings.getAllModelThinkingLevels()).toEqual({ "faux/wide": "high" });
		await p.session.setModel(p.modelRuntime.getModel("faux", "deep")!);
		// No usable entry for deep, no default: the switch from a model without reasoning starts at medium.
		expect(p.session.thinkingLevel).toBe("medium");
	});

	it("setModelThinkingLevel / removeModelThinkingLevel write the global file and keep its other keys", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: {
				"settings.json": JSON.stringify({ theme: "dark", modelThinkingLevels: { "openai/gpt-4.1": "low" } }),
			},
		});
		p.settings.setModelThinkingLevel("faux", "deep", "xhigh");
		expect(globalSettings(p)).toEqual({
			theme: "dark",
			modelThinkingLevels: { "openai/gpt-4.1": "low", "faux/deep": "xhigh" },
		});
		// A model id with dots is one key, not a path.
		p.settings.removeModelThinkingLevel("openai", "gpt-4.1");
		expect(globalSettings(p)).toEqual({ theme: "dark", modelThinkingLevels: { "faux/deep": "xhigh" } });
		p.settings.removeModelThinkingLevel("faux", "deep");
		expect(globalSettings(p)).toEqual({ theme: "dark" });

		const refused = (() => {
			try {
				p.settings.setModelThinkingLevel("faux", "deep", "extreme" as "high");
			} catch (error) {
				return error;
			}
		})();
		expect(refused).toBeInstanceOf(SettleError);
		expect((refused as SettleError).message).toContain("Invalid thinking level for faux/deep");
		expect(globalSettings(p)).toEqual({ theme: "dark" });
	});

	it("setThinkingLevel saves the default level only, as newer pi (the per-model entry stays what the file says)", async () => {
		p = await openProject({
			faux: { models: MODELS },
			agentFiles: { "settings.json": JSON.stringify({ modelThinkingLevels: { "faux/deep": "high" } }) },
		});
		await p.session.setModel(p.modelRuntime.getModel("faux", "deep")!);
		p.session.setThinkingLevel("low");
		expect(globalSettings(p)).toMatchObject({
			defaultThinkingLevel: "low",
			modelThinkingLevels: { "faux/deep": "high" },
		});
		await p.session.setModel(p.modelRuntime.getModel("faux", "wide")!);
		expect(p.session.thinkingLevel).toBe("low");
		await p.session.setModel(p.modelRuntime.getModel("faux", "deep")!);
		expect(p.session.thinkingLevel).toBe("high");
	});
});

describe("a new session's thinking level", () => {
	function agentFolder(settings: object): { cwd: string; agentDir: string } {
		const root = mkdtempSync(join(tmpdir(), "settle-model-thinking-"));
		dirs.push(root);
		const cwd = join(root, "project");
		const agentDir = join(root, "agent");
		mkdirSync(cwd, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings));
		return { cwd, agentDir };
	}

	function runtime(): InMemoryModelRuntime {
		const modelRuntime = new InMemoryModelRuntime();
		modelRuntime.registerFauxProvider(createFauxProvider({ models: MODELS }));
		return modelRuntime;
	}

	it("starts with the settings' model's own level over defaultThinkingLevel, and records it", async () => {
		const { cwd, agentDir } = agentFolder({
			defaultProvider: "faux",
			defaultModel: "deep",
			defaultThinkingLevel: "low",
			modelThinkingLevels: { "faux/deep": "high" },
		});
		const { session } = await createAgentSession({
			cwd,
			agentDir,
			modelRuntime: runtime(),
			settingsManager: SettingsManager.create(cwd, agentDir),
			sessionManager: SessionManager.inMemory(cwd),
		});
		try {
			expect(session.model?.id).toBe("deep");
			expect(session.thinkingLevel).toBe("high");
			const recorded = session.sessionManager.getEntries().find((entry) => entry.type === "thinking_level_change");
			expect(recorded).toMatchObject({ thinkingLevel: "high" });
		} finally {
			session.dispose();
		}
	});

	it("an explicit thinkingLevel option and a resumed session's own level win over the model's entry", async () => {
		const { cwd, agentDir } = agentFolder({
			defaultProvider: "faux",
			defaultModel: "deep",
			modelThinkingLevels: { "faux/deep": "high" },
		});
		const explicit = await createAgentSession({
			cwd,
			agentDir,
			modelRuntime: runtime(),
			settingsManager: SettingsManager.create(cwd, agentDir),
			sessionManager: SessionManager.inMemory(cwd),
			thinkingLevel: "minimal",
		});
		expect(explicit.session.thinkingLevel).toBe("minimal");
		explicit.session.dispose();

		const sessionManager = SessionManager.inMemory(cwd);
		sessionManager.appendModelChange("faux", "deep");
		sessionManager.appendThinkingLevelChange("low");
		sessionManager.appendMessage({ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 });
		const resumed = await createAgentSession({
			cwd,
			agentDir,
			modelRuntime: runtime(),
			settingsManager: SettingsManager.create(cwd, agentDir),
			sessionManager,
		});
		expect(resumed.session.thinkingLevel).toBe("low");
		resumed.session.dispose();
	});
});

describe("a settings file that cannot be written", () => {
	it("setModel and setThinkingLevel resolve with the switch applied; a default_not_saved event and drainErrors() say the default was not saved, and the file keeps its bytes", async () => {
		p = await openProject({ faux: { models: MODELS }, agentFiles: { "settings.json": "{}" } });
		// settings.json linked into a place that cannot take a file (root ignores file modes in-process;
		// the read-only link is replayed with a real settle process in settings-file-writers).
		const blocked = join(p.agentDir, "blocked");
		writeFileSync(blocked, "");
		rmSync(join(p.agentDir, "settings.json"));
		symlinkSync(join(blocked, "settings.json"), join(p.agentDir, "settings.json"));
		p.settings.drainErrors();

		await p.session.setModel(p.modelRuntime.getModel("faux", "deep")!, { thinkingLevel: "low" });
		p.session.setThinkingLevel("high");
		expect([p.session.model?.id, p.session.thinkingLevel]).toEqual(["deep", "high"]);
		expect(
			p.events.flatMap((event) => (event.type === "default_not_saved" ? [event.message.split(": Cannot")[0]] : [])),
		).toEqual([
			"Switched to faux/deep, but it was not saved as the default model",
			"Thinking level set to high, but it was not saved as the default",
		]);
		expect(p.settings.drainErrors().map((problem) => [problem.scope, problem.key, problem.error.code])).toEqual([
			["global", "defaultProvider", "IO"],
			["global", "defaultThinkingLevel", "IO"],
		]);
		expect(readFileSync(blocked, "utf8")).toBe("");
	});
});

describe("a model switch the session file cannot record", () => {
	it("setModel rejects with the session file's error and nothing changed: the agent and the reopened session are on the old model, and settings.json keeps the old default", async () => {
		const before = { defaultProvider: "faux", defaultModel: "plain" };
		p = await openProject({ faux: { models: MODELS }, agentFiles: { "settings.json": JSON.stringify(before) } });
		p.faux.setResponses([fauxAssistantMessage("first"), fauxAssistantMessage("second")]);
		await p.session.prompt("hi");
		const file = p.session.sessionFile!;
		const written = readFileSync(file, "utf8");
		// Another program took the file away: the next entry cannot be recorded.
		rmSync(file);

		const switching = p.session.setModel(p.modelRuntime.getModel("faux", "deep")!);
		await expect(switching).rejects.toBeInstanceOf(SettleError);
		expect(p.session.model?.id).toBe("plain");
		expect(globalSettings(p)).toEqual(before);
		expect(p.events.filter((event) => event.type === "default_not_saved")).toEqual([]);

		writeFileSync(file, written);
		const again = await p.reopen();
		p = again;
		expect(p.session.model?.id).toBe("plain");
	});

	it("setThinkingLevel the session file cannot record throws its error and nothing changed: the level in use and settings.json's default stay as they were", async () => {
		p = await openProject({ faux: { models: MODELS }, agentFiles: { "settings.json": "{}" } });
		await p.session.setModel(p.modelRuntime.getModel("faux", "deep")!, { thinkingLevel: "low" });
		p.faux.setResponses([fauxAssistantMessage("first")]);
		await p.session.prompt("hi");
		const before = globalSettings(p);
		expect([p.session.thinkingLevel, before.defaultThinkingLevel]).toEqual(["low", "low"]);
		rmSync(p.session.sessionFile!);
		const eventsBefore = p.events.length;

		expect(() => p!.session.setThinkingLevel("high")).toThrow(SettleError);
		expect(p.session.thinkingLevel).toBe("low");
		expect(globalSettings(p)).toEqual(before);
		expect(p.events.slice(eventsBefore).filter((event) => event.type === "thinking_level_changed")).toEqual([]);
	});
});
