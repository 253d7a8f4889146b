/**
 * Randomized differential of settings loading against pi 0.73.1: random global and project
 * settings files (overlapping keys, nested objects, arrays, unknown keys, legacy keys, wrong
 * types, unparsable files) written to real temp folders, read by pi's SettingsManager and by
 * Settle's; every zero-argument getter both products have must return the same value.
 *
 * Deliberate differences, normalized here (and only these):
 * - Validation (README "Settings"; settings-manager.ts header): Settle drops a key whose value does
 *   not match the schema and reports it; pi keeps any JSON value. pi is therefore given the files
 *   without the keys the generator made invalid, and Settle must name each of them in getErrors().
 * - Project folder: Settle reads `.settle/` and falls back to pi's `.pi/`; pi reads `.pi/` only.
 *   The project file goes to `.pi/` for pi and to `.pi/` or `.settle/` (random) for Settle.
 * - `getRetrySettings()` also returns `maxAgentDelayMs` in Settle (the backoff cap of DESIGN §retry,
 *   README "A retried request"); pi 0.73.1 caps nothing there. pi's keys are compared, the extra one
 *   is checked against the files.
 * - `getShellPath()`: Settle reads a leading `~/` as the home folder, as newer pi does (pi#6458);
 *   pi 0.73.1 returns it as written. pi's value is expanded before comparing.
 * - A UTF-8 byte-order mark: pi fails to parse such a file (JSON.parse) and ignores it; Settle strips
 *   the mark and reads it. Constrained out (files are written without a BOM), pinned separately below.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { SettingsManager as PiSettingsManager } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { tempDir } from "./helpers.js";

/** A value for one settings key: `valid` values pass Settle's schema, the others must be dropped by Settle. */
interface Entry {
	key: string;
	value: unknown;
	valid: boolean;
}

const str = fc.constantFrom("a", "b/c", "~/x", "", "model-1", "anthropic");
const strList = fc.array(str, { maxLength: 3 });
const nonNegInt = fc.constantFrom(0, 1, 3, 16384, 20000);
const wrong = fc.constantFrom<unknown>("nope", -1, 1.5, true, null, [1], { x: 1 });

/** A generator of valid values and the schema rule (written out here, independent of Settle's schema code). */
type Kind = [fc.Arbitrary<unknown>, (value: unknown) => boolean];
const isStr = (v: unknown) => typeof v === "string";
const kinds: {
	str: Kind;
	bool: Kind;
	int: Kind;
	num: Kind;
	nonNeg: Kind;
	list: Kind;
	oneOf: (...values: string[]) => Kind;
} = {
	str: [str, isStr] as Kind,
	bool: [fc.boolean(), (v) => typeof v === "boolean"] as Kind,
	int: [nonNegInt, (v) => Number.isInteger(v) && (v as number) >= 0] as Kind,
	num: [fc.constantFrom(0, 2, 7, 60), (v) => typeof v === "number"] as Kind,
	nonNeg: [fc.constantFrom(0, 1.5, 2000), (v) => typeof v === "number" && v >= 0] as Kind,
	list: [strList, (v) => Array.isArray(v) && v.every(isStr)] as Kind,
	oneOf: (...values: string[]): Kind => [fc.constantFrom(...values), (v) => values.includes(v as string)],
};

function field(key: string, [valid, isValid]: Kind): fc.Arbitrary<Entry> {
	return fc.oneof(
		{ weight: 4, arbitrary: valid.map((value) => ({ key, value, valid: true })) },
		{ weight: 1, arbitrary: wrong.filter((value) => !isValid(value)).map((value) => ({ key, value, valid: false })) },
	);
}

/** A nested object key: each sub-key valid or not; the object itself may also be the wrong type. */
function nested(key: string, fields: Record<string, Kind>): fc.Arbitrary<Entry[]> {
	const subs = Object.entries(fields).map(([sub, valid]) =>
		fc.option(field(`${key}.${sub}`, valid), { nil: undefined }),
	);
	return fc.oneof(
		{ weight: 5, arbitrary: fc.tuple(...subs).map((entries) => entries.filter((e): e is Entry => e !== undefined)) },
		{ weight: 1, arbitrary: fc.constantFrom<unknown>(5, "x", [1, 2]).map((value) => [{ key, value, valid: false }]) },
	);
}

