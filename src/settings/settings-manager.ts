/**
 * SettingsManager: global `<agentDir>/settings.json` merged with the project's
 * `.settle/settings.json` (or pi's `.pi/settings.json` when the project has no `.settle/`), plus
 * runtime overrides. Accessor names and defaults follow pi 0.73.
 *
 * Loading never throws: an unparsable file is ignored as a whole, an invalid key is dropped, and
 * each problem becomes a {@link SettingsDiagnostic} naming the file, the key and what to do; the
 * other file still applies. Setters persist to the global file (as pi does) synchronously under a
 * lock with an atomic write, and refuse with a `SettleError` rather than overwrite a file Settle
 * could not parse.
 */
import { join } from "node:path";
import type { QueueMode } from "../agent/types.js";
import type { CompactionSettings } from "../compaction/types.js";
import { SettleError } from "../errors.js";
import type { RetrySettings } from "../session/retry-policy.js";
import { type JsonObjectRead, readJsonObjectFile, updateJsonObjectFile } from "./json-file.js";
import { expandHome, getDefaultAgentDir, resolveProjectConfigDir } from "./paths.js";
import type {
	CacheWarmingModeSetting,
	DefaultProjectTrust,
	PackageSource,
	Settings,
	ThinkingBudgetsSettings,
	ThinkingLevelSetting,
	TransportSetting,
} from "./schema.js";
import { howToTrustProject, ProjectTrustStore, resolveProjectTrust } from "./trust.js";
import { checkSettingValue, isPlainObject, ownValue, sanitizeSettings, setOwn, suggestSettingKey } from "./validate.js";

/** Which settings file a value or a problem belongs to. */
export type SettingsScope = "global" | "project";

/** How many unread problems {@link SettingsManager.drainErrors} keeps (the latest). */
const UNDRAINED_LIMIT = 20;

/** A problem found while loading settings. Loading continued; `error` is what a strict caller throws. */
export interface SettingsDiagnostic {
	/** `error`: the file or key was ignored. `warning`: a value was deliberately not applied. */
	type: "error" | "warning";
	scope: SettingsScope;
	/** The settings file (or `<memory>` for in-memory settings). */
	path: string;
	/** Dotted key, when the problem is one key. */
	key?: string;
	message: string;
	/** `SettleError` with the same message: INVALID_SETTINGS for a load problem, IO for a save that failed. */
	error: SettleError;
}

/** Options of {@link SettingsManager.create}. */
export interface SettingsManagerOptions {
	/**
	 * Whether the project is trusted (its settings that run code apply). Default: decided by
	 * `resolveProjectTrust` from `<agentDir>/trust.json` and the global `defaultProjectTrust`.
	 */
	projectTrusted?: boolean;
}

/** Project keys that make Settle run code; ignored from an untrusted project's settings. */
export const PROJECT_SETTINGS_REQUIRING_TRUST = [
	"shellPath",
	"shellCommandPrefix",
	"npmCommand",
	"packages",
	"extensions",
] as const;
/**
 * Project keys that decide where the user's conversations are written; ignored from an untrusted
 * project's settings (a cloned repository could otherwise have every session, with what was read
 * and pasted, written into its own working tree). pi applies them from any project.
 */
const PROJECT_DATA_SETTINGS_REQUIRING_TRUST = ["sessionDir"] as const;
/** Keys read from the global file only (a project cannot decide its own trust). */
const GLOBAL_ONLY_KEYS = ["defaultProjectTrust"] as const;

interface SettingsStorage {
	readonly globalPath: string;
	projectPath(): string | undefined;
	read(scope: SettingsScope): JsonObjectRead;
	update(scope: SettingsScope, mutate: (current: Record<string, unknown>) => void, what: string): void;
}

class FileSettingsStorage implements SettingsStorage {
	readonly globalPath: string;
	constructor(
		private readonly cwd: string,
		agentDir: string,
	) {
		this.globalPath = join(agentDir, "settings.json");
	}
	projectPath(): string {
		return join(resolveProjectConfigDir(this.cwd).dir, "settings.json");
	}
	read(scope: SettingsScope): JsonObjectRead {
		return readJsonObjectFile(scope === "global" ? this.globalPath : this.projectPath());
	}
	update(scope: SettingsScope, mutate: (current: Record<string, unknown>) => void, what: string): void {
		updateJsonObjectFile(scope === "global" ? this.globalPath : this.projectPath(), mutate, { what });
	}
}

class MemorySettingsStorage implements SettingsStorage {
	readonly globalPath = "<memory>";
	constructor(private readonly layers: Record<SettingsScope, Record<string, unknown>>) {}
	projectPath(): string {
		return "<memory:project>";
	}
	read(scope: SettingsScope): JsonObjectRead {
		return { status: "ok", value: structuredClone(this.layers[scope]) };
	}
	update(scope: SettingsScope, mutate: (current: Record<string, unknown>) => void): void {
		mutate(this.layers[scope]);
	}
}

interface LoadedLayer {
	settings: Settings;
	/** Why the file cannot be used at all (unparsable); undefined when fine or absent. */
	problem?: string;
	diagnostics: SettingsDiagnostic[];
}

