/**
 * Prompt templates: `<name>.md` files with optional front matter (`description`,
 * `argument-hint`), invoked as `/<name> args`. Argument parsing and substitution are pi's.
 */
import { basename } from "node:path";
import { errorMessage } from "../errors.js";
import { sliceWholeCharacters } from "../tools/truncate.js";
import { parseFrontmatter } from "./frontmatter.js";
import { readPromptTextFile, readTextFile } from "./text-file.js";
import type { PromptTemplate, ResourceDiagnostic, SourceInfo } from "./types.js";

/**
 * Splits command arguments like a shell would, without escapes: spaces, tabs and line breaks
 * separate, `"…"` and `'…'` group (the other quote kind is literal inside, line breaks too), empty
 * arguments are dropped. A `'` opens a quote only where an argument starts: inside a word it is an
 * apostrophe and kept (`don't`; pi 0.73.1 drops it and runs a quote to the next one,
 * openclaw#90468). pi 0.73.1 splits on spaces and tabs only, so `/t label⏎⏎Verbose text` gave
 * `$1` = `label⏎⏎Verbose` (pi#4553).
 * @example
 * ```ts
 * parseCommandArgs(`src/a.ts "two words" 'it"s'`); // ["src/a.ts", "two words", 'it"s']
 * parseCommandArgs("label\n\nVerbose text"); // ["label", "Verbose", "text"]
 * parseCommandArgs("don't touch the user's API"); // ["don't", "touch", "the", "user's", "API"]
 * ```
 */
export function parseCommandArgs(argsString: string): string[] {
	return splitCommandArgs(argsString).args;
}

/**
 * {@link parseCommandArgs}, plus what stood between each two arguments: `"\n"` per line break, else
 * one space. `$@` and `${@:N}` join with these, so a multi-line text (a pasted stack trace) keeps
 * its lines now that line breaks separate arguments.
 */
function splitCommandArgs(argsString: string): { args: string[]; joiners: string[] } {
	const args: string[] = [];
	const joiners: string[] = [];
	let current = "";
	let quote: string | null = null;
	let breaks = 0;
	const flush = () => {
		if (!current) return;
		if (args.length > 0) joiners.push(breaks > 0 ? "\n".repeat(breaks) : " ");
		args.push(current);
		current = "";
		breaks = 0;
	};
	for (let i = 0; i < argsString.length; i++) {
		const char = argsString[i]!;
		if (quote) {
			if (char === quote) quote = null;
			else current += char;
		} else if (char === '"' || (char === "'" && current === "")) {
			// An apostrophe inside a word (`don't`, `user's`) is text, not a quote (openclaw#90468).
			quote = char;
		} else if (char === " " || char === "\t" || char === "\n" || char === "\r") {
			flush();
			// CRLF is one line break.
			if (char === "\n" || (char === "\r" && argsString[i + 1] !== "\n")) breaks++;
		} else {
			current += char;
		}
	}
	flush();
	return { args, joiners };
}

/**
 * The placeholders `source` matches, and the same behind a backslash (in group 1), which
 * {@link fillPlaceholders} keeps as written.
 */
export function escapablePlaceholders(source: string): RegExp {
	return new RegExp(`(\\\\?)(?:${source})`, "g");
}

/**
 * Replaces each placeholder `pattern` (from {@link escapablePlaceholders}) matches with `fill`'s
 * value, in one pass; one behind a backslash (`\$1`, `\$ARGUMENTS`) is kept as written, the
 * backslash dropped: the rule prompt templates and skills share. `fill` gets the match and the
 * groups of the placeholder's own source.
 */
export function fillPlaceholders(
	content: string,
	pattern: RegExp,
	fill: (match: string, ...groups: (string | undefined)[]) => string,
): string {
	return content.replace(pattern, (match: string, escaped: string, ...rest: unknown[]) =>
		// The last two are the match's offset and the whole text.
		escaped ? match.slice(1) : fill(match, ...(rest.slice(0, -2) as (string | undefined)[])),
	);
}

/** Every argument placeholder {@link substituteArgs} fills. */
const PLACEHOLDER = escapablePlaceholders(
	/\$\{(\d+|@|ARGUMENTS):-([^}]*)\}|\$(\d+)|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@/.source,
);

/** Whether a template body has a placeholder that takes arguments (not only `$0` or escaped ones). */
function namesArguments(body: string): boolean {
	for (const match of body.matchAll(PLACEHOLDER)) if (!match[1] && match[4] !== "0") return true;
	return false;
}

