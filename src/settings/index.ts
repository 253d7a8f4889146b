/** Settings: `SettingsManager`, the TypeBox schema, project trust and config-folder resolution. */
export * from "./paths.js";
export * from "./schema.js";
export {
	PROJECT_SETTINGS_REQUIRING_TRUST,
	type SettingsDiagnostic,
	SettingsManager,
	type SettingsManagerOptions,
	type SettingsScope,
} from "./settings-manager.js";
export * from "./trust.js";
