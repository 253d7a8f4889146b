/**
 * The session's `before_provider_request` handlers on summarization requests (compaction, branch
 * summaries): pi 0.73.1 runs them on turns only (pi#8999, pi#9773), so an extension that rewrites
 * each request to make it valid (a mapped model id, a routing field) broke `/compact`.
 */
import type { SummarizerOptions } from "../compaction/types.js";
import type { ExtensionRunner } from "../extensions/runner.js";

/**
 * `{onPayload}` running `runner`'s `before_provider_request` handlers, or `{}` without handlers
 * (nothing awaited, the payload untouched). Spread into a summarizer's options.
 *
 * @example
 * ```ts
 * declare const runner: ExtensionRunner;
 * const options: SummarizerOptions = { model, streamFn: faux.streamFn, ...summaryPayloadHook(runner) };
 * ```
 */
export function summaryPayloadHook(runner: ExtensionRunner): Pick<SummarizerOptions, "onPayload"> {
	if (!runner.hasHandlers("before_provider_request")) return {};
	return { onPayload: (payload, model) => runner.emitBeforeProviderRequest(payload, { model }) };
}
