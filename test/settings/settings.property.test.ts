import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { workspace } from "./helpers.js";

const layer = fc.record(
	{
		steeringMode: fc.constantFrom("all", "one-at-a-time"),
		transport: fc.constantFrom("sse", "websocket", "auto"),
		defaultModel: fc.string({ maxLength: 8 }),
		compaction: fc.record({ enabled: fc.boolean(), reserveTokens: fc.nat(100000) }, { requiredKeys: [] }),
		retry: fc.record({ maxRetries: fc.nat(10), baseDelayMs: fc.nat(5000) }, { requiredKeys: [] }),
	},
	{ requiredKeys: [] },
);

describe("settings properties", () => {
	it("the effective value is project ?? global ?? default, key by key (nested keys too)", () => {
		const { cwd, agentDir } = workspace();
		mkdirSync(join(cwd, ".settle"), { recursive: true });
		fc.assert(
			fc.property(layer, layer, (global, project) => {
				writeFileSync(join(agentDir, "settings.json"), JSON.stringify(global));
				writeFileSync(join(cwd, ".settle", "settings.json"), JSON.stringify(project));
				const settings = SettingsManager.create(cwd, agentDir);
				expect(settings.getErrors()).toEqual([]);
				expect(settings.getSteeringMode()).toBe(project.steeringMode ?? global.steeringMode ?? "one-at-a-time");
				expect(settings.getTransport()).toBe(project.transport ?? global.transport ?? "auto");
				expect(settings.getDefaultModel()).toBe(project.defaultModel ?? global.defaultModel);
				expect(settings.getCompactionSettings()).toEqual({
					enabled: project.compaction?.enabled ?? global.compaction?.enabled ?? true,
					reserveTokens: project.compaction?.reserveTokens ?? global.compaction?.reserveTokens ?? 16384,
					keepRecentTokens: 20000,
				});
				expect(settings.getRetrySettings()).toEqual({
					enabled: true,
					maxRetries: project.retry?.maxRetries ?? global.retry?.maxRetries ?? 3,
					baseDelayMs: project.retry?.baseDelayMs ?? global.retry?.baseDelayMs ?? 2000,
					maxAgentDelayMs: 60000,
				});
			}),
			{ numRuns: 60 },
		);
	});

	it("a setter either keeps every other key of the file or refuses and leaves the bytes untouched", () => {
		const { cwd, agentDir } = workspace();
		const path = join(agentDir, "settings.json");
		const content = fc.oneof(
			fc.string({ maxLength: 40 }),
			fc.json({ maxDepth: 2 }),
			fc
				.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 })
				.map((value) => JSON.stringify(value)),
		);
		fc.assert(
			fc.property(content, (text) => {
				rmSync(path, { force: true });
				writeFileSync(path, text);
				const settings = SettingsManager.create(cwd, agentDir);
				let before: unknown;
				try {
					before = text.trim() === "" ? {} : JSON.parse(text);
				} catch {
					before = undefined;
				}
				const isObject = typeof before === "object" && before !== null && !Array.isArray(before);
				try {
					settings.setFollowUpMode("all");
				} catch (error) {
					expect(error).toBeInstanceOf(SettleError);
					expect((error as SettleError).code).toBe("INVALID_SETTINGS");
					expect(isObject).toBe(false);
					expect(readFileSync(path, "utf-8")).toBe(text);
					return;
				}
				expect(isObject).toBe(true);
				const after = JSON.parse(readFileSync(path, "utf-8"));
				expect(after).toEqual({ ...(before as object), followUpMode: "all" });
			}),
			{ numRuns: 120 },
		);
	});
});