/**
 * Fills a template: `$1`, `$2`, … (missing → ""), `${@:N}` (args from the N-th), `${@:N:L}`
 * (L args from the N-th), `$ARGUMENTS` and `$@` (all args joined by spaces, or by `joiners[i]`
 * between `args[i]` and `args[i + 1]`: what the typed text had there), and with a default
 * (later pi's syntax) `${N:-text}`, `${@:-text}`, `${ARGUMENTS:-text}`: the text when that
 * argument is missing or empty (no arguments at all for the last two). Substituted values and
 * defaults are never substituted again. `$0` is no argument (they count from 1) and stays as written,
 * as does a placeholder behind a backslash (`\$1`, `\$ARGUMENTS`), the backslash dropped: a price
 * (`$0.01`), awk's `$0` and a template that tells the model about placeholders reach it as written
 * (claude-code#78759, opencode#9831; pi 0.73.1 empties `$0` and fills `\$1`).
 *
 * @example
 * ```ts
 * substituteArgs("Review $1 for ${@:2}", ["a.ts", "bugs", "style"]); // "Review a.ts for bugs style"
 * substituteArgs("Fix: $ARGUMENTS", ["the", "$1"]); // "Fix: the $1"
 * substituteArgs("Review ${1:-the diff} for ${@:-bugs}", []); // "Review the diff for bugs"
 * substituteArgs("Use \\$1 for the first; awk '{print $0}' $1", ["a.txt"]); // "Use $1 for the first; awk '{print $0}' a.txt"
 * ```
 */
export function substituteArgs(content: string, args: readonly string[], joiners?: readonly string[]): string {
	const join = (from: number, to: number) => {
		if (from >= Math.min(to, args.length)) return "";
		let joined = args[from]!;
		for (let i = from + 1; i < Math.min(to, args.length); i++) joined += (joiners?.[i - 1] ?? " ") + args[i];
		return joined;
	};
	// One pass over the template, so a value that contains `$1` or `$@` stays as it is.
	const all = join(0, args.length);
	return fillPlaceholders(content, PLACEHOLDER, (match, defaulted, fallback = "", position, start, length) => {
		if (defaulted !== undefined) {
			const value = /^\d+$/.test(defaulted) ? (args[Number.parseInt(defaulted, 10) - 1] ?? "") : all;
			return value === "" ? fallback : value;
		}
		if (position !== undefined) return position === "0" ? match : (args[Number.parseInt(position, 10) - 1] ?? "");
		if (start !== undefined) {
			const from = Math.max(0, Number.parseInt(start, 10) - 1);
			return join(from, length === undefined ? args.length : from + Number.parseInt(length, 10));
		}
		return match === "$ARGUMENTS" || match === "$@" ? all : match;
	});
}

/**
 * Expands `/<name> args` when a template has that name; other text comes back unchanged. Arguments
 * given to a template without placeholders follow its text after a blank line, as typed.
 * @example
 * ```ts
 * const templates = resourceLoader.getPrompts().prompts; // e.g. review.md: "Review this code: $ARGUMENTS"
 * expandPromptTemplate("/review src/index.ts", templates); // "Review this code: src/index.ts"
 * // e.g. tidy.md: "Tidy the imports."
 * expandPromptTemplate("/tidy src/a.ts", templates); // "Tidy the imports.\n\nsrc/a.ts"
 * ```
 */
export function expandPromptTemplate(
	text: string,
	templates: readonly PromptTemplate[],
	contentOf: (template: PromptTemplate) => string = (template) => template.content,
): string {
	if (!text.startsWith("/")) return text;
	// Any whitespace ends the name, as for skills (pi#8413): `/fix`, a new line, then a pasted trace.
	const space = text.search(/\s/);
	const name = space === -1 ? text.slice(1) : text.slice(1, space);
	const template = templates.find((candidate) => candidate.name === name);
	if (!template) return text;
	const typed = space === -1 ? "" : text.slice(space + 1);
	const { args, joiners } = splitCommandArgs(typed);
	const body = contentOf(template);
	const expanded = substituteArgs(body, args, joiners);
	// A template that names no argument would drop what the user typed (pi 0.73.1 does,
	// mastra#13493): it follows the body after a blank line, as a skill's arguments do.
	if (args.length === 0 || namesArguments(body)) return expanded;
	return expanded.trim() ? `${expanded.trimEnd()}\n\n${typed.trim()}` : typed.trim();
}

/**
 * A template's body as its file says now, so an edit counts at the next `/name` as it does for
 * `/skill:name` (claude-code#11745); the body loaded with it when the file is gone, unreadable or
 * its front matter no longer parses. Pass it to {@link expandPromptTemplate}.
 * @example
 * ```ts
 * expandPromptTemplate("/review src/a.ts", resourceLoader.getPrompts().prompts, templateBodyOnDisk);
 * ```
 */
