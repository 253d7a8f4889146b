import { readFileSync } from "node:fs";
import { decodeText } from "../tools/text-encoding.js";
import type { ResourceDiagnostic } from "./types.js";

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

/**
 * {@link readTextFile} for a file whose text goes into the system prompt: one that is not UTF-8
 * (an editor's Windows-1252 quotes, GBK) still goes, and a warning naming `what` and the `iconv`
 * command that converts it is added to `diagnostics`: read in silence, the model got U+FFFD for
 * each such byte and the user never knew (codex#23223). Throws what `readFileSync` throws.
 *
 * @example
 * ```ts
 * declare const projectDir: string;
 * const diagnostics: ResourceDiagnostic[] = [];
 * const rules = readPromptTextFile(`${projectDir}/AGENTS.md`, "context file", diagnostics);
 * ```
 */
export function readPromptTextFile(path: string, what: string, diagnostics: ResourceDiagnostic[]): string {
	const { text, notUtf8 } = decodeText(readFileSync(path));
	if (notUtf8)
		diagnostics.push({
			type: "warning",
			message: `${what} is not UTF-8 text: the model gets \ufffd for each sequence of its bytes that is not. Save it as UTF-8, or convert it: iconv -f <its encoding> -t UTF-8 <file> (for example CP1252, GBK, SHIFT_JIS)`,
			path,
		});
	return text;
}
