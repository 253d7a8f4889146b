/**
 * Unknown long options reported before anything loads. Settle passes any `--name [value]` it does
 * not know to extensions (`pi.registerFlag`), which are validated only once the extensions are
 * loaded. Two kinds cannot be an extension's flag, so they are refused at once, with the same
 * shape as an unknown short option (the error, then `Run settle --help for the options.`):
 * - pi's own options Settle lacks (`--resume`, `--provider`, …): pi parses them itself, so no pi
 *   extension can own them either;
 * - any name when no extension can load: `--no-extensions` without `-e`, or no `-e`, no extensions
 *   folder (project or agent folder) and no `"extensions"` entry in either settings file.
 * Otherwise the extensions decide (src/extensions/flags.ts), and the error comes after they loaded.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { readJsonObjectFile } from "../settings/json-file.js";
import { expandHome, getDefaultAgentDir, resolveProjectConfigDir } from "../settings/paths.js";
import type { ParsedArgs } from "./args.js";
import { isPiOption, withPiOptionHint } from "./pi-options.js";

/** What the check reads of the command line. */
export type OptionArgs = Pick<ParsedArgs, "unknownFlags" | "extensions" | "noExtensions"> &
	Partial<Pick<ParsedArgs, "cwd" | "agentDir" | "model">>;

/**
 * The error lines (without `Error: `) for unknown options that no extension can own, or [] when
 * there are none (or the extensions must decide). Reads no extension; must not throw.
 *
 * @example
 * ```ts
 * const typo = { name: "typo", value: true as const, valueWasNextArg: false, messageIndex: 0 };
 * unknownOptionErrors({ unknownFlags: [typo], extensions: [], noExtensions: true }); // ["Unknown option: --typo"]
 * ```
 */
export function unknownOptionErrors(args: OptionArgs): string[] {
	if (args.unknownFlags.length === 0) return [];
	const names = [...new Set(args.unknownFlags.map((flag) => `--${flag.name}`))];
	const lines = names.filter(isPiOption).map((name) => piOptionError(name, args));
	const others = names.filter((name) => !isPiOption(name));
	if (others.length > 0 && !extensionsMayLoad(args)) {
		lines.push(`Unknown option${others.length === 1 ? "" : "s"}: ${others.join(", ")}`);
	}
	return lines;
}

/** pi's option with what to do instead; `--provider p` with `--model m` names the exact `--model p/m`. */
function piOptionError(name: string, args: OptionArgs): string {
	const message = withPiOptionHint(`Unknown option: ${name}`);
	const provider = args.unknownFlags.find((flag) => flag.name === "provider")?.value;
	if (name !== "--provider" || typeof provider !== "string" || args.model === undefined || args.model.includes("/")) {
		return message;
	}
	return `${message.replace(/\.$/, "")}: --model ${provider}/${args.model}`;
}

/**
 * Whether an extension could load and register flags: `-e`, or (unless `--no-extensions`) an
 * extensions folder or a settings `"extensions"` entry in the project or the agent folder. An
 * unreadable settings file counts as one (the run reports it after loading).
 */
function extensionsMayLoad(args: OptionArgs): boolean {
	if (args.extensions.length > 0) return true;
	if (args.noExtensions) return false;
	const cwd = resolve(args.cwd ?? process.cwd());
	const agentDir = resolve(args.agentDir !== undefined ? expandHome(args.agentDir) : getDefaultAgentDir());
	for (const dir of [resolveProjectConfigDir(cwd).dir, agentDir]) {
		if (existsSync(join(dir, "extensions"))) return true;
		const settings = readJsonObjectFile(join(dir, "settings.json"));
		if (settings.status === "missing") continue;
		if (settings.status !== "ok") return true;
		const entries = settings.value.extensions;
		if (entries !== undefined && !(Array.isArray(entries) && entries.length === 0)) return true;
	}
	return false;
}
