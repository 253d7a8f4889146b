/**
 * TypeBox schema of `settings.json` (global `<agentDir>/settings.json` and project
 * `.settle/settings.json`). Keys and shapes match pi 0.73's settings file, plus the document
 * version's `retry.maxAgentDelayMs` and `defaultProjectTrust`. Unknown keys are allowed (and kept
 * when Settle writes the file), so a settings file shared with a newer pi stays valid.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { Type } from "../schema/typebox.js";

const NonNegativeInteger = Type.Integer({ minimum: 0 });
const NonNegativeNumber = Type.Number({ minimum: 0 });
const StringList = Type.Array(Type.String());

/** Thinking levels a default may name. */
export const ThinkingLevelSchema = Type.Union([
	Type.Literal("off"),
	Type.Literal("minimal"),
	Type.Literal("low"),
	Type.Literal("medium"),
	Type.Literal("high"),
	Type.Literal("xhigh"),
]);
/** How queued steering / follow-up messages are delivered. */
export const QueueModeSchema = Type.Union([Type.Literal("all"), Type.Literal("one-at-a-time")]);
/** Cache-warming profile (pi 1.6): `idle` also warms between agent runs; global setting only. */
export const CacheWarmingModeSchema = Type.Union(
	[Type.Literal("off"), Type.Literal("streaming"), Type.Literal("idle")],
	{
		description:
			'Cache-warming profile. "idle" also warms between agent runs. Global only because each refresh costs money.',
	},
);
/** Provider transport preference. */
export const TransportSchema = Type.Union([
	Type.Literal("sse"),
	Type.Literal("websocket"),
	Type.Literal("websocket-cached"),
	Type.Literal("auto"),
]);
/** Whether a project is trusted when nothing more specific decides (global settings only). */
export const DefaultProjectTrustSchema = Type.Union([
	Type.Literal("ask"),
	Type.Literal("always"),
	Type.Literal("never"),
]);

const open = { additionalProperties: true } as const;

/** TypeBox schema of the `compaction` settings object. */
export const CompactionSettingsSchema = Type.Object(
	{
		enabled: Type.Optional(Type.Boolean()),
		reserveTokens: Type.Optional(NonNegativeInteger),
		keepRecentTokens: Type.Optional(NonNegativeInteger),
	},
	open,
);

/** TypeBox schema of the `branchSummary` settings object. */
export const BranchSummarySettingsSchema = Type.Object(
	{
		reserveTokens: Type.Optional(NonNegativeInteger),
		skipPrompt: Type.Optional(Type.Boolean()),
	},
	open,
);

/** TypeBox schema of the provider-level retry settings (`retry.provider`). */
export const ProviderRetrySettingsSchema = Type.Object(
	{
		timeoutMs: Type.Optional(NonNegativeNumber),
		maxRetries: Type.Optional(NonNegativeInteger),
		maxRetryDelayMs: Type.Optional(NonNegativeNumber),
		streamIdleTimeoutMs: Type.Optional(NonNegativeNumber),
	},
	open,
);

/** TypeBox schema of the `retry` settings object. */
export const RetrySettingsSchema = Type.Object(
	{
		enabled: Type.Optional(Type.Boolean()),
		maxRetries: Type.Optional(NonNegativeInteger),
		baseDelayMs: Type.Optional(NonNegativeNumber),
		maxAgentDelayMs: Type.Optional(NonNegativeNumber),
		provider: Type.Optional(ProviderRetrySettingsSchema),
	},
	open,
);

/** TypeBox schema of the `terminal` settings object. */
export const TerminalSettingsSchema = Type.Object(
	{
		showImages: Type.Optional(Type.Boolean()),
		imageWidthCells: Type.Optional(Type.Number()),
		clearOnShrink: Type.Optional(Type.Boolean()),
		showTerminalProgress: Type.Optional(Type.Boolean()),
	},
	open,
);

/** TypeBox schema of the `images` settings object. */
export const ImageSettingsSchema = Type.Object(
	{
		autoResize: Type.Optional(Type.Boolean()),
		blockImages: Type.Optional(Type.Boolean()),
	},
	open,
);

/** TypeBox schema of the `thinkingBudgets` settings object (tokens per thinking level). */
export const ThinkingBudgetsSettingsSchema = Type.Object(
	{
		minimal: Type.Optional(NonNegativeInteger),
		low: Type.Optional(NonNegativeInteger),
		medium: Type.Optional(NonNegativeInteger),
		high: Type.Optional(NonNegativeInteger),
	},
	open,
);

/** TypeBox schema of a `packages` entry: a source string, or a source with per-kind filters (extensions, skills, prompts, themes). */
export const PackageSourceSchema = Type.Union([
	Type.String(),
	Type.Object(
		{
			source: Type.String(),
			extensions: Type.Optional(StringList),
			skills: Type.Optional(StringList),
			prompts: Type.Optional(StringList),
			themes: Type.Optional(StringList),
		},
		open,
	),
]);