const { bool, int, num, nonNeg, list, oneOf } = kinds;
const text = kinds.str;
const topLevel: fc.Arbitrary<Entry>[] = [
	field("defaultProvider", text),
	field("defaultModel", text),
	field("defaultThinkingLevel", oneOf("off", "minimal", "low", "medium", "high", "xhigh")),
	field("transport", oneOf("sse", "websocket", "websocket-cached", "auto")),
	field("steeringMode", oneOf("all", "one-at-a-time")),
	field("followUpMode", oneOf("all", "one-at-a-time")),
	field("theme", text),
	field("hideThinkingBlock", bool),
	field("shellPath", text),
	field("quietStartup", bool),
	field("shellCommandPrefix", text),
	field("npmCommand", list),
	field("collapseChangelog", bool),
	field("enableInstallTelemetry", bool),
	field("packages", [
		fc.array(fc.oneof(str, fc.record({ source: str, skills: strList })), { maxLength: 2 }),
		(v) => Array.isArray(v) && v.every((p) => isStr(p) || (isPlainObject(p) && isStr(p.source))),
	]),
	field("extensions", list),
	field("skills", list),
	field("prompts", list),
	field("themes", list),
	field("enableSkillCommands", bool),
	field("enabledModels", list),
	field("doubleEscapeAction", oneOf("fork", "tree", "none")),
	field("treeFilterMode", oneOf("default", "no-tools", "user-only", "labeled-only", "all")),
	field("editorPaddingX", num),
	field("autocompleteMaxVisible", num),
	field("showHardwareCursor", bool),
	field("sessionDir", [fc.constantFrom("/tmp/s", "rel/s"), isStr]),
	field("lastChangelogVersion", [fc.constantFrom("0.1.0", "0.73.1"), isStr]),
	// Keys neither product knows: kept, never an error.
	fc.record({ key: fc.constantFrom("myKey", "x-y", "nested"), value: fc.jsonValue({ maxDepth: 2 }) }).map((e) => ({
		...e,
		valid: true,
	})),
];
const nestedKeys: fc.Arbitrary<Entry[]>[] = [
	nested("compaction", { enabled: bool, reserveTokens: int, keepRecentTokens: int }),
	nested("branchSummary", { reserveTokens: int, skipPrompt: bool }),
	nested("retry", { enabled: bool, maxRetries: int, baseDelayMs: nonNeg, maxAgentDelayMs: nonNeg }),
	nested("terminal", { showImages: bool, imageWidthCells: num, clearOnShrink: bool }),
	nested("images", { autoResize: bool, blockImages: bool }),
	nested("thinkingBudgets", { minimal: int, low: int, high: int }),
	nested("markdown", { codeBlockIndent: [fc.constantFrom("  ", "\t", ""), isStr] }),
	nested("warnings", { anthropicExtraUsage: bool }),
];

/** Legacy pi keys both products migrate (valid values only: the migrated key is then validated). */
const legacy: fc.Arbitrary<Record<string, unknown>> = fc.record(
	{
		queueMode: fc.constantFrom("all", "one-at-a-time"),
		websockets: fc.boolean(),
		legacySkills: fc.record({ enableSkillCommands: fc.boolean(), customDirectories: strList }, { requiredKeys: [] }),
		maxDelayMs: fc.constantFrom(0, 5000),
	},
	{ requiredKeys: [] },
);

interface Layer {
	entries: Entry[];
	legacy: Record<string, unknown>;
	/** Written as unparsable text instead of JSON. */
	corrupt: boolean;
}

const layer: fc.Arbitrary<Layer> = fc.record({
	entries: fc
		.tuple(fc.subarray(topLevel, { maxLength: 10 }), fc.subarray(nestedKeys, { maxLength: 4 }))
		.chain(([top, nest]) => fc.tuple(fc.tuple(...top), fc.tuple(...nest)))
		.map(([top, nest]) => [...top, ...nest.flat()]),
	legacy,
	corrupt: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
	const parts = key.split(".");
	let node = target;
	for (const part of parts.slice(0, -1)) {
		if (typeof node[part] !== "object" || node[part] === null || Array.isArray(node[part])) node[part] = {};
		node = node[part] as Record<string, unknown>;
	}
	node[parts[parts.length - 1]!] = value;
}

/** The JSON object a layer writes for Settle (everything the generator made). */
function fullObject(l: Layer): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	const { legacySkills, maxDelayMs, ...rest } = l.legacy;
	Object.assign(out, rest);
	if (legacySkills !== undefined) out.skills = structuredClone(legacySkills);
	for (const entry of l.entries) setPath(out, entry.key, structuredClone(entry.value));
	if (maxDelayMs !== undefined && (out.retry === undefined || isPlainObject(out.retry))) {
		setPath(out, "retry.maxDelayMs", maxDelayMs);
	}
	return out;
}

