/**
 * What is wrong with the value a tool's `execute` resolved to, said so its author can fix it.
 *
 * Tools loaded from extensions run without a type check (jiti strips types), so a result like
 * `"done"` or `{ content: "done" }` reaches the loop. Passed on, it is persisted as the tool
 * result and breaks every later request of the session (providers read `content` as blocks);
 * the loop turns it into an error result naming the problem instead.
 */
import { sliceWholeCharacters } from "../tools/truncate.js";
import type { AgentToolResult } from "./types.js";

/** The shape every tool result must have; appended to each problem. */
export const TOOL_RESULT_SHAPE = 'execute() must resolve to { content: [{ type: "text", text: "…" }], details }';

/** The fields of a tool result besides `content`; a result of these alone is an empty one. */
const RESULT_FIELDS: ReadonlySet<string> = new Set(["details", "isError", "terminate", "usage"]);

/**
 * Why `value` is not a tool result, or `undefined` when it is one. `content` may be missing (an
 * empty result) when the result holds only the other fields of one (`details`, `isError`,
 * `terminate`, `usage`): `{ output: "done" }` is not an empty result but output put where the model
 * never sees it (pi#9761). When present, `content` must be an array of text blocks (`text` a string)
 * and image blocks (`data` and `mimeType` strings).
 *
 * @example
 * ```ts
 * toolResultProblem({ content: [{ type: "text", text: "ok" }], details: {} }); // undefined
 * toolResultProblem("done"); // 'a string ("done") instead of a result'
 * toolResultProblem({ content: "done" }); // 'a result whose content is a string ("done"), not an array of blocks'
 * toolResultProblem({ output: "done" }); // 'a result without content (it has "output" instead)'
 * ```
 */
export function toolResultProblem(value: unknown): string | undefined {
	if (value === undefined || value === null) return "no result";
	if (typeof value !== "object" || Array.isArray(value)) return `${describe(value)} instead of a result`;
	const content = (value as { content?: unknown }).content;
	if (content === undefined) {
		const others = Object.keys(value).filter((key) => !RESULT_FIELDS.has(key));
		if (others.length === 0) return undefined;
		return `a result without content (it has ${others.map((key) => JSON.stringify(key)).join(", ")} instead)`;
	}
	if (!Array.isArray(content)) return `a result whose content is ${describe(content)}, not an array of blocks`;
	for (let index = 0; index < content.length; index++) {
		const problem = blockProblem(content[index]);
		if (problem) return `a result whose content[${index}] ${problem}`;
	}
	return undefined;
}

/**
 * `value` as a tool result: the value itself when {@link toolResultProblem} finds nothing wrong,
 * else an error saying what `execute` of `toolName` returned and what it must return.
 *
 * @example
 * ```ts
 * checkToolResult("deploy", "done");
 * // { ok: false, message: 'Tool deploy returned a string ("done") instead of a result: execute() must resolve to { content: [{ type: "text", text: "…" }], details }' }
 * ```
 */
export function checkToolResult(
	toolName: string,
	value: unknown,
): { ok: true; result: AgentToolResult } | { ok: false; message: string } {
	const problem = toolResultProblem(value);
	if (problem === undefined) return { ok: true, result: value as AgentToolResult };
	return { ok: false, message: `Tool ${toolName} returned ${problem}: ${TOOL_RESULT_SHAPE}` };
}

function blockProblem(block: unknown): string | undefined {
	if (typeof block !== "object" || block === null) return `is ${describe(block)}, not a block`;
	const { type } = block as { type?: unknown };
	if (type === "text") {
		const { text } = block as { text?: unknown };
		return typeof text === "string" ? undefined : `is a text block whose text is ${describe(text)}, not a string`;
	}
	if (type === "image") {
		const { data, mimeType } = block as { data?: unknown; mimeType?: unknown };
		if (typeof data === "string" && typeof mimeType === "string") return undefined;
		return "is an image block without string data and mimeType";
	}
	return `has type ${describe(type)}, not "text" or "image"`;
}

/** A short description of a value for the messages above. */
function describe(value: unknown): string {
	if (value === undefined) return "undefined";
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "string") {
		const shown = value.length > 40 ? `${sliceWholeCharacters(value, 40)}…` : value;
		return `a string (${JSON.stringify(shown)})`;
	}
	if (typeof value === "object") return "an object";
	return `a ${typeof value} (${String(value)})`;
}
