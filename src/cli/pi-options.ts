/**
 * pi 0.73.1 options the `settle` command does not have, each with what to do instead: someone
 * coming from pi who types `settle --theme dark` should learn where that went, not only that it is
 * unknown. The options stay unknown options (exit 2, as test/cli/pi-differential-args checks).
 */

const THEMES = "Settle's chat is line-based and has no themes (NO_COLOR turns its colours off).";

const HINTS: Readonly<Record<string, string>> = {
	"--theme": THEMES,
	"--no-themes": THEMES,
};

/**
 * `message` with a note appended when it is `Unknown option: <name>` for one of pi's options
 * that Settle lacks, with what to do instead; otherwise `message`.
 * @example
 * ```ts
 * withPiOptionHint("Unknown option: --theme"); // "… --theme (a pi option Settle does not have). Settle's chat is line-based and has no themes …"
 * withPiOptionHint("Unknown option: --typo"); // unchanged
 * ```
 */
export function withPiOptionHint(message: string): string {
	const name = /^Unknown option: (\S+)$/.exec(message)?.[1];
	if (name === undefined || !Object.hasOwn(HINTS, name)) return message;
	const hint = HINTS[name];
	return `${message} (a pi option Settle does not have). ${hint}`;
}

/**
 * Whether `name` (`--no-themes`) is one of pi's long options that Settle lacks. pi parses these itself,
 * so no pi extension can own one as a flag: the CLI refuses them before loading extensions.
 * @example
 * ```ts
 * isPiOption("--no-themes"); // true
 * isPiOption("--plan"); // false: maybe an extension's flag
 * ```
 */
export function isPiOption(name: string): boolean {
	return name.startsWith("--") && Object.hasOwn(HINTS, name);
}

/** pi 0.73.1's package-manager commands (`pi install npm:@foo/bar`, `pi list`, `pi config`, …). */
const PI_PACKAGE_COMMANDS: ReadonlySet<string> = new Set([
	"install",
	"remove",
	"uninstall",
	"update",
	"list",
	"config",
]);

/**
 * The error for `settle <pi command> …`: as a first argument, pi runs its package manager; Settle
 * has none, and sending the word to the model as a prompt would spend a request on a mistake.
 * Undefined for any other word.
 * @example
 * ```ts
 * piPackageCommandError("install"); // "settle install: Settle has no package manager (install is pi's command …). …"
 * piPackageCommandError("fix"); // undefined
 * ```
 */
export function piPackageCommandError(word: string): string | undefined {
	if (!PI_PACKAGE_COMMANDS.has(word)) return undefined;
	return `settle ${word}: Settle has no package manager (${word} is pi's command for pi packages). To use a package's extensions, skills or prompt templates, list their files under "extensions", "skills" or "prompts" in settings.json, or load an extension with -e <file>. To send "${word}" to the model as a prompt, put it in quotes with more words or after -p: settle -p "${word} …".`;
}
