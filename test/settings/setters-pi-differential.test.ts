/**
 * A.8 "set persists globally": the setters both products have, called in the same order on pi
 * 0.73.1's SettingsManager and on Settle's over the same files, leave the same global
 * `settings.json` (unknown and unrelated keys kept, nested objects merged), the project file
 * untouched, and the same values from the getters — including where the project file overrides
 * what was just set globally.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SettingsManager as PiSettingsManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { tempDir, writeTree } from "./helpers.js";

const GLOBAL = {
	futureKey: { kept: true },
	compaction: { reserveTokens: 9000 },
	retry: { maxRetries: 5 },
	theme: "dark",
};
const PROJECT = { followUpMode: "one-at-a-time", retry: { enabled: true } };

interface SetterApi {
	setSteeringMode(mode: "all" | "one-at-a-time"): void;
	setFollowUpMode(mode: "all" | "one-at-a-time"): void;
	setCompactionEnabled(enabled: boolean): void;
	setRetryEnabled(enabled: boolean): void;
	setDefaultThinkingLevel(level: "high"): void;
	setDefaultModelAndProvider(provider: string, modelId: string): void;
	setTransport(transport: "sse"): void;
	setImageAutoResize(enabled: boolean): void;
	setBlockImages(blocked: boolean): void;
	setEnabledModels(patterns: string[] | undefined): void;
	flush(): Promise<void>;
	getSteeringMode(): string;
	getFollowUpMode(): string;
	getCompactionSettings(): unknown;
	getRetryEnabled(): boolean;
	getDefaultThinkingLevel(): string | undefined;
	getDefaultModel(): string | undefined;
	getDefaultProvider(): string | undefined;
	getTransport(): string;
	getImageAutoResize(): boolean;
	getBlockImages(): boolean;
	getEnabledModels(): string[] | undefined;
}

async function run(create: (cwd: string, agentDir: string) => SetterApi) {
	const root = tempDir("settle-setters-");
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	const projectFile = join(cwd, ".pi", "settings.json");
	writeTree(root, {
		"agent/settings.json": `${JSON.stringify(GLOBAL, null, 2)}\n`,
		"project/.pi/settings.json": `${JSON.stringify(PROJECT, null, 2)}\n`,
	});
	const projectBefore = readFileSync(projectFile, "utf8");
	const settings = create(cwd, agentDir);
	settings.setSteeringMode("all");
	settings.setFollowUpMode("all");
	settings.setCompactionEnabled(false);
	settings.setRetryEnabled(false);
	settings.setDefaultThinkingLevel("high");
	settings.setDefaultModelAndProvider("anthropic", "claude-sonnet-4-5");
	settings.setTransport("sse");
	settings.setImageAutoResize(false);
	settings.setBlockImages(true);
	settings.setEnabledModels(["claude-*", "gpt-5"]);
	await settings.flush();
	return {
		global: JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")) as unknown,
		projectUnchanged: readFileSync(projectFile, "utf8") === projectBefore,
		getters: {
			steeringMode: settings.getSteeringMode(),
			followUpMode: settings.getFollowUpMode(),
			compaction: settings.getCompactionSettings(),
			retryEnabled: settings.getRetryEnabled(),
			thinking: settings.getDefaultThinkingLevel(),
			model: `${settings.getDefaultProvider()}/${settings.getDefaultModel()}`,
			transport: settings.getTransport(),
			autoResize: settings.getImageAutoResize(),
			blockImages: settings.getBlockImages(),
			enabledModels: settings.getEnabledModels(),
		},
	};
}

describe("settings setters: differential against pi 0.73.1 (A.8)", () => {
	it("write the same global file, keep the project file, and read back the same values (project overrides stand)", async () => {
		const pi = await run((cwd, agentDir) => PiSettingsManager.create(cwd, agentDir) as unknown as SetterApi);
		const settle = await run(
			(cwd, agentDir) => SettingsManager.create(cwd, agentDir, { projectTrusted: true }) as unknown as SetterApi,
		);
		expect(pi.global).toMatchObject({ futureKey: { kept: true }, theme: "dark", steeringMode: "all" });
		expect(pi.getters.followUpMode).toBe("one-at-a-time");
		expect(pi.getters.retryEnabled).toBe(true);
		expect(settle).toEqual(pi);
	});
});