export function templateBodyOnDisk(template: PromptTemplate): string {
	try {
		const { body, error } = parseFrontmatter(readTextFile(template.filePath));
		return error ? template.content : body;
	} catch {
		return template.content;
	}
}

/**
 * Reads one template file. Must not throw: problems are diagnostics.
 *
 * @example
 * ```ts
 * const { template, diagnostics } = loadPromptTemplateFile("/repo/.settle/prompts/review.md", { source: "local", scope: "project", origin: "top-level" });
 * template?.name; // "review"; null (with a warning diagnostic) when unreadable or the YAML is broken
 * ```
 */
export function loadPromptTemplateFile(
	filePath: string,
	sourceInfo: Omit<SourceInfo, "path">,
): { template: PromptTemplate | null; diagnostics: ResourceDiagnostic[] } {
	const diagnostics: ResourceDiagnostic[] = [];
	let raw: string;
	try {
		raw = readPromptTextFile(filePath, "prompt template", diagnostics);
	} catch (error) {
		return {
			template: null,
			diagnostics: [
				{ type: "warning", message: `cannot read prompt template: ${errorMessage(error)}`, path: filePath },
			],
		};
	}
	const { frontmatter, body, error } = parseFrontmatter(raw);
	if (error) {
		diagnostics.push({
			type: "warning",
			message: `${error}. Fix the YAML between the --- lines; the template is not loaded until then.`,
			path: filePath,
		});
		return { template: null, diagnostics };
	}
	let description = typeof frontmatter.description === "string" ? frontmatter.description : "";
	if (!description) {
		const firstLine = body.split("\n").find((line) => line.trim());
		// Not between an emoji's halves: a lone half is U+FFFD in /help and in get_commands' JSON.
		if (firstLine) description = firstLine.length > 60 ? `${sliceWholeCharacters(firstLine, 60)}...` : firstLine;
	}
	const hint = argumentHint(frontmatter["argument-hint"]);
	return {
		template: {
			name: basename(filePath).replace(/\.md$/, ""),
			description,
			...(hint ? { argumentHint: hint } : {}),
			content: body,
			filePath,
			sourceInfo: { ...sourceInfo, path: filePath },
		},
		diagnostics,
	};
}

/**
 * A template's `argument-hint` as its author wrote it. Unquoted, Claude Code's `[message]` is a YAML
 * list, which Claude Code shows as written (claude-code#22161): its text again, `[message]`.
 */
function argumentHint(value: unknown): string | undefined {
	if (typeof value === "string") return value || undefined;
	if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string")) {
		return `[${value.join(", ")}]`;
	}
	return undefined;
}

/** A template file to load, with where it came from. */
export interface PromptTemplateCandidate {
	filePath: string;
	sourceInfo: Omit<SourceInfo, "path">;
}

/**
 * Loads candidates in order; the first template of a name wins (pi's `/name` collision; the others
 * get a `collision` diagnostic). Must not throw: problems are diagnostics.
 *
 * @example
 * ```ts
 * const { prompts, diagnostics } = loadPromptTemplateCandidates([
 *   { filePath: `${cwd}/.settle/prompts/review.md`, sourceInfo: { source: "local", scope: "project", origin: "top-level" } },
 * ]);
 * prompts[0]?.name; // "review"
 * ```
 */
export function loadPromptTemplateCandidates(candidates: PromptTemplateCandidate[]): {
	prompts: PromptTemplate[];
	diagnostics: ResourceDiagnostic[];
} {
	const byName = new Map<string, PromptTemplate>();
	const diagnostics: ResourceDiagnostic[] = [];
	const collisions: ResourceDiagnostic[] = [];
	const seen = new Set<string>();
	for (const candidate of candidates) {
		if (seen.has(candidate.filePath)) continue;
		seen.add(candidate.filePath);
		const { template, diagnostics: found } = loadPromptTemplateFile(candidate.filePath, candidate.sourceInfo);
		diagnostics.push(...found);
		if (!template) continue;
		const existing = byName.get(template.name);
		if (existing) {
			collisions.push({
				type: "collision",
				message: `name "/${template.name}" collision`,
				path: template.filePath,
				collision: {
					resourceType: "prompt",
					name: template.name,
					winnerPath: existing.filePath,
					loserPath: template.filePath,
				},
			});
			continue;
		}
		byName.set(template.name, template);
	}
	return { prompts: [...byName.values()], diagnostics: [...diagnostics, ...collisions] };
}
