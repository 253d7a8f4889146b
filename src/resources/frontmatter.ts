/**
 * YAML front matter (`---` … `---` at the top of a markdown file), parsed as pi parses it:
 * line endings normalized, the block ends at the first line starting with `---`, the body is
 * trimmed. Unlike pi, a parse failure is returned (not thrown), an empty block is stripped, and a
 * prose value holding `: ` (`description: Use it for: reviews`) or opening with brackets YAML
 * cannot read (`argument-hint: [file] [focus]`) is read as text.
 */
import { createRequire } from "node:module";
import { errorMessage } from "../errors.js";

/** The YAML parser loads on the first front matter, not with Settle. */
let yamlModule: typeof import("yaml") | undefined;
function parse(text: string): unknown {
	yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
	return yamlModule.parse(text);
}

/** Front matter and body of a markdown file. */
export interface ParsedFrontmatter {
	frontmatter: Record<string, unknown>;
	body: string;
	/** Why the front matter could not be read (it is then `{}`). */
	error?: string;
}

/**
 * Splits front matter from the body. Must not throw.
 * @example
 * ```ts
 * parseFrontmatter("---\nname: x\n---\nBody").frontmatter.name; // "x"
 * ```
 */
export function parseFrontmatter(content: string): ParsedFrontmatter {
	const normalized = content.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
	if (!normalized.startsWith("---")) return { frontmatter: {}, body: normalized };
	const end = normalized.indexOf("\n---", 3);
	if (end === -1) return { frontmatter: {}, body: normalized };
	const yamlText = normalized.slice(4, Math.max(4, end));
	const body = normalized.slice(end + 4).trim();
	if (yamlText.trim() === "") return { frontmatter: {}, body };
	let parsed: unknown;
	try {
		parsed = parse(yamlText);
	} catch (error) {
		const invalid = { frontmatter: {}, body, error: `invalid YAML front matter: ${firstLine(errorMessage(error))}` };
		const quoted = quoteProseValues(yamlText);
		if (quoted === undefined) return invalid;
		try {
			parsed = parse(quoted);
		} catch {
			return invalid;
		}
	}
	if (parsed === null || parsed === undefined) return { frontmatter: {}, body };
	if (typeof parsed !== "object" || Array.isArray(parsed)) {
		return { frontmatter: {}, body, error: "invalid front matter: expected `key: value` lines" };
	}
	return { frontmatter: parsed as Record<string, unknown>, body };
}

/**
 * The body without front matter. Must not throw.
 *
 * @example
 * ```ts
 * stripFrontmatter("---\ndescription: Review code\n---\nBody text\n"); // "Body text"
 * ```
 */
export function stripFrontmatter(content: string): string {
	return parseFrontmatter(content).body;
}

/**
 * The line (1-based) where a front matter block starts when it does not open the file, as in a
 * SKILL.md with comment lines above its `---` (bigpowers#108): a `---` line, then a `description:`
 * line before the next `---`. Such a block is read as body text (as pi reads it); this says where it
 * is, so a warning can tell the author to move it. Undefined when the file opens with `---` or holds
 * no such block. Must not throw.
 *
 * @example
 * ```ts
 * misplacedFrontmatterLine("# story: e51\n---\nname: x\ndescription: y\n---\nBody"); // 2
 * ```
 */
export function misplacedFrontmatterLine(content: string): number | undefined {
	const lines = content.replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n");
	if (lines[0]?.startsWith("---")) return undefined;
	const start = lines.findIndex((line) => line.trimEnd() === "---");
	if (start === -1) return undefined;
	for (const line of lines.slice(start + 1)) {
		if (line.startsWith("---")) return undefined;
		if (/^description\s*:/.test(line)) return start + 1;
	}
	return undefined;
}

/**
 * The front matter with each top-level `key: value` whose plain value is prose YAML refuses
 * double-quoted, or undefined when there is none:
 * - a value holding `: ` (or ending with `:`, which YAML reads the same). Skill descriptions are
 *   prose (`Use it for: reviews, tests`); YAML reads that colon as a nested mapping and refuses the
 *   file, which Claude Code loads (omnigent#6125, Proma#1299: the skill silently missing). Values
 *   YAML gives a meaning to by their first character (quotes, `|`, `>`, anchors, tags) are left;
 * - a value opening with `[` or `{` that is no YAML value alone, its brackets closed on the line:
 *   Claude Code's `argument-hint: [pr-number] [priority]` (vercel-labs/skills#1525).
 * A value holding a ` #` comment is left.
 */
function quoteProseValues(yamlText: string): string | undefined {
	let changed = false;
	const lines = yamlText.split("\n").map((line) => {
		const match = /^([A-Za-z_][\w-]*):[ \t]+(.*?)[ \t]*$/.exec(line);
		if (!match || !isProseYamlRefuses(match[2] ?? "")) return line;
		changed = true;
		return `${match[1]}: ${JSON.stringify(match[2])}`;
	});
	return changed ? lines.join("\n") : undefined;
}

function isProseYamlRefuses(value: string): boolean {
	if (value.includes(" #")) return false;
	if (/^[[{]/.test(value)) return bracketsClose(value) && !parsesAlone(value);
	return (value.includes(": ") || value.endsWith(":")) && !/^["'\]}|>&*!%@`#?-]/.test(value);
}

/** Whether every `[` and `{` of the value closes on its line (a flow list spread over lines does not). */
function bracketsClose(value: string): boolean {
	let depth = 0;
	for (const char of value) {
		if (char === "[" || char === "{") depth++;
		else if ((char === "]" || char === "}") && --depth < 0) return false;
	}
	return depth === 0;
}

function parsesAlone(value: string): boolean {
	try {
		parse(value);
		return true;
	} catch {
		return false;
	}
}

function firstLine(text: string): string {
	return text.split("\n")[0]!.trim().replace(/:$/, "");
}