/**
 * @example
 * ```ts
 * const settings = SettingsManager.create(process.cwd());
 * for (const problem of settings.getErrors()) console.warn(problem.message);
 * const { maxRetries, baseDelayMs } = settings.getRetrySettings();
 * settings.setSteeringMode("all"); // persisted to <agentDir>/settings.json
 * ```
 */
export class SettingsManager {
	private globalSettings: Settings = {};
	private projectSettings: Settings = {};
	private overrides: Settings = {};
	private settings: Settings = {};
	private globalProblem: string | undefined;
	private projectProblem: string | undefined;
	private loadDiagnostics: SettingsDiagnostic[] = [];
	private trustDiagnostics: SettingsDiagnostic[] = [];
	/** An unreadable `trust.json`: it decides nothing, and the user must hear why. */
	private trustFileDiagnostics: SettingsDiagnostic[] = [];
	private undrained: SettingsDiagnostic[] = [];
	private trusted = true;

	private constructor(
		private readonly storage: SettingsStorage,
		private readonly location: { cwd: string; agentDir: string } | undefined,
		private trustOverride: boolean | undefined,
	) {
		this.load();
	}

	/**
	 * Loads `<agentDir>/settings.json` and the project settings of `cwd`. Must not throw; problems
	 * are in {@link getErrors}.
	 */
	static create(
		cwd: string,
		agentDir: string = getDefaultAgentDir(),
		options: SettingsManagerOptions = {},
	): SettingsManager {
		return new SettingsManager(new FileSettingsStorage(cwd, agentDir), { cwd, agentDir }, options.projectTrusted);
	}

	/**
	 * Settings that live in memory only (tests, embedding). `settings` is the global layer; setters
	 * change it without touching disk. Invalid keys are dropped and reported like file problems.
	 */
	static inMemory(
		settings: Partial<Settings> = {},
		options: { project?: Partial<Settings>; projectTrusted?: boolean } = {},
	): SettingsManager {
		const storage = new MemorySettingsStorage({
			global: structuredClone(settings) as Record<string, unknown>,
			project: structuredClone(options.project ?? {}) as Record<string, unknown>,
		});
		return new SettingsManager(storage, undefined, options.projectTrusted ?? true);
	}

	// ── loading ────────────────────────────────────────────────────────────────────────────────

	private load(): void {
		const global = loadLayer(this.storage.read("global"), "global", this.storage.globalPath);
		const projectPath = this.storage.projectPath() ?? "<project>";
		const project = loadLayer(this.storage.read("project"), "project", projectPath);
		this.globalSettings = global.settings;
		this.globalProblem = global.problem;
		this.projectSettings = project.settings;
		this.projectProblem = project.problem;
		this.loadDiagnostics = [...global.diagnostics, ...project.diagnostics];
		this.resolveTrust();
		this.recompute();
		this.keepUndrained([...this.loadDiagnostics, ...this.trustDiagnostics]);
	}

	private resolveTrust(): void {
		this.trustFileDiagnostics = [];
		if (this.trustOverride !== undefined || !this.location) {
			this.trusted = this.trustOverride ?? true;
			return;
		}
		this.trusted = resolveProjectTrust({
			cwd: this.location.cwd,
			agentDir: this.location.agentDir,
			defaultProjectTrust: this.globalSettings.defaultProjectTrust,
		}).trusted;
		const store = new ProjectTrustStore(this.location.agentDir);
		const problem = store.problem();
		if (problem) {
			this.trustFileDiagnostics = [
				diagnostic(
					"error",
					"global",
					store.path,
					undefined,
					`Could not read the remembered project trust decisions ${problem}. Fix the file (or delete it); until then no remembered decision applies, and Settle will not write to it.`,
				),
			];
		}
	}

	private recompute(): void {
		const project: Record<string, unknown> = { ...this.projectSettings };
		const projectPath = this.storage.projectPath() ?? "<project>";
		const diagnostics: SettingsDiagnostic[] = [];
		for (const key of GLOBAL_ONLY_KEYS) {
			if (project[key] === undefined) continue;
			delete project[key];
			diagnostics.push(
				diagnostic(
					"warning",
					"project",
					projectPath,
					key,
					`Ignored "${key}" in ${projectPath}: it is read from the global settings file only (${this.storage.globalPath}), so a project cannot decide its own trust. Move it there.`,
				),
			);
		}
		if (!this.trusted) {
			const advice = this.location ? ` ${howToTrustProject(this.location.cwd, this.location.agentDir)}` : "";
			const why = (key: string) =>
				(PROJECT_DATA_SETTINGS_REQUIRING_TRUST as readonly string[]).includes(key)
					? "it decides where your sessions are written, and the project is not trusted; they stay in the agent folder."
					: "this setting runs code and the project is not trusted.";
			for (const key of [...PROJECT_SETTINGS_REQUIRING_TRUST, ...PROJECT_DATA_SETTINGS_REQUIRING_TRUST]) {
				if (project[key] === undefined) continue;
				delete project[key];
				// Project extension paths are listed (with the same advice) by the resource loader.
				if (key === "extensions") continue;
				diagnostics.push(
					diagnostic(
						"warning",
						"project",
						projectPath,
						key,
						`Ignored "${key}" in ${projectPath}: ${why(key)}${advice}`,
					),
				);
			}
		}
		this.trustDiagnostics = [...this.trustFileDiagnostics, ...diagnostics];
		this.settings = mergeSettings(mergeSettings(this.globalSettings, project as Settings), this.overrides);
	}

