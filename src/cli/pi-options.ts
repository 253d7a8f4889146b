/**
 * pi 0.73.1 commands the `settle` command does not have, with what to do instead: someone coming
 * from pi who types `settle install npm:@foo/bar` should learn where that went.
 */

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
