/** Extension CLI flags: which are registered, and applying values given on the command line. */
import type { Extension, ExtensionRuntime } from "./runtime.js";
import type { ExtensionDiagnostic, ExtensionFlag } from "./types.js";

/**
 * Registered flags by name; the first registration (in load order) wins.
 *
 * @example
 * ```ts
 * const { extensions } = await instantiateExtensions(resourceLoader.getExtensions().extensions, { cwd });
 * for (const [name, flag] of collectExtensionFlags(extensions)) console.log(`--${name} (${flag.type})`);
 * ```
 */
export function collectExtensionFlags(extensions: readonly Extension[]): Map<string, ExtensionFlag> {
	const flags = new Map<string, ExtensionFlag>();
	for (const extension of extensions) {
		for (const [name, flag] of extension.flags) if (!flags.has(name)) flags.set(name, flag);
	}
	return flags;
}

/** Flag values as the CLI collects them: `--name value` → string, a bare `--name` → `true`. */
export type ExtensionFlagInput = ReadonlyMap<string, string | boolean> | Readonly<Record<string, string | boolean>>;

/**
 * Applies CLI values to registered flags and returns what was wrong, with pi's messages: a
 * boolean flag becomes `true` whatever follows it; a string flag needs a string
 * (`Extension flag "--x" requires a value`); names nobody registered are reported together
 * (`Unknown option: --a` / `Unknown options: --a, --b`). Valid values are applied even when
 * others are wrong. Must not throw.
 *
 * @example
 * ```ts
 * const loaded = await instantiateExtensions(resourceLoader.getExtensions().extensions, { cwd });
 * const diagnostics = applyExtensionFlagValues(loaded, new Map<string, boolean | string>([["plan", true], ["model-alias", "fast"]]));
 * for (const d of diagnostics) console.error(d.message);
 * ```
 */
export function applyExtensionFlagValues(
	target: { extensions: readonly Extension[]; runtime: ExtensionRuntime },
	values: ExtensionFlagInput,
): ExtensionDiagnostic[] {
	const flags = collectExtensionFlags(target.extensions);
	const diagnostics: ExtensionDiagnostic[] = [];
	const unknown: string[] = [];
	const entries = values instanceof Map ? [...values.entries()] : Object.entries(values);
	for (const [name, value] of entries) {
		const flag = flags.get(name);
		if (!flag) {
			unknown.push(name);
			continue;
		}
		if (flag.type === "boolean") {
			target.runtime.flagValues.set(name, true);
		} else if (typeof value === "string") {
			target.runtime.flagValues.set(name, value);
		} else {
			diagnostics.push({ type: "error", message: `Extension flag "--${name}" requires a value` });
		}
	}
	if (unknown.length > 0) {
		diagnostics.push({
			type: "error",
			message: `Unknown option${unknown.length === 1 ? "" : "s"}: ${unknown.map((name) => `--${name}`).join(", ")}`,
		});
	}
	return diagnostics;
}