/** The whole settings file. Every key is optional; accessors supply the defaults. */
export const SettingsSchema = Type.Object(
	{
		lastChangelogVersion: Type.Optional(Type.String()),
		defaultProvider: Type.Optional(Type.String()),
		defaultModel: Type.Optional(Type.String()),
		defaultThinkingLevel: Type.Optional(ThinkingLevelSchema),
		/** Newer pi: the thinking level a switch to this model starts with, keyed `provider/modelId`. */
		modelThinkingLevels: Type.Optional(Type.Object({}, { additionalProperties: ThinkingLevelSchema })),
		transport: Type.Optional(TransportSchema),
		steeringMode: Type.Optional(QueueModeSchema),
		followUpMode: Type.Optional(QueueModeSchema),
		/**
		 * How the tool calls of one answer run: `parallel` (default, as pi) or `sequential`, one after
		 * another in the calls' order, for models that assume each call sees the previous one's effect.
		 */
		toolExecution: Type.Optional(Type.Union([Type.Literal("parallel"), Type.Literal("sequential")])),
		theme: Type.Optional(Type.String()),
		compaction: Type.Optional(CompactionSettingsSchema),
		branchSummary: Type.Optional(BranchSummarySettingsSchema),
		retry: Type.Optional(RetrySettingsSchema),
		hideThinkingBlock: Type.Optional(Type.Boolean()),
		shellPath: Type.Optional(Type.String()),
		quietStartup: Type.Optional(Type.Boolean()),
		shellCommandPrefix: Type.Optional(Type.String()),
		npmCommand: Type.Optional(StringList),
		collapseChangelog: Type.Optional(Type.Boolean()),
		enableInstallTelemetry: Type.Optional(Type.Boolean()),
		packages: Type.Optional(Type.Array(PackageSourceSchema)),
		extensions: Type.Optional(StringList),
		skills: Type.Optional(StringList),
		prompts: Type.Optional(StringList),
		themes: Type.Optional(StringList),
		enableSkillCommands: Type.Optional(Type.Boolean()),
		terminal: Type.Optional(TerminalSettingsSchema),
		images: Type.Optional(ImageSettingsSchema),
		enabledModels: Type.Optional(StringList),
		doubleEscapeAction: Type.Optional(Type.Union([Type.Literal("fork"), Type.Literal("tree"), Type.Literal("none")])),
		treeFilterMode: Type.Optional(
			Type.Union([
				Type.Literal("default"),
				Type.Literal("no-tools"),
				Type.Literal("user-only"),
				Type.Literal("labeled-only"),
				Type.Literal("all"),
			]),
		),
		thinkingBudgets: Type.Optional(ThinkingBudgetsSettingsSchema),
		editorPaddingX: Type.Optional(Type.Number()),
		autocompleteMaxVisible: Type.Optional(Type.Number()),
		showHardwareCursor: Type.Optional(Type.Boolean()),
		markdown: Type.Optional(Type.Object({ codeBlockIndent: Type.Optional(Type.String()) }, open)),
		warnings: Type.Optional(Type.Object({ anthropicExtraUsage: Type.Optional(Type.Boolean()) }, open)),
		sessionDir: Type.Optional(Type.String()),
		defaultProjectTrust: Type.Optional(DefaultProjectTrustSchema),
		cacheWarming: Type.Optional(CacheWarmingModeSchema),
	},
	open,
);

/** A settings file's contents (global `settings.json` or the project's), every field optional. */
export type Settings = Static<typeof SettingsSchema>;
/** The `compaction` object as written in a settings file (every field optional). */
export type CompactionSettingsInput = Static<typeof CompactionSettingsSchema>;
/** The `branchSummary` settings object as written in a settings file. */
export type BranchSummarySettings = Static<typeof BranchSummarySettingsSchema>;
/** The `retry` object as written in a settings file (every field optional). */
export type RetrySettingsInput = Static<typeof RetrySettingsSchema>;
/** Provider-level retry settings as written in a settings file. */
export type ProviderRetrySettings = Static<typeof ProviderRetrySettingsSchema>;
/** The `images` settings object as written in a settings file. */
export type ImageSettings = Static<typeof ImageSettingsSchema>;
/** The `terminal` settings object as written in a settings file. */
export type TerminalSettings = Static<typeof TerminalSettingsSchema>;
/** The `thinkingBudgets` settings object as written in a settings file. */
export type ThinkingBudgetsSettings = Static<typeof ThinkingBudgetsSettingsSchema>;
/** A `packages` entry as written in a settings file. */
export type PackageSource = Static<typeof PackageSourceSchema>;
/** The `transport` setting (see {@link Transport}). */
export type TransportSetting = Static<typeof TransportSchema>;
/** The `defaultProjectTrust` setting: what to do with a project not yet trusted or distrusted. */
export type DefaultProjectTrust = Static<typeof DefaultProjectTrustSchema>;
/** The `cacheWarming` setting (`off` | `streaming` | `idle`). */
export type CacheWarmingModeSetting = Static<typeof CacheWarmingModeSchema>;
/** A thinking level as written in a settings file. */
export type ThinkingLevelSetting = Static<typeof ThinkingLevelSchema>;

/**
 * The schema of one top-level key, or undefined for keys Settle does not know.
 *
 * @example
 * ```ts
 * const schema = settingSchema("compaction"); // the TypeBox schema of `compaction`
 * settingSchema("noSuchKey"); // undefined
 * ```
 */
export function settingSchema(key: string): TSchema | undefined {
	const properties = SettingsSchema.properties as Record<string, TSchema>;
	return Object.hasOwn(properties, key) ? properties[key] : undefined;
}
