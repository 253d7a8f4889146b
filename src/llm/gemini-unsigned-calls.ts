/**
 * Function calls Gemini 3 did not sign. Gemini 3 wants the first function call of each of its steps
 * in the current turn (since the last user text) sent back with the `thoughtSignature` it gave; a
 * call another model made (a switch to Gemini while a tool ran, a call an extension injected) has
 * none, and pi-ai 0.73.1 sends it without one: 400 "Function call is missing a thought_signature in
 * functionCall parts" on every try (pipecat#5809, docker-agent#2155, pi#1829). Google documents a
 * stand-in signature for exactly these calls.
 */
import type { Model, StreamOptions } from "./types.js";

/** Google's documented signature for a function call its model did not make. */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

const GEMINI_APIS: readonly string[] = ["google-generative-ai", "google-vertex"];

type Part = { text?: unknown; functionCall?: unknown; functionResponse?: unknown; thoughtSignature?: unknown };
type Content = { role?: unknown; parts?: unknown };

/** Gemini 1.x and 2.x do not check signatures; any other model on a Gemini API may. */
function checksSignatures(model: Model): boolean {
	const version = /gemini(?:-live)?-(\d+)/i.exec(model.id)?.[1];
	return version === undefined || Number(version) >= 3;
}

/**
 * `options` for pi-ai whose `onPayload` gives each step of the current turn whose first function
 * call is unsigned Google's stand-in signature ({@link SKIP_THOUGHT_SIGNATURE}); the caller's own
 * `onPayload` then runs. Signed calls, earlier turns, other wire APIs and Gemini 1/2 are left alone.
 *
 * @example
 * ```ts
 * declare const model: Model;
 * const options = signUnsignedGeminiCalls(model, {});
 * // a Claude tool call continued on Gemini 3 goes out with thoughtSignature "skip_thought_signature_validator"
 * ```
 */
export function signUnsignedGeminiCalls(model: Model, options: StreamOptions | undefined): StreamOptions | undefined {
	if (!GEMINI_APIS.includes(model.api) || !checksSignatures(model)) return options;
	const outer = options?.onPayload;
	const onPayload: StreamOptions["onPayload"] = (payload, payloadModel) => {
		const contents = (payload as { contents?: unknown } | null)?.contents;
		if (Array.isArray(contents)) signCurrentTurn(contents as Content[]);
		return outer ? outer(payload, payloadModel) : undefined;
	};
	return { ...options, onPayload };
}

function partsOf(content: Content): Part[] {
	return Array.isArray(content?.parts) ? (content.parts as Part[]) : [];
}

function signCurrentTurn(contents: Content[]): void {
	// The turn starts at the last user content holding text (tool results are not a new turn).
	const start = contents.findLastIndex(
		(content) => content?.role === "user" && partsOf(content).some((part) => typeof part?.text === "string"),
	);
	for (const content of contents.slice(start + 1)) {
		if (content?.role !== "model") continue;
		const first = partsOf(content).find((part) => part?.functionCall !== undefined);
		if (first && !first.thoughtSignature) first.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
	}
}
