/**
 * What the user reads when a provider's content filter stopped the answer. pi-ai 0.73.1 words it
 * "Provider finish_reason: content_filter" (Chat Completions) or "incomplete: content_filter" (a
 * Responses answer, see responses-incomplete.ts): the reason, nothing on what it means or
 * what to do (pi#2168, opencode#31744), and the same request is filtered again.
 */

const FILTERED: ReadonlyArray<readonly [RegExp, string]> = [
	[/^Provider finish_reason: content_filter$/, 'finish_reason "content_filter"'],
	[/^incomplete: content_filter$/, 'OpenAI Responses incomplete_details.reason "content_filter"'],
];

/**
 * The error text for an answer a provider's content filter stopped, with what to do; undefined
 * for any other error. Not retried: no transient pattern matches it.
 *
 * @example
 * ```ts
 * contentFilterText("Provider finish_reason: content_filter");
 * // 'The provider\'s content filter stopped this answer (finish_reason "content_filter"). Sending it again gets the same result: rephrase the request, or switch to another model.'
 * ```
 */
export function contentFilterText(errorMessage: string): string | undefined {
	const said = FILTERED.find(([pattern]) => pattern.test(errorMessage.trim()))?.[1];
	if (said === undefined) return undefined;
	return `The provider's content filter stopped this answer (${said}). Sending it again gets the same result: rephrase the request, or switch to another model.`;
}
