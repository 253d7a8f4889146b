/**
 * A local OpenAI-compatible server that behaves as llama-server does for compaction replays: it
 * reports the usage of what it was sent (about 4 characters a token), refuses what does not fit
 * its context, and answers a compaction's summary request with a short summary.
 */
import { chatReply, openAiError } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { isChatSummaryRequest } from "./helpers.js";

export interface LlamaServerOptions {
	/** The context size in tokens (per model id if a record; an unknown model gets 0); omitted, nothing is refused. */
	contextSize?: number | Record<string, number>;
	/** Ends the refusal with llama-server's ", try increasing it" (default true). */
	hint?: boolean;
	/** The text of the `n`th answer (1-based, summaries and refusals not counted); default `answer <n>`. */
	answer?: (n: number) => string;
}

/** A started server and how many answers and summaries it gave so far. */
export interface LlamaServer {
	server: WireServer;
	counts: { answers: number; summaries: number };
}

export async function startLlamaServer(options: LlamaServerOptions = {}): Promise<LlamaServer> {
	const { contextSize, hint = true, answer = (n: number) => `answer ${n}` } = options;
	const counts = { answers: 0, summaries: 0 };
	const server = await startWireServer((request) => {
		const prompt = Math.ceil(JSON.stringify(request.body ?? {}).length / 4);
		const window =
			typeof contextSize === "object" ? (contextSize[String(request.body?.model)] ?? 0) : (contextSize ?? Infinity);
		if (prompt > window) {
			return openAiError(
				400,
				`request (${prompt} tokens) exceeds the available context size (${window} tokens)${hint ? ", try increasing it" : ""}`,
				"exceed_context_size_error",
			);
		}
		if (isChatSummaryRequest(request)) {
			counts.summaries++;
			return chatReply([{ type: "text", text: "## Goal\nanswer the questions" }], {
				usage: { prompt, completion: 10 },
			});
		}
		counts.answers++;
		return chatReply([{ type: "text", text: answer(counts.answers) }], { usage: { prompt, completion: 3 } });
	});
	return { server, counts };
}
