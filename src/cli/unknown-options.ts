/**
 * Unknown long options reported before anything loads. Settle passes any `--name [value]` it does
 * not know to extensions (`pi.registerFlag`), which are validated only once the extensions are
 * loaded. When no extension can load, no name can be an extension's flag, so it is refused at
 * once, with the same shape as an unknown short option (the error, then `Run settle --help for the
 * options.`). No extension can load with `--no-extensions` without `-e`, or with no `-e`, no
 * extensions folder (project or agent folder) and no `"extensions"` entry in either settings file.
 * A project that is not trusted (`--no-approve`, `<agentDir>/trust.json`, `defaultProjectTrust`:
 * the rule the resource loader follows) loads neither its folder nor its settings' entries, so they
 * do not count; the refusal then says how to trust it. (pi's own options are all known options:
 * `--theme` / `--no-themes` are accepted and change nothing.)
 * Otherwise the extensions decide (src/extensions/flags.ts), and the error comes after they loaded.
 * An unreadable settings file is not decided here: it may list the extension that owns the option,
 * and the host refuses to start with it before any extension loads (src/cli/host.ts).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { readJsonObjectFile } from "../settings/json-file.js";
import { expandHome, getDefaultAgentDir, resolveProjectConfigDir } from "../settings/paths.js";
import { resolveProjectTrust } from "../settings/trust.js";
import { type ParsedArgs, projectDirectory } from "./args.js";

/** What the check reads of the command line. */
export type OptionArgs = Pick<ParsedArgs, "unknownFlags" | "extensions" | "noExtensions"> &
	Partial<Pick<ParsedArgs, "cwd" | "agentDir" | "model" | "trustProject">>;

/**
 * The error lines (without `Error: `) for unknown options that no extension can own, or no errors
 * when there are none (or the extensions must decide), and a `note` to print after them when trust
 * kept the project's extensions out. Reads no extension; must not throw.
 *
 * @example
 * ```ts
 * const typo = { name: "typo", value: true as const, valueWasNextArg: false, messageIndex: 0 };
 * unknownOptionErrors({ unknownFlags: [typo], extensions: [], noExtensions: true }); // { errors: ["Unknown option: --typo"] }
 * ```
 */
export function unknownOptionErrors(args: OptionArgs): { errors: string[]; note?: string } {
	if (args.unknownFlags.length === 0) return { errors: [] };
	const names = [...new Set(args.unknownFlags.map((flag) => `--${flag.name}`))];
	const sources = extensionSources(args);
	if (sources.may) return { errors: [] };
	const errors = [`Unknown option${names.length === 1 ? "" : "s"}: ${names.join(", ")}`];
	if (sources.untrustedProject === undefined) return { errors };
	return { errors, note: untrustedFlagsLine(sources.untrustedProject) };
}

/** Said when an unknown option may be a flag of a project extension that trust kept from loading. */
export function untrustedFlagsLine(cwd: string): string {
	return `The project ${cwd} is not trusted, so its extensions were not loaded and their flags are unknown: run settle with --approve to load them.`;
}

/**
 * Whether an extension could load and register flags: `-e`, or (unless `--no-extensions`) an
 * extensions folder or a settings `"extensions"` entry in the agent folder, or in the project folder
 * when the project is trusted. An unreadable settings file counts as one (the host refuses it before
 * loading). `untrustedProject` is the project whose extensions trust keeps out, when it has some.
 */
function extensionSources(args: OptionArgs): { may: boolean; untrustedProject?: string } {
	if (args.extensions.length > 0) return { may: true };
	if (args.noExtensions) return { may: false };
	const cwd = projectDirectory(args);
	const agentDir = resolve(args.agentDir !== undefined ? expandHome(args.agentDir) : getDefaultAgentDir());
	const global = folderSources(agentDir);
	if (global.may) return { may: true };
	const project = folderSources(resolveProjectConfigDir(cwd).dir);
	if (project.broken) return { may: true };
	if (!project.may) return { may: false };
	const trusted =
		args.trustProject ??
		resolveProjectTrust({ cwd, agentDir, defaultProjectTrust: defaultProjectTrust(global.settings) }).trusted;
	return trusted ? { may: true } : { may: false, untrustedProject: cwd };
}

/** One config folder: an `extensions` folder or settings entries (`may`), or a settings file that cannot be read. */
function folderSources(dir: string): { may: boolean; broken?: boolean; settings?: Record<string, unknown> } {
	const settings = readJsonObjectFile(join(dir, "settings.json"));
	if (settings.status === "malformed" || settings.status === "unreadable") return { may: true, broken: true };
	const value = settings.status === "ok" ? settings.value : undefined;
	if (existsSync(join(dir, "extensions"))) return { may: true, ...(value ? { settings: value } : {}) };
	const entries = value?.extensions;
	const listed = entries !== undefined && !(Array.isArray(entries) && entries.length === 0);
	return { may: listed, ...(value ? { settings: value } : {}) };
}

/** The global `defaultProjectTrust`, when the file holds a valid one (else the default, `ask`). */
function defaultProjectTrust(settings: Record<string, unknown> | undefined): "always" | "never" | "ask" | undefined {
	const value = settings?.defaultProjectTrust;
	return value === "always" || value === "never" || value === "ask" ? value : undefined;
}
