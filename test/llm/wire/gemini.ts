/**
 * The Gemini API as it streams (`models/{model}:streamGenerateContent?alt=sse`): each `data:` line a
 * `GenerateContentResponse` whose candidate holds parts (`text`, `thought`, `functionCall`, each
 * with an optional `thoughtSignature`); errors as `{"error":{"code","message","status"}}`.
 */
import { json, type Reply, sse } from "./server.js";

export type GeminiPart =
	| { text: string; thought?: true; thoughtSignature?: string }
	| { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string };

/** One streamed answer: its parts, the finish reason and the usage in one chunk. */
export function geminiReply(parts: readonly GeminiPart[], model = "gemini-3-pro-wire"): Reply {
	const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
	const candidate = { content: { role: "model", parts }, finishReason: "STOP", index: 0 };
	return sse([{ data: { candidates: [candidate], usageMetadata, modelVersion: model } }]);
}

/** An HTTP error as the Gemini API sends it. */
export function geminiError(code: number, status: string, message: string): Reply {
	return json(code, { error: { code, message, status } });
}
