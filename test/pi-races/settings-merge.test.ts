/**
 * pi's reports about how the global and the project settings files combine, replayed on real files:
 * `<agentDir>/settings.json` and the project's `.pi/settings.json`, read by Settle's
 * `SettingsManager.create` and (`pi-peer`) by pi 0.73.1's. pi#7572: a project that sets one key of
 * `retry.provider` lost the global file's other `retry.provider` keys. pi#527, pi#1046: an edit made
 * to `settings.json` while pi ran (a new `enabledModels`, a changed `packages`) was reverted the next
 * time pi saved a setting of its own (a thinking level, the changelog version). And a settings file
 * Windows PowerShell 5.1's `>` wrote as UTF-16 stopped Settle with "Unexpected token '�'".
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettingsManager } from "../../src/settings/settings-manager.js";

let root: string;
let cwd: string;
let agentDir: string;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "settle-pi-races-settings-"));
	cwd = join(root, "project");
	agentDir = join(root, "agent");
	mkdirSync(join(cwd, ".pi"), { recursive: true });
	mkdirSync(agentDir, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes the report's two files. */
function reportFiles(): void {
	writeFileSync(
		join(agentDir, "settings.json"),
		JSON.stringify({ retry: { provider: { timeoutMs: 30000, maxRetryDelayMs: 45000 } } }),
	);
	writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ retry: { provider: { maxRetries: 2 } } }));
}

describe("pi#7572: project retry.provider settings replace global provider retry settings", () => {
	it("pi#7572: the project's retry.provider.maxRetries is added to the global timeoutMs and maxRetryDelayMs, which stay", () => {
		reportFiles();
		const settings = SettingsManager.create(cwd, agentDir);
		expect(settings.getErrors()).toEqual([]);
		expect(settings.getProviderRetrySettings()).toEqual({
			timeoutMs: 30000,
			maxRetries: 2,
			maxRetryDelayMs: 45000,
			streamIdleTimeoutMs: undefined,
		});
	});

	it("pi#7572: a key set in both files takes the project's value; an array is replaced, not merged", () => {
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({ retry: { enabled: true, provider: { timeoutMs: 30000, maxRetries: 5 } }, skills: ["/global"] }),
		);
		writeFileSync(
			join(cwd, ".pi", "settings.json"),
			JSON.stringify({ retry: { provider: { maxRetries: 2 } }, skills: ["/project"] }),
		);
		const settings = SettingsManager.create(cwd, agentDir);
		expect(settings.getProviderRetrySettings()).toMatchObject({ timeoutMs: 30000, maxRetries: 2 });
		expect(settings.getRetrySettings().enabled).toBe(true);
		expect(settings.getSkillPaths()).toEqual(["/project"]);
	});

	it("pi#7572 (pi-peer): pi 0.73.1 keeps only the project's retry.provider: timeoutMs gone, maxRetryDelayMs back at its 60000 default", () => {
		reportFiles();
		const settings = pi.SettingsManager.create(cwd, agentDir);
		expect(settings.getProviderRetrySettings()).toEqual({
			timeoutMs: undefined,
			maxRetries: 2,
			maxRetryDelayMs: 60000,
		});
	});
});

describe("pi#527, pi#1046: settings.json edited while running, then a setting saved", () => {
	const edit = (file: string) => {
		const current = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
		writeFileSync(file, JSON.stringify({ ...current, enabledModels: ["faux/*"], packages: ["npm:edited"] }, null, 2));
	};
	for (const [peer, create] of [
		["Settle", (dir: string, agent: string) => SettingsManager.create(dir, agent)],
		["pi 0.73.1 (pi-peer)", (dir: string, agent: string) => pi.SettingsManager.create(dir, agent)],
	] as const) {
		it(`pi#527, pi#1046: ${peer}: the edit (a new key, a changed list) survives a later save of another key, which is written too`, async () => {
			const file = join(agentDir, "settings.json");
			writeFileSync(file, JSON.stringify({ packages: ["npm:original"], theme: "dark" }));
			const settings = create(cwd, agentDir);
			edit(file);
			settings.setDefaultThinkingLevel("high");
			await (settings as { flush?: () => Promise<void> }).flush?.();
			expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
				packages: ["npm:edited"],
				theme: "dark",
				enabledModels: ["faux/*"],
				defaultThinkingLevel: "high",
			});
		});
	}
});

describe("a settings.json written by Windows PowerShell 5.1's `>` (UTF-16 LE with its mark)", () => {
	it("its settings apply, the project file's (UTF-8 with a mark) too; a setting saved later rewrites it as UTF-8 JSON keeping the other keys", () => {
		const text = '{\r\n  "defaultThinkingLevel": "high",\r\n  "theme": "light"\r\n}\r\n';
		writeFileSync(join(agentDir, "settings.json"), Buffer.from(`\uFEFF${text}`, "utf16le"));
		writeFileSync(join(cwd, ".pi", "settings.json"), '\uFEFF{ "skills": ["/project"] }\n');
		const settings = SettingsManager.create(cwd, agentDir);
		expect(settings.getErrors()).toEqual([]);
		expect(settings.getDefaultThinkingLevel()).toBe("high");
		expect(settings.getSkillPaths()).toEqual(["/project"]);
		settings.setTheme("dark");
		expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"))).toEqual({
			defaultThinkingLevel: "high",
			theme: "dark",
		});
	});
});
