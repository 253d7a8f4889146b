import { readFileSync } from "node:fs";

/**
 * A text resource's content (context files, `SYSTEM.md`, skills, prompt templates), decoded by its
 * byte order mark: UTF-16 LE or BE (what Windows PowerShell 5's `>` and Notepad's "Unicode" save,
 * code_puppy#778: read as UTF-8, the rules reached the model as NUL-interleaved garbage), otherwise
 * UTF-8. The mark itself is dropped. Throws what `readFileSync` throws.
 *
 * @example
 * ```ts
 * declare const projectDir: string;
 * const rules = readTextFile(`${projectDir}/AGENTS.md`); // "- Use tabs.\n", saved as UTF-16 or UTF-8
 * ```
 */
export function readTextFile(path: string): string {
	const bytes = readFileSync(path);
	// TextDecoder consumes the mark of its own encoding.
	if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
	if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
	return new TextDecoder("utf-8").decode(bytes);
}
