/**
 * pi 0.73.1 commands the `settle` command does not have, with what to do instead: someone coming
 * from pi who types `settle install npm:@foo/bar` should learn where that went.
 */

/** pi 0.73.1's package commands Settle lacks (`install`, `remove`, `list`, `update` are Settle's too). */
const PI_PACKAGE_COMMANDS: ReadonlySet<string> = new Set(["config"]);

/**
 * The error for `settle config …`: as a first argument, pi opens its screen that turns package
 * resources on and off; Settle has none, and sending the word to the model as a prompt would spend a
 * request on a mistake.
 * Undefined for any other word.
 * @example
 * ```ts
 * piPackageCommandError("config"); // "settle config: Settle has no screen that turns package resources on and off …"
 * piPackageCommandError("fix"); // undefined
 * ```
 */
export function piPackageCommandError(word: string): string | undefined {
	if (!PI_PACKAGE_COMMANDS.has(word)) return undefined;
	return `settle ${word}: Settle has no screen that turns package resources on and off (${word} is pi's). Edit the package's entry in settings.json "packages" instead: { "source": "npm:…", "extensions": [], "skills": ["!name"] } ([] loads none of a kind, ! excludes). To send "${word}" to the model as a prompt, put it in quotes with more words or after -p: settle -p "${word} …".`;
}
