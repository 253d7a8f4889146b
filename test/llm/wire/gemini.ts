/**
 * The Gemini API as it streams (`models/{model}:streamGenerateContent?alt=sse`): each `data:` line a
 * `GenerateContentResponse` whose candidate holds parts (`text`, `thought`, `functionCall`, each
 * with an optional `thoughtSignature`); errors as `{"error":{"code","message","status"}}`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

/**
 * Writes `<agentDir>/models.json` with one provider, `gem`, on the Gemini API at `serverUrl` (a wire
 * server's url) with one model `gemini-wire`; `model` adds fields to it (contextWindow, cost…).
 */
export function writeGeminiProvider(agentDir: string, serverUrl: string, model: Record<string, unknown> = {}): void {
	mkdirSync(agentDir, { recursive: true });
	const gem = {
		baseUrl: `${serverUrl}/v1beta`,
		api: "google-generative-ai",
		apiKey: "k",
		models: [{ id: "gemini-wire", ...model }],
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { gem } }));
}
