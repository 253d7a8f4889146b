import { readFileSync } from "node:fs";
import { decodeText } from "../tools/text-encoding.js";

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
	return decodeText(readFileSync(path)).text;
}