	/** Re-reads both files (runtime overrides are kept). Resolves when done; never rejects. */
	async reload(): Promise<void> {
		this.load();
	}

	/**
	 * Applies settings on top of both files for this process only (never persisted); they survive
	 * {@link reload}. Throws `SettleError` INVALID_ARGUMENT for a value of the wrong type.
	 */
	applyOverrides(overrides: Partial<Settings>): void {
		const { settings, invalid } = sanitizeSettings(structuredClone(overrides) as Record<string, unknown>);
		if (invalid.length > 0) {
			const first = invalid[0]!;
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Invalid settings override "${first.key}": expected ${first.expected}, got ${first.received}.`,
				{ details: { key: first.key } },
			);
		}
		this.overrides = mergeSettings(this.overrides, settings);
		this.recompute();
	}

	// ── trust and problems ─────────────────────────────────────────────────────────────────────

	/** Whether the project's code-running settings (and extensions) apply. */
	isProjectTrusted(): boolean {
		return this.trusted;
	}

	/** Decides trust for this process (not remembered; use `ProjectTrustStore` for that). */
	setProjectTrusted(trusted: boolean): void {
		this.trustOverride = trusted;
		this.trusted = trusted;
		this.trustFileDiagnostics = [];
		this.recompute();
	}

	/** Problems of the latest load, plus values not applied because of trust. Must not throw. */
	getErrors(): SettingsDiagnostic[] {
		return [...this.loadDiagnostics, ...this.trustDiagnostics];
	}

	/**
	 * Problems reported since the previous call (pi-compatible: each has `scope` and `error`): the
	 * same problem once, at its latest report, and at most the latest 20.
	 */
	drainErrors(): SettingsDiagnostic[] {
		const drained = this.undrained;
		this.undrained = [];
		return drained;
	}

	/**
	 * Keeps `diagnostics` for {@link drainErrors}, bounded: `-p` and `--rpc` never drain, and a host
	 * whose settings file cannot be written would otherwise grow by one per failed write. The same
	 * problem again replaces its earlier report; past {@link UNDRAINED_LIMIT} the oldest go.
	 */
	private keepUndrained(diagnostics: SettingsDiagnostic[]): void {
		for (const diagnostic of diagnostics) {
			const same = this.undrained.findIndex(
				(kept) =>
					kept.type === diagnostic.type &&
					kept.path === diagnostic.path &&
					kept.key === diagnostic.key &&
					// Not the message: a failed write's names its temporary file.
					kept.error.code === diagnostic.error.code,
			);
			if (same >= 0) this.undrained.splice(same, 1);
			this.undrained.push(diagnostic);
		}
		if (this.undrained.length > UNDRAINED_LIMIT) this.undrained.splice(0, this.undrained.length - UNDRAINED_LIMIT);
	}

	/** Writes are synchronous; kept for pi compatibility. */
	async flush(): Promise<void> {}

	/** Absolute paths of the files in use (`<memory>` for in-memory settings). */
	getSettingsPaths(): { global: string; project: string } {
		return { global: this.storage.globalPath, project: this.storage.projectPath() ?? "<project>" };
	}

	/** The effective settings (global ← project ← overrides), as a copy. */
	getSettings(): Settings {
		return structuredClone(this.settings);
	}
	/** The valid keys of the global file, as a copy. */
	getGlobalSettings(): Settings {
		return structuredClone(this.globalSettings);
	}
	/** The valid keys of the project file (including ones not applied because of trust), as a copy. */
	getProjectSettings(): Settings {
		return structuredClone(this.projectSettings);
	}

	// ── persistence ────────────────────────────────────────────────────────────────────────────

	private persist(scope: SettingsScope, path: string[], value: unknown): void {
		this.persistAll(scope, [[path, value]]);
	}

	/** Saves several keys under one lock, in one write; returns what the file held at each before. */
	private persistAll(scope: SettingsScope, entries: [path: string[], value: unknown][], checked = true): unknown[] {
		for (const [path, value] of checked ? entries : []) {
			const key = path.join(".");
			const problem = checkSettingValue(key, value);
			if (problem) {
				throw new SettleError(
					"INVALID_ARGUMENT",
					`Invalid value for setting "${key}": expected ${problem.expected}, got ${problem.received}.`,
					{ details: { key } },
				);
			}
		}
		const what = `setting "${entries[0]![0].join(".")}"`;
		let previous: unknown[] = [];
		try {
			this.storage.update(
				scope,
				(current) => {
					previous = entries.map(([path]) => valueAtPath(current, path));
					for (const [path, value] of entries) setAtPath(current, path, value);
				},
				what,
			);
		} catch (error) {
			// A file that cannot be written (read-only): drainErrors() reports it, as pi's does, for a
			// caller that went on without it (a model switch still applies).
			if (error instanceof SettleError && error.code === "IO") {
				const file = this.getSettingsPaths()[scope];
				const key = entries[0]![0].join(".");
				this.keepUndrained([{ type: "error", scope, path: file, key, message: error.message, error }]);
			}
			throw error;
		}
		if ((scope === "global" ? this.globalProblem : this.projectProblem) !== undefined) {
			// The file was unusable at load time and has been fixed since: adopt what it holds now.
			this.load();
			return previous;
		}
		for (const [path, value] of entries) {
			setAtPath(scope === "global" ? this.globalSettings : this.projectSettings, path, structuredClone(value));
		}
		this.recompute();
		return previous;
	}

	private setGlobal(path: string[], value: unknown): void {
		this.persist("global", path, value);
	}

	// ── accessors (names and defaults as pi 0.73) ──────────────────────────────────────────────

	getLastChangelogVersion(): string | undefined {
		return this.settings.lastChangelogVersion;
	}
	setLastChangelogVersion(version: string): void {
		this.setGlobal(["lastChangelogVersion"], version);
	}
	/** `sessionDir` with `~` expanded; undefined when unset. */
	getSessionDir(): string | undefined {
		const dir = this.settings.sessionDir;
		if (!dir) return dir;
		// The home folder as the agent folder reads it (an empty HOME is the passwd one, not "").
		if (dir === "~" || dir.startsWith("~/")) return expandHome(dir);
		return dir;
	}
	getDefaultProvider(): string | undefined {
		return this.settings.defaultProvider;
	}
	getDefaultModel(): string | undefined {
		return this.settings.defaultModel;
	}
	setDefaultProvider(provider: string): void {
		this.setGlobal(["defaultProvider"], provider);
	}
	setDefaultModel(modelId: string): void {
		this.setGlobal(["defaultModel"], modelId);
	}
	/** Both keys in one write: another process never reads the new provider with the old model. */
	setDefaultModelAndProvider(provider: string, modelId: string): void {
		this.saveDefaultModel(provider, modelId);
	}
	/**
	 * Saves the default model as {@link setDefaultModelAndProvider} does, and returns what puts back
	 * the two keys as the file held them: for a switch that failed after the save (the session file
	 * could not record it), so the settings do not name a model the session is not on.
	 * @internal
	 */
	saveDefaultModel(provider: string, modelId: string): () => void {
		const keys = [["defaultProvider"], ["defaultModel"]];
		const previous = this.persistAll("global", [
			[keys[0]!, provider],
			[keys[1]!, modelId],
		]);
		// Put back as they were, even values the checks would refuse (a hand edit's).
		return () =>
			this.persistAll(
				"global",
				[
					[keys[0]!, previous[0]],
					[keys[1]!, previous[1]],
				],
				false,
			);
	}
	getSteeringMode(): QueueMode {
		return this.settings.steeringMode ?? "one-at-a-time";
	}
	setSteeringMode(mode: QueueMode): void {
		this.setGlobal(["steeringMode"], mode);
	}
	/** The `toolExecution` setting: how the tool calls of one answer run (default `parallel`). */
	getToolExecution(): "parallel" | "sequential" {
		return this.settings.toolExecution ?? "parallel";
	}
	getFollowUpMode(): QueueMode {
		return this.settings.followUpMode ?? "one-at-a-time";
	}
	setFollowUpMode(mode: QueueMode): void {
		this.setGlobal(["followUpMode"], mode);
	}
	getTheme(): string | undefined {
		return this.settings.theme;
	}
	setTheme(theme: string): void {
		this.setGlobal(["theme"], theme);
	}
	getDefaultThinkingLevel(): ThinkingLevelSetting | undefined {
		return this.settings.defaultThinkingLevel;
	}
	setDefaultThinkingLevel(level: ThinkingLevelSetting): void {
		this.saveDefaultThinkingLevel(level);
	}
	/**
	 * Saves the default thinking level as {@link setDefaultThinkingLevel} does, and returns what puts
	 * the key back as the file held it (see {@link saveDefaultModel}).
	 * @internal
	 */
	saveDefaultThinkingLevel(level: ThinkingLevelSetting): () => void {
		const [previous] = this.persistAll("global", [[["defaultThinkingLevel"], level]]);
		return () => this.persistAll("global", [[["defaultThinkingLevel"], previous]], false);
	}

	/**
	 * The thinking level set for one model (newer pi's `modelThinkingLevels["provider/modelId"]`;
	 * a project entry overrides the global one). A switch to that model starts with it.
	 *
	 * @example
	 * ```ts
	 * settingsManager.getModelThinkingLevel("anthropic", "claude-sonnet-4-5"); // "high" | undefined
	 * ```
	 */
	getModelThinkingLevel(provider: string, modelId: string): ThinkingLevelSetting | undefined {
		const levels = this.settings.modelThinkingLevels as Record<string, ThinkingLevelSetting> | undefined;
		return levels ? ownValue(levels, modelThinkingKey(provider, modelId)) : undefined;
	}
	/** Every per-model thinking level (`provider/modelId` → level), as a copy. */
	getAllModelThinkingLevels(): Record<string, ThinkingLevelSetting> {
		return { ...(this.settings.modelThinkingLevels as Record<string, ThinkingLevelSetting> | undefined) };
	}
	/**
	 * Saves the thinking level a switch to this model starts with, in the global settings file.
	 *
	 * @example
	 * ```ts
	 * settingsManager.setModelThinkingLevel("anthropic", "claude-sonnet-4-5", "high");
	 * ```
	 */
	setModelThinkingLevel(provider: string, modelId: string, level: ThinkingLevelSetting): void {
		const problem = checkSettingValue("defaultThinkingLevel", level);
		if (problem) {
			throw new SettleError(
				"INVALID_ARGUMENT",
				`Invalid thinking level for ${provider}/${modelId}: expected ${problem.expected}, got ${problem.received}.`,
				{ details: { key: "modelThinkingLevels" } },
			);
		}
		this.setGlobal(["modelThinkingLevels", modelThinkingKey(provider, modelId)], level);
	}
	/** Forgets one model's thinking level in the global settings file (the map goes when empty). */
	removeModelThinkingLevel(provider: string, modelId: string): void {
		const levels = this.globalSettings.modelThinkingLevels as Record<string, ThinkingLevelSetting> | undefined;
		const key = modelThinkingKey(provider, modelId);
		if (!levels || ownValue(levels, key) === undefined) return;
		const rest = Object.keys(levels).filter((name) => name !== key);
		if (rest.length === 0) this.setGlobal(["modelThinkingLevels"], undefined);
		else this.setGlobal(["modelThinkingLevels", key], undefined);
	}
	getTransport(): TransportSetting {
		return this.settings.transport ?? "auto";
	}
	setTransport(transport: TransportSetting): void {
		this.setGlobal(["transport"], transport);
	}

	/**
	 * The `cacheWarming` mode, read from the global settings only (as pi 1.6: each refresh costs
	 * money, so a project file cannot turn it on). Default `idle`.
	 */
	getCacheWarmingMode(): CacheWarmingModeSetting {
		const mode = this.globalSettings.cacheWarming;
		return mode === "off" || mode === "streaming" || mode === "idle" ? mode : "idle";
	}
	/** Persists the `cacheWarming` mode to the global settings. */
	setCacheWarmingMode(mode: CacheWarmingModeSetting): void {
		this.setGlobal(["cacheWarming"], mode);
	}

	getCompactionEnabled(): boolean {
		return this.settings.compaction?.enabled ?? true;
	}
	setCompactionEnabled(enabled: boolean): void {
		this.setGlobal(["compaction", "enabled"], enabled);
	}
	getCompactionReserveTokens(): number {
		return this.settings.compaction?.reserveTokens ?? 16384;
	}
	getCompactionKeepRecentTokens(): number {
		return this.settings.compaction?.keepRecentTokens ?? 20000;
	}
	getCompactionSettings(): CompactionSettings {
		return {
			enabled: this.getCompactionEnabled(),
			reserveTokens: this.getCompactionReserveTokens(),
			keepRecentTokens: this.getCompactionKeepRecentTokens(),
		};
	}
	getBranchSummarySettings(): { reserveTokens: number; skipPrompt: boolean } {
		return {
			reserveTokens: this.settings.branchSummary?.reserveTokens ?? 16384,
			skipPrompt: this.getBranchSummarySkipPrompt(),
		};
	}
	getBranchSummarySkipPrompt(): boolean {
		return this.settings.branchSummary?.skipPrompt ?? false;
	}

	getRetryEnabled(): boolean {
		return this.settings.retry?.enabled ?? true;
	}
	setRetryEnabled(enabled: boolean): void {
		this.setGlobal(["retry", "enabled"], enabled);
	}
	/** Agent-level retry: delay = `baseDelayMs · 2^(attempt−1)` capped by `maxAgentDelayMs`. */
	getRetrySettings(): RetrySettings {
		return {
			enabled: this.getRetryEnabled(),
			maxRetries: this.settings.retry?.maxRetries ?? 3,
			baseDelayMs: this.settings.retry?.baseDelayMs ?? 2000,
			maxAgentDelayMs: this.settings.retry?.maxAgentDelayMs ?? 60000,
		};
	}
	/**
	 * Transport-level retry of the provider client (`maxRetryDelayMs` caps provider-requested
	 * delays), and `streamIdleTimeoutMs`: the longest silence (ms) allowed on an open response
	 * stream before the request is cancelled and the turn ends with a retryable provider error
	 * (unset or 0: no limit, as in pi 0.73.1).
	 *
	 * @example
	 * ```ts
	 * const settings = SettingsManager.inMemory({ retry: { provider: { streamIdleTimeoutMs: 180_000 } } });
	 * settings.getProviderRetrySettings().streamIdleTimeoutMs; // 180000
	 * ```
	 */
	getProviderRetrySettings(): {
		timeoutMs?: number;
		maxRetries?: number;
		maxRetryDelayMs: number;
		streamIdleTimeoutMs?: number;
	} {
		const provider = this.settings.retry?.provider;
		return {
			timeoutMs: provider?.timeoutMs,
			maxRetries: provider?.maxRetries,
			maxRetryDelayMs: provider?.maxRetryDelayMs ?? 60000,
			streamIdleTimeoutMs: provider?.streamIdleTimeoutMs,
		};
	}

	getHideThinkingBlock(): boolean {
		return this.settings.hideThinkingBlock ?? false;
	}
	setHideThinkingBlock(hide: boolean): void {
		this.setGlobal(["hideThinkingBlock"], hide);
	}
	/** `shellPath` with a leading `~` expanded (as pi does), so one settings file serves every machine. */
	getShellPath(): string | undefined {
		const path = this.settings.shellPath;
		if (path === "~" || path?.startsWith("~/")) return expandHome(path);
		return path;
	}
	setShellPath(path: string | undefined): void {
		this.setGlobal(["shellPath"], path);
	}
	getQuietStartup(): boolean {
		return this.settings.quietStartup ?? false;
	}
	setQuietStartup(quiet: boolean): void {
		this.setGlobal(["quietStartup"], quiet);
	}
	getShellCommandPrefix(): string | undefined {
		return this.settings.shellCommandPrefix;
	}
	setShellCommandPrefix(prefix: string | undefined): void {
		this.setGlobal(["shellCommandPrefix"], prefix);
	}
	getNpmCommand(): string[] | undefined {
		return this.settings.npmCommand ? [...this.settings.npmCommand] : undefined;
	}
	setNpmCommand(command: string[] | undefined): void {
		this.setGlobal(["npmCommand"], command ? [...command] : undefined);
	}
	getCollapseChangelog(): boolean {
		return this.settings.collapseChangelog ?? false;
	}
	setCollapseChangelog(collapse: boolean): void {
		this.setGlobal(["collapseChangelog"], collapse);
	}
	getEnableInstallTelemetry(): boolean {
		return this.settings.enableInstallTelemetry ?? true;
	}
	setEnableInstallTelemetry(enabled: boolean): void {
		this.setGlobal(["enableInstallTelemetry"], enabled);
	}

	getPackages(): PackageSource[] {
		return structuredClone(this.settings.packages ?? []);
	}
	setPackages(packages: PackageSource[]): void {
		this.setGlobal(["packages"], packages);
	}
	setProjectPackages(packages: PackageSource[]): void {
		this.persist("project", ["packages"], packages);
	}
	/**
	 * Changes one settings file's `packages` from what the file holds once its lock is taken, not
	 * from what this manager read earlier: two processes adding or removing packages at once both
	 * keep their change (pi#8215). `scope` `"global"` is the agent folder's file. Returns the list
	 * written.
	 *
	 * @example
	 * ```ts
	 * const settings = SettingsManager.create(process.cwd());
	 * settings.updatePackages("global", (packages) => [...packages, "npm:pi-tools"]);
	 * ```
	 */
	updatePackages(scope: "global" | "project", change: (packages: PackageSource[]) => PackageSource[]): PackageSource[] {
		let written: PackageSource[] = [];
		this.storage.update(
			scope,
			(current) => {
				const listed = Array.isArray(current.packages) ? (current.packages as PackageSource[]) : [];
				written = change(structuredClone(listed));
				const problem = checkSettingValue("packages", written);
				if (problem) {
					throw new SettleError(
						"INVALID_ARGUMENT",
						`Invalid value for setting "packages": expected ${problem.expected}, got ${problem.received}.`,
						{ details: { key: "packages" } },
					);
				}
				setAtPath(current, ["packages"], written);
			},
			'setting "packages"',
		);
		if ((scope === "global" ? this.globalProblem : this.projectProblem) !== undefined) this.load();
		else {
			setAtPath(
				scope === "global" ? this.globalSettings : this.projectSettings,
				["packages"],
				structuredClone(written),
			);
			this.recompute();
		}
		return structuredClone(written);
	}
	getExtensionPaths(): string[] {
		return [...(this.settings.extensions ?? [])];
	}
	setExtensionPaths(paths: string[]): void {
		this.setGlobal(["extensions"], paths);
	}
	setProjectExtensionPaths(paths: string[]): void {
		this.persist("project", ["extensions"], paths);
	}
	getSkillPaths(): string[] {
		return [...(this.settings.skills ?? [])];
	}
	setSkillPaths(paths: string[]): void {
		this.setGlobal(["skills"], paths);
	}
	setProjectSkillPaths(paths: string[]): void {
		this.persist("project", ["skills"], paths);
	}
	getPromptTemplatePaths(): string[] {
		return [...(this.settings.prompts ?? [])];
	}
	setPromptTemplatePaths(paths: string[]): void {
		this.setGlobal(["prompts"], paths);
	}
	setProjectPromptTemplatePaths(paths: string[]): void {
		this.persist("project", ["prompts"], paths);
	}
	getThemePaths(): string[] {
		return [...(this.settings.themes ?? [])];
	}
	setThemePaths(paths: string[]): void {
		this.setGlobal(["themes"], paths);
	}
	setProjectThemePaths(paths: string[]): void {
		this.persist("project", ["themes"], paths);
	}
	getEnableSkillCommands(): boolean {
		return this.settings.enableSkillCommands ?? true;
	}
	setEnableSkillCommands(enabled: boolean): void {
		this.setGlobal(["enableSkillCommands"], enabled);
	}
	getThinkingBudgets(): ThinkingBudgetsSettings | undefined {
		return this.settings.thinkingBudgets ? { ...this.settings.thinkingBudgets } : undefined;
	}

	getShowImages(): boolean {
		return this.settings.terminal?.showImages ?? true;
	}
	setShowImages(show: boolean): void {
		this.setGlobal(["terminal", "showImages"], show);
	}
	getImageWidthCells(): number {
		const width = this.settings.terminal?.imageWidthCells;
		return typeof width === "number" && Number.isFinite(width) ? Math.max(1, Math.floor(width)) : 60;
	}
	setImageWidthCells(width: number): void {
		this.setGlobal(["terminal", "imageWidthCells"], Math.max(1, Math.floor(width)));
	}
	getClearOnShrink(): boolean {
		return this.settings.terminal?.clearOnShrink ?? process.env.PI_CLEAR_ON_SHRINK === "1";
	}
	setClearOnShrink(enabled: boolean): void {
		this.setGlobal(["terminal", "clearOnShrink"], enabled);
	}
	getShowTerminalProgress(): boolean {
		return this.settings.terminal?.showTerminalProgress ?? false;
	}
	setShowTerminalProgress(enabled: boolean): void {
		this.setGlobal(["terminal", "showTerminalProgress"], enabled);
	}
	getImageAutoResize(): boolean {
		return this.settings.images?.autoResize ?? true;
	}
	setImageAutoResize(enabled: boolean): void {
		this.setGlobal(["images", "autoResize"], enabled);
	}
	getBlockImages(): boolean {
		return this.settings.images?.blockImages ?? false;
	}
	setBlockImages(blocked: boolean): void {
		this.setGlobal(["images", "blockImages"], blocked);
	}
	getEnabledModels(): string[] | undefined {
		return this.settings.enabledModels ? [...this.settings.enabledModels] : undefined;
	}
	setEnabledModels(patterns: string[] | undefined): void {
		this.setGlobal(["enabledModels"], patterns);
	}
	getDoubleEscapeAction(): "fork" | "tree" | "none" {
		return this.settings.doubleEscapeAction ?? "tree";
	}
	setDoubleEscapeAction(action: "fork" | "tree" | "none"): void {
		this.setGlobal(["doubleEscapeAction"], action);
	}
	getTreeFilterMode(): "default" | "no-tools" | "user-only" | "labeled-only" | "all" {
		return this.settings.treeFilterMode ?? "default";
	}
	setTreeFilterMode(mode: "default" | "no-tools" | "user-only" | "labeled-only" | "all"): void {
		this.setGlobal(["treeFilterMode"], mode);
	}
	getShowHardwareCursor(): boolean {
		return this.settings.showHardwareCursor ?? process.env.PI_HARDWARE_CURSOR === "1";
	}
	setShowHardwareCursor(enabled: boolean): void {
		this.setGlobal(["showHardwareCursor"], enabled);
	}
	getEditorPaddingX(): number {
		return this.settings.editorPaddingX ?? 0;
	}
	setEditorPaddingX(padding: number): void {
		this.setGlobal(["editorPaddingX"], Math.max(0, Math.min(3, Math.floor(padding))));
	}
	getAutocompleteMaxVisible(): number {
		return this.settings.autocompleteMaxVisible ?? 5;
	}
	setAutocompleteMaxVisible(maxVisible: number): void {
		this.setGlobal(["autocompleteMaxVisible"], Math.max(3, Math.min(20, Math.floor(maxVisible))));
	}
	getCodeBlockIndent(): string {
		return this.settings.markdown?.codeBlockIndent ?? "  ";
	}
	getWarnings(): { anthropicExtraUsage?: boolean } {
		return { ...(this.settings.warnings ?? {}) };
	}
	setWarnings(warnings: { anthropicExtraUsage?: boolean }): void {
		this.setGlobal(["warnings"], { ...warnings });
	}
	/** Global only: `ask` (default; Settle has no prompt, so it means "not trusted"), `always`, `never`. */
	getDefaultProjectTrust(): DefaultProjectTrust {
		return this.globalSettings.defaultProjectTrust ?? "ask";
	}
	setDefaultProjectTrust(trust: DefaultProjectTrust): void {
		this.setGlobal(["defaultProjectTrust"], trust);
		if (this.trustOverride === undefined) {
			this.resolveTrust();
			this.recompute();
		}
	}
}

// ── helpers ──────────────────────────────────────────────────────────────────────────────────

function loadLayer(read: JsonObjectRead, scope: SettingsScope, path: string): LoadedLayer {
	if (read.status === "missing") return { settings: {}, diagnostics: [] };
	if (read.status !== "ok") {
		const message = `Could not read ${scope} settings ${path}: ${read.reason}. Fix the file (or delete it); until then it is ignored, and Settle will not write to it.`;
		return { settings: {}, problem: read.reason, diagnostics: [diagnostic("error", scope, path, undefined, message)] };
	}
	const { settings, invalid, unknown } = sanitizeSettings(migrateSettings(read.value));
	const diagnostics = invalid.map((problem) =>
		diagnostic(
			"error",
			scope,
			path,
			problem.key,
			`Invalid setting "${problem.key}" in ${path}: expected ${problem.expected}, got ${problem.received}. Fix or remove it; until then this key is ignored (the rest of the file still applies).`,
		),
	);
	diagnostics.push(...unknownKeyWarnings(unknown, scope, path));
	return { settings, diagnostics };
}

/**
 * A warning per unknown key that is a mistake: one inside a settings object (`compaction.enable`), or
 * a top-level one close to a known key (`defaultModle`). Read in silence, the typo left the default
 * on while the file seemed to say otherwise (FerroxLabs/wayland#1069). Other top-level keys stay
 * quiet: an extension may keep its own settings there.
 */
function unknownKeyWarnings(unknown: string[], scope: SettingsScope, path: string): SettingsDiagnostic[] {
	return unknown.flatMap((key) => {
		const meant = suggestSettingKey(key);
		if (meant === undefined && !key.includes(".")) return [];
		const hint = meant === undefined ? "Fix or remove it" : `Did you mean "${meant}"? Rename it`;
		return [
			diagnostic(
				"warning",
				scope,
				path,
				key,
				`Unknown setting "${key}" in ${path}: Settle does not read it, so it has no effect. ${hint}.`,
			),
		];
	});
}

function diagnostic(
	type: SettingsDiagnostic["type"],
	scope: SettingsScope,
	path: string,
	key: string | undefined,
	message: string,
): SettingsDiagnostic {
	const error = new SettleError("INVALID_SETTINGS", message, { details: { scope, path, ...(key ? { key } : {}) } });
	return { type, scope, path, ...(key ? { key } : {}), message, error };
}

/** Old pi keys, renamed as pi 0.73 renames them. Mutates and returns `settings`. */
function migrateSettings(settings: Record<string, unknown>): Record<string, unknown> {
	if ("queueMode" in settings && !("steeringMode" in settings)) {
		settings.steeringMode = settings.queueMode;
		delete settings.queueMode;
	}
	if (!("transport" in settings) && typeof settings.websockets === "boolean") {
		settings.transport = settings.websockets ? "websocket" : "sse";
		delete settings.websockets;
	}
	if (isPlainObject(settings.skills)) {
		const legacy = settings.skills;
		if (legacy.enableSkillCommands !== undefined && settings.enableSkillCommands === undefined) {
			settings.enableSkillCommands = legacy.enableSkillCommands;
		}
		if (Array.isArray(legacy.customDirectories) && legacy.customDirectories.length > 0) {
			settings.skills = legacy.customDirectories;
		} else {
			delete settings.skills;
		}
	}
	if (isPlainObject(settings.retry) && typeof settings.retry.maxDelayMs === "number") {
		// pi 0.58's retry.maxDelayMs capped provider-requested delays: that is retry.provider.maxRetryDelayMs.
		const retry = settings.retry;
		const provider = isPlainObject(retry.provider) ? retry.provider : {};
		if (provider.maxRetryDelayMs === undefined || provider.maxRetryDelayMs === null) {
			retry.provider = { ...provider, maxRetryDelayMs: retry.maxDelayMs };
		}
		delete retry.maxDelayMs;
	}
	return settings;
}

/**
 * The layers' merge: later layer wins key by key; nested objects merge at every depth, so a project's
 * `retry.provider.maxRetries` keeps the global `retry.provider.timeoutMs` (pi#7572: pi 0.73.1 merges
 * one level deep and the project's `retry.provider` replaced the global one); arrays are replaced.
 */
function mergeSettings(base: Settings, override: Settings): Settings {
	return mergeObjects(base as Record<string, unknown>, override as Record<string, unknown>) as Settings;
}

function mergeObjects(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
	const result: Record<string, unknown> = { ...base };
	for (const [key, value] of Object.entries(override)) {
		if (value === undefined) continue;
		const current = ownValue(result, key);
		setOwn(result, key, isPlainObject(value) && isPlainObject(current) ? mergeObjects(current, value) : value);
	}
	return result;
}

/** The `modelThinkingLevels` key of a model, as newer pi writes it. */
function modelThinkingKey(provider: string, modelId: string): string {
	return `${provider}/${modelId}`;
}

function valueAtPath(target: Record<string, unknown>, path: string[]): unknown {
	let node: unknown = target;
	for (const part of path) node = isPlainObject(node) ? ownValue(node, part) : undefined;
	return structuredClone(node);
}

function setAtPath(target: Record<string, unknown>, path: string[], value: unknown): void {
	let node = target;
	for (const part of path.slice(0, -1)) {
		if (!isPlainObject(ownValue(node, part))) setOwn(node, part, {});
		node = ownValue(node, part) as Record<string, unknown>;
	}
	const last = path[path.length - 1]!;
	if (value === undefined) delete node[last];
	else setOwn(node, last, value);
}
