/**
 * aisix#111, librefang#3448: a streaming client decoded each network chunk of the provider's SSE
 * stream on its own; a CJK character or an emoji whose bytes straddled two chunks became U+FFFD
 * ("garbage mid-stream on any Chinese prompt"). praxis#739: an SSE parser that split events on
 * `\n\n` only buffered a stream with `\r\n` line ends forever (the SSE spec allows CR LF), and a
 * CR LF cut between two chunks must not end an event early. What the user should see: the answer
 * exactly as the model wrote it, on stdout and in the session file.
 *
 * Real `settle -p` child processes against a local server that writes its SSE body in pieces cut
 * one byte into every multi-byte character (and between every CR and its LF), a few milliseconds
 * apart, through pi-ai's OpenAI chat completions and Anthropic Messages clients.
 */
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicEvents } from "../llm/wire/anthropic.js";
import { chatEvents } from "../llm/wire/openai.js";
import { encodeSse, type Reply, type SseEvent, useWireServer } from "../llm/wire/server.js";
import { fileEntries, sessionFilesUnder } from "./helpers.js";

// 3-byte CJK, 2-byte Latin, a 4-byte emoji and a ZWJ sequence; each delta (halves) ends on a whole character.
const ANSWER = "你好，世界！ café naïve — 日本語のテキスト 🚀 👩‍💻 한국어 끝";

const cli = useCliProject("settle-pi-races-sse-split-");
const server = useWireServer();

/** `events` as SSE with `lineEnd`, written in pieces that each end one byte into a multi-byte character or between CR and LF. */
function inPieces(events: readonly SseEvent[], lineEnd: "\n" | "\r\n"): Reply {
	return (_request, res) => {
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
		const bytes = Buffer.from(encodeSse(events).replaceAll("\n", lineEnd), "utf8");
		const cuts: number[] = [];
		for (let at = 0; at < bytes.length; at++) {
			const byte = bytes[at]!;
			if (byte >= 0xc0 || byte === 0x0d) cuts.push(at + 1);
		}
		cuts.push(bytes.length);
		let from = 0;
		const writeNext = () => {
			const to = cuts.shift();
			if (to === undefined) {
				res.end();
				return;
			}
			res.write(bytes.subarray(from, to));
			from = to;
			// Apart in time, so the client reads them as separate chunks.
			setTimeout(writeNext, 2);
		};
		writeNext();
	};
}

async function ask(api: "openai-completions" | "anthropic-messages", lineEnd: "\n" | "\r\n") {
	const events =
		api === "anthropic-messages"
			? anthropicEvents([{ type: "text", text: ANSWER }])
			: chatEvents([{ type: "text", text: ANSWER }]);
	writeLocalProvider(cli.agentDir, api === "anthropic-messages" ? server.url : `${server.url}/v1`, { api });
	server.reply(inPieces(events, lineEnd));
	const run = await runSettleAsync(["--model", "local/coder", "-p", "greet me in three languages"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});
	const [file] = sessionFilesUnder(cli.agentDir);
	const saved = fileEntries(file!)
		.filter((entry) => entry.message?.role === "assistant")
		.map((entry) =>
			(entry.message as { content: { type: string; text?: string }[] }).content
				.map((block) => block.text ?? "")
				.join(""),
		);
	return { ...run, saved };
}

describe("aisix#111, librefang#3448: a character split across two network chunks of the stream became U+FFFD", () => {
	for (const api of ["openai-completions", "anthropic-messages"] as const) {
		it(`aisix#111: ${api}: every multi-byte character cut between two chunks reaches stdout and the session file whole`, async () => {
			const run = await ask(api, "\n");
			expect(run.stderr).toBe("");
			expect(run.stdout).toBe(`${ANSWER}\n`);
			expect(run.code).toBe(0);
			expect(run.saved).toEqual([ANSWER]);
		});

		it(`praxis#739: ${api}: a stream with CR LF line ends, each CR LF cut between two chunks, gives the same answer`, async () => {
			const run = await ask(api, "\r\n");
			expect(run.stderr).toBe("");
			expect(run.stdout).toBe(`${ANSWER}\n`);
			expect(run.code).toBe(0);
			expect(run.saved).toEqual([ANSWER]);
		});
	}
});