/**
 * What pi is given: the same object without the invalid keys Settle drops. A legacy key whose
 * migration the invalid key blocked in Settle (the new key was present, so the old one stays an
 * unknown key) is left out too, so pi does not migrate it either.
 */
function validObject(l: Layer): Record<string, unknown> {
	const out = fullObject(l);
	for (const entry of l.entries) {
		if (entry.valid || !stillPresent(out, entry)) continue;
		deletePath(out, entry.key);
		if (entry.key === "steeringMode") delete out.queueMode;
		if (entry.key === "transport") delete out.websockets;
		if (entry.key === "enableSkillCommands" && isPlainObject(out.skills)) delete out.skills.enableSkillCommands;
	}
	return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deletePath(target: Record<string, unknown>, key: string): void {
	const parts = key.split(".");
	let node: unknown = target;
	for (const part of parts.slice(0, -1)) node = isPlainObject(node) ? node[part] : undefined;
	if (isPlainObject(node)) delete node[parts[parts.length - 1]!];
}

/** Whether `entry` is what `object` holds at its key (a later entry or parent may have replaced it). */
function stillPresent(object: Record<string, unknown>, entry: Entry): boolean {
	let node: unknown = object;
	for (const part of entry.key.split(".")) {
		if (!isPlainObject(node) || !Object.hasOwn(node, part)) return false;
		node = node[part];
	}
	return JSON.stringify(node) === JSON.stringify(entry.value);
}

function layerText(l: Layer, forPi: boolean): string {
	return l.corrupt ? '{ "steeringMode": "all", ' : JSON.stringify(forPi ? validObject(l) : fullObject(l), null, 2);
}

function write(path: string, text: string | undefined): void {
	if (text === undefined) return;
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, text);
}

/** Zero-argument getters both products define (pi's and Settle's names follow pi 0.73). */
function commonGetters(): string[] {
	const names = (proto: object) =>
		Object.getOwnPropertyNames(proto).filter(
			(name) => name.startsWith("get") && typeof (proto as Record<string, unknown>)[name] === "function",
		);
	const settle = new Set(names(SettingsManager.prototype));
	return names(PiSettingsManager.prototype)
		.filter((name) => settle.has(name))
		.filter(
			(name) =>
				(PiSettingsManager.prototype as unknown as Record<string, () => unknown>)[name]!.length === 0 &&
				// Settle's paths/errors have their own shapes (typed diagnostics); compared separately.
				!["getErrors", "getSettingsPaths", "getGlobalSettings", "getProjectSettings"].includes(name),
		);
}

describe("settings: differential against pi 0.73.1", () => {
	const getters = commonGetters();

	it("compares a meaningful set of getters", () => {
		// Guards the comparison itself: a rename on either side must not silently empty it.
		expect(getters).toEqual(
			expect.arrayContaining([
				"getCompactionSettings",
				"getRetrySettings",
				"getSteeringMode",
				"getTransport",
				"getSkillPaths",
				"getPackages",
				"getThinkingBudgets",
				"getImageWidthCells",
			]),
		);
		expect(getters.length).toBeGreaterThan(30);
	});

	it("random global + project files give the same effective settings", () => {
		const root = tempDir("settle-settings-diff-");
		let run = 0;
		fc.assert(
			fc.property(
				fc.option(layer, { nil: undefined }),
				fc.option(layer, { nil: undefined }),
				fc.boolean(),
				(global, project, settleDirName) => {
					const base = join(root, String(run++));
					const agentPi = join(base, "pi", "agent");
					const agentSettle = join(base, "settle", "agent");
					const cwdPi = join(base, "pi", "work", "a", "b");
					const cwdSettle = join(base, "settle", "work", "a", "b");
					mkdirSync(agentPi, { recursive: true });
					mkdirSync(agentSettle, { recursive: true });
					mkdirSync(cwdPi, { recursive: true });
					mkdirSync(cwdSettle, { recursive: true });
					if (global) {
						write(join(agentPi, "settings.json"), layerText(global, true));
						write(join(agentSettle, "settings.json"), layerText(global, false));
					}
					if (project) {
						write(join(cwdPi, ".pi", "settings.json"), layerText(project, true));
						write(join(cwdSettle, settleDirName ? ".settle" : ".pi", "settings.json"), layerText(project, false));
					}
					try {
						const pi = PiSettingsManager.create(cwdPi, agentPi) as unknown as Record<string, () => unknown>;
						const settle = SettingsManager.create(cwdSettle, agentSettle, { projectTrusted: true });
						const ours = settle as unknown as Record<string, () => unknown>;
						for (const name of getters) {
							let value = ours[name]!();
							if (name === "getRetrySettings") {
								const { maxAgentDelayMs, ...piKeys } = value as { maxAgentDelayMs: number };
								expect(maxAgentDelayMs).toBe(effectiveMaxAgentDelay(global, project));
								value = piKeys;
							}
							let expected = pi[name]!();
							// Newer pi reads a leading `~` in shellPath as the home folder (pi#6458); 0.73.1 does not.
							if (name === "getShellPath" && typeof expected === "string" && expected.startsWith("~/")) {
								expected = join(homedir(), expected.slice(2));
							}
							expect({ getter: name, value }).toEqual({ getter: name, value: expected });
						}
						// The layers as read (migrated; invalid keys dropped by Settle, left out for pi). An
						// old `queueMode` / `websockets` whose migration an invalid new key blocked stays an
						// unknown key in Settle's layer; pi was given the file without it (see validObject).
						expect(withoutBlockedLegacy(settle.getGlobalSettings())).toEqual(
							withoutBlockedLegacy(pi.getGlobalSettings!()),
						);
						expect(withoutBlockedLegacy(settle.getProjectSettings())).toEqual(
							withoutBlockedLegacy(pi.getProjectSettings!()),
						);
						// Each key the generator made invalid (in a parsable file) is named by Settle.
						const errors = settle.getErrors();
						for (const [scope, l] of [
							["global", global],
							["project", project],
						] as const) {
							if (!l) continue;
							if (l.corrupt) {
								expect(errors.some((e) => e.scope === scope && e.key === undefined)).toBe(true);
								continue;
							}
							for (const entry of l.entries.filter((e) => !e.valid)) {
								// A wrong `skills` object is pi's legacy skills format: migrated away, not an error.
								if (entry.key === "skills" && isPlainObject(entry.value)) continue;
								if (stillPresent(fullObject(l), entry))
									expect(errors.map((e) => `${e.scope}:${e.key}`)).toContain(`${scope}:${entry.key}`);
							}
						}
					} finally {
						rmSync(base, { recursive: true, force: true });
					}
				},
			),
			{ numRuns: 150 },
		);
	});

	it("pins the byte-order-mark difference: Settle reads the file, pi ignores it", () => {
		const { agent, cwd } = pair();
		writeFileSync(join(agent, "settings.json"), `\uFEFF${JSON.stringify({ steeringMode: "all" })}`);
		expect(PiSettingsManager.create(cwd, agent).getSteeringMode()).toBe("one-at-a-time");
		expect(SettingsManager.create(cwd, agent, { projectTrusted: true }).getSteeringMode()).toBe("all");
	});
});

function pair(): { agent: string; cwd: string } {
	const base = tempDir("settle-settings-diff-");
	const agent = join(base, "agent");
	const cwd = join(base, "cwd");
	mkdirSync(agent, { recursive: true });
	mkdirSync(cwd, { recursive: true });
	return { agent, cwd };
}

/** `retry.maxAgentDelayMs` as the files set it (project over global, invalid values ignored), else 60000. */
function effectiveMaxAgentDelay(...layers: (Layer | undefined)[]): number {
	let result = 60000;
	for (const l of layers) {
		if (!l || l.corrupt) continue;
		const retry = validObject(l).retry;
		if (isPlainObject(retry) && typeof retry.maxAgentDelayMs === "number") result = retry.maxAgentDelayMs;
	}
	return result;
}

function withoutBlockedLegacy(settings: unknown): unknown {
	const { queueMode: _queueMode, websockets: _websockets, ...rest } = settings as Record<string, unknown>;
	return rest;
}
